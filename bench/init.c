// SPDX-License-Identifier: GPL-2.0
/*
 * init.c - the boot cost of the memmap: memmap_init_range() calling
 * __init_single_page() on every pfn, then memblock_free_all() handing the
 * range to the buddy in pageblocks (ops->memmap_init()).  With deferred
 * struct page init the same work moves into kthreads; it does not go away.
 *
 * An op is one pfn: a batch of nr_pfns ops is one whole boot, so the time per
 * op (and per item) is per pfn, and x 262144 is per GiB of RAM.  The first
 * boot, untimed, drops the mix's descriptors, so every timed one does the
 * same work: write every entry, then the pageblock heads.  No layout writes a descriptor at
 * boot, which is the point of a small struct page here.
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
