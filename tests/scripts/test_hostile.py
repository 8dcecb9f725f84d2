#!/usr/bin/python3
"""Hostile dumps: each one built here from a small good dump,
given to scripts/plot and to scripts/compare (against the good dump).  A bad
one must be refused with exit status 2 and one line '<prog>: ...' naming
the field, never a traceback or an "internal error"; an odd but valid one
(names with '|', newlines, escape sequences, non-Latin text, NaN where
Google Benchmark writes it) must plot with nothing on stderr and a report
whose tables stay tables."""

import concurrent.futures
import copy
import json
import os

from testlib import PY, Scratch, fixture, load, main, run, script, table_rows

ENTRY = 'benchmarks[0] "lookup/random/page64/mix:desktop/ram:256MiB":'
MB = "context.memdesc_bench"


def base():
	"""fixtures/one cut down to lookup/random, footprint of desktop and the
	latency baseline: 5 rounds of 22 benchmarks."""
	doc = load(fixture("one", "mdbench.json"))
	doc["benchmarks"] = [b for b in doc["benchmarks"] if b["name"].startswith(
		("lookup/random/", "footprint/", "baseline/latency/")) and "server" not in b["name"]]
	return doc


def mb(doc):
	return doc["context"]["memdesc_bench"]


def e0(doc):
	return doc["benchmarks"][0]


def setter(get, key, value):
	def f(doc):
		get(doc)[key] = value
	return f


def deleter(get, key):
	def f(doc):
		del get(doc)[key]
	return f


def layout0(doc):
	return mb(doc)["layouts"][0]


def kernel0(doc):
	return mb(doc)["kernels"][0]


def duplicate(get, key):
	def f(doc):
		lst = get(doc)
		lst.append(copy.deepcopy(lst[0]))
	return f


def gb_native(key, value):
	"""Google Benchmark's own output with one memdesc_bench.* string changed."""
	def f(doc):
		g = load(fixture("gbnative", "out.json"))
		g["benchmarks"] = doc["benchmarks"]
		g["context"][f"memdesc_bench.{key}"] = value
		doc.clear()
		doc.update(g)
	return f


def replace_all(value):
	def f(doc):
		doc.clear()
		doc["raw"] = value
	return f


# (what, change to the good dump, what the one line must say)
REFUSED = [
	("schema 1", setter(mb, "schema_version", 1), "schema_version 1, this script reads 2"),
	("schema as text", setter(mb, "schema_version", "2"), 'schema_version "2", this script reads 2'),
	("schema true", setter(mb, "schema_version", True), "schema_version true, this script reads 2"),
	("no schema", deleter(mb, "schema_version"), "schema_version null, this script reads 2"),
	("no run_id", deleter(mb, "run_id"), f"{MB}.run_id is missing"),
	("run_id a number", setter(mb, "run_id", 5), f"{MB}.run_id 5 is not a string"),
	("complete as text", setter(mb, "complete", "yes"), f'{MB}.complete "yes" is not true or false'),
	("no layouts", deleter(mb, "layouts"), f"{MB}.layouts is missing"),
	("no layout", setter(mb, "layouts", []), f"{MB}.layouts is an empty list"),
	("layout a number", setter(mb, "layouts", [5]), f"{MB}.layouts[0] 5 is not an object"),
	("layout without name", deleter(layout0, "name"), f"{MB}.layouts[0].name is missing"),
	("layout name with /", setter(layout0, "name", "page/64"), "holds '/' or ':'"),
	("layout twice", duplicate(lambda d: mb(d)["layouts"], 0), '"page64" is listed twice'),
	("sizeof_page 0", setter(layout0, "sizeof_page", 0), f"{MB}.layouts[0].sizeof_page 0 is out of range"),
	("sizeof_page negative", setter(layout0, "sizeof_page", -64), "sizeof_page -64 is out of range"),
	("sizeof_page 1e400", setter(layout0, "sizeof_page", float("inf")), "sizeof_page Infinity is not an integer"),
	("sizeof_page 10^30", setter(layout0, "sizeof_page", 10 ** 30), "is out of range [1, 1048576]"),
	("sizeof_page 2.5", setter(layout0, "sizeof_page", 2.5), "sizeof_page 2.5 is not an integer"),
	("desc_sizes a list", setter(layout0, "desc_sizes", []), "layouts[0].desc_sizes [] is not an object"),
	("desc size negative", lambda d: mb(d)["layouts"][1]["desc_sizes"].update(folio=-1),
	 "layouts[1].desc_sizes.folio -1 is out of range"),
	("real as text", setter(layout0, "real", "yes"), 'layouts[0].real "yes" is not true or false'),
	("unknown reference", setter(mb, "reference_layout", "page16"),
	 f'{MB}.reference_layout "page16" is not one of the layouts'),
	("reference a number", setter(mb, "reference_layout", 5), f"{MB}.reference_layout 5 is not a string"),
	("no kernels", deleter(mb, "kernels"), f"{MB}.kernels is missing"),
	("kernel class", setter(kernel0, "class", "fast"),
	 f'{MB}.kernels[0].class "fast" (want sequential, dependent, mutating, baseline, report)'),
	("kernel twice", duplicate(lambda d: mb(d)["kernels"], 0), "is listed twice"),
	("kernel a list", lambda d: mb(d)["kernels"].insert(0, []), f"{MB}.kernels[0] [] is not an object"),
	("mutates as text", setter(kernel0, "mutates", "no"), "kernels[0].mutates"),
	("counters a list", setter(mb, "counters", []), f"{MB}.counters [] is not an object"),
	("available an object", lambda d: mb(d)["counters"].update(available={}),
	 f"{MB}.counters.available {{}} is not a list"),
	("counter name a number", lambda d: mb(d)["counters"]["available"][0].update(name=5),
	 f"{MB}.counters.available[0].name 5 is not a string"),
	("reason a number", lambda d: mb(d)["counters"]["unavailable"][0].update(reason=5),
	 f"{MB}.counters.unavailable[0].reason 5 is not a string"),
	("conditions a list", setter(mb, "conditions", []), f"{MB}.conditions [] is not an object"),
	("false_sharing an object", setter(mb, "false_sharing", {}), f"{MB}.false_sharing {{}} is not a list"),
	("false_sharing row", setter(mb, "false_sharing", [5]), f"{MB}.false_sharing[0] 5 is not an object"),
	("mix name", setter(mb, "mixes", [{"name": 5}]), f"{MB}.mixes[0].name 5 is not a string"),
	("ram size negative", setter(mb, "ram_sizes", [-1]), f"{MB}.ram_sizes[0] -1 is out of range"),
	("argv a string", setter(mb, "argv", "mdbench"), f'{MB}.argv "mdbench" is not a list'),
	("cpu as text", setter(mb, "cpu", "0"), f'{MB}.cpu "0" is not an integer'),
	("cache size", setter(mb, "hwloc", {"caches": [{"size": "big"}]}),
	 f'{MB}.hwloc.caches[0].size "big" is not an integer'),
	("context a list", setter(lambda d: d, "context", []), "no context or benchmarks list"),
	("benchmarks an object", setter(lambda d: d, "benchmarks", {}), "no context or benchmarks list"),
	("memdesc_bench text", setter(lambda d: d["context"], "memdesc_bench", "x"),
	 f'{MB} "x" is not an object'),
	("no benchmarks", setter(lambda d: d, "benchmarks", []), "empty benchmark list"),
	("entry a number", lambda d: d["benchmarks"].insert(0, 5), "benchmarks[0] 5 is not an object"),
	("entry without name", deleter(e0, "name"), "benchmarks[0].name is missing"),
	("entry name empty", setter(e0, "name", ""), "benchmarks[0].name is empty"),
	("time_unit fortnights", setter(e0, "time_unit", "fortnights"),
	 f'{ENTRY} time_unit "fortnights" (want ns, us, ms, s)'),
	("real_time true", setter(e0, "real_time", True), f"{ENTRY} real_time true is not a number"),
	("real_time negative", setter(e0, "real_time", -1), f"{ENTRY} real_time -1 is negative"),
	("real_time text", setter(e0, "real_time", "fast"), f'{ENTRY} real_time "fast" is not a number'),
	("real_time infinite", setter(e0, "real_time", float("inf")), f"{ENTRY} real_time Infinity is not finite"),
	("real_time NaN", setter(e0, "real_time", float("nan")), f"{ENTRY} real_time is NaN"),
	("real_time 10^400", setter(e0, "real_time", 10 ** 400), f"{ENTRY} real_time 1000000000000000000000000000000000000... is out of range"),
	("cpu_time negative", setter(e0, "cpu_time", -0.5), f"{ENTRY} cpu_time -0.5 is negative"),
	("counter NaN", setter(e0, "page_faults", float("nan")), f"{ENTRY} page_faults is NaN"),
	("counter text", setter(e0, "page_faults", "many"), f'{ENTRY} page_faults "many" is not a number'),
	("other number infinite", setter(e0, "items_per_second", float("-inf")),
	 f"{ENTRY} items_per_second -Infinity is not finite"),
	("run_type", setter(e0, "run_type", "warmup"),
	 f'{ENTRY} run_type "warmup" (want iteration, aggregate, simulation)'),
	("threads 0", setter(e0, "threads", 0), f"{ENTRY} threads 0 is out of range"),
	("threads 1.5", setter(e0, "threads", 1.5), f"{ENTRY} threads 1.5 is not an integer"),
	("iterations negative", setter(e0, "iterations", -5), f"{ENTRY} iterations -5 is out of range"),
	("error_occurred text", setter(e0, "error_occurred", "yes"),
	 f'{ENTRY} error_occurred "yes" is not true or false'),
	("error_message a number", lambda d: e0(d).update(error_occurred=True, error_message=5),
	 f"{ENTRY} error_message 5 is not a string"),
	("aggregate without name", setter(e0, "run_type", "aggregate"), f"{ENTRY} aggregate_name is missing"),
	("time without unit", deleter(e0, "time_unit"), "has real_time but no time_unit"),
	("run_name a number", setter(e0, "run_name", 5), f"{ENTRY} run_name 5 is not a string"),
	("host_name a list", setter(lambda d: d["context"], "host_name", []), "context.host_name [] is not a string"),
	("GB file: layouts not JSON", gb_native("layouts", "[{"),
	 'context."memdesc_bench.layouts" is not JSON text'),
	("GB file: schema 1", gb_native("schema_version", "1"), "schema_version 1, this script reads 2"),
	("GB file: kernels a number", gb_native("kernels", 5), 'context."memdesc_bench.kernels" 5 is not a string'),
	("GB file: mixes an object", gb_native("mixes", "{}"), 'context."memdesc_bench.mixes" {} is not a list'),
	("top level a list", replace_all(None), "not a Google Benchmark JSON object"),
]
# Files that are not even JSON documents of the right shape.
RAW = [
	("binary", b"\xff\xfe\x00garbage", "not UTF-8 text"),
	("truncated", None, "truncated JSON at line"),
	("a 5000-digit number", b'{"context": {}, "benchmarks": [' + b"9" * 5000 + b"]}", "unreadable JSON"),
	("empty", b"", "empty file"),
	("nested 100000 deep", b'{"context": {"memdesc_bench": ' + b'{"a": ' * 100000 + b"1" +
	 b"}" * 100000 + b'}, "benchmarks": []}', "JSON nested too deeply"),
	("a list", b"[1, 2]", "not a Google Benchmark JSON object"),
]


def odd_names(doc):
	"""'|', a newline, an escape sequence and non-Latin text in names and messages."""
	for b in doc["benchmarks"]:
		for k in ("name", "run_name"):
			b[k] = b[k].replace("lookup/random", "поиск/случайный|x").replace(
				"page32", "страница\u200b32")
	for l in mb(doc)["layouts"]:
		l["name"] = l["name"].replace("page32", "страница\u200b32")
	for k in mb(doc)["kernels"]:
		k["name"] = k["name"].replace("lookup/random", "поиск/случайный|x")
	doc["benchmarks"][0].update(error_occurred=True, error_message="line one\nline | two\x1b[31m")
	doc["context"]["host_name"] = "host\x1b]0;pwned\x07|x"
	mb(doc)["conditions"] = {"note": "a | b\nc", "deep": {"a": {"b": {"c": {"d": {"e": {
		"f": {"g": {"h": {"i": {"j": 1}}}}}}}}}}}


ODD = [
	("names with | newline escape non-Latin", odd_names),
	("unknown fields", lambda d: [b.update(extra_list=[1, 2], extra_text="t", extra_obj={"a": 1})
				      for b in d["benchmarks"]]),
	("a kernel not in kernels[]", lambda d: mb(d).update(kernels=mb(d)["kernels"][1:])),
	("NaN cv aggregate", lambda d: d["benchmarks"].append({
		"name": e0(d)["name"] + "_cv", "run_name": e0(d)["name"], "run_type": "aggregate",
		"aggregate_name": "cv", "real_time": float("nan"), "cpu_time": float("nan"),
		"time_unit": "ns", "page_faults": float("nan")})),
	("one benchmark", lambda d: d.update(benchmarks=d["benchmarks"][:1])),
	("microseconds", lambda d: [b.update(real_time=b["real_time"] / 1000, time_unit="us")
				    for b in d["benchmarks"]]),
]


def ragged_tables(text):
	"""Table lines whose cell count differs from their table's header."""
	out, width = [], None
	for line in text.splitlines():
		if not line.startswith("|"):
			width = None
			continue
		n = len(line.replace("\\|", "").strip().strip("|").split("|"))
		if width is None:
			width = n
		elif n != width:
			out.append(line)
	return out


class HostileDumps(Scratch):
	def setUp(self):
		super().setUp()
		self.good = os.path.join(self.tmp, "good")
		os.makedirs(self.good)
		with open(os.path.join(self.good, "mdbench.json"), "w") as f:
			json.dump(base(), f)

	def write(self, i, doc=None, raw=None):
		d = os.path.join(self.tmp, f"case{i}")
		os.makedirs(d)
		with open(os.path.join(d, "mdbench.json"), "wb") as f:
			f.write(raw if raw is not None else json.dumps(doc, allow_nan=True).encode())
		return d

	def check(self, prog, cmd, want):
		"""'' when cmd was refused as it should be, else what was wrong."""
		rc, out, err = run(cmd)
		lines = err.splitlines()
		why = []
		if rc != 2:
			why.append(f"exit {rc}")
		if len(lines) != 1 or not lines[0].startswith(f"{prog}: "):
			why.append(f"stderr {err[:300]!r}")
		elif want not in lines[0]:
			why.append(f"no {want!r} in {lines[0]!r}")
		if "Traceback" in err or "internal error" in err or out:
			why.append(f"traceback, internal error or stdout: {err[:300]!r} {out[:100]!r}")
		return "; ".join(why)

	def test_refused(self):
		cases = []
		for i, (what, change, want) in enumerate(REFUSED):
			doc = base()
			change(doc)
			cases.append((what, self.write(i, doc if "raw" not in doc else doc["raw"]), want))
		with open(os.path.join(self.good, "mdbench.json"), "rb") as f:
			good = f.read()
		for j, (what, raw, want) in enumerate(RAW):
			cases.append((what, self.write(len(REFUSED) + j, raw=raw if raw is not None
						       else good[:len(good) // 3]), want))
		self.assertGreaterEqual(len(cases), 50)
		jobs = []
		for what, d, want in cases:
			jobs.append((what, "plot", [PY, script("plot"), d, "--out", os.path.join(d, "o")], want))
			jobs.append((what, "compare", [PY, script("compare"), d, self.good], want))
		with concurrent.futures.ThreadPoolExecutor(2) as ex:
			results = list(ex.map(lambda j: (j[0], j[1], self.check(j[1], j[2], j[3])), jobs))
		failed = [f"{what} ({prog}): {why}" for what, prog, why in results if why]
		self.assertEqual(failed, [])
		print(f"\n{len(cases)} hostile dumps, each refused by plot and compare with one line")

	def test_odd_but_valid(self):
		for i, (what, change) in enumerate(ODD):
			with self.subTest(what):
				doc = base()
				change(doc)
				d = self.write(100 + i, doc)
				rc, out, err = run([PY, script("plot"), d, "--jobs", "1"])
				self.assertEqual((rc, err), (0, ""), what)
				with open(os.path.join(d, "report.md")) as f:
					text = f.read()
				self.assertNotIn("\x1b", text)
				self.assertNotIn("\x07", text)
				self.assertEqual(ragged_tables(text), [])
				rc, out, err = run([PY, script("compare"), d, self.good])
				self.assertIn(rc, (0, 2), what)
				if rc:		# nothing in common: said in one line
					self.assertEqual(err, "compare: no benchmark is on both sides but baselines\n")
				self.assertNotIn("\x1b", out)

	def test_odd_names_stay_in_their_cells(self):
		doc = base()
		odd_names(doc)
		d = self.write(200, doc)
		self.ok([PY, script("plot"), d, "--jobs", "1"])
		with open(os.path.join(d, "report.md")) as f:
			text = f.read()
		rows = table_rows(text)
		self.assertIn(["host", "host\\x1b]0;pwned\\x07|x"], rows)
		self.assertIn(["note", "a | b\\nc"], rows)
		self.assertIn(["deep.a.b.c.d.e.f.g.h", "(nested too deeply)"], rows)
		self.assertIn(["-", "256MiB", "failed in 1 of 5 rounds: line one\\nline | two\\x1b[31m",
			       "4.5 (4.41..4.59)", "3.25 (3.185..3.315)"], rows)
		# file names keep what is safe plus a hash: never two kernels in one file
		files = [f for f in os.listdir(d) if f.startswith("time-") and f.endswith(".png")]
		self.assertEqual(len(files), 1)
		self.assertRegex(files[0], r"^time-[\w.-]*-[0-9a-f]{8}\.png$")


if __name__ == "__main__":
	main()
