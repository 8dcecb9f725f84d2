# SPDX-License-Identifier: GPL-2.0
# lib.sh - the one prologue of the shell tests, sourced first thing as
#	. "$(dirname "$0")/../lib.sh"		(tests/<area>/*.sh)
# Unset variables are errors; $tmp is a scratch directory removed on exit (a
# test that needs more done on exit sets its own trap, removing $tmp too);
# $here is the test's folder and $top the clone's, wherever it lives.  Then
# the helpers: skip, for every test; first_layout and short_run for the
# mdbench tests (they need $mdbench set); refused and done_checks for the
# tests of scripts/ ($fix: their fixtures, $fake: fake_mdbench.py); guest_*
# for the tests that boot a qemu guest.
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

# ---- qemu guests ------------------------------------------------------------
# An x86-64 guest of Debian's kernel with a busybox initramfs whose /init the
# test writes (tests/kmod): guest_tools, guest_kernel, guest_root DIR, then
# the test's DIR/init, guest_pack DIR, guest_boot.  Under TCG a boot takes
# about 5 s.  The arm64 guest (tests/pmu) builds its root with guest_root and
# guest_pack from its own $busybox, and boots itself.

# guest_tools: skips without qemu-system-x86_64, cpio or busybox-static;
# $busybox is the static busybox.
guest_tools() {
	command -v qemu-system-x86_64 >/dev/null ||
		skip "qemu-system-x86_64 missing (Debian: qemu-system-x86)"
	command -v cpio >/dev/null || skip "cpio missing (Debian: cpio)"
	busybox=$(command -v busybox || true)
	[ -n "$busybox" ] || skip "busybox missing (Debian: busybox-static)"
	if ldd "$busybox" >/dev/null 2>&1; then
		skip "$busybox is dynamic; the initramfs needs busybox-static"
	fi
}

# guest_kernel [headers]: $vmlinuz: MDB_KMOD_VMLINUZ, else the newest
# /boot/vmlinuz-*; with "headers", also $kdir, its build tree (MDB_KMOD_KDIR,
# else the newest image whose headers are installed).  Skips without them.
guest_kernel() {
	vmlinuz=${MDB_KMOD_VMLINUZ:-}
	kdir=${MDB_KMOD_KDIR:-}
	if [ -z "$vmlinuz" ]; then
		for v in $(ls /boot/vmlinuz-* 2>/dev/null | sed 's|^/boot/vmlinuz-||' | sort -rV); do
			[ $# -eq 0 ] && { vmlinuz=/boot/vmlinuz-$v; break; }
			for d in "/lib/modules/$v/build" "/usr/src/linux-headers-$v"; do
				if [ -f "$d/Makefile" ]; then
					vmlinuz=/boot/vmlinuz-$v
					kdir=$d
					break 2
				fi
			done
		done
		[ -n "$vmlinuz" ] || skip "no /boot/vmlinuz-*${1:+ with its headers} (Debian:" \
			"linux-image-amd64${1:+ linux-headers-amd64})"
	fi
	[ -e "$vmlinuz" ] || skip "no kernel image $vmlinuz"
	[ -r "$vmlinuz" ] || skip "cannot read $vmlinuz (run as root)"
	[ $# -eq 0 ] || [ -f "$kdir/Makefile" ] || skip "no kernel build tree at $kdir"
}

# guest_root DIR: DIR made the guest's root: busybox, the mount points and
# the start of DIR/init (busybox's links, proc, sys, dev mounted, mark NAME
# ... to print "@@ NAME ...", send NAME FILE to write FILE on the second
# serial port announced by "@@ NAME bytes=N md5=M", then "@@ NAMEsent rc=R";
# "@@ begin" printed), which the test appends to.
guest_root() {
	mkdir -p "$1/bin" "$1/proc" "$1/sys" "$1/dev" "$1/tmp"
	cp "$busybox" "$1/bin/busybox"
	cat >"$1/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mark() { echo "@@ $*"; }
send() { mark $1 bytes=$(wc -c <$2) md5=$(md5sum <$2 | cut -d' ' -f1); stty -F /dev/ttyS1 raw -echo; cat $2 >/dev/ttyS1; mark ${1}sent rc=$?; }
mark begin uptime=$(cut -d' ' -f1 /proc/uptime)
EOF
}

# guest_pack DIR: DIR (with its executable init) as $tmp/initrd.cpio.
guest_pack() {
	chmod 755 "$1/init"
	(cd "$1" && find . | cpio -o -H newc --quiet) >"$tmp/initrd.cpio"
}

# guest_boot: boots $vmlinuz with $tmp/initrd.cpio, 1 CPU, $guest_mem of RAM
# (qemu's -m; 1G unless the test sets it), under KVM where it starts, else TCG; the console (ttyS0) in $tmp/serial.log, CRs
# stripped in $tmp/log, the second serial port (ttyS1) in $tmp/ttyS1.out.
# 0 when the guest powered off (/init ends in reboot -f), 124 when it did not
# within $guest_timeout seconds (300 unless set), else qemu's status (its output in $tmp/qemu.log).
guest_boot() {
	guest_qrc=1
	if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		guest_qemu kvm host
		guest_qrc=$?
		# KVM that cannot start (nested virtualisation off, MSRs refused) fails
		# before the guest prints anything: then TCG.
		[ $guest_qrc -ne 0 ] && ! grep -q '^@@ begin' "$tmp/serial.log" 2>/dev/null &&
			echo "note: KVM did not start ($(tail -n 1 "$tmp/qemu.log")); using TCG"
	fi
	if [ $guest_qrc -ne 0 ] && ! grep -q '^@@ begin' "$tmp/serial.log" 2>/dev/null; then
		guest_qemu tcg max
		guest_qrc=$?
	fi
	[ -f "$tmp/serial.log" ] && tr -d '\r' <"$tmp/serial.log" >"$tmp/log"
	return $guest_qrc
}

# guest_run DIR: DIR's /init ended ("@@ end" marked, then reboot -f: with
# -no-reboot qemu exits), packed and booted (guest_pack, guest_boot); 1, the
# reason in $guest_why, when the guest did not power off within
# $guest_timeout s, qemu failed (its output printed) or /init did not get to
# its end.
guest_run() {
	cat >>"$1/init" <<'EOF'
mark end uptime=$(cut -d' ' -f1 /proc/uptime)
reboot -f
EOF
	guest_pack "$1" || { guest_why="cpio could not pack the initramfs"; return 1; }
	guest_boot
	if [ $guest_qrc -eq 124 ]; then
		guest_why="the guest did not power off within ${guest_timeout:-300} s"
	elif [ $guest_qrc -ne 0 ]; then
		cat "$tmp/qemu.log"
		guest_why="qemu exited $guest_qrc"
	elif ! grep -q '^@@ end' "$tmp/log"; then
		guest_why="the guest did not get to the end of /init"
	else
		return 0
	fi
	return 1
}

# guest_qemu ACCEL CPU: one boot (guest_boot's).
guest_qemu() {
	rm -f "$tmp/serial.log" "$tmp/ttyS1.out"
	timeout "${guest_timeout:-300}" qemu-system-x86_64 -accel "$1" -cpu "$2" -smp 1 \
		-m "${guest_mem:-1G}" -no-reboot \
		-display none -monitor none -serial "file:$tmp/serial.log" \
		-serial "file:$tmp/ttyS1.out" \
		-kernel "$vmlinuz" -initrd "$tmp/initrd.cpio" \
		-append "console=ttyS0 loglevel=1 panic=-1 oops=panic" >"$tmp/qemu.log" 2>&1
}

# guest_mark NAME: the text after the guest's first "@@ NAME " line in $tmp/log.
guest_mark() {
	grep "^@@ $1 " "$tmp/log" | head -n 1 | sed "s/^@@ $1 //"
}

# guest_received NAME OUT: what the guest's send NAME wrote, from
# $tmp/ttyS1.out into OUT; 1 (with the reason on stdout) when the guest did
# not announce it or it came back damaged.  One file a boot: it starts at byte 0.
guest_received() {
	_bytes=$(guest_mark "$1" | sed -n 's/.*bytes=\([0-9]*\).*/\1/p')
	_md5=$(guest_mark "$1" | sed -n 's/.*md5=\([0-9a-f]*\).*/\1/p')
	[ -n "$_bytes" ] && [ -n "$_md5" ] || { echo "the guest did not say what it sent as $1"; return 1; }
	head -c "$_bytes" "$tmp/ttyS1.out" >"$2"
	[ "$(md5sum <"$2" | cut -d' ' -f1)" = "$_md5" ] ||
		{ echo "$1 came back damaged ($(wc -c <"$tmp/ttyS1.out") of $_bytes bytes)"; return 1; }
}
