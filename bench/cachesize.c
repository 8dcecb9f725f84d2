// SPDX-License-Identifier: GPL-2.0
/*
 * cachesize.c - the cache levels from the latency knees of a pointer chase
 * over doubling sizes (see cachesize.h).  Layout independent.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "cachesize.h"
#include "chase.h"
#include "mdb.h"
#include "vmemmap.h"

/*
 * The thread's CPU time: on a machine others load, the time it spends
 * descheduled is not the cache's.
 */
static double now_s(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/*
 * ns per load at one size: the cycle walked once (or CACHE_PROBE_LOADS
 * twice, for the large sizes, where the first lap finds nothing cached
 * anyway) untimed, then the best of CACHE_PROBE_REPS timings.
 */
static double time_size(void **p, uint64_t bytes)
{
	unsigned long lines = (unsigned long)(bytes / CHASE_LINE), warm = lines;
	double best = 0, t0, t;
	unsigned int r;

	if (warm > 2UL * CACHE_PROBE_LOADS)
		warm = 2UL * CACHE_PROBE_LOADS;
	p = chase_walk(p, warm);
	for (r = 0; r < CACHE_PROBE_REPS; r++) {
		t0 = now_s(CLOCK_THREAD_CPUTIME_ID);
		p = chase_walk(p, CACHE_PROBE_LOADS);
		mdb_do_not_optimize(p);
		t = (now_s(CLOCK_THREAD_CPUTIME_ID) - t0) * 1e9 / CACHE_PROBE_LOADS;
		if (!r || t < best)
			best = t;
	}
	return best;
}

/* The fastest load of the curve: an L1 hit. */
static double least_ns(const struct cache_curve *c)
{
	double least = c->n ? c->ns[0] : 0;
	unsigned int i;

	for (i = 1; i < c->n; i++)
		least = c->ns[i] < least ? c->ns[i] : least;
	return least;
}

int cache_probe(struct cache_curve *c, uint64_t max_bytes, uint64_t seed, struct mdb_err *err)
{
	double start = now_s(CLOCK_MONOTONIC);
	uint64_t bytes;
	void *buf;
	void **p;

	memset(c, 0, sizeof(*c));
	if (max_bytes > CACHE_PROBE_MAX || max_bytes < 4 * CACHE_PROBE_MIN)
		return mdb_errf(err, "cache probe: %llu bytes is out of its range (%llu to %llu)",
				(unsigned long long)max_bytes, 4 * CACHE_PROBE_MIN, CACHE_PROBE_MAX);
	buf = mmap(NULL, max_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return mdb_errf(err, "cache probe: cannot map %llu bytes: %s",
				(unsigned long long)max_bytes, strerror(errno));
	/* 2 MiB pages where THP gives them: a TLB knee is not a cache's. */
	vmemmap_advise(buf, max_bytes, MEMMAP_PAGES_2M);
	for (bytes = CACHE_PROBE_MIN; bytes <= max_bytes && c->n < CACHE_PROBE_SIZES; bytes *= 2) {
		p = chase_build(buf, bytes, seed);
		if (!p) {
			munmap(buf, max_bytes);
			return mdb_errf(err, "cache probe: out of memory for a %llu-byte permutation",
					(unsigned long long)bytes);
		}
		c->bytes[c->n] = bytes;
		c->ns[c->n++] = time_size(p, bytes);
		/* Two sizes in a row at memory's latency: no cache lies beyond. */
		if (c->n >= 3 && c->ns[c->n - 1] >= CACHE_MEMORY_OVER_L1 * least_ns(c) &&
		    c->ns[c->n - 2] >= CACHE_MEMORY_OVER_L1 * least_ns(c))
			break;
	}
	munmap(buf, max_bytes);
	c->seconds = now_s(CLOCK_MONOTONIC) - start;
	return 0;
}

/*
 * Step i (size i to i+1) is flat: it adds at most CACHE_KNEE_STEP, or it is
 * a valley between two climbs, under two thirds of each (in log latency): a cache
 * level whose plateau a loaded machine has bent into a slope, between the
 * climb into it and the climb out of it.
 */
static bool step_flat(const double *m, unsigned int n, unsigned int i)
{
	double s = log(m[i + 1] / m[i]);

	if (s <= log(CACHE_KNEE_STEP))
		return true;
	return i > 0 && i + 2 < n && s < log(m[i] / m[i - 1]) * 2 / 3 &&
	       s < log(m[i + 2] / m[i + 1]) * 2 / 3;
}

unsigned int cache_knees(const struct cache_curve *c, struct cache_knee *knee, unsigned int max)
{
	double m[CACHE_PROBE_SIZES];
	unsigned int n = c->n < CACHE_PROBE_SIZES ? c->n : CACHE_PROBE_SIZES, nr = 0, i, j;

	if (n < 3)
		return 0;
	/* Each point at most the latency of any larger size: a non-decreasing curve. */
	m[n - 1] = c->ns[n - 1];
	for (i = n - 1; i-- > 0;)
		m[i] = c->ns[i] < m[i + 1] ? c->ns[i] : m[i + 1];
	for (i = 0; i < n; i++)
		if (!(m[i] > 0))
			return 0;	/* no time measured: no curve */
	for (i = 0; i + 1 < n && nr < max; i = j) {
		j = i + 1;
		if (step_flat(m, n, i))
			continue;
		/* A climb from i, on to the next flat step. */
		while (j + 1 < n && !step_flat(m, n, j))
			j++;
		if (m[j] >= m[i] * CACHE_KNEE_RISE)
			knee[nr++] = (struct cache_knee){ .bytes = c->bytes[i], .below_ns = m[i],
							  .above_ns = m[j] };
	}
	return nr;
}

int cache_llc_knee(const struct cache_curve *c, const struct cache_knee *knee, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr && c->n; i++)
		if (knee[i].above_ns >= CACHE_MEMORY_OVER_L1 * least_ns(c))
			return (int)i;
	return -1;
}
