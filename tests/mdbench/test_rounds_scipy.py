"""mdbench's intervals (test_rounds, mdbench/rounds.c) against the reports'
on the same seeded samples: the paired one --rounds=auto stops on
(test_rounds paired, mdb_stats.paired_t(): Student t) from 2 to 30 rounds,
and the unpaired one between runs (test_rounds -, mdb_stats.hodges_lehmann(),
scipy's Mann-Whitney test): both sides of scipy's exact/asymptotic switch
(8 a side), ties, sizes that cannot reach 1%.

usage: test_rounds_scipy.py TEST_ROUNDS SCRIPTS_LIB"""

import math
import random
import subprocess
import sys

sys.path.insert(0, sys.argv[2])
import mdb_stats  # noqa: E402

rng = random.Random(28)
cases = []
for m, n in ((2, 2), (4, 4), (4, 5), (5, 5), (5, 8), (6, 30), (8, 9), (9, 9), (12, 15), (30, 30)):
	for shift in (0.0, 0.05, 0.3):
		a = [rng.lognormvariate(0, 0.1) for _ in range(m)]
		b = [rng.lognormvariate(shift, 0.1) for _ in range(n)]
		cases.append((a, b))
		cases.append(([round(x, 1) for x in a], [round(y, 1) for y in b]))	# ties
text = "".join(f"{len(a)} {len(b)} " + " ".join(repr(v) for v in a + b) + "\n" for a, b in cases)
out = subprocess.run([sys.argv[1], "-"], input=text, capture_output=True, text=True, check=True)
lines = out.stdout.splitlines()
bad = 0
assert len(lines) == len(cases), f"{len(lines)} lines for {len(cases)} cases"
decided = 0
for (a, b), line in zip(cases, lines):
	est, ci = mdb_stats.hodges_lehmann(a, b, mdb_stats.DEFAULT_ALPHA)
	got = line.split()
	want = [est] + (list(ci) if ci else [])
	have = [float(got[0])] + ([] if got[1] == "none" else [float(x) for x in got[1:]])
	if len(want) != len(have) or any(abs(x - y) > 1e-12 for x, y in zip(want, have)):
		print(f"m {len(a)} n {len(b)}: mdbench {line}, mdb_stats {est} {ci}")
		bad += 1
	decided += ci is not None and (ci[0] > 0 or ci[1] < 0)


def both_answers(decided, n, what):
	"""The cases reach both answers, some intervals excluding no change and
	some holding it; else say so: 1 (a failure)."""
	if 0 < decided < n:
		return 0
	print(f"{decided} of {n} {what} exclude no change: the cases test too little")
	return 1


bad += both_answers(decided, len(cases), "intervals")
# The paired interval: log ratios' Student t, from 2 rounds (t(0.995, 1) = 63.7) to 30.
pcases = []
for n in (1, 2, 3, 5, 8, 13, 30):
	for shift in (0.0, 0.03, 0.3):
		a = [rng.lognormvariate(0, 0.2) for _ in range(n)]
		pcases.append((a, [x * rng.lognormvariate(shift, 0.05) for x in a]))
text = "".join(f"{len(a)} " + " ".join(repr(v) for v in a + b) + "\n" for a, b in pcases)
out = subprocess.run([sys.argv[1], "paired"], input=text, capture_output=True, text=True, check=True)
lines = out.stdout.splitlines()
assert len(lines) == len(pcases), f"{len(lines)} lines for {len(pcases)} paired cases"
pdecided = 0
for (a, b), line in zip(pcases, lines):
	ratio, ci = mdb_stats.paired_t(a, b, mdb_stats.DEFAULT_ALPHA)
	got = line.split()
	have = [math.exp(float(got[0]))] + ([] if got[1] == "none" else
					     [math.exp(float(x)) for x in got[1:]])
	want = [ratio] + (list(ci) if ci else [])
	if len(want) != len(have) or any(abs(x / y - 1) > 1e-9 for x, y in zip(want, have)):
		print(f"paired n {len(a)}: mdbench {line}, mdb_stats {ratio} {ci}")
		bad += 1
	pdecided += ci is not None and (ci[0] > 1 or ci[1] < 1)
bad += both_answers(pdecided, len(pcases), "paired intervals")
cases += pcases
print(f"test_rounds_scipy: {len(cases) - bad} of {len(cases)} agree")
sys.exit(1 if bad else 0)
