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
 * alloc/orderN is that metadata alone; N counts 4 KiB pages (order9: a 2 MiB
 * THP), at another --base-page the same bytes (mix_order_from_4k(): order 5
 * at 64k), as the mix places its THPs.  alloc/orderN-zero also zeroes the
 * folio's data right after each allocation, as an anonymous fault's folio
 * is: post_alloc_hook() -> kernel_init_pages() -> clear_highpage() per page
 * for __GFP_ZERO, or folio_zero_user() for a THP, both clear_page() page by
 * page (data.h: the pages live in a window of real memory).  It reports the
 * metadata's share of the whole: the metadata-only cycle and the full cycle
 * timed alternately in the same run (ref.h), metadata_share =
 * metadata_ns / full_ns.  In the full cycle the zeroing evicts some of the
 * metadata's lines, so the metadata costs a little more there than alone:
 * the share is a lower bound of that whole; a whole with the fault, the
 * memcg charge, rmap and the TLB work would shrink it further (the dump
 * says what it holds: kernels[].metadata_share_of).  The buddy and pcp
 * list writes are in (layouts/buddy.h).  Left out: the zone lock and
 * watermarks, the memcg charge, page_owner and the other hooks of
 * post_alloc_hook().
 *
 * An op is one folio_alloc() plus one folio_free(); a batch allocates up to
 * ALLOC_BATCH_MAX folios and frees them in reverse, as a burst of faults and
 * an munmap() would, reusing blocks LIFO as the per-cpu lists do.
 */
#include <stdio.h>

#include "data.h"
#include "kernel.h"
#include "ref.h"

#define ALLOC_BATCH_MAX	64

#define ALLOC_SHARE_OF	"folio_alloc() + folio_free() (buddy and pcp lists, descriptor) and clear_page() of the folio; not in it: the fault entry and page-table write, the memcg charge, rmap (folio_add_new_anon_rmap()), LRU add, TLB flush at unmap"

struct alloc_cycle {
	struct memmap *mm;
	const struct layout_ops *ops;
	unsigned int order;
	unsigned long n;			/* folios a batch allocates */
	long pfn[ALLOC_BATCH_MAX];
	struct bench_data data;			/* buf NULL: metadata only */
};

/* How many folios of this order the buddy can hand out, up to the batch. */
static unsigned long alloc_probe(struct alloc_cycle *c)
{
	unsigned long n, i;

	for (n = 0; n < ALLOC_BATCH_MAX; n++) {
		c->pfn[n] = c->ops->folio_alloc(c->mm, c->order, PK_ANON);
		if (c->pfn[n] < 0)
			break;
	}
	for (i = n; i-- > 0;)
		c->ops->folio_free(c->mm, (unsigned long)c->pfn[i]);
	return n;
}

/* One batch, zeroing each folio when data is given; false if an allocation failed. */
static bool alloc_batch(struct alloc_cycle *c, const struct bench_data *data)
{
	unsigned long i;

	for (i = 0; i < c->n; i++) {
		c->pfn[i] = c->ops->folio_alloc(c->mm, c->order, PK_ANON);
		if (data && c->pfn[i] >= 0)
			bench_data_clear(data, (unsigned long)c->pfn[i], c->order);
	}
	/* Once one fails all later ones do: no free in between. */
	if (c->pfn[c->n - 1] < 0)
		return false;
	for (i = c->n; i-- > 0;)
		c->ops->folio_free(c->mm, (unsigned long)c->pfn[i]);
	return true;
}

/* ref.h's loops: 0 the metadata alone, 1 with the zeroing. */
static uint64_t alloc_ref(void *arg, unsigned int which)
{
	struct alloc_cycle *c = arg;

	alloc_batch(c, which ? &c->data : NULL);
	return c->n;
}

static void alloc_run(struct mdb_state *st, const struct bench_env *env, unsigned int order,
		      bool zero)
{
	struct alloc_cycle c = { .mm = env->mm, .ops = env->ops, .order = order };
	const struct bench_data *data = zero ? &c.data : NULL;
	char msg[128];

	c.n = alloc_probe(&c);
	if (!c.n) {
		snprintf(msg, sizeof(msg), "alloc/order%u: the mix leaves no free block of order %u "
			 "or above", order, order);
		mdb_skip_with_error(st, msg);
		return;
	}
	if (zero && bench_data_map(&c.data)) {
		mdb_skip_with_error(st, "alloc: cannot map the data window to zero");
		return;
	}
	while (mdb_keep_running_batch(st, c.n)) {
		if (!alloc_batch(&c, data)) {
			mdb_skip_with_error(st, "alloc: a block the probe freed could not be allocated again");
			goto out;
		}
	}
	mdb_set_items_processed(st, mdb_iterations(st));
	mdb_counter(st, "batch", (double)c.n, MDB_COUNTER_PLAIN);
	if (zero)
		ref_metadata_share(st, &(const struct ref_loops){ .run = alloc_ref, .arg = &c, .nr = 2 });
out:
	bench_data_unmap(&c.data);
}

static void alloc_order0(struct mdb_state *st, const struct bench_env *env)
{
	alloc_run(st, env, 0, false);
}

static void alloc_order9(struct mdb_state *st, const struct bench_env *env)
{
	alloc_run(st, env, mix_order_from_4k(9), false);
}

static void alloc_order0_zero(struct mdb_state *st, const struct bench_env *env)
{
	alloc_run(st, env, 0, true);
}

static void alloc_order9_zero(struct mdb_state *st, const struct bench_env *env)
{
	alloc_run(st, env, mix_order_from_4k(9), true);
}

MDB_KERNEL(alloc_order0,
	   .name = "alloc/order0", .class = MDB_MUTATING, .unit = "alloc+free pair",
	   .run = alloc_order0,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 14,
	   /*
	    * Allocations, not pages (rmqueue() adds 1 << order to pgalloc_*):
	    * scripts/project derives them per order.  One below PMD order
	    * (slab, page tables, mTHP, readahead folios) counts as one op: one
	    * descriptor and one pcp or buddy take; its tail entries are not
	    * charged.
	    */
	   .vmstat = MDB_VMSTAT({ "derived:alloc_order0", 1 }, { "derived:alloc_large", 1 }));

MDB_KERNEL(alloc_order9,
	   .name = "alloc/order9", .class = MDB_MUTATING, .unit = "alloc+free pair",
	   .run = alloc_order9,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 10,
	   /* do_huge_pmd_anonymous_page(), collapse_huge_page(), shmem: one PMD folio each */
	   .vmstat = MDB_VMSTAT({ "derived:alloc_order9", 1 }));

MDB_KERNEL(alloc_order0_zero,
	   .name = "alloc/order0-zero", .class = MDB_MUTATING, .unit = "alloc+zero+free",
	   .run = alloc_order0_zero, .share_of = ALLOC_SHARE_OF,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 12);

MDB_KERNEL(alloc_order9_zero,
	   .name = "alloc/order9-zero", .class = MDB_MUTATING, .unit = "alloc+zero+free",
	   .run = alloc_order9_zero, .share_of = ALLOC_SHARE_OF,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 6);
