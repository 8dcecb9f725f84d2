#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mdbench's threaded benchmarks through its own path (--threads, the shared
# set-up in native.c, pinning), each for a fixed count of ops on every
# thread: the items each reports, and --threads' refusals.  In the Tsan
# build, a race ThreadSanitizer reports fails the run (its exit status 66).
#
# usage: test_bench_threads.sh MDBENCH
. "$(dirname "$0")/../lib.sh"
mdbench=$1
ram=64MiB
nr_pfns=16384
ops=256
fail=0

threads=1
[ "$(nproc)" -ge 2 ] && threads=1,2

"$mdbench" --ram=$ram --mix=desktop --counters=none --fixed-ops=$ops --threads=$threads \
	--benchmark_filter='/threads:' >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; cat "$tmp/out"; fail=1; }
nr=0
while IFS= read -r line; do
	name=${line%%: *}
	rest=${line#*: }
	n=${name##*/threads:}
	case $name in
	init/memmap-deferred/*) want=$nr_pfns ;;	# one boot, shared out
	*) want=$((n * ops)) ;;
	esac
	nr=$((nr + 1))
	[ "$rest" = "$want items" ] || { echo "FAIL $name: $rest, want $want items"; fail=1; }
done <"$tmp/out"
[ $nr -gt 0 ] || { echo "FAIL: no threaded benchmark ran"; fail=1; }

# Every threaded kernel, every layout, every count asked for.
want=$("$mdbench" --list=json --counters=none --ram=$ram --threads=$threads | /usr/bin/python3 -c \
	'import json, sys; print(sum("/threads:" in b["name"] for b in json.load(sys.stdin)["benchmarks"]))')
[ "$nr" -eq "$want" ] || { echo "FAIL: $nr threaded benchmarks ran, $want listed"; fail=1; }

# Timed, briefly, into a dump: each entry with its threads, the conditions, the table.
"$mdbench" --ram=$ram --mix=desktop --counters=none --threads=$threads --benchmark_min_time=0.01 \
	--benchmark_filter='/threads:' --out="$tmp/dump" >"$tmp/timed" 2>&1 ||
	{ echo "FAIL: the timed run"; tail -n 20 "$tmp/timed"; fail=1; }
/usr/bin/python3 - "$tmp/dump/mdbench.json" "$threads" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
want = [int(t) for t in sys.argv[2].split(",")]
mb = doc["context"]["memdesc_bench"]
bad = []
th = mb["conditions"]["threads"]
if th["counts"] != want or not th["cpus"] or not th["placement"]:
	bad.append(f"conditions.threads {th}")
for e in doc["benchmarks"]:
	n = int(e["name"].rsplit("/threads:", 1)[1])
	if e.get("threads") != n or e.get("error_occurred") or not e.get("real_time", 0) > 0:
		bad.append(f"{e['name']}: threads {e.get('threads')}, {e.get('error_message', '')}")
if len(doc["benchmarks"]) == 0:
	bad.append("no benchmark in the dump")
rows = mb["false_sharing"]
keys = {"layout", "object", "stride", "line_offset", "pairs", "hot_field", "neighbour_field"}
if not rows or any(not keys <= set(r) for r in rows):
	bad.append("false_sharing rows missing or incomplete")
for layout, obj, cache in {(r["layout"], r["object"], r.get("desc_cache")) for r in rows}:
	at = {r["line_offset"]: r["pairs"] for r in rows
	      if (r["layout"], r["object"], r.get("desc_cache")) == (layout, obj, cache)}
	if abs(sum(at.values()) - 1) > 1e-9:
		bad.append(f"false_sharing {layout} {obj} {cache}: the pairs add up to {sum(at.values())}")
for b in bad:
	print("FAIL", b)
sys.exit(1 if bad else 0)
PY

# More threads than CPUs, 0, junk: one line, exit 2.
for bad in "$(( $(nproc) + 1 ))" 0 x 1,,2; do
	out=$("$mdbench" --list --threads="$bad" 2>&1)
	rc=$?
	[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] ||
		{ echo "FAIL --threads=$bad: exit $rc: $out"; fail=1; }
done

[ $fail -eq 0 ] && echo "test_bench_threads: $nr threaded benchmarks ran their ops on every thread"
exit $fail
