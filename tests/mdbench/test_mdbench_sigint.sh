#!/bin/sh
# SIGINT (and SIGTERM) in the middle of a run: exit 128+signal, one line
# saying how many benchmarks were kept, and a valid mdbench.json holding
# exactly those, complete false.  Every read while it runs parses: the dump is
# only ever replaced by rename.
# usage: test_mdbench_sigint.sh MDBENCH_TEST PYTHON
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

interrupt() {	# interrupt SIGNAL STATUS
	dir="$tmp/$1"
	"$mdbench" --layout="$L0" --ram=64MiB,128MiB,256MiB,512MiB,1GiB,2GiB \
		--benchmark_min_time=0.2 --out="$dir" '--benchmark_filter=^test/spin/' \
		>/dev/null 2>"$tmp/err.$1" &
	pid=$!
	# Wait for the first finished benchmark; every read must parse.
	"$py" - "$dir/mdbench.json" <<'PYEOF' || return 1
import json, os, sys, time
path = sys.argv[1]
for _ in range(600):
	if os.path.exists(path):
		doc = json.load(open(path))	# raises on a torn file
		if doc["benchmarks"]:
			sys.exit(0)
	time.sleep(0.05)
print("FAIL: no benchmark finished in 30 s")
sys.exit(1)
PYEOF
	kill -s "$1" "$pid"
	wait "$pid"
	rc=$?
	pid=
	if [ "$rc" -ne "$2" ]; then
		echo "FAIL: SIG$1: exit status $rc, want $2"
		cat "$tmp/err.$1"
		return 1
	fi
	"$py" - "$dir" "$tmp/err.$1" "$1" <<'PYEOF'
import json, os, re, sys
d, err, sig = sys.argv[1:]
doc = json.load(open(os.path.join(d, "mdbench.json")))
n = len(doc["benchmarks"])
last = open(err).read().splitlines()[-1]
want = f"mdbench: interrupted, {n} benchmark results kept in {d}/mdbench.json"
ok = (doc["context"]["memdesc_bench"]["complete"] is False and 1 <= n < 6 and last == want
      and all(b["iterations"] > 0 for b in doc["benchmarks"])
      and all(b["name"].startswith("test/spin/bytes:") for b in doc["benchmarks"])
      and not [f for f in os.listdir(d) if ".tmp" in f])
print(("ok" if ok else "FAIL") + f": SIG{sig}: {n} benchmarks kept, complete false; stderr: {last!r}")
sys.exit(0 if ok else 1)
PYEOF
}

L0=$("$mdbench" --list=json --counters=none | "$py" -c 'import json, sys; print(json.load(sys.stdin)["reference_layout"])')
interrupt INT 130 || exit 1
interrupt TERM 143 || exit 1
