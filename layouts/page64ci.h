/* SPDX-License-Identifier: GPL-2.0 */
/*
 * page64ci.h - page64 with compound_info: the 64-byte struct page of the
 * series "mm: Eliminate fake head pages from vmemmap optimization" (Kiryl
 * Shutsemau; v6 February 2026 on linux-mm, v7 in Andrew Morton's mm tree
 * since April 2026): "mm: rework compound_head() for power-of-2
 * sizeof(struct page)", "mm: rename the 'compound_head' field in the
 * 'struct page' to 'compound_info'", "mm: drop fake head checks", "mm:
 * remove the branch from compound_head()".
 *
 * Everything is page64's (page64.h, included below) except the tail word:
 *  - it is named compound_info and holds, for a tail of a 2^order folio,
 *    GENMASK(63, order + log2(sizeof(struct page))) | 1: a mask that, ANDed
 *    with the tail's own address, gives the head's (set_compound_head() when
 *    compound_info_has_mask(), i.e. CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP and
 *    a power-of-2 struct page).  It needs every head struct page naturally
 *    aligned to its folio's size in the vmemmap ("mm/sparse: check memmap
 *    alignment for compound_info_has_mask()"): the memmap is mapped at
 *    LAYOUT_MEMMAP_ALIGN, sizeof(struct page) << MIX_MAX_ORDER;
 *  - every tail of one order is then the same bytes whatever its folio, so
 *    HVO maps the tails of all folios of an order onto one pre-initialised
 *    page (per node in v6, per zone in v7) and the head keeps a page of its
 *    own (hvo.h, HVO_SHARED_TAIL): no fake heads, no page_fixed_fake_head(),
 *    no static key;
 *  - _compound_head() is branchless: mask = (info & 1) - 1 (all ones for a
 *    non-tail), | info, & the page's address.
 * Slabs and page-pool blocks are compound pages too and use the same mask,
 * as mm/slab.h's page_slab() does in the series.
 */
#ifndef MDB_PAGE64CI_H
#define MDB_PAGE64CI_H

#define PAGE64_TAIL_MASK
#define PAGE64_TAIL_WORD	compound_info
/* Tails shared per order, the head's page its own. */
#define LAYOUT_HVO		{ .scheme = HVO_SHARED_TAIL, .reserve_pages = 1 }
/* Heads aligned to their folio in the vmemmap, for the largest folio a mix places. */
#define LAYOUT_MEMMAP_ALIGN	(sizeof(struct page) << MIX_MAX_ORDER)
#include "page64.h"

_Static_assert(offsetof(struct page, compound_info) == 8, "page.compound_info at 8");
_Static_assert(offsetof(struct page, compound_info) == offsetof(struct page, lru),
	       "compound_info overlays lru.next: bit 0 is clear in a list pointer");
_Static_assert(offsetof(struct folio, _head_1) == sizeof(struct page) + 8,
	       "the first tail's compound_info is folio._head_1");
/* compound_info_has_mask(): the mask only works for a power-of-2 struct page. */
_Static_assert((sizeof(struct page) & (sizeof(struct page) - 1)) == 0,
	       "sizeof(struct page) is a power of 2");

/*
 * "mm: drop fake head checks": no fake heads, so page_count_writable() is
 * gone and page_ref_add_unless() writes straight away.
 */
static inline bool page_count_writable(const struct page *page, int u)
{
	(void)page;
	(void)u;
	return true;
}

/* set_compound_head(): the mask that clears the tail's offset within its folio. */
static inline unsigned long page64_tail_word(const struct page *head, unsigned int order)
{
	unsigned int shift = order + __builtin_ctzl(sizeof(struct page));

	(void)head;
	return (~0UL << shift) | 1;
}

/* _compound_head() of the series: READ_ONCE(), no branch, no fake-head check. */
static inline struct page *page64_head(const struct page *page)
{
	unsigned long info = __atomic_load_n(&page->compound_info, __ATOMIC_RELAXED);
	unsigned long mask = (info & 1) - 1;	/* non-tail: all ones; tail: 0 */

	mask |= info;				/* tail: the mask */
	return (struct page *)((unsigned long)page & mask);
}

/*
 * vmemmap_shared_tail_page() (v7, mm/sparse-vmemmap.c): the page every tail
 * vmemmap page of an order maps, each entry zeroed, _mapcount -1 and
 * prep_compound_tail() (the mask, TAIL_MAPPING, no private).  The zone and
 * node bits of flags are left out, as everywhere here.
 */
#define LAYOUT_HVO_TAIL_PAGE	page64ci_tail_page

static inline void page64ci_tail_page(struct page *page, unsigned int order)
{
	unsigned long i;

	for (i = 0; i < HVO_PAGE_SIZE / sizeof(*page); i++) {
		page[i] = (struct page){ ._mapcount = -1 };
		page[i].mapping = TAIL_MAPPING;
		page[i].compound_info = page64_tail_word(NULL, order);
		page[i].private = 0;
	}
}

#endif /* MDB_PAGE64CI_H */
