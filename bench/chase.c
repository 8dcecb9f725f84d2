// SPDX-License-Identifier: GPL-2.0
/*
 * chase.c - the random cycle of lines that baseline/latency and the cache
 * probe walk (chase.h).
 */
#include <stdlib.h>

#include "chase.h"
#include "rng.h"

void **chase_build(void *buf, size_t bytes, uint64_t seed)
{
	size_t nr = bytes / CHASE_LINE, i, j;
	uint32_t *order = !nr || nr > UINT32_MAX ? NULL : malloc(nr * sizeof(*order));
	uint64_t rng = seed ^ 0x636861736eULL;
	char *base = buf;

	if (!order)
		return NULL;
	for (i = 0; i < nr; i++)
		order[i] = (uint32_t)i;
	for (i = nr - 1; i > 0; i--) {
		uint32_t t;

		j = mdb_rng_below(&rng, i);	/* j < i: one cycle through all */
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < nr; i++)
		*(void **)(base + (size_t)order[i] * CHASE_LINE) =
			base + (size_t)order[(i + 1) % nr] * CHASE_LINE;
	free(order);
	return (void **)base;
}
