#!/usr/bin/python3
"""check_age_calibration.py BUDDY PLACED AGED VMTRACE VMSTAT0 VMSTAT1

BUDDY: the guest's /proc/buddyinfo and /proc/pagetypeinfo, one after the
other; PLACED, AGED, VMTRACE: mdbench dumps of the guest's trace replayed at
the kernel's pfns, of the synthetic aging and of scripts/trace's vmstat
trace, at the guest's RAM; VMSTAT0/1: the guest's /proc/vmstat around the
workload.  Prints the guest's free blocks per order (all zones summed) and
migratetype beside each model's, and pageblocks per migratetype; exit 1
when the placed replay is off by more than 10% on an order, or an order
and migratetype, the guest has at least 100 free blocks of."""

import json
import re
import sys

TYPES = ("unmovable", "movable", "reclaimable")
TOLERANCE = 0.10
MIN_BLOCKS = 100


def guest(path):
	"""(free[mt][order], total[order], pageblocks{mt}) summed over zones."""
	free = {t: [0] * 11 for t in TYPES}
	total = [0] * 11
	blocks = {t: 0 for t in TYPES}
	header = None
	for line in open(path):
		m = re.match(r"Node\s+\d+, zone\s+\S+\s+([\d\s]+)$", line)
		if m and header is None:
			for o, n in enumerate(m.group(1).split()):
				total[o] += int(n)
			continue
		m = re.match(r"Node\s+\d+, zone\s+\S+, type\s+(\S+)\s+([\d\s]+)$", line)
		if m and m.group(1).lower() in free:
			for o, n in enumerate(m.group(2).split()):
				free[m.group(1).lower()][o] += int(n)
			continue
		if line.startswith("Number of blocks type"):
			header = [h.lower() for h in line.split()[4:]]
			continue
		m = re.match(r"Node\s+\d+, zone\s+\S+\s+([\d\s]+)$", line)
		if m and header:
			for h, n in zip(header, m.group(1).split()):
				if h in blocks:
					blocks[h] += int(n)
	return free, total, blocks


def model(path):
	"""(free[mt][order], total[order], pageblocks{mt}, machine) of a dump's one aged machine."""
	a = json.load(open(path))["context"]["memdesc_bench"]["aging"]
	m = a["machines"][0]
	free = {t: m["free_blocks"][t] + [0] * (11 - len(m["free_blocks"][t])) for t in TYPES}
	total = [sum(free[t][o] for t in TYPES) for o in range(11)]
	return free, total, m["pageblocks"], m


def vmstat(path):
	return {k: int(v) for k, v in (line.split() for line in open(path) if len(line.split()) == 2)}


def off(model_n, guest_n):
	return (model_n - guest_n) / guest_n if guest_n else float("inf") if model_n else 0.0


def main(argv):
	gf, gt, gb = guest(argv[1])
	pf, pt, pb, pm = model(argv[2])
	af, at, ab, _ = model(argv[3])
	vf, vt, vb, _ = model(argv[4])
	v0, v1 = vmstat(argv[5]), vmstat(argv[6])
	bad = []
	print("free blocks per order (every zone), guest against the models; placed: the guest's "
	      "trace at its pfns (held to 10% where the guest has >= 100 blocks)")
	print("| order | guest | placed | off | aged (desktop) | off | vmstat trace | off |")
	print("|---|---|---|---|---|---|---|---|")
	for o in range(11):
		print(f"| {o} | {gt[o]} | {pt[o]} | {off(pt[o], gt[o]):+.1%} | {at[o]} | "
		      f"{off(at[o], gt[o]):+.1%} | {vt[o]} | {off(vt[o], gt[o]):+.1%} |")
		if gt[o] >= MIN_BLOCKS and abs(off(pt[o], gt[o])) > TOLERANCE:
			bad.append(f"order {o}: placed {pt[o]}, guest {gt[o]}")
	print("\nper migratetype, guest / placed / aged / vmstat trace")
	print("| order | " + " | ".join(TYPES) + " |")
	print("|---|---|---|---|")
	for o in range(11):
		cells = []
		for t in TYPES:
			cells.append(f"{gf[t][o]} / {pf[t][o]} / {af[t][o]} / {vf[t][o]}")
			if gf[t][o] >= MIN_BLOCKS and abs(off(pf[t][o], gf[t][o])) > TOLERANCE:
				bad.append(f"order {o} {t}: placed {pf[t][o]}, guest {gf[t][o]}")
		print(f"| {o} | " + " | ".join(cells) + " |")
	print("| pageblocks | " + " | ".join(f"{gb[t]} / {pb[t]} / {ab[t]} / {vb[t]}" for t in TYPES) + " |")
	print(f"\nplaced replay: {pm['pcp_pages']} pages on the per-cpu lists at the end (not in "
	      f"buddyinfo), {pm['placed_conflicts']} allocations over pages it held")
	d = {k: v1.get(k, 0) - v0.get(k, 0) for k in ("compact_stall", "compact_daemon_wake",
						       "pgmigrate_success", "pgsteal_kswapd",
						       "pgsteal_direct", "thp_fault_alloc")}
	print("guest vmstat deltas: " + ", ".join(f"{k} {v}" for k, v in d.items()))
	if bad:
		print("FAIL: the placed replay is off by more than 10%: " + "; ".join(bad))
		return 1
	return 0


if __name__ == "__main__":
	sys.exit(main(sys.argv))
