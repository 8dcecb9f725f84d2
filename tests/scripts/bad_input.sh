#!/bin/sh
# Bad command lines and bad files given to scripts/plot, compare, collect
# and run: exit status 2, exactly one line on stderr that starts with
# "<prog>: ", nothing on stdout, no traceback (lib.sh's refused).  The
# hostile dumps are test_hostile.py's.
#	bad_input.sh plot|compare|collect|run
. "$(dirname "$0")/lib.sh"
bad="$fix/bad"
# truncated.json and schema1.json: near copies of fixtures/one, made from it.
/usr/bin/python3 "$tests/testlib.py" "$tmp/derived" || exit 1
prog=$1

# The classes of bad file, for the two readers; $pre: arguments before it.
# shellcheck disable=SC2086 # $pre splits into its arguments on purpose
file_cases() {
	pre=$1
	refused "$prog" "no such file or directory" $pre "$tmp/nothing-here"
	refused "$prog" "truncated JSON at line" $pre "$tmp/derived/bad/truncated.json"
	refused "$prog" "malformed JSON at line 1" $pre "$bad/malformed.json"
	refused "$prog" "schema_version 1, this script reads 2" $pre "$tmp/derived/bad/schema1.json"
	refused "$prog" "empty benchmark list" $pre "$bad/empty.json"
	refused "$prog" "not a memdesc-bench dump (no context.memdesc_bench)" $pre "$bad/plain-gb.json"
	refused "$prog" "no mdbench.json or sim.json in this directory" $pre "$fix"
	: >"$tmp/empty.json"
	refused "$prog" "empty file" $pre "$tmp/empty.json"
	printf '\377\376' >"$tmp/binary.json"
	refused "$prog" "not UTF-8 text" $pre "$tmp/binary.json"
	mkdir -p "$tmp/unreadable"
	cp "$fix/one/mdbench.json" "$tmp/unreadable/"
	if [ "$(id -u)" -ne 0 ]; then
		chmod 000 "$tmp/unreadable/mdbench.json"
		refused "$prog" "Permission denied" $pre "$tmp/unreadable"
	fi
	printf '{"context": {}, "benchmarks": []}' >"$tmp/file$(printf '\033')[31m.json"
	refused "$prog" 'file\x1b[31m.json' $pre "$tmp/file$(printf '\033')[31m.json"
	mkdir -p "$tmp/simdir"		# a sim.json that is no simulation
	cp "$fix/one/mdbench.json" "$tmp/simdir/"
	cp "$fix/sim/mdbench.json" "$tmp/simdir/sim.json"
	refused "$prog" "not a --simulate dump" $pre "$tmp/simdir"
}

case "$prog" in
plot)
	file_cases "--out $tmp/o"
	refused plot "the following arguments are required" --out "$tmp/o"
	refused plot "unrecognized arguments: --layouts" "$fix/one" --layouts page64 memdesc8
	refused plot "--out DIR is required with several dumps" "$fix/one" "$fix/two"
	: >"$tmp/file"
	refused plot "$tmp/file/x" "$fix/one" --out "$tmp/file/x"
	refused plot "--alpha 2.0: want a number between 0 and 1" "$fix/one" --alpha 2 --out "$tmp/o"
	refused plot "argument --alpha: invalid float value: 'x'" "$fix/one" --alpha x
	refused plot "--jobs 0: want 1 or more" "$fix/one" --jobs 0
	refused plot "argument --jobs: invalid int value: '1.5'" "$fix/one" --jobs 1.5
	;;
compare)
	file_cases "$fix/one"
	refused compare "unknown layout 'page16'" "$fix/one" --layouts page64 page16
	refused compare "unknown layout 'PAGE64'" "$fix/one" --layouts PAGE64 memdesc8
	refused compare "--layouts needs two different layouts" "$fix/one" --layouts page64 page64
	refused compare "--layouts compares within one dump" "$fix/one" "$fix/two" --layouts page64 page32
	refused compare "give two dumps A B" "$fix/one"
	refused compare "give two dumps A B" "$fix/one" "$fix/two" "$fix/reps"
	refused compare "expected 2 arguments" "$fix/one" --layouts page64
	refused compare "no benchmark has metric 'nosuch'; these have: real_time, cpu_time" \
		"$fix/one" "$fix/two" --metric nosuch
	refused compare "sim_* and model_* metrics come from sim.json" "$fix/sim" "$fix/sim" \
		--metric sim_D1_misses --metric real_time
	refused compare "no benchmark is on both sides" "$fix/sim" "$fix/sweep"
	refused compare "no benchmark is on both sides matching 'nosuch'" "$fix/one" "$fix/two" --filter nosuch
	refused compare "--alpha '0': want a number between 0 and 1" "$fix/one" "$fix/two" --alpha 0
	refused compare "--alpha '1.5': want a number between 0 and 1" "$fix/one" "$fix/two" --alpha 1.5
	refused compare "--alpha 'nan': want a number between 0 and 1" "$fix/one" "$fix/two" --alpha nan
	refused compare "--alpha 'x': want a number between 0 and 1" "$fix/one" "$fix/two" --alpha x
	;;
collect)
	refused collect "no mdbench there" --mdbench "$tmp/no-mdbench" --results "$tmp"
	refused collect "argument --profile: invalid choice: 'bogus'" --profile=bogus
	refused collect "--out=x: collect sets this itself" --mdbench "$fake" --out=x
	refused collect "--list=json: collect sets this itself" --mdbench "$fake" --list=json
	refused collect "--simulate: collect sets this itself" --mdbench "$fake" --simulate
	refused collect "unexpected argument 'stray'" --mdbench "$fake" stray
	refused collect "mdbench --list=json failed: mdbench: unknown option '--bogus'" \
		--mdbench "$fake" --results "$tmp" --bogus
	refused collect "--rounds and --rerun-rounds want 1 or more" --rounds 0
	refused collect "--rerun-spread -1.0: want a fraction" --rerun-spread -1
	refused collect "argument --rounds: invalid int value: 'many'" --rounds many
	printf '#!/bin/sh\necho "benchmarks (1):"\n' >"$tmp/old-mdbench"
	chmod +x "$tmp/old-mdbench"
	refused collect "mdbench --list=json: not JSON (an mdbench before schema 2?)" \
		--mdbench "$tmp/old-mdbench" --results "$tmp"
	;;
run)
	refused run "--out=x: run writes to results/<UTC stamp>" --out=x
	refused run "--simulate: run does this itself" --simulate
	refused run "--list=json: run does this itself" --list=json
	refused run "--rounds=3: give run's own --rounds=N" -- --rounds=3
	refused run "unexpected argument 'stray'" stray
	refused run "--rounds and --rerun-rounds want 1 or more" --rerun-rounds=0
	refused run "no mdbench there" --mdbench "$tmp/no-mdbench"
	refused run "mdbench --list=json failed: mdbench: unknown option '--bogus'" \
		--mdbench "$fake" --bogus
	;;
*)
	echo "usage: $0 plot|compare|collect|run" >&2
	exit 2
	;;
esac
done_checks "$prog"
