#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_project_qemu.sh SRCDIR MDBENCH: scripts/project's op counts against
# ftrace's, for one workload in a Debian kernel under qemu (tests/lib.sh's
# guest: KVM when usable, else TCG, a busybox initramfs).
#
# In the guest, with tracefs's events on (kmem:mm_page_alloc, the compaction
# scanners' isolate events, migrate:mm_migrate_pages, the x86 page-fault
# exceptions, vmscan:mm_vmscan_lru_shrink_inactive): /proc/vmstat read, the
# workload (32 MiB written to a file of the initramfs: order-0 page cache;
# 16 MiB to a tmpfs mounted huge=always: PMD THPs where it gets them; then
# /proc/sys/vm/compact_memory: both scanners and migrations), /proc/vmstat
# read again, tracing off.  The trace comes back on the second serial port.
# On the host (check_guest_trace.py): each kernel's ops from the vmstat
# deltas alone (the derived counters as project makes them without a trace)
# against the ops the trace's events count, with the kernels' vmstat maps
# of MDBENCH's --list=json: within 5% for every kernel the trace counts.
# Prints the table.  Skips (77) without qemu, busybox-static, cpio or a
# kernel image (tests/kmod/README.md; scripts/setup --kmod installs them).
# MDB_PROJECT_KEEP=DIR keeps the guest's log and trace in DIR.
. "$(dirname "$0")/../lib.sh"

src=$1
mdbench=$2
start=$(date +%s)

fail() {
	echo "FAIL: $*"
	[ -f "$tmp/log" ] && { echo "--- guest serial log (last 40 lines):"; tail -n 40 "$tmp/log"; }
	exit 1
}

guest_tools
guest_kernel	# the image alone: no module is built here
/usr/bin/python3 -c 'import json' 2>/dev/null || skip "/usr/bin/python3 missing"

root=$tmp/root
guest_root "$root"
cat >>"$root/init" <<'EOF'
mount -t tracefs tracefs /sys/kernel/tracing; mark tracefs rc=$?
t=/sys/kernel/tracing
echo 65536 >$t/buffer_size_kb
for e in kmem/mm_page_alloc compaction/mm_compaction_isolate_migratepages \
	compaction/mm_compaction_isolate_freepages migrate/mm_migrate_pages \
	exceptions/page_fault_user exceptions/page_fault_kernel \
	vmscan/mm_vmscan_lru_shrink_inactive; do
	echo 1 >$t/events/$e/enable || mark noevent $e
done
mkdir -p /mnt/huge; mount -t tmpfs -o huge=always,size=64m tmpfs /mnt/huge
# The shell's builtins read /proc/vmstat: a sed would start (and fault)
# inside the trace's window before its reading, and end after the other.
vmstat() { while read -r l; do echo "$1| $l"; done </proc/vmstat; }
echo >$t/trace
echo 1 >$t/tracing_on
vmstat vmstat0
dd if=/dev/zero of=/tmp/workload bs=1M count=32 2>/dev/null
dd if=/dev/zero of=/mnt/huge/workload bs=1M count=16 2>/dev/null
echo 1 >/proc/sys/vm/compact_memory
vmstat vmstat1
echo 0 >$t/tracing_on
mark workload rc=$? overrun=$(grep -o 'overrun: [0-9]*' $t/per_cpu/cpu0/stats)
cat $t/trace >/tmp/trace
send trace /tmp/trace
EOF
guest_run "$root"
ran=$?
[ -n "${MDB_PROJECT_KEEP:-}" ] && mkdir -p "$MDB_PROJECT_KEEP" &&
	cp "$tmp/log" "$tmp/ttyS1.out" "$MDB_PROJECT_KEEP/" 2>/dev/null
[ $ran -eq 0 ] || fail "$guest_why"
[ "$(guest_mark tracefs)" = "rc=0" ] || fail "no tracefs in the guest: $(guest_mark tracefs)"
grep '^@@ noevent ' "$tmp/log" && fail "the guest kernel lacks a trace event"
case "$(guest_mark workload)" in
*"overrun: 0"*) ;;
*) fail "the trace lost events: $(guest_mark workload)" ;;
esac
why=$(guest_received trace "$tmp/trace") || fail "$why"
/usr/bin/python3 "$src/tests/kmod/check_guest_trace.py" "$tmp/log" "$tmp/trace" "$mdbench" ||
	fail "ops from vmstat and from the trace differ"
echo "kernel: $vmlinuz; guest uptime at /init: $(guest_mark begin), at the end: $(guest_mark end)"
echo "PASS: project_qemu in $(($(date +%s) - start)) s"
