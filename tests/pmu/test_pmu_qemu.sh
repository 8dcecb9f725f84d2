#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_pmu_qemu.sh MDBENCH SRCDIR CACHEDIR: the counter path against a PMU.
#
# The aarch64 mdbench (with the shared libraries its ELF names and their
# loader) in an arm64 guest: qemu-system-aarch64 -M virt -accel tcg -cpu
# neoverse-n1 -icount shift=0, Debian 12's arm64 kernel and busybox-static
# (apt-get download, unpacked with dpkg-deb -x into CACHEDIR, in the build
# tree, fetched once).  The guest's armv8_pmuv3 driver has 6 counters and the
# cycle counter; under -icount shift=0 INST_RETIRED is exact and
# deterministic, CPU_CYCLES is instructions x 2^shift, and no cache event
# counts (the generic ones are ENOENT, the raw ones open and read 0).
#
# In the guest, on every layout mdbench has (no --layout: all of them),
# at 8MiB: convert/pfn_to_page, lookup/seq and lookup/random-cold, with
# counters named by perf (instructions, cycles, L1D_load_misses), libpfm4
# (arm_n1::INST_RETIRED, arm_n1::L1D_CACHE_REFILL) and raw syntax (r11):
#   - --fixed-ops at 4096 ops twice, then (the first two) 8192 and 16384:
#     raw totals;
#   - a Google Benchmark run of the last two (1 round) whose dump comes back
#     on the console;
#   - multiplexed: 11 hardware events (perf's, libpfm4's, raw) for the 6
#     counters and the cycle counter, on lookup/seq/page64: a fixed run of
#     4M ops and a Google Benchmark run (0.2 s of guest time) whose dump
#     comes back; the kernel accepts 8 events into one group, which the
#     PMU never schedules whole, so mdbench must find the limit itself
#     (counters.hw_group_limit).
# The host (check_pmu_guest.py) checks exact, repeatable and proportional
# instruction counts, cycles = instructions, the cache event's 0 reported as
# not trusted, the PMU named in the dump, and the multiplexed groups each
# running part of the time with instructions scaled within 1% of exact.
#
# Skips (77) without qemu-system-aarch64 (Debian: qemu-system-arm), cpio,
# an arm64 package source for apt-get download (scripts/setup --aarch64
# adds the architecture), or an aarch64 mdbench.  MDB_PMU_KEEP=DIR keeps the
# guest's log and dumps in DIR.
. "$(dirname "$0")/../lib.sh"

mdbench=$1
src=$2
cache=$3
start=$(date +%s)

fail() {
	echo "FAIL: $*"
	[ -n "${MDB_PMU_KEEP:-}" ] && [ -f "$tmp/serial.log" ] && mkdir -p "$MDB_PMU_KEEP" &&
		tr -d '\r' <"$tmp/serial.log" >"$MDB_PMU_KEEP/serial.log"
	[ -f "$tmp/serial.log" ] && { echo "--- guest serial log (last 60 lines):"; tr -d '\r' <"$tmp/serial.log" | tail -n 60; }
	exit 1
}

# --- what the test needs ------------------------------------------------------

command -v qemu-system-aarch64 >/dev/null ||
	skip "qemu-system-aarch64 missing (Debian: qemu-system-arm; scripts/setup --pmu)"
command -v cpio >/dev/null || skip "cpio missing (Debian: cpio; scripts/setup --pmu)"
command -v readelf >/dev/null || skip "readelf missing (Debian: binutils)"
/usr/bin/python3 -c 'import json' 2>/dev/null || skip "/usr/bin/python3 missing"
[ -f "$mdbench" ] || skip "no aarch64 mdbench at $mdbench"
readelf -h "$mdbench" 2>/dev/null | grep -q 'AArch64' ||
	skip "$mdbench is not an aarch64 build (the pmu test runs in the aarch64 build: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake)"

# The kernel and busybox, downloaded once into the build tree.
mkdir -p "$cache"
if ! ls "$cache"/kernel/boot/vmlinuz-* >/dev/null 2>&1 || [ ! -x "$cache/busybox/bin/busybox" ]; then
	command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
		skip "no apt-get/dpkg-deb to fetch Debian's arm64 kernel and busybox-static"
	dpkg --print-foreign-architectures 2>/dev/null | grep -qx arm64 ||
		skip "dpkg has no arm64 architecture (scripts/setup --aarch64 adds it)"
	kpkg=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*-arm64\)\(:arm64\)\{0,1\}$/\1/p' | head -n 1)
	[ -n "$kpkg" ] || skip "apt knows no linux-image-arm64:arm64 (apt-get update after adding arm64)"
	rm -rf "$cache/debs" "$cache/kernel" "$cache/busybox"
	mkdir -p "$cache/debs"
	(cd "$cache/debs" && apt-get download "$kpkg:arm64" busybox-static:arm64) >"$tmp/apt.log" 2>&1 ||
		{ cat "$tmp/apt.log"; skip "apt-get download $kpkg:arm64 busybox-static:arm64 failed"; }
	dpkg-deb -x "$cache"/debs/linux-image-*.deb "$cache/kernel" || fail "cannot unpack $kpkg"
	dpkg-deb -x "$cache"/debs/busybox-static_*.deb "$cache/busybox" || fail "cannot unpack busybox-static"
	rm -rf "$cache/debs"
fi
vmlinuz=$(ls "$cache"/kernel/boot/vmlinuz-* | head -n 1)
busybox=$cache/busybox/bin/busybox
[ -x "$busybox" ] || fail "no busybox in $cache/busybox"

# --- host: the initramfs ------------------------------------------------------

root=$tmp/root
guest_root "$root"	# the arm64 busybox: tests/lib.sh's root and /init's start
cp "$mdbench" "$root/mdbench"
# The libraries the ELF names, recursively, from the arm64 multiarch trees and the cross
# toolchain's, at the loader's own path.
libdirs="/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib"
find_lib() {
	for d in $libdirs; do
		[ -e "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}
interp=$(readelf -l "$mdbench" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
[ -n "$interp" ] || fail "$mdbench names no program interpreter"
todo=$mdbench
seen=""
mkdir -p "$root/lib/aarch64-linux-gnu" "$root$(dirname "$interp")"
while [ -n "$todo" ]; do
	set -- $todo
	f=$1
	shift
	todo=$*
	for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		case " $seen " in *" $n "*) continue ;; esac
		seen="$seen $n"
		p=$(find_lib "$n") || skip "no arm64 $n for mdbench (the arm64 -dev packages: scripts/setup --aarch64)"
		cp -L "$p" "$root/lib/aarch64-linux-gnu/$n"
		todo="$todo $p"
	done
done
ld=$(find_lib "$(basename "$interp")") || skip "no arm64 loader $(basename "$interp")"
cp -L "$ld" "$root$interp"

f1=16384	# 4 x 4096: whole passes over the 2048 pfns of 8MiB
filter='^(convert/pfn_to_page|lookup/seq|lookup/random-cold)/'
prop='^(convert/pfn_to_page|lookup/seq)/'	# whole passes: exactly proportional
# perf's names, libpfm4's, raw (r11: CPU_CYCLES); 6 hardware events for 7 counters.
counters=instructions,arm_n1::INST_RETIRED,cycles,r11,L1D_load_misses,arm_n1::L1D_CACHE_REFILL,page_faults
common="--ram=8MiB --desc-age=fresh"
# 11 hardware events; instructions lands in the first group, arm_n1::INST_RETIRED in a later one.
muxc=instructions,cycles,arm_n1::L1D_CACHE_REFILL,r04,r10,r12,r13,arm_n1::INST_RETIRED,r11,r1b,r02
mux=$((f1 * 256))	# 4M ops of lookup/seq: 0.19 s of guest time (1 ns an instruction), ~48 turns of 4 ms
cat >>"$root/init" <<EOF2
mark midr \$(cat /sys/devices/system/cpu/cpu0/regs/identification/midr_el1 2>/dev/null)
mark cpupart \$(grep -m1 'CPU part' /proc/cpuinfo | sed 's/.*: //')
mark pmu \$(dmesg | grep -o 'PMU driver, [0-9]* counters available' | head -n 1)
/mdbench --list >/tmp/list 2>&1; mark list rc=\$?
sed -n '/^layouts:/,/^[a-z]/p' /tmp/list | sed 's/^/list| /'
run() {	# TAG ARGS...: one mdbench run, its output prefixed by TAG
	tag=\$1; shift
	{ /mdbench $common "\$@"; echo \$? >/tmp/rc; } 2>&1 | sed "s/^/\$tag| /"
	mark \$tag rc=\$(cat /tmp/rc) uptime=\$(cut -d' ' -f1 /proc/uptime)
}
run f8k '--benchmark_filter=$filter' --counters=$counters --fixed-ops=$((f1 / 4))
run f8k2 '--benchmark_filter=$filter' --counters=$counters --fixed-ops=$((f1 / 4))
run f16k '--benchmark_filter=$prop' --counters=$counters --fixed-ops=$((f1 / 2))
run f32k '--benchmark_filter=$prop' --counters=$counters --fixed-ops=$f1
run gb '--benchmark_filter=^(lookup/seq|lookup/random-cold)/' --counters=$counters --benchmark_min_time=0.01 --out=/tmp/gb
mark muxms \$(cat /sys/bus/event_source/devices/armv8_pmuv3*/perf_event_mux_interval_ms 2>/dev/null | head -n 1)
run fmux '--benchmark_filter=^lookup/seq/page64/' --counters=$muxc --fixed-ops=$mux
run gbmux '--benchmark_filter=^lookup/seq/page64/' --counters=$muxc --benchmark_min_time=0.2 --out=/tmp/gbmux
for d in gb gbmux; do
	echo "@@ dump-begin \$d"; cat /tmp/\$d/mdbench.json; echo; echo "@@ dump-end \$d"
done
mark end uptime=\$(cut -d' ' -f1 /proc/uptime)
poweroff -f
EOF2
guest_pack "$root" || fail "cpio could not pack the initramfs"

# --- guest -------------------------------------------------------------------------

timeout 900 qemu-system-aarch64 -M virt -accel tcg -cpu neoverse-n1 -icount shift=0 -smp 1 -m 1024 \
	-nic none -no-reboot -display none -monitor none -serial "file:$tmp/serial.log" \
	-kernel "$vmlinuz" -initrd "$tmp/initrd.cpio" \
	-append "console=ttyAMA0 loglevel=1 panic=-1" >"$tmp/qemu.log" 2>&1
qrc=$?
[ $qrc -eq 124 ] && fail "the guest did not power off within 900 s"
[ $qrc -eq 0 ] || { cat "$tmp/qemu.log"; fail "qemu exited $qrc"; }
tr -d '\r' <"$tmp/serial.log" >"$tmp/log"
grep -q '^@@ end' "$tmp/log" || fail "the guest did not get to the end of /init"
if [ -n "${MDB_PMU_KEEP:-}" ]; then
	mkdir -p "$MDB_PMU_KEEP" && cp "$tmp/log" "$MDB_PMU_KEEP/serial.log"
fi
/usr/bin/python3 "$here/check_pmu_guest.py" "$tmp/log" "$f1" "$mux" ${MDB_PMU_KEEP:+"$MDB_PMU_KEEP"} ||
	fail "the guest's counts"
echo "kernel: $(basename "$vmlinuz"); qemu: $(qemu-system-aarch64 --version | head -n 1)"
echo "PASS: pmu_qemu in $(($(date +%s) - start)) s"
