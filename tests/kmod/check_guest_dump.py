#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""check_guest_dump.py DUMP LOG REF ROUNDS [ACCEL]: the dump mdbench wrote in
the qemu guest (test_kmod_qemu.sh), against the same guest's serial LOG.

Checks that the layout "kernel" is recorded as the live kernel the module
reported (real, release, sizeof(struct page), descriptors unknown, the
online pfns kpageflags counted in the census), that the emulated mix is the
snapshot at its pfn positions: its placement's census of the module's span
(free blocks and pages, large-folio heads and tails, slab pages, order-0
pages with holes) equals the module's scan of the span taken around it, and
the emulated memmap covers the span; that every kernel the module
and the suite share ran ROUNDS times on it and on the reference layout REF,
under the same names but the layout, on the kpageflags mix at the guest's
RAM, without error, and that no hardware counter reads 0.  Then prints each
kernel's ns/op on both sides, labelled with ACCEL (TCG times are emulated).
Exit 1 with the reasons on a failed check.
"""

import json
import re
import statistics
import sys

MODULE_KERNELS = ("lookup/seq", "lookup/random", "lookup/random-dep", "folio/tail",
		  "folio/getput", "scan/compaction", "alloc/order0", "alloc/order9")
HW_COUNTERS = ("cycles", "instructions", "L1D_load_misses", "LLC_load_misses",
	       "dTLB_load_misses")
PAGE, STEP = 4096, 2 << 20

failures = []


def check(ok, msg):
	if not ok:
		failures.append(msg)
	return ok


def size_name(n):
	for unit, mult in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
		if n % mult == 0:
			return f"{n // mult}{unit}"
	return f"{n}B"


def log_fields(log, prefix):
	"""key=value pairs of the first line of LOG starting with prefix."""
	for line in log:
		if line.startswith(prefix):
			return dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
	return {}


def main():
	dump_path, log_path, ref, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
	accel = sys.argv[5] if len(sys.argv) > 5 else "TCG: emulated"
	with open(dump_path) as f:
		doc = json.load(f)
	with open(log_path, errors="replace") as f:
		log = f.read().splitlines()
	mb = doc["context"]["memdesc_bench"]
	info = log_fields(log, "info release=")
	census = log_fields(log, "census source=kpageflags ")

	layouts = {l["name"]: l for l in mb["layouts"]}
	check(list(layouts) == [ref, "kernel"], f"layouts {list(layouts)}, want [{ref}, kernel]")
	k = layouts.get("kernel", {})
	check(k.get("real") is True, "kernel layout: real is not true")
	check(k.get("release") == info.get("release"),
	      f"kernel layout: release {k.get('release')!r}, the module said {info.get('release')!r}")
	check(str(k.get("sizeof_page")) == info.get("struct_page"),
	      f"kernel layout: sizeof_page {k.get('sizeof_page')}, the module said {info.get('struct_page')}")
	check(k.get("descriptors", 0) is None, "kernel layout: descriptors should be null (unknown)")
	check("real" not in layouts.get(ref, {}), f"{ref}: marked real")
	online = int(census.get("pfns", -1)) - int(census.get("offline", 0))
	check(k.get("online_pfns") == online,
	      f"kernel layout: online_pfns {k.get('online_pfns')}, the census counted {online}")
	ram = (online * PAGE + STEP // 2) // STEP * STEP
	check(k.get("ram_bytes") == ram, f"kernel layout: ram_bytes {k.get('ram_bytes')}, want {ram}")
	snap = k.get("snapshot") or {}
	check(snap.get("placement") == "at the snapshot's pfn positions",
	      f"kernel layout: snapshot placement {snap.get('placement')!r}")
	check(snap.get("stable") is True, f"kernel layout: the module's scans around the snapshot "
	      f"never agreed ({snap.get('tries')} tries)")
	check(snap.get("emulated_pfns", 0) >= (snap.get("span_pfns") or [0, 1 << 62])[1],
	      f"kernel layout: the emulated memmap ({snap.get('emulated_pfns')} pfns) does not "
	      f"cover the module's span {snap.get('span_pfns')}")
	check(snap.get("placed") == snap.get("module") and snap.get("module"),
	      f"kernel layout: the emulated placement's census {snap.get('placed')} is not the "
	      f"module's {snap.get('module')}")
	mixes = [m["name"] for m in mb["mixes"]]
	placement = mb.get("conditions", {}).get("mix_placement", {})
	check(all(placement.get(m) == "at the snapshot's pfn positions" for m in mixes),
	      f"conditions.mix_placement {placement}: the snapshot is not at its pfn positions")
	check(len(mixes) == 1 and mixes[0].startswith("kpageflags:"),
	      f"mixes {mixes}: want the guest's kpageflags snapshot alone")
	check(mb["ram_sizes"] == [ram], f"ram_sizes {mb['ram_sizes']}, want [{ram}]")
	avail = set(k.get("counters", {}).get("available", []))

	runs = {}
	for e in doc["benchmarks"]:
		name = e.get("run_name", e["name"])
		if name.endswith("/manual_time"):
			name = name[:-len("/manual_time")]
		check(not e.get("error_occurred"), f"{name}: {e.get('error_message')}")
		if e.get("run_type", "iteration") != "iteration":
			continue
		runs.setdefault(name, []).append(e)
		for c in HW_COUNTERS:
			if c in e and "/kernel/" in name:
				check(c in avail, f"{name}: {c} recorded, but the module said it cannot count")
				check(e[c] > 0, f"{name}: {c} is {e[c]} (a counter that did not count is absent)")

	suite = [x["name"] for x in mb["kernels"]]
	shared = [n for n in MODULE_KERNELS if n in suite]
	check(len(shared) >= 7, f"only {shared} shared between the module and the suite")
	mix = mixes[0] if mixes else "?"
	rows = []
	for kern in shared:
		side = {}
		# On a snapshot with hugetlb pages the names carry the live kernel's HVO mode.
		base = f"{kern}/kernel/mix:{mix}/ram:{size_name(ram)}"
		hvo = next((v for v in ("", "/hvo:off", "/hvo:on") if base + v in runs), "")
		for layout in (ref, "kernel"):
			name = f"{kern}/{layout}/mix:{mix}/ram:{size_name(ram)}{hvo}"
			reps = runs.get(name, [])
			if not check(len(reps) == rounds, f"{name}: {len(reps)} runs, want {rounds}"):
				continue
			check(all(e.get("time_unit") == "ns" and e["real_time"] > 0 for e in reps),
			      f"{name}: times {[e['real_time'] for e in reps]}")
			side[layout] = reps
		rows.append((kern, side.get(ref), side.get("kernel")))
		if "kernel" in side:
			e = side["kernel"][0]
			check("ops_skipped" in e and "ops_failed" in e, f"{kern}/kernel: no ops_skipped/ops_failed")

	if failures:
		for f in failures:
			print(f"FAIL: guest dump: {f}")
		return 1
	print(f"guest dump: layouts {ref} and kernel ({k['release']}, struct page {k['sizeof_page']} B, "
	      f"{k['online_pfns']} online pfns -> ram:{size_name(ram)}), mix {mix}, {rounds} rounds")
	print(f"snapshot at its pfn positions ({snap['tries']} tries): module's census of the span "
	      f"{snap['module']}, the emulated placement's {snap['placed']}")
	print(f"per-op times in the guest, ns, median (min..max) of {rounds} rounds "
	      f"-- {accel}:")
	def cell(reps):
		ts = [e["real_time"] for e in reps]
		return f"{statistics.median(ts):10.1f} ({min(ts):.1f}..{max(ts):.1f})"

	for kern, a, b in rows:
		extra = "".join(f" {c} {b[0][c]:.4g}" for c in ("ops_skipped", "ops_failed", "free_blocks")
				if c in b[0])
		print(f"  {kern:16} {ref} {cell(a):30} kernel {cell(b):34}{extra}")
	return 0


if __name__ == "__main__":
	sys.exit(main())
