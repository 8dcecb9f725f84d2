#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""check_guest_trace.py LOG TRACE MDBENCH: the workload of
test_project_qemu.sh, its ops per kernel as scripts/project counts them
from the guest's /proc/vmstat alone (vmstat0| and vmstat1| lines of LOG;
the derived counters without a trace) against those the guest's ftrace log
TRACE counts (scripts/lib/mdb_project.py's trace_counts(): the same kernel
maps, the trace's events in place of what they count), with MDBENCH's
kernel maps (--list=json).  Every kernel one of whose counters the trace
counts must agree within TOLERANCE of the trace's count, and the workload
must have allocated and compacted (ops on alloc/order0 and scan/compaction).
Prints the table; exit 1 with the reasons on a failed check.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts", "lib"))
sys.path.insert(0, HERE)
import mdb_project as mp  # noqa: E402
from check_guest_vmstat import reading  # noqa: E402

TOLERANCE = 0.05
MUST_HAVE_OPS = ("alloc/order0", "scan/compaction")


def traced_counters(traced):
	"""The counters a trace stands for: the vmstat ones its events count and
	the derived ones made from its events."""
	out = {k for k in traced if not k.startswith("trace:")}
	if any(k.startswith("trace:alloc_order") for k in traced):
		out |= {mp.DERIVED_PREFIX + k for k in ("alloc_order0", "alloc_large", "alloc_order9")}
	if "trace:compact_isolated_migrate" in traced:
		out |= {mp.DERIVED_PREFIX + k for k in ("compact_isolated_migrate", "compact_isolated_free")}
	return out


def main(log, trace, mdbench):
	with open(log, errors="replace") as f:
		lines = f.read().splitlines()
	delta = mp.deltas({"vmstat_before": reading(lines, "vmstat0| "),
			   "vmstat_after": reading(lines, "vmstat1| ")})
	traced, events = mp.read_trace(trace)
	listing = subprocess.run([mdbench, "--list=json", "--counters=none"], capture_output=True,
				 text=True, check=True).stdout
	kmap = mp.kernel_map(json.loads(listing)["kernels"], "mdbench --list=json")
	by_vm = {o["kernel"]: o for o in mp.kernel_ops(kmap, mp.counts(delta)[0])}
	by_tr = {o["kernel"]: o for o in mp.kernel_ops(kmap, mp.counts(delta, traced)[0])}
	covered = traced_counters(traced)
	bad, rows = [], []
	for k, terms in kmap.items():
		vm, tr = by_vm[k]["ops"], by_tr[k]["ops"]
		checked = any(p in covered for p, _ in terms)
		diff = (vm - tr) / tr if tr else (0.0 if vm == tr else float("inf"))
		if checked and abs(diff) > TOLERANCE:
			bad.append(f"{k}: {mp.md.fmt(vm)} ops from vmstat, {mp.md.fmt(tr)} from the trace "
				   f"({diff:+.2%}, more than {TOLERANCE:.0%})")
		rows.append([k, ", ".join(p for p, _ in terms), mp.md.fmt(vm),
			     mp.md.fmt(tr) if checked else "not traced",
			     f"{diff:+.2%}" if checked and tr else "-"])
	for k in MUST_HAVE_OPS:
		if k in by_tr and not by_tr[k]["ops"] > 0:
			bad.append(f"{k}: the workload took no op of it")
	print(f"guest trace: {', '.join(f'{e} x{n}' for e, n in sorted(events.items()))}")
	print("\n".join(mp.md.md_table(["kernel", "counters", "ops from vmstat", "ops from the trace",
				      "vmstat / trace - 1"], rows)).rstrip())
	vm_all, how = mp.counts(delta)
	tr_all = mp.counts(delta, traced)[0]
	print("\n".join(mp.md.md_table(["derived counter", "from vmstat", "from the trace",
					 "how, from vmstat alone"],
					[[c, mp.md.fmt(vm_all[c]), mp.md.fmt(tr_all.get(c)), h]
					 for c, h in how.items()])).rstrip())
	for b in bad:
		print(f"FAIL: {b}")
	return 1 if bad else 0


if __name__ == "__main__":
	if len(sys.argv) != 4:
		sys.exit(__doc__.split("\n\n")[0])
	sys.exit(main(*sys.argv[1:4]))
