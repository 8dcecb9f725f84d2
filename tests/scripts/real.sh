#!/bin/sh
# scripts/plot and scripts/compare on what the real mdbench writes: a slice
# of the quick profile, 2 rounds, two mixes and two RAM sizes.  Every
# expected plot valid; the summary, time and footprint tables there; compare
# --layouts gives a row with n = 2 a side for each timed benchmark of a layout
# (n = 1 for a report kernel: it runs in the first round only).
# Nothing names a layout or kernel: they come from mdbench --list=json.
# An mdbench that predates schema 2 (no --list=json) must be refused by the
# scripts in one line; the rest is then skipped, with the reason.
#	real.sh MDBENCH PYTHON
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2
"$py" -c 'import matplotlib, scipy' 2>/dev/null || skip "python3-matplotlib or python3-scipy missing"

if ! "$mdbench" --list=json >"$tmp/list.json" 2>"$tmp/list.err"; then
	"$mdbench" --profile=quick --ram=256MiB --benchmark_filter='^footprint/' \
		--benchmark_min_time=0.01 --out="$tmp/old" >"$tmp/old.log" 2>&1 ||
		{ cat "$tmp/old.log"; exit 1; }
	refused plot "this script reads 2" "$tmp/old" --out "$tmp/o"
	refused compare "this script reads 2" "$tmp/old" "$tmp/old"
	done_checks "real (old mdbench)" || exit 1
	skip "$mdbench predates schema 2 ($(head -n 1 "$tmp/list.err")): refused in one line as it should be; the rest waits for the C side"
fi

# The first two kernels of each class that times something, and the report kernels.
filter=$("$py" - "$tmp/list.json" <<'PY'
import json, re, sys
l = json.load(open(sys.argv[1]))
pick, seen = [], {}
for k in l["kernels"]:
	c = k["class"]
	if c in ("sequential", "dependent", "report") and seen.get(c, 0) < (1 if c == "report" else 2):
		seen[c] = seen.get(c, 0) + 1
		pick.append(re.escape(k["name"]))
base = [re.escape(k["name"]) for k in l["kernels"] if k["class"] == "baseline"]
print("^((" + "|".join(pick) + ")/|(" + "|".join(base) + ")/bytes:(512KiB|4MiB)$)")
PY
)
"$mdbench" --profile=quick --ram=256MiB,1GiB --mix=desktop,server --rounds=2 \
	--benchmark_filter="$filter" --benchmark_min_time=0.01 --out="$tmp/run" >"$tmp/mdbench.log" 2>&1 ||
	{ cat "$tmp/mdbench.log"; exit 1; }

set -e
"$py" "$top/scripts/plot" "$tmp/run" --headline >"$tmp/plot.log"
"$py" "$here/check_plots.py" "$tmp/run" --dump "$tmp/run" --expect summary --expect footprint
grep -q '^## Summary: each layout against ' "$tmp/run/report.md"
grep -q '^| mix | variant | layout | RAM | memmap_bytes |' "$tmp/run/report.md"
grep -q ': time per op against ' "$tmp/plot.log"

# compare the reference layout with each other one: every row n = 2 a side
"$py" - "$tmp/run" "$top/scripts/compare" "$py" <<'PY'
import json, os, subprocess, sys
d, compare, py = sys.argv[1:]
mb = json.load(open(os.path.join(d, "mdbench.json")))["context"]["memdesc_bench"]
ref = mb.get("reference_layout") or mb["layouts"][0]["name"]
for l in [x["name"] for x in mb["layouts"] if x["name"] != ref and not x.get("real")]:
	out = subprocess.run([py, compare, d, "--layouts", ref, l, "--metric", "real_time", "--all"],
			     capture_output=True, text=True, check=True).stdout
	rows = [r for r in out.splitlines() if r.startswith("| ") and not r.startswith("| benchmark")]
	assert rows, out
	# a report kernel (footprint) runs in the first round only: its values do not vary
	reports = tuple(k["name"] + "/" for k in mb["kernels"] if k["class"] == "report")
	bad = [r for r in rows if "failed" not in r and
	       ("| 1 |" if r[2:].startswith(reports) else "| 2 |") not in r]
	assert not bad, "\n".join(bad)
	assert any(r[2:].startswith(reports) for r in rows), out
	print(f"compare {ref} {l}: {len(rows)} rows, n = 2 a side, 1 for the reports")
PY
echo "ok: plot, check_plots and compare on a real dump"
