#!/bin/sh
# A kernel that fails: the run goes on, the dump records the error as Google
# Benchmark does, and mdbench exits 1.
# usage: test_harness_error.sh MDBENCH_TEST PYTHON
. "$(dirname "$0")/lib.sh"
mdbench=$1
py=$2

short_run 1 "$tmp" '^test/(error|faults)/'
grep -q '^mdbench: 1 benchmark runs failed$' "$tmp/err" || { echo "FAIL: stderr"; cat "$tmp/err"; exit 1; }
"$py" - "$tmp/mdbench.json" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
b = {b["name"]: b for b in doc["benchmarks"]}
e = b.get("test/error/page64/mix:desktop/ram:64MiB", {})
ok = (e.get("error_occurred") is True and e.get("error_message") == "test/error: failed on purpose"
      and "page_faults" not in e and b["test/faults/bytes:1MiB"]["iterations"] > 0
      and doc["context"]["memdesc_bench"]["complete"] is True)
print(("ok" if ok else "FAIL") + ": failed kernel recorded:", e)
sys.exit(0 if ok else 1)
PYEOF
