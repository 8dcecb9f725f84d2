#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""check_pmu_guest.py LOG F1 MUX [KEEPDIR]: test_pmu_qemu.sh's checks on the
guest's serial log (its marks, mdbench's --fixed-ops lines, two dumps).

Fixed runs (raw totals from the first op to the last):
  - instructions and arm_n1::INST_RETIRED (one event, encoded by perf's
    table and by libpfm4) agree, and cycles, r11 equal them: under -icount
    shift=0 a cycle is an instruction;
  - the two runs of F1/4 ops agree count for count (page faults aside);
  - convert/pfn_to_page and lookup/seq, whose ops are whole passes over the
    same pfns, count exactly in proportion: T(F1) - T(F1/2) =
    2 (T(F1/2) - T(F1/4)); instructions per op is T(F1/2) - T(F1/4) over
    F1/4.
Every layout of the dump has each kernel.  The Google Benchmark dump: the
PMU named (arm_n1, the guest's MIDR, a virtual machine), L1D_load_misses
unavailable with its reason, arm_n1::L1D_CACHE_REFILL's 0 not a value but
"counted 0 where the model expects N: not trusted" on every entry.
Multiplexed (11 hardware events on lookup/seq/page64): the fixed run
(MUX ops) and the dump each show two or more hardware groups, every group
ran (0 < time_running < time_enabled), the dump's scaled = raw x enabled /
running, its group limit (counters.hw_group_limit) at most the PMU's 7,
and the scaled instructions (fixed run's total; the dump's per op) within
TOL = 1% of the exact count the unmultiplexed proportional runs give.  Why
1%: under -icount shift=0 guest time is one ns per instruction, so a
group's share of time_running is its share of the instructions and
scaling would be exact but for what is not user space (ticks, the
rotation itself: kernel instructions that advance the clock uncounted)
falling unevenly on the groups' windows, and the run's first and last
ops; measured, 0.02% (and the dump's per op also carries the loop's
constant cost over millions of ops).
"""
import json
import re
import sys

log_path, f1, mux = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
keep = sys.argv[4] if len(sys.argv) > 4 else None
TOL = 0.01
lines = open(log_path, errors="replace").read().splitlines()
failures = []


def check(ok, msg):
	if not ok:
		failures.append(msg)
	return ok


def mark(tag):
	for ln in lines:
		if ln.startswith(f"@@ {tag} ") or ln == f"@@ {tag}":
			return ln[len(tag) + 4:]
	return None


def rc(tag):
	m = re.search(r"rc=(\d+)", mark(tag) or "")
	return int(m.group(1)) if m else None


def fixed(tag):
	"""{name: {counter: (raw, running, enabled) or raw}} of a --fixed-ops run."""
	out = {}
	for ln in lines:
		if not ln.startswith(f"{tag}| "):
			continue
		m = re.match(r"(\S+): counters (.*)$", ln[len(tag) + 2:])
		if not m:
			continue
		cs = {}
		for kv in m.group(2).split():
			k, _, v = kv.rpartition("=")
			mm = re.fullmatch(r"(\d+)/(\d+)of(\d+)ns", v)
			cs[k] = tuple(int(x) for x in mm.groups()) if mm else int(v) if v.isdigit() else v
		out[m.group(1)] = cs
	return out


def dump(tag):
	try:
		a = lines.index(f"@@ dump-begin {tag}")
		b = lines.index(f"@@ dump-end {tag}")
	except ValueError:
		return None
	text = "\n".join(lines[a + 1:b])
	if keep:
		with open(f"{keep}/{tag}.json", "w") as f:
			f.write(text)
	try:
		return json.loads(text)
	except ValueError as e:
		check(False, f"dump {tag} does not parse: {e}")
		return None


for tag in ("list", "f8k", "f8k2", "f16k", "f32k", "gb", "fmux", "gbmux"):
	check(rc(tag) == 0, f"mdbench {tag} exited {rc(tag)}")
runs = {n: fixed(t) for n, t in ((f1 // 4, "f8k"), (f1 // 2, "f16k"), (f1, "f32k"))}
again = fixed("f8k2")
gb = dump("gb")
gbmux = dump("gbmux")
if failures or not gb or not gbmux:
	print("\n".join(failures) or "no dumps")
	sys.exit(1)
mb = gb["context"]["memdesc_bench"]
layouts = [x["name"] for x in mb["layouts"]]
kernels = ("convert/pfn_to_page", "lookup/seq", "lookup/random-cold")


def name_of(kernel, layout, run):
	for n in run:
		if n.startswith(f"{kernel}/{layout}/"):
			return n
	return None


# -- the PMU --------------------------------------------------------------------
pmu = mb["counters"].get("pmu") or {}
midr = (mark("midr") or "").strip()
check(pmu.get("libpfm") == "arm_n1", f"libpfm's PMU {pmu.get('libpfm')!r}, want arm_n1")
check(midr and pmu.get("midr_el1") == midr, f"dump's MIDR {pmu.get('midr_el1')!r}, guest's {midr!r}")
check("dummy-virt" in (pmu.get("virtual") or ""), f"the dump does not say virtual: {pmu.get('virtual')!r}")
unavail = {x["name"]: x["reason"] for x in mb["counters"]["unavailable"]}
check("L1D_load_misses" in unavail, "L1D_load_misses is not unavailable in the guest")

# -- fixed runs: exact, repeatable, proportional -----------------------------------
per_op = {}
for k in kernels:
	for lay in layouts:
		n = name_of(k, lay, runs[f1 // 4])
		if not check(n, f"no fixed run of {k} on {lay}"):
			continue
		a = again.get(n, {})
		for cn, v in runs[f1 // 4][n].items():
			if cn != "page_faults":
				check(a.get(cn) == v, f"{n}: {cn} {v} then {a.get(cn)} in a second run")
		t = {ops: run.get(n, {}) for ops, run in runs.items()}
		if k == "lookup/random-cold":	# random pfns: neither whole passes nor proportional
			t = {f1 // 4: t[f1 // 4]}
		ins = {ops: c.get("instructions") for ops, c in t.items()}
		if not check(all(isinstance(v, int) and v > 0 for v in ins.values()),
			     f"{n}: instructions {ins}"):
			continue
		for ops, c in t.items():
			check(c.get("arm_n1::INST_RETIRED") == c["instructions"],
			      f"{n} at {ops}: arm_n1::INST_RETIRED {c.get('arm_n1::INST_RETIRED')} != "
			      f"instructions {c['instructions']}")
			check(c.get("cycles") == c["instructions"] and c.get("r11") == c["instructions"],
			      f"{n} at {ops}: cycles {c.get('cycles')}, r11 {c.get('r11')} != instructions "
			      f"{c['instructions']} (icount shift=0)")
		if k == "lookup/random-cold":
			per_op[(k, lay)] = (ins[f1 // 4] / (f1 // 4),) * 2	# flushes and sweeps included
			continue
		d1 = ins[f1 // 2] - ins[f1 // 4]
		d2 = ins[f1] - ins[f1 // 2]
		check(d2 == 2 * d1, f"{n}: not proportional: +{d1} for {f1 // 4} ops, +{d2} for "
				    f"{f1 // 2}")
		per_op[(k, lay)] = (d1 / (f1 // 4), d2 / (f1 // 2))

# -- the dump: the cache event's 0 -------------------------------------------------
not_trusted = []
for e in gb["benchmarks"]:
	if e.get("run_type", "iteration") != "iteration" or e.get("error_occurred"):
		continue
	nt = e.get("counters_not_trusted", {})
	check("arm_n1::L1D_CACHE_REFILL" not in e,
	      f"{e['name']}: arm_n1::L1D_CACHE_REFILL = {e.get('arm_n1::L1D_CACHE_REFILL')} as a value")
	if e["name"].startswith(("lookup/seq/", "lookup/random-cold/")):
		why = nt.get("arm_n1::L1D_CACHE_REFILL", "")
		check(re.fullmatch(r"counted 0 where the model expects [0-9.e+]+: not trusted", why),
		      f"{e['name']}: not trusted? {nt}")
		not_trusted.append((e["name"], why))
	check(e.get("instructions", 0) > 0, f"{e['name']}: instructions {e.get('instructions')}")

# -- multiplexed -------------------------------------------------------------------
MUXN = "lookup/seq/page64/"
mux_name = name_of("lookup/seq", "page64", runs[f1 // 4])
exact = None
if check(mux_name and (("lookup/seq", "page64") in per_op), "no exact lookup/seq/page64 count"):
	t4, t2 = runs[f1 // 4][mux_name]["instructions"], runs[f1 // 2][mux_name]["instructions"]
	exact = t4 + (mux // (f1 // 4) - 1) * (t2 - t4)	# whole passes: exactly proportional
fm = fixed("fmux").get(mux_name, {})
check(len(fm) == 11, f"fixed multiplexed run: {len(fm)} counters, want 11: {fm}")
check(all(isinstance(v, tuple) and 0 < v[1] < v[2] for v in fm.values()),
      f"fixed multiplexed run: a group did not run, or ran the whole time: {fm}")
check(len({v[1:] for v in fm.values() if isinstance(v, tuple)}) >= 2,
      f"fixed multiplexed run: one group: {fm}")
mux_scaled = {}
for cn in ("instructions", "arm_n1::INST_RETIRED"):
	v = fm.get(cn)
	if exact and check(isinstance(v, tuple), f"fixed multiplexed run: {cn} {v}"):
		mux_scaled[cn] = v[0] * v[2] / v[1]
		check(abs(mux_scaled[cn] / exact - 1) <= TOL,
		      f"fixed multiplexed run: {cn} scaled {mux_scaled[cn]:.0f}, exact {exact} (> {TOL:.0%})")
for a, b in (("cycles", "instructions"), ("r11", "arm_n1::INST_RETIRED")):
	check(fm.get(a) == fm.get(b), f"fixed multiplexed run: {a} {fm.get(a)} != {b} {fm.get(b)} "
	      "(one group, icount shift=0)")

mc = gbmux["context"]["memdesc_bench"]["counters"]
lim = mc.get("hw_group_limit") or {}
check(mc.get("hw_groups", 0) >= 2, f"multiplexed dump: hw_groups {mc.get('hw_groups')}")
check(0 < lim.get("events", 0) <= 7, f"multiplexed dump: hw_group_limit {lim}")
hw = [c["name"] for c in mc["available"] if c["name"] != "page_faults"]
check(len(hw) == 11 and len({c["group"] for c in mc["available"]}) >= 2,
      f"multiplexed dump: available {mc['available']}")
mux_entries = [e for e in gbmux["benchmarks"] if e["name"].startswith(MUXN) and
	       e.get("run_type", "iteration") == "iteration"]
check(mux_entries, "multiplexed dump: no lookup/seq/page64 entry")
for e in mux_entries:
	sc = e.get("counter_scaling", {})
	for cn in hw:
		x = sc.get(cn)
		if not check(x, f"{e['name']}: no scaling for {cn}: {sc}"):
			continue
		check(0 < x["time_running_ns"] < x["time_enabled_ns"], f"{e['name']}: {cn} {x}")
		check(abs(x["scaled"] - x["raw"] * x["time_enabled_ns"] / x["time_running_ns"])
		      <= 1e-9 * max(x["scaled"], 1), f"{e['name']}: {cn} scaled {x}")
	if exact:
		for cn in ("instructions", "arm_n1::INST_RETIRED"):
			want = per_op[("lookup/seq", "page64")][0]
			check(abs(e.get(cn, 0) / want - 1) <= TOL,
			      f"{e['name']}: {cn} {e.get(cn)} per op, exact {want} (> {TOL:.0%})")

# -- what it showed -----------------------------------------------------------------------
print(f"PMU: {mark('pmu')}; libpfm {pmu.get('libpfm')} ({pmu.get('libpfm_desc')}), MIDR_EL1 {midr}, "
      f"CPU part {mark('cpupart')}; virtual: {pmu.get('virtual')}")
print(f"layouts (the dump's): {', '.join(layouts)}")
print(f"instructions per op, exact (fixed runs: T({f1 // 2})-T({f1 // 4}) over {f1 // 4} ops, then "
      f"over the next {f1 // 2}; lookup/random-cold: T({f1 // 4}) over {f1 // 4}, its flushes and TLB "
      "sweeps included):")
for k in kernels:
	print(f"  {k}: " + ", ".join(f"{lay} {per_op[(k, lay)][0]:.4f}" +
				      ("" if per_op[(k, lay)][0] == per_op[(k, lay)][1] else f"/{per_op[(k, lay)][1]:.4f}")
				      for lay in layouts if (k, lay) in per_op))
print("cycles: recorded, equal to instructions in every fixed run: under -icount shift=0 qemu's "
      "cycle counter is instructions x 2^0, not time")
print("model/callgrind instructions per op on aarch64: the suite has none (the model predicts data "
      "lines; sim.json's Ir is the host's x86-64 build)")
for n, why in not_trusted[:3]:
	print(f"not trusted: {n}: arm_n1::L1D_CACHE_REFILL: {why}")
if exact and len(mux_scaled) == 2:
	print(f"multiplexed (fixed, {mux} ops of {mux_name}): exact instructions {exact}; " + "; ".join(
	      f"{cn} raw {fm[cn][0]} over {fm[cn][1]} of {fm[cn][2]} ns, scaled {mux_scaled[cn]:.0f} "
	      f"({100 * (mux_scaled[cn] / exact - 1):+.4f}%)" for cn in mux_scaled))
	print(f"multiplexed: turns of {mark('muxms')} ms; groups limited to {lim.get('events')} events ({lim.get('why')}); the dump's "
	      "per op: " + "; ".join(f"{e['name']}: instructions {e.get('instructions')}, "
				     f"scaling {e.get('counter_scaling', {}).get('instructions')}"
				     for e in mux_entries[:1]))
print(f"L1D_load_misses: unavailable: {unavail.get('L1D_load_misses')}")
if failures:
	print("\n".join(f"FAIL: {f}" for f in failures[:40]))
	sys.exit(1)
