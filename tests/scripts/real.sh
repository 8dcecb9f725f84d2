#!/bin/sh
# scripts/plot and scripts/compare on what the real mdbench writes (a small
# slice of the quick profile, two repetitions): every expected plot valid,
# the report's tables hold the dump's layouts, compare gives a ratio row for
# each matched benchmark.
#	test_scripts_real.sh MDBENCH PYTHON
set -eu
mdbench=$1
py=$2
tests=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$tests")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$py" -c 'import matplotlib' 2>/dev/null || { echo "skip: python3-matplotlib missing"; exit 77; }

"$mdbench" --profile=quick --ram=256MiB,1GiB --mix=desktop,server \
	--benchmark_filter='^(lookup/(seq|random)/|footprint/|baseline/(latency|bandwidth)/bytes:(512KiB|4MiB)$)' \
	--benchmark_min_time=0.01 --benchmark_repetitions=2 --out="$tmp/run" >"$tmp/mdbench.log" 2>&1 ||
	{ cat "$tmp/mdbench.log"; exit 1; }

"$py" "$top/scripts/plot" "$tmp/run"
"$py" "$tests/test_scripts_check_plots.py" "$tmp/run" --dump "$tmp/run" \
	--expect time-lookup-seq-desktop --expect time-lookup-random-server \
	--expect counter-page_faults-desktop --expect footprint

# The layouts the dump lists head the time tables; footprint rows for both mixes.
grep -q '^| RAM | page64 ns/op | page32 ns/op | memdesc8 ns/op |$' "$tmp/run/report.md"
grep -q '^| server | memdesc8 | 1GiB | 2097152 |' "$tmp/run/report.md"
grep -q '^| desktop | page64 | 256MiB | 4194304 | 0 | 0 |' "$tmp/run/report.md"

"$py" "$top/scripts/compare" "$tmp/run" --layouts page64 memdesc8 >"$tmp/cmp.md"
# 2 kernels x 2 mixes x 2 sizes + footprint x 2 x 2, each with 2 repetitions
rows=$(grep -c '^| [a-z]*/.* | \(holds\|noise\) |$' "$tmp/cmp.md" || true)
[ "$rows" -eq 12 ] || { echo "compare: $rows rows with a verdict, want 12"; cat "$tmp/cmp.md"; exit 1; }
# memmap bytes scale with sizeof(struct page): memdesc8 / page64 = 8 / 64
"$py" "$top/scripts/compare" "$tmp/run" --layouts page64 memdesc8 --metric memmap_bytes |
	grep -q '^| footprint/mix:server/ram:1GiB | 16777216 | 16777216..16777216 | 2097152 | 2097152..2097152 | 0.125 | holds |$'
echo "ok: plot, check_plots and compare on a real dump"
