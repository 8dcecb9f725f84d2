"""The statistics of scripts/compare, scripts/plot's summary and the re-runs
of scripts/run and collect, with scipy doing the statistics.

Two samples A and B of one metric (one value per repetition: mdbench's
--rounds, Google Benchmark's repetitions) are compared as:

- ratio: the Hodges-Lehmann estimate of B/A, exp(median over all pairs of
  log b - log a).  Timings are skewed and multiplicative (a slower machine,
  a cache miss more), so the shift is estimated on log times; the median of
  pairwise log ratios is robust to the odd outlier a repetition brings, and
  it is the estimator that goes with the Mann-Whitney test below.
- ci: its confidence interval at level 1 - alpha, by inverting that same
  Mann-Whitney test (Lehmann 1975; Bauer 1972): the shifts d for which
  mannwhitneyu(log B - d, log A) gives p >= alpha.  Its ends are pairwise
  log ratios, found with scipy's own p-values, so the interval excludes 1
  exactly when the p-value below is under alpha, with no normal
  approximation for small n.  (A bootstrap needs many more than 5
  repetitions to resample a median.)
- p: scipy.stats.mannwhitneyu(A, B, alternative='two-sided'), as Google
  Benchmark's tools/compare.py computes its U test: the same p-values.
- verdict: 'differs' when p < alpha, else 'no difference'.

A metric that does not vary within either side (footprint bytes,
deterministic counters, callgrind's counts) is compared exactly: 'same' or
'differs', no test; a report kernel's values (exact=True) so even with one
value a side.  A side with one value gives a ratio but no interval
and no test ('n = 1: no test').  Values that are not all positive (a
counter at 0) are compared as a difference B - A instead of a ratio.
"""

import math
import statistics

DEFAULT_ALPHA = 0.01
# scipy's exact Mann-Whitney distribution depends on (m, n, U) alone when a
# sample has no ties: the interval's rank k is kept per (m, n, alpha).
_K_CACHE = {}
_P_CACHE = {}


class Comparison:
	"""What compare prints per row; see the module's text."""

	__slots__ = ("n_a", "n_b", "ratio", "diff", "ci", "p", "verdict", "kind")

	def __init__(self, n_a, n_b):
		self.n_a, self.n_b = n_a, n_b
		self.ratio = self.diff = self.ci = self.p = None
		self.verdict, self.kind = None, "ratio"

	def estimate_text(self):
		if self.kind == "ratio":
			return fmt3(self.ratio)
		return "B-A " + fmt_signed(self.diff)

	def ci_text(self):
		if not self.ci:
			return "-"
		f = fmt3 if self.kind == "ratio" else fmt_signed
		return f"{f(self.ci[0])}..{f(self.ci[1])}"

	def p_text(self):
		return "-" if self.p is None else fmt_p(self.p)


def fmt3(x):
	"""A ratio: 3 decimals, or 3 significant digits when far from 1."""
	if x is None:
		return "n/a"
	if not math.isfinite(x):
		return str(x)
	return f"{x:.3f}" if 0.01 <= abs(x) < 100 else f"{x:.3g}"


def fmt_signed(x):
	from mdb_dump import fmt
	return ("+" if x > 0 else "") + fmt(x)


def fmt_p(p):
	return f"{p:.3g}" if p >= 0.001 else f"{p:.1e}"


def _mwu(a, b):
	from scipy.stats import mannwhitneyu
	return float(mannwhitneyu(a, b, alternative="two-sided").pvalue)


def _has_ties(x):
	return len(set(x)) < len(x)


def _lower_rank(la, lb, alpha):
	"""The 1-based rank k, among the sorted pairwise differences lb - la, of
	the interval's lower end: the least k such that a shift just above the
	k-th difference is not rejected at alpha; None when not even a shift
	below every difference is (the samples are too small for this alpha).
	Found by bisection on scipy's p-values at the midpoints between
	distinct differences: below the middle, p rises with k."""
	d = sorted(y - x for y in lb for x in la)
	ties = _has_ties(la) or _has_ties(lb)
	key = (len(la), len(lb), alpha)
	if not ties and key in _K_CACHE:
		return _K_CACHE[key]

	def accepted(shift):
		return _mwu(la, [y - shift for y in lb]) >= alpha

	k = None
	if not accepted(d[0] - 1.0):
		cuts = [k for k in range(1, len(d) // 2 + 1) if d[k - 1] < d[k]]
		lo, hi = 0, len(cuts)		# first accepted cut in cuts[lo:hi], or hi
		while lo < hi:
			mid = (lo + hi) // 2
			c = cuts[mid]
			if accepted((d[c - 1] + d[c]) / 2):
				hi = mid
			else:
				lo = mid + 1
		k = cuts[lo] if lo < len(cuts) else (cuts[-1] if cuts else 1)
	if not ties:
		_K_CACHE[key] = k
	return k


def hodges_lehmann(la, lb, alpha):
	"""(estimate, (lo, hi) or None) of the shift of lb against la; the
	interval is None with fewer than 2 values a side or when the samples
	are too small to reject any shift at alpha."""
	d = sorted(y - x for y in lb for x in la)
	est = statistics.median(d)
	if len(la) < 2 or len(lb) < 2:
		return est, None
	k_lo = _lower_rank(la, lb, alpha)
	k_hi = _lower_rank(lb, la, alpha)	# the upper end, seen from the other side
	if k_lo is None or k_hi is None:
		return est, None
	return est, (d[k_lo - 1], d[len(d) - k_hi])


def compare(a, b, alpha=DEFAULT_ALPHA, exact=False):
	"""Comparison of samples a (A) and b (B), each a list of values; exact:
	the values are counts, not measurements (a report kernel's bytes), so
	that one value a side is enough to tell same from different."""
	return compare_all([(a, b)], alpha, [exact])[0]


def compare_all(pairs, alpha=DEFAULT_ALPHA, exact=None):
	"""[Comparison] of every (a, b) in pairs.  scipy is asked once per
	order of the values (_ranks): a dump of thousands of benchmarks with
	5 repetitions a side has at most 252 of them."""
	out, pending = [], []
	for i, (a, b) in enumerate(pairs):
		c = _estimate(a, b, alpha, exact[i] if exact else False)
		out.append(c)
		if c.verdict is None:
			pending.append((i, a, b))
	for i, a, b in pending:
		key = _ranks(a, b)
		p = _P_CACHE.get(key)
		if p is None:
			p = _P_CACHE[key] = _mwu(a, b)
		out[i].p = p
		out[i].verdict = "differs" if p < alpha else "no difference"
	return out


def _ranks(a, b):
	"""What the U test's p-value depends on: the order of A's and B's
	values, ties included (scipy's method choice and tie correction
	follow from it).  Samples with the same order share one scipy call."""
	tagged = sorted([(x, 0) for x in a] + [(y, 1) for y in b])
	out, i = [], 0
	while i < len(tagged):
		j = i + 1
		while j < len(tagged) and tagged[j][0] == tagged[i][0]:
			j += 1
		out.append(tuple(sorted(t for _, t in tagged[i:j])))
		i = j
	return tuple(out)


def _estimate(a, b, alpha, exact):
	"""A Comparison with all but the p-value; its verdict None when the U
	test is still to be done."""
	c = Comparison(len(a), len(b))
	if not a or not b:
		c.verdict = "n/a"
		return c
	positive = min(a) > 0 and min(b) > 0
	c.kind = "ratio" if positive else "diff"
	single = len(a) < 2 or len(b) < 2
	if min(a) == max(a) and min(b) == max(b):		# no spread: exact
		if positive:
			c.ratio = b[0] / a[0]
		else:
			c.diff = b[0] - a[0]
		c.verdict = "n = 1: no test" if single and not exact else (
			"same" if a[0] == b[0] else "differs (exact)")
		return c
	if positive:
		la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
		est, ci = hodges_lehmann(la, lb, alpha)
		c.ratio = math.exp(est)
		c.ci = (math.exp(ci[0]), math.exp(ci[1])) if ci else None
	else:
		c.diff, c.ci = hodges_lehmann(a, b, alpha)
	c.verdict = "n = 1: no test" if single else None
	return c


def relative_spread(values):
	"""(Q3 - Q1) / median of a sample (scipy.stats.iqr): what scripts/run
	and collect re-run with more rounds when it is wide."""
	from scipy.stats import iqr
	med = statistics.median(values)
	return float(iqr(values)) / med if med > 0 else 0.0


def linear_fit(xs, ys):
	"""(intercept, slope, r) of ys = intercept + slope * xs (least squares,
	scipy.stats.linregress)."""
	from scipy.stats import linregress
	r = linregress(xs, ys)
	return float(r.intercept), float(r.slope), float(r.rvalue)
