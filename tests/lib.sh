# SPDX-License-Identifier: GPL-2.0
# lib.sh - the one prologue of the shell tests, sourced first thing as
#	. "$(dirname "$0")/../lib.sh"		(tests/<area>/*.sh)
# Unset variables are errors; $tmp is a scratch directory removed on exit (a
# test that needs more done on exit sets its own trap, removing $tmp too);
# $here is the test's folder and $top the clone's, wherever it lives.  Then
# the helpers: skip, for every test; first_layout and short_run for the
# mdbench tests (they need $mdbench set); guest_root, guest_init_head,
# guest_pack and boot_kvm_or_tcg for the tests that boot a qemu guest;
# refused and done_checks for the tests of scripts/ ($fix: their fixtures,
# $fake: fake_mdbench.py).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/tests/*}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# skip REASON...: CTest's skipped (77), with the reason.
skip() {
	echo "skip: $*"
	exit 77
}

# ---- mdbench --------------------------------------------------------------

# first_layout: the reference layout, the first of layouts.list.  Needs $mdbench.
first_layout() {
	"$mdbench" --list=json --counters=none |
		/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["reference_layout"])'
}

# short_run STATUS DIR FILTER: the benchmarks FILTER matches on the reference
# layout, 64MiB, briefly, dumped into DIR; console in $tmp/out, stderr in
# $tmp/err.  Any exit status but STATUS fails the test, showing stderr.
short_run() {
	"$mdbench" --layout="$(first_layout)" --ram=64MiB --benchmark_min_time=0.01 --out="$2" \
		"--benchmark_filter=$3" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$1" ]; then
		echo "FAIL: mdbench exited $rc, want $1"
		cat "$tmp/err"
		exit 1
	fi
}

# ---- qemu guests ----------------------------------------------------------

# guest_root DIR BUSYBOX: an initramfs tree in DIR: the static BUSYBOX and
# the folders its /init mounts on.
guest_root() {
	mkdir -p "$1/bin" "$1/proc" "$1/sys" "$1/dev" "$1/tmp" && cp "$2" "$1/bin/busybox"
}

# guest_init_head: the opening of a guest's /init, on stdout: busybox's
# applets on PATH, /proc, /sys and /dev mounted, mark (a line "@@ WHAT ..."
# on the console, which the host greps for) and "@@ begin" with the uptime.
guest_init_head() {
	cat <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mark() { echo "@@ $*"; }
mark begin uptime=$(cut -d' ' -f1 /proc/uptime)
EOF
}

# guest_pack DIR CPIO: DIR as the initramfs CPIO (newc).
guest_pack() {
	(cd "$1" && find . | cpio -o -H newc --quiet) >"$2"
}

# boot_kvm_or_tcg: the caller's boot ACCEL CPU (writing $tmp/serial.log and
# $tmp/qemu.log) with KVM where /dev/kvm is usable, then with TCG unless the
# KVM guest printed '@@ begin' (KVM that cannot start, nested virtualisation
# off or MSRs refused, fails before the guest prints anything); $qrc: boot's
# exit status.
boot_kvm_or_tcg() {
	qrc=1
	if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		boot kvm host
		qrc=$?
		[ $qrc -ne 0 ] && ! grep -q '^@@ begin' "$tmp/serial.log" 2>/dev/null &&
			echo "note: KVM did not start ($(tail -n 1 "$tmp/qemu.log")); using TCG"
	fi
	if [ $qrc -ne 0 ] && ! grep -q '^@@ begin' "$tmp/serial.log" 2>/dev/null; then
		boot tcg max
		qrc=$?
	fi
}

# ---- scripts/ -------------------------------------------------------------

fix="$top/tests/scripts/fixtures"
fake="$top/tests/scripts/fake_mdbench.py"
fails=0
cases=0

# refused PROG WANT ARGS...: scripts/PROG ARGS exits 2 with exactly one line
# on stderr that starts with "PROG: " and holds WANT, nothing on stdout, no
# traceback.  Counts into $cases and $fails; prints ok or FAIL.
refused() {
	prog=$1
	want=$2
	shift 2
	cases=$((cases + 1))
	rc=0
	"$top/scripts/$prog" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
	lines=$(wc -l <"$tmp/err")
	line=$(head -n 1 "$tmp/err")
	problem=""
	[ "$rc" -eq 2 ] || problem="exit status $rc, not 2"
	[ "$lines" -eq 1 ] || problem="$problem; $lines lines on stderr"
	case "$line" in "$prog: "*) ;; *) problem="$problem; line does not start with '$prog: '" ;; esac
	case "$line" in *"$want"*) ;; *) problem="$problem; no '$want' in it" ;; esac
	case "$line" in *"internal error"*) problem="$problem; an internal error" ;; esac
	[ ! -s "$tmp/out" ] || problem="$problem; stdout not empty"
	if [ -n "$problem" ]; then
		echo "FAIL $prog $*: $problem"
		sed 's/^/  stderr: /' "$tmp/err" | head -n 5
		fails=$((fails + 1))
	else
		echo "ok   $prog $*: $line"
	fi
}

# done_checks NAME: the summary line; exit 1 if a check failed.
done_checks() {
	echo "$1: $cases cases, $fails failed"
	[ "$fails" -eq 0 ]
}
