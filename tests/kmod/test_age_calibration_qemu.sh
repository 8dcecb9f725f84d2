#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_age_calibration_qemu.sh MDBENCH SRCDIR: the aging's model against a
# real kernel.  A Debian kernel boots under qemu (KVM when usable, else TCG)
# with RAM_MIB of RAM and a busybox initramfs; the guest traces the kmem
# page events (mm_page_alloc, mm_page_free, mm_page_free_batched,
# mm_page_pcpu_drain, mm_page_alloc_zone_locked, mm_page_alloc_extfrag)
# through tracefs while a workload runs (a file as large as free memory,
# removed; files into tmpfs, anonymous buffers, a tree walk for the slab,
# every other file removed), reads
# /proc/buddyinfo and /proc/pagetypeinfo, stops tracing and sends the trace,
# those and /proc/vmstat before and after back on a second serial port.  On
# the host scripts/trace --ftrace converts the trace, mdbench replays it at
# the kernel's pfns (--desc-age=trace:FILE at the guest's RAM) and
# check_age_calibration.py compares the model's free blocks per order and
# migratetype and pageblocks per migratetype with the guest's: within 10%
# on every order the guest has at least 100 free blocks of.  The synthetic
# aging (--desc-age=aged, desktop mix) and scripts/trace's trace from the
# guest's vmstat run at the same RAM and are printed beside it, held to
# nothing.  Skips (77) without qemu, busybox-static, cpio or a readable
# kernel image; MDB_KMOD_VMLINUZ picks another image.
. "$(dirname "$0")/../lib.sh"

mdbench=$1
src=$2
ram_mib=${MDB_CALIB_RAM_MIB:-256}
start=$(date +%s)

fail() {
	echo "FAIL: $*"
	[ -f "$tmp/serial.log" ] && { echo "--- guest serial log:"; tr -d '\r' <"$tmp/serial.log" | tail -n 40; }
	exit 1
}

guest_tools
/usr/bin/python3 -c 'import json' 2>/dev/null || skip "/usr/bin/python3 missing"
guest_kernel	# the image alone: no module is built here
guest_mem=${ram_mib}M
guest_timeout=400

chmod 755 "$tmp"
root=$tmp/root
guest_root "$root"
mkdir -p "$root/mnt"
cat >>"$root/init" <<'EOF'
T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null || T=/sys/kernel/debug/tracing
[ -d $T/events/kmem ] || mount -t debugfs nodev /sys/kernel/debug
mark accel $(dmesg | grep -o 'Hypervisor detected: .*' | head -n 1)
# The kernel's own compaction would move pages the free scanner isolates
# without an mm_page_alloc: off, and counted below (compact_* in vmstat).
echo 0 >/proc/sys/vm/compaction_proactiveness 2>/dev/null
echo never >/sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null
echo 32768 >$T/buffer_size_kb
for e in mm_page_alloc mm_page_free mm_page_free_batched mm_page_pcpu_drain \
	 mm_page_alloc_zone_locked mm_page_alloc_extfrag; do
	echo 1 >$T/events/kmem/$e/enable || mark noevent $e
done
mount -t tmpfs -o size=70% tmpfs /mnt
mkdir /tmp/out
cat /proc/vmstat >/tmp/out/vmstat0
echo >$T/trace
echo 1 >$T/tracing_on
mark traced
# The workload.  First a file as large as free memory less 16 MiB, removed:
# the trace then allocates (and the replay knows) nearly every page that was
# free before it.  Then page cache, anonymous buffers, slab, and holes: 6000
# one-page files (the shell's own echo: no fork each), every other removed.
free_mib=$(($(sed -n 's/^MemFree: *\([0-9]*\).*/\1/p' /proc/meminfo) / 1024 - 16))
dd if=/dev/zero of=/mnt/big bs=1M count=$free_mib 2>/dev/null
rm /mnt/big
mkdir /mnt/s
i=0
while [ $i -lt 6000 ]; do echo $i >/mnt/s/$i; i=$((i + 1)); done
rm /mnt/s/*[13579]
i=0
while [ $i -lt 40 ]; do dd if=/dev/zero of=/mnt/f$i bs=64k count=$((16 + i % 5 * 8)) 2>/dev/null; i=$((i + 1)); done
dd if=/dev/zero of=/dev/null bs=24M count=3 2>/dev/null
find / -xdev >/dev/null 2>&1
ls -lR /sys >/dev/null 2>&1
i=0
while [ $i -lt 40 ]; do rm /mnt/f$i; i=$((i + 2)); done
dd if=/dev/zero of=/dev/null bs=16M count=2 2>/dev/null
i=40
while [ $i -lt 56 ]; do dd if=/dev/zero of=/mnt/f$i bs=64k count=24 2>/dev/null; i=$((i + 1)); done
i=41
while [ $i -lt 56 ]; do rm /mnt/f$i; i=$((i + 3)); done
cat /mnt/f1 /mnt/f3 >/dev/null
mark workload rc=$?
cat /proc/buddyinfo /proc/pagetypeinfo >/tmp/out/buddy
echo 0 >$T/tracing_on
cat /proc/vmstat >/tmp/out/vmstat1
mark overrun $(grep -i overrun $T/per_cpu/cpu0/stats)
cat $T/trace | gzip -1 >/tmp/out/trace.gz
cd /tmp/out && tar cf /tmp/out.tar vmstat0 vmstat1 buddy trace.gz
send data /tmp/out.tar
EOF
guest_run "$root" || fail "$guest_why"
[ -z "$(guest_mark noevent)" ] || fail "the guest kernel lacks kmem event $(guest_mark noevent)"
why=$(guest_received data "$tmp/data.tar") || fail "$why"
mkdir "$tmp/g" && tar xf "$tmp/data.tar" -C "$tmp/g" && gzip -d "$tmp/g/trace.gz" ||
	fail "cannot unpack the guest's data"

# The model: the trace placed at the kernel's pfns; the synthetic aging and
# the vmstat trace at the same RAM for comparison.
run_model() {	# run_model DIR ARGS...: one quick build of each machine, dumped into DIR
	dir=$1
	shift
	"$mdbench" --layout="$(first_layout)" --ram="${ram_mib}MiB" --counters=none --rounds=1 \
		--benchmark_min_time=0.001 '--benchmark_filter=^scan/compaction/' --out="$dir" \
		"$@" >"$tmp/model.out" 2>&1 || { cat "$tmp/model.out"; fail "mdbench $*"; }
}
/usr/bin/python3 "$src/scripts/trace" --ftrace "$tmp/g/trace" --out "$tmp/placed.trace" 2>/dev/null ||
	fail "scripts/trace --ftrace on the guest's trace"
run_model "$tmp/placed" --desc-age=trace:"$tmp/placed.trace"
run_model "$tmp/aged" --desc-age=aged --mix=desktop
/usr/bin/python3 "$src/scripts/trace" --vmstat "$tmp/g/vmstat0" "$tmp/g/vmstat1" --ram "${ram_mib}MiB" \
	--out "$tmp/vmstat.trace" 2>/dev/null || fail "scripts/trace --vmstat on the guest's vmstat"
run_model "$tmp/vmtrace" --desc-age=trace:"$tmp/vmstat.trace" --mix=desktop
/usr/bin/python3 "$src/tests/kmod/check_age_calibration.py" "$tmp/g/buddy" "$tmp/placed/mdbench.json" \
	"$tmp/aged/mdbench.json" "$tmp/vmtrace/mdbench.json" "$tmp/g/vmstat0" "$tmp/g/vmstat1" ||
	fail "the model replaying the guest's trace is not within 10% of the guest"
head -n 1 "$tmp/placed.trace"
echo "guest: $(guest_mark accel) ${ram_mib} MiB, ring buffer: $(guest_mark overrun)"
echo "PASS: age_calibration_qemu in $(($(date +%s) - start)) s"
