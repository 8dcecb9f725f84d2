// SPDX-License-Identifier: GPL-2.0
/*
 * alloc.c - folio allocation and free cycles: the double allocation.
 *
 * folio_alloc() in the kernel is __folio_alloc(): the buddy hands out pfns
 * and prep_new_page()/prep_compound_page() write their struct pages.  With
 * separately allocated descriptors it must also allocate the struct folio
 * (a kmem_cache_alloc) and point every memdesc of the folio at it; folio_put
 * of the last reference undoes both.  The buddy here is the same in every
 * layout, so what differs is that second allocation and the memmap writes.
 *
 * An op is one folio_alloc() plus one folio_free(); a batch allocates up to
 * ALLOC_BATCH_MAX folios and frees them in reverse, as a burst of faults and
 * an munmap() would, reusing blocks LIFO as the per-cpu lists do.
 */
#include <stdio.h>

#include "kernel.h"

#define ALLOC_BATCH_MAX	64

/* How many folios of this order the buddy can hand out, up to the batch. */
static unsigned long alloc_probe(struct memmap *mm, const struct layout_ops *ops,
				 unsigned int order, long *pfn)
{
	unsigned long n, i;

	for (n = 0; n < ALLOC_BATCH_MAX; n++) {
		pfn[n] = ops->folio_alloc(mm, order, PK_ANON);
		if (pfn[n] < 0)
			break;
	}
	for (i = n; i-- > 0;)
		ops->folio_free(mm, (unsigned long)pfn[i]);
	return n;
}

static void alloc_cycle(struct mdb_state *st, const struct bench_env *env, unsigned int order)
{
	const struct layout_ops *ops = env->ops;
	struct memmap *mm = env->mm;
	long pfn[ALLOC_BATCH_MAX];
	unsigned long n, i;
	char msg[128];

	n = alloc_probe(mm, ops, order, pfn);
	if (!n) {
		snprintf(msg, sizeof(msg),
			 "alloc/order%u: the mix leaves no free block of order %u or above", order, order);
		mdb_skip_with_error(st, msg);
		return;
	}
	while (mdb_keep_running_batch(st, n)) {
		for (i = 0; i < n; i++)
			pfn[i] = ops->folio_alloc(mm, order, PK_ANON);
		/* Once one fails all later ones do: no free in between. */
		if (pfn[n - 1] < 0) {
			mdb_skip_with_error(st, "alloc: a block the probe freed could not be allocated again");
			return;
		}
		for (i = n; i-- > 0;)
			ops->folio_free(mm, (unsigned long)pfn[i]);
	}
	mdb_set_items_processed(st, mdb_iterations(st));
	mdb_counter(st, "batch", (double)n, MDB_COUNTER_PLAIN);
}

static void alloc_order0(struct mdb_state *st, const struct bench_env *env)
{
	alloc_cycle(st, env, 0);
}

static void alloc_order9(struct mdb_state *st, const struct bench_env *env)
{
	alloc_cycle(st, env, 9);
}

MDB_KERNEL(alloc_order0,
	   .name = "alloc/order0", .class = MDB_MUTATING, .unit = "alloc+free pair",
	   .run = alloc_order0,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 14);

MDB_KERNEL(alloc_order9,
	   .name = "alloc/order9", .class = MDB_MUTATING, .unit = "alloc+free pair",
	   .run = alloc_order9,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 10);
