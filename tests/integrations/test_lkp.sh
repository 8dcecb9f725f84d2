#!/bin/sh
# LKP-tests' memdesc-bench program (integrations/lkp) in the vendored
# snapshot, offline: its run script runs a real (tiny) mdbench as LKP would
# (LKP_SRC, BENCHMARK_ROOT, TMP_RESULT_ROOT and the job's parameters in the
# environment), its parse turns the output into stats, LKP's sbin/dump-stat
# into memdesc-bench.json and bin/create-stats-matrix into stats.json: the
# stats must be every metric of the dump (integrations/mmtests/parse-dump's
# labels, the same names), each the median of its rounds, with its n.
# lkp compare is not run: it finds result roots under /lkp/result by their
# path scheme and index (docs/integrations.md).
#
#	test_lkp.sh MDBENCH
#
# MDB_LKP_TARBALL overrides ../shared/vendor/lkp-tests-bbbc29c.tar.gz.
set -eu
mdbench=$(realpath "$1")
. "$(dirname "$0")/vendor.sh"
tarball=$(vendored_tarball MDB_LKP_TARBALL lkp-tests-bbbc29c.tar.gz)
need_cmd ruby ruby
ruby -e 'require "active_support"' 2>/dev/null || { echo "skipped: no ruby-activesupport"; exit 77; }
py=/usr/bin/python3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tarball" -C "$tmp"
lkp=$(echo "$tmp"/lkp-tests-*)
"$top/integrations/lkp/install-into-lkp" "$lkp" >/dev/null
for f in run parse meta.yaml pkg/PKGBUILD pkg/depends source-tree; do
	[ -e "$lkp/programs/memdesc-bench/$f" ] || fail "install-into-lkp: no programs/memdesc-bench/$f"
done
[ -f "$lkp/jobs/memdesc-bench.yaml" ] || fail "install-into-lkp: no job"

# what lkp install would leave: the benchmark in $BENCHMARK_ROOT/memdesc-bench
mkdir -p "$tmp/benchmarks/memdesc-bench" "$tmp/rt"
ln -s "$mdbench" "$tmp/benchmarks/memdesc-bench/mdbench"
rt=$tmp/rt
(cd "$rt" && env LKP_SRC="$lkp" BENCHMARK_ROOT="$tmp/benchmarks" suite=memdesc-bench \
	TMP_RESULT_ROOT="$rt" profile=quick rounds=3 \
	options="--ram=64MiB --layout=page64,memdesc8 --benchmark_filter=^(lookup/random|footprint)/" \
	"$lkp/programs/memdesc-bench/run" >"$rt/memdesc-bench" 2>&1) ||
	{ tail -n 20 "$rt/memdesc-bench"; fail "programs/memdesc-bench/run"; }
[ -f "$rt/mdbench/mdbench.json" ] || fail "run left no dump in TMP_RESULT_ROOT/mdbench"
RESULT_ROOT=$rt "$lkp/programs/memdesc-bench/parse" <"$rt/memdesc-bench" >"$rt/stats.txt" ||
	fail "parse"
cat "$rt/stats.txt"
(cd "$rt" && RESULT_ROOT=$rt LKP_SRC=$lkp "$lkp/sbin/dump-stat" memdesc-bench <"$rt/stats.txt") ||
	fail "sbin/dump-stat"
printf 'suite: memdesc-bench\ntestcase: memdesc-bench\n' >"$rt/job.yaml"
LKP_SRC=$lkp ruby "$lkp/bin/create-stats-matrix" "$rt" || fail "bin/create-stats-matrix"
[ -f "$rt/stats.json" ] || fail "create-stats-matrix wrote no stats.json"

"$top/integrations/mmtests/parse-dump" "$rt/mdbench" >"$tmp/parsed"
"$py" - "$rt/stats.json" "$rt/memdesc-bench.json" "$tmp/parsed" <<'PYEOF'
import json, statistics, sys
stats, per_run = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want = {}
for line in open(sys.argv[3]):
	metric, bench, layout, _, value, _ = line.rstrip("\n").split("\t")
	want.setdefault(f"memdesc-bench.{metric}.{bench}.{layout}", []).append(float(value))
bad = []
for k, vals in want.items():
	if stats.get(k) != statistics.median(vals):
		bad.append(f"{k}: {stats.get(k)} in stats.json, the median of {vals} wanted")
	if stats.get(k + ".rounds") != len(vals):
		bad.append(f"{k}.rounds: {stats.get(k + '.rounds')}, {len(vals)} wanted")
	if per_run.get(k) != [stats.get(k)]:
		bad.append(f"{k}: {per_run.get(k)} in memdesc-bench.json")
extra = set(stats) - set(want) - {k + ".rounds" for k in want}
if extra:
	bad.append(f"stats.json has {sorted(extra)[:3]}, not of the dump")
metrics = {k.split(".")[1] for k in want}
if metrics != {"nsop", "ratio", "footprint"}:
	bad.append(f"metrics {sorted(metrics)}")
for b in bad:
	print("FAIL:", b)
sys.exit(1 if bad else 0)
PYEOF
echo "lkp: $(wc -l <"$tmp/parsed") round values of the dump as $(grep -c . "$rt/stats.txt") stats (medians and their rounds) in stats.json"
