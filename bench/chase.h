/* SPDX-License-Identifier: GPL-2.0 */
/*
 * chase.h - one pointer per 64-byte line, linked into a single random
 * cycle (Sattolo), so each load's address comes from the previous load and
 * the prefetcher cannot guess it: lat_mem_rd with a random stride.  What
 * baseline/latency times, and what the cache probe (cachesize.h) times
 * over doubling sizes.
 */
#ifndef MDB_CHASE_H
#define MDB_CHASE_H

#include <stddef.h>
#include <stdint.h>

#define CHASE_LINE	64

/* Links bytes of buf (whole lines) into the cycle; its start, or NULL when out of memory. */
void **chase_build(void *buf, size_t bytes, uint64_t seed);

/* n loads along the cycle from p; where they ended. */
static inline void **chase_walk(void **p, unsigned long n)
{
	while (n--)
		p = *p;
	return p;
}

#endif /* MDB_CHASE_H */
