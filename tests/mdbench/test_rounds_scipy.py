"""mdbench's interval (test_rounds paired, mdbench/rounds.c) against the
reports' (mdb_stats.paired_t(): Student t on the rounds' log ratios) on the
same seeded rounds, from 1 round (no interval) through 2 (t(0.995, 1) =
63.7) to 30, cases that exclude 1 and cases that hold it.

usage: test_rounds_scipy.py TEST_ROUNDS SCRIPTS_LIB"""

import math
import random
import subprocess
import sys

sys.path.insert(0, sys.argv[2])
import mdb_stats  # noqa: E402

rng = random.Random(28)
cases = []
for n in (1, 2, 3, 5, 8, 13, 30):
	for shift in (0.0, 0.03, 0.3):
		a = [rng.lognormvariate(0, 0.2) for _ in range(n)]
		cases.append((a, [x * rng.lognormvariate(shift, 0.05) for x in a]))
text = "".join(f"{len(a)} " + " ".join(repr(v) for v in a + b) + "\n" for a, b in cases)
out = subprocess.run([sys.argv[1], "paired"], input=text, capture_output=True, text=True, check=True)
lines = out.stdout.splitlines()
assert len(lines) == len(cases), f"{len(lines)} lines for {len(cases)} cases"
bad = decided = 0
for (a, b), line in zip(cases, lines):
	ratio, ci = mdb_stats.paired_t(a, b, mdb_stats.DEFAULT_ALPHA)
	got = line.split()
	have = [math.exp(float(got[0]))] + ([] if got[1] == "none" else
					     [math.exp(float(x)) for x in got[1:]])
	want = [ratio] + (list(ci) if ci else [])
	if len(want) != len(have) or any(abs(x / y - 1) > 1e-9 for x, y in zip(want, have)):
		print(f"n {len(a)}: mdbench {line}, mdb_stats {ratio} {ci}")
		bad += 1
	decided += ci is not None and (ci[0] > 1 or ci[1] < 1)
# The cases reach both answers: some intervals exclude 1, some hold it.
if not 0 < decided < len(cases):
	print(f"{decided} of {len(cases)} intervals exclude 1: the cases test too little")
	bad += 1
print(f"test_rounds_scipy: {len(cases) - bad} of {len(cases)} agree")
sys.exit(1 if bad else 0)
