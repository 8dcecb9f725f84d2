#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The hugetlb kernels: the plan gives them only mixes with hugetlb folios of
# their size (none on desktop), with HVO off and on (hvo:off, hvo:on; the
# remapping kernels with HVO on only, and only where the layout's HVO frees
# pages of such a folio), and on such mixes every layout runs them a fixed
# count (mdbench --fixed-ops), 2 MiB ones on the database mix, 1 GiB ones on
# the VM host (which needs at least 8 GiB to hold its seven 1 GiB folios;
# the memmap of each layout and HVO mode is built once per group).  --hvo
# names the modes.  Runs under the Asan build too.
#
# usage: test_bench_hugetlb.sh MDBENCH RESULTS_MIXES
. "$(dirname "$0")/../lib.sh"
mdbench=$1
mixes=$2
fail=0

names() {
	"$mdbench" --list=json --counters=none "$@" | /usr/bin/python3 -c \
		'import json, sys; print("\n".join(b["name"] for b in json.load(sys.stdin)["benchmarks"]))'
}

got=$(names --ram=64MiB --mix=desktop | grep -c 'hugetlb\|hvo')
[ "$got" -eq 0 ] || { echo "FAIL: $got hugetlb or hvo benchmarks on desktop"; fail=1; }
layouts=$("$mdbench" --list=json --counters=none | /usr/bin/python3 -c \
	'import json, sys; print(" ".join(l["name"] for l in json.load(sys.stdin)["layouts"]))')

# run MIX RAM OPS MODES KERNELS...: each kernel on each layout in each HVO mode
# (a kernel ending in ":on" only with HVO on, and not on NOT_ON's layouts),
# OPS items each, nothing else.
run() {
	mix=$1 ram=$2 ops=$3 modes=$4
	shift 4
	filter=$(echo "$*" | sed 's/:on//g; s/ /|/g')
	list=$(names --ram="$ram" --mix="$mixes/$mix.json" | grep -E "^($filter)/")
	want=$(for k in "$@"; do for l in $layouts; do for m in $modes; do
		case $k in *:on) [ "$m" = on ] || continue
			case " $not_on " in *" $l "*) continue;; esac;; esac
		echo "${k%:on}/$l/mix:$mix/ram:$ram/hvo:$m"
	done; done; done | sort)
	[ "$(echo "$list" | sort)" = "$want" ] ||
		{ echo "FAIL $mix: hugetlb benchmarks"; echo "$list"; echo "want:"; echo "$want"; fail=1; }
	"$mdbench" --ram="$ram" --mix="$mixes/$mix.json" --counters=none --fixed-ops="$ops" \
		--benchmark_filter="^($filter)/" >"$tmp/out" 2>&1 ||
		{ echo "FAIL $mix: exit $?"; cat "$tmp/out"; fail=1; }
	for name in $want; do
		grep -qx "$name: $ops items" "$tmp/out" || { echo "FAIL $name:"; grep "^$name" "$tmp/out"; fail=1; }
	done
}
not_on=
run database-256g 64MiB 64 "off on" folio/tail-hugetlb-2m folio/tail-hugetlb-2m-dep \
	lookup/random-hugetlb
run vm-host-512g 8GiB 64 "off on" folio/tail-hugetlb-1g folio/tail-hugetlb-1g-dep \
	lookup/random-hugetlb
# The remapping, a few folios each; memdesc8's 2 MiB folios fill one vmemmap page: none.
not_on=memdesc8
run database-256g 64MiB 8 "off on" hvo/restore-optimise-2m:on
not_on=
run vm-host-512g 8GiB 2 "off on" hvo/restore-optimise-1g:on

# --hvo=on: every kernel with HVO on only; --hvo=off: none of the remapping ones.
n=$(names --ram=64MiB --mix="$mixes/database-256g.json" --hvo=on | grep -v '/bytes:' | grep -Evc '/hvo:on(/cache:[a-z0-9-]+)?(/threads:[0-9]+)?$')
[ "$n" -eq 0 ] || { echo "FAIL: --hvo=on left $n benchmarks without hvo:on"; fail=1; }
n=$(names --ram=64MiB --mix="$mixes/database-256g.json" --hvo=on | grep -c '^lookup/seq/')
[ "$n" -gt 0 ] || { echo "FAIL: --hvo=on runs no lookup/seq"; fail=1; }
n=$(names --ram=64MiB --mix="$mixes/database-256g.json" --hvo=off | grep -Ec '^hvo/|/hvo:on(/cache:[a-z0-9-]+)?(/threads:[0-9]+)?$')
[ "$n" -eq 0 ] || { echo "FAIL: --hvo=off plans $n HVO-on benchmarks"; fail=1; }

[ $fail -eq 0 ] && echo "test_bench_hugetlb: hugetlb kernels on hugetlb mixes only, HVO off and on, a fixed count on each layout"
exit $fail
