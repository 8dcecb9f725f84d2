#!/bin/sh
# A short real run of the suite's own kernels, as a user would start it:
# names as mdbench.h spells them, iterations, per-item counters, complete dump.
# usage: test_mdbench_real.sh MDBENCH PYTHON
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2

short_run 0 "$tmp" '^(lookup/(seq|random)|folio/tail|baseline/latency)/'
"$py" - "$tmp/mdbench.json" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
mb = doc["context"]["memdesc_bench"]
names = [b["name"] for b in doc["benchmarks"]]
L0 = mb["reference_layout"]
memmap = (64 << 20) // 4096 * mb["layouts"][0]["sizeof_page"]
size = f"{memmap >> 20}MiB" if memmap % (1 << 20) == 0 else f"{memmap >> 10}KiB"
want = [f"lookup/seq/{L0}/mix:desktop/ram:64MiB", f"lookup/random/{L0}/mix:desktop/ram:64MiB",
	f"folio/tail/{L0}/mix:desktop/ram:64MiB", f"baseline/latency/bytes:{size}"]
unavail = [c["name"] for c in mb["counters"]["unavailable"]]
ok = sorted(names) == sorted(want) and names[-1] == want[-1] and mb["complete"] is True
ok = ok and [l["name"] for l in mb["layouts"]] == [L0]
for b in doc["benchmarks"]:
	ok = ok and b["iterations"] > 0 and not b.get("error_occurred") and "items_per_second" in b
	ok = ok and "page_faults" in b and not any(c in b for c in unavail)
print(("ok" if ok else "FAIL") + ":", names, [(b["name"], b["iterations"], b.get("page_faults")) for b in doc["benchmarks"]])
sys.exit(0 if ok else 1)
PYEOF
