#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The hugetlb kernels: the plan gives them only mixes with hugetlb folios of
# their size (none on desktop), and on such mixes every layout runs them a
# fixed count (mdbench --fixed-ops), 2 MiB ones on the database mix, 1 GiB
# ones on the VM host (which needs at least 8 GiB to hold its seven 1 GiB
# folios; the memmap of each layout is built once per group).  Runs under the
# Asan build too.
#
# usage: test_bench_hugetlb.sh MDBENCH RESULTS_MIXES
set -u
. "$(dirname "$0")/../lib.sh"
mdbench=$1
mixes=$2
ops=64
fail=0

names() {
	"$mdbench" --list=json --counters=none "$@" | /usr/bin/python3 -c \
		'import json, sys; print("\n".join(b["name"] for b in json.load(sys.stdin)["benchmarks"]))'
}

got=$(names --ram=64MiB --mix=desktop | grep -c hugetlb)
[ "$got" -eq 0 ] || { echo "FAIL: $got hugetlb benchmarks on desktop"; fail=1; }
layouts=$("$mdbench" --list=json --counters=none | /usr/bin/python3 -c \
	'import json, sys; print(" ".join(l["name"] for l in json.load(sys.stdin)["layouts"]))')

# run MIX RAM KERNELS...: each kernel on each layout, $ops items each, nothing else.
run() {
	mix=$1 ram=$2
	shift 2
	filter=$(echo "$*" | sed 's/ /|/g')
	list=$(names --ram="$ram" --mix="$mixes/$mix.json" | grep hugetlb)
	want=$(for k in "$@"; do for l in $layouts; do echo "$k/$l/mix:$mix/ram:$ram"; done; done | sort)
	[ "$(echo "$list" | sort)" = "$want" ] ||
		{ echo "FAIL $mix: hugetlb benchmarks"; echo "$list"; fail=1; }
	"$mdbench" --ram="$ram" --mix="$mixes/$mix.json" --counters=none --fixed-ops=$ops \
		--benchmark_filter="^($filter)/" >"$tmp/$mix" 2>&1 ||
		{ echo "FAIL $mix: exit $?"; cat "$tmp/$mix"; fail=1; }
	for name in $want; do
		grep -qx "$name: $ops items" "$tmp/$mix" || { echo "FAIL $name:"; grep "^$name" "$tmp/$mix"; fail=1; }
	done
}
run database-256g 64MiB folio/tail-hugetlb-2m folio/tail-hugetlb-2m-dep lookup/random-hugetlb
run vm-host-512g 8GiB folio/tail-hugetlb-1g folio/tail-hugetlb-1g-dep lookup/random-hugetlb

[ $fail -eq 0 ] && echo "test_bench_hugetlb: hugetlb kernels on hugetlb mixes only, a fixed count on each layout"
exit $fail
