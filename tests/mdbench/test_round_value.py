"""A round's value: mdbench's (test_rounds round, mdbench/rounds.c
mdb_round_estimate()) against the reports' (scripts/lib/mdb_stats.py
round_value()) on the same seeded samples, every estimator: odd and even
counts, ties, a spike, sizes where the 20% cut is 0, 1 and 2.

usage: test_round_value.py TEST_ROUNDS SCRIPTS_LIB"""

import random
import subprocess
import sys

sys.path.insert(0, sys.argv[2])
import mdb_stats  # noqa: E402

rng = random.Random(28)
cases = [[5.0], [3.0, 1.0], [61, 60, 62, 170, 63, 60, 64, 61, 62, 65]]
for n in (2, 3, 4, 5, 9, 10, 11, 14, 15, 30):
	v = [rng.lognormvariate(4, 0.05) for _ in range(n)]
	cases.append(v)
	cases.append([round(x) for x in v])			# ties
	cases.append(v[:-1] + [v[-1] * 3])			# a preempted run
text = "".join(f"{len(v)} " + " ".join(repr(float(x)) for x in v) + "\n" for v in cases)
out = subprocess.run([sys.argv[1], "round"], input=text, capture_output=True, text=True, check=True)
lines = out.stdout.splitlines()
assert len(lines) == len(cases), f"{len(lines)} lines for {len(cases)} cases"
bad = 0
for v, line in zip(cases, lines):
	have = [float(x) for x in line.split()]
	want = [mdb_stats.round_value(v, e) for e in mdb_stats.ROUND_ESTIMATORS]
	if have != want:
		print(f"{v}: mdbench {have}, mdb_stats {want}")
		bad += 1
# The estimators are told apart: on the spiked ten they give four values.
if len(set(mdb_stats.round_value(cases[2], e) for e in mdb_stats.ROUND_ESTIMATORS)) != 4:
	print("the estimators agree on the spiked sample: the cases test too little")
	bad += 1
# One estimator in force on both sides: rounds.h's MDB_ROUND_VALUE is ROUND_VALUE.
import os, re  # noqa: E402
h = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "mdbench", "rounds.h")).read()
enum = re.findall(r"^\s*MDB_EST_(\w+),", h, re.M)
chosen = re.search(r"#define MDB_ROUND_VALUE\s+MDB_EST_(\w+)", h).group(1)
if [e.lower() for e in enum] != list(mdb_stats.ROUND_ESTIMATORS) or \
		chosen.lower() != mdb_stats.ROUND_VALUE:
	print(f"rounds.h: {enum}, {chosen}; mdb_stats: {mdb_stats.ROUND_ESTIMATORS}, {mdb_stats.ROUND_VALUE}")
	bad += 1
print(f"test_round_value: {len(cases) - bad} of {len(cases)} agree")
sys.exit(1 if bad else 0)
