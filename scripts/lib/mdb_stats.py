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
- paired (a layout against the reference within one run, its rounds known):
  a round's layouts ran interleaved (mdbench/native.c), so the machine's
  phases fall on both sides of the round's ratio; the ratio is exp of
  the 20% trimmed mean of the rounds' log ratios log(b_i / a_i), ci its
  Yuen t interval (the trimmed mean's standard error from the ratios
  winsorized at the cut, on h - 1 degrees of freedom, h the ratios kept)
  and p that t's (paired_t(), the same as mdbench/rounds.c's
  mdb_paired_interval(), on which --rounds=auto stops): a phase that hit
  a layout harder than the reference in a round or two of ten is cut,
  as d3's first round of lookup/random was not by the mean (memdesc8
  0.701, undecided at 0.435..1.130 over 12 rounds).  Fewer than 5 rounds
  cut nothing: Student's t.  Two rounds give an interval.
- trimmed (two runs' within-run ratios, compare's ratio table): nothing
  pairs across runs, and a run's rounds are a series in time that a phase
  of the machine can hold for minutes: on the development VM every layout
  of a round ran 1.2-2.5x slow for the first four rounds of one run (d1)
  and the first of another (d3), moving some ratios far more than the
  rest.  The ratio is that of the sides' 20% trimmed means of log ratios
  (the cut of ROUND_VALUE's trim20), ci Yuen's (1974) Welch t interval on
  them with winsorized variances, p that t's (yuen_t(); scipy's
  ttest_ind(trim=0.2)): a minority of disturbed rounds cannot move it, and
  over eight A/A runs it read 1.1% of rows faster/slower where the plain
  Welch t read 2.2% and the U test 2.4% (docs/conditions.md, "Between
  runs").  The U test holds for every other comparison of unpaired values.
- verdict: what the data show, in words, decided by verdict() alone (every
  report calls it): 'slower' (or 'higher') / 'faster' ('lower') when the
  interval excludes 1 (p < alpha); 'same within +-X%' when the whole
  interval lies inside [1/(1+X), 1+X] (X the margin, 5% by default: an
  equivalence test, two one-sided tests at alpha/2 each, so at least as
  strict as TOST at alpha); 'too few rounds (n needed)' when the sizes
  cannot reach p < alpha at all (the least two-sided p of the exact U test
  is 2/C(m+n, m)); else 'undecided', with the direction seen: 'slower in
  4 of 5 rounds' (paired rounds of one run) or 'in 18 of 25 pairs'.  An interval
  that holds 1 but reaches past the margin is never read as equality.

A round's value: mdbench makes a timed round of k short runs (its
--round-reps, 10 by default) and reduces them to one value per field with
round_value(), the same function as mdbench/rounds.c's
mdb_round_estimate() (tests/mdbench/test_round_value.py holds them equal):
ROUND_VALUE names the estimator it uses, ROUND_ESTIMATORS the candidates
docs/conditions.md ("The round's value") weighed.

A metric that does not vary within either side (footprint bytes,
deterministic counters, callgrind's counts) is compared exactly: 'equal'
or 'higher/lower (exact)', no test; a report kernel's values (exact=True)
so even with one value a side.  A side with one value gives a ratio but no
interval and no test ('too few rounds').  Values that are not all positive
(a counter at 0) are compared as a difference B - A instead of a ratio
(no margin: 'faster', 'slower' or 'undecided').
"""

import math
import statistics

DEFAULT_ALPHA = 0.01
DEFAULT_MARGIN = 0.05		# 'same within +-5%'
TIME_WORDS = ("faster", "slower")	# B below A, B above A
VALUE_WORDS = ("lower", "higher")
# The first word of every verdict, for tallies and for the decided ones.
DECIDED = TIME_WORDS + VALUE_WORDS
# scipy's exact Mann-Whitney distribution depends on (m, n, U) alone when a
# sample has no ties: the interval's rank k is kept per (m, n, alpha).
_K_CACHE = {}
# rounds.h's enum mdb_round_est, in its order, and MDB_ROUND_VALUE.
ROUND_ESTIMATORS = ("min", "median", "trim20", "mean")
ROUND_VALUE = "trim20"
PAIRED_NEEDED = 2		# rounds a paired interval needs
_P_CACHE = {}


class Comparison:
	"""What compare prints per row; see the module's text."""

	__slots__ = ("n_a", "n_b", "ratio", "diff", "ci", "p", "verdict", "kind", "up", "down", "of",
		     "paired", "exact", "trimmed")

	def __init__(self, n_a, n_b):
		self.n_a, self.n_b = n_a, n_b
		self.ratio = self.diff = self.ci = self.p = None
		self.verdict, self.kind = None, "ratio"
		self.up = self.down = self.of = 0	# rounds (or pairs) with B above, below A, of
		self.paired = self.exact = False
		self.trimmed = False	# yuen_t() decided

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


def compare(a, b, alpha=DEFAULT_ALPHA, exact=False, margin=DEFAULT_MARGIN, words=TIME_WORDS,
	    paired=False, trimmed=False):
	"""Comparison of samples a (A) and b (B), each a list of values; exact:
	the values are counts, not measurements (a report kernel's bytes), so
	that one value a side is enough to tell same from different; paired:
	value i of a and of b come from one round of one run, run interleaved;
	trimmed: a and b are two runs' rounds, compared by yuen_t()."""
	return compare_all([(a, b)], alpha, [exact], margin, [words], [paired], [trimmed])[0]


def compare_all(pairs, alpha=DEFAULT_ALPHA, exact=None, margin=DEFAULT_MARGIN, words=None,
		paired=None, trimmed=None):
	"""[Comparison] of every (a, b) in pairs, each with its verdict();
	exact, words, paired and trimmed per pair (words: (below, above),
	TIME_WORDS by default; paired and trimmed: False by default).
	scipy is asked once per order of the values (_ranks): a dump of
	thousands of benchmarks with 5 repetitions a side has at most 252 of
	them."""
	out = []
	for i, (a, b) in enumerate(pairs):
		c = _estimate(a, b, alpha, exact[i] if exact else False, paired[i] if paired else False,
			      trimmed[i] if trimmed else False)
		if c.verdict is None and not c.exact and c.p is None and min(c.n_a, c.n_b) > 1:
			if c.kind == "ratio":	# as the interval sees them: on rounded logs
				a, b = [_log(x) for x in a], [_log(x) for x in b]
			key = _ranks(a, b)
			p = _P_CACHE.get(key)
			if p is None:
				p = _P_CACHE[key] = _mwu(a, b)
			c.p = p
		c.verdict = c.verdict or verdict(c, alpha, margin, words[i] if words else TIME_WORDS)
		out.append(c)
	return out


def round_value(values, estimator=ROUND_VALUE):
	"""One round's value from its short runs' values, as mdbench computes
	it (rounds.h): 'min', 'median', 'trim20' (the mean of what is left
	with int(0.2 n) cut at each end, scipy's trim_mean) or 'mean'; sums
	run from the smallest value, as rounds.c's."""
	s = sorted(values)
	n = len(s)
	if not n:
		return math.nan
	if estimator == "min":
		return s[0]
	if estimator == "median":
		return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
	cut = trim_cut(n) if estimator == "trim20" else 0
	if estimator not in ("trim20", "mean"):
		raise ValueError(f"unknown estimator {estimator!r}: one of {', '.join(ROUND_ESTIMATORS)}")
	kept = s[cut:n - cut]
	total = 0.0
	for x in kept:
		total += x
	return total / len(kept)


def _t_interval(d, alpha):
	"""(m, (lo, hi) or None, p or None) of the values d: m their 20%
	trimmed mean, its 1 - alpha interval by Yuen's t (m +- t(1 - alpha/2,
	h - 1) x the standard error of _trimmed(); Student's where nothing is
	cut, fewer than 5 values) and the two-sided p of that t against 0, as
	mdbench/rounds.c's mdb_paired_interval(); no interval with fewer than
	2 values; p 0 or 1 where the kept values do not vary."""
	from scipy.stats import t
	if len(d) < 2:
		return statistics.fmean(d), None, None
	m, v, h = _trimmed(d)
	if v == 0:
		return m, (m, m), 1.0 if m == 0 else 0.0
	se = math.sqrt(v)
	half = t.ppf(1 - alpha / 2, h - 1) * se
	return m, (m - half, m + half), float(2 * t.sf(abs(m) / se, h - 1))


def _check_pairs(a, b, what):
	if len(a) != len(b) or not a:
		raise ValueError(f"{what}: {len(a)} and {len(b)} rounds")


def paired_t(a, b, alpha=DEFAULT_ALPHA):
	"""(ratio, (lo, hi)) of b against a, value i of each from one round of
	one run (its layouts interleaved): exp of the 20% trimmed mean of the
	rounds' log ratios log(b_i / a_i) and its 1 - alpha Yuen t interval
	(_t_interval()), or (ratio, None) with fewer than 2 rounds.  The
	statistic of a run's rows (mdbench/rounds.h) and of --rounds=auto's
	stopping."""
	return _paired(a, b, alpha)[:2]


def _paired(a, b, alpha):
	"""paired_t()'s (ratio, (lo, hi) or None) and the two-sided p of its t
	(the log ratios' trimmed mean against 0; below alpha exactly when the
	interval excludes 1; None with no interval), from one _t_interval()."""
	_check_pairs(a, b, "paired_t")
	m, ci, p = _t_interval([math.log(y / x) for x, y in zip(a, b)], alpha)
	return math.exp(m), (math.exp(ci[0]), math.exp(ci[1])) if ci else None, p


def _log(x):
	"""log x to 12 decimals, as the unpaired tests see a positive value:
	ratios that a division rounds apart (two machines' 2x/2x against
	1x/1x) are the same ratio, not a difference of 10^-16 that a t (or a
	rank test over 25 rounds) calls significant."""
	return round(math.log(x), 12)


def trim_cut(n):
	"""The values cut at each end of n sorted ones by a 20% trimmed mean:
	int(0.2 n), as scipy's trim_mean and ttest_ind(trim=0.2) cut them."""
	return n // 5


def _trimmed(lv):
	"""(trimmed mean, its squared standard error, values kept) of the
	values lv: the 20% trimmed mean and Yuen's (n - 1) s_w^2 / (h (h - 1)),
	s_w^2 the variance of the values winsorized at the same cut."""
	s, n = sorted(lv), len(lv)
	g = trim_cut(n)
	h = n - 2 * g
	w = [s[g]] * g + s[g:n - g] + [s[n - g - 1]] * g
	return statistics.fmean(s[g:n - g]), (n - 1) * statistics.variance(w) / (h * (h - 1)), h


def yuen_t(a, b, alpha=DEFAULT_ALPHA):
	"""(ratio, (lo, hi) or None, p or None) of b against a, two runs'
	rounds (unpaired, positive): exp of the difference of the 20% trimmed
	means of their logs, its 1 - alpha Yuen-Welch t interval and that t's
	two-sided p (scipy.stats.ttest_ind(trim=0.2)'s).  No interval with
	fewer than 2 values a side."""
	from scipy.stats import t
	la, lb = [_log(x) for x in a], [_log(x) for x in b]
	if len(la) < 2 or len(lb) < 2:
		return math.exp(statistics.fmean(lb) - statistics.fmean(la)), None, None
	(ma, va, ha), (mb, vb, hb) = _trimmed(la), _trimmed(lb)
	d = mb - ma
	if va + vb == 0:
		return math.exp(d), (math.exp(d), math.exp(d)), 1.0 if d == 0 else 0.0
	df = (va + vb) ** 2 / (va ** 2 / (ha - 1) + vb ** 2 / (hb - 1))
	se = math.sqrt(va + vb)
	h = t.ppf(1 - alpha / 2, df) * se
	return math.exp(d), (math.exp(d - h), math.exp(d + h)), float(2 * t.sf(abs(d) / se, df))


def paired_shift(a, b, alpha=DEFAULT_ALPHA):
	"""(shift, (lo, hi)): the 20% trimmed mean of the rounds' differences
	b_i - a_i and its 1 - alpha Yuen t interval, as paired_t() in the
	values' own unit (the projection's ns per op)."""
	_check_pairs(a, b, "paired_shift")
	return _t_interval([y - x for x, y in zip(a, b)], alpha)[:2]


def rounds_needed(alpha):
	"""The fewest values a side with which the two-sided exact U test can
	reach p < alpha: its least p is 2 / C(2n, n)."""
	n = 1
	while 2 / math.comb(2 * n, n) >= alpha:
		n += 1
	return n


def reachable(m, n, alpha):
	"""Whether samples of m and n values can give p < alpha at all."""
	return m > 0 and n > 0 and 2 / math.comb(m + n, m) < alpha


def margin_text(margin):
	return f"same within \u00b1{100 * margin:g}%"


def verdict(c, alpha=DEFAULT_ALPHA, margin=DEFAULT_MARGIN, words=TIME_WORDS):
	"""What a Comparison shows, in words: the one place that decides
	(module text).  words: (B below A, B above A)."""
	below, above = words
	if c.exact:
		x, one = (c.ratio, 1) if c.kind == "ratio" else (c.diff, 0)
		return "equal" if x == one else f"{below if x < one else above} (exact)"
	if c.p is not None and c.p < alpha:	# the interval excludes 1 (0 for a difference)
		shift = c.ratio - 1 if c.kind == "ratio" else c.diff
		return below if shift < 0 else above
	if c.kind == "ratio" and c.ci and 1 / (1 + margin) <= c.ci[0] and c.ci[1] <= 1 + margin:
		return margin_text(margin)
	seen = direction(c, words)
	if (c.paired and c.kind == "ratio" and c.of < PAIRED_NEEDED or	# a t interval's least
	    c.trimmed and min(c.n_a, c.n_b) < PAIRED_NEEDED):
		return f"too few rounds ({PAIRED_NEEDED} needed): {seen}"
	if not c.paired and not c.trimmed and not reachable(c.n_a, c.n_b, alpha):
		return f"too few rounds ({rounds_needed(alpha)} needed): {seen}"
	return f"undecided: {seen}"


def rule_text(alpha=DEFAULT_ALPHA, margin=DEFAULT_MARGIN):
	"""The verdicts' rule in one sentence, for every report that gives them."""
	level = f"{100 * (1 - alpha):g}%"
	return (f"faster/slower: the {level} interval excludes 1 (within a run: Yuen's t on the "
		f"20% trimmed mean of the rounds' paired log ratios, a round's layouts interleaved; "
		f"two runs' within-run ratios: Yuen's t on their 20% trimmed means; else U test; "
		f"p < {alpha:g}); {margin_text(margin)}: the whole interval inside "
		f"[{1 / (1 + margin):.3f}, {1 + margin:.3f}] (--margin); "
		f"undecided: neither, with the direction the values took; "
		f"too few rounds: paired or Yuen, {PAIRED_NEEDED}; a U test at {alpha:g} needs "
		f"{rounds_needed(alpha)} a side")


def tally_text(verdicts):
	"""'3 faster, 1 slower, ...' of verdicts, by category(), most first."""
	t = {}
	for v in verdicts:
		t[category(v)] = t.get(category(v), 0) + 1
	return ", ".join(f"{n} {k}" for k, n in sorted(t.items(), key=lambda kv: (-kv[1], kv[0])))


def direction(c, words=TIME_WORDS):
	"""'slower in 4 of 5 rounds' (or pairs): the direction the values took."""
	unit = "rounds" if c.paired else "pairs"
	if c.up == c.down:
		return f"no direction: {c.up} of {c.of} {unit} each way"
	if c.up > c.down:
		return f"{words[1]} in {c.up} of {c.of} {unit}"
	return f"{words[0]} in {c.down} of {c.of} {unit}"


def category(v):
	"""A verdict's kind, for tallies: its words before any ':' or '('."""
	return v.split(":")[0].split(" (")[0]


def decided(v):
	"""The verdict says faster or slower (higher, lower)."""
	return category(v) in DECIDED


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


def _estimate(a, b, alpha, exact, paired, trimmed=False):
	"""A Comparison with all but the p-value and the verdict; its verdict
	set here only when a side is empty or the values are compared exactly."""
	c = Comparison(len(a), len(b))
	if not a or not b:
		c.verdict = "n/a"
		return c
	positive = min(a) > 0 and min(b) > 0
	c.kind = "ratio" if positive else "diff"
	c.paired = paired and len(a) == len(b)
	pairs = list(zip(a, b)) if c.paired else [(x, y) for y in b for x in a]
	c.up, c.down, c.of = sum(y > x for x, y in pairs), sum(y < x for x, y in pairs), len(pairs)
	single = len(a) < 2 or len(b) < 2
	if min(a) == max(a) and min(b) == max(b):	# no spread: exact, unless one value a side
		c.exact = exact or not single
		if positive:
			c.ratio = b[0] / a[0]
		else:
			c.diff = b[0] - a[0]
		return c
	if positive and c.paired:
		c.ratio, c.ci, c.p = _paired(a, b, alpha)
	elif positive and trimmed:
		c.trimmed = True
		c.ratio, c.ci, c.p = yuen_t(a, b, alpha)
	elif positive:
		la, lb = [_log(x) for x in a], [_log(x) for x in b]
		est, ci = hodges_lehmann(la, lb, alpha)
		c.ratio = math.exp(est)
		c.ci = (math.exp(ci[0]), math.exp(ci[1])) if ci else None
	else:
		c.diff, c.ci = hodges_lehmann(a, b, alpha)
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
