#!/bin/sh
# scripts/trace's file replayed by mdbench: a trace from the stored vmstat
# readings at 64MiB runs every layout's scan and order-9 kernels (fixed
# counts), and the dump records the file, its sha256 and the events the
# trace's own header counts; the same trace gives every layout one digest.
#	trace_replay.sh MDBENCH PYTHON
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2
"$py" "$top/scripts/trace" --vmstat "$fix/vmstat/before" "$fix/vmstat/after" --ram 64MiB \
	--out "$tmp/t.trace" 2>/dev/null || { echo "FAIL: scripts/trace"; exit 1; }
"$mdbench" --ram=64MiB --counters=none --fixed-ops=8 --desc-age=trace:"$tmp/t.trace" \
	'--benchmark_filter=^(scan/compaction|alloc/order9|migrate/order9)/' >"$tmp/fixed" 2>&1 ||
	{ echo "FAIL: mdbench on the trace"; cat "$tmp/fixed"; exit 1; }
if grep -v ' items$' "$tmp/fixed"; then
	echo "FAIL: a kernel did not run on the trace"
	exit 1
fi
"$mdbench" --ram=64MiB --counters=none --benchmark_min_time=0.001 --out="$tmp/run" \
	--desc-age=trace:"$tmp/t.trace" '--benchmark_filter=^scan/compaction/' >/dev/null 2>&1 ||
	{ echo "FAIL: mdbench --out on the trace"; exit 1; }
"$py" - "$tmp/run/mdbench.json" "$tmp/t.trace" <<'PYEOF'
import hashlib, json, re, sys
c = json.load(open(sys.argv[1]))["context"]["memdesc_bench"]["conditions"]
text = open(sys.argv[2]).read()
m = re.search(r"(\d+) allocations \(\d+ at boot\), (\d+) frees, peak (\d+) pages, (\d+) at the end", text)
t = c["desc_trace"]
ok = (t["file"] == sys.argv[2] and t["sha256"] == hashlib.sha256(text.encode()).hexdigest() and
      [t["allocs"], t["frees"], t["peak_pages"], t["live_pages"]] == [int(g) for g in m.groups()] and
      t["events"] == t["allocs"] + t["frees"] and len({x["age_digest"] for x in c["memmaps"]}) == 1)
print(("ok" if ok else "FAIL") + ":", t, [(x["layout"], x["age_digest"], x["age_compactions"]) for x in c["memmaps"]])
sys.exit(0 if ok else 1)
PYEOF
