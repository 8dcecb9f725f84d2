#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The footprint benchmark's counters in mdbench's own JSON are the exact
bytes ops->footprint() gives for the same layout, mix, RAM size and seed
(printed by test_bench_footprint), and the derived counters follow from them.

usage: test_bench_footprint.py MDBENCH TEST_BENCH_FOOTPRINT
"""

import json
import subprocess
import sys

GiB = 1 << 30
RAMS = {"64MiB": 64 << 20, "256MiB": 256 << 20}
MIXES = ("desktop", "server", "all-order0", "free")
SEED = 3


def main(mdbench, printer):
	listed = json.loads(subprocess.run([mdbench, "--list=json", "--counters=none"], check=True,
					   capture_output=True, text=True).stdout)
	descriptors = {l["name"]: l["descriptors"] for l in listed["layouts"]}
	out = subprocess.run(
		[mdbench, "--ram=" + ",".join(RAMS), "--mix=" + ",".join(MIXES), f"--seed={SEED}",
		 "--counters=none", "--benchmark_filter=^footprint/", "--benchmark_format=json",
		 "--benchmark_min_time=0.001"],
		check=True, capture_output=True, text=True).stdout
	benches = json.loads(out)["benchmarks"]
	want = len(RAMS) * len(MIXES) * len(descriptors)
	failures = []
	if len(benches) != want:
		failures.append(f"{len(benches)} footprint benchmarks, expected {want}")
	for b in benches:
		kernel, layout, mix, ram = b["name"].split("/")
		mix, ram = mix.removeprefix("mix:"), RAMS[ram.removeprefix("ram:")]
		fields = subprocess.run([printer, layout, mix, str(ram), str(SEED)], check=True,
					capture_output=True, text=True).stdout.split()
		memmap, desc, count, reserved = (int(x) for x in fields)
		total = memmap + desc
		expect = {
			"memmap_bytes": memmap, "desc_bytes": desc, "desc_count": count,
			"desc_reserved_bytes": reserved, "total_bytes": total,
			"bytes_per_GiB": total / (ram / GiB), "overhead_pct": total / ram * 100,
		}
		for key, value in expect.items():
			got = b.get(key)
			if got is None or abs(got - value) > 1e-9 * max(1.0, abs(value)):
				failures.append(f"{b['name']}: {key} = {got}, ops->footprint says {value}")
		if not descriptors[layout] and desc:
			failures.append(f"{b['name']}: {layout} has no descriptors, reported {desc}")
	for f in failures:
		print(f, file=sys.stderr)
	if failures:
		return 1
	print(f"test_bench_footprint: {len(benches)} footprint benchmarks match ops->footprint")
	return 0


if __name__ == "__main__":
	sys.exit(main(*sys.argv[1:]))
