// SPDX-License-Identifier: GPL-2.0
/*
 * scan.c - the migration scanner of compaction: isolate_migratepages_block()
 * walking pfns for a THP-sized compaction (cc->order = SCAN_COMPACT_ORDER).
 *
 * For each pfn it lands on:
 *  - a free buddy block is skipped whole (PageBuddy(), buddy_order_unsafe());
 *  - a folio of SCAN_COMPACT_ORDER or more is skipped whole (PageCompound(),
 *    compound_order(), skip_isolation_on_order());
 *  - a smaller folio on the LRU is taken as isolation takes it: PageLRU(),
 *    folio_get_nontail_page() (a reference unless the count is 0: the
 *    layout's folio_try_get()), folio_mapping() with the pinned-anon check
 *    (folio_ref_count() - 1 > folio_mapcount()), folio_test_lru(),
 *    folio_test_dirty(), folio_test_clear_lru(), folio_lruvec()'s read of
 *    the memcg (folio_memcg()), folio_nr_pages();
 *  - anything else (slab, page table, reserved ...) steps one pfn.
 * Nothing here migrates, so every folio taken is put back at once as the
 * function's own "became large under us" path does (folio_set_lru(),
 * folio_put()), and the next pass finds the machine as it was.  Left out:
 * the lru_lock, lruvec_del_folio() (the unlink writes the LRU neighbours'
 * pointers), the NR_ISOLATED counters, the list_add() to cc->migratepages,
 * the pageblock skip bits, PG_unevictable and PG_writeback (bits of the
 * flags word it reads anyway) and the pageblock-by-pageblock outer loop.
 *
 * The mix's folios are made LRU folios, as nearly every anon and file folio
 * of a running system is: set-up sets PG_lru on each through the layout API
 * (the same calls in every layout), and the kernel clears it again when it
 * is done, so the shared memmap is left as it was found.
 *
 * Blocks are naturally aligned, so the walk lands only on heads.  Items are
 * pfns covered, so the figure is per pfn of RAM scanned.
 */
#include "bench.h"
#include "isolate.h"
#include "model.h"

struct scan_found {
	unsigned long free_blocks, folios, isolated, others;
};

/*
 * Takes the folio as isolation would (isolate.h) and puts it back; false
 * where isolation would have given up (not on the LRU, freed, pinned).
 */
static inline bool scan_isolate(const struct memmap *mm, const struct page *page,
				struct folio *folio)
{
	uintptr_t memcg;

	if (!page_test_flag(mm, page, PG_lru) || !isolate_take(folio))
		return false;
	memcg = folio_memcg(folio);
	mdb_do_not_optimize(memcg);
	folio_set_flag(folio, PG_lru);
	folio_put(folio);
	return true;
}

static inline unsigned long scan_step(const struct memmap *mm, unsigned long pfn,
				      struct scan_found *found)
{
	const struct page *page = pfn_to_page(mm, pfn);
	struct folio *folio;
	unsigned int order;
	int buddy = page_buddy_order(mm, page);

	if (buddy >= 0) {
		found->free_blocks++;
		return 1UL << buddy;
	}
	folio = page_folio(mm, page);
	if (!folio) {
		found->others++;
		return 1;
	}
	found->folios++;
	order = folio_order(folio);
	if (order >= SCAN_COMPACT_ORDER)
		return 1UL << order;
	found->isolated += scan_isolate(mm, page, folio);
	return folio_nr_pages(folio);
}

/* Sets (or clears) PG_lru on every folio of the memmap; how many. */
static unsigned long scan_set_lru(const struct memmap *mm, unsigned long nr_pfns, bool lru)
{
	unsigned long pfn = 0, n = 0;
	unsigned int order;

	while (pfn < nr_pfns) {
		const struct page *page = pfn_to_page(mm, pfn);
		struct folio *folio = page_folio(mm, page);
		int buddy = page_buddy_order(mm, page);

		if (folio && lru)
			folio_set_flag(folio, PG_lru);
		else if (folio)
			folio_clear_flag(folio, PG_lru);
		n += folio != NULL;
		if (folio) {
			pfn += folio_nr_pages(folio);
		} else if (buddy >= 0) {
			pfn += 1UL << buddy;
		} else {
			pfn = page_head_pfn(mm, page, &order);
			pfn += 1UL << order;
		}
	}
	return n;
}

static void scan_compaction(struct mdb_state *st, const struct bench_env *env)
{
	const struct memmap *mm = env->mm;
	struct scan_found found = { 0 };
	unsigned long pfn = 0, covered = 0, target = 0, step;

	scan_set_lru(mm, env->nr_pfns, true);
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
	scan_set_lru(mm, env->nr_pfns, false);
	mdb_set_items_processed(st, covered);
	mdb_counter(st, "free_blocks", (double)found.free_blocks, MDB_COUNTER_PER_ITEM);
	mdb_counter(st, "folios", (double)found.folios, MDB_COUNTER_PER_ITEM);
	mdb_counter(st, "isolated", (double)found.isolated, MDB_COUNTER_PER_ITEM);
	mdb_counter(st, "others", (double)found.others, MDB_COUNTER_PER_ITEM);
}

MDB_KERNEL(scan_compaction,
	   .name = "scan/compaction", .class = MDB_SEQUENTIAL, .unit = "pfn scanned",
	   .run = scan_compaction,
	   .sim_ops = 1 << 18, .model = model_scan_compaction,
	   /* isolate_migratepages_block(), isolate_freepages_block(): per pfn looked at */
	   .vmstat = MDB_VMSTAT({ "compact_migrate_scanned", 1 }, { "compact_free_scanned", 1 }));
