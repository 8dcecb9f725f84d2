#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every benchmark of every layout runs a fixed count through mdb_run_fixed()
# (mdbench --sim-child, natively: the client requests are no-ops outside
# valgrind) and reports the items it processed; on a mix without free
# blocks or large folios the kernels that need them fail with their reason.
# Runs under the Asan build too, where it is the kernels' memory check.
#
# usage: test_bench_fixed.sh MDBENCH
set -u
mdbench=$1
ram=64MiB
nr_pfns=16384
ops=64
fail=0

names() {
	"$mdbench" --list --ram=$ram --mix="$1" --counters=none |
		sed -n '/^benchmarks/,/^layouts/p' | sed -n 's/^  //p'
}

# The items a kernel must report for $ops ops; "min" when only a floor is known.
expected_items() {
	case $1 in
	init/memmap/*)		echo $nr_pfns ;;		# one boot: a batch of nr_pfns ops
	convert/*)		echo 512 ;;		# one batch of CONVERT_BATCH
	baseline/latency/*)	echo 256 ;;		# one batch of CHASE_BATCH
	lookup/* | folio/* | migrate/* | footprint/* | baseline/bandwidth/*) echo $ops ;;
	*)			echo min ;;		# scan: pfns covered; alloc: whole batches
	esac
}

run_one() {	# mix name -> prints items, or the error line; returns the exit status
	"$mdbench" --ram=$ram --mix="$1" --counters=none --sim-child="$2" --sim-ops=$ops 2>&1
}

nr=0
for name in $(names desktop); do
	nr=$((nr + 1))
	out=$(run_one desktop "$name")
	rc=$?
	items=$(echo "$out" | sed -n 's/^mdb-sim items=//p')
	if [ $rc -ne 0 ] || [ -z "$items" ]; then
		echo "FAIL $name: exit $rc: $out"
		fail=1
		continue
	fi
	want=$(expected_items "$name")
	if [ "$want" = min ] && [ "$items" -lt $ops ]; then
		echo "FAIL $name: $items items for $ops ops"
		fail=1
	elif [ "$want" != min ] && [ "$items" -ne "$want" ]; then
		echo "FAIL $name: $items items, expected $want"
		fail=1
	fi
done
if [ $nr -lt 45 ]; then
	echo "FAIL: only $nr benchmarks listed for one mix and RAM size"
	fail=1
fi

# all-order0: every pfn an order-0 folio, nothing free, no tail page.
for layout in page64 page32 memdesc8; do
	for case in "alloc/order0:no free block of order 0" "alloc/order9:no free block of order 9" \
		    "migrate/order0:no free block of order 0 to migrate to" \
		    "migrate/order9:no folio of order 9" "folio/tail:no large folio"; do
		kernel=${case%%:*}
		reason=${case#*:}
		name=$kernel/$layout/mix:all-order0/ram:$ram
		out=$(run_one all-order0 "$name")
		rc=$?
		case $out in
		*"$reason"*) [ $rc -eq 3 ] || { echo "FAIL $name: exit $rc, expected 3"; fail=1; } ;;
		*) echo "FAIL $name: exit $rc, expected the reason '$reason': $out"; fail=1 ;;
		esac
	done
done

out=$("$mdbench" --ram=$ram --counters=none --sim-child=no/such/bench --sim-ops=1 2>&1)
rc=$?
case $out in
*"no such benchmark"*) [ $rc -eq 2 ] || { echo "FAIL unknown name: exit $rc"; fail=1; } ;;
*) echo "FAIL unknown name: $out"; fail=1 ;;
esac

[ $fail -eq 0 ] && echo "test_bench_fixed: $nr benchmarks ran a fixed count, skips gave their reasons"
exit $fail
