# SPDX-License-Identifier: GPL-2.0
# lib.sh - the prologue and checks of the scripts' shell tests, sourced as
#	. "$(dirname "$0")/lib.sh"
# Unset variables are errors; $tmp is a scratch directory removed on exit;
# $tests, $top, $fix, $fake are where things are, wherever the clone lives.
set -u
tests=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$tests")")
fix="$tests/fixtures"
fake="$tests/fake_mdbench.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
cases=0

# refused PROG WANT ARGS...: PROG ARGS exits 2 with exactly one line on
# stderr that starts with "PROG: " and holds WANT, nothing on stdout, no
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

# skip REASON: CTest's skipped (77), with the reason.
skip() {
	echo "skip: $1"
	exit 77
}
