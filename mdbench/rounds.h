/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rounds.h - when adaptive rounds (--rounds=auto) may stop: a
 * distribution-free confidence interval for a median.
 *
 * Of n values, the interval [x_(k), x_(n+1-k)] between the k-th smallest
 * and the k-th largest covers the median of what they were drawn from with
 * probability 1 - 2 P(B <= k - 1), B ~ Binomial(n, 1/2), whatever that
 * distribution is (the sign test's interval; the values need only be
 * independent draws of one distribution).  k is the largest that keeps the
 * probability at least the confidence asked; below the n where even k = 1
 * falls short (n < 8 for 99%) there is no interval.
 */
#ifndef MDB_ROUNDS_H
#define MDB_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The order statistic k (1-based) of the interval above for n values at
 * confidence conf (0.99); 0 when n is too small for any.
 */
size_t mdb_median_ci_rank(size_t n, double conf);

/*
 * The interval of v[0, n) (reordered) into *lo, *hi and its width over the
 * median; false (width infinite) when n is too small.
 */
bool mdb_median_ci(double *v, size_t n, double conf, double *lo, double *hi, double *rel_width);

#endif /* MDB_ROUNDS_H */
