/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rng.h - the suite's one generator: splitmix64, and uniform draws below n.
 *
 * Used for everything seeded (mix placement, pfn lists, descriptor churn,
 * pointer chases): the same seed gives the same machine and the same walks
 * on every layout and every host.  Never inside a timed loop.
 */
#ifndef MDB_RNG_H
#define MDB_RNG_H

#include <stdint.h>

static inline uint64_t mdb_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0: Lemire's multiply-shift, rejecting the biased few. */
static inline uint64_t mdb_rng_below(uint64_t *state, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)mdb_rng_next(state) * n;

	if ((uint64_t)m < n) {
		uint64_t threshold = -n % n;

		while ((uint64_t)m < threshold)
			m = (unsigned __int128)mdb_rng_next(state) * n;
	}
	return (uint64_t)(m >> 64);
}

#endif /* MDB_RNG_H */
