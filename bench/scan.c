// SPDX-License-Identifier: GPL-2.0
/*
 * scan.c - a pfn walk as compaction's isolate_migratepages_block() does it.
 *
 * For each pfn: a free buddy block is skipped whole by its order
 * (buddy_order_unsafe()); a folio is skipped by folio_nr_pages(); anything
 * else (slab, page table, reserved ...) steps one pfn.  Blocks are naturally
 * aligned, so the walk lands only on heads.  It touches one memmap entry per
 * block, plus wherever the layout keeps a folio's order; so the layouts part
 * most where folios are large and the memmap entry alone cannot say how far
 * to skip.  Items are pfns covered, so the figure is per pfn of RAM scanned.
 */
#include "bench.h"
#include "model.h"

struct scan_found {
	unsigned long free_blocks, folios, others;
};

static inline unsigned long scan_step(const struct memmap *mm, unsigned long pfn,
				      struct scan_found *found)
{
	const struct page *page = pfn_to_page(mm, pfn);
	const struct folio *folio;
	int order = page_buddy_order(mm, page);

	if (order >= 0) {
		found->free_blocks++;
		return 1UL << order;
	}
	folio = page_folio(mm, page);
	if (folio) {
		found->folios++;
		return folio_nr_pages(folio);
	}
	found->others++;
	return 1;
}

static void scan_compaction(struct mdb_state *st, const struct bench_env *env)
{
	const struct memmap *mm = env->mm;
	struct scan_found found = { 0 };
	unsigned long pfn = 0, covered = 0, target = 0, step;

	/* A batch covers BENCH_BATCH pfns; a block crossing its end counts in it. */
	while (mdb_keep_running_batch(st, BENCH_BATCH)) {
		target += BENCH_BATCH;
		while (covered < target) {
			step = scan_step(mm, pfn, &found);
			covered += step;
			pfn += step;
			if (pfn >= env->nr_pfns)
				pfn = 0;
		}
	}
	mdb_set_items_processed(st, covered);
	mdb_counter(st, "free_blocks", (double)found.free_blocks, MDB_COUNTER_PER_ITEM);
	mdb_counter(st, "folios", (double)found.folios, MDB_COUNTER_PER_ITEM);
	mdb_counter(st, "others", (double)found.others, MDB_COUNTER_PER_ITEM);
}

MDB_KERNEL(scan_compaction,
	   .name = "scan/compaction", .class = MDB_SEQUENTIAL, .unit = "pfn scanned",
	   .run = scan_compaction,
	   .sim_ops = 1 << 18, .model = model_scan_compaction);
