#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The buddy memdesc's two words (layouts/memdesc8.h): memdesc8 models 2 TiB
# of RAM at 4 KiB pages, 2^29 pfns, twice what 28-bit links could name.
# The footprint run at 2 TiB completes and counts the whole memmap (8 bytes
# a pfn: 4 GiB); 2 MiB more than its links can name fails with the reason.
# The free mix, fresh caches: the memmap is all it needs (4 GiB; skipped
# below 6 GiB available).
# usage: test_mdbench_2tib.sh MDBENCH PYTHON
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2
fail=0

avail=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
[ "${avail:-0}" -ge $((6 * 1024 * 1024)) ] || skip "2 TiB of memdesc8 needs 4 GiB; $avail KiB available"

# The default cache option only: each of the others would build its 4 GiB again.
run="--layout=memdesc8 --mix=free --desc-age=fresh --counters=none"
run="$run --benchmark_filter=^footprint/memdesc8/mix:free/ram:[0-9A-Za-z]*\$"
# shellcheck disable=SC2086
"$mdbench" $run --ram=2TiB --out="$tmp/big" >"$tmp/o" 2>"$tmp/e" || { echo "FAIL: 2 TiB:"; cat "$tmp/e"; fail=1; }
# shellcheck disable=SC2086
"$mdbench" $run --ram=2097154MiB --out="$tmp/over" >"$tmp/o2" 2>"$tmp/e2" && {
	echo "FAIL: 2 TiB + 2 MiB ran"; fail=1; }

"$py" - "$tmp/big/mdbench.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
rows = [b for b in d["benchmarks"] if b["name"].startswith("footprint/memdesc8/mix:free/ram:2TiB")]
assert len(rows) == 1, [b["name"] for b in d["benchmarks"]]
b = rows[0]
assert b.get("error_occurred") is not True, b
assert b["memmap_bytes"] == (2 << 40) // 4096 * 8, b["memmap_bytes"]
assert b["desc_count"] == 0 and b["held_bytes"] == b["memmap_bytes"], b
PY
"$py" - "$tmp/over/mdbench.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
rows = [b for b in d["benchmarks"] if b["name"].startswith("footprint/memdesc8/")]
assert len(rows) == 1 and rows[0].get("error_occurred") is True, rows
assert "links free lists with pfns of at most 536870912" in rows[0]["error_message"], rows[0]
PY
exit $fail
