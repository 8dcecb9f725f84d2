#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A disk that fills: a write that fails is retried after the next benchmark,
# the dump on disk stays whole and valid, and the run ends by saying how many
# results could not be written (exit 1) - or, once space came back, with all
# of them on disk (exit 0).  Needs a small tmpfs: root only, skipped otherwise.
# usage: test_mdbench_disk.sh MDBENCH_TEST PYTHON
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2
fail=0
mnt="$tmp/mnt"
mkdir "$mnt"
if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=96k tmpfs "$mnt" 2>/dev/null; then
	echo "SKIP: needs root and a tmpfs mount to fill a disk"
	exit 77
fi
trap 'umount "$mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
L0=$(first_layout)
# one run a round: round_rep would outgrow the 96k disk the sizes below are for
ARGS="--layout=$L0 --ram=64MiB --counters=none --benchmark_min_time=0.01 --benchmark_filter=^test/spin/ --rounds=20 --round-reps=1"

# Fill the disk to leave room for the first few results only.
fill() {
	rm -rf "$mnt"/*
	dd if=/dev/zero of="$mnt/filler" bs=4k count=$1 2>/dev/null
}

check_dump() {	# check_dump WHAT PATH RC STDERR WANT_RC
	"$py" - "$@" <<'PY'
import json, os, sys
what, path, rc, err, want_rc = sys.argv[1:]
lines = open(err).read().splitlines()
doc = json.load(open(path))		# whole and valid, whatever happened
n = len(doc["benchmarks"])
mb = doc["context"]["memdesc_bench"]
left = [f for f in os.listdir(os.path.dirname(path)) if ".tmp" in f]
full = [l for l in lines if "No space left on device (trying again" in l]
if want_rc == "1":
	last = [l for l in lines if "could not be written" in l]
	ok = (rc == "1" and len(full) == 1 and len(last) == 1 and mb["complete"] is False
	      and last[0].endswith(f"; {n} are on disk"))
else:
	ok = rc == "0" and len(full) == 1 and any("written again" in l for l in lines) and \
	     mb["complete"] is True and n == 21 and \
	     sum(e["run_type"] == "aggregate" for e in doc["benchmarks"]) == 1	# 20 rounds, their median
ok = ok and not left
print(("ok: " if ok else "FAIL: ") + f"{what}: exit {rc}, {n} results on disk, "
      f"complete {mb['complete']}, temporaries {left}; stderr: {[l for l in lines if 'mdbench:' in l]}")
sys.exit(0 if ok else 1)
PY
}

# Full for good.
fill 13
"$mdbench" $ARGS --out="$mnt/run" >/dev/null 2>"$tmp/err"
check_dump "a disk that stays full" "$mnt/run/mdbench.json" $? "$tmp/err" 1 || fail=1

# Full, then emptied while the run goes on.
fill 13
"$mdbench" $ARGS --out="$mnt/run" >/dev/null 2>"$tmp/err" &
pid=$!
for i in $(seq 200); do grep -q "No space left" "$tmp/err" && break; sleep 0.05; done
rm -f "$mnt/filler"
wait $pid
check_dump "a disk that fills and empties" "$mnt/run/mdbench.json" $? "$tmp/err" 0 || fail=1
exit $fail
