/* SPDX-License-Identifier: GPL-2.0 */
/*
 * walk_ops.h - the ops of the random walks that more than one file runs
 * (walk.h's walk_op): the lookup of the lookup kernels and the
 * tail-to-folio of folio/tail, which the hugetlb kernels (hugetlb.c) run on
 * hugetlb pages.
 * For files compiled once per layout.
 */
#ifndef MDB_WALK_OPS_H
#define MDB_WALK_OPS_H

#include "walk.h"

/* The lookup: the kind, PG_dirty and the reference count, summed (every load counts). */
static inline unsigned long lookup_one(const struct memmap *mm, unsigned long pfn)
{
	const struct page *page = pfn_to_page(mm, pfn);
	enum page_kind kind = page_kind(mm, page);
	bool dirty = page_test_flag(mm, page, PG_dirty);
	int ref = page_ref_count(mm, page);

	return (unsigned long)kind + dirty + (unsigned long)ref;
}

/* folio/tail: page_folio() of a tail, then the first field rmap and the page cache read. */
static inline unsigned long tail_one(const struct memmap *mm, unsigned long pfn)
{
	return folio_mapping(page_folio(mm, pfn_to_page(mm, pfn)));
}

#endif /* MDB_WALK_OPS_H */
