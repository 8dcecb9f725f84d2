// SPDX-License-Identifier: GPL-2.0
/*
 * init_deferred.c - init/memmap-deferred: the memmap's boot, both passes,
 * in parallel chunks as deferred struct page init spreads it (a threaded
 * kernel, kernel.h; --threads).
 *
 * With CONFIG_DEFERRED_STRUCT_PAGE_INIT the kernel initialises most of the
 * memmap after SMP is up: deferred_init_memmap() (mm/mm_init.c) hands the
 * zone's pfns to padata_do_multithreaded() (kernel/padata.c): nworks =
 * min(size / PAGES_PER_SECTION, the node's CPUs) workers, the caller one of
 * them, take chunks of max(size / (4 * nworks), PAGES_PER_SECTION) pfns,
 * rounded up to sections, one after the other from a shared position under
 * a lock (padata_mt_helper(); a compare-and-exchange here), until none is
 * left; with a single worker, the whole range is one call.  Each chunk
 * (deferred_init_memmap_chunk() -> deferred_init_maxorder()) goes
 * MAX_ORDER_NR_PAGES (1024) pfns at a time: __init_single_page() on each
 * (deferred_init_pages()), then the same pfns freed (deferred_free_pages():
 * a whole aligned block to __free_pages_core() at MAX_PAGE_ORDER, a shorter
 * one page by page at order 0), every page's count back to 0 and
 * PG_reserved cleared, the block to the buddy under the zone lock
 * (__free_one_page(): the head's order, the free list).  Unlike init/memmap
 * (memmap_init_range() over everything, then memblock_free_all()), the
 * second pass finds each block's entries still in the cache.  The caller
 * waits for every worker (wait_for_completion()); here a barrier ends each
 * boot.
 *
 * One op is one pfn of a whole boot, and every thread is credited with all
 * of them, so the time per op is the boot's wall-clock time per pfn, as
 * init/memmap's is: x 262144 per GiB; items are the pfns, shared out.
 * Threads beyond nworks (small memory: 128 MiB a worker at least) wait, as
 * padata never starts them.  The first boot, untimed, drops the mix's
 * descriptors (ops->memmap_init()).  Left out, as in init/memmap:
 * set_page_links(), the pageblock migratetypes, the managed-pages counter;
 * and the node's pgdat_resize_lock, the
 * accept_memory() of a partial block, cond_resched().
 */
#include <stdio.h>

#include "buddy.h"
#include "threads.h"

#define SECTION_PFNS		(1UL << (mdb_base.section_bits - MDB_PAGE_SHIFT))	/* SECTION_SIZE_BITS: 27, 29 at 64k */
#define MAX_ORDER_PFNS		(1UL << MAX_PAGE_ORDER)
#define PADATA_LOAD_BALANCE	4

struct deferred {
	unsigned long chunk, nr_chunks;	/* padata's chunk_size, and chunks a boot has */
	unsigned int nworks;		/* threads that take chunks */
	unsigned long next;		/* chunks taken, over every boot */
	struct mdb_spin_barrier done;	/* the end of a boot: wait_for_completion() */
	struct mdb_spinlock zone_lock;
	unsigned long zone_boot;	/* the boot whose blocks the buddy holds */
	bool abort;
};

static int deferred_setup(struct bench_env *env, struct mdb_err *err)
{
	struct deferred *d = calloc(1, sizeof(*d));
	unsigned long size = env->nr_pfns, works;

	if (!d)
		return mdb_errf(err, "out of memory for the threads' state");
	env->ops->memmap_init(env->mm);
	works = size / SECTION_PFNS ? size / SECTION_PFNS : 1;
	d->nworks = works < env->threads ? (unsigned int)works : env->threads;
	if (d->nworks == 1) {
		d->chunk = size;
	} else {
		d->chunk = size / (d->nworks * PADATA_LOAD_BALANCE);
		if (d->chunk < SECTION_PFNS)
			d->chunk = SECTION_PFNS;
		d->chunk = (d->chunk + SECTION_PFNS - 1) / SECTION_PFNS * SECTION_PFNS;
	}
	d->nr_chunks = (size + d->chunk - 1) / d->chunk;
	d->zone_boot = ~0UL;
	env->shared = d;
	return 0;
}

static void deferred_teardown(struct bench_env *env)
{
	free(env->shared);
	env->shared = NULL;
}

/* __free_one_page() under the zone lock; the first free of a boot empties the free lists. */
static void zone_free(struct deferred *d, struct memmap *mm, unsigned long pfn, unsigned int order,
		      unsigned long boot)
{
	mdb_spin_lock(&d->zone_lock);
	if (d->zone_boot != boot) {
		buddy_reset(mm);
		d->zone_boot = boot;
	}
	buddy_free_one(mm, pfn, order, FPI_TO_TAIL);
	mdb_spin_unlock(&d->zone_lock);
}

/* deferred_init_maxorder(): one block's entries initialised, then freed. */
static void init_block(struct deferred *d, struct memmap *mm, unsigned long start,
		       unsigned long end, unsigned long boot)
{
	unsigned long pfn;

	for (pfn = start; pfn < end; pfn++)
		memmap_init_pfn(mm, pfn);
	for (pfn = start; pfn < end; pfn++)
		memmap_free_pfn(mm, pfn);
	if (end - start == MAX_ORDER_PFNS) {
		zone_free(d, mm, start, MAX_PAGE_ORDER, boot);
		return;
	}
	for (pfn = start; pfn < end; pfn++)
		zone_free(d, mm, pfn, 0, boot);
}

/* padata_mt_helper(): the next chunk of this boot, or false when none is left. */
static bool take_chunk(struct deferred *d, unsigned long boot, unsigned long *chunk)
{
	unsigned long limit = (boot + 1) * d->nr_chunks;
	unsigned long c = __atomic_load_n(&d->next, __ATOMIC_RELAXED);

	do {
		if (c >= limit)
			return false;
	} while (!__atomic_compare_exchange_n(&d->next, &c, c + 1, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	*chunk = c - boot * d->nr_chunks;
	return true;
}

static void init_deferred(struct mdb_state *st, const struct bench_env *env)
{
	struct deferred *d = env->shared;
	struct memmap *mm = env->mm;
	unsigned int me = mdb_thread_index(st), n = mdb_threads(st);
	unsigned long boot = 0, chunk, start, end, s, share;

	while (mdb_keep_running_batch(st, env->nr_pfns)) {
		while (me < d->nworks && take_chunk(d, boot, &chunk)) {
			start = chunk * d->chunk;
			end = start + d->chunk < env->nr_pfns ? start + d->chunk : env->nr_pfns;
			for (s = start; s < end; s += MAX_ORDER_PFNS)
				init_block(d, mm, s, s + MAX_ORDER_PFNS < end ? s + MAX_ORDER_PFNS : end,
					   boot);
		}
		if (!mdb_spin_barrier_wait(&d->done, n, &d->abort)) {
			mdb_skip_with_error(st, "init/memmap-deferred: another thread failed");
			return;
		}
		boot++;
		mdb_clobber_memory();
	}
	/* The pfns, shared out: thread 0 takes what does not divide. */
	share = env->nr_pfns / n + (me ? 0 : env->nr_pfns % n);
	mdb_set_items_processed(st, boot * share);
	if (!me)
		mdb_counter(st, "workers", d->nworks, MDB_COUNTER_PLAIN);
}

MDB_KERNEL(init_deferred,
	   .name = "init/memmap-deferred", .class = MDB_SEQUENTIAL, .unit = "pfn initialised",
	   .run = init_deferred, .flags = MDB_K_MUTATES | MDB_K_THREADED,
	   .setup = deferred_setup, .teardown = deferred_teardown,
	   .sim_ops = 1);
