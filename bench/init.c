// SPDX-License-Identifier: GPL-2.0
/*
 * init.c - the boot cost of the memmap, both passes (ops->memmap_init(),
 * layouts/memmap.c):
 *  - memmap_init_range() calling __init_single_page() on every pfn (zeroed,
 *    a reference count of 1, _mapcount -1, the lru list head), over the
 *    whole range first, as memmap_init() does;
 *  - memblock_free_all() -> __free_pages_memory() cutting the range into
 *    MAX_PAGE_ORDER (order-10) blocks, and __free_pages_core() on each:
 *    every page's count back to 0 and PG_reserved cleared, then
 *    __free_pages_ok() handing the block to the buddy (set_buddy_order(),
 *    the free list).
 * Left out: set_page_links() (zone, node, section in the flags), the
 * pageblock migratetype bits, the managed-pages counter, free_pages_prepare()'s
 * checks of the head, and the merging __free_one_page() tries (at boot the
 * blocks are already MAX_PAGE_ORDER).  With deferred struct page init the
 * same work moves into kthreads, chunk by chunk (the parallel variant is
 * another kernel's); it does not go away.
 *
 * An op is one pfn: a batch of nr_pfns ops is one whole boot, so the time per
 * op (and per item) is per pfn, and x 262144 is per GiB of RAM.  The first
 * boot, untimed, drops the mix's descriptors, so every timed one does the
 * same work.  No layout writes a descriptor at boot, which is the point of
 * a small struct page here.
 */
#include "kernel.h"
#include "model.h"

static void init_memmap(struct mdb_state *st, const struct bench_env *env)
{
	struct memmap *mm = env->mm;

	env->ops->memmap_init(mm);
	while (mdb_keep_running_batch(st, env->nr_pfns)) {
		env->ops->memmap_init(mm);
		mdb_clobber_memory();
	}
	mdb_set_items_processed(st, mdb_iterations(st));
}

MDB_KERNEL(init_memmap,
	   .name = "init/memmap", .class = MDB_SEQUENTIAL, .unit = "pfn initialised",
	   .run = init_memmap,
	   .flags = MDB_K_MUTATES, .sim_ops = 1, .model = model_init_memmap);
