#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_kmod_qemu.sh MDBENCH_KMOD SRCDIR [MDBENCH]: mdbench_kmod in a Debian
# kernel booted under qemu (KVM when usable, else TCG), with a busybox
# initramfs.
#
# On the host: build the module against the guest kernel's headers (in a
# temporary copy), pack busybox-static, the static mdbench-kmod, the module
# and /init into an initramfs.  In the guest: mdbench-kmod before insmod
# (must fail: not loaded), insmod, every kernel for a few ops, the census
# (scan/compaction's counts against the same guest's /proc/kpageflags and
# /proc/buddyinfo, read between two scans that agree), the reference check,
# the refusals (uid 65534, root without CAP_SYS_ADMIN), the module's use
# count, rmmod, and the kernel log's complaints.  With MDBENCH, also mdbench
# itself (dynamic: copied with what ldd lists) with the reference layout and
# the layout kernel side by side on the guest's kpageflags mix at the guest's
# RAM; its dump comes back on a second serial port, and the host checks it
# and runs scripts/compare and scripts/plot on it (the fidelity table).
# Then the host checks the serial log.  Timings under TCG are emulated:
# checked for nothing.
#
# Packages (Debian 12): see README.md beside this file; installed by
# `scripts/setup --kmod` where setup knows that option, else skipped (77).
# Environment: MDB_KMOD_VMLINUZ and MDB_KMOD_KDIR boot and build against
# that kernel image and headers instead of the newest pair under /boot;
# MDB_KMOD_OPS (default 2048) ops per kernel, MDB_KMOD_OPS9 (64) for
# alloc/order9; MDB_KMOD_ROUNDS (3) mdbench's --rounds in the guest;
# MDB_KMOD_KEEP_DUMP=DIR keeps the guest's dump (and the plots) in DIR.
. "$(dirname "$0")/../lib.sh"

bin=$1
src=$2
mdbench=${3:-}
rounds=${MDB_KMOD_ROUNDS:-3}
ops=${MDB_KMOD_OPS:-2048}
ops9=${MDB_KMOD_OPS9:-64}	# an order-9 alloc zeroes 2 MiB: ~10 ms under TCG
start=$(date +%s)

fail() {
	echo "FAIL: $*"
	# The workload's /proc/vmstat (hundreds of lines, checked on their own)
	# left out: a CI log that keeps a failure's head shows mdbench's lines.
	[ -f "$tmp/serial.log" ] && { echo "--- guest serial log (vmstat lines left out):"
		tr -d '\r' <"$tmp/serial.log" | grep -v '^vmstat[01]| '; }
	exit 1
}

# --- what the test needs ------------------------------------------------------

if grep -q -- '--kmod' "$src/scripts/setup" 2>/dev/null; then
	"$src/scripts/setup" --kmod >/dev/null 2>&1 ||
		echo "note: scripts/setup --kmod failed; using what is installed"
fi

guest_tools
command -v make >/dev/null || skip "make missing (Debian: build-essential)"
ldd "$bin" >/dev/null 2>&1 && skip "$bin is not static"
if [ -n "$mdbench" ]; then
	ldd "$mdbench" >/dev/null 2>&1 || skip "cannot list the libraries of $mdbench (ldd)"
	/usr/bin/python3 -c 'import json' 2>/dev/null || skip "/usr/bin/python3 missing"
fi

guest_kernel headers

chmod 755 "$tmp"

# --- host: module and initramfs ----------------------------------------------------

sh "$src/kmod/build.sh" "$kdir" "$tmp/mod" >"$tmp/build.log" 2>&1 || {
	cat "$tmp/build.log"
	fail "module build against $kdir failed"
}
grep -E 'warning:|error:' "$tmp/build.log" && fail "the module does not build warning-free"

root=$tmp/root
guest_root "$root"
cp "$bin" "$root/mdbench-kmod"
cp "$tmp/mod/mdbench_kmod.ko" "$root/"

# mdbench and what ldd says it loads, at the same paths; the reference
# layout and the suite's kernels the module also runs (its benchmarks only).
guest_mdbench=:
if [ -n "$mdbench" ]; then
	cp "$mdbench" "$root/mdbench"
	for lib in $(ldd "$mdbench" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib" || fail "cannot copy $lib for mdbench"
	done
	ref=$("$mdbench" --list=json --counters=none |
		/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["reference_layout"])') ||
		fail "mdbench --list=json failed on the host"
	filter='^(lookup/seq|lookup/random|lookup/random-dep|folio/tail|folio/getput|scan/compaction|alloc/order0|alloc/order9)/'
	# hugetlb pages are large folios on both sides: tails for folio/tail.
	guest_mdbench="echo 8 >/proc/sys/vm/nr_hugepages; mark hugepages n=\$(cat /proc/sys/vm/nr_hugepages)
/mdbench --layout=$ref,kernel '--benchmark_filter=$filter' --rounds=$rounds --benchmark_min_time=0.01 --out=/tmp/dump >/tmp/mdbench.out 2>&1
rc=\$?; sed 's/^/mdbench| /' /tmp/mdbench.out; mark mdbench rc=\$rc
send dump /tmp/dump/mdbench.json
/mdbench --layout=kernel --fixed-ops=256 >/tmp/fixed.out 2>&1
rc=\$?; sed 's/^/fixed| /' /tmp/fixed.out; mark fixed rc=\$rc
echo 0 >/proc/sys/vm/nr_hugepages"
fi
cat >>"$root/init" <<EOF
hostname mdbguest	# names the kpageflags mix
mark accel \$(dmesg | grep -o 'Hypervisor detected: .*' | head -n 1)
/mdbench-kmod info 2>&1; mark absent rc=\$?
sed 's/^/vmstat0| /' /proc/vmstat	# a workload for scripts/project: check_guest_vmstat.py
dd if=/dev/zero of=/tmp/workload bs=1M count=32 2>/dev/null; echo 1 >/proc/sys/vm/compact_memory
mark workload rc=\$?; sed 's/^/vmstat1| /' /proc/vmstat; rm /tmp/workload
insmod /mdbench_kmod.ko; mark insmod rc=\$?
/mdbench-kmod info 2>&1; mark info rc=\$?
/mdbench-kmod run --ops=$ops --make-thp --counters --kernel=lookup/seq --kernel=lookup/random \\
	--kernel=lookup/random-dep --kernel=folio/tail --kernel=folio/getput \\
	--kernel=scan/compaction --kernel=alloc/order0 2>&1; mark run rc=\$?
/mdbench-kmod run --ops=$ops9 --counters --kernel=alloc/order9 2>&1; mark run9 rc=\$?
/mdbench-kmod census 2>&1; mark census rc=\$?
/mdbench-kmod refcheck 2>&1; mark refcheck rc=\$?
/mdbench-kmod deny 2>&1; mark deny rc=\$?
$guest_mdbench
/mdbench-kmod run --kernel=lookup/seq --ops=200000 --budget-ms=1 2>&1 | sed 's/^run /bounded /'
mark refcnt \$(cat /sys/module/mdbench_kmod/refcnt)
rmmod mdbench_kmod; mark rmmod rc=\$?
insmod /mdbench_kmod.ko free_floor_mb=100000; mark insmod_floor rc=\$?
/mdbench-kmod run --kernel=alloc/order0 --ops=1 2>&1 | sed 's/^run /floor /'
rmmod mdbench_kmod; mark rmmod_floor rc=\$?
dmesg | grep -E 'BUG|WARNING|Oops|KASAN|UBSAN|circular locking|Call Trace|mdbench' | sed 's/^/@@ dmesg /'
EOF
chmod 755 "$root/mdbench-kmod"

# --- guest -------------------------------------------------------------------------

guest_run "$root" || fail "$guest_why"
log=$tmp/log

# --- checks ------------------------------------------------------------------------

rc_of() { guest_mark "$1" | sed -n 's/.*rc=\([0-9]*\).*/\1/p'; }

[ "$(rc_of absent)" = 2 ] || fail "mdbench-kmod without the module: want exit 2"
grep -q 'mdbench_kmod module is not loaded; load it with' "$log" ||
	fail "mdbench-kmod without the module: no 'not loaded' line"
[ "$(rc_of workload)" = 0 ] || fail "the vmstat workload failed"
/usr/bin/python3 "$src/tests/kmod/check_guest_vmstat.py" "$log" ${mdbench:+"$mdbench"} >"$tmp/vmcheck" 2>&1 ||
	{ cat "$tmp/vmcheck"; fail "the workload's vmstat deltas"; }
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
[ "$(grep -c '^deny .*refused=1' "$log")" = 5 ] ||
	fail "an unprivileged open, an ioctl on a kept fd without CAP_SYS_ADMIN or a bad request was not refused"
grep -q '^deny as=request-wrapping-array refused=1 reason="pfn array wraps' "$log" ||
	fail "a pfn array wrapping the address space was not refused"
grep -q '^deny as=request-scan-past-nodes refused=1 reason="pfn range outside' "$log" ||
	fail "a scan past the nodes' span was not refused"
[ "$(rc_of deny)" = 0 ] || fail "mdbench-kmod deny failed"
bounded=$(grep '^bounded ' "$log")
req=$(echo "$bounded" | sed -n 's/.* requests=\([0-9]*\).*/\1/p')
[ "${req:-0}" -ge 2 ] || fail "a 1 ms budget did not split 200000 lookups: $bounded"
[ "$(guest_mark refcnt)" = 0 ] || fail "module use count $(guest_mark refcnt) after every file closed"
[ "$(rc_of rmmod)" = 0 ] || fail "rmmod failed"
[ "$(rc_of insmod_floor)" = 0 ] || fail "insmod free_floor_mb=100000 failed"
grep -q '^floor kernel=alloc/order0 error=".*below the floor of' "$log" ||
	fail "alloc/order0 ran below its free-memory floor: $(grep '^floor ' "$log")"
[ "$(rc_of rmmod_floor)" = 0 ] || fail "second rmmod failed"
if grep '^@@ dmesg' "$log" | grep -E 'BUG|WARNING|Oops|KASAN|UBSAN|circular locking|Call Trace'; then
	fail "the kernel complained"
fi

accel_used=$(guest_mark accel)
case $accel_used in
*KVM*) timing="KVM" ;;
*) timing="TCG: times are emulated, not meaningful" ;;
esac

# mdbench in the guest: its dump, and the scripts on it.
if [ -n "$mdbench" ]; then
	[ "$(rc_of mdbench)" = 0 ] || fail "mdbench in the guest exited $(rc_of mdbench)"
	[ "$(rc_of dumpsent)" = 0 ] || fail "the guest could not send its dump"
	# --fixed-ops: the layout kernel alone, every kernel it has, no error.
	[ "$(rc_of fixed)" = 0 ] || fail "mdbench --layout=kernel --fixed-ops=256 exited $(rc_of fixed)"
	for k in lookup/seq lookup/random folio/tail folio/getput scan/compaction alloc/order0 \
		alloc/order9; do
		# (a guest with hugetlb pages names the live kernel's HVO: /hvo:off or /hvo:on)
		n=$(sed -n "s#^fixed| $k/kernel/mix:kpageflags:[^/]*/ram:[^:/]*\(/hvo:[a-z]*\)\{0,1\}: \([0-9]*\) items\$#\2#p" "$log")
		[ "${n:-0}" -ge 256 ] || fail "mdbench --fixed-ops: $k on the kernel: $(grep "^fixed| $k/" "$log")"
	done
	mkdir "$tmp/dump"
	why=$(guest_received dump "$tmp/dump/mdbench.json") || fail "$why"
	/usr/bin/python3 "$src/tests/kmod/check_guest_dump.py" "$tmp/dump/mdbench.json" "$log" \
		"$ref" "$rounds" "$timing" >"$tmp/dumpcheck" 2>&1 ||
		{ cat "$tmp/dumpcheck"; fail "the guest's dump"; }
	# The scripts read schema 2 and draw the fidelity table since the
	# scripts engineer's rework; an older scripts/ says so, and is not held to it.
	if grep -q '"real"' "$src/scripts/lib/mdb_dump.py" 2>/dev/null; then
		"$src/scripts/compare" "$tmp/dump" --layouts "$ref" kernel >"$tmp/compare.md" 2>&1 ||
			{ cat "$tmp/compare.md"; fail "scripts/compare on the guest's dump"; }
		"$src/scripts/plot" "$tmp/dump" --out "$tmp/plot" >"$tmp/plot.log" 2>&1 ||
			{ cat "$tmp/plot.log"; fail "scripts/plot on the guest's dump"; }
		grep -q '^## Fidelity' "$tmp/plot/report.md" ||
			fail "scripts/plot's report.md has no fidelity table"
		scripts=checked
	else
		scripts="not checked: this tree's scripts/ predate the fidelity table (\"real\": true)"
	fi
	if [ -n "${MDB_KMOD_KEEP_DUMP:-}" ]; then
		mkdir -p "$MDB_KMOD_KEEP_DUMP" && cp -r "$tmp/dump/." "$MDB_KMOD_KEEP_DUMP/" &&
			{ [ ! -d "$tmp/plot" ] || cp -r "$tmp/plot" "$MDB_KMOD_KEEP_DUMP/"; }
	fi
fi
echo "kernel: $(sed -n 's/^info release=\([^ ]*\).*/\1/p' "$log") ($vmlinuz, headers $kdir)"
echo "guest: ${accel_used:-no hypervisor detected} -> $timing"
grep -E '^(info|counter|census|refcheck|deny|floor) ' "$log"
grep -E '^(run|bounded) ' "$log" | sed 's/ L1D_load_misses=.*//'
if [ -n "$mdbench" ]; then
	cat "$tmp/dumpcheck"
	echo "scripts/compare and scripts/plot on it: $scripts"
	[ "$scripts" = checked ] &&
		sed -n '/^## Fidelity/,/^## /p' "$tmp/plot/report.md" | sed '$d'
fi
cat "$tmp/vmcheck"
echo "guest uptime at /init: $(guest_mark begin), at the end: $(guest_mark end)"
echo "PASS: kmod_qemu in $(($(date +%s) - start)) s"
