"""The data that chose a round's value (mdbench/rounds.h MDB_ROUND_VALUE,
docs/conditions.md "The round's value"): for each estimator of
mdb_stats.ROUND_ESTIMATORS, the A/A intervals it gives on runs with the
reference layout's placebo twin (.../twin:b) and the round_rep of each
entry (mdbench --round-reps=K, K > 1).

Each round's value is recomputed from the round's K short runs by each
estimator, and the twin's rounds are compared with the reference's by
mdb_stats.compare (the Hodges-Lehmann ratio, its interval by the inverted
U test at alpha): the narrower the A/A interval, the smaller a change the
run can show.  A dump without round_rep (--round-reps=1: one run a round)
gives one row, "one run", its rounds as they are.  One more row, PAIRED,
takes the reports' round value (mdb_stats.ROUND_VALUE) and pairs the
twin's round with the reference's of the same round (mdb_stats.paired_t,
the verdicts' statistic since the rounds are interleaved): whether rounds
taken together would narrow the interval where drift between rounds moves
both sides alike.

usage: python3 scripts/lib/mdb_estimators.py [--filter REGEX] DUMP [DUMP ...]
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import mdb_dump as md  # noqa: E402
import mdb_report as mr  # noqa: E402
import mdb_stats as st  # noqa: E402

ONE_RUN = "one run"
PAIRED = f"{st.ROUND_VALUE}, paired t"


def round_values(bench, estimator):
	"""The bench's rounds' values by estimator, or None when a round has no
	round_rep (ONE_RUN: real_time as it is)."""
	if estimator == ONE_RUN:
		return bench.values("real_time")
	if estimator == PAIRED:
		estimator = st.ROUND_VALUE
	out = []
	for e in bench.reps:
		rep = e.get("round_rep")
		if not isinstance(rep, dict) or not rep.get("real_time"):
			return None
		out.append(st.round_value(rep["real_time"], estimator))
	return out


def paired_rounds(ref, twin, a, b):
	"""a and b (the reference's and the twin's round values, in entry order)
	cut to the rounds both ran: by the entries' round where they carry one,
	else round i of each where both ran every round; (None, None) else."""
	if not a or not b:
		return None, None
	ra = [e.get("round") for e in ref.reps]
	rb = [e.get("round") for e in twin.reps]
	if all(isinstance(r, int) for r in ra + rb):
		va, vb = dict(zip(ra, a)), dict(zip(rb, b))
		common = sorted(set(va) & set(vb))
		return [va[r] for r in common], [vb[r] for r in common]
	return (a, b) if len(a) == len(b) else (None, None)


def aa_widths(dump, estimators, alpha=st.DEFAULT_ALPHA, pattern=None):
	"""{estimator: {reference name: (lo, hi) or None}}: the A/A interval of
	each twin pair (matching pattern) under each estimator."""
	out = {e: {} for e in estimators}
	for name, (ref, twin) in mr.twin_pairs(dump).items():
		if pattern and not pattern.search(name):
			continue
		for e in estimators:
			a, b = round_values(ref, e), round_values(twin, e)
			if e == PAIRED:
				a, b = paired_rounds(ref, twin, a, b)
				if a and b:
					out[e][name] = st.paired_t(a, b, alpha)[1]
			elif a and b:
				out[e][name] = st.compare(a, b, alpha).ci
	return out


def width(ci):
	"""The interval's width relative to 1 (hi / lo - 1); inf with none."""
	return ci[1] / ci[0] - 1 if ci else float("inf")


def table(dumps, alpha=st.DEFAULT_ALPHA, pattern=None):
	"""Markdown rows: per dump and estimator, the median A/A width over
	the pairs and the widest, and how many lie within +-5%."""
	lines = ["| run | rounds | estimator | pairs | median 99% A/A width | widest | "
		 "within \u00b15% |", "|---|---|---|---|---|---|---|"]
	for d in dumps:
		reps = any(e.get("round_rep") for b in d.native.values() for e in b.reps)
		ests = st.ROUND_ESTIMATORS + (PAIRED,) if reps else (ONE_RUN,)
		for e, cis in aa_widths(d, ests, alpha, pattern).items():
			if not cis:
				continue
			w = sorted(width(c) for c in cis.values())
			same = sum(1 for c in cis.values() if c and 1 / (1 + st.DEFAULT_MARGIN) <= c[0]
				   and c[1] <= 1 + st.DEFAULT_MARGIN)
			n = max(len(b.reps) for b in d.native.values())
			lines.append(f"| {d.label} | {n} | {e} | {len(w)} | {100 * mr.median(w):.1f}% | "
				     f"{100 * w[-1]:.1f}% | {same} of {len(w)} |")
	return "\n".join(lines)


def main(argv):
	pattern = None
	if argv[:1] == ["--filter"] and len(argv) > 2:
		pattern, argv = re.compile(argv[1]), argv[2:]
	if not argv:
		print(__doc__.rsplit("usage: ", 1)[1].strip(), file=sys.stderr)
		return 2
	print(table([md.Dump(p) for p in argv], pattern=pattern))
	return 0


if __name__ == "__main__":
	sys.exit(main(sys.argv[1:]))
