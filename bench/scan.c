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
 * of a running system is: the first call on a memmap sets PG_lru on each
 * through the layout API (the same calls in every layout), and it stays
 * set (lru_folios()).  Each scanner resumes where its last call on the
 * memmap stopped, as compaction resumes from zone->compact_cached_migrate_pfn
 * and compact_cached_free_pfn (scan_cursor()): a call starts on the pfns
 * the ring's previous lap touched longest ago, past every cache at the
 * headline size, where a start at pfn 0 would rescan what the last call
 * left warm.
 *
 * Blocks are naturally aligned, so the walk lands only on heads.  Items are
 * pfns covered, so the figure is per pfn of RAM scanned.
 *
 * scan/free: compaction's other scanner, isolate_freepages_block(), looking
 * for free pages to migrate into.  Per pfn it lands on: PageCompound() ->
 * compound_order() skips a large block whole (read as the migration scanner
 * reads it, without a reference: page_order_unsafe()); !PageBuddy() steps
 * one pfn; a buddy block's order skips it whole.  It reads no descriptor in
 * any layout: what it asks is in the memmap.  Left out: the isolation of
 * the free block it finds (__isolate_free_page()'s unlink and split_page()),
 * which is the destination migrate/order0 takes from the buddy, the zone
 * lock and the pageblock suitability checks.
 *
 * reclaim/scan: one folio of the inactive LRU's tail as shrink_lruvec()
 * scans it: isolate_lru_folios() takes it (isolate.h, the LRU list's next
 * folio known only from the last: the dependent walk over the mix's folio
 * pages in random order, bench/walk.h), shrink_folio_list() ->
 * folio_check_references() asks folio_referenced() whether any mapping
 * used it (the mapcount and mapping say whether there is an rmap to walk)
 * and reads PG_referenced, and the folio is kept: folio_putback_lru()
 * (PG_lru again, the reference dropped).  Left out: the rmap walk itself
 * (page_vma_mapped_walk() over each mapping's page table), lruvec_del_folio()'s
 * unlink, the lru_lock, writeback and the free of a reclaimed folio (the
 * free half of an alloc/order0 pair).
 */
#include "bench.h"
#include "cursor.h"
#include "isolate.h"
#include "model.h"
#include "walk.h"

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

/* Sets PG_lru on every folio of the memmap. */
static void set_lru(const struct memmap *mm, unsigned long nr_pfns)
{
	unsigned long pfn = 0;
	unsigned int order;

	while (pfn < nr_pfns) {
		const struct page *page = pfn_to_page(mm, pfn);
		struct folio *folio = page_folio(mm, page);
		int buddy = page_buddy_order(mm, page);

		if (folio) {
			folio_set_flag(folio, PG_lru);
			pfn += folio_nr_pages(folio);
		} else if (buddy >= 0) {
			pfn += 1UL << buddy;
		} else {
			pfn = page_head_pfn(mm, page, &order);
			pfn += 1UL << order;
		}
	}
}

/*
 * The memmap's folios put on the LRU, once per build (serial: no build
 * reuses one).  They stay there: besides the LRU kernels here, which leave
 * PG_lru set after each op, no kernel reads it on a shared memmap
 * (compaction/cluster, which does, builds its own).  Setting and clearing
 * it around every call walked every pfn twice a call: at the headline size
 * over a third of a quick run's measuring.
 */
static void lru_folios(const struct bench_env *env)
{
	static struct build_slots set_up;
	bool fresh;

	build_slot(&set_up, env->mm, &fresh);
	if (fresh)
		set_lru(env->mm, env->nr_pfns);
}

typedef unsigned long scan_step_fn(const struct memmap *mm, unsigned long pfn,
				   struct scan_found *found);

/*
 * A scanner's timed loop: step pfn by pfn (a block at a time) round the
 * memmap from where its last call stopped; a batch covers BENCH_BATCH pfns, a block crossing its end counts
 * in it; items are the pfns covered.  step is a constant at every call:
 * each scanner gets its own loop.
 */
static inline __attribute__((always_inline))
void scan_pfns(struct mdb_state *st, const struct bench_env *env, scan_step_fn *step,
	       struct build_slots *cursor, struct scan_found *found)
{
	unsigned long *at = scan_cursor(cursor, env->mm, env->nr_pfns);
	unsigned long pfn = *at, covered = 0, target = 0, n;

	while (mdb_keep_running_batch(st, BENCH_BATCH)) {
		target += BENCH_BATCH;
		while (covered < target) {
			n = step(env->mm, pfn, found);
			covered += n;
			pfn += n;
			if (pfn >= env->nr_pfns)
				pfn = 0;
		}
	}
	*at = pfn;
	mdb_set_items_processed(st, covered);
}

static void scan_compaction(struct mdb_state *st, const struct bench_env *env)
{
	static struct build_slots cursor;
	struct scan_found found = { 0 };

	lru_folios(env);
	scan_pfns(st, env, scan_step, &cursor, &found);
	mdb_counter(st, "free_blocks", (double)found.free_blocks, MDB_COUNTER_PER_ITEM);
	mdb_counter(st, "folios", (double)found.folios, MDB_COUNTER_PER_ITEM);
	mdb_counter(st, "isolated", (double)found.isolated, MDB_COUNTER_PER_ITEM);
	mdb_counter(st, "others", (double)found.others, MDB_COUNTER_PER_ITEM);
}

/* isolate_freepages_block()'s step from pfn: the pfns it covers. */
static inline unsigned long scan_free_step(const struct memmap *mm, unsigned long pfn,
					   struct scan_found *found)
{
	const struct page *page = pfn_to_page(mm, pfn);
	enum page_kind kind = page_kind(mm, page);
	int buddy;

	if (page_kind_is_folio(kind) || kind == PK_SLAB) {
		found->folios++;
		return 1UL << page_order_unsafe(mm, page);
	}
	buddy = page_buddy_order(mm, page);
	if (buddy < 0) {
		found->others++;
		return 1;
	}
	found->free_blocks++;
	return 1UL << buddy;
}

static void scan_free(struct mdb_state *st, const struct bench_env *env)
{
	static struct build_slots cursor;
	struct scan_found found = { 0 };

	scan_pfns(st, env, scan_free_step, &cursor, &found);
	mdb_counter(st, "free_blocks", (double)found.free_blocks, MDB_COUNTER_PER_ITEM);
	mdb_counter(st, "compound", (double)found.folios, MDB_COUNTER_PER_ITEM);
	mdb_counter(st, "others", (double)found.others, MDB_COUNTER_PER_ITEM);
}

/* reclaim/scan's op: 0 when the folio was taken, looked at and put back unreferenced. */
static inline unsigned long reclaim_one(const struct memmap *mm, unsigned long pfn)
{
	struct folio *folio = page_folio(mm, pfn_to_page(mm, pfn));
	unsigned long seen;

	if (!isolate_take(folio))
		return 1;
	seen = (unsigned long)folio_mapcount(folio) + (folio_mapping(folio) & 1) +
	       folio_test_flag(folio, PG_referenced);
	folio_set_flag(folio, PG_lru);
	folio_put(folio);
	return seen;
}

static const struct walk_kernel reclaim_walk = {
	.name = "reclaim/scan", .select = SELECT_FOLIO_PAGE, .empty = "the mix has no folio",
};

static void reclaim_scan(struct mdb_state *st, const struct bench_env *env)
{
	lru_folios(env);
	bench_walk(st, env, &reclaim_walk, WALK_DEPENDENT, reclaim_one);
}

MDB_KERNEL(scan_compaction,
	   .name = "scan/compaction", .class = MDB_SEQUENTIAL, .unit = "pfn scanned",
	   .run = scan_compaction,
	   .sim_ops = 1 << 18, .model = model_scan_compaction,
	   /* isolate_migratepages_block(): nr_scanned, the pfns it covered */
	   .vmstat = MDB_VMSTAT({ "compact_migrate_scanned", 1 }));

MDB_KERNEL(scan_free,
	   .name = "scan/free", .class = MDB_SEQUENTIAL, .unit = "pfn scanned",
	   .run = scan_free, .flags = MDB_K_NOT_HEADLINE, .sim_ops = 1 << 18,
	   /* isolate_freepages_block(): nr_scanned, the pfns it covered */
	   .vmstat = MDB_VMSTAT({ "compact_free_scanned", 1 }));

MDB_KERNEL(reclaim_scan,
	   .name = "reclaim/scan", .class = MDB_DEPENDENT, .unit = "folio scanned",
	   .run = reclaim_scan, .flags = MDB_K_NOT_HEADLINE,
	   .ws = MDB_WS_FOLIOS, .ws_sampled = true, .sim_ops = 1 << 16,
	   /*
	    * shrink_inactive_list(): pgscan_{kswapd,direct,khugepaged} count the
	    * pages isolate_lru_folios() took (a large folio's pages: an upper
	    * bound on folios); pgsteal_* the reclaimed among them, whose free
	    * is alloc/order0's half.
	    */
	   .vmstat = MDB_VMSTAT({ "pgscan_kswapd", 1 }, { "pgscan_direct", 1 },
				{ "pgscan_khugepaged", 1 }));
