#!/bin/sh
# mdbench --list: benchmark names as driver.h spells them, in registration
# order; layouts with their sizes; counters with availability; the filter as
# Google Benchmark's (regex search, "-" negates, "all").
# usage: test_harness_list.sh MDBENCH_TEST
. "$(dirname "$0")/lib.sh"
mdbench=$1
fail=0

names() {	# the benchmark lines of --list, without indentation
	"$mdbench" --list "$@" 2>"$tmp/err" | sed -n '/^benchmarks/,/^layouts/p' | sed -n 's/^  //p'
}

check() {	# check WHAT EXPECTED ACTUAL
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1"
		echo "  want: $2" | tr '\n' ' '
		echo
		echo "  got:  $3" | tr '\n' ' '
		echo
		fail=1
	else
		echo "ok: $1"
	fi
}

got=$(names --layout=page64 --ram=64MiB --benchmark_filter=^test/)
want="test/mark/page64/mix:desktop/ram:64MiB
test/seen/page64/mix:desktop/ram:64MiB
test/error/page64/mix:desktop/ram:64MiB
test/fresh/page64/mix:desktop/ram:64MiB
test/faults/bytes:1MiB
test/halves/bytes:1MiB
test/spin/bytes:1MiB"
check "test kernels, shared-memmap ones before the one that mutates, baselines last" "$want" "$got"

# Baseline sizes: memmap bytes of each layout at each RAM size, deduplicated, ascending.
got=$(names --layout=page64,memdesc8,page64 --ram=96MiB,64MiB,64MiB --benchmark_filter=^test/faults)
want="test/faults/bytes:128KiB
test/faults/bytes:192KiB
test/faults/bytes:1MiB
test/faults/bytes:1536KiB"
check "baseline sizes as the largest exact binary unit" "$want" "$got"

got=$(names --layout=page32 --ram=64MiB,1GiB --mix=desktop,server --benchmark_filter='^test/mark/')
want="test/mark/page32/mix:desktop/ram:64MiB
test/mark/page32/mix:server/ram:64MiB
test/mark/page32/mix:desktop/ram:1GiB
test/mark/page32/mix:server/ram:1GiB"
check "RAM sizes outermost, then mixes" "$want" "$got"

all=$(names --ram=64MiB | wc -l)
tests=$(names --ram=64MiB --benchmark_filter=^test/ | wc -l)
others=$(names --ram=64MiB --benchmark_filter=-^test/ | wc -l)
every=$(names --ram=64MiB --benchmark_filter=all | wc -l)
check "negative filter is the complement" "$all" "$((tests + others))"
check "'all' matches everything" "$all" "$every"
check "3 layouts x 4 test kernels + 3 baselines x 3 sizes" "21" "$tests"
got=$(names --ram=64MiB --benchmark_filter=-^test/ | grep -c '^test/')
check "negative filter keeps no test/ benchmark" "0" "$got"

# 64GiB of page32 needs 1.75 GiB of memmap and descriptors.
if [ "$(awk '/^MemAvailable:/{print $2}' /proc/meminfo)" -gt 4194304 ]; then
	got=$(names --profile=full --benchmark_filter=^test/mark/page64/ 2>/dev/null | sed 's|.*/ram:||')
	want="256MiB
1GiB
4GiB
16GiB
64GiB"
	check "--profile=full: 256MiB to 64GiB by x4" "$want" "$got"
fi
got=$(names --benchmark_filter=^test/mark/page64/ | sed 's|.*/ram:||')
want="256MiB
1GiB
4GiB"
check "default profile quick: 256MiB, 1GiB, 4GiB" "$want" "$got"

"$mdbench" --list --ram=64MiB >"$tmp/list" 2>"$tmp/err"
rc=$?
check "--list exits 0" "0" "$rc"
check "--list prints nothing on stderr" "" "$(cat "$tmp/err")"
count=$(sed -n 's/^benchmarks (\([0-9]*\)):$/\1/p' "$tmp/list")
check "--list's count is the number of names" "$all" "$count"
got=$(grep -E '^  (page64|page32|memdesc8) +sizeof\(struct page\) [0-9]+' "$tmp/list" | awk '{print $1, $4}' | tr -d ',')
want="page64 64
page32 32
memdesc8 8"
check "layouts with sizeof(struct page)" "$want" "$got"
got=$(sed -n '/^counters:/,/^mixes/p' "$tmp/list" | awk '/^  /{print $1}')
want="cycles
instructions
L1D_load_misses
LLC_load_misses
dTLB_load_misses
page_faults"
check "default counters listed" "$want" "$got"
got=$(grep -E '^  page_faults +PERF_COUNT_SW_PAGE_FAULTS +available$' "$tmp/list" | wc -l)
check "page_faults available" "1" "$got"
if [ ! -e /sys/bus/event_source/devices/cpu ] && [ ! -e /sys/bus/event_source/devices/cpu_core ]; then
	got=$(grep -E '^  cycles +PERF_COUNT_HW_CPU_CYCLES +unavailable: .+PMU' "$tmp/list" | wc -l)
	check "no CPU PMU: cycles unavailable with a reason" "1" "$got"
fi
got=$("$mdbench" --list --ram=64MiB --counters=none 2>&1 | sed -n '/^counters:/{n;p}')
check "--counters=none lists none" "  (none)" "$got"
grep -q '^mixes built in: .*desktop' "$tmp/list"
check "built-in mixes listed" "0" "$?"

exit $fail
