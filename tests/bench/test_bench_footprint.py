#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The footprint benchmarks' counters in mdbench's own JSON are the exact
bytes ops->footprint() and ops->footprint_hvo() give for the same layout,
mix, RAM size and seed (printed by test_bench_footprint), and the derived
counters follow from them: footprint, and footprint/hvo on every mix (a
database mix with 2 MiB hugetlb folios among them).

usage: test_bench_footprint.py MDBENCH TEST_BENCH_FOOTPRINT
"""

import json
import os
import subprocess
import sys

GiB = 1 << 30
RAMS = {"64MiB": 64 << 20, "256MiB": 256 << 20}
MIXES = {m: m for m in ("desktop", "server", "all-order0", "free")}
MIXES["database-256g"] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
				       "results", "mixes", "database-256g.json")
SEED = 3


def expected(kernel, ram, fields):
	"""The counters a footprint kernel must report, from the printer's fields."""
	memmap, desc, count, reserved, folios, optimised, vmemmap, kept, freed, shared, pgtable = fields
	total = memmap + desc
	want = {"total_bytes": total, "bytes_per_GiB": total / (ram / GiB)}
	if kernel == "footprint":
		want.update({"memmap_bytes": memmap, "desc_bytes": desc, "desc_count": count,
			     "desc_reserved_bytes": reserved, "overhead_pct": total / ram * 100})
		return want
	hvo = total - freed + shared + pgtable
	want.update({"hugetlb_folios": folios, "hvo_optimised_folios": optimised,
		     "hugetlb_memmap_bytes": vmemmap, "hvo_kept_bytes": kept, "hvo_freed_bytes": freed,
		     "hvo_shared_bytes": shared, "hvo_pgtable_bytes": pgtable, "hvo_bytes": hvo,
		     "bytes_per_GiB_hvo": hvo / (ram / GiB), "overhead_pct_hvo": hvo / ram * 100})
	return want


def main(mdbench, printer):
	listed = json.loads(subprocess.run([mdbench, "--list=json", "--counters=none"], check=True,
					   capture_output=True, text=True).stdout)
	descriptors = {l["name"]: l["descriptors"] for l in listed["layouts"]}
	out = subprocess.run(
		[mdbench, "--ram=" + ",".join(RAMS), "--mix=" + ",".join(MIXES.values()),
		 f"--seed={SEED}", "--counters=none", "--benchmark_filter=^footprint",
		 "--benchmark_format=json", "--benchmark_min_time=0.001"],
		check=True, capture_output=True, text=True).stdout
	benches = json.loads(out)["benchmarks"]
	want = 2 * len(RAMS) * len(MIXES) * len(descriptors)
	failures = []
	if len(benches) != want:
		failures.append(f"{len(benches)} footprint benchmarks, expected {want}")
	hugetlb = 0
	for b in benches:
		kernel, layout, mix, ram = b["name"].rsplit("/", 3)
		mix, ram = mix.removeprefix("mix:"), RAMS[ram.removeprefix("ram:")]
		fields = subprocess.run([printer, layout, MIXES[mix], str(ram), str(SEED)], check=True,
					capture_output=True, text=True).stdout.split()
		fields = [int(x) for x in fields]
		desc = fields[1]
		expect = expected(kernel, ram, fields)
		hugetlb += expect.get("hugetlb_folios", 0)
		for key, value in expect.items():
			got = b.get(key)
			if got is None or abs(got - value) > 1e-9 * max(1.0, abs(value)):
				failures.append(f"{b['name']}: {key} = {got}, ops->footprint says {value}")
		if not descriptors[layout] and desc:
			failures.append(f"{b['name']}: {layout} has no descriptors, reported {desc}")
	if not hugetlb:
		failures.append("no footprint/hvo benchmark saw a hugetlb folio")
	for f in failures:
		print(f, file=sys.stderr)
	if failures:
		return 1
	print(f"test_bench_footprint: {len(benches)} footprint benchmarks match ops->footprint(), footprint_hvo()")
	return 0


if __name__ == "__main__":
	sys.exit(main(*sys.argv[1:]))
