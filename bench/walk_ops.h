/* SPDX-License-Identifier: GPL-2.0 */
/*
 * walk_ops.h - the ops that more than one file runs (walk.h's walk_op): the
 * lookup of the lookup kernels and the tail-to-folio of folio/tail, which
 * the hugetlb kernels (hugetlb.c) run on hugetlb pages, and the reference
 * GUP-fast takes and drops (folio/getput), which the threaded kernels
 * (parallel.c) run on several CPUs at once.
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

/*
 * folio/getput-pin: pin_user_pages_fast()'s grab of one page and
 * unpin_user_page(): try_get_folio(), then try_grab_folio_fast()'s FOLL_PIN
 * part (folio_pin(): page64 writes a large folio's first-tail _pincount,
 * or a small one's refcount again with the bias; the memdesc layouts the
 * descriptor's pincount), then gup_put_folio(FOLL_PIN).
 */
static inline unsigned long getpin_one(const struct memmap *mm, unsigned long pfn)
{
	struct folio *folio = try_get_folio(mm, pfn_to_page(mm, pfn));

	if (!folio)
		return 1;
	folio_pin(folio);
	return folio_unpin(folio);
}

#endif /* MDB_WALK_OPS_H */
