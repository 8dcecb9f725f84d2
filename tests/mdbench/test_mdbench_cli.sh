#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad input to mdbench: exit status 2, exactly one line on stderr
# ("mdbench: ..."), nothing on stdout, nothing run and nothing written.
# Numbers are decimal only; Google Benchmark's flags are checked before it
# sees them (it would abort, or print its usage and exit 0).
# usage: test_mdbench_cli.sh MDBENCH FIXTURE_DIR
. "$(dirname "$0")/../lib.sh"
mdbench=$1
fix=$2
fail=0
nr=0

# expect PATTERN ARGS...: PATTERN is a grep -E regex the one stderr line must match.
expect() {
	pattern=$1
	shift
	nr=$((nr + 1))
	(cd "$tmp" && "$mdbench" "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$tmp/out" ] ||
	   ! grep -Eq -- "$pattern" "$tmp/err"; then
		echo "FAIL: mdbench $*: rc $rc, $lines stderr lines, want 2 and 1 matching '$pattern':"
		sed 's/^/  stderr: /' "$tmp/err"
		sed 's/^/  stdout: /' "$tmp/out" | head -5
		fail=1
	fi
}

layouts=$("$mdbench" --list=json --counters=none | /usr/bin/python3 -c \
	'import json, sys; print(", ".join(l["name"] for l in json.load(sys.stdin)["layouts"]))')
first=${layouts%%,*}

# Listing only, so that a check that failed to fire still runs nothing.
L=--benchmark_list_tests=true
R=--ram=64MiB

# Layouts, sizes, mixes.
expect "^mdbench: unknown layout 'page16' \(layouts: $layouts\)$" --layout=page16 $L
expect "^mdbench: --layout= names nothing$" --layout= $L
expect "^mdbench: --layout=$first,,$first: an empty item$" --layout=$first,,$first $L
expect "^mdbench: --layout=,: an empty item$" --layout=, $L
expect "^mdbench: --ram: '12345' is not a positive multiple of 2MiB, one pageblock" --ram=12345 $L
expect "^mdbench: --ram: '1MiB' is not a positive multiple of 2MiB, one pageblock" --ram=1MiB $L
expect "^mdbench: --ram: '0MiB' is not a positive multiple of 2MiB" --ram=0MiB $L
expect "^mdbench: --ram: '3MiB' is not a positive multiple of 2MiB" --ram=3MiB $L
expect "^mdbench: --ram: '4XB' has an unknown unit" --ram=4XB $L
expect "^mdbench: --ram: '4 GiB' has an unknown unit" "--ram=4 GiB" $L
expect "^mdbench: --ram: '4gib' has an unknown unit" --ram=4gib $L
expect "^mdbench: --ram: 'lots' is not a size" --ram=lots $L
expect "^mdbench: --ram: '-4GiB' is not a size" --ram=-4GiB $L
expect "^mdbench: --ram: '0x10MiB' has an unknown unit" --ram=0x10MiB $L
expect "^mdbench: --ram: '4.5GiB' has an unknown unit" --ram=4.5GiB $L
expect "^mdbench: --ram: '2048TiB' is too large \(at most 1PiB\)$" --ram=2048TiB $L
expect "^mdbench: --ram: '99999999999999999999B' is not a size" --ram=99999999999999999999B $L
expect "^mdbench: --ram needs a value" --ram $L
expect "^mdbench: --ram= names nothing$" --ram= $L
expect "^mdbench: --ram=64MiB,: an empty item$" --ram=64MiB, $L
expect "^mdbench: --ram given twice$" --ram=64MiB --ram=4GiB $L
expect "^mdbench: --mix=$fix/missing.json: cannot read $fix/missing.json: No such file" --mix="$fix/missing.json" $L
expect "^mdbench: --mix=$fix/malformed.json: $fix/malformed.json: line [0-9]+ column [0-9]+: " --mix="$fix/malformed.json" $L
expect "^mdbench: --mix=$fix/bad_kind.json: $fix/bad_kind.json: entries\[0\]: unknown kind" --mix="$fix/bad_kind.json" $L
expect "^mdbench: --mix=nosuchmix: unknown mix 'nosuchmix'" --mix=nosuchmix $L
expect "^mdbench: --mix= names nothing$" --mix= $L
expect "^mdbench: --mix: two mixes named 'desktop'$" --mix=desktop,desktop $L
expect "^mdbench: --mix=$fix: cannot read $fix: Is a directory$" --mix="$fix" $L
expect "^mdbench: --ram=64TiB with $first on mix desktop needs [0-9]+ MiB of memmap and descriptors \([0-9]+ bytes\), but MemAvailable is [0-9]+ MiB$" \
	--layout=$first --ram=64TiB $L

# Numbers: decimal, the whole string, nothing else.
expect "^mdbench: no CPU 4096 \(this machine has CPUs [0-9,-]+\)$" --cpu=4096 $R $L
expect "^mdbench: no CPU 10 \(this machine has CPUs [0-9,-]+\)$" --cpu=010 $R $L
expect "^mdbench: --cpu=0x1: not a decimal number from 0 to 2147483647$" --cpu=0x1 $R $L
expect "^mdbench: --cpu= 1: not a decimal number" "--cpu= 1" $R $L
expect "^mdbench: --cpu=1 : not a decimal number" "--cpu=1 " $R $L
expect "^mdbench: --cpu=-1: not a decimal number" --cpu=-1 $R $L
expect "^mdbench: --cpu=: not a decimal number" --cpu= $R $L
expect "^mdbench: --cpu=99999999999999999999: not a decimal number" --cpu=99999999999999999999 $R $L
expect "^mdbench: no NUMA node 4096 \(this machine has nodes [0-9,-]+\)$" --node=4096 $R $L
expect "^mdbench: --node=x: not a decimal number" --node=x $R $L
expect "^mdbench: --seed=x1: not a decimal number from 0 to 18446744073709551615$" --seed=x1 $L
expect "^mdbench: --seed=0x10: not a decimal number" --seed=0x10 $L
expect "^mdbench: --seed= -1: not a decimal number" "--seed= -1" $L
expect "^mdbench: --seed=18446744073709551616: not a decimal number" --seed=18446744073709551616 $L
expect "^mdbench: --seed=1e3: not a decimal number" --seed=1e3 $L
expect "^mdbench: --rounds=0: at least 1$" --rounds=0 $L
expect "^mdbench: --rounds=1001: not a decimal number from 0 to 1000$" --rounds=1001 $L
expect "^mdbench: --rounds=two: not a decimal number" --rounds=two $L
expect "^mdbench: --round-reps=0: at least 1$" --round-reps=0 $L
expect "^mdbench: --round-reps=101: not a decimal number from 0 to 100$" --round-reps=101 $L
expect "^mdbench: --round-reps with --benchmark_repetitions: a round is one or the other$" --round-reps=5 --benchmark_repetitions=3 $L
expect "^mdbench: --fixed-ops=0: at least one op$" --fixed-ops=0 $R

# Counters.
expect "^mdbench: unknown counter 'foo': event not found" --counters=foo $R $L
expect "^mdbench: counter 'page_faults' given twice$" --counters=page_faults,page_faults $R $L
expect "^mdbench: --counters= names no counter" --counters= $R $L
expect "^mdbench: --counters: --simulate counts with callgrind, not perf$" --simulate --out="$tmp/x" --counters=page_faults $R

# Our other options.
expect "^mdbench: unknown option '--bogus'" --bogus $L
expect "^mdbench: unknown option 'stray'" stray $L
expect "^mdbench: unknown --profile=medium \(quick, full or smoke\)$" --profile=medium $L
expect "^mdbench: --llc=bogus: auto, measure, hwloc or a size \(64B to 4GiB\)$" --llc=bogus $L
expect "^mdbench: --simulate takes no value$" --simulate=1 $L
expect "^mdbench: unknown option '--hugepage'" --hugepage $L
expect "^mdbench: --memmap-pages=1g: 2m or 4k$" --memmap-pages=1g $L
expect "^mdbench: --memmap-pages=2M: 2m or 4k$" --memmap-pages=2M $L
expect "^mdbench: --memmap-pages needs a value" --memmap-pages $L
expect "^mdbench: --desc-age=old: aged, fresh, fresh-ordered, aged-permute or trace:FILE$" --desc-age=old $L
expect "^mdbench: --desc-age=trace: aged, fresh, fresh-ordered, aged-permute or trace:FILE$" --desc-age=trace $L
expect "^mdbench: --desc-age=trace: needs a file, trace:FILE$" --desc-age=trace: $L
expect "^mdbench: --compaction=maybe: on or off$" --compaction=maybe $L
# A mix whose 1 GiB (16 GiB at 64k) hugetlb share holds no whole folio at the RAM given: the
# mix named, and the RAM at which it would, not the folio's size again.
V=$(cd "$fix/../../../results/mixes" && pwd)/vm-host-512g.json
expect "^mdbench: mix vm-host-512g: \(hugetlb, 18\) asks 0.875 of 32MiB in whole pageblocks, less than one 1GiB folio: at that share a whole folio needs 1172MiB of RAM$" \
	--mix=$V --ram=32MiB $L
expect "^mdbench: mix vm-host-512g: \(hugetlb, 18\) asks 0.875 of 16GiB in whole pageblocks, less than one 16GiB folio: at that share a whole folio needs 18944MiB of RAM$" \
	--mix=$V --ram=16GiB --base-page=64k $L

# A recorded trace: the first bad line, by file and line; one that outgrows the RAM.
T=$(cd "$fix/../../machine/fixtures/trace" && pwd)
expect "^mdbench: --desc-age=trace: $T/bad/free-unallocated.trace:2: frees 2, which is not allocated$" \
	--desc-age=trace:$T/bad/free-unallocated.trace $L
expect "^mdbench: --desc-age=trace: $T/bad/alloc-twice.trace:2: allocates 1, which is already allocated$" \
	--desc-age=trace:$T/bad/alloc-twice.trace $L
expect "^mdbench: --desc-age=trace: $T/bad/order-too-big.trace:1: ORDER '10': want 0 to 9$" \
	--desc-age=trace:$T/bad/order-too-big.trace $L
expect "^mdbench: --desc-age=trace: $T/bad/bad-kind.trace:1: KIND 'slab': want anon or file$" \
	--desc-age=trace:$T/bad/bad-kind.trace $L
expect "^mdbench: --desc-age=trace: $T/bad/crlf.trace:1: a control character \(0x0d\)$" \
	--desc-age=trace:$T/bad/crlf.trace $L
expect "^mdbench: --desc-age=trace: $T/bad/empty.trace: no events$" --desc-age=trace:$T/bad/empty.trace $L
expect "^mdbench: --desc-age=trace: $T/none.trace: No such file or directory$" --desc-age=trace:$T/none.trace $L
expect "^mdbench: --desc-age=trace:$T/compact.trace: holds 2048 pages at its peak, more than the 1024 of 4 MiB of RAM$" \
	--desc-age=trace:$T/compact.trace --ram=4MiB,64MiB $L
expect "^mdbench: --desc-cache=rcu-head: rcu, align16, rcu-tail or hwcache$" --desc-cache=rcu-head $L
expect "^mdbench: --slub=6.19: 7.0 or 6.18$" --slub=6.19 $L
expect "^mdbench: --desc-rcu=none: all or folio$" --desc-rcu=none $L
expect "^mdbench: --desc-age given twice$" --desc-age=aged --desc-age=fresh $L
expect "^mdbench: --folio-desc-bytes: 72 is not a multiple of 16 from 16 to 2048" --folio-desc-bytes=72 $L
expect "^mdbench: --folio-desc-bytes: 0 is not a multiple of 16" --folio-desc-bytes=0 $L
expect "^mdbench: --folio-desc-bytes=0x40: not a decimal number from 0 to 2048$" --folio-desc-bytes=0x40 $L
expect "^mdbench: --folio-desc-bytes=4096: not a decimal number from 0 to 2048$" --folio-desc-bytes=4096 $L
expect "^mdbench: --folio-desc-bytes=64B: not a decimal number" --folio-desc-bytes=64B $L
expect "^mdbench: --folio-desc-bytes=64,,80: an empty item$" --folio-desc-bytes=64,,80 $L
expect "^mdbench: --folio-desc-bytes= names nothing$" --folio-desc-bytes= $L
expect "^mdbench: --hvo=yes: off, on or off,on$" --hvo=yes $L
expect "^mdbench: --hvo=on,,off: an empty item$" --hvo=on,,off $L
expect "^mdbench: --hvo given twice$" --hvo=on --hvo=off $L
expect "^mdbench: --list=xml: text or json$" --list=xml
expect "^mdbench: --force needs --out=DIR$" --force $L
expect "^mdbench: --simulate needs --out=DIR for its sim.json$" --simulate $R
expect "^mdbench: --sim-cache needs --simulate$" --sim-cache=host $L
expect "^mdbench: --sim-cache=big: regime, fixed or host$" --sim-cache=big --simulate --out="$tmp/x"
expect "^mdbench: --sim-instance=FILE is the only option of a --simulate child$" --sim-instance=x $R
expect "^mdbench: --out= needs a directory$" --out= $L
expect "^mdbench: --out=/proc/mdbench-test: cannot create /proc/mdbench-test: " --out=/proc/mdbench-test $R --benchmark_filter=^baseline/latency/

# Google Benchmark's flags, checked before it sees them.
expect "^mdbench: unknown option '--benchmark_bogus=1'" --benchmark_bogus=1 $R
expect "^mdbench: --benchmark_filter=\(: not a regular expression" "--benchmark_filter=(" $R $L
expect "^mdbench: no benchmark matches --benchmark_filter=\\^nothing/$" --benchmark_filter=^nothing/ $R $L
expect "^mdbench: --benchmark_repetitions=-1: not a decimal number from 1 to 1000000$" --benchmark_repetitions=-1 $R
expect "^mdbench: --benchmark_repetitions=0: not a decimal number from 1 to 1000000$" --benchmark_repetitions=0 $R
expect "^mdbench: --benchmark_repetitions=x: not a decimal number" --benchmark_repetitions=x $R
expect "^mdbench: --benchmark_repetitions needs a value" --benchmark_repetitions $R
expect "^mdbench: --benchmark_format=xml: console, json or csv$" --benchmark_format=xml $R
expect "^mdbench: --benchmark_out_format=bogus: console, json or csv$" --benchmark_out_format=bogus $R
expect "^mdbench: --benchmark_time_unit=bogus: ns, us, ms or s$" --benchmark_time_unit=bogus $R
expect "^mdbench: --benchmark_min_time=abc: want seconds above 0" --benchmark_min_time=abc $R
expect "^mdbench: --benchmark_min_time=0: want seconds above 0" --benchmark_min_time=0 $R
expect "^mdbench: --benchmark_min_time=-1: want seconds above 0" --benchmark_min_time=-1 $R
expect "^mdbench: --benchmark_min_time=1e999: want seconds above 0" --benchmark_min_time=1e999 $R
expect "^mdbench: --benchmark_min_warmup_time=x: want seconds, 0 or more$" --benchmark_min_warmup_time=x $R
expect "^mdbench: --benchmark_out=/proc/x: cannot write it: " --benchmark_out=/proc/x $R
expect "^mdbench: --benchmark_out= needs a file name$" --benchmark_out= $R
expect "^mdbench: --benchmark_enable_random_interleaving=maybe: true or false$" --benchmark_enable_random_interleaving=maybe $R
expect "^mdbench: --benchmark_color=pink: auto, true or false$" --benchmark_color=pink $R
expect "^mdbench: --benchmark_context=novalue: want key=value" --benchmark_context=novalue $R
expect "^mdbench: --benchmark_perf_counters: mdbench counts with its own --counters=$" --benchmark_perf_counters=CYCLES $R
expect "^mdbench: --v=x: not a decimal number from 0 to 1000000$" --v=x $R

# Nothing was written anywhere.
[ -z "$(ls "$tmp" | grep -v '^out$\|^err$')" ] || { echo "FAIL: files left: $(ls "$tmp")"; fail=1; }

# --version answers.
"$mdbench" --version >"$tmp/out" 2>&1 && grep -Eq '^mdbench [0-9a-f]{40}|^mdbench unknown' "$tmp/out" ||
	{ echo "FAIL: --version: $(cat "$tmp/out")"; fail=1; }

[ $fail -eq 0 ] && echo "test_mdbench_cli: $nr bad command lines, each one line and exit 2"
exit $fail
