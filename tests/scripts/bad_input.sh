#!/bin/sh
# Every class of bad input to scripts/plot, compare, collect and run: exit
# status 2, exactly one line on stderr that starts with "<prog>: ", nothing on
# stdout and no traceback.
#	test_scripts_bad_input.sh plot|compare|collect|run
set -u
tests=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$tests")
fix="$tests/fixtures/dumps"
bad="$fix/bad"
fake="$tests/test_scripts_fake_mdbench.py"
prog=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
cases=0

# expect WHAT_TO_SEE_IN_THE_LINE ARGS...
expect() {
	want=$1
	shift
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
	[ ! -s "$tmp/out" ] || problem="$problem; stdout not empty"
	if [ -n "$problem" ]; then
		echo "FAIL $prog $*: $problem"
		sed 's/^/  stderr: /' "$tmp/err" | head -n 5
		fails=$((fails + 1))
	else
		echo "ok   $prog $*: $line"
	fi
}

# The dump classes, for the two readers; $pre: arguments before the bad one.
# shellcheck disable=SC2086 # $pre splits into its arguments on purpose
dump_cases() {
	pre=$1
	expect "no such file or directory" $pre "$tmp/nothing-here"
	expect "truncated JSON at line" $pre "$bad/truncated.json"
	expect "malformed JSON at line 1" $pre "$bad/malformed.json"
	expect "schema_version 2, this script reads 1" $pre "$bad/schema2.json"
	expect "empty benchmark list" $pre "$bad/empty.json"
	expect "not a memdesc-bench dump (no context.memdesc_bench)" $pre "$bad/plain-gb.json"
	expect "no mdbench.json or sim.json in this directory" $pre "$fix"
	: >"$tmp/empty.json"
	expect "empty file" $pre "$tmp/empty.json"
	echo '[1, 2]' >"$tmp/list.json"
	expect "not a Google Benchmark JSON object" $pre "$tmp/list.json"
	printf '\377\376' >"$tmp/binary.json"
	expect "not UTF-8 text" $pre "$tmp/binary.json"
}

case "$prog" in
plot)
	dump_cases "--out $tmp/o"
	expect "the following arguments are required" --out "$tmp/o"
	expect "unrecognized arguments: --layouts" "$fix/one" --layouts page64 memdesc8
	expect "--out DIR is required with several dumps" "$fix/one" "$fix/two"
	: >"$tmp/file"
	expect "$tmp/file/x" "$fix/one" --out "$tmp/file/x"
	;;
compare)
	dump_cases "$fix/one"
	expect "unknown layout 'page16'" "$fix/one" --layouts page64 page16
	expect "unknown layout 'PAGE64'" "$fix/one" --layouts PAGE64 memdesc8
	expect "--layouts needs two different layouts" "$fix/one" --layouts page64 page64
	expect "--layouts compares within one dump" "$fix/one" "$fix/two" --layouts page64 page32
	expect "give two dumps A B" "$fix/one"
	expect "expected 2 arguments" "$fix/one" --layouts page64
	expect "no benchmark has metric 'nosuch'; these have: real_time, cpu_time" "$fix/one" "$fix/two" --metric nosuch
	expect "no benchmark is on both sides" "$fix/reps" "$fix/sim"
	;;
collect)
	expect "no mdbench there" --mdbench "$tmp/no-mdbench" --results "$tmp"
	expect "argument --profile: invalid choice: 'bogus'" --profile=bogus
	expect "--out=x: collect sets this itself" --mdbench "$fake" --out=x
	expect "unexpected argument 'stray'" --mdbench "$fake" stray
	expect "mdbench --list failed: mdbench: unknown option '--bogus'" \
		--mdbench "$fake" --results "$tmp" --bogus
	;;
run)
	expect "--out=x: run writes to results/<UTC stamp>" --out=x
	expect "--simulate: run does this itself" --simulate
	expect "unexpected argument 'stray'" stray
	;;
*)
	echo "usage: $0 plot|compare|collect|run" >&2
	exit 2
	;;
esac
echo "$prog: $cases cases, $fails failed"
[ "$fails" -eq 0 ]
