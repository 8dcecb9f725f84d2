// SPDX-License-Identifier: GPL-2.0
/*
 * rounds.c - the sign test's interval for a median (see rounds.h).
 */
#include <math.h>
#include <stdlib.h>

#include "rounds.h"

/* P(B <= j) for B ~ Binomial(n, 1/2), through logs so that large n stay finite. */
static double binom_half_cdf(size_t n, size_t j)
{
	double sum = 0, log_half_n = (double)n * log(0.5);
	size_t i;

	for (i = 0; i <= j && i <= n; i++)
		sum += exp(lgamma((double)n + 1) - lgamma((double)i + 1) -
			   lgamma((double)(n - i) + 1) + log_half_n);
	return sum;
}

size_t mdb_median_ci_rank(size_t n, double conf)
{
	size_t k = 0;

	/* Coverage 1 - 2 P(B <= k - 1) falls as k grows: the last k that keeps it. */
	while (k + 1 <= n / 2 && 1 - 2 * binom_half_cdf(n, k) >= conf)
		k++;
	return k;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

bool mdb_median_ci(double *v, size_t n, double conf, double *lo, double *hi, double *rel_width)
{
	size_t k = mdb_median_ci_rank(n, conf);
	double median;

	*lo = -INFINITY;
	*hi = *rel_width = INFINITY;
	if (!k)
		return false;
	qsort(v, n, sizeof(*v), cmp_double);
	*lo = v[k - 1];
	*hi = v[n - k];
	median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*rel_width = median > 0 ? (*hi - *lo) / median : INFINITY;
	return true;
}
