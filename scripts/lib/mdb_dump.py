"""Loading, checking and naming memdesc-bench dumps, written once for
scripts/plot, scripts/compare, scripts/run, scripts/collect and the tests.

A dump is a run directory DIR holding mdbench.json (Google Benchmark's JSON
with context.memdesc_bench, schema_version 2: results/SCHEMA.md) and, from
--simulate, sim.json in the same shape.  Either may be named directly;
naming DIR/mdbench.json also picks up its sibling sim.json.  A file that
Google Benchmark wrote itself (--benchmark_out=F) is read too: its context
carries the memdesc_bench.* strings that mdbench adds with AddCustomContext.

Every field a script reads is checked here, once, for its type, unit and
range; every problem with the input is raised as DumpError with one line
naming the file and the field, for the commands to print as `<prog>: <line>`
and exit 2 (mdb_cli.cli()).  Nothing in this module names a layout, a kernel
or a counter: they all come from the dump's context.
"""

import copy
import json
import math
import os
import re
import stat
import tempfile

SCHEMA_VERSION = 2
KERNEL_CLASSES = ("sequential", "dependent", "mutating", "baseline", "report")
TIMED_CLASSES = ("sequential", "dependent", "mutating", "other")
TIME_TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
RUN_TYPES = ("iteration", "aggregate", "simulation")
# Fields of a benchmark entry that are Google Benchmark's (or mdbench's
# description of the instance), not measurements.
ENTRY_FIELDS = {"name", "run_name", "run_type", "family_index", "per_family_instance_index",
		"repetitions", "repetition_index", "threads", "iterations", "real_time",
		"cpu_time", "time_unit", "aggregate_name", "aggregate_unit", "error_occurred",
		"error_message", "label", "skipped", "kernel", "layout", "mix", "ram_bytes",
		"buf_bytes", "sim_ops", "sim_totals", "items_per_second", "bytes_per_second"}
TIME_METRICS = ("real_time", "cpu_time")
# The footprint report's counters in the order a reader wants them (the dump's
# own order is alphabetical: Google Benchmark keeps counters in a std::map).
FOOTPRINT_ORDER = ("memmap_bytes", "desc_bytes", "total_bytes", "bytes_per_GiB", "held_bytes",
		   "held_bytes_per_GiB", "overhead_pct", "desc_count", "desc_reserved_bytes",
		   "desc_held_bytes", "slab_cpus", "folio_desc_bytes")
# The footprint per GiB of RAM two ways: in the slab pages the descriptor
# caches hold (what the kernel would hold: partial slabs, sheaves), the
# figure reports show; and the live objects alone, beside it.  Dumps before
# held_bytes_per_GiB have only the live one.
FOOTPRINT_HELD, FOOTPRINT_LIVE = "held_bytes_per_GiB", "bytes_per_GiB"
# The footprint report's small-folio descriptor size and the name parameter
# of a sweep over it (--folio-desc-bytes: .../folio:96B).
FOLIO_FIELD, FOLIO_PARAM = "folio_desc_bytes", "folio"
# Parts Google Benchmark itself appends to a registered name; threads is a
# dimension of its own (the entry's "threads" field).
_GB_FLAG_PARTS = {"real_time", "manual_time", "process_time"}
_GB_KEY_PARTS = {"threads", "iterations", "repeats", "min_time", "min_warmup_time"}
_INT_MAX = 1 << 63
# A time in its unit is 0 (a failed run) or within this range: beyond it a
# ratio of two times overflows or underflows a double (1e308 / 5e-324).
TIME_RANGE = (1e-9, 1e15)
# A size in a benchmark name (ram:, bytes:) is at most this (1 EiB): one
# larger is no machine's, and its arithmetic leaves a double's exact range.
SIZE_MAX = 1 << 60
# The largest file read as a dump; a FIFO or a device is never read.
DUMP_MAX_BYTES = 1 << 30
_UNITS = (("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20),
	  ("KiB", 1 << 10), ("B", 1))


class DumpError(Exception):
	"""Bad input: str(e) is the one line to print."""


# -- text ------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text):
	"""text with control characters written as escapes (\\n, \\x1b): safe on a
	terminal and on one line."""
	text = str(text)
	if not _CONTROL.search(text):
		return text
	return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def md_cell(text):
	"""text for a markdown table cell: one line, '|' and '<' escaped."""
	return printable(text).replace("|", "\\|").replace("<", "&lt;")


def md_table(header, rows):
	"""Lines of a markdown table; every cell escaped."""
	out = ["| " + " | ".join(md_cell(h) for h in header) + " |",
	       "|" + "---|" * len(header)]
	out += ["| " + " | ".join(md_cell(c) for c in r) + " |" for r in rows]
	return out + [""]


def text_table(header, rows):
	"""Lines of a plain table with aligned columns, for the terminal."""
	rows = [[printable(c) for c in r] for r in [header] + rows]
	w = [max(len(r[i]) for r in rows) for i in range(len(header))]
	out = ["  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip() for r in rows]
	out.insert(1, "  ".join("-" * x for x in w))
	return out


def parse_size(text):
	"""'4GiB' -> 4294967296; DumpError when it is not a size."""
	m = re.fullmatch(r"(\d{1,20})(PiB|TiB|GiB|MiB|KiB|B)?", text)
	if not m:
		raise DumpError(f"not a size: {printable(text)!r} (want e.g. 256MiB, 4GiB)")
	return int(m.group(1)) * (dict(_UNITS)[m.group(2)] if m.group(2) else 1)


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
	if isinstance(v, float) and not math.isfinite(v):
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
	"""A file-name part: lookup/random -> lookup-random.  Names with other
	characters (non-Latin, spaces) keep what is safe plus a short hash, so
	two names never share a file."""
	s = re.sub(r"[^A-Za-z0-9._-]+", "_", text.replace("/", "-")).strip("._") or "_"
	if s != text.replace("/", "-") or len(s) > 80:
		import hashlib
		s = s[:60] + "-" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
	return s


# -- checking -------------------------------------------------------------

def _is_num(v):
	return isinstance(v, (int, float)) and not isinstance(v, bool)


def _what(v, width=40):
	"""A value as an error line shows it: short, one line."""
	try:
		text = json.dumps(v, ensure_ascii=False, allow_nan=True)
	except (TypeError, ValueError, RecursionError):
		text = type(v).__name__
	return printable(text if len(text) <= width else text[:width - 3] + "...")


class Checker:
	"""Checks values of one file; each failure is a DumpError whose line
	names the file and the field."""

	def __init__(self, path):
		self.path = printable(path)

	def fail(self, where, problem):
		"""problem follows the field's name: '"x" is not a number', 'is NaN'."""
		raise DumpError(f"{self.path}: {where} {problem}")

	def present(self, v, where):
		if v is None:
			self.fail(where, "is missing (or null)")

	def obj(self, v, where):
		self.present(v, where)
		if not isinstance(v, dict):
			self.fail(where, f"{_what(v)} is not an object")
		return v

	def list(self, v, where):
		self.present(v, where)
		if not isinstance(v, list):
			self.fail(where, f"{_what(v)} is not a list")
		return v

	def str(self, v, where, empty=False):
		self.present(v, where)
		if not isinstance(v, str):
			self.fail(where, f"{_what(v)} is not a string")
		if not empty and not v:
			self.fail(where, "is empty")
		return v

	def bool(self, v, where):
		self.present(v, where)
		if not isinstance(v, bool):
			self.fail(where, f"{_what(v)} is not true or false")
		return v

	def int(self, v, where, lo=0, hi=_INT_MAX):
		self.present(v, where)
		if not isinstance(v, int) or isinstance(v, bool):
			self.fail(where, f"{_what(v)} is not an integer")
		if not lo <= v <= hi:
			self.fail(where, f"{_what(v)} is out of range [{lo}, {hi}]")
		return v

	def num(self, v, where, lo=None):
		"""A finite number (not a bool), at least lo."""
		self.present(v, where)
		if not _is_num(v):
			self.fail(where, f"{_what(v)} is not a number")
		if isinstance(v, int) and abs(v) >= _INT_MAX:
			self.fail(where, f"{_what(v)} is out of range")
		if isinstance(v, float) and math.isnan(v):
			self.fail(where, "is NaN")
		if not math.isfinite(v):
			self.fail(where, f"{_what(v)} is not finite")
		if lo is not None and v < lo:
			self.fail(where, f"{_what(v)} is negative" if lo == 0 else f"{_what(v)} < {lo}")
		return v

	def opt(self, d, key, check, *args, where, **kw):
		"""d[key] checked by check, or None when absent or null."""
		v = d.get(key)
		return None if v is None else check(v, field(where, key), *args, **kw)

	def one_of(self, v, where, allowed):
		self.present(v, where)
		if v not in allowed:
			self.fail(where, f"{_what(v)} (want {', '.join(allowed)})")
		return v


def field(where, key):
	"""A field's name in an error line: 'context.memdesc_bench.run_id', or
	'benchmarks[3] "name": time_unit' in an entry."""
	return f"{where} {printable(key)}" if where.endswith(":") else f"{where}.{printable(key)}"


def read_regular(path, limit=DUMP_MAX_BYTES):
	"""The bytes of the regular file at path, at most limit of them: a
	FIFO (which would wait for a writer), a device (/dev/zero never ends)
	or a larger file is a DumpError, found before reading."""
	fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
	try:
		st = os.fstat(fd)
		if stat.S_ISDIR(st.st_mode):
			raise IsADirectoryError
		if not stat.S_ISREG(st.st_mode):
			raise DumpError(f"{printable(path)}: not a regular file (a FIFO, a device or a "
					"socket)")
		if st.st_size > limit:
			raise DumpError(f"{printable(path)}: larger than {limit} bytes")
		os.set_blocking(fd, True)
		with os.fdopen(fd, "rb", closefd=False) as f:
			raw = f.read(limit + 1)
		if len(raw) > limit:		# grew while read
			raise DumpError(f"{printable(path)}: larger than {limit} bytes")
		return raw
	finally:
		os.close(fd)


def read_input(path, limit=DUMP_MAX_BYTES):
	"""read_regular(path, limit), every OS error a DumpError in one line."""
	try:
		return read_regular(path, limit)
	except FileNotFoundError:
		raise DumpError(f"{printable(path)}: no such file")
	except IsADirectoryError:
		raise DumpError(f"{printable(path)}: is a directory")
	except OSError as e:
		raise DumpError(f"{printable(path)}: {e.strerror}")


def read_text(path, limit):
	"""The UTF-8 text of the regular file at path, of at most limit bytes;
	DumpError for anything else (a binary file, a FIFO, a device)."""
	try:
		return read_input(path, limit).decode("utf-8")
	except UnicodeDecodeError:
		raise DumpError(f"{printable(path)}: not UTF-8 text")


def _read_json(path):
	raw = read_input(path)
	if not raw.strip():
		raise DumpError(f"{printable(path)}: empty file")
	try:
		return json.loads(raw.decode("utf-8"), parse_constant=_constant)
	except UnicodeDecodeError:
		raise DumpError(f"{printable(path)}: not UTF-8 text")
	except RecursionError:
		raise DumpError(f"{printable(path)}: JSON nested too deeply")
	except json.JSONDecodeError as e:
		ends = e.pos >= len(raw.rstrip()) or e.msg.startswith("Unterminated string")
		what = "truncated JSON" if ends else "malformed JSON"
		raise DumpError(f"{printable(path)}: {what} at line {e.lineno} column {e.colno}: {e.msg}")
	except ValueError as e:		# an integer of more than 4300 digits
		raise DumpError(f"{printable(path)}: unreadable JSON: {e}")


def _constant(name):
	"""NaN, Infinity, -Infinity: Google Benchmark writes NaN for an aggregate
	it cannot compute; they are read as floats and refused where a value
	is used (Checker.num)."""
	return float(name.lower().replace("infinity", "inf"))


def _gb_custom_context(ctx, c):
	"""context.memdesc_bench rebuilt from the memdesc_bench.* strings that
	mdbench adds to Google Benchmark's own JSON (AddCustomContext), or None."""
	keys = {k[len("memdesc_bench."):]: v for k, v in ctx.items()
		if isinstance(k, str) and k.startswith("memdesc_bench.")}
	if not keys:
		return None
	for k, v in keys.items():
		c.str(v, f"context.\"memdesc_bench.{k}\"", empty=True)

	def parsed(key, default):
		if key not in keys:
			return default
		try:
			return json.loads(keys[key], parse_constant=_constant)
		except (ValueError, RecursionError):
			c.fail(f"context.\"memdesc_bench.{key}\"", "is not JSON text")

	ver = keys.get("schema_version", "")
	mb = {"schema_version": int(ver) if re.fullmatch(r"\d{1,9}", ver) else ver,
	      "complete": True, "source": "Google Benchmark's own output"}
	for k in ("run_id", "git_commit", "reference_layout"):
		if k in keys:
			mb[k] = keys[k]
	if "git_dirty" in keys:
		mb["git_dirty"] = {"true": True, "false": False}.get(keys["git_dirty"])
	mb["layouts"] = parsed("layouts", None)
	mb["kernels"] = parsed("kernels", None)
	mixes = parsed("mixes", [])
	mb["mixes"] = [{"name": m} for m in c.list(mixes, "context.\"memdesc_bench.mixes\"")]
	unavail = c.obj(parsed("counters_unavailable", {}),
			"context.\"memdesc_bench.counters_unavailable\"")
	mb["counters"] = {"available": None,
			  "unavailable": [{"name": k, "reason": v} for k, v in unavail.items()]}
	return mb


def _check_mb(mb, c, sim):
	"""context.memdesc_bench: every field the scripts read."""
	w = "context.memdesc_bench"
	c.obj(mb, w)
	ver = mb.get("schema_version")
	if ver != SCHEMA_VERSION or isinstance(ver, bool):
		raise DumpError(f"{c.path}: schema_version {_what(ver)}, this script reads {SCHEMA_VERSION}")
	c.str(mb.get("run_id"), f"{w}.run_id")
	c.bool(mb.get("complete"), f"{w}.complete")
	layouts = c.list(mb.get("layouts"), f"{w}.layouts")
	if not layouts:
		c.fail(f"{w}.layouts", "is an empty list")
	names = set()
	for i, l in enumerate(layouts):
		lw = f"{w}.layouts[{i}]"
		c.obj(l, lw)
		n = c.str(l.get("name"), f"{lw}.name")
		if "/" in n or ":" in n:
			c.fail(f"{lw}.name", f"{_what(n)} holds '/' or ':' (the name separators)")
		if n in names:
			c.fail(f"{lw}.name", f"{_what(n)} is listed twice")
		names.add(n)
		c.int(l.get("sizeof_page"), f"{lw}.sizeof_page", 1, 1 << 20)
		c.opt(l, "sizeof_folio", c.int, 0, 1 << 20, where=lw)
		c.opt(l, "descriptors", c.bool, where=lw)
		c.opt(l, "real", c.bool, where=lw)
		ds = c.opt(l, "desc_sizes", c.obj, where=lw) or {}
		for k, v in ds.items():
			c.int(v, f"{lw}.desc_sizes.{k}", 0, 1 << 20)
	ref = mb.get("reference_layout")
	if ref is not None and c.str(ref, f"{w}.reference_layout") not in names:
		c.fail(f"{w}.reference_layout", f"{_what(ref)} is not one of the layouts")
	kernels = c.list(mb.get("kernels"), f"{w}.kernels")
	seen = set()
	for i, k in enumerate(kernels):
		kw = f"{w}.kernels[{i}]"
		c.obj(k, kw)
		n = c.str(k.get("name"), f"{kw}.name")
		if n in seen:
			c.fail(f"{kw}.name", f"{_what(n)} is listed twice")
		seen.add(n)
		c.one_of(k.get("class"), f"{kw}.class", KERNEL_CLASSES)
		c.opt(k, "unit", c.str, where=kw)
		c.opt(k, "mutates", c.bool, where=kw)
		c.opt(k, "model", c.bool, where=kw)
		c.opt(k, "sim_ops", c.int, where=kw)
	counters = c.obj(mb.get("counters", {}), f"{w}.counters")
	avail = counters.get("available")
	if avail is not None or not mb.get("source"):
		for i, x in enumerate(c.list(avail, f"{w}.counters.available")):
			xw = f"{w}.counters.available[{i}]"
			c.str(c.obj(x, xw).get("name"), f"{xw}.name")
			c.opt(x, "event", c.str, where=xw)
			c.opt(x, "unscheduled_runs", c.int, where=xw)
			c.opt(x, "pfm", c.str, where=xw)
	for i, x in enumerate(c.list(counters.get("unavailable", []), f"{w}.counters.unavailable")):
		xw = f"{w}.counters.unavailable[{i}]"
		c.str(c.obj(x, xw).get("name"), f"{xw}.name")
		c.opt(x, "reason", c.str, where=xw, empty=True)
		c.opt(x, "event", c.str, where=xw, empty=True)
	c.opt(mb, "conditions", c.obj, where=w)
	mach = c.opt(mb, "machine", c.obj, where=w) or {}
	for k in ("llc_bytes", "headline_ram_bytes"):	# the report's headline and RAM/LLC
		c.opt(mach, k, c.int, 1, where=f"{w}.machine")
	for i, row in enumerate(c.opt(mb, "false_sharing", c.list, where=w) or []):
		c.obj(row, f"{w}.false_sharing[{i}]")
	for i, m in enumerate(c.opt(mb, "mixes", c.list, where=w) or []):
		c.str(c.obj(m, f"{w}.mixes[{i}]").get("name"), f"{w}.mixes[{i}].name")
	for i, r in enumerate(c.opt(mb, "ram_sizes", c.list, where=w) or []):
		c.int(r, f"{w}.ram_sizes[{i}]")
	for i, a in enumerate(c.opt(mb, "argv", c.list, where=w) or []):
		c.str(a, f"{w}.argv[{i}]", empty=True)
	for i, p in enumerate(c.opt(mb, "parts", c.list, where=w) or []):
		pw = f"{w}.parts[{i}]"
		for j, a in enumerate(c.opt(c.obj(p, pw), "argv", c.list, where=pw) or []):
			c.str(a, f"{pw}.argv[{j}]", empty=True)
		c.opt(p, "complete", c.bool, where=pw)
		c.opt(p, "rounds", c.bool, where=pw)
		c.opt(p, "why", c.str, where=pw, empty=True)
	for k in ("git_commit", "profile", "cpu_model", "thp"):
		if not isinstance(mb.get(k), (dict, type(None))):
			c.str(mb[k], f"{w}.{k}", empty=True)
	for k in ("cpu", "node", "seed", "perf_event_paranoid"):
		c.opt(mb, k, c.int, -1 if k != "seed" else 0, where=w)
	for k in ("kernel", "hwloc"):
		c.opt(mb, k, c.obj, where=w)
	for i, x in enumerate(c.opt(mb.get("hwloc") or {}, "caches", c.list, where=f"{w}.hwloc") or []):
		xw = f"{w}.hwloc.caches[{i}]"
		c.obj(x, xw)
		c.opt(x, "size", c.int, where=xw)
		c.opt(x, "level", c.int, where=xw)
		c.opt(x, "type", c.str, where=xw)
	if sim:
		s = c.obj(mb.get("simulation"), f"{w}.simulation")
		for k, v in (c.opt(s, "ops", c.obj, where=f"{w}.simulation") or {}).items():
			c.int(v, f"{w}.simulation.ops.{printable(k)}")


def _check_entry(e, i, c, counters):
	"""One benchmarks[] entry: the fields the scripts read."""
	w = f"benchmarks[{i}]"
	c.obj(e, w)
	name = c.str(e.get("name"), f"{w}.name")
	w = f"benchmarks[{i}] {_what(name, 200)}:"
	c.opt(e, "run_name", c.str, where=w)
	rt = e.get("run_type", "iteration")
	c.one_of(rt, field(w, "run_type"), RUN_TYPES)
	if rt == "aggregate":
		c.str(e.get("aggregate_name"), field(w, "aggregate_name"))
	failed = c.opt(e, "error_occurred", c.bool, where=w)
	c.opt(e, "error_message", c.str, where=w, empty=True)
	if c.opt(e, "skipped", c.str, where=w, empty=True) not in (None, "", "false"):
		failed = True
	c.opt(e, "threads", c.int, 1, 1 << 24, where=w)
	c.opt(e, "iterations", c.int, where=w)
	for k in ("repetitions", "repetition_index", "family_index", "per_family_instance_index"):
		c.opt(e, k, c.int, where=w)
	if "time_unit" in e:
		c.one_of(e["time_unit"], field(w, "time_unit"), tuple(TIME_TO_NS))
	for part in name.split("/"):	# sizes the plots compute with
		key, colon, value = part.partition(":")
		if key in ("ram", "bytes") and colon and (_size_or_none(value) or 0) > SIZE_MAX:
			c.fail(w[:-1], f"{key}:{_what(value, 40)[1:-1]} is out of range (at most "
				       f"{format_size(SIZE_MAX)})")
	# A time itself (a run, or its mean or median), not a spread of times.
	a_time = rt != "aggregate" or e.get("aggregate_name") in ("mean", "median")
	for k, v in e.items():		# every number finite; times not negative
		t = type(v)
		if k in TIME_METRICS and a_time and _is_num(v) and v - v == 0 and v > 0 and \
		   not TIME_RANGE[0] <= v <= TIME_RANGE[1]:
			c.fail(field(w, k), f"{_what(v)} is out of range [{TIME_RANGE[0]:g}, "
					    f"{TIME_RANGE[1]:g}]")
		if t is float:
			if v - v == 0 and (v >= 0 or k not in TIME_METRICS):
				continue
			if rt == "aggregate" and v != v and not (k in TIME_METRICS and a_time):
				continue	# Google Benchmark's NaN cv of a value whose mean is 0
		elif t is int:
			if -_INT_MAX < v < _INT_MAX and (v >= 0 or k not in TIME_METRICS):
				continue
		elif k not in TIME_METRICS and k not in counters:
			continue
		c.num(v, field(w, k), lo=0 if k in TIME_METRICS else None)
	if (not failed and rt != "aggregate" and "real_time" in e) and "time_unit" not in e:
		c.fail(w[:-1], "has real_time but no time_unit")
	return name


# -- names ------------------------------------------------------------------

def parse_name(name, layouts, kernels=()):
	"""(kernel, layout or None, params) of a benchmark name:
	<kernel>/<layout>/mix:<mix>/ram:<size>[/<key>:<value>...] or
	<kernel>/bytes:<size>, with what Google Benchmark appends (/threads:N,
	/real_time, /min_time:...) left out.  The kernel is the longest of the
	dump's kernel names the name starts with, else the parts before the
	first layout or key:value part."""
	parts = name.split("/")
	while len(parts) > 1 and (parts[-1] in _GB_FLAG_PARTS or
				  parts[-1].split(":", 1)[0] in _GB_KEY_PARTS and ":" in parts[-1]):
		parts.pop()
	n = 0
	for k in kernels:
		kp = k.split("/")
		if len(kp) > n and parts[:len(kp)] == kp:
			n = len(kp)
	if not n:
		n = 1
		while n < len(parts) and parts[n] not in layouts and ":" not in parts[n]:
			n += 1
	kernel, rest = "/".join(parts[:n]), parts[n:]
	layout = None
	if rest and rest[0] in layouts:
		layout = rest.pop(0)
	params = {}
	for p in rest:
		key, _, value = p.partition(":")
		params[key] = value
	return kernel, layout, params


def variant_of(params):
	"""The layout-variant parameters of a name: all but mix, ram and bytes."""
	return tuple((k, v) for k, v in params.items() if k not in ("mix", "ram", "bytes"))


def variant_label(variant):
	return " ".join(f"{k}:{v}" if v else k for k, v in variant)


def not_trusted(bench, counter):
	"""mdbench's "counted 0 where the model expects N: not trusted" for a
	counter it took out of bench's runs (counters_not_trusted), else None."""
	for e in bench.reps:
		why = (e.get("counters_not_trusted") or {}).get(counter)
		if isinstance(why, str):
			return why
	return None


class Bench:
	"""One benchmark (one run_name): its repetitions (every iteration or
	simulation entry: mdbench's rounds and Google Benchmark's repetitions
	alike), its aggregates, and whether any entry failed."""

	__slots__ = ("name", "kernel", "layout", "params", "mix", "ram", "bytes", "variant",
		     "threads", "kclass", "reps", "aggs", "error", "failed_reps", "cache")

	def __init__(self, name, kernel, layout, params, kclass):
		self.name, self.kernel, self.layout, self.params = name, kernel, layout, params
		self.kclass = kclass
		self.mix = params.get("mix")
		self.ram = _size_or_none(params.get("ram"))
		self.bytes = _size_or_none(params.get("bytes"))
		self.variant = variant_of(params)
		self.threads = 1
		self.reps, self.aggs = [], {}
		self.error, self.failed_reps = None, 0
		self.cache = {}

	@property
	def timed(self):
		return self.kclass in TIMED_CLASSES

	def values(self, metric):
		"""The metric's value in every repetition that has it (ns for times);
		kept, since figures and tables ask again."""
		out = self.cache.get(metric)
		if out is None:
			out = self.cache[metric] = []
			for e in self.reps:
				v = e.get(metric)
				if _is_num(v):
					out.append(v * TIME_TO_NS[e.get("time_unit", "ns")]
						   if metric in TIME_METRICS else v)
		return out

	def by_round(self, metric):
		"""{round: value} of the repetitions (ns for times), or None where
		one has no round (a dump from before rounds were interleaved, or
		Google Benchmark's own repetitions)."""
		key = ("by_round", metric)
		if key not in self.cache:
			out = {}
			for e in self.reps:
				v, r = e.get(metric), e.get("round")
				if not isinstance(r, int) or isinstance(r, bool):
					out = None
					break
				if _is_num(v):
					out[r] = v * TIME_TO_NS[e.get("time_unit", "ns")] if metric in TIME_METRICS else v
			self.cache[key] = out
		return self.cache[key]

	def agg_value(self, agg, metric):
		e = self.aggs.get(agg)
		v = e.get(metric) if e else None
		if not _is_num(v) or (isinstance(v, float) and math.isnan(v)):
			return None
		return v * TIME_TO_NS[e.get("time_unit", "ns")] if metric in TIME_METRICS else v

	def sample(self, metric):
		"""(values, how): the repetitions' values where there are any, else
		the median (or mean) aggregate as one value, how = 'aggregate'."""
		vals = self.values(metric)
		if vals:
			return vals, "reps"
		for agg in ("median", "mean"):
			v = self.agg_value(agg, metric)
			if v is not None:
				return [v], "aggregate"
		return [], None

	def has(self, metric):
		return bool(self.sample(metric)[0])

	def metrics(self):
		"""Numeric measurement fields of its entries, first-seen order."""
		seen = {}
		for e in self.reps or self.aggs.values():
			for k, v in e.items():
				if _is_num(v) and (k not in ENTRY_FIELDS or k in TIME_METRICS):
					seen.setdefault(k, None)
		return list(seen)

	def key_without_layout(self):
		"""The name with the layout taken out: one benchmark across layouts."""
		parts = [self.kernel] + [f"{k}:{v}" if v else k for k, v in self.params.items()]
		if self.threads != 1:
			parts.append(f"threads:{self.threads}")
		return "/".join(parts)


def _size_or_none(text):
	if text is None:
		return None
	try:
		return parse_size(text)
	except DumpError:
		return None


class Dump:
	"""One run: mdbench.json and sim.json, either optional but not both.

	path is the run directory or one of its JSON files; naming mdbench.json
	also loads the sim.json beside it."""

	def __init__(self, path):
		self.path = path
		self.context, self.mb = {}, {}
		self.native, self.sim = {}, {}
		self.sim_mb = None
		self.label_override = None
		if os.path.isdir(path):
			self.dir = path
			main = os.path.join(path, "mdbench.json")
			sim = os.path.join(path, "sim.json")
			if not os.path.exists(main) and not os.path.exists(sim):
				raise DumpError(f"{printable(path)}: no mdbench.json or sim.json in this directory")
		else:
			self.dir = os.path.dirname(path) or "."
			main, sim = path, None
			if os.path.basename(path) == "mdbench.json":
				sim = os.path.join(self.dir, "sim.json")
			if not os.path.exists(path):
				raise DumpError(f"{printable(path)}: no such file or directory")
		if os.path.exists(main):
			self._load(main)
		if sim and os.path.exists(sim):
			self._load(sim, want_sim=True)

	def _load(self, path, want_sim=False):
		doc, mb = read_doc(path)
		is_sim = "simulation" in mb
		if want_sim and not is_sim:
			raise DumpError(f"{printable(path)}: not a --simulate dump "
					"(no context.memdesc_bench.simulation)")
		if not self.mb:
			self.mb, self.context = mb, doc["context"]
		if is_sim:
			self.sim_mb = mb
			self.sim = self._group(doc["benchmarks"], mb)
		else:
			self.native = self._group(doc["benchmarks"], mb)

	def _group(self, entries, mb):
		"""Entries -> {run_name: Bench}, in first-seen order."""
		layouts = {l["name"] for l in mb["layouts"]}
		kclass = {k["name"]: k["class"] for k in mb["kernels"]}
		kernels = sorted(kclass, key=lambda k: -k.count("/"))
		out = {}
		for e in entries:
			run_name = e.get("run_name")
			if run_name is None:
				run_name = e["name"]
				agg = e.get("aggregate_name")
				if e.get("run_type") == "aggregate" and run_name.endswith("_" + agg):
					run_name = run_name[:-len(agg) - 1]
			b = out.get(run_name)
			if b is None:
				kernel, layout, params = parse_name(run_name, layouts, kernels)
				b = out[run_name] = Bench(run_name, kernel, layout, params,
							  kclass.get(kernel, "other"))
				b.threads = e.get("threads", 1)
			if e.get("error_occurred") or e.get("skipped") not in (None, "", "false"):
				b.error = b.error or (e.get("error_message") or "error")
				b.failed_reps += 1
			elif e.get("run_type") == "aggregate":
				b.aggs[e["aggregate_name"]] = e
			else:
				b.reps.append(e)
		return out

	@property
	def layouts(self):
		return self.mb.get("layouts", [])

	@property
	def layout_names(self):
		return [l["name"] for l in self.layouts]

	@property
	def reference(self):
		"""The layout ratios are taken against."""
		return self.mb.get("reference_layout") or self.layout_names[0]

	def layout(self, name):
		return next((l for l in self.layouts if l["name"] == name), {})

	def sizeof_page(self, layout):
		return self.layout(layout).get("sizeof_page")

	@property
	def real_layouts(self):
		"""Layouts measured on the live kernel (real: true)."""
		return [l["name"] for l in self.layouts if l.get("real") is True]

	@property
	def kernels(self):
		return self.mb.get("kernels", [])

	@property
	def complete(self):
		return bool(self.mb.get("complete", False))

	@property
	def host(self):
		h = self.context.get("host_name")
		return printable(h) if isinstance(h, str) and h else "unknown host"

	@property
	def cpu_model(self):
		m = self.mb.get("cpu_model")
		m = " ".join(m.split()) if isinstance(m, str) else None	# /proc/cpuinfo pads it
		return printable(m) if m else "unknown CPU"

	@property
	def label(self):
		return self.label_override or f"{self.host} ({self.cpu_model})"

	def counters_available(self):
		"""{name: event} of the counters the run counted.  A file Google
		Benchmark wrote itself does not list them: there, every measurement
		field of a timed entry that is not unavailable counts (event None)."""
		avail = (self.mb.get("counters") or {}).get("available")
		if avail is not None:
			return {x["name"]: x.get("event") for x in avail}
		out, unavail = {}, self.counters_unavailable()
		for b in self.native.values():
			if b.timed:
				for m in b.metrics():
					if m not in TIME_METRICS and m not in unavail:
						out.setdefault(m, None)
		return out

	def counters_unavailable(self):
		"""{name: reason}"""
		return {x["name"]: x.get("reason") or "no reason given"
			for x in (self.mb.get("counters") or {}).get("unavailable", [])}

	def why_missing(self, counter):
		"""'unavailable: reason' for a counter this dump has no value of."""
		reason = self.counters_unavailable().get(counter)
		if reason:
			return f"unavailable: {reason}"
		if counter in self.counters_available():
			return "n/a (not recorded for this benchmark)"
		return "n/a (not requested)"

	def missing_cell(self, bench, metric):
		"""A table cell for a metric bench has no value of: failed, not
		trusted (a 0 where the kernel must count), or why."""
		if bench.error:
			return failed_text(bench)
		return not_trusted(bench, metric) or self.why_missing(metric)

	def pool(self, metric):
		"""The benchmarks a metric lives in: sim.json for sim_* / model_*."""
		return self.sim if metric.startswith(("sim_", "model_")) else self.native


def failed_text(b):
	n = len(b.reps) + b.failed_reps
	rounds = f" in {b.failed_reps} of {n} rounds" if n > 1 else ""
	return f"failed{rounds}: {b.error}"


def read_doc(path):
	"""(document, memdesc_bench) of one checked file.  A file Google
	Benchmark wrote itself gets its memdesc_bench rebuilt from the
	memdesc_bench.* context strings (and kept in the document)."""
	doc = _read_json(path)
	c = Checker(path)
	if not isinstance(doc, dict):
		raise DumpError(f"{c.path}: not a Google Benchmark JSON object")
	ctx, benches = doc.get("context"), doc.get("benchmarks")
	if not isinstance(ctx, dict) or not isinstance(benches, list):
		raise DumpError(f"{c.path}: not Google Benchmark JSON (no context or benchmarks list)")
	mb = ctx.get("memdesc_bench")
	if mb is None:
		mb = _gb_custom_context(ctx, c)
		if mb is None:
			raise DumpError(f"{c.path}: not a memdesc-bench dump (no context.memdesc_bench)")
		ctx["memdesc_bench"] = mb
	sim = isinstance(mb, dict) and "simulation" in mb
	_check_mb(mb, c, sim)
	if not benches:
		raise DumpError(f"{c.path}: empty benchmark list")
	counters = {x["name"] for x in (mb.get("counters") or {}).get("available") or []}
	for i, e in enumerate(benches):
		_check_entry(e, i, c, counters)
	if "host_name" in ctx:
		c.str(ctx["host_name"], "context.host_name", empty=True)
	return doc, mb


def load_dumps(paths):
	"""Loads every path, disambiguating labels that two dumps share."""
	dumps = [Dump(p) for p in paths]
	seen = {}
	for d in dumps:
		seen.setdefault(d.label, []).append(d)
	for same in seen.values():
		if len(same) > 1:
			for i, d in enumerate(same):
				base = printable(os.path.basename(os.path.abspath(d.dir)))
				d.label_override = f"{d.label} [{base}]"
			if len({d.label for d in same}) < len(same):
				for i, d in enumerate(same):
					d.label_override = f"{d.label} #{i + 1}"
	return dumps


def first_seen(items):
	return list(dict.fromkeys(items))


# -- merging ----------------------------------------------------------------

def merge_docs(docs, rounds=()):
	"""One dump out of parts of one machine's run (collect's groups, run's
	footprint pass and re-runs): the first part's context, every benchmark
	of the other parts once (a run_name already present is not added
	again), except that the parts whose index is in rounds are extra rounds
	of benchmarks already there, whose entries are all added (and their
	aggregate rows, which no longer hold, dropped); complete only
	if every part is; context.memdesc_bench.parts saying what each part was."""
	out = copy.deepcopy(docs[0])
	mb = out["context"]["memdesc_bench"]
	names, benches, parts = set(), [], []
	last_round = 0		# an extra-rounds part's rounds follow the parts' before it
	for i, d in enumerate(docs):
		m = d["context"]["memdesc_bench"]
		if m.get("schema_version") != SCHEMA_VERSION:
			raise DumpError(f"part {i + 1}: schema_version {_what(m.get('schema_version'))}, "
					f"this script reads {SCHEMA_VERSION}")
		mine, offset = set(), last_round if i in rounds else 0
		for e in d["benchmarks"]:
			rn = e.get("run_name", e["name"])
			if rn in names and i not in rounds:
				continue
			mine.add(rn)
			if offset and isinstance(e.get("round"), int):
				e = dict(e, round=e["round"] + offset)
			benches.append(e)
		last_round = max([last_round] + [e["round"] for e in benches
						  if isinstance(e.get("round"), int)])
		names |= mine
		parts.append({"argv": m.get("argv"), "run_id": m.get("run_id"),
			      "complete": bool(m.get("complete")), "nr_selected": m.get("nr_selected"),
			      "nr_benchmarks": len(mine), "rounds": i in rounds})
	# a benchmark with extra rounds: its aggregates (Google Benchmark's
	# _median of the first rounds, or of the extra ones) no longer hold
	more = {e.get("run_name", e["name"]) for i, d in enumerate(docs) if i in rounds
		for e in d["benchmarks"]}
	out["benchmarks"] = [e for e in benches if e.get("run_type") != "aggregate" or
			     e.get("run_name", e["name"]) not in more]
	mbs = [d["context"]["memdesc_bench"] for d in docs]
	mb["complete"] = all(p["complete"] for p in parts)
	for key, field in (("layouts", "name"), ("kernels", "name"), ("mixes", "name")):
		mb[key] = _union([m.get(key) for m in mbs], field)
	mb["ram_sizes"] = sorted({x for m in mbs for x in m.get("ram_sizes") or []})
	if "ram_names" in mb:
		mb["ram_names"] = [format_size(r) for r in mb["ram_sizes"]]
	if "baseline_sizes" in mb:
		mb["baseline_sizes"] = sorted({x for m in mbs for x in m.get("baseline_sizes") or []})
	if "nr_selected" in mb:
		mb["nr_selected"] = len(names)
	mb["parts"] = parts
	return out


def round_pairs(a, b, metric):
	"""(values of a, values of b, paired) for comparing Bench b with Bench a
	of the same run: where both carry rounds, the values of the rounds both
	ran, in round order (a round's layouts ran interleaved: paired true);
	else every value of each (paired false)."""
	ra, rb = a.by_round(metric), b.by_round(metric)
	if ra is None or rb is None:
		return a.sample(metric)[0], b.sample(metric)[0], False
	common = sorted(set(ra) & set(rb))
	return [ra[r] for r in common], [rb[r] for r in common], True


def _union(lists, field):
	"""The objects of lists, the first of each field value, in first-seen order."""
	out, seen = [], set()
	for lst in lists:
		for x in lst or []:
			if x.get(field) not in seen:
				seen.add(x.get(field))
				out.append(x)
	return out


def replace_file(path, write, mode="w"):
	"""write(f) into a temporary of this process's own (created with
	O_EXCL beside path: two processes writing path at once never share
	one, nothing already there is followed), then renamed over path."""
	d, base = os.path.split(path)
	fd, tmp = tempfile.mkstemp(prefix=base + ".", suffix=".tmp", dir=d or ".")
	try:
		os.fchmod(fd, 0o644)
		with os.fdopen(fd, mode) as f:
			write(f)
		os.replace(tmp, path)
	except BaseException:
		os.unlink(tmp)
		raise


def write_doc(doc, path):
	"""Written to a temporary name, then renamed, as mdbench does."""
	def write(f):
		json.dump(doc, f, indent=1)
		f.write("\n")
	replace_file(path, write)


# -- several runs of one side (scripts/compare) -------------------------------

def choices(conditions, prefix=""):
	"""{path: value} of what a run's conditions chose: the string, bool
	and null leaves of its objects (numbers are what it obtained, and lists
	of objects are per-memmap rows, both left out), and no `given` flag
	(how a value was chosen, not what it is).  Two runs whose choices
	differ measured different things under the same names."""
	out = {}
	if not isinstance(conditions, dict):
		return out
	for k, v in conditions.items():
		path = f"{prefix}{k}"
		if isinstance(v, dict):
			out.update(choices(v, path + "."))
		elif (isinstance(v, (str, bool)) or v is None) and k != "given":
			out[path] = v
	return out


def mix_definition(mb, name):
	"""A mix's entries as the run recorded them (JSON text), or None when
	the dump does not say (a file Google Benchmark wrote itself)."""
	for m in mb.get("mixes") or []:
		if m.get("name") == name and "entries" in m:
			return json.dumps(m["entries"], sort_keys=True)
	return None


class Side:
	"""Several runs of one side of a comparison, read as one: each
	benchmark's repetitions are those of every run (Bench objects merged by
	run_name), what a run lacks is said as the first run says it."""

	def __init__(self, dumps, name):
		self.dumps, self.name = dumps, name
		self.mb, self.context = dumps[0].mb, dumps[0].context
		self.native = self._merge([d.native for d in dumps])
		self.sim = self._merge([d.sim for d in dumps])
		self._choices = {}

	@staticmethod
	def _merge(pools):
		if len(pools) == 1:
			return pools[0]
		out = {}
		for pool in pools:
			for k, b in pool.items():
				m = out.get(k)
				if m is None:
					m = out[k] = Bench(b.name, b.kernel, b.layout, b.params, b.kclass)
					m.threads = b.threads
					m.aggs = b.aggs
				m.reps = m.reps + b.reps
				m.error = m.error or b.error
				m.failed_reps += b.failed_reps
		return out

	@property
	def label(self):
		d = self.dumps[0]
		return d.label + (f" ({len(self.dumps)} runs)" if len(self.dumps) > 1 else "")

	@property
	def complete(self):
		return all(d.complete for d in self.dumps)

	@property
	def reference(self):
		return self.dumps[0].reference

	@property
	def layout_names(self):
		return self.dumps[0].layout_names

	def counters_available(self):
		sets = [d.counters_available() for d in self.dumps]
		return {k: v for k, v in sets[0].items() if all(k in s for s in sets[1:])}

	def why_missing(self, counter):
		return self.dumps[0].why_missing(counter)

	def missing_cell(self, bench, metric):
		if bench.error:
			return failed_text(bench)
		return not_trusted(bench, metric) or self.why_missing(metric)

	def signature(self, i, b):
		"""{what: value} that must be the same for run i's benchmark b to
		be compared with another run's of the same name: the mix's
		definition, the RAM, the threads and the run's conditions.  What
		the run does not record is left out (unknown, not different)."""
		d = self.dumps[i]
		if i not in self._choices:		# once per run
			self._choices[i] = {f"conditions.{k}": v
					    for k, v in choices(d.mb.get("conditions")).items()}
		out = dict(self._choices[i])
		if b.mix:
			mix = mix_definition(d.mb, b.mix)
			if mix is not None:
				out[f"mix {b.mix}"] = mix
		out["RAM"] = b.ram
		out["threads"] = b.threads
		return out


def differences(sigs):
	"""The first thing that differs among [(run label, signature)], as
	'what: value (run) vs value (run)', or None when they all agree on
	what each knows."""
	keys = first_seen(k for _, s in sigs for k in s)
	for k in keys:
		seen = [(lab, s[k]) for lab, s in sigs if k in s]
		vals = first_seen(json.dumps(v, sort_keys=True) for _, v in seen)
		if len(vals) > 1:
			a = seen[0]
			b = next(x for x in seen if json.dumps(x[1], sort_keys=True) != vals[0])
			if k.startswith("mix "):
				return f"{k} has other entries in {b[0]} than in {a[0]}"
			return f"{k}: {_short(a[1])} ({a[0]}) vs {_short(b[1])} ({b[0]})"
	return None


def _short(v):
	if v is None:
		return "null"
	if isinstance(v, bool):
		return "true" if v else "false"
	if isinstance(v, int) and v >= 1 << 20:
		return format_size(v)
	return printable(str(v))
