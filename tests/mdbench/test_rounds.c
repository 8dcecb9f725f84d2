// SPDX-License-Identifier: GPL-2.0
/*
 * test_rounds.c - the interval --rounds=auto stops on (mdbench/rounds.h).
 *
 * With no argument: values worked by hand (the exact U distribution of 5
 * and 5: P(U <= 0) = 1/252; the rounds the test needs at 1%: 5).  With
 * "-": one sample pair a line on stdin, "m n a_1 .. a_m b_1 .. b_n", and
 * one line out, "est lo hi" (%.17g) or "est none", for
 * test_rounds_scipy.py to hold against mdb_stats.hodges_lehmann().  With
 * "round": one sample a line, "n v_1 .. v_n", and one line out, every
 * estimator of a round's value in rounds.h's order (%.17g), for
 * test_round_value.py to hold against mdb_stats.round_value().  With
 * "paired": one pair of rounds a line, "n a_1 .. a_n b_1 .. b_n", and one
 * line out, mdb_paired_interval() of the log ratios b_i / a_i, "est lo hi"
 * or "est none", for test_rounds_scipy.py to hold against
 * mdb_stats.paired_t().
 */
#include <math.h>
#include <string.h>

#include "rounds.h"
#include "test_common.h"

static int from_stdin(void)
{
	static double a[MDB_HL_MAX], b[MDB_HL_MAX];
	double est, lo, hi;
	size_t m, n, i;

	while (scanf("%zu %zu", &m, &n) == 2) {
		if (m > MDB_HL_MAX || n > MDB_HL_MAX)
			return 2;
		for (i = 0; i < m; i++)
			if (scanf("%lf", &a[i]) != 1)
				return 2;
		for (i = 0; i < n; i++)
			if (scanf("%lf", &b[i]) != 1)
				return 2;
		if (mdb_hl_interval(a, m, b, n, 0.01, &est, &lo, &hi))
			printf("%.17g %.17g %.17g\n", est, lo, hi);
		else
			printf("%.17g none\n", est);
	}
	return fflush(stdout) != 0;
}

static int paired_from_stdin(void)
{
	static double a[MDB_HL_MAX], d[MDB_HL_MAX];
	double est, lo, hi, b;
	size_t n, i;

	while (scanf("%zu", &n) == 1) {
		if (n > MDB_HL_MAX)
			return 2;
		for (i = 0; i < n; i++)
			if (scanf("%lf", &a[i]) != 1)
				return 2;
		for (i = 0; i < n; i++) {
			if (scanf("%lf", &b) != 1)
				return 2;
			d[i] = log(b / a[i]);
		}
		if (mdb_paired_interval(d, n, 0.01, &est, &lo, &hi))
			printf("%.17g %.17g %.17g\n", est, lo, hi);
		else
			printf("%.17g none\n", est);
	}
	return fflush(stdout) != 0;
}

static int round_from_stdin(void)
{
	static double v[MDB_HL_MAX];
	size_t n, i;
	int e;

	while (scanf("%zu", &n) == 1) {
		if (!n || n > MDB_HL_MAX)
			return 2;
		for (i = 0; i < n; i++)
			if (scanf("%lf", &v[i]) != 1)
				return 2;
		for (e = 0; e < MDB_NR_EST; e++)
			printf("%s%.17g", e ? " " : "", mdb_round_estimate(e, v, n));
		printf("\n");
	}
	return fflush(stdout) != 0;
}

int main(int argc, char **argv)
{
	/* Ten runs, one hit by a preemption: the estimators differ by how far it moves them. */
	double reps[] = { 61, 60, 62, 170, 63, 60, 64, 61, 62, 65 };

	double a5[] = { 0, 1, 2, 3, 4 }, b5[] = { 10, 11, 12, 13, 14 }, b4[] = { 10, 11, 12, 13 };
	double est, lo, hi;

	if (argc > 1 && !strcmp(argv[1], "paired"))
		return paired_from_stdin();
	if (argc > 1)
		return strcmp(argv[1], "round") ? from_stdin() : round_from_stdin();
	/* Student's t: t(0.995, 1) = 63.657, t(0.995, 4) = 4.604, t(0.975, 30) = 2.042. */
	CHECK(fabs(mdb_t_quantile(0.995, 1) - 63.65674116) < 1e-6 &&
	      fabs(mdb_t_quantile(0.995, 4) - 4.604094871) < 1e-8 &&
	      fabs(mdb_t_quantile(0.975, 30) - 2.042272456) < 1e-8,
	      "t quantiles %.10g %.10g %.10g", mdb_t_quantile(0.995, 1), mdb_t_quantile(0.995, 4),
	      mdb_t_quantile(0.975, 30));
	CHECK(mdb_round_estimate(MDB_EST_MIN, reps, 10) == 60 &&
	      mdb_round_estimate(MDB_EST_MEDIAN, reps, 10) == 62 &&
	      mdb_round_estimate(MDB_EST_TRIM20, reps, 10) == 373.0 / 6 &&
	      mdb_round_estimate(MDB_EST_MEAN, reps, 10) == 72.8,
	      "min %g median %g trim20 %g mean %g", mdb_round_estimate(MDB_EST_MIN, reps, 10),
	      mdb_round_estimate(MDB_EST_MEDIAN, reps, 10), mdb_round_estimate(MDB_EST_TRIM20, reps, 10),
	      mdb_round_estimate(MDB_EST_MEAN, reps, 10));
	CHECK(reps[3] == 170 && isnan(mdb_round_estimate(MDB_EST_MEAN, reps, 0)),
	      "the values are left in their order; none: NAN");
	CHECK(mdb_rounds_needed(0.01) == 5 && mdb_rounds_needed(0.05) == 4,
	      "needed %u at 1%%, %u at 5%%", mdb_rounds_needed(0.01), mdb_rounds_needed(0.05));
	CHECK(fabs(mdb_mwu_p(5, 5, 0, 0) - 2.0 / 252) < 1e-15, "p %g", mdb_mwu_p(5, 5, 0, 0));
	CHECK(fabs(mdb_mwu_p(4, 4, 0, 0) - 2.0 / 70) < 1e-15, "p %g", mdb_mwu_p(4, 4, 0, 0));
	CHECK(mdb_mwu_p(5, 5, 12.5, 0) == 1, "the middle: p 1");
	/*
	 * 5 and 5 wholly apart: differences 6..14, only U = 0 rejected at 1%
	 * (P(U <= 1) = 2/252, 2 x that > 0.01), so k = 1: the extremes.
	 */
	CHECK(mdb_hl_interval(a5, 5, b5, 5, 0.01, &est, &lo, &hi) && est == 10 && lo == 6 &&
	      hi == 14, "5 a side: %g [%g, %g]", est, lo, hi);
	CHECK(!mdb_hl_interval(a5, 5, b4, 4, 0.01, &est, &lo, &hi) && isinf(lo) && isinf(hi),
	      "5 and 4: no interval at 1%%");
	return test_done("test_rounds");
}
