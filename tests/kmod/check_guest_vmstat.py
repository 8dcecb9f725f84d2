#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""check_guest_vmstat.py LOG [MDBENCH]: the workload the qemu guest ran for
scripts/project (test_kmod_qemu.sh: 32 MiB written to a file in the
initramfs, then /proc/sys/vm/compact_memory), from the /proc/vmstat it
printed before (vmstat0| lines) and after (vmstat1|).

Parsed by scripts/lib/mdb_project.py as project parses /proc/vmstat; the
deltas must hold what the workload did: at least 8192 pages allocated
(pgalloc_* counts 1 << order pages an allocation: 32 MiB of page cache is
8192 pages whatever its folio sizes) and a compaction that scanned pfns.
With MDBENCH, the kernels' vmstat maps from its --list=json turn the deltas
into ops (scripts/project's derived counters among them): the kernel of
derived:alloc_order0 gets at least 8192 less the PMD THPs' pages, the one
compact_migrate_scanned counts at least one.  Prints the deltas and ops.  Exit 1 with the reasons on a failed check.
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
	os.path.realpath(__file__)))), "scripts", "lib"))
import mdb_project as mp  # noqa: E402

PAGES = (32 << 20) // 4096


def reading(lines, tag):
	return mp.parse_vmstat("\n".join(l[len(tag):] for l in lines if l.startswith(tag)),
			       f"guest {tag.strip()}")


def main(log, mdbench=None):
	with open(log, errors="replace") as f:
		lines = f.read().splitlines()
	rec = {"vmstat_before": reading(lines, "vmstat0| "), "vmstat_after": reading(lines, "vmstat1| ")}
	d = mp.deltas(rec)
	bad = []
	pgalloc = mp.matched("pgalloc_*", d)[0] or 0
	if pgalloc < PAGES:
		bad.append(f"pgalloc_* grew by {pgalloc}, want >= {PAGES} (32 MiB written)")
	scanned = d.get("compact_migrate_scanned", 0) + d.get("compact_free_scanned", 0)
	if scanned < 1:
		bad.append("compact_memory scanned no pfn (compact_*_scanned did not grow)")
	print(f"guest workload: pgalloc_* +{pgalloc}, compact_*_scanned +{scanned}, "
	      f"pgfault +{d.get('pgfault')}, pgfree +{d.get('pgfree')}")
	if mdbench:
		out = subprocess.run([mdbench, "--list=json", "--counters=none"], capture_output=True,
				     text=True, check=True).stdout
		kernels = json.loads(out)["kernels"]
		for o in mp.kernel_ops(mp.kernel_map(kernels), mp.counts(d)[0]):
			pats = {t["counter"]: t["ops_per_event"] for t in o["terms"]}
			thp = mp.pmd_allocs(d) << mp.PMD_ORDER
			if "derived:alloc_order0" in pats and o["ops"] < PAGES - thp:
				bad.append(f"{o['kernel']}: {o['ops']} ops from pgalloc_*, want >= "
					   f"{PAGES - thp}")
			if "compact_migrate_scanned" in pats and o["ops"] < 1:
				bad.append(f"{o['kernel']}: no op from the compaction")
			print(f"guest workload: {o['kernel']} {mp.md.fmt(o['ops'])} ops")
	for b in bad:
		print(f"FAIL: {b}")
	return 1 if bad else 0


if __name__ == "__main__":
	sys.exit(main(*sys.argv[1:3]))
