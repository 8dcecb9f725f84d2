#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Memmaps kept for a round (mdbench/native.c): an HVO memmap is kept alone.
# Each maps its vmemmap page by page and takes what vm.max_map_count leaves
# at its build; three layouts' HVO memmaps of database-256g at 16 GiB kept
# together (a group's layouts interleave) left the third no mappings: its
# footprint failed "past what vm.max_map_count leaves this process" and,
# with nothing left to allocate with, a later run aborted.  Every entry
# completes, and the run says each layout's HVO freed pages.
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
exit $fail
