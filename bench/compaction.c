// SPDX-License-Identifier: GPL-2.0
/*
 * compaction.c - compaction/cluster: one round of compact_zone() on the
 * migration side, as mm/compaction.c runs it for a THP (cc->order 9):
 *
 *  - isolate_migratepages_block() scans pfns from where the last round
 *    stopped: a free buddy block is skipped whole (PageBuddy,
 *    buddy_order_unsafe()); a large folio's compound_order() is read before
 *    any reference (page_order_unsafe(): page64 the first tail's _flags_1,
 *    the memdesc layouts the neighbouring memdescs, never the descriptor)
 *    and a folio of order 9 or more is skipped (skip_isolation_on_order());
 *    anything not on the LRU steps one pfn;
 *  - an LRU folio is taken as isolation takes it: folio_try_get(), the
 *    pinned-anon check, folio_test_lru(), folio_test_dirty(),
 *    folio_test_clear_lru(), then under the lruvec's lru_lock (taken at the
 *    first folio, held to the end of the cluster: one lruvec here)
 *    lruvec_del_folio() (list_del() of folio->lru: the LRU neighbours'
 *    links written) and list_add() to cc->migratepages, until
 *    COMPACT_CLUSTER_MAX (32) pages are isolated;
 *  - migrate_pages(): each folio off cc->migratepages, moved to a block
 *    the allocator gives (ops->folio_migrate(): the pcp's LIFO block, new
 *    descriptor, state carried, old block freed to the pcp), and put back
 *    (folio_putback_lru(): PG_lru, list_add() at the LRU's head, the
 *    isolation's reference dropped).
 *
 * The mix's anon and file folios below order 9 start on one LRU list in a
 * seeded random order (the order they were faulted in, unrelated to their
 * pfns), PG_lru set, through the layout API: the same list in every layout.
 * Left out: compaction_alloc()'s free scanner (the destination comes from
 * the allocator instead), the pageblock skip bits, the NR_ISOLATED stats,
 * the rmap walks of unmapping and remapping, the data copy, lru_add's
 * per-CPU folio batch.  An op is one cluster; counters say how many folios
 * and pfns a cluster took on average.
 */
#include <stdlib.h>

#include "bench.h"
#include "isolate.h"
#include "model.h"
#include "rng.h"
#include "spin.h"

struct lruvec {
	struct list_head list;			/* lists[LRU_INACTIVE_*]: one list here */
	struct mdb_spinlock lru_lock;
};

struct compact {
	struct memmap *mm;
	const struct layout_ops *ops;
	struct lruvec lruvec;
	unsigned long pfn;			/* where the next round scans from */
	unsigned long scanned;
};

static inline struct folio *lru_folio(const struct list_head *entry)
{
	return (struct folio *)((char *)entry - offsetof(struct folio, lru));
}

static inline void list_add_head(struct list_head *entry, struct list_head *head)
{
	struct list_head *next = head->next;

	next->prev = entry;
	entry->next = next;
	entry->prev = head;
	head->next = entry;
}

static inline void list_del_entry(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	entry->prev->next = entry->next;
	entry->next = (struct list_head *)LIST_POISON1;
	entry->prev = (struct list_head *)LIST_POISON2;
}

/* What isolation takes: an anon or file folio below the compaction order. */
static inline bool lru_candidate(const struct folio *folio)
{
	return folio_kind(folio) != PK_HUGETLB && folio_order(folio) < SCAN_COMPACT_ORDER;
}

/* The mix's LRU: its candidates, PG_lru set, linked in a seeded random order. */
static int compact_setup_lru(struct compact *c, uint64_t seed)
{
	unsigned long pfn = 0, n = 0, i, j, tmp, *heads;
	uint64_t rng = seed ^ 0x1c0ffee;
	unsigned int order;

	heads = malloc(sizeof(*heads) * (c->mm->nr_pfns + 1));
	if (!heads)
		return -1;
	while (pfn < c->mm->nr_pfns) {
		const struct page *page = pfn_to_page(c->mm, pfn);
		struct folio *folio = page_folio(c->mm, page);
		int buddy = page_buddy_order(c->mm, page);

		if (folio) {
			if (lru_candidate(folio))
				heads[n++] = pfn;
			pfn += folio_nr_pages(folio);
		} else if (buddy >= 0) {
			pfn += 1UL << buddy;
		} else {
			pfn = page_head_pfn(c->mm, page, &order);
			pfn += 1UL << order;
		}
	}
	for (i = n; i > 1; i--) {
		j = mdb_rng_below(&rng, i);
		tmp = heads[i - 1];
		heads[i - 1] = heads[j];
		heads[j] = tmp;
	}
	c->lruvec.list.next = c->lruvec.list.prev = &c->lruvec.list;
	for (i = 0; i < n; i++) {
		struct folio *folio = page_folio(c->mm, pfn_to_page(c->mm, heads[i]));

		folio_set_flag(folio, PG_lru);
		list_add_head(&folio->lru, &c->lruvec.list);
	}
	free(heads);
	return n ? 0 : 1;
}

/* isolate_migratepages_block() until a cluster is isolated; pfns scanned. */
static unsigned long isolate_cluster(struct compact *c, struct list_head *migratepages,
				     unsigned long *nr_folios)
{
	struct memmap *mm = c->mm;
	unsigned long pfn = c->pfn, scanned = 0, nr_pages = 0, step;
	struct lruvec *locked = NULL;

	while (nr_pages < COMPACT_CLUSTER_MAX && scanned < mm->nr_pfns) {
		const struct page *page = pfn_to_page(mm, pfn);
		struct folio *folio;
		int buddy = page_buddy_order(mm, page);
		uintptr_t memcg;

		step = 1;
		if (buddy >= 0) {
			step = 1UL << buddy;
		} else if ((folio = page_folio(mm, page))) {
			unsigned int order = page_order_unsafe(mm, page);

			step = 1UL << order;
			if (order < SCAN_COMPACT_ORDER && page_test_flag(mm, page, PG_lru) &&
			    isolate_take(folio)) {
				memcg = folio_memcg(folio);	/* folio_lruvec() */
				mdb_do_not_optimize(memcg);
				if (!locked) {
					mdb_spin_lock(&c->lruvec.lru_lock);
					locked = &c->lruvec;
				}
				list_del_entry(&folio->lru);		/* lruvec_del_folio() */
				list_add_head(&folio->lru, migratepages);
				nr_pages += folio_nr_pages(folio);
				(*nr_folios)++;
			}
		}
		scanned += step;
		pfn += step;
		if (pfn >= mm->nr_pfns)
			pfn = 0;
	}
	if (locked)
		mdb_spin_unlock(&locked->lru_lock);
	c->pfn = pfn;
	return scanned;
}

/* migrate_pages() on the cluster, each destination put back on the LRU. */
static void migrate_cluster(struct compact *c, struct list_head *migratepages)
{
	struct memmap *mm = c->mm;

	while (migratepages->next != migratepages) {
		struct folio *folio = lru_folio(migratepages->prev), *dst;
		long pfn;

		list_del_entry(&folio->lru);
		pfn = c->ops->folio_migrate(mm, folio_pfn(mm, folio));
		dst = pfn < 0 ? folio : page_folio(mm, pfn_to_page(mm, (unsigned long)pfn));
		/* folio_putback_lru(): folio_add_lru(), then the isolation's reference. */
		folio_set_flag(dst, PG_lru);
		mdb_spin_lock(&c->lruvec.lru_lock);
		list_add_head(&dst->lru, &c->lruvec.list);
		mdb_spin_unlock(&c->lruvec.lru_lock);
		folio_put(dst);
	}
}

static void compaction_cluster(struct mdb_state *st, const struct bench_env *env)
{
	struct compact c = { .mm = env->mm, .ops = env->ops };
	struct list_head migratepages;
	unsigned long folios = 0, clusters;
	int rc = compact_setup_lru(&c, env->seed);

	if (rc) {
		mdb_skip_with_error(st, rc < 0 ? "compaction/cluster: out of memory for the LRU" :
				    "compaction/cluster: the mix has no anon or file folio below order 9");
		return;
	}
	while (mdb_keep_running_batch(st, 1)) {
		unsigned long got = 0;

		migratepages.next = migratepages.prev = &migratepages;
		c.scanned += isolate_cluster(&c, &migratepages, &got);
		migrate_cluster(&c, &migratepages);
		folios += got;
		if (!got) {
			mdb_skip_with_error(st, "compaction/cluster: a whole pass isolated nothing");
			return;
		}
	}
	clusters = mdb_iterations(st);
	mdb_set_items_processed(st, clusters);
	mdb_counter(st, "folios", (double)folios / clusters, MDB_COUNTER_PLAIN);
	mdb_counter(st, "pfns_scanned", (double)c.scanned / clusters, MDB_COUNTER_PLAIN);
}

MDB_KERNEL(compaction_cluster,
	   .name = "compaction/cluster", .class = MDB_MUTATING, .unit = "cluster",
	   .run = compaction_cluster,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 8, .model = model_compaction_cluster);
