# SPDX-License-Identifier: GPL-2.0
# lib.sh - the prologue of the mdbench shell tests, sourced as
#	. "$(dirname "$0")/lib.sh"
# first thing: unset variables are errors, $tmp is a scratch directory
# removed on exit.  short_run needs $mdbench set.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# first_layout: the reference layout, the first of layouts.list.  Needs $mdbench.
first_layout() {
	"$mdbench" --list=json --counters=none |
		/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["reference_layout"])'
}

# short_run STATUS DIR FILTER: the benchmarks FILTER matches on the reference
# layout, 64MiB, briefly, dumped into DIR; console in $tmp/out, stderr in
# $tmp/err.  Any exit status but STATUS fails the test, showing stderr.
short_run() {
	"$mdbench" --layout="$(first_layout)" --ram=64MiB --benchmark_min_time=0.01 --out="$2" \
		"--benchmark_filter=$3" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$1" ]; then
		echo "FAIL: mdbench exited $rc, want $1"
		cat "$tmp/err"
		exit 1
	fi
}
