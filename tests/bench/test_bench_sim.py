#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""mdbench --simulate against the analytic model, and the shape of sim.json.

usage: test_bench_sim.py MDBENCH BUILD_TYPE model|json|sigint

model: the sequential kernels (convert/*, lookup/seq, scan/compaction,
  init/memmap) of every layout at 256 MiB, where every memmap is 16 times L1
  or more, on the mixes where the model is exact by construction
  (all-order0, free) and on the default desktop mix, with fresh descriptor
  caches (--desc-age=fresh, the model's domain: neighbouring folios,
  neighbouring descriptors): the simulated D1 misses per op must be within
  3% of model_D1_misses, or CONFLICT_FLOOR misses per op where that is more
  (0.005 absolute where the model says 0), which is
  model_D1_streamed + model_D1_dependent (callgrind has no prefetcher: it
  misses on both).  Then the aged default on desktop: where a layout has
  separate folio descriptors, lookup/seq and scan/compaction carry no
  model_D1_misses (the model does not cover scattered descriptors) and miss
  more than fresh (fresh neighbours share the lines of their fields); every
  other benchmark keeps its prediction and matches it.
  compaction/cluster (a mutating kernel, 256 clusters from pfn 0) on desktop
  at 88 MiB, fresh: the model counts one pass of the scan over the LRU in
  its first, random order, and a pass of desktop at 88 MiB is 253 clusters
  (fewer clusters sample the shuffled pageblocks unevenly; a second pass
  meets LRU neighbours it put back in scan order): within 3% on every
  layout.  all-order0 and free have no folio isolation takes.
json: a small run (fresh descriptors, so that every sequential kernel has a
  model); every field SCHEMA.md lists is there with its type, a
  kernel that skips is an error entry with its reason, and the bad inputs
  (no valgrind, no --out) exit 2 with one line.
sigint: SIGINT once the first benchmark is in sim.json: exit 130, the
  finished ones kept with complete false, no temporary left behind.
kill: SIGKILL of the parent mid-run: no valgrind child outlives it, and the
  next --simulate in the same directory removes the temporaries it left.
Exit 77 under the Asan build: valgrind cannot run an ASan binary.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

SEQUENTIAL = ("convert/pfn_to_page", "convert/page_to_pfn", "lookup/seq", "scan/compaction",
	      "init/memmap")
# One cluster of compaction's isolation and migration; modelled per pass (test_model).
CLUSTER = "compaction/cluster"
# A run's directory holds its files and the lock file of the last run that wrote there.
LOCK = ".mdbench.lock"

# Misses per op no model counts: the simulated 32 KiB D1's conflicts, which
# depend on where the process's allocations land.  memdesc8's init/memmap
# (0.25 a pfn) read 0.2565 and then 0.2577 when a struct elsewhere grew by
# 16 bytes; 3% of so few misses is less than that.
CONFLICT_FLOOR = 0.01


def layouts(mdbench):
	"""The layouts of layouts.list, in order, from mdbench --list=json."""
	p = subprocess.run([mdbench, "--list=json", "--counters=none"], capture_output=True,
			   text=True, check=True)
	return [l for l in json.loads(p.stdout)["layouts"]]


def simulate(mdbench, out, args):
	cmd = [mdbench, "--simulate", f"--out={out}"] + args
	p = subprocess.run(cmd, capture_output=True, text=True)
	if p.returncode:
		sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
	with open(os.path.join(out, "sim.json")) as f:
		return json.load(f), p.stderr


def check_model(benches, failures, uncovered=()):
	"""Each benchmark against its model; those in uncovered must have none."""
	for b in benches:
		if b.get("error_occurred"):
			failures.append(f"{b['name']}: {b.get('error_message')}")
			continue
		sim, model = b["sim_D1_misses"], b.get("model_D1_misses")
		if b["name"] in uncovered:
			if model is not None:
				failures.append(f"{b['name']}: a model prediction for aged descriptors")
			continue
		if model is None:
			failures.append(f"{b['name']}: no model_D1_misses")
			continue
		streamed, dependent = b.get("model_D1_streamed", -1), b.get("model_D1_dependent", -1)
		if streamed < 0 or dependent < 0 or abs(streamed + dependent - model) > 1e-9:
			failures.append(f"{b['name']}: model_D1_streamed {streamed} + "
					f"model_D1_dependent {dependent} is not model_D1_misses {model}")
		ok = abs(sim - model) <= (max(0.03 * model, CONFLICT_FLOOR) if model else 0.005)
		print(f"{'ok  ' if ok else 'FAIL'} {b['name']}: simulated {sim:.4f} D1 misses/op, "
		      f"model {model:.4f} ({streamed:.4f} streamed + {dependent:.4f} dependent)")
		if not ok:
			failures.append(f"{b['name']}: simulated {sim:.4f}, model {model:.4f}")


def test_model(mdbench):
	mixes = ("all-order0", "free", "desktop")
	lay = layouts(mdbench)
	filt = "--benchmark_filter=^(" + "|".join(SEQUENTIAL) + ")/"
	failures = []
	with tempfile.TemporaryDirectory() as out:
		fresh, _ = simulate(mdbench, out, ["--ram=256MiB", "--mix=" + ",".join(mixes),
						   "--desc-age=fresh-ordered", filt])
	if fresh["context"]["memdesc_bench"]["conditions"]["desc_age"] != "fresh-ordered":
		failures.append("the fresh run's sim.json does not say fresh")
	want = len(SEQUENTIAL) * len(lay) * len(mixes)
	if len(fresh["benchmarks"]) != want:
		failures.append(f"{len(fresh['benchmarks'])} simulated benchmarks, expected {want}")
	check_model(fresh["benchmarks"], failures)

	with tempfile.TemporaryDirectory() as out:
		cluster, _ = simulate(mdbench, out, ["--ram=88MiB", "--mix=desktop",
						     "--desc-age=fresh-ordered",
						     "--benchmark_filter=^" + CLUSTER + "/"])
	if len(cluster["benchmarks"]) != len(lay):
		failures.append(f"{len(cluster['benchmarks'])} simulated {CLUSTER}, expected {len(lay)}")
	check_model(cluster["benchmarks"], failures)

	with tempfile.TemporaryDirectory() as out:
		aged, _ = simulate(mdbench, out, ["--ram=256MiB", "--mix=desktop", filt])
	by_name = {b["name"]: b for b in fresh["benchmarks"]}
	uncovered = {f"{k}/{l['name']}/mix:desktop/ram:256MiB" for k in ("lookup/seq", "scan/compaction")
		     for l in lay if l["sizeof_folio"]}
	check_model(aged["benchmarks"], failures, uncovered)
	for name in sorted(uncovered):
		a = next((b for b in aged["benchmarks"] if b["name"] == name), None)
		f = by_name.get(name)
		if not a or not f or a.get("error_occurred"):
			failures.append(f"{name}: missing from the aged or the fresh run")
			continue
		ok = a["sim_D1_misses"] > f["sim_D1_misses"]
		print(f"{'ok  ' if ok else 'FAIL'} {name}: aged {a['sim_D1_misses']:.4f} D1 misses/op, "
		      f"fresh {f['sim_D1_misses']:.4f}")
		if not ok:
			failures.append(f"{name}: aged descriptors miss no more than fresh ones")
	return failures


def check_fields(obj, fields, where, failures):
	for key, types in fields.items():
		if key not in obj:
			failures.append(f"{where}: no {key}")
		elif not isinstance(obj[key], types) or isinstance(obj[key], bool) != (types == bool):
			failures.append(f"{where}: {key} is {obj[key]!r}")


def test_json(mdbench):
	failures = []
	num = (int, float)
	# The last layout and the first with descriptors: two, whatever the list holds.
	lay = layouts(mdbench)
	last, desc = lay[-1]["name"], next(l["name"] for l in lay if l["descriptors"])
	# A baseline the run has: the size of the last layout's 64 MiB memmap.
	lat = (64 << 20) // 4096 * lay[-1]["sizeof_page"]
	lat_name = f"baseline/latency/bytes:{lat >> 20}MiB" if lat >= 1 << 20 else \
		   f"baseline/latency/bytes:{lat >> 10}KiB"
	with tempfile.TemporaryDirectory() as out:
		doc, err = simulate(mdbench, out, [
			"--ram=64MiB", "--mix=all-order0", f"--layout={last},{desc}", "--desc-age=fresh-ordered",
			f"--benchmark_filter=^(lookup/seq/{last}|alloc/order9/{desc}|{lat_name})"])
		left = sorted(os.listdir(out))
	if left != [LOCK, "sim.json"]:
		failures.append(f"the run left {left} in its --out directory")
	if "[3/3]" not in err:
		failures.append(f"no progress line [3/3] on stderr: {err!r}")
	mb = doc.get("context", {}).get("memdesc_bench", {})
	check_fields(mb, {"schema_version": int, "complete": bool, "git_commit": str,
			  "layouts": list, "mixes": list, "simulation": dict}, "memdesc_bench", failures)
	if mb.get("complete") is not True:
		failures.append("memdesc_bench.complete is not true after a whole run")
	sim = mb.get("simulation", {})
	check_fields(sim, {"tool": str, "cache": str, "D1": str, "LL": str, "I1": str,
			   "D1_simulated": str, "LL_simulated": str, "ops": dict, "selected": int,
			   "finished": int}, "simulation", failures)
	if sim.get("D1") != "32768,8,64" or sim.get("LL") != "8388608,16,64":
		failures.append(f"the default geometry is not the fixed one: {sim.get('D1')}, {sim.get('LL')}")
	if sim.get("D1_simulated") != "32768 B, 64 B, 8-way associative":
		failures.append(f"callgrind simulated another D1: {sim.get('D1_simulated')}")
	by_name = {b["name"]: b for b in doc.get("benchmarks", [])}
	seq = by_name.get(f"lookup/seq/{last}/mix:all-order0/ram:64MiB")
	if not seq:
		failures.append(f"lookup/seq/{last} missing from {list(by_name)}")
	else:
		check_fields(seq, {"name": str, "run_name": str, "run_type": str, "kernel": str,
				   "layout": str, "mix": str, "ram_bytes": int, "iterations": int,
				   "sim_ops": int, "sim_instructions": num, "sim_D1_misses": num,
				   "sim_LL_misses": num, "model_D1_misses": num, "model_D1_streamed": num,
				   "model_D1_dependent": num, "sim_totals": dict},
			     "lookup/seq", failures)
		if seq.get("run_type") != "simulation" or seq.get("iterations") != sim["ops"].get("lookup/seq"):
			failures.append(f"lookup/seq: run_type {seq.get('run_type')}, "
					f"iterations {seq.get('iterations')}")
		tot = seq.get("sim_totals", {})
		d1 = (tot.get("D1mr", 0) + tot.get("D1mw", 0)) / seq.get("iterations", 1)
		if abs(d1 - seq.get("sim_D1_misses", -1)) > 1e-5:
			failures.append(f"sim_D1_misses {seq.get('sim_D1_misses')} is not (D1mr+D1mw)/items {d1}")
	skip = by_name.get(f"alloc/order9/{desc}/mix:all-order0/ram:64MiB", {})
	if skip.get("error_occurred") is not True or "no free block" not in skip.get("error_message", ""):
		failures.append(f"alloc/order9 on all-order0 is not an error entry with its reason: {skip}")
	base = by_name.get(lat_name, {})
	if base.get("buf_bytes") != lat or "model_D1_misses" in base or \
	   not 0.99 < base.get("sim_D1_misses", 0) < 1.01:
		failures.append(f"baseline/latency: one miss per dependent load expected: {base}")

	with tempfile.TemporaryDirectory() as out:
		env = dict(os.environ, PATH="/nonexistent")
		p = subprocess.run([mdbench, "--simulate", f"--out={out}", "--ram=64MiB"], env=env,
				   capture_output=True, text=True)
		if p.returncode != 2 or "valgrind" not in p.stderr or p.stderr.count("\n") != 1:
			failures.append(f"no valgrind: exit {p.returncode}, {p.stderr!r}")
		p = subprocess.run([mdbench, "--simulate", "--ram=64MiB"], capture_output=True, text=True)
		if p.returncode != 2 or "--out" not in p.stderr or p.stderr.count("\n") != 1:
			failures.append(f"no --out: exit {p.returncode}, {p.stderr!r}")
	return failures


def read_sim(path):
	try:
		with open(path) as f:
			return json.load(f)
	except (OSError, ValueError):
		return None


def test_sigint(mdbench):
	failures = []
	with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as tmp:
		env = dict(os.environ, MDB_SIM_JOBS="1", TMPDIR=tmp)
		p = subprocess.Popen([mdbench, "--simulate", f"--out={out}", "--ram=64MiB",
				      "--layout=" + layouts(mdbench)[-1]["name"], "--mix=all-order0",
				      "--benchmark_filter=^(convert|lookup|scan)/"],
				     env=env, stderr=subprocess.PIPE, text=True)
		path = os.path.join(out, "sim.json")
		deadline = time.time() + 120
		while time.time() < deadline and p.poll() is None:
			doc = read_sim(path)
			if doc and doc["benchmarks"]:
				break
			time.sleep(0.05)
		p.send_signal(signal.SIGINT)
		err = p.communicate(timeout=120)[1]
		doc = read_sim(path)
		if p.returncode != 130 or "interrupted" not in err:
			failures.append(f"exit {p.returncode} after SIGINT: {err!r}")
		if not doc:
			failures.append("no readable sim.json after SIGINT")
		else:
			n = len(doc["benchmarks"])
			if not 1 <= n < 5 or doc["context"]["memdesc_bench"]["complete"] is not False:
				failures.append(f"{n} benchmarks kept, complete "
						f"{doc['context']['memdesc_bench']['complete']}")
		if os.listdir(tmp) or sorted(os.listdir(out)) != [LOCK, "sim.json"]:
			failures.append(f"left behind: {os.listdir(tmp)} in TMPDIR, {os.listdir(out)} in --out")
	return failures


def children_of(out):
	"""Processes still running a --simulate child of the run in out."""
	found = []
	for pid in os.listdir("/proc"):
		try:
			with open(f"/proc/{pid}/cmdline", "rb") as f:
				cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
		except OSError:
			continue
		if f"--sim-instance={out}/" in cmd:
			found.append(pid)
	return found


def test_kill(mdbench):
	"""SIGKILL of the parent: its valgrind children die with it, and the next
	--simulate in the same directory removes what it left."""
	failures = []
	with tempfile.TemporaryDirectory() as out:
		args = [mdbench, "--simulate", f"--out={out}", "--ram=64MiB", "--mix=all-order0",
			"--layout=" + layouts(mdbench)[-1]["name"]]
		p = subprocess.Popen(args + ["--benchmark_filter=^(convert|lookup)/"],
				     stderr=subprocess.DEVNULL)
		path = os.path.join(out, "sim.json")
		deadline = time.time() + 120
		while time.time() < deadline and p.poll() is None:
			doc = read_sim(path)
			if doc and doc["benchmarks"] and children_of(out):
				break
			time.sleep(0.05)
		p.kill()
		p.wait()
		deadline = time.time() + 10
		while children_of(out) and time.time() < deadline:
			time.sleep(0.1)
		if children_of(out):
			failures.append(f"valgrind children left after SIGKILL: {children_of(out)}")
		stale = [f for f in os.listdir(out) if f.startswith(".mdbench-sim.")]
		if not stale:
			failures.append("SIGKILL left no temporary directory: the test did not kill mid-run")
		r = subprocess.run(args + ["--force", "--benchmark_filter=^convert/pfn_to_page/"],
				   capture_output=True, text=True)
		left = sorted(f for f in os.listdir(out) if f.startswith(".mdbench-sim."))
		if r.returncode or left:
			failures.append(f"the next run: exit {r.returncode}, left {left}: {r.stderr!r}")
	return failures


def main(mdbench, build_type, mode):
	if build_type.lower() == "asan":
		print("skipped: valgrind cannot run a binary built with AddressSanitizer")
		return 77
	tests = {"model": test_model, "json": test_json, "sigint": test_sigint, "kill": test_kill}
	failures = tests[mode](mdbench)
	for f in failures:
		print("FAIL", f, file=sys.stderr)
	return 1 if failures else 0


if __name__ == "__main__":
	sys.exit(main(*sys.argv[1:]))
