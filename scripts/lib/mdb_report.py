"""What the reports say, apart from how they are drawn: comparisons of two
benchmarks, each layout against the reference layout (the summary and the
headline table), the footprint break-even sizes, the fidelity of the
userspace reference to the live kernel, and the plan of figures that
scripts/plot draws and tests/scripts/check_plots.py expects.  No matplotlib
here; statistics from mdb_stats (scipy)."""

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
		if self.aggregates and cmp.p is None and cmp.verdict != "same":
			self.verdict = "aggregates only: no test"

	def cells(self):
		c = self.cmp
		return [str(self.n_a), self.a, str(self.n_b), self.b,
			c.estimate_text() if c else "-", c.ci_text() if c else "-",
			c.p_text() if c else "-", self.verdict]


def compare_rows(items, alpha):
	"""[Cells] of [(dump A, Bench A, dump B, Bench B, metric)]."""
	rows = [Cells(*it) for it in items]
	todo = [r for r in rows if r.samples]
	for r, c in zip(todo, st.compare_all([r.samples for r in todo], alpha,
					     [r.exact for r in todo])):
		r.set(c)
	return rows


COMPARE_HEADER = ["n A", "A", "n B", "B", "B/A", "interval", "p", "verdict"]


def median(values):
	s = sorted(values)
	n = len(s)
	return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


# -- each layout against the reference ---------------------------------------

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
		if b.layout and b.layout not in skip and b.timed:
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
		if self.failed:
			return None
		va, vb = self.ref.sample("real_time")[0], self.bench.sample("real_time")[0]
		return (va, vb) if va and vb else None

	@property
	def value(self):
		return self.cmp.ratio if self.cmp else None

	def text(self):
		if self.failed:
			return "failed"
		c = self.cmp
		if not c or c.ratio is None:
			return "-"
		if c.ci:
			return f"{st.fmt3(c.ratio)} ({st.fmt3(c.ci[0])}..{st.fmt3(c.ci[1])})"
		return st.fmt3(c.ratio)


def ratios(pairs, alpha):
	"""[Ratio] of [(reference Bench, Bench)]."""
	out = [Ratio(r, b) for r, b in pairs]
	todo = [(x, x.samples()) for x in out]
	todo = [(x, s) for x, s in todo if s]
	for (x, _), c in zip(todo, st.compare_all([s for _, s in todo], alpha)):
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


def summary(dump, alpha):
	"""(rows, columns, {(row, column): Ratio}): rows are row_key()s, columns
	(layout, RAM) of every non-reference layout, in the dump's order."""
	cells, rows, cols = {}, {}, {}
	for x in ratios(reference_pairs(dump), alpha):
		b = x.bench
		r, c = row_key(b), (b.layout, b.ram or 0)
		rows.setdefault(r, None)
		cols.setdefault(c, None)
		cells[(r, c)] = x
	order = {n: i for i, n in enumerate(dump.layout_names)}
	cols = sorted(cols, key=lambda c: (order.get(c[0], 0), c[1]))
	return list(rows), cols, cells


HEADLINE_CLASSES = ("sequential", "dependent", "mutating")


def headline(dump, alpha):
	"""Lines of the terminal's headline table: per kernel of the classes
	sequential, dependent and mutating, at its largest RAM size and fewest
	threads, each layout's time against the reference layout's; then the
	footprint per mix (and variant)."""
	rows, cols, cells = summary(dump, alpha)
	kclass = {k["name"]: k["class"] for k in dump.kernels}
	fewest = {}
	for kernel, _, _, t in rows:
		fewest[kernel] = min(t, fewest.get(kernel, t))
	rows = [r for r in rows if kclass.get(r[0]) in HEADLINE_CLASSES and r[3] == fewest[r[0]]]
	layouts = md.first_seen(c[0] for c in cols)
	ref = dump.reference
	level = f"{100 * (1 - alpha):g}%"
	out = [f"{dump.label}: time per op against {ref} (ratio and its {level} interval)"]
	table = []
	labels = row_labels(rows)
	for r in rows:
		ram = max(c[1] for c in cols if (r, c) in cells)
		table.append([labels[r], md.format_size(ram) if ram else "-"] +
			     [cells[(r, (l, ram))].text() if (r, (l, ram)) in cells else "-"
			      for l in layouts])
	if table:
		out += md.text_table(["kernel", "RAM", *[f"{l}/{ref}" for l in layouts]], table)
	else:
		out.append(f"  no timed benchmark that {ref} and another layout both ran")
	fp = footprint_per_mix(dump)
	if fp:
		out += ["", f"{dump.label}: footprint in bytes per GiB of RAM (change against {ref})"]
		names = md.first_seen(l for _, l, _ in fp)
		table = []
		for m, v in md.first_seen((m, v) for m, _, v in fp):
			refv = fp.get((m, ref, v))
			row = [" ".join(x for x in (m, md.variant_label(v)) if x)]
			for l in names:
				x = fp.get((m, l, v))
				if x is None:
					row.append("-")
				elif refv and l != ref:
					row.append(f"{md.fmt(x)} ({x / refv - 1:+.1%})")
				else:
					row.append(md.fmt(x))
			table.append(row)
		out += md.text_table(["mix", *names], table)
	return out + cache_options(dump)


# The name parameter of a report group built with another --desc-cache option.
CACHE_PARAM = "cache"


def cache_options(dump):
	"""Lines of the table per --desc-cache option (issue 21), all from the
	dump: per mix, each layout's footprint against the reference's; the
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
				x = b and value(b, "total_bytes")
				r = refb and value(refb, "total_bytes")
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


def per_gib(b):
	"""(memmap, descriptor) bytes per GiB of RAM of a footprint benchmark."""
	mm, ds = value(b, "memmap_bytes") or 0, value(b, "desc_bytes") or 0
	if b.ram:
		return mm * GiB / b.ram, ds * GiB / b.ram
	return mm, ds


def footprint_per_mix(dump):
	"""{(mix, layout, variant): bytes per GiB} at each one's largest RAM,
	variants without the folio sweep's parameter kept apart."""
	best = {}
	for b in report_benches(dump):
		k = (b.mix or "", b.layout, b.variant)
		if k not in best or (b.ram or 0) > (best[k].ram or 0):
			best[k] = b
	out = {}
	for k, b in best.items():
		v = value(b, "bytes_per_GiB")
		if v is None:
			v = sum(per_gib(b))
		out[k] = v
	return out


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
			per = value(b, "bytes_per_GiB")
			if per is None:
				per = sum(per_gib(b))
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


# -- the figures ----------------------------------------------------------------

SIM_PLOTTED = ("sim_D1_misses", "sim_LL_misses")	# sim.json's fields, results/SCHEMA.md
# A heat map of more cells is drawn in colour only, and as PNG alone: its
# SVG would only wrap the same bitmap.
ANNOTATE_CELLS = 600


def _benches(dumps, pool):
	for d in dumps:
		yield from getattr(d, pool).values()


def zero_counters(dumps):
	"""Counters counted and 0 in every benchmark of every dump."""
	seen, nonzero = set(), set()
	for d in dumps:
		avail = d.counters_available()
		for b in d.native.values():
			if not b.timed:
				continue
			for c in avail:
				vals = b.values(c)
				if vals:
					seen.add(c)
					if any(vals):
						nonzero.add(c)
	return [c for c in md.first_seen(c for d in dumps for c in d.counters_available())
		if c in seen and c not in nonzero]


class Figure:
	"""One figure of the plan: basename, kind, args and the formats written."""

	__slots__ = ("name", "kind", "args", "exts")

	def __init__(self, name, kind, args, cells=0):
		self.name, self.kind, self.args = name, kind, args
		self.exts = ("png",) if cells > ANNOTATE_CELLS else ("png", "svg")


def plan(dumps):
	"""The figures scripts/plot draws, as [Figure], in order.

	summary: each layout's ratio to the reference per kernel and RAM (one
	panel per dump); time (kernel): ns/op per layout against RAM, a panel
	per mix; threads (kernel): ns/op against threads; counter (counter):
	a heat map of its per-op value, kernels by layouts and RAM; sim
	(metric, mix, kernels): one panel per kernel; footprint: bars per mix
	and layout; breakeven (mix): footprint against the small-folio
	descriptor size.  Each is written as .png and .svg, but heat maps of
	more than ANNOTATE_CELLS cells as .png alone."""
	out = []
	pairs = sum(len(reference_pairs(d)) for d in dumps)
	if pairs:
		out.append(Figure("summary", "summary", (), pairs))
	native = [b for b in _benches(dumps, "native") if b.layout and b.timed and b.ram]
	threads = {}
	for b in native:
		threads.setdefault(b.kernel, set()).add(b.threads)
	for k in threads:
		out.append(Figure(f"time-{md.slug(k)}", "time", (k,)))
		if len(threads[k]) > 1:
			out.append(Figure(f"threads-{md.slug(k)}", "threads", (k,)))
	zero = set(zero_counters(dumps))
	for c in md.first_seen(c for d in dumps for c in d.counters_available()):
		cells = sum(1 for b in native if b.has(c) or b.error)
		if c not in zero and any(b.has(c) for b in native):
			out.append(Figure(f"counter-{md.slug(c)}", "counter", (c,), cells))
	sim = [b for b in _benches(dumps, "sim") if b.layout and b.timed and b.ram]
	for metric in SIM_PLOTTED:
		for mix in md.first_seen(b.mix or "" for b in sim):
			kernels = md.first_seen(b.kernel for b in sim if (b.mix or "") == mix and
						b.has(metric))
			if kernels:
				out.append(Figure(f"{metric}-{md.slug(mix or 'nomix')}", "sim",
						  (metric, mix, kernels)))
	if any(report_benches(d) for d in dumps):
		out.append(Figure("footprint", "footprint", ()))
	for mix in md.first_seen(be.mix for d in dumps for be in breakeven(d)):
		out.append(Figure(f"breakeven-{md.slug(mix or 'nomix')}", "breakeven", (mix,)))
	return out


def expected_plots(dumps):
	"""[(basename, formats)] of every plot scripts/plot writes for these dumps."""
	return [(f.name, f.exts) for f in plan(dumps)]
