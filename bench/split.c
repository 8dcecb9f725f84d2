// SPDX-License-Identifier: GPL-2.0
/*
 * split.c - a PMD-sized THP split into order-0 folios, as
 * __folio_split() -> __split_folio_to_order() does for
 * split_huge_page_to_list_to_order() (deferred split under reclaim,
 * partial munmap(), migration that cannot take a THP): every tail becomes a
 * folio of its own carrying the head's flags, its mapping and index + i.
 * page64 rewrites the 512 struct pages in place; page64md, page32 and
 * memdesc8 allocate 512 small folio descriptors, point each page's memdesc
 * at its own and free the large descriptor: the split is where the memdesc
 * plan allocates most (thp_split_page counts one split).
 *
 * Here the folio is given up (folio_destroy()) and its pages made order-0
 * folios (folio_create()), so each entry is written twice where the kernel
 * writes it once: the second write hits the line the first brought in.
 * Left out: the freeze of the reference count, the rmap walk that unmaps
 * and remaps (unmap_folio(), remap_page()), the page cache's xarray split,
 * the LRU insertion of the tails (lru_add_split_folio()), memcg.
 *
 * The THPs are the mix's anon and file folios of PMD order, in random
 * order; where the mix has none, set-up allocates some.  A batch splits
 * SPLIT_BATCH of them (every one, where there are fewer), timed; the timing
 * then pauses while they are made THPs again (about 300 ns of a pause and
 * resume stay in the timed region per batch: under 1% of a split).
 */
#include <stdio.h>

#include "bench.h"

#define SPLIT_BATCH	8
#define SPLIT_SETUP_MAX	64	/* THPs set-up allocates when the mix has none */

/* The flags __split_folio_to_order() carries from the head to every new folio. */
static const enum pageflag split_flags[] = {
	PG_referenced, PG_uptodate, PG_dirty, PG_lru, PG_active, PG_swapbacked,
};
#define SPLIT_NR_FLAGS	(sizeof(split_flags) / sizeof(split_flags[0]))
_Static_assert(PG_NR_TESTED <= 32, "split_state.flags holds a bit per tested flag");

struct split_state {
	enum page_kind kind;
	uintptr_t mapping;
	unsigned long index;
	unsigned int flags;	/* 1 << pageflag of split_flags[] set on the THP */
};

/* What the split carries from folio: its kind, mapping, index and flags. */
static struct split_state split_state_of(const struct folio *folio)
{
	struct split_state s = { .kind = folio_kind(folio), .mapping = folio_mapping(folio),
				 .index = folio_index(folio) };
	unsigned int f;

	for (f = 0; f < SPLIT_NR_FLAGS; f++)
		if (folio_test_flag(folio, split_flags[f]))
			s.flags |= 1U << split_flags[f];
	return s;
}

static void split_set_state(struct folio *folio, const struct split_state *s, unsigned long i)
{
	unsigned int f;

	folio_set_mapping(folio, s->mapping, s->index + i);
	for (f = 0; f < SPLIT_NR_FLAGS; f++)
		if (s->flags & (1U << split_flags[f]))
			folio_set_flag(folio, split_flags[f]);
}

/* The THP at head split into 2^order order-0 folios; false when a descriptor was refused. */
static bool split_one(struct memmap *mm, unsigned long head, unsigned int order)
{
	struct folio *thp = page_folio(mm, pfn_to_page(mm, head)), *folio;
	struct split_state s = split_state_of(thp);
	unsigned long i;

	folio_destroy(mm, thp);
	for (i = 0; i < 1UL << order; i++) {
		folio = folio_create(mm, head + i, 0, s.kind);
		if (!folio)
			return false;
		split_set_state(folio, &s, i);
	}
	return true;
}

/* The order-0 folios at head made one THP again (collapse_huge_page()'s result), untimed. */
static bool split_undo(struct memmap *mm, unsigned long head, unsigned int order)
{
	struct split_state s = split_state_of(page_folio(mm, pfn_to_page(mm, head)));
	struct folio *thp;
	unsigned long i;

	for (i = 0; i < 1UL << order; i++)
		folio_destroy(mm, page_folio(mm, pfn_to_page(mm, head + i)));
	thp = folio_create(mm, head, order, s.kind);
	if (!thp)
		return false;
	split_set_state(thp, &s, 0);
	return true;
}

/* The THPs' heads: the mix's, else up to SPLIT_SETUP_MAX allocated. */
static int split_heads(struct pfn_list *list, const struct bench_env *env, unsigned int order)
{
	long pfn;

	if (pfn_list_folio_heads(list, env, order, BENCH_LIST_MAX))
		return -1;
	while (list->nr < SPLIT_SETUP_MAX && list->nr < env->nr_pfns >> order) {
		pfn = env->ops->folio_alloc(env->mm, order, PK_ANON);
		if (pfn < 0)
			break;
		list->pfn[list->nr++] = (uint32_t)pfn;
	}
	return 0;
}

static void split_thp(struct mdb_state *st, const struct bench_env *env)
{
	unsigned int order = mix_order_from_4k(MIX_4K_MAX_FOLIO_ORDER);
	unsigned long next = 0, first, batch, i;
	struct pfn_list list;

	if (split_heads(&list, env, order)) {
		mdb_skip_with_error(st, "split/thp: out of memory for the THP list");
		return;
	}
	if (!list.nr) {
		mdb_skip_with_error(st, "split/thp: the mix has no THP and no free block to make one");
		goto out;
	}
	/* A THP is split once a batch: a small mix may have fewer than SPLIT_BATCH. */
	batch = list.nr < SPLIT_BATCH ? list.nr : SPLIT_BATCH;
	while (mdb_keep_running_batch(st, batch)) {
		first = next;
		for (i = 0; i < batch; i++, next = bench_list_next(&list, next))
			if (!split_one(env->mm, list.pfn[next], order))
				goto refused;
		mdb_pause_timing(st);
		for (i = 0, next = first; i < batch; i++, next = bench_list_next(&list, next))
			if (!split_undo(env->mm, list.pfn[next], order))
				goto refused;
		mdb_resume_timing(st);
	}
	mdb_set_items_processed(st, mdb_iterations(st));
	mdb_counter(st, "folios_made", (double)(1UL << order), MDB_COUNTER_PLAIN);
	goto out;
refused:
	mdb_skip_with_error(st, "split/thp: a folio descriptor was refused (out of memory)");
out:
	pfn_list_release(&list);
}

MDB_KERNEL(split_thp,
	   .name = "split/thp", .class = MDB_MUTATING, .unit = "THP split",
	   .run = split_thp,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 6,
	   /* split_huge_page_to_list_to_order() counts one a split PMD folio */
	   .vmstat = MDB_VMSTAT({ "thp_split_page", 1 }));
