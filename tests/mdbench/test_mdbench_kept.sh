#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Memmaps kept for a round (mdbench/native.c): an HVO memmap is kept alone.
# Each maps its vmemmap page by page and takes what vm.max_map_count leaves
# at its build; three layouts' HVO memmaps of database-256g at 16 GiB kept
# together (a group's layouts interleave) left the third no mappings: its
# footprint failed "past what vm.max_map_count leaves this process" and,
# with nothing left to allocate with, a later run aborted.  Every entry
# completes, and the run says each layout's HVO freed pages.
# A run of report kernels alone (scripts/run's footprint passes, several at
# once) keeps no memmap beside the one it builds: five layouts' footprint at
# 4 GiB peak where page64md's alone does (it kept all five: 2.4 times).
# usage: test_mdbench_kept.sh MDBENCH PYTHON MIXES
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2
mixes=$3
fail=0

avail=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
[ "${avail:-0}" -ge $((3 * 1024 * 1024)) ] || skip "three 16 GiB memmaps need 1 GiB; $avail KiB available"

"$mdbench" --layout=page64ci,memdesc8,page32 --ram=16GiB --mix="$mixes/database-256g.json" --hvo=on \
	--rounds=1 --counters=none '--benchmark_filter=^footprint/.*hvo:on' --out="$tmp/hvo" \
	>"$tmp/o" 2>"$tmp/e" || { echo "FAIL: exit status $?:"; tail -5 "$tmp/e"; fail=1; }

"$py" - "$tmp/hvo/mdbench.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
rows = [b for b in d["benchmarks"] if b.get("run_type") == "iteration"]
bad = [b["name"] for b in rows if b.get("error_occurred")]
assert not bad, f"failed: {bad}"
layouts = {b["name"].split("/")[1] for b in rows}
assert layouts == {"page64ci", "memdesc8", "page32"}, layouts
assert all(b["hugetlb_folios"] > 0 for b in rows), [(b["name"], b.get("hugetlb_folios")) for b in rows]
PY
"$py" - "$mdbench" "$tmp" <<'PY' || fail=1
import os, subprocess, sys
mdbench, tmp = sys.argv[1:]
def peak(layouts):
	"""maxrss (KiB) of a footprint-only run of layouts at 4 GiB."""
	out = os.path.join(tmp, layouts.replace(",", "-"))
	p = subprocess.Popen([mdbench, f"--layout={layouts}", "--ram=4GiB", "--mix=desktop",
			      "--rounds=1", "--counters=none", "--memmap-pool=off", f"--out={out}",
			      "--benchmark_filter=^footprint/[^/]*/mix:desktop/ram:4GiB$"],
			     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
	_, status, ru = os.wait4(p.pid, 0)
	assert os.waitstatus_to_exitcode(status) == 0, (layouts, status)
	return ru.ru_maxrss
one, five = peak("page64md"), peak("page64,page64ci,page64md,page32,memdesc8")
assert five < 1.3 * one, f"five layouts' footprint peaked at {five} KiB, page64md's alone {one}"
PY
exit $fail
