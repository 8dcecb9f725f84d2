#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every benchmark of every layout runs a fixed count (mdbench --fixed-ops,
# the path the --simulate child takes, natively) and reports the items it
# processed; on a mix without free blocks or large folios the kernels that
# need them fail with their reason.  Runs under the Asan build too, where it
# is the kernels' memory check.
#
# usage: test_bench_fixed.sh MDBENCH
. "$(dirname "$0")/../lib.sh"
mdbench=$1
ram=64MiB
nr_pfns=16384
ops=64
fail=0

# The items a kernel must report for $ops ops; "min" when only a floor is known.
expected_items() {
	case $1 in
	init/memmap-deferred/*)	echo $nr_pfns ;;		# one boot, shared by its threads
	*/threads:*)		echo $((${1##*/threads:} * ops)) ;;	# every thread its ops
	init/memmap/*)		echo $nr_pfns ;;		# one boot: a batch of nr_pfns ops
	convert/*)		echo 4096 ;;		# one batch of CONVERT_BATCH
	baseline/latency/*)	echo 256 ;;		# one batch of CHASE_BATCH
	baseline/bandwidth/*)	echo 1024 ;;		# one batch of READ_BATCH
	# random walks (batches of 64; the cold ones of COLD_OPS, 32), migrations (16), splits (8)
	lookup/* | folio/* | reclaim/* | migrate/* | split/* | footprint/*) echo $ops ;;
	compaction/*)		echo $ops ;;		# one cluster an op
	*)			echo min ;;		# scan: pfns covered; alloc: whole batches
	esac
}

# The aged default at 64 MiB (32 pageblocks): the trace leaves no free
# order-9 block until its compaction (machine/age.h) empties one, so
# alloc/order9 and migrate/order9 run here too.
"$mdbench" --ram=$ram --mix=desktop --counters=none --fixed-ops=$ops >"$tmp/desktop" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "FAIL desktop: exit $rc"; cat "$tmp/desktop"; fail=1; }
nr=0
while IFS= read -r line; do
	name=${line%%: *}
	rest=${line#*: }
	nr=$((nr + 1))
	items=${rest% items}
	case $rest in
	*" items") ;;
	*) echo "FAIL $name: $rest"; fail=1; continue ;;
	esac
	want=$(expected_items "$name")
	if [ "$want" = min ] && [ "$items" -lt $ops ]; then
		echo "FAIL $name: $items items for $ops ops"
		fail=1
	elif [ "$want" != min ] && [ "$items" -ne "$want" ]; then
		echo "FAIL $name: $items items, expected $want"
		fail=1
	fi
done <"$tmp/desktop"
layouts=$("$mdbench" --list=json --counters=none | /usr/bin/python3 -c \
	'import json, sys; print(" ".join(l["name"] for l in json.load(sys.stdin)["layouts"]))')
# Every layout runs every kernel that applies to the mix (the hugetlb ones do
# not to desktop: test_bench_hugetlb.sh runs them): the same count for each
# (a threaded kernel once per thread count).
kernels=$("$mdbench" --list=json --counters=none | /usr/bin/python3 -c \
	'import json, sys; print(sum(k["class"] != "baseline" and "hugetlb" not in k["name"]
				     for k in json.load(sys.stdin)["kernels"]))')
for layout in $layouts; do
	got=$(grep "^[^ ]*/$layout/mix:desktop/" "$tmp/desktop" | sed "s|/$layout/.*||" | sort -u | wc -l)
	[ "$got" -eq "$kernels" ] || { echo "FAIL: $layout ran $got kernels of $kernels"; fail=1; }
done

# all-order0: every pfn an order-0 folio, nothing free, no tail page.
"$mdbench" --ram=$ram --mix=all-order0 --counters=none --fixed-ops=$ops \
	--benchmark_filter='^(alloc|migrate|folio/tail)[^/]*/' >"$tmp/order0" 2>&1
[ $? -eq 1 ] || { echo "FAIL all-order0: exit status, expected 1 (failed kernels)"; fail=1; }
for layout in $layouts; do
	for case in "alloc/order0:no free block of order 0" "alloc/order9:no free block of order 9" \
		    "alloc/order0-zero:no free block of order 0" \
		    "alloc/order9-zero:no free block of order 9" \
		    "migrate/order0:no free block of order 0 to migrate to" \
		    "migrate/order0-copy:no free block of order 0 to migrate to" \
		    "migrate/order9:no folio of order 9" "migrate/order9-copy:no folio of order 9" \
		    "folio/tail:no large folio" "folio/tail-dep:no large folio" \
		    "folio/tail-cold:no large folio"; do
		kernel=${case%%:*}
		reason=${case#*:}
		name=$kernel/$layout/mix:all-order0/ram:$ram
		grep -q "^$name: error: .*$reason" "$tmp/order0" ||
			{ echo "FAIL $name: expected the reason '$reason'"; fail=1; }
	done
done

# The walks that touch every line of a folio (-cold flushes them) over every
# pfn, the last one included: on all-order0 each is its own folio, and a
# folio overlaying the memmap's last entry must not be read past its end.
"$mdbench" --ram=$ram --mix=all-order0 --counters=none --fixed-ops=$nr_pfns \
	--benchmark_filter='^(lookup/random|folio/getput)-cold/' >"$tmp/cold" 2>&1 ||
	{ echo "FAIL: the cold walks over every pfn:"; cat "$tmp/cold"; fail=1; }

# A --simulate child handed a description it cannot use: one line, exit 2.
echo '{"name": "x"}' >"$tmp/bad.json"
out=$("$mdbench" --sim-instance="$tmp/bad.json" 2>&1)
rc=$?
case $out in
"mdbench: $tmp/bad.json: not an instance description") [ $rc -eq 2 ] || { echo "FAIL bad instance: exit $rc"; fail=1; } ;;
*) echo "FAIL bad instance: $out"; fail=1 ;;
esac

[ $fail -eq 0 ] && echo "test_bench_fixed: $nr benchmarks ran a fixed count, skips gave their reasons"
exit $fail
