// SPDX-License-Identifier: GPL-2.0
/*
 * folio.c - from a page to its folio, and the folio's reference count.
 *
 * folio/tail: page_folio() on a tail page, then one folio field
 * (folio_mapping(), as rmap and the page cache read it next).  page64 reads
 * compound_head from the tail's own struct page and lands on the head; page32
 * and memdesc8 follow the memdesc to a separate descriptor.  Random tails, so
 * each op pays the tail's line and the folio's line.
 *
 * folio/getput: the reference GUP-fast takes and drops on the folio of a
 * random folio page: try_get_folio() (mm/gup.c, what try_grab_folio_fast()
 * does for FOLL_GET), then folio_put() (gup_put_folio()).  Left out: the
 * PTE re-read after the grab (gup_fast_pte_range() compares the PTE with
 * the one it started from: there are no page tables here), FOLL_PIN's
 * pincount, and the pgmap/p2pdma checks.  filemap_get_entry() takes its
 * reference the same way, re-checking the xarray slot instead of the page.
 *
 * Each in three walks (bench/walk.h): throughput, -dep and -cold.
 */
#include "walk_ops.h"

/*
 * try_get_folio(): the page's folio; a reference unless the count is 0
 * (folio_ref_try_add(): read, compare-and-exchange until it holds), and the
 * count must not be negative (the kernel WARNs); then, the folio now held,
 * the page must still belong to it (it may have been split or freed and
 * reused between the two): if not, drop the reference and start again.
 */
static inline struct folio *try_get_folio(const struct memmap *mm, const struct page *page)
{
	struct folio *folio;

retry:
	folio = page_folio(mm, page);
	if (!folio || folio_ref_count(folio) < 0)
		return NULL;
	if (!folio_try_get(folio))
		return NULL;
	/* The acquire in folio_try_get() makes this a fresh read of the memdesc. */
	if (page_folio(mm, page) != folio) {
		folio_put(folio);
		goto retry;
	}
	return folio;
}

/* 0 when both hold and the put was not the last (the mix holds a reference). */
static inline unsigned long getput_one(const struct memmap *mm, unsigned long pfn)
{
	struct folio *folio = try_get_folio(mm, pfn_to_page(mm, pfn));

	if (!folio)
		return 1;
	return folio_put(folio);
}

static const struct walk_kernel tail_walk = {
	.name = "folio/tail", .select = SELECT_FOLIO_TAIL,
	.empty = "the mix has no large folio, so no tail page",
};

static const struct walk_kernel getput_walk = {
	.name = "folio/getput", .select = SELECT_FOLIO_PAGE, .empty = "the mix has no folio",
};

static void folio_tail(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &tail_walk, WALK_THROUGHPUT, tail_one);
}

static void folio_tail_dep(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &tail_walk, WALK_DEPENDENT, tail_one);
}

static void folio_tail_cold(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &tail_walk, WALK_COLD, tail_one);
}

static void folio_getput(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &getput_walk, WALK_THROUGHPUT, getput_one);
}

static void folio_getput_dep(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &getput_walk, WALK_DEPENDENT, getput_one);
}

static void folio_getput_cold(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &getput_walk, WALK_COLD, getput_one);
}

MDB_KERNEL(folio_tail,
	   .name = "folio/tail", .class = MDB_DEPENDENT, .unit = "tail page",
	   .run = folio_tail,
	   .sim_ops = 1 << 16);

MDB_KERNEL(folio_tail_dep,
	   .name = "folio/tail-dep", .class = MDB_DEPENDENT, .unit = "tail page",
	   .run = folio_tail_dep,
	   .sim_ops = 1 << 16);

MDB_KERNEL(folio_tail_cold,
	   .name = "folio/tail-cold", .class = MDB_DEPENDENT, .unit = "tail page",
	   .run = folio_tail_cold,
	   .sim_ops = 1 << 10);

MDB_KERNEL(folio_getput,
	   .name = "folio/getput", .class = MDB_DEPENDENT, .unit = "get+put pair",
	   .run = folio_getput,
	   .sim_ops = 1 << 16);

MDB_KERNEL(folio_getput_dep,
	   .name = "folio/getput-dep", .class = MDB_DEPENDENT, .unit = "get+put pair",
	   .run = folio_getput_dep,
	   .sim_ops = 1 << 16);

MDB_KERNEL(folio_getput_cold,
	   .name = "folio/getput-cold", .class = MDB_DEPENDENT, .unit = "get+put pair",
	   .run = folio_getput_cold,
	   .sim_ops = 1 << 10);
