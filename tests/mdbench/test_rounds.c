// SPDX-License-Identifier: GPL-2.0
/*
 * test_rounds.c - the interval --rounds=auto stops on (mdbench/rounds.h).
 *
 * With no argument: values worked by hand (Student's t quantiles, a trimmed
 * interval, a round's estimators).  With "round": one sample a line, "n v_1 .. v_n", and one line out, every
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

/* Most values a line gives. */
#define MAX_VALUES	1000

static int paired_from_stdin(void)
{
	static double a[MAX_VALUES], d[MAX_VALUES];
	double est, lo, hi, b;
	size_t n, i;

	while (scanf("%zu", &n) == 1) {
		if (n > MAX_VALUES)
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
	static double v[MAX_VALUES];
	size_t n, i;
	int e;

	while (scanf("%zu", &n) == 1) {
		if (!n || n > MAX_VALUES)
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

	if (argc > 1 && !strcmp(argv[1], "paired"))
		return paired_from_stdin();
	if (argc > 1 && !strcmp(argv[1], "round"))
		return round_from_stdin();
	/* Student's t: t(0.995, 1) = 63.657, t(0.995, 4) = 4.604, t(0.975, 30) = 2.042. */
	CHECK(fabs(mdb_t_quantile(0.995, 1) - 63.65674116) < 1e-6 &&
	      fabs(mdb_t_quantile(0.995, 4) - 4.604094871) < 1e-8 &&
	      fabs(mdb_t_quantile(0.975, 30) - 2.042272456) < 1e-8,
	      "t quantiles %.10g %.10g %.10g", mdb_t_quantile(0.995, 1), mdb_t_quantile(0.995, 4),
	      mdb_t_quantile(0.975, 30));
	/*
	 * Five log ratios, one wild: cut one at each end (h = 3), trimmed mean
	 * 0.3; winsorized 0.2 0.2 0.3 0.4 0.4, ss 0.04, standard error
	 * sqrt(0.04 / (3 * 2)); t(0.995, 2) = 9.9248: 0.3 -+ 0.81036.
	 */
	{
		const double d[] = { 0.4, 5.0, 0.1, 0.3, 0.2 };
		double est, lo, hi;

		CHECK(mdb_trim_cut(4) == 0 && mdb_trim_cut(5) == 1 && mdb_trim_cut(14) == 2,
		      "trim cuts %zu %zu %zu", mdb_trim_cut(4), mdb_trim_cut(5), mdb_trim_cut(14));
		CHECK(mdb_paired_interval(d, 5, 0.01, &est, &lo, &hi) && fabs(est - 0.3) < 1e-12 &&
		      fabs(lo + 0.5103600539793394) < 1e-8 && fabs(hi - 1.1103600539793395) < 1e-8,
		      "trimmed interval %.12g %.12g %.12g", est, lo, hi);
		CHECK(!mdb_paired_interval(d, 1, 0.01, &est, &lo, &hi) && est == 0.4 &&
		      isinf(lo) && isinf(hi), "one value: no interval");
	}
	CHECK(mdb_round_estimate(MDB_EST_MIN, reps, 10) == 60 &&
	      mdb_round_estimate(MDB_EST_MEDIAN, reps, 10) == 62 &&
	      mdb_round_estimate(MDB_EST_TRIM20, reps, 10) == 373.0 / 6 &&
	      mdb_round_estimate(MDB_EST_MEAN, reps, 10) == 72.8,
	      "min %g median %g trim20 %g mean %g", mdb_round_estimate(MDB_EST_MIN, reps, 10),
	      mdb_round_estimate(MDB_EST_MEDIAN, reps, 10), mdb_round_estimate(MDB_EST_TRIM20, reps, 10),
	      mdb_round_estimate(MDB_EST_MEAN, reps, 10));
	CHECK(reps[3] == 170 && isnan(mdb_round_estimate(MDB_EST_MEAN, reps, 0)),
	      "the values are left in their order; none: NAN");
	return test_done("test_rounds");
}
