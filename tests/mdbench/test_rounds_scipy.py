"""mdbench's interval for --rounds=auto (test_rounds -, mdbench/rounds.c)
against the reports' (scripts/lib/mdb_stats.hodges_lehmann(), scipy's
Mann-Whitney test) on the same seeded samples: both sides of scipy's
exact/asymptotic switch (8 a side), ties, sizes that cannot reach 1%.

usage: test_rounds_scipy.py TEST_ROUNDS SCRIPTS_LIB"""

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
# The cases reach both answers: some intervals exclude 0, some hold it.
if not 0 < decided < len(cases):
	print(f"{decided} of {len(cases)} intervals exclude 0: the cases test too little")
	bad += 1
print(f"test_rounds_scipy: {len(cases) - bad} of {len(cases)} agree")
sys.exit(1 if bad else 0)
