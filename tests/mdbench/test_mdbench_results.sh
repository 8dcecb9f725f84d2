#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Results that cannot be mistaken for another run's:
#  - an --out holding an earlier run's dump is refused, --force replaces it,
#    and the new run has a run id of its own;
#  - a second run on the same --out is refused while the first holds its lock;
#  - SIGINT at any moment, from before the first write to mid-run, leaves
#    either no dump or this run's (complete false), never the earlier one's,
#    and the last stderr line says what is on disk.
# usage: test_mdbench_results.sh MDBENCH_TEST PYTHON
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2
fail=0
L0=$(first_layout)
# A short run of test/spin; no argument holds a space or a glob character.
ARGS="--layout=$L0 --ram=64MiB --counters=none --benchmark_min_time=0.02 --benchmark_filter=^test/spin/"
run() {	# run DIR ARGS...
	dir=$1
	shift
	"$mdbench" $ARGS --out="$dir" "$@"
}
run_id() {
	"$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["context"]["memdesc_bench"]["run_id"])' "$1"
}

# An earlier run's complete dump: refused, untouched; --force replaces it.
run "$tmp/a" >/dev/null 2>&1 || { echo "FAIL: first run"; fail=1; }
first=$(run_id "$tmp/a/mdbench.json")
cp "$tmp/a/mdbench.json" "$tmp/a.before"
run "$tmp/a" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || [ "$(cat "$tmp/err")" != "mdbench: --out=$tmp/a holds mdbench.json of an earlier run: give another --out, or --force to replace it" ] ||
   ! cmp -s "$tmp/a/mdbench.json" "$tmp/a.before"; then
	echo "FAIL: an earlier dump: exit $rc, $(cat "$tmp/err")"
	fail=1
fi
run "$tmp/a" --force >/dev/null 2>&1 || { echo "FAIL: --force run"; fail=1; }
second=$(run_id "$tmp/a/mdbench.json")
[ "$first" != "$second" ] || { echo "FAIL: two runs, one run id $first"; fail=1; }
echo "ok: earlier dump refused, --force replaced it ($first -> $second)"

# A stale sim.json is not left beside a new native run's dump.
echo '{}' >"$tmp/a/sim.json"
run "$tmp/a" --force >/dev/null 2>&1
[ ! -e "$tmp/a/sim.json" ] || { echo "FAIL: --force left an older sim.json"; fail=1; }

# Two runs on one --out: the second is refused while the first runs.
"$mdbench" $ARGS --out="$tmp/b" --rounds=20 >/dev/null 2>&1 &
pid=$!
for i in $(seq 100); do [ -e "$tmp/b/mdbench.json" ] && break; sleep 0.05; done
run "$tmp/b" --force >/dev/null 2>"$tmp/err"
rc=$?
wait $pid
rc_a=$?
if [ $rc -ne 2 ] || ! grep -Eq "^mdbench: --out=$tmp/b: another mdbench run \(pid $pid\) is writing there$" "$tmp/err" ||
   [ $rc_a -ne 0 ]; then
	echo "FAIL: two runs: second exit $rc ($(cat "$tmp/err")), first exit $rc_a"
	fail=1
else
	echo "ok: a second run on the same --out refused: $(cat "$tmp/err")"
fi

# SIGINT from the very start to mid-run, over an earlier complete dump (--force).
states=""
for delay in 0 0.005 0.01 0.02 0.04 0.08 0.15 0.3 0.6; do
	run "$tmp/c" >/dev/null 2>&1
	old=$(run_id "$tmp/c/mdbench.json")
	rm -f "$tmp/err"
	"$mdbench" $ARGS --out="$tmp/c" --force --rounds=4 >/dev/null 2>"$tmp/err" &
	pid=$!
	sleep $delay
	kill -INT $pid
	wait $pid
	rc=$?
	state=$("$py" - "$tmp/c" "$tmp/err" "$old" "$rc" <<'PY'
import json, os, sys
d, err, old, rc = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
path = os.path.join(d, "mdbench.json")
# killed between fork and exec, or before main() set its handler: mdbench never ran
if not os.path.exists(err) or (rc == 130 and not open(err).read()):
	mb = json.load(open(path))["context"]["memdesc_bench"]
	print("not-started" if rc == 130 and mb["run_id"] == old else f"FAIL no stderr, exit {rc}")
	sys.exit(0)
lines = open(err).read().splitlines()
last = lines[-1] if lines else ""
if rc == 0:		# finished before the signal: a complete dump of this run
	doc = json.load(open(path))
	mb = doc["context"]["memdesc_bench"]
	ok = mb["complete"] and mb["run_id"] != old
	print("finished" if ok else "FAIL finished but " + json.dumps(mb["run_id"]))
	sys.exit(0)
if rc != 130:
	print(f"FAIL exit {rc}: {lines}")
elif not os.path.exists(path):
	ok = last == f"mdbench: interrupted before any result was written (no {path})"
	print("before-any-write" if ok else f"FAIL no dump, but: {last!r}")
elif last in (f"mdbench: interrupted before the run started; {d} is as it was",
	      "mdbench: interrupted before the run started"):	# before --out was parsed
	mb = json.load(open(path))["context"]["memdesc_bench"]
	ok = mb["run_id"] == old
	print("before-start" if ok else f"FAIL said untouched, holds run {mb['run_id']} (old {old})")
else:
	doc = json.load(open(path))
	mb = doc["context"]["memdesc_bench"]
	n = len(doc["benchmarks"])
	want = f"mdbench: interrupted, {n} benchmark results kept in {path}"
	# complete only when the signal came after the last write, before exit:
	# then its 4 rounds and their median aggregate
	its = sum(e["run_type"] == "iteration" for e in doc["benchmarks"])
	ok = mb["run_id"] != old and last == want and (mb["complete"] is False or (its, n) == (4, 5))
	print(f"kept-{min(n, 1)}" if ok else f"FAIL {last!r}, {n} on disk, run {mb['run_id']} (old {old})")
left = [f for f in os.listdir(d) if ".tmp" in f]
if left:
	print(f"FAIL temporaries left: {left}")
PY
)
	case $state in
	*FAIL*) echo "FAIL: SIGINT after ${delay}s: $state"; fail=1 ;;
	*) states="$states $delay:$(echo $state)" ;;
	esac
done
echo "ok: SIGINT at every moment left a consistent dump:$states"
exit $fail
