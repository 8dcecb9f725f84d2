#!/usr/bin/python3
"""A stand-in for mdbench that scripts/collect's tests run instead of the real
one: same --list output, same dump files, from the fixture dumps and in no
time.  It answers --list, --out=DIR, --benchmark_filter=, --mix=, --layout=,
--profile=, --simulate, and rejects other options of ours as mdbench does
(one line, exit 2).

FAKE_MDBENCH_HANG=REGEX: when a selected benchmark matches, write the dump
so far (complete: false), print "hanging" on stderr and wait for SIGINT or
SIGTERM, then exit 128+sig as mdbench does.
FAKE_MDBENCH_HANG_SIMULATE=1: the same, in the --simulate run.
FAKE_MDBENCH_LOG=FILE: append each argv, one per line, to FILE.
"""

import json
import os
import re
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures", "dumps")


def die(msg):
	print(f"mdbench: {msg}", file=sys.stderr)
	sys.exit(2)


def parse(argv):
	o = {"filter": "", "mix": "desktop", "layout": None, "profile": "quick", "out": None,
	     "list": False, "simulate": False}
	for a in argv:
		if a.startswith("--benchmark_filter="):
			o["filter"] = a.split("=", 1)[1]
		elif a.startswith("--benchmark_"):
			pass
		elif a == "--list":
			o["list"] = True
		elif a == "--simulate":
			o["simulate"] = True
		elif a.startswith(("--mix=", "--layout=", "--profile=", "--out=", "--counters=",
				   "--cpu=", "--node=", "--seed=", "--ram=")):
			k, v = a[2:].split("=", 1)
			o[k] = v
		elif a == "--hugepage":
			pass
		else:
			die(f"unknown option '{a}' (mdbench --help lists them)")
	if o["profile"] not in ("quick", "full"):
		die(f"unknown --profile={o['profile']} (quick or full)")
	return o


def mix_name(arg):
	if arg.endswith(".json"):
		with open(arg) as f:
			return json.load(f)["name"]
	return arg


def selected(doc, o):
	mixes = [mix_name(m) for m in o["mix"].split(",")]
	layouts = o["layout"].split(",") if o["layout"] else None
	try:
		rx = re.compile(o["filter"])
	except re.error:
		die(f"--benchmark_filter={o['filter']}: not a regular expression")
	out = []
	for e in doc["benchmarks"]:
		name = e["name"]
		parts = name.split("/")
		mix = [p[4:] for p in parts if p.startswith("mix:")]
		if mix and mix[0] not in mixes and not (mixes == ["kpageflags"]):
			continue
		if layouts and mix and not any(f"/{l}/" in name for l in layouts):
			continue
		if rx.search(name):
			if mixes == ["kpageflags"] and mix:
				e = dict(e, name=name.replace(f"mix:{mix[0]}", "mix:kpageflags"),
					 run_name=name.replace(f"mix:{mix[0]}", "mix:kpageflags"))
			out.append(e)
	return out


def write(out, name, doc, entries, complete, argv, o):
	doc = json.loads(json.dumps(doc))
	mb = doc["context"]["memdesc_bench"]
	mb["complete"], mb["argv"], mb["profile"] = complete, ["mdbench", *argv], o["profile"]
	mb["filter"], mb["nr_selected"] = o["filter"], len(entries)
	doc["benchmarks"] = entries
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
	with open(os.path.join(FIX, "one", "mdbench.json")) as f:
		doc = json.load(f)
	if o["simulate"]:
		with open(os.path.join(FIX, "sim", "sim.json")) as f:
			doc = json.load(f)
	entries = selected(doc, o)
	if o["list"]:
		print(f"benchmarks ({len(entries)}):")
		for e in entries:
			print(f"  {e['name']}")
		print("layouts:")
		for l in doc["context"]["memdesc_bench"]["layouts"]:
			print(f"  {l['name']:<10} sizeof(struct page) {l['sizeof_page']}")
		print("counters:\n  page_faults        page-faults                            available")
		print("mixes built in: desktop server")
		return 0
	if not o["out"]:
		die("fake mdbench wants --out")
	name = "sim.json" if o["simulate"] else "mdbench.json"
	hang_rx = os.environ.get("FAKE_MDBENCH_HANG")
	if o["simulate"]:
		hang_rx = ".*" if os.environ.get("FAKE_MDBENCH_HANG_SIMULATE") else None
	if hang_rx and any(re.search(hang_rx, e["name"]) for e in entries):
		hang(o["out"], name, doc, entries, argv, o)
	write(o["out"], name, doc, entries, True, argv, o)
	print(f"mdbench: {len(entries)} benchmarks written to {o['out']}/{name}", file=sys.stderr)
	return 0


if __name__ == "__main__":
	sys.exit(main(sys.argv[1:]))
