#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The footprint benchmark's counters in mdbench's own JSON are the exact
bytes ops->footprint() and memmap_measure() give for the same layout, mix,
RAM size, seed, folio descriptor size and HVO mode (printed by
test_bench_footprint), and the derived counters follow from them: on every
mix, a database mix with 2 MiB hugetlb folios among them, which runs with
HVO off and on (hvo:off, hvo:on); with HVO on the memmap the process holds
(its memfd's pages) is the computed one to the byte.  A --folio-desc-bytes
sweep gives one footprint per size to every layout with folio descriptors
(named .../folio:<N>B) and one to every other layout.

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
HUGETLB = {"database-256g"}


def expected(ram, hvo, fields):
	"""The counters footprint must report, from the printer's fields."""
	(entries, desc, count, reserved, folio_bytes, folios, optimised, vmemmap, kept, freed,
	 shared, pgtable, mappings, m_memmap, m_desc, held_desc, slab_cpus) = fields
	memmap = entries - freed + shared
	total = memmap + desc + pgtable
	held = memmap + held_desc + pgtable
	want = {"memmap_bytes": memmap, "desc_bytes": desc, "desc_count": count,
		"desc_reserved_bytes": reserved, "folio_desc_bytes": folio_bytes,
		"total_bytes": total, "bytes_per_GiB": total / (ram / GiB),
		"overhead_pct": total / ram * 100, "desc_held_bytes": held_desc,
		"held_bytes": held, "held_bytes_per_GiB": held / (ram / GiB), "slab_cpus": slab_cpus}
	if hvo == "on":
		want.update({"hugetlb_folios": folios, "hvo_optimised_folios": optimised,
			     "hugetlb_memmap_bytes": vmemmap, "hvo_kept_bytes": kept,
			     "hvo_freed_bytes": freed, "hvo_shared_bytes": shared,
			     "hvo_pgtable_bytes": pgtable, "hvo_mappings": mappings,
			     "measured_memmap_bytes": m_memmap})
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
		failures.append("no footprint benchmark with HVO on remapped a hugetlb folio")
	for f in failures:
		print(f, file=sys.stderr)
	if failures:
		return 1
	print("test_bench_footprint: every footprint benchmark matches ops->footprint(), memmap_measure()")
	return 0


CACHE_OTHERS = ("align16", "rcu-tail", "hwcache")


def check_run(mdbench, printer, descriptors, folios, sweep):
	args = [mdbench, "--ram=" + ",".join(RAMS), "--mix=" + ",".join(MIXES.values()),
		f"--seed={SEED}", "--counters=none", "--benchmark_filter=^footprint/",
		"--benchmark_format=json", "--benchmark_min_time=0.001"]
	if sweep:
		args.append("--folio-desc-bytes=" + ",".join(map(str, sweep)))
	out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
	benches = json.loads(out)["benchmarks"]
	per_mix = sum(len(sweep) if sweep and folios[l] else 1 for l in descriptors)
	# and per layout with folio descriptors, one report group for each
	# --desc-cache option besides the run's (rcu): align16, rcu-tail, hwcache
	per_mix += len(CACHE_OTHERS) * sum(folios.values())
	want = len(RAMS) * (len(MIXES) + len(HUGETLB)) * per_mix
	failures, hugetlb = [], 0
	if len(benches) != want:
		failures.append(f"{len(benches)} footprint benchmarks with {sweep}, expected {want}")
	runs = []
	for b in benches:
		kernel, layout, mix, ram, *rest = b["name"].split("/")
		params = dict(p.split(":", 1) for p in rest)
		mix, ram = mix.removeprefix("mix:"), RAMS[ram.removeprefix("ram:")]
		size = int(params.get("folio", "0B").removesuffix("B"))
		hvo = params.get("hvo")
		if params.get("cache", "rcu") not in CACHE_OTHERS + ("rcu",):
			failures.append(f"{b['name']}: an unknown cache option")
		if ("folio" in params) != bool(sweep and folios[layout] and "cache" not in params):
			failures.append(f"{b['name']}: a folio part where none belongs, or none where one does")
		if (hvo is not None) != (mix in HUGETLB):
			failures.append(f"{b['name']}: an hvo part where none belongs, or none where one does")
		# a report group of another --desc-cache option is built with that option
		cache = [params["cache"]] if "cache" in params else []
		runs.append((b, layout, ram, size, hvo,
			     [layout, MIXES[mix], str(ram), str(SEED), str(size), hvo or "off", *cache]))
	# one printer for every build, in the dump's order (a mix and size together)
	printed = subprocess.run([printer, "-"], input="".join(" ".join(r[-1]) + "\n" for r in runs),
				 check=True, capture_output=True, text=True).stdout.splitlines()
	if len(printed) != len(runs):
		return failures + [f"the printer answered {len(printed)} of {len(runs)} builds"], hugetlb
	for (b, layout, ram, size, hvo, _), line in zip(runs, printed):
		fields = [int(x) for x in line.split()]
		if size and fields[4] != size:
			failures.append(f"{b['name']}: ops->footprint counts {fields[4]}-byte folios")
		expect = expected(ram, hvo, fields)
		if hvo == "on":
			hugetlb += expect["hvo_optimised_folios"]
			if expect["measured_memmap_bytes"] != expect["memmap_bytes"]:
				failures.append(f"{b['name']}: the memfd holds {expect['measured_memmap_bytes']}"
						f" bytes, {expect['memmap_bytes']} computed")
		for key, value in expect.items():
			got = b.get(key)
			if got is None or abs(got - value) > 1e-9 * max(1.0, abs(value)):
				failures.append(f"{b['name']}: {key} = {got}, ops->footprint says {value}")
		for key in ("measured_memmap_bytes", "measured_desc_bytes", "measured_bytes"):
			if key not in b:
				failures.append(f"{b['name']}: no {key}")
		if not descriptors[layout] and fields[1]:
			failures.append(f"{b['name']}: {layout} has no descriptors, reported {fields[1]}")
	return failures, hugetlb


if __name__ == "__main__":
	sys.exit(main(*sys.argv[1:]))
