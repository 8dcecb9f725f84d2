// SPDX-License-Identifier: GPL-2.0
/*
 * hugetlb.c - from a page of a hugetlb folio to its folio, and the lookup of
 * lookup/random, on hugetlb pages only.
 *
 * folio/tail-hugetlb-2m, folio/tail-hugetlb-1g (and their -dep walks): what
 * folio/tail does (page_folio() on a random tail, then folio_mapping()) on
 * the tails of 2 MiB or 1 GiB hugetlb folios, as GUP on a hugetlb VMA
 * (hugetlb_follow_page_mask(), gup_fast_pud_leaf()), memory_failure() on
 * a hugetlb pfn (get_huge_page_for_hwpoison()) and hugetlbfs's page cache
 * reach them.  page64 reads compound_head from the tail's own struct page
 * (bit 0 decides first, so the fake-head check is on a tail's path only
 * where HVO maps the folio's head page at a page-aligned tail); page64ci
 * masks the tail's address with its compound_info; page32 and memdesc8
 * follow the memdesc to the folio.  The tails of a 1 GiB folio span 16 MiB
 * of page64's memmap and 2 MiB of memdesc8's, so with HVO off (hvo:off)
 * random tails miss in cache where memdesc8's may fit.  With HVO on
 * (hvo:on, machine/hvo.h) the tails beyond a folio's first vmemmap page map
 * one shared page (page64: the folio's head page; page64ci: its order's
 * tail page, shared by every folio; page32, memdesc8: the folio's first
 * page), so they hit in cache, behind a TLB miss on the memmap's 4 KiB
 * mapping.
 *
 * lookup/random-hugetlb: lookup/random's questions (the kind, PG_dirty, the
 * reference count) on random pages of hugetlb folios of any size.
 *
 * The plan runs them only on mixes that have such folios (kernel.h, applies),
 * with HVO off and on (MDB_K_HVO).
 */
#include "walk_ops.h"

static bool has_hugetlb(const struct mix *mix, const struct layout_ops *ops)
{
	(void)ops;
	return mix_has_hugetlb(mix, 0);
}

static bool has_hugetlb_2m(const struct mix *mix, const struct layout_ops *ops)
{
	(void)ops;
	return mix_has_hugetlb(mix, HUGETLB_ORDER_PMD);
}

static bool has_hugetlb_1g(const struct mix *mix, const struct layout_ops *ops)
{
	(void)ops;
	return mix_has_hugetlb(mix, HUGETLB_ORDER_PUD);
}

#define NONE_HERE	"the mix placed no hugetlb folio of that size here"

static const struct walk_kernel tail_2m_walk = {
	.name = "folio/tail-hugetlb-2m", .select = SELECT_HUGETLB_TAIL_2M, .empty = NONE_HERE,
};

static const struct walk_kernel tail_1g_walk = {
	.name = "folio/tail-hugetlb-1g", .select = SELECT_HUGETLB_TAIL_1G, .empty = NONE_HERE,
};

static const struct walk_kernel lookup_walk = {
	.name = "lookup/random-hugetlb", .select = SELECT_HUGETLB_PAGE, .empty = NONE_HERE,
};

static void folio_tail_hugetlb_2m(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &tail_2m_walk, WALK_THROUGHPUT, tail_one);
}

static void folio_tail_hugetlb_2m_dep(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &tail_2m_walk, WALK_DEPENDENT, tail_one);
}

static void folio_tail_hugetlb_1g(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &tail_1g_walk, WALK_THROUGHPUT, tail_one);
}

static void folio_tail_hugetlb_1g_dep(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &tail_1g_walk, WALK_DEPENDENT, tail_one);
}

static void lookup_random_hugetlb(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &lookup_walk, WALK_THROUGHPUT, lookup_one);
}

MDB_KERNEL(folio_tail_hugetlb_2m,
	   .name = "folio/tail-hugetlb-2m", .class = MDB_DEPENDENT, .unit = "tail page",
	   .run = folio_tail_hugetlb_2m, .applies = has_hugetlb_2m, .flags = MDB_K_HVO,
	   .ws = MDB_WS_HUGETLB_TAILS_2M, .ws_sampled = true, .sim_ops = 1 << 16);

MDB_KERNEL(folio_tail_hugetlb_2m_dep,
	   .name = "folio/tail-hugetlb-2m-dep", .class = MDB_DEPENDENT, .unit = "tail page",
	   .run = folio_tail_hugetlb_2m_dep, .applies = has_hugetlb_2m, .flags = MDB_K_HVO,
	   .ws = MDB_WS_HUGETLB_TAILS_2M, .ws_sampled = true, .sim_ops = 1 << 16);

MDB_KERNEL(folio_tail_hugetlb_1g,
	   .name = "folio/tail-hugetlb-1g", .class = MDB_DEPENDENT, .unit = "tail page",
	   .run = folio_tail_hugetlb_1g, .applies = has_hugetlb_1g, .flags = MDB_K_HVO,
	   .ws = MDB_WS_HUGETLB_TAILS_1G, .ws_sampled = true, .sim_ops = 1 << 16);

MDB_KERNEL(folio_tail_hugetlb_1g_dep,
	   .name = "folio/tail-hugetlb-1g-dep", .class = MDB_DEPENDENT, .unit = "tail page",
	   .run = folio_tail_hugetlb_1g_dep, .applies = has_hugetlb_1g, .flags = MDB_K_HVO,
	   .ws = MDB_WS_HUGETLB_TAILS_1G, .ws_sampled = true, .sim_ops = 1 << 16);

MDB_KERNEL(lookup_random_hugetlb,
	   .name = "lookup/random-hugetlb", .class = MDB_DEPENDENT, .unit = "lookup",
	   .run = lookup_random_hugetlb, .applies = has_hugetlb, .flags = MDB_K_HVO,
	   .ws = MDB_WS_HUGETLB, .ws_sampled = true, .sim_ops = 1 << 16);
