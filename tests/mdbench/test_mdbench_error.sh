#!/bin/sh
# A kernel that fails: the run goes on, the dump records the error as Google
# Benchmark does, and mdbench exits 1.
# usage: test_mdbench_error.sh MDBENCH_TEST PYTHON
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2

short_run 1 "$tmp" '^test/(error|faults)/'
grep -q '^mdbench: 1 benchmark runs failed$' "$tmp/err" || { echo "FAIL: stderr"; cat "$tmp/err"; exit 1; }
"$py" - "$tmp/mdbench.json" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
b = {b["name"]: b for b in doc["benchmarks"]}
L0 = doc["context"]["memdesc_bench"]["reference_layout"]
e = b.get(f"test/error/{L0}/mix:desktop/ram:64MiB", {})
faults = [v for n, v in b.items() if n.startswith("test/faults/")]
ok = (e.get("error_occurred") is True and e.get("error_message") == "test/error: failed on purpose"
      and "page_faults" not in e and len(faults) == 1 and faults[0]["iterations"] > 0
      and doc["context"]["memdesc_bench"]["complete"] is True)
print(("ok" if ok else "FAIL") + ": failed kernel recorded:", e)
sys.exit(0 if ok else 1)
PYEOF
