#!/usr/bin/python3
"""A stand-in for mdbench (schema 2) that the tests of scripts/collect and
scripts/run use instead of the real one: the same --list=json and dump
files, made from the fixture dumps (fixtures/one, fixtures/sim) in no time.

It answers --list=json, --out=DIR, --rounds=N (N iteration entries per
benchmark, round-major: round r is the fixture's round r mod 5),
--benchmark_filter=, --mix= (a mix the fixture lacks gets the fixture's
desktop numbers under its own name), --layout=, --profile=, --simulate, and
refuses other options of ours as mdbench does (one line, exit 2).

FAKE_MDBENCH_WIDE=REGEX: the rounds of matching benchmarks spread wide
(times x 1, 0.7, 1.3, 0.8, 1.2).
FAKE_MDBENCH_HANG=REGEX: when a selected benchmark matches, write the dump
so far (complete: false), print "hanging" on stderr and wait for SIGINT or
SIGTERM, then exit 128+sig as mdbench does.
FAKE_MDBENCH_HANG_SIMULATE=1: the same, in the --simulate run.
FAKE_MDBENCH_LOG=FILE: append each argv, one per line, to FILE.
FAKE_MDBENCH_TWIN=REGEX: the reference layout's matching benchmarks get a
placebo twin (<name>/twin:b, the same rounds), listed and run as mdbench's.

What mdbench says for sizing runs to the machine, emulated here: --list=json gives
each instance est_seconds (EST_PER_GIB per GiB of its RAM, EST_MIN at
least: cost weighted by RAM size) and working_set_bytes; dumps carry
working_set_bytes and ram_over_llc per entry, context.memdesc_bench.machine
{llc_bytes, headline_ram_bytes} and one Google Benchmark `_median`
aggregate row per benchmark; --rounds=auto with --time-budget=SECONDS runs
AUTO_ROUNDS rounds (FAKE_MDBENCH_AUTO_ROUNDS=N: N); every finished benchmark
prints "mdbench: progress <done>/<total> elapsed=<seconds> est_left=<seconds>
<run name>" on stderr;
--profile=smoke.
FAKE_MDBENCH_SCALE=X: multiply every real_time and cpu_time by X (a slower
machine, or drift that hits every layout alike).
"""

import itertools
import json
import os
import re
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")
WIDE = [1.0, 0.7, 1.3, 0.8, 1.2]
EST_PER_GIB = 0.5
EST_MIN = 0.01
AUTO_ROUNDS = 5
LLC_BYTES = 32 << 20
HEADLINE_RAM = 64 << 30
PROFILES = ("smoke", "quick", "full")
SIZES = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
_runs = itertools.count()


def die(msg):
	print(f"mdbench: {msg}", file=sys.stderr)
	sys.exit(2)


def parse(argv):
	o = {"filter": "", "mix": "desktop", "layout": None, "profile": "quick", "out": None,
	     "list": None, "simulate": False, "rounds": "1", "time-budget": None, "llc": None}
	for a in argv:
		if a.startswith("--benchmark_filter="):
			o["filter"] = a.split("=", 1)[1]
		elif a.startswith("--benchmark_"):
			pass
		elif a.startswith("--list"):
			o["list"] = a.partition("=")[2] or "text"
		elif a == "--simulate":
			o["simulate"] = True
		elif a.startswith(("--mix=", "--layout=", "--profile=", "--out=", "--counters=",
				   "--cpu=", "--node=", "--seed=", "--ram=", "--rounds=",
				   "--time-budget=", "--llc=")):
			k, v = a[2:].split("=", 1)
			o[k] = v
		else:
			die(f"unknown option '{a}' (mdbench --help lists them)")
	if o["profile"] not in PROFILES:
		die(f"unknown --profile={o['profile']} ({', '.join(PROFILES)})")
	if o["rounds"] != "auto" and (not o["rounds"].isdigit() or int(o["rounds"]) < 1):
		die(f"--rounds={o['rounds']}: want a whole number of 1 or more, or auto")
	if o["time-budget"] is not None:
		try:
			ok = float(o["time-budget"]) > 0
		except ValueError:
			ok = False
		if not ok or o["rounds"] != "auto":
			die(f"--time-budget={o['time-budget']}: want seconds above 0, with --rounds=auto")
	if o["rounds"] == "auto":
		o["rounds"] = os.environ.get("FAKE_MDBENCH_AUTO_ROUNDS", str(AUTO_ROUNDS))
	return o


def ram_of(name):
	"""Bytes of the name's ram:<size> part, None without one."""
	m = re.search(r"/ram:(\d+)(KiB|MiB|GiB|TiB)", name)
	return int(m.group(1)) * SIZES[m.group(2)] if m else None


def est_seconds(name):
	ram = ram_of(name)
	return max(EST_MIN, EST_PER_GIB * (ram or 0) / (1 << 30))


def working_set(name):
	"""A working set that grows with the RAM and differs per layout (the
	bytes of the fixture's layouts' sizeof_page)."""
	ram = ram_of(name) or (64 << 20)
	per = 8 if "/memdesc8/" in name else (32 if "/page32/" in name else 64)
	return ram // 4096 * per


def mix_name(arg):
	if arg.endswith(".json"):
		with open(arg) as f:
			return json.load(f)["name"]
	return arg


def add_twins(doc, rx):
	"""The reference layout's benchmarks matching rx run again as their
	placebo twin (mdbench's .../twin:b, context twin)."""
	mb = doc["context"]["memdesc_bench"]
	ref = f"/{mb['reference_layout']}/"
	for e in list(doc["benchmarks"]):
		if ref in e["name"] and re.search(rx, e["name"]) and "real_time" in e:
			name = e["name"] + "/twin:b"
			doc["benchmarks"].append(dict(e, name=name, run_name=name))
	mb["twin"] = "twin:b"


def selected(doc, o):
	"""{run_name: [entry of each fixture round]} that the options select."""
	mixes = [mix_name(m) for m in o["mix"].split(",")]
	have = {p[4:] for e in doc["benchmarks"] for p in e["name"].split("/") if p.startswith("mix:")}
	layouts = o["layout"].split(",") if o["layout"] else None
	try:
		rx = re.compile(o["filter"])
	except re.error:
		die(f"--benchmark_filter={o['filter']}: not a regular expression")
	out = {}
	for mix in mixes + [None]:
		src = mix if mix in have else "desktop"
		for e in doc["benchmarks"]:
			parts = e["name"].split("/")
			emix = [p[4:] for p in parts if p.startswith("mix:")]
			if (mix is None) != (not emix) or (emix and emix[0] != src):
				continue
			if layouts and emix and not any(f"/{l}/" in e["name"] for l in layouts):
				continue
			if mix and mix != src:
				name = e["name"].replace(f"mix:{src}", f"mix:{mix}")
				e = dict(e, name=name, run_name=name)
			if rx.search(e["name"]):
				out.setdefault(e["run_name"], []).append(e)
	return out


def rounds(sel, n, doc):
	"""Round-major entries: round r of every benchmark, then round r + 1; a
	report kernel's in the first round only, as mdbench runs it."""
	wide = os.environ.get("FAKE_MDBENCH_WIDE")
	scale = float(os.environ.get("FAKE_MDBENCH_SCALE", "1"))
	reports = tuple(k["name"] + "/" for k in doc["context"]["memdesc_bench"]["kernels"]
			if k["class"] == "report")
	out = []
	for r in range(n):
		for name, reps in sel.items():
			if r and name.startswith(reports):
				continue
			e = dict(reps[r % len(reps)])
			if wide and re.search(wide, name) and "real_time" in e:
				base = reps[0]["real_time"]
				e["real_time"] = e["cpu_time"] = base * WIDE[r % len(WIDE)]
			if "real_time" in e and not e.get("error_occurred"):
				e["real_time"] *= scale
				e["cpu_time"] *= scale
			e["working_set_bytes"] = working_set(name)
			e["ram_over_llc"] = round((ram_of(name) or 0) / LLC_BYTES, 3)
			out.append(e)
	return out


def medians(entries):
	"""Google Benchmark's _median aggregate row of every benchmark with
	real_time, after its rounds."""
	by = {}
	for e in entries:
		if "real_time" in e and not e.get("error_occurred"):
			by.setdefault(e["run_name"], []).append(e)
	out = []
	for name, es in by.items():
		def med(k):
			v = sorted(x[k] for x in es)
			return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
		out.append({"name": name + "_median", "run_name": name, "run_type": "aggregate",
			    "aggregate_name": "median", "aggregate_unit": "time",
			    "repetitions": len(es), "threads": es[0].get("threads", 1),
			    "iterations": len(es), "real_time": med("real_time"),
			    "cpu_time": med("cpu_time"), "time_unit": es[0].get("time_unit", "ns")})
	return out


def progress(entries):
	"""mdbench's line per finished benchmark; est_left from the listing's
	estimates of what is left, round after round, elapsed as if each
	took its estimate."""
	names = [e["run_name"] for e in entries]
	total = len(names)
	left = sum(est_seconds(x) for x in names)
	el = 0.0
	for i, x in enumerate(names):
		left -= est_seconds(x)
		el += est_seconds(x)
		# Google Benchmark's console line of the result, on stdout
		print(f"{x:<60} {entries[i].get('real_time', 0):>10} ns", flush=True)
		print(f"mdbench: progress {i + 1}/{total} elapsed={el:.3f} est_left={max(left, 0):.3f} {x}",
		      file=sys.stderr, flush=True)


def listing(doc, sel, llc=None):
	mb = doc["context"]["memdesc_bench"]
	kernels = sorted((k["name"] for k in mb["kernels"]), key=lambda k: -k.count("/"))
	benches = []
	for name in sel:
		kernel = next((k for k in kernels if name.startswith(k + "/")), name.split("/")[0])
		rest = name[len(kernel) + 1:].split("/")
		layout = rest[0] if rest and ":" not in rest[0] else None
		params = dict(p.split(":", 1) for p in rest if ":" in p)
		benches.append({"name": name, "kernel": kernel, "layout": layout,
				"mix": params.pop("mix", None), "ram_bytes": ram_of(name),
				"buf_bytes": None, "params": params,
				"est_seconds": est_seconds(name), "working_set_bytes": working_set(name)})
	return {"schema_version": 2, "reference_layout": mb["reference_layout"],
		"layouts": mb["layouts"], "kernels": mb["kernels"], "benchmarks": benches,
		"counters": mb["counters"], "mixes_builtin": ["desktop", "server"], "auto_min_rounds": 10,
		"machine": {"llc_bytes": int(llc or LLC_BYTES),
			    "llc_source": "given" if llc else "measured"}}


def write(out, name, doc, entries, complete, argv, o):
	doc = json.loads(json.dumps(doc))
	mb = doc["context"]["memdesc_bench"]
	mb.update(complete=complete, argv=["mdbench", *argv], profile=o["profile"],
		  filter=o["filter"], nr_selected=len({e["run_name"] for e in entries}),
		  run_id=f"20251203T060000Z-fake{os.getpid()}-{next(_runs)}",
		  machine={"llc_bytes": LLC_BYTES, "headline_ram_bytes": HEADLINE_RAM})
	doc["benchmarks"] = entries + ([] if "simulation" in mb else medians(entries))
	os.makedirs(out, exist_ok=True)
	with open(os.path.join(out, name + ".tmp"), "w") as f:
		json.dump(doc, f, indent=1)
	os.replace(os.path.join(out, name + ".tmp"), os.path.join(out, name))
	with open(os.path.join(out, "mix.json"), "w") as f:
		json.dump([{"name": mix_name(m), "entries": []} for m in o["mix"].split(",")], f)
	with open(os.path.join(out, "topology.xml"), "w") as f:
		f.write('<?xml version="1.0"?>\n<topology version="2.0"/>\n')


def hang(out, name, doc, entries, argv, o):
	write(out, name, doc, entries[:len(entries) // 2], False, argv, o)
	print("hanging", file=sys.stderr, flush=True)

	def on_signal(sig, frame):
		print(f"mdbench: interrupted, {len(entries) // 2} benchmarks kept in {out}",
		      file=sys.stderr)
		os._exit(128 + sig)
	signal.signal(signal.SIGINT, on_signal)
	signal.signal(signal.SIGTERM, on_signal)
	while True:
		time.sleep(1)


def main(argv):
	if os.environ.get("FAKE_MDBENCH_LOG"):
		with open(os.environ["FAKE_MDBENCH_LOG"], "a") as f:
			f.write(" ".join(argv) + "\n")
	o = parse(argv)
	with open(os.path.join(FIX, "sim" if o["simulate"] else "one",
			       "sim.json" if o["simulate"] else "mdbench.json")) as f:
		doc = json.load(f)
	if os.environ.get("FAKE_MDBENCH_TWIN") and not o["simulate"]:
		add_twins(doc, os.environ["FAKE_MDBENCH_TWIN"])
	sel = selected(doc, o)
	if o["list"] == "json":
		json.dump(listing(doc, sel, o["llc"]), sys.stdout, indent=1)
		return 0
	if o["list"]:
		die("this fake answers --list=json only")
	if not o["out"]:
		die("fake mdbench wants --out")
	entries = rounds(sel, 1 if o["simulate"] else int(o["rounds"]), doc)
	name = "sim.json" if o["simulate"] else "mdbench.json"
	hang_rx = os.environ.get("FAKE_MDBENCH_HANG")
	if o["simulate"]:
		hang_rx = ".*" if os.environ.get("FAKE_MDBENCH_HANG_SIMULATE") else None
	if hang_rx and any(re.search(hang_rx, e["name"]) for e in entries):
		hang(o["out"], name, doc, entries, argv, o)
	if not o["simulate"]:
		progress(entries)
	write(o["out"], name, doc, entries, True, argv, o)
	print(f"mdbench: {len(entries)} benchmarks written to {o['out']}/{name}", file=sys.stderr)
	failed = any(e.get("error_occurred") for e in entries)
	return 1 if failed else 0


if __name__ == "__main__":
	sys.exit(main(sys.argv[1:]))
