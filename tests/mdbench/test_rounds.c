// SPDX-License-Identifier: GPL-2.0
/*
 * test_rounds.c - the sign-test interval --rounds=auto stops on
 * (mdbench/rounds.h): its ranks at 99% against scipy's binomial
 * (scipy.stats.binom: the largest k with 1 - 2 cdf(k - 1, n, 1/2) >= 0.99
 * is 0 for n = 7, 1 for 8 and 10, 4 for 20, 8 for 30, 37 for 100), and the
 * interval and width of given values.
 */
#include <math.h>

#include "rounds.h"
#include "test_common.h"

int main(void)
{
	static const struct { size_t n, k; } ranks[] = {
		{ 1, 0 }, { 7, 0 }, { 8, 1 }, { 10, 1 }, { 20, 4 }, { 30, 8 }, { 100, 37 },
	};
	double v8[] = { 1.08, 1.01, 0.99, 1.02, 1.00, 1.03, 0.98, 1.05 };
	double v7[] = { 1, 1, 1, 1, 1, 1, 1 };
	double v20[20], lo, hi, w;
	size_t i;

	for (i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++)
		CHECK(mdb_median_ci_rank(ranks[i].n, 0.99) == ranks[i].k, "n %zu: rank %zu, want %zu",
		      ranks[i].n, mdb_median_ci_rank(ranks[i].n, 0.99), ranks[i].k);
	/* n = 8: the whole range, median (1.01 + 1.02) / 2. */
	CHECK(mdb_median_ci(v8, 8, 0.99, &lo, &hi, &w) && lo == 0.98 && hi == 1.08 &&
	      fabs(w - 0.10 / 1.015) < 1e-12, "n 8: [%g, %g] width %g", lo, hi, w);
	CHECK(!mdb_median_ci(v7, 7, 0.99, &lo, &hi, &w) && isinf(w), "n 7: no interval");
	/* n = 20 of 1..20 reversed: [x_(4), x_(17)] = [4, 17], median 10.5. */
	for (i = 0; i < 20; i++)
		v20[i] = (double)(20 - i);
	CHECK(mdb_median_ci(v20, 20, 0.99, &lo, &hi, &w) && lo == 4 && hi == 17 &&
	      fabs(w - 13 / 10.5) < 1e-12, "n 20: [%g, %g] width %g", lo, hi, w);
	return failures != 0;
}
