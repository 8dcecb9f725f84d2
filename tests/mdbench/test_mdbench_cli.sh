#!/bin/sh
# Bad input to mdbench: exit status 2, exactly one line on stderr
# ("mdbench: ..."), nothing on stdout, and nothing run.
# usage: test_harness_cli.sh MDBENCH FIXTURE_DIR
. "$(dirname "$0")/lib.sh"
mdbench=$1
fix=$2
fail=0

# expect PATTERN ARGS...: PATTERN is a grep -E regex the one stderr line must match.
expect() {
	pattern=$1
	shift
	"$mdbench" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$tmp/out" ] ||
	   ! grep -Eq -- "$pattern" "$tmp/err"; then
		echo "FAIL: mdbench $*: rc $rc, $lines stderr lines, want 2 and 1 matching '$pattern':"
		sed 's/^/  stderr: /' "$tmp/err"
		sed 's/^/  stdout: /' "$tmp/out" | head -5
		fail=1
	else
		echo "ok: $* -> $(cat "$tmp/err")"
	fi
}

# Listing only, so that a check that failed to fire still runs nothing.
L=--benchmark_list_tests=true

expect "^mdbench: unknown layout 'page16' \(valid: page64, page32, memdesc8\)$" --layout=page16 $L
expect "^mdbench: --layout= names no layout$" --layout= $L
expect "^mdbench: --ram: '12345' is not a positive multiple of 4KiB$" --ram=12345 $L
expect "^mdbench: --ram: '4XB' has an unknown unit" --ram=4XB $L
expect "^mdbench: --ram: 'lots' is not a size" --ram=lots $L
expect "^mdbench: --ram: '0MiB' is not a positive multiple of 4KiB$" --ram=0MiB $L
expect "^mdbench: --ram: '2048TiB' is too large" --ram=2048TiB $L
expect "^mdbench: --ram needs a value" --ram $L
expect "^mdbench: --mix=$fix/missing.json: " --mix="$fix/missing.json" $L
expect "^mdbench: --mix=$fix/malformed.json: " --mix="$fix/malformed.json" $L
expect "^mdbench: --mix=$fix/bad_kind.json: " --mix="$fix/bad_kind.json" $L
expect "^mdbench: --mix=nosuchmix: unknown mix" --mix=nosuchmix $L
expect "^mdbench: --ram=64TiB with page64 needs 1024.0 GiB of memmap and descriptors \([0-9]+ bytes\), but MemAvailable is [0-9.]+ GiB \([0-9]+ bytes\)$" \
	--layout=page64 --ram=64TiB $L
expect "^mdbench: no CPU 4096 \(this machine has CPUs [0-9,-]+\)$" --cpu=4096 --ram=64MiB $L
expect "^mdbench: no NUMA node 4096 \(this machine has nodes [0-9,-]+\)$" --node=4096 --ram=64MiB $L
expect "^mdbench: --cpu=-1: not a number" --cpu=-1 $L
expect "^mdbench: unknown counter 'foo': event not found$" --counters=foo --ram=64MiB $L
expect "^mdbench: counter 'page_faults' given twice$" --counters=page_faults,page_faults --ram=64MiB $L
expect "^mdbench: unknown option '--bogus'" --bogus $L
expect "^mdbench: unknown option 'stray'" stray $L
expect "error: unrecognized command-line flag: --benchmark_bogus=1$" --ram=64MiB --benchmark_bogus=1
expect "^mdbench: unknown --profile=medium \(quick or full\)$" --profile=medium $L
expect "^mdbench: --seed=x1: not a number" --seed=x1 $L
expect "^mdbench: --benchmark_filter=\(: " "--benchmark_filter=(" --ram=64MiB $L
expect "^mdbench: no benchmark matches --benchmark_filter=\\^nothing/$" --benchmark_filter=^nothing/ --ram=64MiB $L
expect "^mdbench: --hugepage takes no value$" --hugepage=1 $L
expect "^mdbench: --sim-child needs --sim-ops=N$" --sim-child=x --ram=64MiB
expect "^mdbench: --out=/proc/mdbench-test: cannot create /proc/mdbench-test: " --out=/proc/mdbench-test --ram=64MiB --benchmark_filter=^baseline/latency/

exit $fail
