#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mdbench's interface for sizing runs to the machine: the LLC and the
# headline size (machine), the quick profile's sizes, --ram=headline, working_set_bytes, ram_over_llc
# and est_seconds in --list=json and the dump, the smoke profile's coverage,
# progress lines, median aggregates, --rounds=auto's groups, quick
# --simulate's selection, the console without our JSON, and the option
# errors.
# usage: test_mdbench_scale.sh MDBENCH PYTHON MIXES_DIR
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2
mixes=$3
fail=0

err() {	# err PATTERN ARGS...: exit status 2 and one line matching PATTERN
	pat=$1
	shift
	"$mdbench" "$@" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ "$rc" -ne 2 ] || [ "$(wc -l <"$tmp/e")" -ne 1 ] || ! grep -q "$pat" "$tmp/e"; then
		echo "FAIL: mdbench $*: exit $rc, stderr:"; cat "$tmp/e"; fail=1
	fi
}
err "unknown --profile=bogus (quick, full or smoke)" --profile=bogus --list
err "^mdbench: --time-budget needs --rounds=auto" --time-budget=10 --list
err "^mdbench: --time-budget=0: at least 1 second" --rounds=auto --time-budget=0 --list
err "^mdbench: --rounds=auto: only for a timed run" --rounds=auto --simulate --out="$tmp/s"
err "^mdbench: --rounds=auto: only for a timed run" --rounds=auto --fixed-ops=1

"$mdbench" --list=json --counters=none --llc=16MiB >"$tmp/quick.json" || fail=1
"$mdbench" --list=json --counters=none --llc=16MiB --ram=headline >"$tmp/headline.json" || fail=1
"$mdbench" --list=json --counters=none --profile=smoke \
	--mix="desktop,$mixes/database-256g.json,$mixes/vm-host-512g.json" >"$tmp/smoke.json" || fail=1
"$mdbench" --list=json --llc=16MiB --simulate --out="$tmp/sim" >"$tmp/sim.json" || fail=1
"$mdbench" --list=json --counters=none --llc=16MiB --ram=256MiB >"$tmp/all.json" || fail=1
"$mdbench" --list=json --counters=none --llc=measure --ram=256MiB >"$tmp/measured.json" || fail=1

# Two rounds of a few benchmarks, two layouts; then --rounds=auto with a 1-second budget.
short="--ram=32MiB --layout=page64,memdesc8 --counters=none --benchmark_min_time=0.005"
# shellcheck disable=SC2086
"$mdbench" $short --rounds=2 --benchmark_filter='^(lookup/seq|baseline/latency|footprint)/' \
	--out="$tmp/two" >"$tmp/two.out" 2>"$tmp/two.err" || { cat "$tmp/two.err"; fail=1; }
# shellcheck disable=SC2086
"$mdbench" $short --rounds=auto --time-budget=1 --benchmark_filter='^lookup/seq/' \
	--out="$tmp/auto" >"$tmp/auto.out" 2>"$tmp/auto.err" || { cat "$tmp/auto.err"; fail=1; }

"$py" - "$tmp" <<'PY' || fail=1
import json, math, re, statistics, sys
tmp = sys.argv[1]
bad = []
def check(cond, what):
	if not cond:
		bad.append(what)
def load(name):
	with open(f"{tmp}/{name}") as f:
		return json.load(f)

quick, headline, smoke, sim, every = (load(n + ".json") for n in ("quick", "headline", "smoke", "sim", "all"))
# --llc=measure: the probe's curve, its knees, each hwloc level beside; the measured last level where
# it and hwloc's differ by more than 2x (which one this machine gives is not the test's to say).
mm = load("measured.json")["machine"]
probe, hw, got = mm["probe"], mm["llc_hwloc_bytes"], mm["llc_measured_bytes"]
check(probe and len(probe["curve"]) >= 3 and probe["curve"][0]["bytes"] == 8192 and
      all(b["bytes"] == 2 * a["bytes"] for a, b in zip(probe["curve"], probe["curve"][1:])), "probe: a doubling curve")
check(all(p["ns"] > 0 for p in probe["curve"]), "probe: every size timed")
check(mm["llc_source"] in ("measured", "hwloc") and mm["llc_reason"], f"llc_source {mm['llc_source']}")
if mm["llc_source"] == "measured":
	check(mm["llc_bytes"] == got and (not hw or got > 2 * hw or hw > 2 * got), "measured: it differs from hwloc's by > 2x")
	# a last level above hwloc's level below it, or the reason says the probes never saw one
	data = [c["hwloc_bytes"] for c in mm["caches"] if c["type"] != "instruction"]
	below = data[-2] if len(data) >= 2 else 0
	check(got > below or "none above hwloc's level below the last" in mm["llc_reason"],
	      f"measured {got}: not above hwloc's level below ({below}), and no reason why")
elif got:
	check(mm["llc_bytes"] == hw and got <= 2 * hw and hw <= 2 * got, "hwloc's kept: the measured within 2x")
check(all("hwloc_bytes" in c and "cpus" in c and "measured_bytes" in c for c in mm["caches"]), "caches: hwloc's and measured")
check(quick["machine"]["llc_source"] == "given" and quick["machine"]["llc_bytes"] == 16 << 20, "--llc=16MiB")
m = quick["machine"]
llc, head = m["llc_bytes"], m["headline_ram_bytes"]
if llc is None:
	check(head is None and quick["ram_sizes"] == [256 << 20, 1 << 30, 4 << 30],
	      "no LLC: no headline, the old quick sizes")
else:
	check(head & (head - 1) == 0 and head % (2 << 20) == 0, f"headline {head}: a power of two of 2MiB steps")
	check(head >= 16 * llc or m["headline_capped"], f"headline {head} below 16 x LLC {llc}, not capped")
	check(head // 2 < 16 * llc or m["headline_reason"], "a reason for going past 16 x LLC")
	check(quick["ram_sizes"] == [256 << 20, head], f"quick sizes {quick['ram_sizes']}: 256MiB and the headline")
	check(headline["ram_sizes"] == [head], "--ram=headline is the headline size")
	qcls = {k["name"]: k["class"] for k in quick["kernels"]}
	mut = {b["ram_bytes"] for b in quick["benchmarks"] if qcls[b["kernel"]] == "mutating"}
	check(mut == {256 << 20}, f"quick: the mutating kernels at 256MiB only, not the headline ({mut})")
	check(any(b["ram_bytes"] == head and b["kernel"] == "lookup/random" for b in quick["benchmarks"]),
	      "quick: lookup/random at the headline size")
	hl = {(b["kernel"], b["ram_bytes"]) for b in headline["benchmarks"]}
	check(("alloc/order0", head) in hl, "--ram=headline runs every kernel there")
	for b in quick["benchmarks"]:
		if b["ram_bytes"]:
			check(b["ram_over_llc"] == b["ram_bytes"] / llc, f"{b['name']}: ram_over_llc")
for b in quick["benchmarks"]:
	check(isinstance(b["working_set_bytes"], int) and b["working_set_bytes"] >= 0, f"{b['name']}: working set")
	check(b["est_seconds"] > 0, f"{b['name']}: est_seconds")
	if b["buf_bytes"] is not None:
		check(b["working_set_bytes"] == b["buf_bytes"], f"{b['name']}: a baseline's working set is its buffer")
ws = {b["name"]: b["working_set_bytes"] for b in every["benchmarks"]}
check(ws.get("lookup/random/page64/mix:desktop/ram:256MiB") == 4194304, "page64 lookup/random at 256MiB: 64 B a pfn")
check(ws.get("convert/pfn_to_page/page64/mix:desktop/ram:256MiB") == 0, "convert/ reads no metadata")

# Smoke: every kernel registered, on every layout it runs on.
kernels = {k["name"] for k in smoke["kernels"]}
layouts = [l["name"] for l in smoke["layouts"]]
ran = {(b["kernel"], b["layout"]) for b in smoke["benchmarks"]}
for k in kernels:
	check(any(kk == k for kk, _ in ran), f"smoke: kernel {k} never runs")
for l in layouts:
	check(any(ll == l for _, ll in ran), f"smoke: layout {l} never runs")
check(max(b["ram_bytes"] or 0 for b in smoke["benchmarks"]) <= 2 << 30, "smoke: small RAM")
check(len(smoke["benchmarks"]) < len(quick["benchmarks"]), "smoke: fewer than quick")

# quick --simulate: the headline kernels (dependent, reading the memmap) and reports, at 256MiB.
cls = {k["name"]: k["class"] for k in sim["kernels"]}
check(sim["benchmarks"] and all(cls[b["kernel"]] in ("dependent", "report") for b in sim["benchmarks"]),
      "quick --simulate: dependent and report kernels only")
check({b["ram_bytes"] for b in sim["benchmarks"]} == {256 << 20}, "quick --simulate: 256MiB only")

# Two rounds: progress lines, working sets in the entries, one median per benchmark.
d = load("two/mdbench.json")
entries = d["benchmarks"]
its = [e for e in entries if e["run_type"] == "iteration"]
# a report kernel (footprint) runs in the first round only: no median of one
once = [e for e in its if e["run_name"].startswith("footprint/")]
check(len(once) == 5 and len({e["run_name"] for e in once}) == 5,
      f"footprint: {[e['name'] for e in once]}: once each (2 layouts, 3 cache options of memdesc8)")
its = [e for e in its if e not in once]
aggs = [e for e in entries if e["run_type"] == "aggregate"]
names = {e["run_name"] for e in its}
check(len(its) == 2 * len(names) and len(aggs) == len(names), f"{len(its)} runs, {len(aggs)} medians of {len(names)}")
for a in aggs:
	reps = [e for e in its if e["run_name"] == a["run_name"]]
	check(a["name"] == a["run_name"] + "_median" and a["aggregate_name"] == "median" and a["repetitions"] == 2,
	      f"{a['name']}: Google Benchmark's aggregate fields")
	check(a["real_time"] == statistics.median(e["real_time"] for e in reps), f"{a['name']}: the median")
for e in its:
	check("working_set_bytes" in e and "ram_over_llc" in e, f"{e['name']}: working set fields")
prog = [l for l in open(f"{tmp}/two.err") if l.startswith("mdbench: progress ")]
runs = len(its) + len(once)
check(len(prog) == runs, f"{len(prog)} progress lines for {runs} runs")
check(all(re.fullmatch(r"mdbench: progress (\d+)/(\d+) elapsed=[\d.]+ est_left=[\d.]+ \S+\n", l) for l in prog),
      "progress lines parse")
check(prog and prog[-1].startswith(f"mdbench: progress {runs}/{runs} "), "the last progress line")
err = open(f"{tmp}/two.err").read()
check(not re.search(r"^memdesc_bench\.\w+: [\[{]", err, re.M), "our JSON context strings on the console")
check(("Library was built as DEBUG" in err) == (err.count("mdbench: note: the warning above") == 1),
      "the DEBUG warning's note once, where the warning is")

# --rounds=auto: one group of both layouts (not at the headline size: one
# round, then more within the budget), the reference in every round, the
# other layout in those its row was undecided before, why it stopped.
d = load("auto/mdbench.json")
ra = d["context"]["memdesc_bench"]["rounds_auto"]
check(ra["confidence"] == 0.99 and ra["margin"] == 0.05 and ra["min_rounds"] == 10 and
      ra["max_rounds"] == 30 and ra["time_budget"] == 1 and "trimmed mean" in ra["statistic"] and "Yuen t" in ra["statistic"] and
      "interleaving" in ra["order"] and "seed" not in ra, f"rounds_auto's rule {ra}")
check(len(ra["groups"]) == 1 and ra["groups"][0]["group"] == "lookup/seq/mix:desktop/ram:32MiB", f"groups {ra['groups']}")
g = ra["groups"][0]
check(d["context"]["memdesc_bench"]["known_extra"] is None, "no known difference in a default build")
check(g["stopped"] in ("every row decided", "time budget", "at the most rounds") and g["rounds"] >= 1 and
      (g["undecided"] == 0) == (g["stopped"] == "every row decided"), f"group {g}")
counts = {}
for e in d["benchmarks"]:
	if e["run_type"] == "iteration":
		counts[e["run_name"]] = counts.get(e["run_name"], 0) + 1
ref = "lookup/seq/page64/mix:desktop/ram:32MiB"
check(len(counts) == 2 and counts.get(ref) == g["rounds"] and 1 <= min(counts.values()) <= g["rounds"],
      f"rounds per layout {counts}, group {g['rounds']}")
# each entry says its round of the run (the first, then the rounds after the
# headline size's first five, none here): the reference's rise from 1, the
# other layout's are among them
rounds = {}
for e in d["benchmarks"]:
	if e["run_type"] == "iteration":
		rounds.setdefault(e["run_name"], []).append(e.get("round"))
r_ref = rounds.get(ref, [])
check(len(r_ref) == g["rounds"] and r_ref[0] == 1 and all(r > 5 for r in r_ref[1:]) and
      r_ref == sorted(set(r_ref)) and all(set(r) <= set(r_ref) for r in rounds.values()),
      f"rounds of the entries {rounds}")
# the two-round run: every timed entry of round 1 or 2, a report kernel's of round 1
d2 = load("two/mdbench.json")
check(all(e.get("round") == (1 if e["run_name"].startswith("footprint/") else e.get("round")) and
          e.get("round") in (1, 2) for e in d2["benchmarks"] if e["run_type"] == "iteration"),
      "two rounds: each entry's round")

for b in bad:
	print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
exit $fail
