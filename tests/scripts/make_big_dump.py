#!/usr/bin/python3
"""make_big_dump.py DIR [--benchmarks N] [--rounds R]

Writes DIR/mdbench.json: a schema-2 dump of N benchmarks (default 10,000),
each with R rounds (default 5), shaped like a collect bundle from a lab
machine with a PMU: 4 layouts, 27 timed kernels over 2 mixes and 5 RAM
sizes with fresh and aged descriptors on 4 KiB and 2 MiB memmap pages, 5 of
them also on 2 to 64 threads, the footprint over 8 mixes at 4 descriptor
sizes with HVO off and on, baselines, 7 counters (one 0 everywhere).
Times follow a formula with a little deterministic noise.  For
bench_plot.py, which times scripts/plot on it.
"""

import argparse
import itertools
import json
import os
import random

GiB, MiB = 1 << 30, 1 << 20


def main():
	p = argparse.ArgumentParser(prog="make_big_dump")
	p.add_argument("dir")
	p.add_argument("--benchmarks", type=int, default=10000)
	p.add_argument("--rounds", type=int, default=5)
	a = p.parse_args()
	rng = random.Random(1)
	layouts = [{"name": n, "sizeof_page": s, "sizeof_folio": f, "descriptors": f > 0,
		    "desc_sizes": {"folio": f, "folio_large": 64 if f else 0, "slab": 64 if f else 0,
				   "ptdesc": 64 if f else 0, "zpdesc": 32 if f else 0,
				   "netmem": 48 if f else 0}}
		   for n, s, f in (("ref64", 64, 0), ("ci64", 64, 0), ("half32", 32, 80),
				   ("tag8", 8, 80))]
	classes = ["sequential", "dependent", "mutating"]
	kernels = [{"name": f"k{i:02d}/{'seq' if i % 3 == 0 else 'op'}{i}", "class": classes[i % 3],
		    "unit": "op", "mutates": i % 3 == 2, "model": i % 3 == 0, "sim_ops": 65536}
		   for i in range(27)]
	kernels += [{"name": "footprint", "class": "report", "unit": "none", "mutates": False,
		     "model": False, "sim_ops": 0},
		    {"name": "baseline/latency", "class": "baseline", "unit": "load",
		     "mutates": False, "model": False, "sim_ops": 0},
		    {"name": "baseline/bandwidth", "class": "baseline", "unit": "line",
		     "mutates": False, "model": False, "sim_ops": 0}]
	rams = [("256MiB", 256 * MiB), ("1GiB", GiB), ("4GiB", 4 * GiB), ("16GiB", 16 * GiB),
		("64GiB", 64 * GiB)]
	counters = ["cycles", "instructions", "L1D_load_misses", "LLC_load_misses",
		    "dTLB_load_misses", "page_faults", "context_switches"]
	names = []		# (name, kind, threads, base ns, layout index, ram bytes)
	for k in kernels[:27]:
		threads = (1, 2, 4, 8, 16, 32, 64) if int(k["name"][1:3]) < 5 else (1,)
		for t, mix, (rn, rb), (li, l), age, pages in itertools.product(
				threads, ("desktop", "server"), rams, enumerate(layouts),
				("fresh", "aged"), ("4k", "2m")):
			name = f"{k['name']}/{l['name']}/mix:{mix}/ram:{rn}/age:{age}/pages:{pages}"
			if t > 1:
				name += f"/threads:{t}"
			names.append((name, "timed", t, 2.0 + (rb / GiB) ** 0.3 * (1 + li / 4), li, rb))
	fmixes = ["desktop", "server", "all-order0", "free", "vmhost", "dbserver", "mixA", "mixB"]
	for mix, (li, l), (rn, rb), d, hvo in itertools.product(
			fmixes, enumerate(layouts), rams, (64, 80, 96, 128), ("off", "on")):
		names.append((f"footprint/{l['name']}/mix:{mix}/ram:{rn}/folio:{d}B/hvo:{hvo}",
			      "footprint", 1, 1000.0, li, rb))
	for kind in ("latency", "bandwidth"):
		for b in (4, 16, 64, 256, 1024):
			names.append((f"baseline/{kind}/bytes:{b}MiB", kind, 1, 1.0 + b / 100, 0, 0))
	rng.shuffle(names)
	names = names[:a.benchmarks]
	entries = []
	for r in range(a.rounds):
		for fam, (name, kind, t, ns, li, rb) in enumerate(names):
			noise = 1 + rng.uniform(-0.03, 0.03)
			e = {"name": name, "run_name": name, "run_type": "iteration",
			     "family_index": fam + r * len(names), "per_family_instance_index": 0,
			     "repetitions": 1, "repetition_index": 0, "threads": t,
			     "iterations": 100000, "real_time": ns * noise, "cpu_time": ns * noise,
			     "time_unit": "ns"}
			if kind == "timed":
				e.update({c: (0.0 if c == "context_switches" else ns * (i + 1) * noise)
					  for i, c in enumerate(counters)})
			elif kind == "footprint":
				l = layouts[li]
				d = int(name.split("folio:")[1].split("B")[0]) if l["descriptors"] else 0
				mm = rb // 4096 * l["sizeof_page"]
				desc = rb // 4096 // 4 * d
				e.update({"memmap_bytes": mm, "desc_bytes": desc, "desc_count": rb // 16384,
					  "desc_reserved_bytes": desc, "total_bytes": mm + desc,
					  "bytes_per_GiB": (mm + desc) * GiB / rb,
					  "overhead_pct": 100.0 * (mm + desc) / rb, "folio_desc_bytes": d})
			elif kind == "bandwidth":
				e["bytes_per_second"] = 64 / ns * 1e9
			entries.append(e)
	mb = {"schema_version": 2, "run_id": "20260101T000000Z-big", "complete": True,
	      "git_commit": "big", "git_dirty": False, "argv": ["mdbench", "--profile=full"],
	      "profile": "full", "reference_layout": "ref64", "layouts": layouts,
	      "kernels": kernels, "mixes": [{"name": m} for m in fmixes],
	      "ram_sizes": [b for _, b in rams], "rounds": a.rounds,
	      "counters": {"available": [{"name": c, "event": c, "unscheduled_runs": 0}
					 for c in counters], "unavailable": []},
	      "conditions": {"desc_age": "aged"}, "cpu_model": "Big Fixture CPU"}
	doc = {"context": {"host_name": "bigbox", "memdesc_bench": mb}, "benchmarks": entries}
	os.makedirs(a.dir, exist_ok=True)
	with open(os.path.join(a.dir, "mdbench.json"), "w") as f:
		json.dump(doc, f)
	print(f"make_big_dump: {len(names)} benchmarks x {a.rounds} rounds in "
	      f"{os.path.join(a.dir, 'mdbench.json')}")


if __name__ == "__main__":
	main()
