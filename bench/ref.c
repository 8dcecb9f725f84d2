// SPDX-License-Identifier: GPL-2.0
/*
 * ref.c - loops timed against each other inside a kernel (ref.h).
 */
#include <stdlib.h>
#include <time.h>

#include "mdb.h"
#include "ref.h"

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void ref_time(const struct ref_loops *loops, double ns[REF_MAX_LOOPS])
{
	double per_op[REF_MAX_LOOPS][REF_MAX_ROUNDS];
	uint64_t start = now_ns(), t, ops;
	unsigned int round, l;

	for (round = 0; round < REF_MAX_ROUNDS; round++) {
		if (round >= REF_MIN_ROUNDS && round % 2 && now_ns() - start > REF_BUDGET_NS)
			break;
		for (l = 0; l < loops->nr; l++) {
			t = now_ns();
			ops = loops->run(loops->arg, l);
			per_op[l][round] = (double)(now_ns() - t) / (double)(ops ? ops : 1);
		}
	}
	for (l = 0; l < loops->nr; l++)
		ns[l] = median(per_op[l], round);
}

void ref_metadata_share(struct mdb_state *st, const struct ref_loops *loops)
{
	double ns[REF_MAX_LOOPS];

	ref_time(loops, ns);
	mdb_counter(st, "metadata_ns", ns[0], MDB_COUNTER_PLAIN);
	mdb_counter(st, "full_ns", ns[1], MDB_COUNTER_PLAIN);
	mdb_counter(st, "metadata_share", ns[0] / ns[1], MDB_COUNTER_PLAIN);
}
