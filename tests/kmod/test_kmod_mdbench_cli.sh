#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_kmod_mdbench_cli.sh MDBENCH PYTHON: mdbench's layout "kernel" without
# the module.  Asked for with the module absent, or by a user who is not
# root, it is one line on stderr and exit 2 before anything runs, whatever
# else the command line says; not asked for, mdbench never touches the
# module and lists no layout "kernel".  The device is named through
# MDB_KMOD_DEVICE so that a machine with the module loaded runs the same.
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2
failed=0

# expect2 WHAT PATTERN CMD...: exit 2, nothing on stdout, one line on stderr matching PATTERN
expect2() {
	what=$1
	pattern=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$tmp/out" ] || ! grep -q -- "$pattern" "$tmp/err"; then
		echo "FAIL: $what: exited $rc, $lines lines on stderr (want 2, one line matching '$pattern'):"
		cat "$tmp/err" "$tmp/out"
		failed=1
	fi
}

absent="MDB_KMOD_DEVICE=$tmp/no/mdbench"
not_loaded='^mdbench: --layout=kernel: .*/no/mdbench: no such device'
for args in "--layout=kernel" "--layout=kernel --list" "--layout=kernel --list=json" \
	"--layout=kernel,$("$mdbench" --list=json --counters=none |
		"$py" -c 'import json, sys; print(json.load(sys.stdin)["reference_layout"])')" \
	"--layout=kernel --mix=desktop" "--layout=kernel --simulate --out=$tmp/sim" \
	"--layout=kernel --fixed-ops=10" "--layout=kernel --out=$tmp/run"; do
	# shellcheck disable=SC2086
	expect2 "module absent: $args" "$not_loaded" env "$absent" "$mdbench" $args
done
if [ -e "$tmp/run" ] || [ -e "$tmp/sim" ]; then
	echo "FAIL: a refused run created its --out"
	failed=1
fi

# Not root: a device only root may open.  As root, the same as uid 65534
# (mdbench copied where that user can run it); as another user, directly.
if [ "$(id -u)" = 0 ]; then
	if command -v setpriv >/dev/null; then
		chmod 755 "$tmp"
		cp "$mdbench" "$tmp/mdbench"
		: >"$tmp/dev" && chmod 600 "$tmp/dev"
		expect2 "not root" 'the device is root only: run as root$' env "MDB_KMOD_DEVICE=$tmp/dev" \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/mdbench" --layout=kernel --list
	else
		echo "note: no setpriv (util-linux): the not-root case is not checked"
	fi
else
	: >"$tmp/dev" && chmod 000 "$tmp/dev"
	expect2 "not root" 'the device is root only: run as root$' env "MDB_KMOD_DEVICE=$tmp/dev" \
		"$mdbench" --layout=kernel --list
fi

# Not asked for: no module opened (a device that cannot exist changes
# nothing), no layout kernel listed, the help names it.
env "$absent" "$mdbench" --list=json --counters=none >"$tmp/list.json" 2>"$tmp/err" ||
	{ echo "FAIL: --list=json without the layout kernel: $(cat "$tmp/err")"; failed=1; }
"$py" - "$tmp/list.json" <<'EOF' || failed=1
import json, sys
doc = json.load(open(sys.argv[1]))
names = [l["name"] for l in doc["layouts"]]
bad = [n for n in names if n == "kernel"] + [l["name"] for l in doc["layouts"] if l.get("real")]
bad += [b["name"] for b in doc["benchmarks"] if b["layout"] == "kernel"]
if bad:
	print(f"FAIL: --list=json without --layout=kernel lists {bad}")
	sys.exit(1)
EOF
"$mdbench" --help | grep -q 'kernel: the running kernel' ||
	{ echo "FAIL: --help does not describe the layout kernel"; failed=1; }

[ $failed -eq 0 ] && echo "kmod_mdbench_cli: all cases passed"
exit $failed
