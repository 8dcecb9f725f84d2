/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rounds.h - the statistics of rounds, the same as the reports'
 * (scripts/lib/mdb_stats.py).
 *
 * Within a run, the statistic --rounds=auto stops on and the rows' verdicts
 * use: a round's layouts ran interleaved (native.c), so a round gives one
 * log ratio of a layout's time to the reference's, and the row is their
 * 20% trimmed mean with its Yuen t interval at 1 - alpha,
 * mdb_paired_interval(); the machine's phases of seconds (on the
 * development VM, memory twice as slow) fall on both sides of a ratio and
 * leave it, and the trimming cuts the rounds a longer phase hit unequally
 * (d3's first round: lookup/random 11-20x slow on four layouts, 2-3x on two;
 * docs/conditions.md, "Between runs, disturbed rounds").
 *
 * Between two runs nothing pairs: the reports use Yuen's two-sample t on
 * the within-run ratios there (mdb_stats.yuen_t()), which mdbench,
 * deciding only within its own run, does not need.
 */
#ifndef MDB_ROUNDS_H
#define MDB_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>

/* The t with P(T <= t) = p of Student's t with nu degrees of freedom, p >= 0.5. */
double mdb_t_quantile(double p, double nu);

/* The values a 20% trimmed mean of n cuts at each end: n / 5, as scipy's. */
size_t mdb_trim_cut(size_t n);

/*
 * The 20% trimmed mean of the log ratios d[0, n) into *est and its
 * two-sided 1 - alpha interval into *lo, *hi: Yuen's, est +- t(1 - alpha/2,
 * h - 1) sqrt((n - 1) s_w^2 / (h (h - 1))), h the values kept and s_w^2 the
 * variance of d winsorized at the cut (Student's t where nothing is cut,
 * n < 5); false (lo -INFINITY, hi INFINITY) with fewer than 2.
 */
bool mdb_paired_interval(const double *d, size_t n, double alpha, double *est, double *lo,
			 double *hi);

/*
 * A round's value.  One Google Benchmark run per instance and round leaves
 * the round to whatever interference hits that run: on a shared VM one
 * preempted run (folio/getput at 170 ns among rounds of 60-70) moves the
 * whole round.  A timed round is instead MDB_ROUND_REPS short repetitions of
 * the instance (each min_time / MDB_ROUND_REPS, one iteration count for
 * all), reduced to one value per field by one estimator, mdb_round_value();
 * mdb_stats.round_value() is the same function (test_round_value.py holds
 * them equal).  The estimator was chosen by the A/A interval widths it gave
 * on the development VM (docs/conditions.md, "The round's value").
 */
enum mdb_round_est {
	MDB_EST_MIN,		/* the least: interference only adds time */
	MDB_EST_MEDIAN,
	MDB_EST_TRIM20,		/* mean of the middle, 20% cut at each end (scipy's trim_mean) */
	MDB_EST_MEAN,
	MDB_NR_EST
};

#define MDB_ROUND_REPS		10
#define MDB_ROUND_VALUE		MDB_EST_TRIM20

/* "min", "median", "trim20", "mean": the names the dump and mdb_stats use. */
extern const char *const mdb_round_est_names[MDB_NR_EST];

/* The estimate e of v[0, n), n >= 1 (v is left as it is); NAN for n = 0. */
double mdb_round_estimate(enum mdb_round_est e, const double *v, size_t n);

/* A round's value from its repetitions' values: MDB_ROUND_VALUE's estimate. */
static inline double mdb_round_value(const double *v, size_t n)
{
	return mdb_round_estimate(MDB_ROUND_VALUE, v, n);
}

#endif /* MDB_ROUNDS_H */
