// SPDX-License-Identifier: GPL-2.0
/*
 * rounds.c - the paired interval of a run's rows (see rounds.h), as
 * mdb_stats computes it with scipy, and a round's value from its
 * repetitions: both cut 20% at each end, mdb_trim_cut().
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rounds.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double *sorted_copy(const double *v, size_t n)
{
	double *s = malloc(n * sizeof(*s));

	if (!s)
		abort();
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

/*
 * The regularized incomplete beta function's continued fraction (the
 * modified Lentz method), for x below (a + 1) / (a + b + 2) where it
 * converges fast.
 */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h, step, num;
	int m;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (m = 1; m <= 300; m++) {
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));	/* even step */
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));	/* odd step */
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		step = d * c;
		h *= step;
		if (fabs(step - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double inc_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

/* P(T <= t) of Student's t with nu degrees of freedom, for t >= 0. */
static double t_cdf(double t, double nu)
{
	return 1 - inc_beta(nu / 2, 0.5, nu / (nu + t * t)) / 2;
}

double mdb_t_quantile(double p, double nu)
{
	double lo = 0, hi = 1, mid;
	int i;

	while (t_cdf(hi, nu) < p && hi < 1e12)
		hi *= 2;
	for (i = 0; i < 200; i++) {	/* bisection to the last bit */
		mid = (lo + hi) / 2;
		if (mid == lo || mid == hi)
			break;
		if (t_cdf(mid, nu) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

size_t mdb_trim_cut(size_t n)
{
	return n / 5;		/* int(0.2 * n), as scipy.stats.trim_mean */
}

/* Sorted s[i] with g cut at each end pulled in to the nearest kept value. */
static double winsorized(const double *s, size_t n, size_t g, size_t i)
{
	return s[i < g ? g : i >= n - g ? n - g - 1 : i];
}

bool mdb_paired_interval(const double *d, size_t n, double alpha, double *est, double *lo,
			 double *hi)
{
	double *s, mean = 0, w, wmean = 0, ss = 0, half;
	size_t g, h, i;

	*lo = -INFINITY;
	*hi = INFINITY;
	*est = NAN;
	if (!n)
		return false;
	s = sorted_copy(d, n);
	g = mdb_trim_cut(n);
	h = n - 2 * g;
	for (i = g; i < n - g; i++)
		mean += s[i];
	mean /= (double)h;
	*est = mean;
	if (n < 2) {
		free(s);
		return false;
	}
	/* the variance of s winsorized at the cut: its ends pulled in to s[g], s[n - g - 1] */
	for (i = 0; i < n; i++)
		wmean += winsorized(s, n, g, i);
	wmean /= (double)n;
	for (i = 0; i < n; i++) {
		w = winsorized(s, n, g, i) - wmean;
		ss += w * w;
	}
	free(s);
	/* Yuen's squared standard error (n - 1) s_w^2 / (h (h - 1)), s_w^2 = ss / (n - 1) */
	half = mdb_t_quantile(1 - alpha / 2, (double)(h - 1)) * sqrt(ss / (double)h / (double)(h - 1));
	*lo = mean - half;
	*hi = mean + half;
	return true;
}

const char *const mdb_round_est_names[MDB_NR_EST] = {
	[MDB_EST_MIN] = "min",
	[MDB_EST_MEDIAN] = "median",
	[MDB_EST_TRIM20] = "trim20",
	[MDB_EST_MEAN] = "mean",
};

/* The mean of sorted s[lo, hi), summed from the smallest as Python's sum() would. */
static double mean_of(const double *s, size_t lo, size_t hi)
{
	double sum = 0;
	size_t i;

	for (i = lo; i < hi; i++)
		sum += s[i];
	return sum / (double)(hi - lo);
}

double mdb_round_estimate(enum mdb_round_est e, const double *v, size_t n)
{
	double *s, x;
	size_t cut;

	if (!n)
		return NAN;
	s = sorted_copy(v, n);
	switch (e) {
	case MDB_EST_MIN:
		x = s[0];
		break;
	case MDB_EST_MEDIAN:
		x = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
		break;
	case MDB_EST_TRIM20:
		cut = mdb_trim_cut(n);
		x = mean_of(s, cut, n - cut);
		break;
	default:
		x = mean_of(s, 0, n);
		break;
	}
	free(s);
	return x;
}
