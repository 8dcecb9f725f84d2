// SPDX-License-Identifier: GPL-2.0
/*
 * buddy.c - per-order stacks of free blocks, outside the memmap.
 *
 * The stacks are sized for the worst case (every pfn in blocks of that order)
 * so a push never allocates; malloc hands out such sizes as fresh mappings,
 * so only the part a run uses becomes resident.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "buddy.h"

int buddy_init(struct buddy *b, unsigned long nr_pfns)
{
	unsigned int order;

	memset(b, 0, sizeof(*b));
	for (order = 0; order <= MAX_PAGE_ORDER; order++) {
		b->cap[order] = (nr_pfns >> order) + 1;
		b->stack[order] = malloc(b->cap[order] * sizeof(b->stack[order][0]));
		if (!b->stack[order]) {
			buddy_destroy(b);
			return -1;
		}
	}
	return 0;
}

void buddy_destroy(struct buddy *b)
{
	unsigned int order;

	for (order = 0; order <= MAX_PAGE_ORDER; order++)
		free(b->stack[order]);
	memset(b, 0, sizeof(*b));
}

void buddy_reset(struct buddy *b)
{
	memset(b->nr, 0, sizeof(b->nr));
}

void buddy_push(struct buddy *b, unsigned long pfn, unsigned int order)
{
	assert(order <= MAX_PAGE_ORDER);
	assert(b->nr[order] < b->cap[order]);
	assert((pfn & ((1UL << order) - 1)) == 0);
	b->stack[order][b->nr[order]++] = pfn;
}

long buddy_pop(struct buddy *b, unsigned int order, unsigned int *got)
{
	unsigned int o;

	for (o = order; o <= MAX_PAGE_ORDER; o++) {
		if (b->nr[o]) {
			*got = o;
			return (long)b->stack[o][--b->nr[o]];
		}
	}
	return -1;
}
