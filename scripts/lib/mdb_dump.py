"""Loading, validating and naming memdesc-bench dumps, written once for
scripts/plot, scripts/compare, scripts/collect and the tests.

A dump is a run directory DIR holding mdbench.json (Google Benchmark's JSON
with context.memdesc_bench) and, from --simulate, sim.json in the same shape.
Either may be named directly; naming DIR/mdbench.json also picks up its
sibling sim.json.  Every problem with the input is raised as DumpError with
one line saying what is wrong, for the commands to print as `<prog>: <line>`
and exit 2.
"""

import argparse
import copy
import json
import math
import os
import re
import statistics
import sys

SCHEMA_VERSION = 1

# Kernels whose op is one dependent load chain (random pfn, tail -> head,
# get/put on a random folio): the latency baseline bounds them.  Those that
# stream the memmap (MDB_K_SEQUENTIAL in bench/) are bounded by the bandwidth
# baseline; a kernel added later with "seq" or "scan" in its name counts too.
DEPENDENT_KERNELS = ("lookup/random", "folio/tail", "folio/getput")
SEQUENTIAL_KERNELS = ("lookup/seq", "scan/compaction", "init/memmap")
SEQUENTIAL_PART = re.compile(r"^(seq|sequential|scan)$")

# Hardware and software counters the harness may record per op.
COUNTERS = ("cycles", "instructions", "L1D_load_misses", "LLC_load_misses",
	    "dTLB_load_misses", "page_faults")
FOOTPRINT_FIELDS = ("memmap_bytes", "desc_bytes", "desc_count", "desc_reserved_bytes",
		    "total_bytes", "bytes_per_GiB", "overhead_pct")

# Parts Google Benchmark itself appends to a registered name.
_GB_FLAG_PARTS = {"real_time", "manual_time", "process_time"}
_GB_KEY_PARTS = {"threads", "iterations", "repeats", "min_time",
		 "min_warmup_time"}

_UNITS = (("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20),
	  ("KiB", 1 << 10), ("B", 1))
_TIME_TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


class DumpError(Exception):
	"""Bad input: str(e) is the one line to print."""


def parse_size(text):
	"""'4GiB' -> 4294967296; DumpError when it is not a size."""
	m = re.fullmatch(r"(\d+)\s*(PiB|TiB|GiB|MiB|KiB|B)?", text.strip())
	if not m:
		raise DumpError(f"not a size: {text!r} (want e.g. 256MiB, 4GiB)")
	mult = dict(_UNITS)[m.group(2)] if m.group(2) else 1
	return int(m.group(1)) * mult


def format_size(n):
	"""4294967296 -> '4GiB'; sizes that are no whole unit keep a fraction."""
	for unit, mult in _UNITS:
		if n >= mult and n % mult == 0:
			return f"{n // mult}{unit}"
	for unit, mult in _UNITS:
		if n >= mult:
			return f"{n / mult:.3g}{unit}"
	return f"{n}B"


def fmt(v):
	"""A number for a table: integers as such, else 4 significant digits."""
	if v is None:
		return "n/a"
	if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
		return str(v)
	if v == int(v) and abs(v) < 1e15:
		return str(int(v))
	a = abs(v)
	if a >= 1000:
		return f"{v:.0f}"
	if a >= 1:
		return f"{v:.4g}"
	return f"{v:.3g}"


def slug(text):
	"""A file-name part: lookup/random -> lookup-random."""
	return re.sub(r"[^A-Za-z0-9._-]+", "_", text.replace("/", "-"))


def parse_name(name, layouts):
	"""Splits a benchmark name into (kernel, layout, params).

	<kernel>/<layout>/mix:<mix>/ram:<size>, where the kernel may itself
	hold '/' and layout is one of the dump's layouts (None for baselines:
	baseline/latency/bytes:64MiB).  Parts Google Benchmark appends
	(/real_time, /threads:2, ...) are dropped."""
	parts = name.split("/")
	while parts and (parts[-1] in _GB_FLAG_PARTS or
			 parts[-1].split(":", 1)[0] in _GB_KEY_PARTS and ":" in parts[-1]):
		parts.pop()
	params = {}
	while parts and ":" in parts[-1]:
		key, value = parts.pop().split(":", 1)
		params[key] = value
	layout = None
	if len(parts) > 1 and parts[-1] in layouts:
		layout = parts.pop()
	return "/".join(parts), layout, dict(reversed(list(params.items())))


def kernel_kind(kernel):
	"""'dependent', 'sequential', 'footprint', 'baseline' or 'other'."""
	if kernel.startswith("baseline/"):
		return "baseline"
	if kernel == "footprint" or kernel.startswith("footprint/"):
		return "footprint"
	if kernel in DEPENDENT_KERNELS:
		return "dependent"
	if kernel in SEQUENTIAL_KERNELS or any(SEQUENTIAL_PART.match(p) for p in kernel.split("/")):
		return "sequential"
	return "other"


class Stat:
	"""A metric over the repetitions of one benchmark.

	median, lo and hi: lo..hi is min..max over repetitions, or median +-
	stddev where only aggregates were written (spread == 'stddev'); with one
	repetition lo == hi == median and n == 1."""

	def __init__(self, median, lo, hi, n, spread):
		self.median, self.lo, self.hi, self.n, self.spread = median, lo, hi, n, spread

	def range_text(self):
		if self.n <= 1:
			return "1 rep"
		if self.spread == "stddev":
			return f"+-{fmt(self.hi - self.median)} sd"
		return f"{fmt(self.lo)}..{fmt(self.hi)}"

	def cell(self):
		"""'12.5', or '12.5 (12.1..12.9)' with repetitions that differ."""
		if self.n <= 1 or self.lo == self.hi:
			return fmt(self.median)
		return f"{fmt(self.median)} ({self.range_text()})"


def _entry_value(entry, metric):
	if metric in ("real_time", "cpu_time"):
		v = entry.get(metric)
		if not isinstance(v, (int, float)):
			return None
		return v * _TIME_TO_NS.get(entry.get("time_unit", "ns"), 1.0)
	v = entry.get(metric)
	return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


class Bench:
	"""One benchmark (one run_name): its repetitions and aggregates."""

	def __init__(self, name, kernel, layout, params):
		self.name, self.kernel, self.layout, self.params = name, kernel, layout, params
		self.mix = params.get("mix")
		self.ram = _size_or_none(params.get("ram"))
		self.bytes = _size_or_none(params.get("bytes"))
		self.reps = []		# run_type iteration or simulation
		self.aggs = {}		# aggregate_name -> entry
		self.error = None

	@property
	def kind(self):
		return kernel_kind(self.kernel)

	def has(self, metric):
		return any(_entry_value(e, metric) is not None
			   for e in self.reps + list(self.aggs.values()))

	def stat(self, metric):
		"""Stat of metric, or None where no entry has it."""
		vals = [v for v in (_entry_value(e, metric) for e in self.reps) if v is not None]
		if len(vals) > 1:
			return Stat(statistics.median(vals), min(vals), max(vals), len(vals), "minmax")
		med = self.aggs.get("median") or self.aggs.get("mean")
		mv = _entry_value(med, metric) if med else None
		if mv is not None and not vals:
			sd = self.aggs.get("stddev")
			sv = _entry_value(sd, metric) if sd else None
			n = med.get("repetitions", 1)
			if sv is None or n <= 1:
				return Stat(mv, mv, mv, 1, "single")
			return Stat(mv, mv - sv, mv + sv, n, "stddev")
		if vals:
			return Stat(vals[0], vals[0], vals[0], 1, "single")
		return None

	def key_without_layout(self):
		"""The name with the layout taken out: matches one benchmark across layouts."""
		return "/".join([self.kernel] + [f"{k}:{v}" for k, v in self.params.items()])


def _size_or_none(text):
	if text is None:
		return None
	try:
		return parse_size(text)
	except DumpError:
		return None


def _read_json(path):
	try:
		with open(path, "rb") as f:
			raw = f.read()
	except FileNotFoundError:
		raise DumpError(f"{path}: no such file")
	except IsADirectoryError:
		raise DumpError(f"{path}: is a directory")
	except OSError as e:
		raise DumpError(f"{path}: {e.strerror}")
	if not raw.strip():
		raise DumpError(f"{path}: empty file")
	try:
		return json.loads(raw.decode("utf-8"))
	except UnicodeDecodeError:
		raise DumpError(f"{path}: not UTF-8 text")
	except json.JSONDecodeError as e:
		ends = e.pos >= len(raw.rstrip()) or e.msg.startswith("Unterminated string")
		what = "truncated JSON" if ends else "malformed JSON"
		raise DumpError(f"{path}: {what} at line {e.lineno} column {e.colno}: {e.msg}")


def _check_gb(doc, path):
	"""The Google Benchmark shape plus our context; returns memdesc_bench."""
	if not isinstance(doc, dict):
		raise DumpError(f"{path}: not a Google Benchmark JSON object")
	ctx, benches = doc.get("context"), doc.get("benchmarks")
	if not isinstance(ctx, dict) or not isinstance(benches, list):
		raise DumpError(f"{path}: not Google Benchmark JSON (no context or benchmarks list)")
	mb = ctx.get("memdesc_bench")
	if not isinstance(mb, dict):
		raise DumpError(f"{path}: not a memdesc-bench dump (no context.memdesc_bench)")
	ver = mb.get("schema_version")
	if ver != SCHEMA_VERSION:
		raise DumpError(f"{path}: schema_version {ver!r}, this script reads {SCHEMA_VERSION}")
	if not benches:
		raise DumpError(f"{path}: empty benchmark list")
	for i, b in enumerate(benches):
		if not isinstance(b, dict) or not isinstance(b.get("name"), str):
			raise DumpError(f"{path}: benchmarks[{i}] has no name")
	layouts = mb.get("layouts", [])
	if not isinstance(layouts, list) or not all(
			isinstance(l, dict) and isinstance(l.get("name"), str) for l in layouts):
		raise DumpError(f"{path}: context.memdesc_bench.layouts is not a list of {{name, ...}}")
	return mb


def _group(benchmarks, layouts):
	"""Entries -> {run_name: Bench}, in first-seen order."""
	out = {}
	for e in benchmarks:
		run_name = e.get("run_name")
		if not isinstance(run_name, str):
			run_name = e["name"]
			agg = e.get("aggregate_name")
			if e.get("run_type") == "aggregate" and agg and run_name.endswith("_" + agg):
				run_name = run_name[:-len(agg) - 1]
		b = out.get(run_name)
		if b is None:
			b = out[run_name] = Bench(run_name, *parse_name(run_name, layouts))
		if e.get("error_occurred"):
			b.error = str(e.get("error_message") or "error")
		elif e.get("run_type") == "aggregate":
			b.aggs[str(e.get("aggregate_name"))] = e
		else:
			b.reps.append(e)
	return out


class Dump:
	"""One run: mdbench.json and sim.json, either optional but not both.

	path is the run directory or one of its JSON files; naming mdbench.json
	also loads the sim.json beside it."""

	def __init__(self, path):
		self.path = path
		self.context, self.mb = {}, {}
		self.native, self.sim = {}, {}
		self.sim_mb = None
		if os.path.isdir(path):
			self.dir = path
			main = os.path.join(path, "mdbench.json")
			sim = os.path.join(path, "sim.json")
			if not os.path.exists(main) and not os.path.exists(sim):
				raise DumpError(f"{path}: no mdbench.json or sim.json in this directory")
		else:
			self.dir = os.path.dirname(path) or "."
			main, sim = path, None
			if os.path.basename(path) == "mdbench.json":
				sim = os.path.join(self.dir, "sim.json")
			if not os.path.exists(path):
				raise DumpError(f"{path}: no such file or directory")
		if os.path.exists(main):
			self._load_main(main)
		if sim and os.path.exists(sim):
			self._load_sim(sim)

	def _load_main(self, path):
		doc = _read_json(path)
		mb = _check_gb(doc, path)
		if "simulation" in mb:		# sim.json named directly
			return self._load_sim(path, doc, mb)
		self.mb, self.context = mb, doc["context"]
		self.native = _group(doc["benchmarks"], self.layout_names)

	def _load_sim(self, path, doc=None, mb=None):
		if doc is None:
			doc = _read_json(path)
			mb = _check_gb(doc, path)
		if not self.mb:
			self.mb, self.context = mb, doc["context"]
		self.sim_mb = mb
		layouts = mb.get("layouts") or self.mb.get("layouts", [])
		self.sim = _group(doc["benchmarks"], [l["name"] for l in layouts])

	@property
	def layouts(self):
		return self.mb.get("layouts", [])

	@property
	def layout_names(self):
		return [l["name"] for l in self.layouts]

	def sizeof_page(self, layout):
		for l in self.layouts:
			if l["name"] == layout:
				return l.get("sizeof_page")
		return None

	@property
	def complete(self):
		return bool(self.mb.get("complete", False))

	@property
	def host(self):
		return str(self.context.get("host_name") or "unknown host")

	@property
	def cpu_model(self):
		return str(self.mb.get("cpu_model") or "unknown CPU")

	@property
	def label(self):
		return f"{self.host} ({self.cpu_model})"

	def counters_available(self):
		"""{name: perf event}"""
		c = self.mb.get("counters") or {}
		return {str(x.get("name")): x.get("event")
			for x in c.get("available", []) if isinstance(x, dict)}

	def counters_unavailable(self):
		"""{name: reason}"""
		c = self.mb.get("counters") or {}
		return {str(x.get("name")): str(x.get("reason") or "no reason given")
			for x in c.get("unavailable", []) if isinstance(x, dict)}

	def why_missing(self, counter):
		"""'n/a (reason)' for a counter this dump has no value of."""
		reason = self.counters_unavailable().get(counter)
		if reason:
			return f"n/a ({reason})"
		if counter in self.counters_available():
			return "n/a (not recorded for this benchmark)"
		return "n/a (not requested)"

	def missing_cell(self, bench, metric):
		"""A table cell for a metric bench has no value of: its error, or why."""
		return f"error: {bench.error}" if bench.error else self.why_missing(metric)

	def pool(self, metric):
		"""The benchmarks a metric lives in: sim.json for sim_* / model_*."""
		return self.sim if metric.startswith(("sim_", "model_")) else self.native


def load_dumps(paths):
	"""Loads every path, disambiguating labels that two dumps share."""
	dumps = [Dump(p) for p in paths]
	seen = {}
	for d in dumps:
		seen.setdefault(d.label, []).append(d)
	for same in seen.values():
		if len(same) > 1:
			for d in same:
				d.label_override = f"{d.label} [{os.path.basename(os.path.abspath(d.dir))}]"
	return dumps


def label_of(dump):
	return getattr(dump, "label_override", None) or dump.label


MEASURED_KINDS = ("dependent", "sequential", "other")
SIM_PLOTTED = ("sim_D1_misses", "sim_LL_misses")


def _benches(dumps, pool):
	for d in dumps:
		yield from getattr(d, pool).values()


def _first_seen(items):
	return list(dict.fromkeys(items))


def plan(dumps):
	"""The figures scripts/plot draws, as (basename, kind, args), in order.

	kind 'time' (kernel, mix): ns/op per layout against RAM, one subplot
	per dump; 'counter' (counter, mix, kernels) and 'sim' (metric, mix,
	kernels): one subplot per kernel, one line per layout and dump;
	'footprint' (): bars per mix and layout, one subplot per dump.  Each
	basename is written as .png and .svg."""
	out = []
	timed = _first_seen((b.kernel, b.mix or "") for b in _benches(dumps, "native")
			    if b.layout and b.kind in MEASURED_KINDS and b.ram)
	for kernel, mix in timed:
		out.append((f"time-{slug(kernel)}-{slug(mix or 'nomix')}", "time", (kernel, mix)))

	def kernels_with(pool, mix, metric):
		return _first_seen(b.kernel for b in _benches(dumps, pool)
				   if (b.mix or "") == mix and b.layout and b.ram and
				   b.kind in MEASURED_KINDS and b.has(metric))

	mixes = _first_seen(m for _, m in timed)
	sim_mixes = _first_seen(b.mix or "" for b in _benches(dumps, "sim")
				if b.layout and b.kind in MEASURED_KINDS)
	for pool, kind, metrics, pool_mixes, prefix in (
			("native", "counter", COUNTERS, mixes, "counter-"),
			("sim", "sim", SIM_PLOTTED, sim_mixes, "")):
		for c in metrics:
			for m in pool_mixes:
				kernels = kernels_with(pool, m, c)
				if kernels:
					out.append((f"{prefix}{slug(c)}-{slug(m or 'nomix')}", kind,
						    (c, m, kernels)))
	if any(b.kind == "footprint" and b.layout and b.has("memmap_bytes")
	       for b in _benches(dumps, "native")):
		out.append(("footprint", "footprint", ()))
	return out


def expected_plots(dumps):
	"""Every plot basename scripts/plot writes for these dumps (each as .png and .svg)."""
	return [name for name, _, _ in plan(dumps)]


def read_doc(path):
	"""A validated Google Benchmark JSON document (dict)."""
	doc = _read_json(path)
	_check_gb(doc, path)
	return doc


def _union(lists, key):
	"""The items of lists, the first of each key, in first-seen order."""
	out, seen = [], set()
	for lst in lists:
		for x in lst or []:
			k = key(x)
			if k not in seen:
				seen.add(k)
				out.append(x)
	return out


def _sorted_union(lists):
	return sorted({x for lst in lists for x in lst or []})


def merge_docs(docs):
	"""One dump out of parts of one machine's run (collect's groups, run's
	footprint pass): the first part's context, every benchmark once (a
	run_name already present is not added again), complete only if every
	part is, and context.memdesc_bench.parts saying what each part was."""
	out = copy.deepcopy(docs[0])
	mb = out["context"]["memdesc_bench"]
	mbs = [d["context"]["memdesc_bench"] for d in docs]
	names, benches, parts = set(), [], []
	for d, m in zip(docs, mbs):
		mine = set()
		for e in d["benchmarks"]:
			rn = e.get("run_name", e["name"])
			if rn in names:
				continue
			mine.add(rn)
			benches.append(e)
		names |= mine
		parts.append({"argv": m.get("argv"), "complete": bool(m.get("complete")),
			      "nr_selected": m.get("nr_selected"), "nr_benchmarks": len(mine)})
	out["benchmarks"] = benches
	mb["complete"] = all(p["complete"] for p in parts)
	mb["layouts"] = _union([m.get("layouts") for m in mbs], key=lambda l: l.get("name"))
	mb["mixes"] = _union([m.get("mixes") for m in mbs], key=lambda x: x.get("name"))
	sizes = _sorted_union([m.get("ram_sizes") for m in mbs])
	mb["ram_sizes"] = sizes
	if "ram_names" in mb:
		mb["ram_names"] = [format_size(r) for r in sizes]
	if "baseline_sizes" in mb:
		mb["baseline_sizes"] = _sorted_union([m.get("baseline_sizes") for m in mbs])
	if "nr_selected" in mb:
		mb["nr_selected"] = len(names) if mb["complete"] else sum(
			p["nr_selected"] or 0 for p in parts)
	mb["parts"] = parts
	return out


def write_doc(doc, path):
	"""Written to a temporary name, then renamed, as mdbench does."""
	tmp = path + ".tmp"
	with open(tmp, "w") as f:
		json.dump(doc, f, indent=2)
		f.write("\n")
	os.replace(tmp, path)


def die(prog, msg):
	print(f"{prog}: {msg}", file=sys.stderr)
	sys.exit(2)


class ArgumentParser(argparse.ArgumentParser):
	"""argparse whose usage errors are one '<prog>: <message>' line, exit 2."""

	def error(self, message):
		die(self.prog, message)


def error_line(e):
	"""The one line a command prints for an exception it has no handler of
	its own for: bad input, an OS error with its file, or an internal error."""
	if isinstance(e, DumpError):
		return str(e)
	if isinstance(e, OSError):
		return f"{e.filename or ''}: {e.strerror or e}"
	return f"internal error: {type(e).__name__}: {e}"


def _main(argv):
	"""python3 mdb_dump.py merge OUT.json IN.json...: for scripts/run."""
	if len(argv) < 3 or argv[0] != "merge":
		die("mdb_dump", "usage: mdb_dump.py merge OUT.json IN.json...")
	try:
		write_doc(merge_docs([read_doc(p) for p in argv[2:]]), argv[1])
	except (DumpError, OSError) as e:
		die("merge", error_line(e))


if __name__ == "__main__":
	_main(sys.argv[1:])
