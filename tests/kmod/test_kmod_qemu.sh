#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_kmod_qemu.sh MDBENCH_KMOD SRCDIR: mdbench_kmod in a Debian kernel
# booted under qemu (KVM when usable, else TCG), with a busybox initramfs.
#
# On the host: build the module against the guest kernel's headers (in a
# temporary copy), pack busybox-static, the static mdbench-kmod, the module
# and /init into an initramfs.  In the guest: mdbench-kmod before insmod
# (must fail: not loaded), insmod, every kernel for a few ops, the census
# (scan/compaction's counts against the same guest's /proc/kpageflags and
# /proc/buddyinfo, read between two scans that agree), the reference check,
# the refusals (uid 65534, root without CAP_SYS_ADMIN), the module's use
# count, rmmod, and the kernel log's complaints.  Then the host checks the
# serial log.  Timings under TCG are emulated: checked for nothing.
#
# Packages (Debian 12): see README.md beside this file; installed by
# `scripts/setup --kmod` where setup knows that option, else skipped (77).
# Environment: MDB_KMOD_VMLINUZ and MDB_KMOD_KDIR boot and build against
# that kernel image and headers instead of the newest pair under /boot;
# MDB_KMOD_OPS (default 2048) ops per kernel, MDB_KMOD_OPS9 (64) for
# alloc/order9.
set -u

bin=$1
src=$2
ops=${MDB_KMOD_OPS:-2048}
ops9=${MDB_KMOD_OPS9:-64}	# an order-9 alloc zeroes 2 MiB: ~10 ms under TCG
start=$(date +%s)

skip() {
	echo "SKIP: $*"
	exit 77
}

fail() {
	echo "FAIL: $*"
	[ -f "$tmp/serial.log" ] && { echo "--- guest serial log:"; tr -d '\r' <"$tmp/serial.log"; }
	exit 1
}

# --- what the test needs ------------------------------------------------------

if grep -q -- '--kmod' "$src/scripts/setup" 2>/dev/null; then
	"$src/scripts/setup" --kmod >/dev/null 2>&1 ||
		echo "note: scripts/setup --kmod failed; using what is installed"
fi

command -v qemu-system-x86_64 >/dev/null ||
	skip "qemu-system-x86_64 missing (Debian: qemu-system-x86)"
command -v cpio >/dev/null || skip "cpio missing (Debian: cpio)"
command -v make >/dev/null || skip "make missing (Debian: build-essential)"
busybox=$(command -v busybox || true)
[ -n "$busybox" ] || skip "busybox missing (Debian: busybox-static)"
ldd "$busybox" >/dev/null 2>&1 && skip "$busybox is dynamic; the initramfs needs busybox-static"
ldd "$bin" >/dev/null 2>&1 && skip "$bin is not static"

# The kernel: the newest /boot/vmlinuz-* whose headers are installed.
vmlinuz=${MDB_KMOD_VMLINUZ:-}
kdir=${MDB_KMOD_KDIR:-}
if [ -z "$vmlinuz" ]; then
	for v in $(ls /boot/vmlinuz-* 2>/dev/null | sed 's|^/boot/vmlinuz-||' | sort -rV); do
		for d in "/lib/modules/$v/build" "/usr/src/linux-headers-$v"; do
			if [ -f "$d/Makefile" ]; then
				vmlinuz=/boot/vmlinuz-$v
				kdir=$d
				break 2
			fi
		done
	done
	[ -n "$vmlinuz" ] ||
		skip "no /boot/vmlinuz-* with its headers (Debian: linux-image-amd64 linux-headers-amd64)"
fi
[ -e "$vmlinuz" ] || skip "no kernel image $vmlinuz"
[ -r "$vmlinuz" ] || skip "cannot read $vmlinuz (run as root)"
[ -f "$kdir/Makefile" ] || skip "no kernel build tree at $kdir"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

# --- host: module and initramfs ----------------------------------------------------

sh "$src/kmod/build.sh" "$kdir" "$tmp/mod" >"$tmp/build.log" 2>&1 || {
	cat "$tmp/build.log"
	fail "module build against $kdir failed"
}
grep -E 'warning:|error:' "$tmp/build.log" && fail "the module does not build warning-free"

root=$tmp/root
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
cp "$busybox" "$root/bin/busybox"
cp "$bin" "$root/mdbench-kmod"
cp "$tmp/mod/mdbench_kmod.ko" "$root/"
cat >"$root/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mark() { echo "@@ \$*"; }
mark begin uptime=\$(cut -d' ' -f1 /proc/uptime)
mark accel \$(dmesg | grep -o 'Hypervisor detected: .*' | head -n 1)
/mdbench-kmod info 2>&1; mark absent rc=\$?
insmod /mdbench_kmod.ko; mark insmod rc=\$?
/mdbench-kmod info 2>&1; mark info rc=\$?
/mdbench-kmod run --ops=$ops --make-thp --counters --kernel=lookup/seq --kernel=lookup/random \\
	--kernel=lookup/random-dep --kernel=folio/tail --kernel=folio/getput \\
	--kernel=scan/compaction --kernel=alloc/order0 2>&1; mark run rc=\$?
/mdbench-kmod run --ops=$ops9 --counters --kernel=alloc/order9 2>&1; mark run9 rc=\$?
/mdbench-kmod census 2>&1; mark census rc=\$?
/mdbench-kmod refcheck 2>&1; mark refcheck rc=\$?
/mdbench-kmod deny 2>&1; mark deny rc=\$?
/mdbench-kmod run --kernel=lookup/seq --ops=200000 --budget-ms=1 2>&1 | sed 's/^run /bounded /'
mark refcnt \$(cat /sys/module/mdbench_kmod/refcnt)
rmmod mdbench_kmod; mark rmmod rc=\$?
insmod /mdbench_kmod.ko free_floor_mb=100000; mark insmod_floor rc=\$?
/mdbench-kmod run --kernel=alloc/order0 --ops=1 2>&1 | sed 's/^run /floor /'
rmmod mdbench_kmod; mark rmmod_floor rc=\$?
dmesg | grep -E 'BUG|WARNING|Oops|KASAN|UBSAN|circular locking|Call Trace|mdbench' | sed 's/^/@@ dmesg /'
mark end uptime=\$(cut -d' ' -f1 /proc/uptime)
reboot -f	# with -no-reboot qemu exits; poweroff would need ACPI
EOF
chmod 755 "$root/init" "$root/mdbench-kmod"
(cd "$root" && find . | cpio -o -H newc --quiet) >"$tmp/initrd.cpio" ||
	fail "cpio could not pack the initramfs"

# --- guest -------------------------------------------------------------------------

boot() {	# boot ACCEL CPU: 0 if the guest powered off
	rm -f "$tmp/serial.log"
	timeout 300 qemu-system-x86_64 -accel "$1" -cpu "$2" -smp 1 -m 1G -no-reboot \
		-display none -monitor none -serial "file:$tmp/serial.log" \
		-kernel "$vmlinuz" -initrd "$tmp/initrd.cpio" \
		-append "console=ttyS0 loglevel=1 panic=-1 oops=panic" >"$tmp/qemu.log" 2>&1
}
qrc=1
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	boot kvm host
	qrc=$?
	# KVM that cannot start (nested virtualisation off, MSRs refused) fails
	# before the guest prints anything: then TCG.
	[ $qrc -ne 0 ] && ! grep -q '^@@ begin' "$tmp/serial.log" 2>/dev/null &&
		echo "note: KVM did not start ($(tail -n 1 "$tmp/qemu.log")); using TCG"
fi
if [ $qrc -ne 0 ] && ! grep -q '^@@ begin' "$tmp/serial.log" 2>/dev/null; then
	boot tcg max
	qrc=$?
fi
[ $qrc -eq 124 ] && fail "the guest did not power off within 300 s"
[ $qrc -eq 0 ] || { cat "$tmp/qemu.log"; fail "qemu exited $qrc"; }
[ -f "$tmp/serial.log" ] || fail "no serial log"
tr -d '\r' <"$tmp/serial.log" >"$tmp/log"
log=$tmp/log

# --- checks ------------------------------------------------------------------------

grep -q '^@@ end' "$log" || fail "the guest did not get to the end of /init"
mark() { grep "^@@ $1 " "$log" | head -n 1 | sed "s/^@@ $1 //"; }
rc_of() { mark "$1" | sed -n 's/.*rc=\([0-9]*\).*/\1/p'; }

[ "$(rc_of absent)" = 2 ] || fail "mdbench-kmod without the module: want exit 2"
grep -q 'mdbench_kmod module is not loaded; load it with' "$log" ||
	fail "mdbench-kmod without the module: no 'not loaded' line"
[ "$(rc_of insmod)" = 0 ] || fail "insmod failed"
[ "$(rc_of info)" = 0 ] || fail "mdbench-kmod info failed"
for k in lookup/seq lookup/random lookup/random-dep folio/tail folio/getput scan/compaction \
	alloc/order0 alloc/order9; do
	line=$(grep "^run kernel=$k " "$log" | head -n 1)
	[ -n "$line" ] || fail "no result for $k"
	case $line in
	*error=*) fail "$k: $line" ;;
	esac
	n=$(echo "$line" | sed -n 's/.* ops=\([0-9]*\) .*/\1/p')
	want=$ops
	[ $k = alloc/order9 ] && want=$ops9
	[ "${n:-0}" -ge "$want" ] || fail "$k did $n ops, want $want: $line"
	f=$(echo "$line" | sed -n 's/.* failed=\([0-9]*\) .*/\1/p')
	# A live folio may leave the LRU between the pick and the get: a few
	# failed gets are the kernel's answer, not an error.  Allocations
	# in a 1 GiB guest with 900 MiB free must not fail.
	case $k in
	folio/getput) [ "$f" -le $((n / 20)) ] || fail "$k: $f of $n gets failed" ;;
	*) [ "$f" = 0 ] || fail "$k: $f failures: $line" ;;
	esac
done
[ "$(rc_of run)" = 0 ] && [ "$(rc_of run9)" = 0 ] || fail "mdbench-kmod run failed"
grep -q '^census .*stable=1 sum_ok=1 match=1' "$log" ||
	fail "the scan's census and kpageflags' differ (or never held still)"
[ "$(rc_of census)" = 0 ] || fail "mdbench-kmod census failed"
grep -q '^refcheck .* in_use_after_unmap=0 ok=1' "$log" || fail "reference check failed"
[ "$(grep -c '^deny .*refused=1' "$log")" = 2 ] || fail "an unprivileged open was not refused"
[ "$(rc_of deny)" = 0 ] || fail "mdbench-kmod deny failed"
bounded=$(grep '^bounded ' "$log")
req=$(echo "$bounded" | sed -n 's/.* requests=\([0-9]*\).*/\1/p')
[ "${req:-0}" -ge 2 ] || fail "a 1 ms budget did not split 200000 lookups: $bounded"
[ "$(mark refcnt)" = 0 ] || fail "module use count $(mark refcnt) after every file closed"
[ "$(rc_of rmmod)" = 0 ] || fail "rmmod failed"
[ "$(rc_of insmod_floor)" = 0 ] || fail "insmod free_floor_mb=100000 failed"
grep -q '^floor kernel=alloc/order0 error=".*below the floor of' "$log" ||
	fail "alloc/order0 ran below its free-memory floor: $(grep '^floor ' "$log")"
[ "$(rc_of rmmod_floor)" = 0 ] || fail "second rmmod failed"
if grep '^@@ dmesg' "$log" | grep -E 'BUG|WARNING|Oops|KASAN|UBSAN|circular locking|Call Trace'; then
	fail "the kernel complained"
fi

accel_used=$(mark accel)
case $accel_used in
*KVM*) timing="KVM" ;;
*) timing="TCG: times are emulated, not meaningful" ;;
esac
echo "kernel: $(sed -n 's/^info release=\([^ ]*\).*/\1/p' "$log") ($vmlinuz, headers $kdir)"
echo "guest: ${accel_used:-no hypervisor detected} -> $timing"
grep -E '^(info|counter|census|refcheck|deny|floor) ' "$log"
grep -E '^(run|bounded) ' "$log" | sed 's/ L1D_load_misses=.*//'
echo "guest uptime at /init: $(mark begin), at the end: $(mark end)"
echo "PASS: kmod_qemu in $(($(date +%s) - start)) s"
