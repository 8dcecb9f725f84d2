#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The footprint benchmark's counters in mdbench's own JSON are the exact
bytes ops->footprint() gives for the same layout, mix, RAM size, seed and
folio descriptor size (printed by test_bench_footprint), and the derived
counters follow from them; a --folio-desc-bytes sweep gives one footprint per
size to every layout with folio descriptors (named .../folio:<N>B) and one to
every other layout.

usage: test_bench_footprint.py MDBENCH TEST_BENCH_FOOTPRINT
"""

import json
import subprocess
import sys

GiB = 1 << 30
RAMS = {"64MiB": 64 << 20, "256MiB": 256 << 20}
MIXES = ("desktop", "server", "all-order0", "free")
SEED = 3
FOLIO = (64, 96)


def main(mdbench, printer):
	listed = json.loads(subprocess.run([mdbench, "--list=json", "--counters=none"], check=True,
					   capture_output=True, text=True).stdout)
	descriptors = {l["name"]: l["descriptors"] for l in listed["layouts"]}
	folios = {l["name"]: l["sizeof_folio"] > 0 for l in listed["layouts"]}
	failures = []
	for sweep in ((), FOLIO):
		failures += check_run(mdbench, printer, descriptors, folios, sweep)
	for f in failures:
		print(f, file=sys.stderr)
	if failures:
		return 1
	print("test_bench_footprint: every footprint benchmark matches ops->footprint")
	return 0


def check_run(mdbench, printer, descriptors, folios, sweep):
	args = [mdbench, "--ram=" + ",".join(RAMS), "--mix=" + ",".join(MIXES), f"--seed={SEED}",
		"--counters=none", "--benchmark_filter=^footprint/", "--benchmark_format=json",
		"--benchmark_min_time=0.001"]
	if sweep:
		args.append("--folio-desc-bytes=" + ",".join(map(str, sweep)))
	out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
	benches = json.loads(out)["benchmarks"]
	per_mix = sum(len(sweep) if sweep and folios[l] else 1 for l in descriptors)
	want = len(RAMS) * len(MIXES) * per_mix
	failures = []
	if len(benches) != want:
		failures.append(f"{len(benches)} footprint benchmarks with {sweep}, expected {want}")
	for b in benches:
		kernel, layout, mix, ram, *folio = b["name"].split("/")
		mix, ram = mix.removeprefix("mix:"), RAMS[ram.removeprefix("ram:")]
		size = int(folio[0].removeprefix("folio:").removesuffix("B")) if folio else 0
		if bool(folio) != bool(sweep and folios[layout]):
			failures.append(f"{b['name']}: a folio part where none belongs, or none where one does")
		fields = subprocess.run([printer, layout, mix, str(ram), str(SEED), str(size)],
					check=True, capture_output=True, text=True).stdout.split()
		memmap, desc, count, reserved, folio_bytes = (int(x) for x in fields)
		total = memmap + desc
		expect = {
			"memmap_bytes": memmap, "desc_bytes": desc, "desc_count": count,
			"desc_reserved_bytes": reserved, "total_bytes": total,
			"bytes_per_GiB": total / (ram / GiB), "overhead_pct": total / ram * 100,
			"folio_desc_bytes": folio_bytes,
		}
		if size and folio_bytes != size:
			failures.append(f"{b['name']}: ops->footprint counts {folio_bytes}-byte folios")
		for key, value in expect.items():
			got = b.get(key)
			if got is None or abs(got - value) > 1e-9 * max(1.0, abs(value)):
				failures.append(f"{b['name']}: {key} = {got}, ops->footprint says {value}")
		if not descriptors[layout] and desc:
			failures.append(f"{b['name']}: {layout} has no descriptors, reported {desc}")
	return failures


if __name__ == "__main__":
	sys.exit(main(*sys.argv[1:]))
