#!/bin/sh
# mmtests runs the memdescbench benchmark (integrations/mmtests) from the
# vendored snapshot, offline: a tiny config under two run names, then
# compare-kernels.sh must print every metric parse-dump reads from the dump
# with mmtests' statistics; an A/A pair (each mean moved by a quarter of its
# rounds' standard deviation) gets no significance mark, and does with an R
# that fails (so R is what decides); a layout made 2x slower is marked.
#
#	test_mmtests.sh MDBENCH
#
# MDB_MMTESTS_TARBALL overrides ../shared/vendor/mmtests-638401e.tar.gz.
set -eu
mdbench=$(realpath "$1")
. "$(dirname "$0")/vendor.sh"
tarball=$(vendored_tarball MDB_MMTESTS_TARBALL mmtests-638401e.tar.gz)
need_cmd R r-base-core
need_perl File::Which libfile-which-perl
need_perl YAML::PP libyaml-pp-perl
need_perl File::Slurp libfile-slurp-perl
py=/usr/bin/python3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tarball" -C "$tmp"
mm=$(echo "$tmp"/mmtests-*)
"$top/integrations/mmtests/install-into-mmtests" "$mm" >/dev/null
[ -x "$mm/shellpack_src/src/memdescbench/parse-results" ] || fail "install-into-mmtests: no parse-results"
[ "$(cat "$mm/shellpack_src/src/memdescbench/source-tree")" = "$top" ] || fail "source-tree is not $top"
for c in quick full basepage-4k basepage-16k basepage-64k; do
	[ -f "$mm/configs/config-workload-memdescbench-$c" ] || fail "no config $c"
done

# The smallest run that has all three metrics: two layouts, one kernel, the
# footprint, 64 MiB, 5 rounds.
cat >"$tmp/config" <<CFG
export MMTESTS="memdescbench"
export RUN_MONITOR=no
export MEMDESCBENCH_PROFILE=quick
export MEMDESCBENCH_ROUNDS=5
export MEMDESCBENCH_OPTIONS="--ram=64MiB --layout=page64,memdesc8 --benchmark_filter=^(lookup/random|footprint)/"
export MEMDESCBENCH_MDBENCH=$mdbench
CFG
cd "$mm"
for run in run-a run-b; do
	ASSUME_PACKAGE_INSTALLED=yes ./run-mmtests.sh --no-monitor --config "$tmp/config" $run \
		>"$tmp/$run.log" 2>&1 || { tail -n 20 "$tmp/$run.log"; fail "run-mmtests.sh $run"; }
	[ -f "work/log/$run/iter-0/memdescbench/logs/mdbench/mdbench.json" ] ||
		{ tail -n 20 "$tmp/$run.log"; fail "$run left no dump"; }
done
logs=work/log/run-a/iter-0/memdescbench/logs

# compare-kernels.sh STDOUT ARGS...: its report, and the Amean rows alone
compare() {
	out=$1
	shift
	(cd work/log && ASSUME_PACKAGE_INSTALLED=yes ../../compare-kernels.sh "$@") >"$out" 2>"$out.err" ||
		{ cat "$out.err"; fail "compare-kernels.sh $*"; }
	grep '^Amean ' "$out" >"$out.amean" || fail "compare-kernels.sh $*: no Amean rows"
}
compare "$tmp/ab" --baseline run-a --compare run-b
cat "$tmp/ab"

# Every label of the dump (metric-factorA-factorB, as mmtests joins them)
# in the Amean rows, and each of the three metrics there.
"$mm/shellpack_src/src/memdescbench/parse-results" "$logs" >"$tmp/parsed"
cut -f1-3 "$tmp/parsed" | sort -u | tr '\t' '-' >"$tmp/labels"
[ "$(wc -l <"$tmp/labels")" -ge 5 ] || fail "parse-results gave $(wc -l <"$tmp/labels") labels"
for m in nsop ratio footprint; do
	grep -q "^$m-" "$tmp/labels" || fail "no $m metric in parse-results"
done
while read -r label; do
	awk -v l="$label" '$2 == l { found = 1 } END { exit !found }' "$tmp/ab.amean" ||
		fail "compare-kernels.sh shows no Amean row for $label"
done <"$tmp/labels"
[ "$(wc -l <"$tmp/ab.amean")" -eq "$(wc -l <"$tmp/labels")" ] ||
	fail "$(wc -l <"$tmp/ab.amean") Amean rows for $(wc -l <"$tmp/labels") labels"

# Doctored copies of run-a, compared by compare-mmtests.pl as
# compare-kernels.sh does, so that what is marked does not hang on this
# machine's noise: run-c is run-a in other units (every time x1000, so that
# mmtests' fallback without R, which marks a mean difference above 1, has
# something to mark), each other layout's round k at the reference's times
# the median ratio times 1 + k/100 (a ratio row with a small, known spread);
# run-d moves each benchmark's mean in run-c by a quarter of the standard
# deviation of its rounds (an A/A pair); run-e makes every layout but the
# reference 2x slower than in run-c.
for run in run-c run-d run-e; do
	cp -R work/log/run-a "work/log/$run"
done
"$py" - work/log/run-c work/log/run-d work/log/run-e <<'PYEOF'
import json, statistics, sys
dump = "/iter-0/memdescbench/logs/mdbench/mdbench.json"
for run, how in zip(sys.argv[1:], ("scale", "aa", "slow")):
	doc = json.load(open(run + dump))
	mb = doc["context"]["memdesc_bench"]
	ref, layouts = mb["reference_layout"], {l["name"] for l in mb["layouts"]}
	doc["benchmarks"] = [e for e in doc["benchmarks"] if e.get("run_type") != "aggregate"]
	rounds = {}
	for e in doc["benchmarks"]:
		if "real_time" in e:
			e["real_time"] *= 1000
			rounds.setdefault(e["name"], []).append(e)
	def layout(name):
		return next((p for p in name.split("/") if p in layouts), None)
	refs = {n.replace(f"/{ref}/", "/*/"): es for n, es in rounds.items() if layout(n) == ref}
	for n, es in rounds.items():
		mine = refs.get(n.replace(f"/{layout(n)}/", "/*/"))
		if layout(n) in (None, ref) or not mine or len(mine) != len(es):
			continue
		r = statistics.median(e["real_time"] / m["real_time"] for e, m in zip(es, mine))
		for k, (e, m) in enumerate(zip(es, mine)):
			e["real_time"] = m["real_time"] * r * (1 + k / 100) * (2 if how == "slow" else 1)
	if how == "aa":
		for es in rounds.values():
			if len(es) > 1:
				es[0]["real_time"] += len(es) * statistics.stdev(e["real_time"] for e in es) / 4
	json.dump(doc, open(run + dump, "w"))
PYEOF
# cmp OUT RUNS ROWS: compare-mmtests.pl's table of the runs (the rows whose
# label matches ROWS: mmtests asks R once per statistic of each), and its
# Amean rows
cmp() {
	out=$1
	shift
	(cd work/log && ../../bin/compare-mmtests.pl -d . -b memdescbench -n "$1" --sub-heading "$2") \
		>"$out" 2>"$out.err" ||
		{ cat "$out.err"; fail "compare-mmtests.pl -n $1"; }
	grep '^Amean ' "$out" >"$out.amean" || fail "compare-mmtests.pl -n $1: no Amean rows"
}
cmp "$tmp/cd" run-c,run-d "^nsop-"
if grep -q '\*' "$tmp/cd.amean"; then
	cat "$tmp/cd.amean"
	fail "A/A pair run-c, run-d: a significance mark"
fi
# an R that fails: mmtests' intervals collapse and every difference is marked
mkdir "$tmp/noR"
printf '#!/bin/sh\nexit 1\n' >"$tmp/noR/R"
chmod +x "$tmp/noR/R"
PATH="$tmp/noR:$PATH" cmp "$tmp/cd-noR" run-c,run-d "^nsop-"
grep '^Amean *nsop' "$tmp/cd-noR.amean" | grep -q '\*' ||
	{ cat "$tmp/cd-noR.amean"; fail "without R the A/A pair is not marked: R decided nothing"; }
cmp "$tmp/ce" run-c,run-e "^(ratio|footprint)-"
cat "$tmp/ce.amean"
grep '^Amean *ratio-' "$tmp/ce.amean" | grep -v '\*' &&
	fail "a layout 2x slower: its ratio row is not marked significant"
grep '^Amean *footprint-' "$tmp/ce.amean" | grep '\*' && fail "footprint rows (unchanged) marked"
echo "mmtests: $(wc -l <"$tmp/labels") labels in compare-kernels.sh; A/A unmarked, 2x marked"
