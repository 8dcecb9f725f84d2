/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grow.h - the one growth rule of the suite's arrays: double until need
 * fits (from 16), so appending n items costs O(n) copies in all.
 */
#ifndef MDB_GROW_H
#define MDB_GROW_H

#include <stdlib.h>

/*
 * arr (of *cap items of size bytes) with room for need items: arr itself,
 * or its reallocation with *cap raised; NULL out of memory (arr and *cap
 * then as they were).
 */
static inline void *mdb_grow(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return arr;
	while (n < need)
		n *= 2;
	p = realloc(arr, n * size);
	if (p)
		*cap = n;
	return p;
}

#endif /* MDB_GROW_H */
