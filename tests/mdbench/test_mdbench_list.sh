#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mdbench --list and --list=json: benchmark names as mdbench.h spells them,
# in registration order (RAM, mix, layout, then kernels by pass and name,
# baselines last); layouts in layouts.list order with their sizes; kernels
# with class and unit; counters with their encodings; the filter as Google
# Benchmark's (regex search, "-" negates, "all").
# usage: test_mdbench_list.sh MDBENCH_TEST PYTHON
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2
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

"$mdbench" --list=json --ram=64MiB --counters=none >"$tmp/list.json" || fail=1
set -- $("$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(l["name"] for l in d["layouts"]))' "$tmp/list.json")
L0=$1
L1=$2
nr_layouts=$#
layouts="$*"

got=$(names --layout=$L0 --ram=64MiB --benchmark_filter=^test/)
want="test/error/$L0/mix:desktop/ram:64MiB
test/mark/$L0/mix:desktop/ram:64MiB
test/seen/$L0/mix:desktop/ram:64MiB
test/fresh/$L0/mix:desktop/ram:64MiB
test/faults/bytes:1MiB
test/halves/bytes:1MiB
test/spin/bytes:1MiB"
check "test kernels: shared-memmap ones by name, then the one that mutates, baselines last" "$want" "$got"

# Baseline sizes: memmap bytes of each layout at each RAM size, deduplicated, ascending.
got=$(names --layout=$L0,$L0 --ram=96MiB,64MiB,64MiB --benchmark_filter=^test/faults)
want="test/faults/bytes:1MiB
test/faults/bytes:1536KiB"
check "baseline sizes as the largest exact binary unit" "$want" "$got"

got=$(names --layout=$L1 --ram=64MiB,1GiB --mix=desktop,server --benchmark_filter='^test/mark/')
want="test/mark/$L1/mix:desktop/ram:64MiB
test/mark/$L1/mix:server/ram:64MiB
test/mark/$L1/mix:desktop/ram:1GiB
test/mark/$L1/mix:server/ram:1GiB"
check "RAM sizes outermost, then mixes" "$want" "$got"

got=$(names --layout=$L1,$L0 --ram=64MiB --benchmark_filter='^test/mark/' | cut -d/ -f3)
check "layouts in layouts.list order, the reference first" "$L0 $L1" "$(echo $got)"

all=$(names --ram=64MiB | wc -l)
tests=$(names --ram=64MiB --benchmark_filter=^test/ | wc -l)
others=$(names --ram=64MiB --benchmark_filter=-^test/ | wc -l)
every=$(names --ram=64MiB --benchmark_filter=all | wc -l)
check "negative filter is the complement" "$all" "$((tests + others))"
check "'all' matches everything" "$all" "$every"
nr_sizes=$(names --ram=64MiB --benchmark_filter=^test/faults/ | wc -l)
check "every layout x 4 test kernels + 3 baselines x its sizes" \
	"$((nr_layouts * 4 + 3 * nr_sizes))" "$tests"
got=$(names --ram=64MiB --benchmark_filter=-^test/ | grep -c '^test/')
check "negative filter keeps no test/ benchmark" "0" "$got"

if [ "$(awk '/^MemAvailable:/{print $2}' /proc/meminfo)" -gt 8388608 ]; then
	got=$(names --profile=full --benchmark_filter=^test/mark/$L0/ 2>/dev/null | grep -v '/twin:' |
		sed 's|.*/ram:||')
	want="256MiB
1GiB
4GiB
16GiB
64GiB"
	check "--profile=full: 256MiB to 64GiB by x4" "$want" "$got"
fi
got=$(names --llc=16MiB --benchmark_filter=^test/mark/$L0/ | grep -v '/twin:' | sed 's|.*/ram:||')
twins=$(names --llc=16MiB --benchmark_filter=^test/mark/ | grep '/twin:' | sed 's|.*/ram:||')
headline=$("$mdbench" --list=json --counters=none --llc=16MiB | "$py" -c 'import json, sys
print(json.load(sys.stdin)["machine"]["headline_ram"] or "")')
if [ -n "$headline" ]; then
	want="256MiB
$headline"
else
	want="256MiB
1GiB
4GiB"
fi
check "default profile quick: 256MiB and the headline size (else 1GiB, 4GiB)" "$want" "$got"
if [ -n "$headline" ]; then
	check "the reference's placebo twin at the headline size alone" "$headline/twin:b" "$twins"
	got=$(names --benchmark_filter=^test/mark/ | grep '/twin:' | sed 's|/ram:.*||')
	check "the twin is the reference layout's" "test/mark/$L0/mix:desktop" "$got"
fi

"$mdbench" --list --ram=64MiB >"$tmp/list" 2>"$tmp/err"
rc=$?
check "--list exits 0" "0" "$rc"
check "--list prints nothing on stderr" "" "$(cat "$tmp/err")"
count=$(sed -n 's/^benchmarks (\([0-9]*\)):$/\1/p' "$tmp/list")
check "--list's count is the number of names" "$all" "$count"
got=$(sed -n '/^layouts/,/^kernels/p' "$tmp/list" | awk '/^  /{print $1}')
check "every layout listed, in order" "$layouts" "$(echo $got)"
got=$(sed -n '/^counters:/,/^mixes/p' "$tmp/list" | awk '/^  [^ ]/{print $1}')
want="cycles
instructions
L1D_load_misses
LLC_load_misses
dTLB_load_misses
page_faults"
check "default counters listed" "$want" "$got"
got=$(grep -cE '^  page_faults +available$' "$tmp/list")
check "page_faults available" "1" "$got"
got=$(grep -cE '^      type 1 \(software\), config 0x2: perf::PERF_COUNT_SW_PAGE_FAULTS' "$tmp/list")
check "page_faults' encoding listed" "1" "$got"
if [ ! -e /sys/bus/event_source/devices/cpu ] && [ ! -e /sys/bus/event_source/devices/cpu_core ]; then
	got=$(grep -cE '^  cycles +unavailable: .+PMU' "$tmp/list")
	check "no CPU PMU: cycles unavailable with a reason" "1" "$got"
fi
grep -q '^mixes built in: .*desktop' "$tmp/list"
check "built-in mixes listed" "0" "$?"

# --list=json: what scripts/collect reads.
"$py" - "$tmp/list.json" "$all" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
def check(ok, what):
	if not ok:
		bad.append(what)
check(d["schema_version"] == 2, "schema_version 2")
check(d["reference_layout"] == d["layouts"][0]["name"], "the reference is the first layout")
check(len(d["benchmarks"]) == int(sys.argv[2]), f"{len(d['benchmarks'])} benchmarks")
for l in d["layouts"]:
	check(l["descriptors"] == any(l["desc_sizes"].values()), f"{l['name']}: descriptors")
	check(l["sizeof_folio"] == l["desc_sizes"]["folio"], f"{l['name']}: sizeof_folio")
classes = {k["name"]: k["class"] for k in d["kernels"]}
check(classes.get("test/mark") == "dependent" and classes.get("test/faults") == "baseline",
      f"classes {classes}")
for b in d["benchmarks"]:
	check(b["kernel"] in classes, f"{b['name']}: kernel listed")
	if b["layout"]:
		threads = f"/threads:{b['params']['threads']}" if "threads" in b["params"] else ""
		variant = "".join(f"/{k}:{v}" for k, v in b["params"].items()
				  if k not in ("mix", "ram", "threads"))
		check(b["name"] == f"{b['kernel']}/{b['layout']}/mix:{b['mix']}/ram:{b['params']['ram']}"
		      f"{variant}{threads}", f"{b['name']}: parts")
		check(b["threads"] == b["params"].get("threads", 1), f"{b['name']}: threads")
	else:
		check(b["name"] == f"{b['kernel']}/bytes:{b['params']['bytes']}", f"{b['name']}: parts")
check(d["counters"]["available"] == [] and d["counters"]["unavailable"] == [] and d["counters"]["hw_groups"] == 0, "--counters=none: no counters")
check("desktop" in d["mixes_builtin"], "built-in mixes")
for w in bad:
	print("FAIL: --list=json:", w)
sys.exit(1 if bad else 0)
PY
exit $fail
