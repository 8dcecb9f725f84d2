#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mdbench --mix=kpageflags on a /proc a careless or hostile machine gives:
# fake files bind-mounted over /proc/kpageflags, zoneinfo,
# buddyinfo and iomem in a mount namespace of our own (unshare -m; skipped
# where it cannot be made).  Each is refused up front, one line, exit 2:
# buddyinfo counts no zone holds (-1, 2^64 - 1, 10^9), a FIFO over zoneinfo
# (not waited on), /dev/zero over kpageflags (not read on), and a recorded
# trace on the snapshot (not each benchmark's error, exit 1); the fake
# machine itself reads.
#	test_mdbench_proc.sh MDBENCH PYTHON FIXTURES
if [ "${MDB_IN_NS:-}" != 1 ]; then	# before lib.sh: its scratch directory is the namespace's
	if ! unshare -m true 2>/dev/null; then
		echo "skip: no mount namespace here (unshare -m needs root)"
		exit 77
	fi
	MDB_IN_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2
vm=$3/kpageflags-vm
fail=0
# The fake machine of fixtures/kpageflags-vm: 4096 pfns, the first 1024 free (KPF_BUDDY).
"$py" -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("<Q", 1 << 10) * 1024 +
	struct.pack("<Q", 0) * 3072)' >"$tmp/kpageflags"
for f in zoneinfo buddyinfo iomem; do cp "$vm/$f" "$tmp/$f"; done
for f in kpageflags zoneinfo buddyinfo iomem; do
	mount --bind "$tmp/$f" "/proc/$f" || skip "cannot bind-mount over /proc/$f"
done
printf 'a 1 0 anon\n' >"$tmp/t.trace"

# expect PATTERN ARGS...: exit 2, one stderr line matching PATTERN.
expect() {
	pattern=$1
	shift
	timeout 60 "$mdbench" --benchmark_list_tests=true --ram=16MiB --counters=none "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -Eq -- "$pattern" "$tmp/err"; then
		echo "FAIL: mdbench $*: rc $rc, want 2 and one line matching '$pattern':"
		sed 's/^/  stderr: /' "$tmp/err"
		fail=1
	fi
}

"$mdbench" --benchmark_list_tests=true --ram=16MiB --counters=none --mix=kpageflags \
	>"$tmp/out" 2>"$tmp/err" && grep -q '^footprint/.*/mix:kpageflags:' "$tmp/out" ||
	{ echo "FAIL: the fake machine's snapshot:"; cat "$tmp/err"; fail=1; }
expect "^mdbench: --mix=kpageflags: a kpageflags snapshot keeps every block where it saw it; --desc-age=trace:$tmp/t.trace replays onto a drawn mix only" \
	--mix=kpageflags --desc-age=trace:"$tmp/t.trace"
for count in -1 18446744073709551615 1000000000; do
	printf 'Node 0, zone   Normal      0      0      0      0      0      0      0      0      0      0 %s \n' \
		"$count" >"$tmp/buddyinfo"
	expect "^mdbench: --mix=kpageflags: /proc/buddyinfo: node 0, zone Normal: " --mix=kpageflags
done
cp "$vm/buddyinfo" "$tmp/buddyinfo"
umount /proc/zoneinfo && mkfifo "$tmp/fifo" && mount --bind "$tmp/fifo" /proc/zoneinfo ||
	skip "cannot bind-mount a FIFO over /proc/zoneinfo"
expect "^mdbench: --mix=kpageflags: /proc/zoneinfo: not a regular file" --mix=kpageflags
umount /proc/zoneinfo
umount /proc/kpageflags && mount --bind /dev/zero /proc/kpageflags ||
	skip "cannot bind-mount /dev/zero over /proc/kpageflags"
expect "^mdbench: --mix=kpageflags: /proc/kpageflags: not a regular file" --mix=kpageflags
[ "$fail" = 0 ] && echo "ok: a hostile /proc refused in one line, exit 2"
exit "$fail"
