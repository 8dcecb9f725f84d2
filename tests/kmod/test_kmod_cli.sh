#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test_kmod_cli.sh MDBENCH_KMOD: bad input and a missing device give one
# line on stderr and exit status 2, never a crash; --help exits 0.  Needs
# no module: the device is named by a path that cannot exist.
. "$(dirname "$0")/../lib.sh"
bin=$1
failed=0

expect2() {	# expect2 WHAT ARGS...: exit 2 and exactly one line on stderr
	what=$1
	shift
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$tmp/out" ]; then
		echo "FAIL: $what: '$*' exited $rc with $lines lines on stderr:"
		cat "$tmp/err" "$tmp/out"
		failed=1
	fi
}

dev=--device=/nonexistent/mdbench
expect2 "no command"
expect2 "unknown command" frob
expect2 "unknown option" --frob info
expect2 "option without value" run --ops
expect2 "not a number" run --ops=12x
expect2 "zero ops" run --ops=0
expect2 "too many ops" run --ops=99999999999999999999999
expect2 "unknown kernel" run --kernel=lookup/nope
expect2 "two commands" info run
expect2 "no device: info" "$dev" info
expect2 "no device: run" "$dev" run --ops=1
expect2 "no device: census" census "$dev"
grep -q '^mdbench-kmod: /nonexistent/mdbench: no such device' "$tmp/err" ||
	{ echo "FAIL: missing device message: $(cat "$tmp/err")"; failed=1; }
"$bin" --help >"$tmp/out" 2>&1 && grep -q '^usage: ' "$tmp/out" ||
	{ echo "FAIL: --help"; failed=1; }
[ $failed -eq 0 ] && echo "kmod_cli: all cases passed"
exit $failed
