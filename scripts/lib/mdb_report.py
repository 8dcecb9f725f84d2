"""What the reports say, apart from how they are drawn: comparisons of two
benchmarks, each layout against the reference layout (the summary and the
headline table), the footprint break-even sizes, the fidelity of the
userspace reference to the live kernel, and report.md's text apart from the
figures (the figures, their plan and tables: scripts/lib/figures/).  No
matplotlib here; statistics from mdb_stats (scipy)."""

import math

import mdb_dump as md
import mdb_stats as st

GiB = 1 << 30


# -- one comparison -----------------------------------------------------------

class Cells:
	"""One row of a comparison: each side's n and median (or why it has
	none) and the Comparison (None when a side failed or lacks the metric).
	Made by compare_rows(), which runs the tests of all rows together."""

	def __init__(self, da, ba, db, bb, metric):
		self.metric = metric
		self.cmp = self.samples = None
		(va, ha), (vb, hb) = ba.sample(metric), bb.sample(metric)
		self.aggregates = "aggregate" in (ha, hb)
		self.n_a, self.n_b = len(va), len(vb)
		self.a = md.fmt(median(va)) if va and not ba.error else da.missing_cell(ba, metric)
		self.b = md.fmt(median(vb)) if vb and not bb.error else db.missing_cell(bb, metric)
		if ba.error or bb.error:
			self.verdict = "failed"
		elif not va or not vb:
			self.verdict = "-"
		else:
			self.samples = (va, vb)
		self.exact = "report" in (ba.kclass, bb.kclass)	# counts, not measurements

	def set(self, cmp):
		self.cmp, self.verdict = cmp, cmp.verdict
		if self.aggregates and not cmp.exact:
			self.verdict = "aggregates only: no test"

	def cells(self):
		c = self.cmp
		return [str(self.n_a), self.a, str(self.n_b), self.b,
			c.estimate_text() if c else "-", c.ci_text() if c else "-",
			c.p_text() if c else "-", self.verdict]


def words(metric):
	"""A metric's verdict words (st.verdict): times are faster or slower,
	other values (counters, bytes) lower or higher."""
	return st.TIME_WORDS if metric in md.TIME_METRICS or metric == "ratio" else st.VALUE_WORDS


def compare_rows(items, alpha, margin=st.DEFAULT_MARGIN, trimmed=False):
	"""[Cells] of [(dump A, Bench A, dump B, Bench B, metric)]; trimmed:
	the samples are two sides' within-run ratios, compared by st.yuen_t()."""
	rows = [Cells(*it) for it in items]
	todo = [r for r in rows if r.samples]
	for r, c in zip(todo, st.compare_all([r.samples for r in todo], alpha,
					     [r.exact for r in todo], margin,
					     [words(r.metric) for r in todo],
					     trimmed=[trimmed] * len(todo))):
		r.set(c)
	return rows


COMPARE_HEADER = ["n A", "A", "n B", "B", "B/A", "interval", "p", "verdict"]


def median(values):
	s = sorted(values)
	n = len(s)
	return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def quartiles(values):
	"""(Q1, Q3) as scipy.stats.iqr takes them (linear interpolation)."""
	import numpy as np
	q1, q3 = np.percentile(values, [25, 75])
	return float(q1), float(q3)


def bounds(xy, benches):
	"""A baseline's points [(RAM, ns)] bound the benchmarks: at every point
	within the RAM sizes they ran, the baseline is at or below the fastest
	variant's median (interpolated on log scales between sizes); False
	when no point falls there."""
	med = {}
	for b in benches:
		v = b.sample("real_time")[0]
		if v and not b.error:
			med[b.ram] = min(median(v), med.get(b.ram, math.inf))
	pts = sorted(med.items())
	inside = [(x, y) for x, y in xy if pts and pts[0][0] <= x <= pts[-1][0]]
	return bool(inside) and all(y <= interpolate(pts, x) for x, y in inside)


def interpolate(pts, x):
	"""y at x of the sorted points [(x, y)], linear in log x."""
	for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
		if x0 <= x <= x1:
			f = math.log(x / x0) / math.log(x1 / x0)
			return y0 + f * (y1 - y0)
	return pts[0][1]


WORKING_SET = "working_set_bytes"	# per benchmark: bytes one op's working set spans


def llc_crossings(dump, benches):
	"""{layout: RAM at which its working set passes the last-level cache
	(machine.llc_bytes), or None: below it at every size run, or no working
	set}, interpolated on log scales between the sizes either side; at
	or below the smallest size when every size is above it."""
	llc = machine(dump).get("llc_bytes")
	out = {}
	if not llc:
		return out
	per = {}
	for b in benches:
		v = b.values(WORKING_SET)
		if b.ram and v:
			per.setdefault(b.layout, {})[b.ram] = median(v)
	for layout, ws in per.items():
		pts = sorted(ws.items())
		x = None
		for (r0, w0), (r1, w1) in zip([(None, None)] + pts, pts):
			if w1 >= llc:
				if r0 is None or w0 <= 0 or w1 == w0:
					x = r1
				else:
					f = (math.log(llc) - math.log(w0)) / (math.log(w1) - math.log(w0))
					x = math.exp(math.log(r0) + f * (math.log(r1) - math.log(r0)))
				break
		out[layout] = x
	return out


# -- each layout against the reference ---------------------------------------

# The name parameter of the reference layout's placebo twin (context twin).
TWIN_PARAM = "twin"


def twin_pairs(dump, pool="native"):
	"""{reference Bench's name: (reference Bench, its twin Bench)}: the
	reference layout's benchmarks run a second time alike (.../twin:b)."""
	out = {}
	benches = getattr(dump, pool)
	for b in benches.values():
		if TWIN_PARAM in b.params and b.timed:
			tag = f"/{TWIN_PARAM}:{b.params[TWIN_PARAM]}"
			r = benches.get(b.name.replace(tag, "", 1))
			if r is not None:
				out[r.name] = (r, b)
	return out


def resolution(dump, alpha, margin=st.DEFAULT_MARGIN):
	"""{reference Bench's name: Ratio of its twin against it}: the A/A
	interval, the smallest change the run could have shown there."""
	pairs = twin_pairs(dump)
	return {name: x for name, x in zip(pairs, ratios(list(pairs.values()), alpha, margin))}


def reference_pairs(dump, pool="native"):
	"""[(reference Bench, other Bench)] of every timed benchmark of a
	layout other than the reference (and the live kernel) that the reference layout ran too (same kernel,
	mix, RAM, variant and threads)."""
	ref = dump.reference
	skip = {ref, *dump.real_layouts}	# the live kernel: fidelity()
	by_key = {}
	for b in getattr(dump, pool).values():
		if b.layout == ref:
			by_key[b.key_without_layout()] = b
	out = []
	for b in getattr(dump, pool).values():
		if b.layout and b.layout not in skip and b.timed and TWIN_PARAM not in b.params:
			r = by_key.get(b.key_without_layout())
			if r is not None:
				out.append((r, b))
	return out


class Ratio:
	"""A layout's time against the reference layout's for one benchmark;
	made by ratios(), which runs the tests of all of them together."""

	__slots__ = ("ref", "bench", "cmp", "failed")

	def __init__(self, ref, bench):
		self.ref, self.bench = ref, bench
		self.failed = ref.error or bench.error
		self.cmp = None

	def samples(self):
		"""(reference's values, bench's values, paired) or None."""
		if self.failed:
			return None
		va, vb, paired = md.round_pairs(self.ref, self.bench, "real_time")
		return (va, vb, paired) if va and vb else None

	@property
	def value(self):
		return self.cmp.ratio if self.cmp else None

	def text(self, lines=False):
		"""'ratio (lo..hi)', or "-" without a ratio; lines: the summary
		figure's cell, the interval on a second line and, where the verdict
		is not decided, its category on a third ("" without a ratio)."""
		if self.failed:
			return "failed"
		c = self.cmp
		if not c or c.ratio is None:
			return "" if lines else "-"
		ci = f"{st.fmt3(c.ci[0])}..{st.fmt3(c.ci[1])}" if c.ci else None
		if not lines:
			return f"{st.fmt3(c.ratio)} ({ci})" if ci else st.fmt3(c.ratio)
		text = st.fmt3(c.ratio) + (f"\n{ci}" if ci else "")
		return text + ("" if st.decided(c.verdict) else "\n" + st.category(c.verdict))


def ratios(pairs, alpha, margin=st.DEFAULT_MARGIN):
	"""[Ratio] of [(reference Bench, Bench)] of one run: paired by round
	where the dump says which round each value is of."""
	out = [Ratio(r, b) for r, b in pairs]
	todo = [(x, x.samples()) for x in out]
	todo = [(x, s) for x, s in todo if s]
	for (x, _), c in zip(todo, st.compare_all([s[:2] for _, s in todo], alpha, margin=margin,
						  paired=[s[2] for _, s in todo])):
		x.cmp = c
	return out


def row_key(b):
	"""The summary's row of a benchmark: kernel, mix, variant, threads."""
	return (b.kernel, b.mix or "", b.variant, b.threads)


def row_label(key, with_mix=True):
	kernel, mix, variant, threads = key
	parts = [kernel]
	if with_mix and mix:
		parts.append(f"mix:{mix}")
	if variant:
		parts.append(md.variant_label(variant))
	if threads != 1:
		parts.append(f"threads:{threads}")
	return " ".join(parts)


def row_labels(rows):
	"""{row: label} for row_key()s, naming the mix only if they have several."""
	with_mix = len({r[1] for r in rows}) > 1
	return {r: row_label(r, with_mix) for r in rows}


def summary(dump, alpha, margin=st.DEFAULT_MARGIN):
	"""(rows, columns, {(row, column): Ratio}): rows are row_key()s, columns
	(layout, RAM) of every non-reference layout, in the dump's order."""
	cells, rows, cols = {}, {}, {}
	for x in ratios(reference_pairs(dump), alpha, margin):
		b = x.bench
		r, c = row_key(b), (b.layout, b.ram or 0)
		rows.setdefault(r, None)
		cols.setdefault(c, None)
		cells[(r, c)] = x
	order = {n: i for i, n in enumerate(dump.layout_names)}
	cols = sorted(cols, key=lambda c: (order.get(c[0], 0), c[1]))
	rows = sorted(rows, key=lambda r: class_rank([dump], r[0]))	# dependent first
	return rows, cols, cells


# The classes of the headline's kernels, in the report's order: dependent
# chains (and their cold variants) lead, throughput walks follow.
HEADLINE_CLASSES = ("dependent", "sequential", "mutating")
CLASS_ORDER = HEADLINE_CLASSES + ("other",)


def kernel_class(dump, kernel):
	return next((k["class"] for k in dump.kernels if k["name"] == kernel), "other")


def class_rank(dumps, kernel):
	"""Where a kernel's figures go: by its class in CLASS_ORDER."""
	for d in dumps:
		c = kernel_class(d, kernel)
		if c in CLASS_ORDER:
			return CLASS_ORDER.index(c)
	return len(CLASS_ORDER)


def machine(dump):
	"""context.memdesc_bench.machine: llc_bytes, headline_ram_bytes."""
	return dump.mb.get("machine") or {}


def headline_sizes(dump):
	"""(RAM sizes the headline comes from, a sentence saying why): those at
	or above machine.headline_ram_bytes, else the largest, marked so."""
	rams = sorted({b.ram for b in dump.native.values() if b.ram and b.timed})
	if not rams:
		return [], "no timed benchmark with a RAM size"
	want = machine(dump).get("headline_ram_bytes")
	largest = md.format_size(rams[-1])
	if want is None:
		return rams[-1:], (f"no headline size in this dump (no machine.headline_ram_bytes): "
				   f"the largest size run, {largest}, stands in, and may be a "
				   "cache effect")
	over = [r for r in rams if r >= want]
	llc = machine(dump).get("llc_bytes")
	why = f" ({want // llc}x the last-level cache{llc_text(dump)})" if llc else ""
	if not over:
		return rams[-1:], (f"no size at or above the headline size {md.format_size(want)}"
				   f"{why} was run: the largest, {largest}, stands in, and may be a "
				   "cache effect")
	return over, (f"modelled RAM at or above the headline size {md.format_size(want)}{why}: "
		      + ", ".join(md.format_size(r) for r in over))


def llc_text(dump):
	"""Which last-level cache sized the headline and why (machine.llc_source,
	llc_reason: measured by the probe, hwloc's, or given), for a sentence."""
	m = machine(dump)
	if not m.get("llc_bytes"):
		return ""
	source = m.get("llc_source")
	text = f" of {md.format_size(m['llc_bytes'])}" + (f", {source}" if source else "")
	return text + (f": {m['llc_reason']}" if m.get("llc_reason") else "")


def headline_conditions(dump):
	"""[(condition, value)] the headline holds under: the run's top-level
	scalar conditions and the lists of its grouped ones (modes, counts)."""
	out = []
	for k, v in (dump.mb.get("conditions") or {}).items():
		if isinstance(v, dict):
			out += [(f"{k}.{k2}", scalar_list(v2)) for k2, v2 in v.items()
				if isinstance(v2, list) and all(not isinstance(x, (dict, list)) for x in v2)]
		elif not isinstance(v, list):
			out.append((k, scalar(v)))
	return out


def scalar_list(v):
	return ", ".join(scalar(x) for x in v) or "[]"


def verdict(x):
	"""A Ratio's verdict (st.verdict), "failed", or "-" with no ratio."""
	if x.failed:
		return "failed"
	c = x.cmp
	if not c or c.ratio is None:
		return "-"
	return c.verdict


def doubtful(x):
	"""Neither faster nor slower was shown: same within the margin,
	undecided, or too few rounds."""
	return not x.failed and x.cmp is not None and not st.decided(verdict(x))


def n_text(b):
	"""Repetitions with a time (0 for a failed benchmark)."""
	return str(len(b.sample("real_time")[0]))


def round_text(dump):
	"""What stands behind each round of the run (context round_value):
	how many short runs and their estimator; None when the dump does
	not say (older runs: one run a round)."""
	rv = dump.mb.get("round_value")
	if not isinstance(rv, dict) or not isinstance(rv.get("reps"), int):
		return None
	if rv["reps"] <= 1:
		return "each round: one Google Benchmark run of each benchmark"
	return (f"each round: the {rv.get('estimator')} of {rv['reps']} short runs of "
		f"{md.fmt(rv.get('min_time', 0))} s at least (one run for a kernel that changes "
		f"its memmap)")


def headline_cells(dump, alpha, margin=st.DEFAULT_MARGIN):
	"""(sizes, sentence, [(row label, RAM, layout, Ratio)]): the headline,
	per kernel of HEADLINE_CLASSES (dependent first) at its highest thread
	count, at each of headline_sizes()."""
	rows, cols, cells = summary(dump, alpha, margin)
	most = {}
	for kernel, _, _, t in rows:
		most[kernel] = max(t, most.get(kernel, t))
	rank = {c: i for i, c in enumerate(HEADLINE_CLASSES)}
	keep = sorted((r for r in rows if kernel_class(dump, r[0]) in rank and r[3] == most[r[0]]),
		      key=lambda r: rank[kernel_class(dump, r[0])])
	sizes, why = headline_sizes(dump)
	layouts = md.first_seen(c[0] for c in cols)
	labels = row_labels(keep)
	out = []
	for r in keep:
		for ram in sizes:
			for l in layouts:
				x = cells.get((r, (l, ram)))
				if x is not None:
					out.append((labels[r], ram, l, x))
	return sizes, why, out


def headline_rows(dump, alpha, margin=st.DEFAULT_MARGIN):
	"""(sizes, sentence, rows): headline_cells() as the headline's rows
	[kernel, RAM, layout, n reference/layout, ratio, interval, verdict],
	and the A/A interval of the reference against its twin last where the
	dump has twins (HEADLINE_TWIN)."""
	sizes, why, cells = headline_cells(dump, alpha, margin)
	aa = resolution(dump, alpha, margin)
	out = []
	for label, ram, l, x in cells:
		c = x.cmp
		row = [label, md.format_size(ram), l, f"{n_text(x.ref)}/{n_text(x.bench)}",
		       st.fmt3(c.ratio) if c and c.ratio is not None else "-",
		       c.ci_text() if c else "-", verdict(x)]
		if aa:
			t = aa.get(x.ref.name)
			row.append(t.cmp.ci_text() if t and t.cmp else "-")
		out.append(row)
	return sizes, why, out


def headline_header(rows):
	"""HEADLINE_HEADER, with the A/A column where the rows have it."""
	return HEADLINE_HEADER + (HEADLINE_TWIN if rows and len(rows[0]) > len(HEADLINE_HEADER) else [])


def digest(dump, alpha, margin=st.DEFAULT_MARGIN):
	"""(title, header, rows, undecided lines): the answer first.  Each
	layout against the reference at the headline size (the smallest of
	headline_sizes()): its footprint per mix under the run's --desc-cache
	(the other options are in the footprint table below it), then a kernel x layout pivot
	of the kernels shown faster or slower (ratio and word), "same" where
	the interval lies within the margin, a kernel only where one of its
	cells is; then the undecided rows, each with the direction its rounds
	took."""
	sizes, _, cells = headline_cells(dump, alpha, margin)
	if not sizes:
		return None
	ram = sizes[0]
	cells = [(label, l, x) for label, r, l, x in cells if r == ram]
	layouts = md.first_seen(l for _, l, _ in cells)
	names, fp = footprint_rows(dump, options=False)
	rows = []
	for row in fp:
		by = dict(zip(names, row[1:]))
		# The held figure where the dump has it (footprint_rows() pairs held and live).
		rows.append([f"footprint, {row[0]}"] + [by.get(f"{l} held", by.get(l, "-")).split(" ", 1)[-1]
							 .strip("()") for l in layouts])
	pivot, open_ = {}, []
	for label, l, x in cells:
		v = verdict(x)
		if st.decided(v):
			text = f"{st.fmt3(x.cmp.ratio)} {v}"
		elif st.category(v).startswith("same within"):
			text = f"same \u00b1{100 * margin:g}%"
		else:
			text = "undecided" if v != "failed" else "failed"
			if v not in ("failed", "-"):
				open_.append(f"{label} {l}: {v}")
		pivot.setdefault(label, {})[l] = text
	# A kernel with no cell decided is only in the undecided lines below.
	rows += [[label] + [pivot[label].get(l, "-") for l in layouts] for label in pivot
		 if any(t not in ("undecided", "failed", "-") for t in pivot[label].values())]
	title = (f"{dump.label}: each layout against {dump.reference} at "
		 f"{md.format_size(ram)} (time per op: ratio, {100 * (1 - alpha):g}% interval "
		 f"excluding 1; same: within \u00b1{100 * margin:g}%)")
	return title, ["", *layouts], rows, open_


def digest_lines(dump, alpha, margin=st.DEFAULT_MARGIN):
	"""The digest as the terminal's first lines."""
	d = digest(dump, alpha, margin)
	if d is None:
		return []
	title, header, rows, open_ = d
	out = [title] + md.text_table(header, rows)
	if open_:
		out.append(f"  undecided ({len(open_)}): " + "; ".join(open_))
	return out + [""]


def unsettled(dump, alpha, margin=st.DEFAULT_MARGIN):
	"""[Ratio] of the headline's rows neither decided nor the same within
	the margin (undecided, too few rounds): what more rounds may settle."""
	return [x for _, _, _, x in headline_cells(dump, alpha, margin)[2]
		if not x.failed and x.cmp and st.category(x.cmp.verdict) in ("undecided",
									    "too few rounds")]


HEADLINE_HEADER = ["kernel", "RAM", "layout", "n ref/layout", "ratio", "interval", "verdict"]
# The reference against its placebo twin, same rounds: the run's resolution.
HEADLINE_TWIN = ["A/A interval"]


def thousands(x):
	return f"{round(x):,}"


def base_page_text(dump):
	"""'at NAME base pages' from the dump's conditions.base_page, or ''
	for a dump that does not record one (older runs modelled 4 KiB)."""
	bp = (dump.mb.get("conditions") or {}).get("base_page") or {}
	return f" at {bp['name']} base pages" if isinstance(bp, dict) and bp.get("name") else ""


def footprint_held(dump):
	"""Whether the dump's footprints count the slab pages held
	(held_bytes_per_GiB): then tables show that figure, live beside it."""
	return any(value(b, md.FOOTPRINT_HELD) is not None for b in report_benches(dump))


def footprint_what(dump):
	"""What the footprint figures of the dump are, for a table's title."""
	if footprint_held(dump):
		return ("memmap + slab pages the descriptor caches hold (partial slabs, sheaves of "
			f"{slab_cpus(dump)} CPUs), live objects beside")
	return "memmap + live descriptors"


def slab_cpus(dump):
	"""The CPU count the descriptor caches were held for (conditions.slab_cpus)."""
	n = (dump.mb.get("conditions") or {}).get("slab_cpus")
	return n if isinstance(n, int) else "?"


def without_cache(variant):
	"""variant less its --desc-cache part (CACHE_PARAM)."""
	return type(variant)(x for x in variant if x[0] != CACHE_PARAM)


def footprint_rows(dump, options=True):
	"""(columns, rows) of the headline's footprint: bytes per GiB of RAM per
	mix (and variant, e.g. hvo:on; not the folio-size sweep, whose rows
	would repeat each mix), with the change against the reference: the
	held figure and, beside it, the live one where the dump has both.
	options=False: only the run's own --desc-cache, not the other options'
	rows (the digest's first screen)."""
	keep = lambda fp: {k: v for k, v in fp.items() if all(p != md.FOLIO_PARAM for p, _ in k[2])}
	held = footprint_held(dump)
	figures = [keep(footprint_per_mix(dump))] + ([keep(footprint_per_mix(dump, live=True))]
						     if held else [])
	ref = dump.reference
	names = md.first_seen(l for _, l, _ in figures[0])
	rows = []
	for m, v in md.first_seen((m, v) for m, _, v in figures[0]):
		if not options and without_cache(v) != v:
			continue
		row = [" ".join(x for x in (m or "-", md.variant_label(v)) if x)]
		for l in names:
			for fp in figures:
				# A cache option's row against the reference's own: a layout
				# without descriptor caches is the same under every option.
				x = fp.get((m, l, v))
				refv = fp.get((m, ref, v)) or fp.get((m, ref, without_cache(v)))
				if x is None:
					row.append("-")
				elif refv and l != ref:
					row.append(f"{thousands(x)} ({x / refv - 1:+.1%})")
				else:
					row.append(thousands(x))
		rows.append(row)
	if held:
		names = [f"{l} {w}" for l in names for w in ("held", "live")]
	return names, rows


def headline(dump, alpha, margin=st.DEFAULT_MARGIN):
	"""Lines of the terminal's headline table: headline_rows(), the
	conditions it holds under, then the footprint per mix."""
	ref = dump.reference
	level = f"{100 * (1 - alpha):g}%"
	sizes, why, rows = headline_rows(dump, alpha, margin)
	out = digest_lines(dump, alpha, margin) + [
	       f"{dump.label}: time per op against {ref} (ratio and its {level} interval)",
	       f"  sizes: {why}",
	       "  conditions: " + "; ".join(f"{k} {v}" for k, v in headline_conditions(dump)),
	       "  verdicts: " + st.rule_text(alpha, margin)]
	if rows:
		if len(rows[0]) > len(HEADLINE_HEADER):
			out.append(f"  A/A interval: {ref} against its placebo twin (a second {ref} built "
				   f"alike, same rounds): the smallest change this run could have shown")
		out += md.text_table(headline_header(rows), rows)
		at = HEADLINE_HEADER.index("verdict")
		out.append(f"  {len(rows)} rows: " + st.tally_text(r[at] for r in rows))
		if round_text(dump):
			out.append(f"  n: rounds; {round_text(dump)}")
	else:
		out.append(f"  no timed benchmark that {ref} and another layout both ran")
	names, fp = footprint_rows(dump)
	if fp:
		out += ["", f"{dump.label}: footprint in bytes per GiB of RAM{base_page_text(dump)}, "
			f"{footprint_what(dump)} (change against {ref})"]
		out += md.text_table(["mix", *names], fp)
	return out + cache_options(dump)


# The name parameter of a report group built with another --desc-cache option.
CACHE_PARAM = "cache"


def cache_options(dump):
	"""Lines of the table per --desc-cache option, all from the dump:
	per mix, each layout's footprint against the reference's; the
	share of neighbouring small-folio descriptors whose written fields
	share a line (context false_sharing); and the false-sharing kernel's
	time per op at 2 threads against 1, measured only under the run's
	option."""
	cond = dump.mb.get("conditions") or {}
	run_opt, kernel = cond.get("desc_cache"), cond.get("false_sharing_kernel")
	opts = md.first_seen(c["desc_cache"] for c in cond.get("desc_caches") or [])
	layouts = md.first_seen(c["layout"] for c in cond.get("desc_caches") or [])
	if not opts:
		return []
	fp = {}
	for b in report_benches(dump):
		opt = b.params.get(CACHE_PARAM, run_opt)
		k = (opt, b.mix or "", b.layout)
		if k not in fp or (b.ram or 0) > (fp[k].ram or 0):
			fp[k] = b
	pairs = {}
	for r in dump.mb.get("false_sharing") or []:
		k = (r.get("desc_cache"), r["layout"])
		first = pairs.setdefault(k, (r["object"], {}))
		if r["object"] == first[0]:
			first[1][r["line_offset"]] = max(first[1].get(r["line_offset"], 0),
							 r["pairs"] if r.get("hot_field") else 0)
	t = {}
	for b in dump.native.values():
		if b.kernel == kernel and not b.error and b.reps:
			t[(b.layout, b.threads)] = median(b.values("real_time"))
	ref, rows = dump.reference, []
	for opt in opts:
		for mix in md.first_seen(m for o, m, _ in fp if o == opt):
			refb = fp.get((run_opt, mix, ref))
			row = [opt, mix]
			for l in layouts:
				b = fp.get((opt, mix, l))
				x = b and total_bytes(b)
				r = refb and total_bytes(refb)
				row.append(f"{x / r - 1:+.1%}" if x and r else "-")
			for l in layouts:
				share = pairs.get((opt, l))
				row.append(f"{sum(share[1].values()):.2f}" if share else "-")
			for l in layouts:
				t1, t2 = t.get((l, 1)), t.get((l, 2))
				if opt != run_opt:
					row.append("unavailable: another option")
				else:
					row.append(f"{t2 / t1:.2f}" if t1 and t2 else "unavailable: not run")
			rows.append(row)
	return ["", f"{dump.label}: per --desc-cache option: footprint against {ref}, "
		f"false-sharing pairs, {kernel} 2 threads / 1"] + md.text_table(
		["cache", "mix", *[f"{l}/{ref}" for l in layouts], *[f"{l} pairs" for l in layouts],
		 *[f"{l} 2T/1T" for l in layouts]], rows)


# -- footprint ---------------------------------------------------------------

def report_benches(dump):
	"""The footprint-like benchmarks: report class, with a layout, not failed."""
	return [b for b in dump.native.values() if b.kclass == "report" and b.layout
		and not b.error and b.reps]


def value(b, field):
	v = b.values(field)
	return median(v) if v else None


def total_bytes(b):
	"""A footprint's bytes: held in slab pages where the dump counts them, else live."""
	v = value(b, "held_bytes")
	return v if v is not None else value(b, "total_bytes")


def per_gib(b):
	"""(memmap, descriptor) bytes per GiB of RAM of a footprint benchmark:
	descriptors in the slab pages held where the dump counts them."""
	held = value(b, "desc_held_bytes")
	mm = value(b, "memmap_bytes") or 0
	ds = held if held is not None else value(b, "desc_bytes") or 0
	if b.ram:
		return mm * GiB / b.ram, ds * GiB / b.ram
	return mm, ds


def footprint_value(b, live=False):
	"""Bytes per GiB of RAM of one footprint: held (md.FOOTPRINT_HELD) unless
	live or the dump has none, else live objects (md.FOOTPRINT_LIVE)."""
	v = None if live else value(b, md.FOOTPRINT_HELD)
	if v is None:
		v = value(b, md.FOOTPRINT_LIVE)
	return v if v is not None else sum(per_gib(b))


def footprint_per_mix(dump, live=False):
	"""{(mix, layout, variant): bytes per GiB} at each one's largest RAM,
	variants without the folio sweep's parameter kept apart: held in slab
	pages (footprint_value()), or live objects with live."""
	best = {}
	for b in report_benches(dump):
		k = (b.mix or "", b.layout, b.variant)
		if k not in best or (b.ram or 0) > (best[k].ram or 0):
			best[k] = b
	return {k: footprint_value(b, live) for k, b in best.items()}


class BreakEven:
	"""One layout's footprint against the small-folio descriptor size d, at
	one (mix, RAM, other variant): the measured points, the fit
	bytes(d) = a + n * d, and the d at which it costs what the reference
	layout does."""

	def __init__(self, mix, ram, variant, layout, points, ref_bytes):
		self.mix, self.ram, self.variant, self.layout = mix, ram, variant, layout
		self.points = sorted(points)		# [(d, total bytes)]
		self.ref = ref_bytes
		self.a = self.n = self.r = self.d = None
		if len({d for d, _ in self.points}) >= 2:
			self.a, self.n, self.r = st.linear_fit([d for d, _ in self.points],
							       [y for _, y in self.points])
			if self.n > 0 and ref_bytes is not None:
				self.d = (ref_bytes - self.a) / self.n

	def text(self):
		if self.n is None:
			return "needs two descriptor sizes or more"
		if self.n <= 0:
			return "does not grow with the descriptor size"
		if self.ref is None:
			return "no reference layout run"
		lo, hi = self.points[0][0], self.points[-1][0]
		where = "" if lo <= self.d <= hi else " (extrapolated)"
		return f"{self.d:.1f} B{where}"


def breakeven(dump):
	"""[BreakEven] of every layout with a folio-descriptor sweep."""
	groups, plain = {}, {}
	for b in report_benches(dump):
		if md.FOLIO_PARAM not in b.params:
			# the reference without descriptors has no sweep: its one footprint
			total = value(b, "total_bytes")
			if b.layout == dump.reference and total is not None:
				plain.setdefault((b.mix or "", b.ram or 0, tuple(b.variant)), []).append(total)
			continue
		d, total = value(b, md.FOLIO_FIELD), value(b, "total_bytes")
		if d is None or total is None:
			continue
		rest = tuple((k, v) for k, v in b.variant if k != md.FOLIO_PARAM)
		groups.setdefault((b.mix or "", b.ram or 0, rest), {}).setdefault(
			b.layout, []).append((d, total))
	out, ref = [], dump.reference
	for (mix, ram, rest), per_layout in groups.items():
		refp = [y for _, y in per_layout.get(ref, [])] or plain.get((mix, ram, rest))
		ref_bytes = median(refp) if refp else None
		for layout, pts in per_layout.items():
			if layout != ref:
				out.append(BreakEven(mix, ram, rest, layout, pts, ref_bytes))
	return out


def variant_pivots(dump):
	"""{param: {(mix, layout, RAM, other variant): {value: bytes per GiB}}}
	for every variant parameter of the footprint benchmarks but the folio
	sweep, with two values or more (e.g. hvo:off, hvo:on)."""
	out = {}
	for b in report_benches(dump):
		for k, v in b.variant:
			if k == md.FOLIO_PARAM:
				continue
			rest = tuple(x for x in b.variant if x[0] != k)
			per = footprint_value(b)
			out.setdefault(k, {}).setdefault((b.mix or "", b.layout, b.ram or 0, rest),
							 {})[v] = per
	return {k: rows for k, rows in out.items()
		if len({v for vals in rows.values() for v in vals}) >= 2}


# -- fidelity: the reference against the live kernel -----------------------------

def fidelity(dump, alpha):
	"""[(real layout, Ratio)] of every timed benchmark the live kernel
	(a layout with real: true) and the reference layout both ran: the
	kernel's time over the reference's."""
	ref = dump.reference
	by_key = {b.key_without_layout(): b for b in dump.native.values() if b.layout == ref}
	rows = [(real, by_key.get(b.key_without_layout()), b) for real in dump.real_layouts
		for b in dump.native.values() if b.layout == real and b.timed]
	done = iter(ratios([(r, b) for _, r, b in rows if r], alpha))
	return [(real, next(done) if r else None, b) for real, r, b in rows]


# -- conditions -------------------------------------------------------------

def flatten(obj, prefix="", depth=0):
	"""[(dotted key, value text)] of a free-form object."""
	if depth > 8:
		return [(prefix, "(nested too deeply)")]
	if isinstance(obj, dict):
		out = []
		for k, v in obj.items():
			out += flatten(v, f"{prefix}.{k}" if prefix else str(k), depth + 1)
		return out or [(prefix, "{}")]
	if isinstance(obj, list):
		if all(not isinstance(x, (dict, list)) for x in obj):
			return [(prefix, ", ".join(scalar(x) for x in obj) or "[]")]
		out = []
		for i, v in enumerate(obj):
			out += flatten(v, f"{prefix}[{i}]", depth + 1)
		return out or [(prefix, "[]")]
	return [(prefix, scalar(obj))]


def summarise(conditions):
	"""[(key, text)] of the conditions: flatten()'s, but a list of objects
	as one row of its length and one per field: min..max of its numbers,
	else its distinct values (the first few and how many)."""
	out = []
	for k, v in conditions.items():
		if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
			out.append((k, f"{len(v)} entries"))
			fields = md.first_seen(f for x in v for f in x)
			for f in fields:
				vals = [x.get(f) for x in v]
				nums = [y for y in vals if isinstance(y, (int, float)) and not isinstance(y, bool)]
				if nums and len(nums) == len([y for y in vals if y is not None]):
					lo, hi = min(nums), max(nums)
					text = md.fmt(lo) if lo == hi else f"{md.fmt(lo)}..{md.fmt(hi)}"
					if len(nums) < len(vals):
						text += f" ({len(vals) - len(nums)} null)"
				else:
					seen = md.first_seen(scalar(y) for y in vals)
					text = ", ".join(seen[:4]) + (f", ... ({len(seen)} values)"
								     if len(seen) > 4 else "")
				out.append((f"{k}[].{f}", text))
		else:
			out += flatten(v, k, 1)
	return out


def scalar(v):
	if v is None:
		return "null"
	if isinstance(v, bool):
		return "true" if v else "false"
	if isinstance(v, float):
		return md.fmt(v) if math.isfinite(v) else str(v)
	if isinstance(v, (dict, list)):
		return "..."
	return str(v)


# -- the report's text, apart from the figures ---------------------------------

class Doc:
	"""Lines of report.md as they are written: text, tables, and a dump's
	label before its table where several dumps share a section."""

	def __init__(self, dumps, alpha, margin=st.DEFAULT_MARGIN):
		self.dumps, self.alpha, self.margin = dumps, alpha, margin
		self.multi = len(dumps) > 1
		self.report = []

	def md(self, text):
		self.report.append(text)

	def table(self, header, rows):
		self.report += md.md_table(header, rows)

	def per_dump(self, d):
		if self.multi:
			self.md(f"**{md.md_cell(d.label)}**\n")


class Text(Doc):
	"""The sections of report.md that go with no figure: the head, the
	runs, their conditions, the counters, false sharing, fidelity to the
	live kernel and the baselines' table.  The Plotter
	(scripts/lib/figures/plotter.py) holds one, writes the figures and the
	tables behind them through it, and calls these sections in report.md's
	order."""

	def head(self):
		self.md("# memdesc-bench report\n")
		self.md("Dumps: " + ", ".join(f"`{md.md_cell(d.path)}`" for d in self.dumps) + "\n")
		for d in self.dumps:
			dg = digest(d, self.alpha, self.margin)
			if dg is None:
				continue
			title, header, rows, open_ = dg
			self.md(f"**{md.md_cell(title)}**\n")
			self.table(header, rows)
			self.md("")
			if open_:
				self.md(f"Undecided ({len(open_)}): " +
					"; ".join(md.md_cell(x) for x in open_) + "\n")


	def runs(self):
		self.md("## Runs\n")
		fields = [
			("host", lambda d: d.host),
			("CPU", lambda d: d.cpu_model),
			("run id", lambda d: d.mb.get("run_id")),
			("kernel", lambda d: kernel_text(d.mb.get("kernel"))),
			("profile", lambda d: d.mb.get("profile", "?")),
			("complete", lambda d: "yes" if d.complete else "**no: partial run**"),
			("git commit", lambda d: str(d.mb.get("git_commit", "?"))[:12] +
			 (" (dirty)" if d.mb.get("git_dirty") else "")),
			("source", lambda d: d.mb.get("source", "mdbench --out")),
			("reference layout", lambda d: d.reference),
			("layouts", lambda d: ", ".join(layout_text(l) for l in d.layouts)),
			("repetitions", lambda d: reps_text(d)),
			("mixes", lambda d: ", ".join(m["name"] for m in d.mb.get("mixes", []))),
			("RAM sizes", lambda d: ", ".join(md.format_size(r) for r in d.mb.get("ram_sizes", []))),
			("perf_event_paranoid", lambda d: str(d.mb.get("perf_event_paranoid", "?"))),
			("THP", lambda d: ", ".join(v for _, v in flatten(d.mb.get("thp")))),
			("caches", lambda d: caches_text(d.mb.get("hwloc"))),
			("pinned", lambda d: pinned_text(d.mb)),
			("seed", lambda d: str(d.mb.get("seed", "?"))),
			("simulation", lambda d: sim_text(d.sim_mb)),
		]
		self.table(["", *[d.label for d in self.dumps]],
			   [[n] + [str(get(d)) for d in self.dumps] for n, get in fields])
		for d in self.dumps:
			parts = d.mb.get("parts") or []
			cmds = [(p.get("argv"), p) for p in parts] or [(d.mb.get("argv"), {})]
			self.md(f"Commands of {md.md_cell(d.label)}:\n")
			for argv, p in cmds:
				what = " (extra rounds)" if p.get("rounds") else ""
				done = "" if p.get("complete", True) else " (incomplete)"
				self.md(f"- `{md.md_cell(' '.join(argv or ['?']))}`{what}{done}")
			self.md("")

	def conditions(self):
		"""The conditions as a key/value table, a list of objects (every
		memmap built) summarised per field: its values' range, or the
		distinct ones."""
		rows = {}
		for i, d in enumerate(self.dumps):
			for k, v in summarise(d.mb.get("conditions") or {}):
				rows.setdefault(k, [""] * len(self.dumps))[i] = v
		if rows:
			self.md("## Conditions the runs obtained\n")
			self.md("Nested keys joined with `.`; a list of objects as its length and, per "
				"field, the range of its values or the distinct ones "
				"(results/SCHEMA.md says what each is).\n")
			self.table(["condition", *[d.label for d in self.dumps]],
				   [[k, *v] for k, v in rows.items()])

	def noisy(self):
		"""The benchmarks whose rounds spread wide: a reader discounts them."""
		from mdb_runner import RERUN_SPREAD
		rows = []
		for d in self.dumps:
			for b in d.native.values():
				v = b.values("real_time")
				if b.kclass != "report" and not b.error and len(v) >= 2:
					s = st.relative_spread(v)
					if s > RERUN_SPREAD:
						rows.append((s, d, b, v))
		self.md("## Noisy benchmarks\n")
		if not rows:
			self.md(f"No benchmark's rounds spread wider than {RERUN_SPREAD:.0%} of the "
				"median ((Q3 - Q1) / median of ns/op).\n")
			return
		self.md(f"{len(rows)} benchmarks whose rounds spread wider than {RERUN_SPREAD:.0%} "
			"of the median ((Q3 - Q1) / median of ns/op; scripts/run re-runs them with more "
			"rounds), widest first: their ratios carry wide intervals.\n")
		rows.sort(key=lambda x: -x[0])
		self.table((["run"] if self.multi else []) + ["benchmark", "n", "spread", "ns/op"],
			   [([d.label] if self.multi else []) +
			    [b.name, str(len(v)), f"{s:.1%}", time_cell(d, b)] for s, d, b, v in rows])

	def counters(self, zero):
		self.md("## Counters\n")
		names = md.first_seen(n for d in self.dumps for n in
				      list(d.counters_available()) + list(d.counters_unavailable()))
		avail = [d.counters_available() for d in self.dumps]
		encodings = [{x["name"]: x for x in (d.mb.get("counters") or {}).get("available") or []}
			     for d in self.dumps]
		rows = []
		for c in names:
			row = [c]
			for d, a, enc in zip(self.dumps, avail, encodings):
				if c not in a:
					row.append(d.why_missing(c))
					continue
				e = enc.get(c, {})
				how = ", ".join(str(x) for x in (e.get("event"), e.get("pfm")) if x)
				row.append(f"available ({how})" if how else "available")
			rows.append(row)
		if rows:
			self.table(["counter", *[d.label for d in self.dumps]], rows)
		else:
			self.md("No counters in these dumps.\n")
		for c in zero:
			self.md(f"- `{md.md_cell(c)}` was counted and is 0 in every benchmark: no figure.")
		for d in self.dumps:
			self.pmu(d)
		self.md("\nCounters are per op; a counter the machine could not count is "
			"\"unavailable: reason\", never 0.\n")

	def pmu(self, d):
		"""Which PMU counted, whether it multiplexed, and the counts not trusted."""
		c = d.mb.get("counters") or {}
		p = c.get("pmu") or {}
		who = f"{d.label}: " if self.multi else ""
		if p.get("libpfm") or p.get("midr_el1") or p.get("virtual"):
			parts = [f"libpfm `{p['libpfm']}` ({p.get('libpfm_desc')})" if p.get("libpfm") else
				 "libpfm knows no core PMU here"]
			if p.get("midr_el1"):
				parts.append(f"MIDR_EL1 {p['midr_el1']}")
			if p.get("virtual"):
				parts.append(f"a virtual machine ({p['virtual']}): {p.get('note') or ''}")
			self.md(f"- {who}PMU: " + "; ".join(parts) + ".")
		if (c.get("hw_groups") or 0) > 1:
			self.md(f"- {who}more hardware events than the PMU has counters: {c['hw_groups']} "
				"groups took turns, each count scaled by its time enabled over its time "
				"running (each benchmark's `counter_scaling`).")
		seen = {}
		for b in d.native.values():
			for e in b.reps:
				for name, why in (e.get("counters_not_trusted") or {}).items():
					seen.setdefault((name, why), []).append(b.name)
		for (name, why), benches in seen.items():
			self.md(f"- {who}`{md.md_cell(name)}` {md.md_cell(why)} in {len(benches)} runs "
				f"(e.g. `{md.md_cell(benches[0])}`): left out, not 0.")

	def false_sharing(self):
		for d in self.dumps:
			rows = d.mb.get("false_sharing")
			if not rows:
				continue
			self.md("## False sharing between neighbouring objects\n")
			self.per_dump(d)
			first = ["layout", "object", "hot_field", "neighbour_field", "line_offset"]
			keys = first + [k for k in md.first_seen(k for r in rows for k in r) if k not in first]
			# a row whose objects share no written line has no fields: "-", not null
			self.table(keys, [["-" if r.get(k) is None else scalar(r[k]) for k in keys]
					   for r in rows])

	def fidelity(self):
		for d in self.dumps:
			rows = fidelity(d, self.alpha)
			if not rows:
				continue
			self.md(f"## Fidelity: {md.md_cell(d.reference)} against the live kernel\n")
			self.md(f"The live kernel's ns/op (layout measured by the kernel module) over the "
				f"userspace {md.md_cell(d.reference)}'s on the same mix and RAM: the ratio "
				f"and its {100 * (1 - self.alpha):g}% interval; 1 is a perfect model.\n")
			self.per_dump(d)
			t = []
			for real, ratio, b in rows:
				ref = time_cell(d, ratio.ref) if ratio else f"no {d.reference} run here"
				t.append([row_label((b.kernel, "", b.variant, b.threads)), b.mix or "-",
					  md.format_size(b.ram) if b.ram else "-", ref, real, time_cell(d, b),
					  ratio.text() if ratio else "-",
					  ratio.cmp.p_text() if ratio and ratio.cmp else "-"])
			self.table(["kernel", "mix", "RAM", f"{d.reference} ns/op", "live kernel",
				    "its ns/op", "kernel/reference", "p"], t)


	def baselines(self):
		for d in self.dumps:
			base = [b for b in d.native.values() if b.kclass == "baseline" and b.bytes]
			if not base:
				continue
			self.per_dump(d)
			t = []
			for b in base:
				bw = b.values("bytes_per_second")
				t.append([b.kernel, md.format_size(b.bytes), time_cell(d, b),
					  md.fmt(median(bw) / 1e9) if bw else "-"])
			self.table(["baseline", "buffer", "ns/op", "GB/s"], t)
		self.md("A dependent kernel's figure shows the latency baseline (one dependent load) "
			"and a sequential one's the time to stream one struct page at the bandwidth "
			"baseline's rate (sizeof_page / GB/s), each at the RAM size whose memmap is the "
			"baseline's buffer for that layout: RAM = buffer / sizeof_page x 4 KiB.\n")


def time_cell(d, b):
	"""'12.5 (12.1..12.9)': median and min..max over repetitions; failed or '-'."""
	if b is None:
		return "-"
	if b.error:
		return md.failed_text(b)
	v, how = b.sample("real_time")
	if not v:
		return "-"
	m = md.fmt(median(v))
	return m if min(v) == max(v) else f"{m} ({md.fmt(min(v))}..{md.fmt(max(v))})"


def value_cell(b, field):
	v = b.values(field)
	if not v:
		return "-"
	m = md.fmt(median(v))
	return m if min(v) == max(v) else f"{m} ({md.fmt(min(v))}..{md.fmt(max(v))})"


def layout_text(l):
	desc = ", descriptors" if l.get("descriptors") else ""
	real = ", live kernel" if l.get("real") else ""
	return f"{l['name']} (page {l['sizeof_page']} B{desc}{real})"


def reps_text(d):
	n = [len(b.reps) for b in d.native.values() if b.reps]
	if not n:
		return "-"
	lo, hi = min(n), max(n)
	return f"{lo}" if lo == hi else f"{lo}..{hi}"


def kernel_text(k):
	if isinstance(k, dict):
		parts = [scalar(k[f]) for f in ("sysname", "release", "version", "machine") if f in k]
		return " ".join(parts) or ", ".join(f"{a}={b}" for a, b in flatten(k))
	return "?"


def pinned_text(mb):
	cpu, node = mb.get("cpu"), mb.get("node")
	cpu = "not pinned" if cpu is None or cpu == -1 else f"cpu {cpu}"
	node = "memory not bound" if node is None or node == -1 else f"node {node}"
	return f"{cpu}, {node}"


def caches_text(h):
	out = []
	for c in (h or {}).get("caches", []):
		size = c.get("size")
		size = md.format_size(size) if size is not None else "?"
		out.append(f"L{c.get('level', '?')}{str(c.get('type', ''))[:1]} {size}")
	return ", ".join(out) or "?"


def sim_text(s):
	if not s:
		return "-"
	sim = s.get("simulation") or {}
	ops = sim.get("ops")
	if isinstance(ops, dict) and ops:
		ops = f"{min(ops.values())}..{max(ops.values())} ops per benchmark"
	else:
		ops = "? ops"
	# The regime: RAM over the last-level cache, natively at the headline and simulated.
	native, here = sim.get("native_ram_over_llc"), sim.get("sim_ram_over_ll")
	regime = (f"; RAM/LL {here:.0f} simulated, {native:.0f} native at the headline"
		  if isinstance(native, (int, float)) and isinstance(here, (int, float)) else "")
	return (f"{scalar(sim.get('tool', '?'))}; D1 {scalar(sim.get('D1_simulated') or '?')}; "
		f"LL {scalar(sim.get('LL_simulated') or '?')}; {ops}{regime}")

