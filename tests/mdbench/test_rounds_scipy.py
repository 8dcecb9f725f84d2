"""mdbench's interval (test_rounds paired, mdbench/rounds.c) against the
reports' (mdb_stats.paired_t(): Yuen's t on the 20% trimmed mean of the
rounds' log ratios) on the same seeded rounds, from 1 round (no interval)
through 2 (t(0.995, 1) = 63.7) and 4 (nothing cut) to 30, some with one
round 20 times slower on one side, cases that exclude 1 and cases that
hold it.

usage: test_rounds_scipy.py TEST_ROUNDS SCRIPTS_LIB"""

import math
import random
import subprocess
import sys

sys.path.insert(0, sys.argv[2])
import mdb_stats  # noqa: E402

rng = random.Random(28)
cases = []
for n in (1, 2, 3, 4, 5, 8, 12, 13, 30):
	for shift in (0.0, 0.03, 0.3):
		a = [rng.lognormvariate(0, 0.2) for _ in range(n)]
		b = [x * rng.lognormvariate(shift, 0.05) for x in a]
		cases.append((a, b))
		if n > 2:
			cases.append((a, b[:-1] + [20 * b[-1]]))
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
	# in logs, to 1e-8 of each: scipy's t.ppf(0.995, 3) is 5.8409092998 where mpmath and
	# mdb_t_quantile() give 5.8409093097334 (1.7e-9 apart), which the half-width of one
	# wild round in four (log 4.3) carries into the ends
	if len(want) != len(have) or any(abs(math.log(x) - math.log(y)) > 1e-8 * max(1, abs(math.log(x)))
					 for x, y in zip(want, have)):
		print(f"n {len(a)}: mdbench {line}, mdb_stats {ratio} {ci}")
		bad += 1
	decided += ci is not None and (ci[0] > 1 or ci[1] < 1)
# The cases reach both answers: some intervals exclude 1, some hold it.
if not 0 < decided < len(cases):
	print(f"{decided} of {len(cases)} intervals exclude 1: the cases test too little")
	bad += 1
print(f"test_rounds_scipy: {len(cases) - bad} of {len(cases)} agree")
sys.exit(1 if bad else 0)
