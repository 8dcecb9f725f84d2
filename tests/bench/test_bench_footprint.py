#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The footprint benchmarks' counters in mdbench's own JSON are the exact
bytes ops->footprint() and ops->footprint_hvo() give for the same layout,
mix, RAM size, seed and folio descriptor size (printed by
test_bench_footprint), and the derived counters follow from them: footprint
and footprint/hvo on every mix (a database mix with 2 MiB hugetlb folios
among them); a --folio-desc-bytes sweep gives one footprint per size to
every layout with folio descriptors (named .../folio:<N>B) and one to every
other layout.

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
FOLIO = (64, 96)
KERNELS = ("footprint", "footprint/hvo")


def expected(kernel, ram, fields):
	"""The counters a footprint kernel must report, from the printer's fields."""
	(memmap, desc, count, reserved, folio_bytes,
	 folios, optimised, vmemmap, kept, freed, shared, pgtable) = fields
	total = memmap + desc
	want = {"total_bytes": total, "bytes_per_GiB": total / (ram / GiB)}
	if kernel == "footprint":
		want.update({"memmap_bytes": memmap, "desc_bytes": desc, "desc_count": count,
			     "desc_reserved_bytes": reserved, "overhead_pct": total / ram * 100,
			     "folio_desc_bytes": folio_bytes})
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
	folios = {l["name"]: l["sizeof_folio"] > 0 for l in listed["layouts"]}
	failures, hugetlb = [], 0
	for sweep in ((), FOLIO):
		f, h = check_run(mdbench, printer, descriptors, folios, sweep)
		failures += f
		hugetlb += h
	if not hugetlb:
		failures.append("no footprint/hvo benchmark saw a hugetlb folio")
	for f in failures:
		print(f, file=sys.stderr)
	if failures:
		return 1
	print("test_bench_footprint: every footprint benchmark matches ops->footprint(), footprint_hvo()")
	return 0


def check_run(mdbench, printer, descriptors, folios, sweep):
	args = [mdbench, "--ram=" + ",".join(RAMS), "--mix=" + ",".join(MIXES.values()),
		f"--seed={SEED}", "--counters=none", "--benchmark_filter=^footprint",
		"--benchmark_format=json", "--benchmark_min_time=0.001"]
	if sweep:
		args.append("--folio-desc-bytes=" + ",".join(map(str, sweep)))
	out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
	benches = json.loads(out)["benchmarks"]
	per_mix = sum(len(sweep) if sweep and folios[l] else 1 for l in descriptors)
	want = len(KERNELS) * len(RAMS) * len(MIXES) * per_mix
	failures, hugetlb = [], 0
	if len(benches) != want:
		failures.append(f"{len(benches)} footprint benchmarks with {sweep}, expected {want}")
	for b in benches:
		name = b["name"].split("/")
		split = 2 if name[1] == "hvo" else 1
		kernel, (layout, mix, ram, *folio) = "/".join(name[:split]), name[split:]
		mix, ram = mix.removeprefix("mix:"), RAMS[ram.removeprefix("ram:")]
		size = int(folio[0].removeprefix("folio:").removesuffix("B")) if folio else 0
		if bool(folio) != bool(sweep and folios[layout]):
			failures.append(f"{b['name']}: a folio part where none belongs, or none where one does")
		fields = subprocess.run([printer, layout, MIXES[mix], str(ram), str(SEED), str(size)],
					check=True, capture_output=True, text=True).stdout.split()
		fields = [int(x) for x in fields]
		if size and fields[4] != size:
			failures.append(f"{b['name']}: ops->footprint counts {fields[4]}-byte folios")
		expect = expected(kernel, ram, fields)
		hugetlb += expect.get("hugetlb_folios", 0)
		for key, value in expect.items():
			got = b.get(key)
			if got is None or abs(got - value) > 1e-9 * max(1.0, abs(value)):
				failures.append(f"{b['name']}: {key} = {got}, ops->footprint says {value}")
		if not descriptors[layout] and fields[1]:
			failures.append(f"{b['name']}: {layout} has no descriptors, reported {fields[1]}")
	return failures, hugetlb


if __name__ == "__main__":
	sys.exit(main(*sys.argv[1:]))
