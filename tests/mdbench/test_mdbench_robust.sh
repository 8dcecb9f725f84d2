#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What mdbench must never do to a results directory or the files it is
# given, and options refused before anything is created.
#  - the reference layout is the first layout run, never one not run;
#  - .mdbench.lock as a symlink is refused, its target left alone;
#  - an out dir replaced by a symlink mid-run does not redirect the dump;
#  - --benchmark_out=F is checked without creating or truncating F;
#  - --mix of a FIFO or /dev/zero is refused, not waited on or read;
#  - a full disk or no inodes: exit 2, nothing left that blocks the next run;
#  - SIGHUP and SIGPIPE end a run like SIGINT, with the "interrupted" line;
#  - --fixed-ops=abc --list, a CPU outside the allowed ones, a Google
#    Benchmark flag given twice: exit 2, one line.
# usage: test_mdbench_robust.sh MDBENCH_TEST PYTHON
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2
fail=0
L0=$(first_layout)
QUICK="--ram=64MiB --counters=none --benchmark_min_time=0.01 --benchmark_filter=^test/spin/"

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

# refused WHAT WANT CMD...: exit 2, one stderr line holding WANT, nothing on stdout
refused() {
	what=$1 want=$2
	shift 2
	"$@" >"$tmp/r.out" 2>"$tmp/r.err"
	rc=$?
	if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/r.err")" -eq 1 ] && grep -qF -- "$want" "$tmp/r.err" &&
	   [ ! -s "$tmp/r.out" ]; then
		ok "$what"
	else
		bad "$what: exit $rc, stderr: $(cat "$tmp/r.err")"
	fi
}

# 1. The reference is the first layout run.
layouts=$("$mdbench" --list=json --counters=none |
	"$py" -c 'import json, sys; print(" ".join(l["name"] for l in json.load(sys.stdin)["layouts"]))')
set -- $layouts
if [ $# -ge 3 ]; then
	ref=$("$mdbench" --list=json --counters=none --layout="$3,$2" |
		"$py" -c 'import json, sys; print(json.load(sys.stdin)["reference_layout"])')
	[ "$ref" = "$2" ] && ok "--layout=$3,$2: reference $ref" ||
		bad "--layout=$3,$2: reference '$ref', want $2 (the first layout run)"
	"$mdbench" --layout="$3" $QUICK --out="$tmp/ref" >/dev/null 2>&1
	ref=$("$py" -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(d["context"]["memdesc_bench"]["reference_layout"])' "$tmp/ref/mdbench.json")
	[ "$ref" = "$3" ] && ok "dump of --layout=$3: reference $ref" ||
		bad "dump of --layout=$3: reference '$ref', want $3"
fi

# 3. The lock as a symlink: refused, its target untouched.
mkdir "$tmp/sym"
echo precious >"$tmp/target"
ln -s "$tmp/target" "$tmp/sym/.mdbench.lock"
refused "lock file a symlink" ".mdbench.lock" "$mdbench" --layout="$L0" $QUICK --out="$tmp/sym"
[ "$(cat "$tmp/target")" = precious ] && ok "lock symlink target kept" ||
	bad "lock symlink target now '$(cat "$tmp/target")'"

# 3. The out dir swapped for a symlink to another run's directory mid-run:
# the other run's dump stays as it was, this run's lands in its own dir.
mkdir "$tmp/other"
echo '{"other": true}' >"$tmp/other/mdbench.json"
"$mdbench" --layout="$L0" $QUICK --rounds=300 --out="$tmp/swap" >/dev/null 2>"$tmp/swap.err" &
pid=$!
"$py" - "$tmp/swap" "$tmp/other" <<'PY' || fail=1
import os, sys, time
d, other = sys.argv[1:]
for _ in range(600):
	if os.path.exists(os.path.join(d, "mdbench.json")):
		break
	time.sleep(0.05)
else:
	print("FAIL: no dump in 30 s")
	sys.exit(1)
os.rename(d, d + ".moved")
os.symlink(other, d)
PY
wait $pid
rc=$?
"$py" - "$tmp" "$rc" <<'PY' || fail=1
import json, sys
tmp, rc = sys.argv[1:]
other = json.load(open(f"{tmp}/other/mdbench.json"))
mine = json.load(open(f"{tmp}/swap.moved/mdbench.json"))
ok = rc == "0" and other == {"other": True} and len([b for b in mine["benchmarks"] if b.get("run_type") != "aggregate"]) == 300 and \
	mine["context"]["memdesc_bench"]["complete"] is True
print(("ok" if ok else "FAIL") + f": out dir swapped mid-run: exit {rc}, the other dump "
      f"{'kept' if other == {'other': True} else 'overwritten'}, {len(mine['benchmarks'])} results "
      f"in the moved dir")
sys.exit(0 if ok else 1)
PY

# 8. --benchmark_out=F: checked, never created or truncated.
refused "--benchmark_out with a bad option" "--bogus" \
	"$mdbench" --benchmark_out="$tmp/gb.json" --bogus
[ -e "$tmp/gb.json" ] && bad "--benchmark_out=F --bogus created F" || ok "F not created"
echo keep >"$tmp/gb2.json"
"$mdbench" --benchmark_out="$tmp/gb2.json" --benchmark_list_tests=true $QUICK --layout="$L0" \
	>/dev/null 2>&1
[ "$(cat "$tmp/gb2.json")" = keep ] && ok "--benchmark_list_tests leaves F alone" ||
	bad "--benchmark_list_tests truncated F"
# alone it lists and exits 0 (under ASan: nothing leaked, or LeakSanitizer's status)
"$mdbench" --benchmark_list_tests=true $QUICK --layout="$L0" >/dev/null 2>"$tmp/lt.err" &&
	ok "--benchmark_list_tests=true: exit 0" ||
	bad "--benchmark_list_tests=true: $(tail -n 3 "$tmp/lt.err")"
refused "--benchmark_out in a missing directory" "cannot write" \
	"$mdbench" --benchmark_out="$tmp/no/such/gb.json" --list
refused "--benchmark_out a directory" "not a regular file" \
	"$mdbench" --benchmark_out="$tmp" --list

# 5. --mix of a FIFO or a device: refused at once, never waited on or read without end.
mkfifo "$tmp/fifo.json"
refused "--mix a FIFO" "not a regular file" timeout 60 "$mdbench" --mix="$tmp/fifo.json" --list
refused "--mix /dev/zero" "not a regular file" timeout 60 "$mdbench" --mix=/dev/zero --list

# 11. Options checked whatever else is asked.
refused "--fixed-ops=abc --list" "--fixed-ops" "$mdbench" --fixed-ops=abc --list
refused "a Google Benchmark flag twice" "given twice" \
	"$mdbench" --benchmark_min_time=0.01 --benchmark_min_time=0.02 --list
if [ "$(nproc --all)" -ge 2 ] && command -v taskset >/dev/null; then
	refused "--cpu outside the allowed CPUs" "--cpu=1" \
		taskset -c 0 "$mdbench" --cpu=1 --list --counters=none
fi

# 11. SIGHUP and SIGPIPE: exit 128+N with the "interrupted" line, like SIGINT.
for sig in HUP:1 PIPE:13; do
	nr=${sig#*:}
	sig=${sig%:*}
	d="$tmp/sig$sig"
	"$mdbench" --layout="$L0" $QUICK --rounds=1000 --out="$d" >/dev/null 2>"$tmp/err.$sig" &
	pid=$!
	"$py" -c 'import os, sys, time
for _ in range(600):
	if os.path.exists(sys.argv[1]): sys.exit(0)
	time.sleep(0.05)
sys.exit(1)' "$d/mdbench.json"
	kill -s $sig $pid
	wait $pid
	rc=$?
	want=$((128 + nr))
	last=$(tail -n 1 "$tmp/err.$sig")
	case "$last" in
	"mdbench: interrupted"*) [ $rc -eq $want ] && ok "SIG$sig: $last" ||
		bad "SIG$sig: exit $rc, want $want";;
	*) bad "SIG$sig: exit $rc, last line '$last'";;
	esac
done

# 10. A full disk (256 KiB: a dump of one result, its temporary copy and the
# side files fit), then no inodes: exit 2, and once there is room the next
# run on the same --out is not refused for what the failed one left.
mnt="$tmp/mnt"
mkdir "$mnt"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=256k tmpfs "$mnt" 2>/dev/null; then
	trap 'umount "$mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
	for mode in size=256k nr_inodes=4; do
		mount -o remount,size=256k,nr_inodes=64 "$mnt"
		rm -rf "$mnt"/*
		if [ $mode = size=256k ]; then
			dd if=/dev/zero of="$mnt/filler" bs=4k 2>/dev/null
		else
			mount -o remount,nr_inodes=4 "$mnt"	# /, d, the lock, one file
		fi
		"$mdbench" --layout="$L0" $QUICK --out="$mnt/d" >/dev/null 2>"$tmp/full.err"
		rc=$?
		[ $rc -eq 2 ] && ok "$mode: exit 2: $(tail -n 1 "$tmp/full.err")" ||
			bad "$mode: exit $rc, want 2"
		rm -f "$mnt/filler"
		mount -o remount,nr_inodes=64 "$mnt"
		"$mdbench" --layout="$L0" $QUICK --out="$mnt/d" >/dev/null 2>"$tmp/full.err"
		rc=$?
		[ $rc -eq 0 ] && ok "$mode: the next run writes its dump" ||
			bad "$mode: next run: exit $rc: $(tail -n 1 "$tmp/full.err")"
	done
	umount "$mnt"
else
	echo "note: not root or no tmpfs mount: the full-disk cases are left out"
fi
exit $fail
