/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memdesc_api.h - the layout API for the layouts whose pages point at
 * separately allocated descriptors through a memdesc (page64md, page32,
 * memdesc8).
 *
 * Written once against what both have: a struct page with a `memdesc` word
 * and the descriptors of memdesc.h (struct folio, struct folio_large, ...).
 * What differs is left to the layout, which defines these before including
 * this file:
 *
 *	memdesc_page_set(page, m)		what a page holds besides m
 *	memdesc_page_flags(page)		a non-folio page's flag word
 *	memdesc_page_refcount(page)		a non-folio page's count
 *		(or MEMDESC_PAGE_WORDS: a struct page that keeps today's flags,
 *		_mapcount and _refcount words gets these three below)
 *	memdesc_page_buddy_order(page)		order of the free block it heads, or -1
 *	memdesc_page_set_buddy(page, order)	PageBuddy and the order (set_buddy_order())
 *	memdesc_page_clear_buddy(page)		neither (del_page_from_free_list())
 *	free_list_*()				the free lists' links (buddy.h)
 *
 * Every page of a block points to the block's one descriptor (a folio, a
 * slab, a bump block); page tables and zsmalloc pages have one descriptor
 * per page, as in the kernel.  A folio of order 0 has a struct folio, a
 * larger one a struct folio_large (memdesc.h): what only large folios keep
 * (their map counts) is read and written there.
 *
 * Hugetlb folios.  The Memdescs page (kernelnewbies.org/MatthewWilcox/
 * Memdescs) gives hugetlb no type of its own: its table has File (struct
 * folio), Anon, KSM, Slab, Bump, Movable, PageTable, HWPoison, PerCPU,
 * AcctMem, ZPDesc, Managed and leaves 14-15 unassigned (its 2025 revision;
 * earlier ones had NetPool for Bump), and hugetlbfs folios are page-cache folios of
 * hugetlbfs files.  So a hugetlb folio here is a file folio (tag File), a
 * struct folio_large like every folio of order >= 1 (FolioAlloc's
 * folio_large_slab), every memdesc of its 2^order pages pointing at it
 * (2 MiB of memdescs per 1 GiB folio in memdesc8), and its hugetlb fields
 * (_hugetlb_subpool, _hugetlb_cgroup, _hugetlb_cgroup_rsvd,
 * _hugetlb_hwpoison) are the large descriptor's with --large-desc=full,
 * set as init_new_hugetlb_folio() sets 6.18's fourth page (the plan's
 * large descriptor has none: memdesc.h).  What says "hugetlb":
 * 6.18 types the head page (PGTY_hugetlb in page_type, since 6.9's "mm: turn
 * folio_test_hugetlb into a PageType"); the plan's folio has no page_type,
 * and before 6.9 the mark was PG_hugetlb, a first-tail-page flag
 * (PF_SECOND, 6.6's "mm: remove HUGETLB_PAGE_DTOR").  With one descriptor
 * per folio the first tail's flags become bits of the folio's one flags
 * word (memdesc.h: "the second page's flag bits ... would be bits of
 * flags"), FolioAlloc's folio->flags: PG_hugetlb is MEMDESC_PG_HUGETLB
 * there, and PageHuge() reads the descriptor the memdesc points at.
 */
#ifndef MDB_MEMDESC_API_H
#define MDB_MEMDESC_API_H

#ifdef MEMDESC_PAGE_WORDS
/*
 * A page whose struct page still has flags, _mapcount and _refcount
 * (page32, page64md): a folio's page carries _mapcount -1
 * (page_mapcount_reset()) and leaves the count to the folio; any other page
 * is held by its allocation (count 1), a reserved one marked PG_reserved.
 */
static inline void memdesc_page_set(struct page *page, memdesc_t m)
{
	page->memdesc = m;
	if (memdesc_is_folio(m)) {
		page->_mapcount = -1;
		return;
	}
	page->_refcount = 1;
	if (memdesc_kind(m) == PK_RESERVED)
		page->flags |= 1UL << KPG_reserved;
}

static inline unsigned long memdesc_page_flags(const struct page *page)
{
	return page->flags;
}

static inline int memdesc_page_refcount(const struct page *page)
{
	return __atomic_load_n(&page->_refcount, __ATOMIC_RELAXED);
}
#endif /* MEMDESC_PAGE_WORDS */

/*
 * PG_hugetlb among the folio's flags: a bit above 6.18's PG_* bits (which
 * end below 32), below the section/node/zone fields at the top of the word.
 */
#define MEMDESC_PG_HUGETLB	(1UL << 31)
/*
 * A large descriptor with 6.18's fields after the plan's (--large-desc=full,
 * memdesc.h): the folio says which shape it has, as the second page's flag
 * bits would, so its accessors need no memmap.
 */
#define MEMDESC_PG_LARGE_FULL	(1UL << 30)

static inline bool folio_large_full(const struct folio *folio)
{
	return folio->flags & MEMDESC_PG_LARGE_FULL;
}

/* 6.8's folio_test_hugetlb(): folio_test_large() and the (former first tail's) flag. */
static inline bool folio_test_hugetlb(const struct folio *folio)
{
	return folio->flags & MEMDESC_PG_HUGETLB;
}

/* ------------------------------------------------------------------------ */
/* Lookups. */

static inline struct page *pfn_to_page(const struct memmap *mm, unsigned long pfn)
{
	return (struct page *)mm->map + pfn;
}

static inline unsigned long page_to_pfn(const struct memmap *mm, const struct page *page)
{
	return page - (const struct page *)mm->map;
}

static inline memdesc_t page_memdesc(const struct page *page)
{
	return page->memdesc;
}

static inline enum page_kind page_kind(const struct memmap *mm, const struct page *page)
{
	memdesc_t m = page_memdesc(page);

	(void)mm;
	if (memdesc_type(m) == MEMDESC_FILE && folio_test_hugetlb(memdesc_ptr(m)))
		return PK_HUGETLB;
	return memdesc_kind(m);
}

static inline struct folio *page_folio(const struct memmap *mm, const struct page *page)
{
	memdesc_t m = page_memdesc(page);

	(void)mm;
	return memdesc_is_folio(m) ? memdesc_ptr(m) : NULL;
}

static inline struct slab *page_slab(const struct memmap *mm, const struct page *page)
{
	memdesc_t m = page_memdesc(page);

	(void)mm;
	return memdesc_type(m) == MEMDESC_SLAB ? memdesc_ptr(m) : NULL;
}

static inline struct ptdesc *page_ptdesc(const struct memmap *mm, const struct page *page)
{
	memdesc_t m = page_memdesc(page);

	(void)mm;
	return memdesc_type(m) == MEMDESC_PTDESC ? memdesc_ptr(m) : NULL;
}

/*
 * Every folio descriptor has its pincount (the Path page's "pincount",
 * FolioAlloc's folio), small ones too: folio_has_pincount() always holds.
 */
static inline int *folio_pincount_ptr(const struct folio *folio)
{
	return (int *)&folio->_pincount;
}

/*
 * The count lives in the descriptor, which HVO never remaps: no check
 * (page_count_writable() guards struct pages only).
 */
static inline bool folio_count_writable(const struct folio *folio, int u)
{
	(void)folio;
	(void)u;
	return true;
}

/* folio_kind(), the reference count, flags, mapping and index: plain fields. */
#include "folio_fields.h"

/* A folio's flags are the folio's; PG_reserved, like the rest, is the page's. */
static inline bool page_test_flag(const struct memmap *mm, const struct page *page,
				  enum pageflag flag)
{
	memdesc_t m = page_memdesc(page);

	(void)mm;
	if (flag != PG_reserved && memdesc_is_folio(m))
		return folio_test_flag(memdesc_ptr(m), flag);
	return memdesc_page_flags(page) & kpg_mask(flag);
}

static inline int page_ref_count(const struct memmap *mm, const struct page *page)
{
	memdesc_t m = page_memdesc(page);

	(void)mm;
	if (memdesc_is_folio(m))
		return folio_ref_count(memdesc_ptr(m));
	return memdesc_page_refcount(page);
}

static inline int page_buddy_order(const struct memmap *mm, const struct page *page)
{
	(void)mm;
	return memdesc_page_buddy_order(page);
}

static inline unsigned long page_head_pfn(const struct memmap *mm, const struct page *page,
					  unsigned int *order)
{
	memdesc_t m = page_memdesc(page);
	const struct folio *folio;
	const struct slab *slab;
	const struct bump *bump;
	int buddy;

	switch (memdesc_type(m)) {
	case MEMDESC_FILE:
	case MEMDESC_ANON:
		folio = memdesc_ptr(m);
		*order = folio_order(folio);
		return folio->pfn;
	case MEMDESC_SLAB:
		slab = memdesc_ptr(m);
		*order = desc_flags_order(slab->flags);
		return slab->pfn;
	case MEMDESC_BUMP:
		bump = memdesc_ptr(m);
		*order = desc_flags_order(bump->flags);
		return bump->pfn;
	default:	/* one page per unit, or the head of a free block */
		buddy = memdesc_page_buddy_order(page);
		*order = buddy > 0 ? (unsigned int)buddy : 0;
		return page_to_pfn(mm, page);
	}
}

/* ------------------------------------------------------------------------ */
/* Folios: the standalone descriptor holds everything, pfn and order too. */

static inline unsigned long folio_pfn(const struct memmap *mm, const struct folio *folio)
{
	(void)mm;
	return folio->pfn;
}

static inline unsigned int folio_order(const struct folio *folio)
{
	return folio->order;
}

static inline unsigned long folio_nr_pages(const struct folio *folio)
{
	return 1UL << folio_order(folio);
}

/*
 * The first aligned neighbour whose memdesc differs ends the folio: its
 * pages all hold the one memdesc, nothing next to it can (another folio has
 * another descriptor).  log2(pages) + 1 memmap reads, no descriptor read.
 */
static inline unsigned int page_order_unsafe(const struct memmap *mm, const struct page *head)
{
	memdesc_t m = __atomic_load_n(&head->memdesc, __ATOMIC_RELAXED);
	unsigned long pfn = page_to_pfn(mm, head);
	unsigned int order = 0;

	while (order < MIX_MAX_ORDER && pfn + (1UL << order) < mm->nr_pfns &&
	       __atomic_load_n(&head[1UL << order].memdesc, __ATOMIC_RELAXED) == m)
		order++;
	return order;
}

/* The large descriptor a folio of order >= 1 is (it starts with the struct folio). */
static inline struct folio_large *folio_large(const struct folio *folio)
{
	return (struct folio_large *)folio;
}

/*
 * folio_mapcount(): _mapcount when small; when large, _large_mapcount as
 * 6.18 reads it where the descriptor has it (full), else the plan's
 * _entire_mapcount (large folios are mapped whole here: memdesc.h).
 */
static inline int folio_mapcount(const struct folio *folio)
{
	const struct folio_large *large = folio_large(folio);
	const int *count = !folio_order(folio) ? &folio->_mapcount :
			   folio_large_full(folio) ? &large->_large_mapcount : &large->_entire_mapcount;

	return __atomic_load_n(count, __ATOMIC_RELAXED) + 1;
}

/* A large folio is mapped whole (as by a PMD), its counts in the large descriptor. */
static inline void folio_map(struct folio *folio)
{
	struct folio_large *large = folio_large(folio);

	if (!folio_order(folio)) {
		__atomic_fetch_add(&folio->_mapcount, 1, __ATOMIC_RELAXED);
		return;
	}
	large_folio_map(folio_large_full(folio) ? &large->_large_mapcount : NULL,
			&large->_entire_mapcount,
			folio_test_hugetlb(folio) ? NULL : &large->_nr_pages_mapped);
}

static inline void folio_unmap(struct folio *folio)
{
	struct folio_large *large = folio_large(folio);

	if (!folio_order(folio)) {
		__atomic_fetch_sub(&folio->_mapcount, 1, __ATOMIC_RELAXED);
		return;
	}
	large_folio_unmap(folio_large_full(folio) ? &large->_large_mapcount : NULL,
			  &large->_entire_mapcount,
			  folio_test_hugetlb(folio) ? NULL : &large->_nr_pages_mapped);
}

/* ------------------------------------------------------------------------ */
/* Life cycle. */

#define LAYOUT_DESC_SIZES {							\
	[DESC_FOLIO] = sizeof(struct folio),					\
	[DESC_FOLIO_LARGE] = FOLIO_LARGE_PLAN_BYTES,				\
	[DESC_ANON] = sizeof(struct folio),					\
	[DESC_ANON_LARGE] = FOLIO_LARGE_PLAN_BYTES,				\
	[DESC_SLAB] = sizeof(struct slab),					\
	[DESC_PTDESC] = sizeof(struct ptdesc),					\
	[DESC_ZPDESC] = sizeof(struct zpdesc),					\
	[DESC_BUMP] = sizeof(struct bump),					\
}

/* HVO: a folio's entries are all the same, its first vmemmap page stays (hvo.h). */
#define LAYOUT_HVO		{ .scheme = HVO_SAME_ENTRY, .reserve_pages = 1 }

/* Descriptor bytes one block of the mix costs. */
static inline size_t layout_block_desc_bytes(enum page_kind kind, unsigned int order)
{
	switch (kind) {
	case PK_ANON:
	case PK_FILE:
	case PK_HUGETLB:	return order ? FOLIO_LARGE_PLAN_BYTES : sizeof(struct folio);
	case PK_SLAB:		return sizeof(struct slab);
	case PK_NETMEM:		return sizeof(struct bump);
	case PK_PGTABLE:	return sizeof(struct ptdesc) << order;
	case PK_ZSMALLOC:	return sizeof(struct zpdesc) << order;
	default:		return 0;
	}
}

/*
 * __init_single_page(): a memdesc has no "allocated, no descriptor" state
 * but misc memory, so boot marks every page reserved misc memory (with
 * page32's reference count and PG_reserved, as memdesc_page_set() writes
 * them), which the second pass turns into the free word: what
 * __free_pages_core()'s __ClearPageReserved() and set_page_count(0) undo.
 */
static inline void memmap_init_pfn(struct memmap *mm, unsigned long pfn)
{
	struct page *page = pfn_to_page(mm, pfn);

	*page = (struct page){ 0 };
	memdesc_page_set(page, memdesc_misc(MEMDESC_MISC_RESERVED));
}

/* Free state: a free page heading no block, nothing else set. */
static inline void memmap_free_pfn(struct memmap *mm, unsigned long pfn)
{
	*pfn_to_page(mm, pfn) = (struct page){ .memdesc = MEMDESC_FREE };
}

static inline void buddy_set_free(struct memmap *mm, unsigned long pfn, unsigned int order)
{
	memdesc_page_set_buddy(pfn_to_page(mm, pfn), order);
}

static inline void buddy_clear(struct memmap *mm, unsigned long pfn)
{
	memdesc_page_clear_buddy(pfn_to_page(mm, pfn));
}

/* Points 2^order pages from pfn at one descriptor (or one inline word). */
static inline void memdesc_set_range(struct memmap *mm, unsigned long pfn, unsigned int order,
				     memdesc_t m)
{
	struct page *page = pfn_to_page(mm, pfn);
	unsigned long i, nr = 1UL << order;

	for (i = 0; i < nr; i++)
		memdesc_page_set(&page[i], m);
}

/*
 * init_new_hugetlb_folio() on the large descriptor: the hugetlb mark, an
 * empty lru (the hstate's lists), and where the descriptor is 6.18's
 * (full) no subpool, no cgroups, no hwpoison list.
 */
static inline void memdesc_init_hugetlb(struct folio_large *large)
{
	struct folio *folio = &large->folio;

	folio->flags |= MEMDESC_PG_HUGETLB;
	folio->lru.next = folio->lru.prev = &folio->lru;
	if (!folio_large_full(folio))
		return;
	large->_hugetlb_subpool = NULL;
	large->_hugetlb_cgroup = NULL;
	large->_hugetlb_cgroup_rsvd = NULL;
	large->_hugetlb_hwpoison = NULL;
}

/*
 * The second allocation, as FolioAlloc's folio_alloc() does it: the
 * descriptor from the cache for the kind and order (fields as it sets them;
 * with --large-desc=full the rest of a large one as 6.18's
 * prep_compound_head() does), then every memdesc of the folio.
 */
static inline struct folio *folio_create(struct memmap *mm, unsigned long pfn, unsigned int order,
					 enum page_kind kind)
{
	struct folio *folio = desc_alloc(&mm->cache[folio_desc_type(kind, order)]);
	struct folio_large *large = folio_large(folio);

	if (!folio)
		return NULL;
	folio->flags = kind == PK_ANON ? 1UL << KPG_swapbacked : 0;
	folio->order = order;
	folio->mapping = mdb_new_mapping(kind);
	folio->_refcount = 1;
	folio->_mapcount = -1;
	folio->pfn = pfn;
	if (order) {
		large->_entire_mapcount = -1;
		large->_nr_pages_mapped = 0;
		large->_deferred_list.next = large->_deferred_list.prev = &large->_deferred_list;
	}
	if (order && mm->opts.large_desc == LARGE_DESC_FULL) {
		folio->flags |= MEMDESC_PG_LARGE_FULL;
		large->_large_mapcount = -1;
		large->_mm_id_mapcount[0] = large->_mm_id_mapcount[1] = -1;
	}
	if (kind == PK_HUGETLB)
		memdesc_init_hugetlb(large);
	memdesc_set_range(mm, pfn, order, memdesc_make(folio, memdesc_folio_type(kind)));
	return folio;
}

static inline void folio_destroy(struct memmap *mm, struct folio *folio)
{
	struct page *page = pfn_to_page(mm, folio->pfn);
	unsigned long i, nr = folio_nr_pages(folio);

	for (i = 0; i < nr; i++)
		page[i] = (struct page){ .memdesc = MEMDESC_FREE };
	desc_free(&mm->cache[folio_desc_type(folio_kind(folio), folio_order(folio))], folio);
}

/* What migrate_folio() carries: the common fields, the pincount, a large folio's counts. */
static inline void folio_copy_meta(struct folio *dst, const struct folio *src)
{
	const struct folio_large *from = folio_large(src);
	struct folio_large *to = folio_large(dst);

	folio_copy_fields(dst, src);
	dst->_pincount = src->_pincount;
	if (folio_order(src)) {
		to->_entire_mapcount = from->_entire_mapcount;
		to->_nr_pages_mapped = from->_nr_pages_mapped;
	}
	if (folio_order(src) && folio_large_full(src))
		to->_large_mapcount = from->_large_mapcount;
}

static inline int memdesc_create_slab(struct memmap *mm, unsigned long pfn, unsigned int order)
{
	struct slab *slab = desc_alloc(&mm->cache[DESC_SLAB]);

	if (!slab)
		return -1;
	slab->flags = desc_flags_with_order(0, order);
	slab->slab_cache = MDB_FAKE_SLAB_CACHE;
	slab->objects = (MDB_PAGE_SIZE << order) / 64;
	slab->pfn = pfn;
	memdesc_set_range(mm, pfn, order, memdesc_make(slab, MEMDESC_SLAB));
	return 0;
}

static inline int memdesc_create_bump(struct memmap *mm, unsigned long pfn, unsigned int order)
{
	struct bump *bump = desc_alloc(&mm->cache[DESC_BUMP]);

	if (!bump)
		return -1;
	bump->flags = desc_flags_with_order(0, order);
	bump->pp = MDB_FAKE_PAGE_POOL;
	bump->dma_addr = pfn << MDB_PAGE_SHIFT;
	bump->pp_ref_count = 1;
	bump->pfn = pfn;
	memdesc_set_range(mm, pfn, order, memdesc_make(bump, MEMDESC_BUMP));
	return 0;
}

static inline int memdesc_create_ptdesc(struct memmap *mm, unsigned long pfn)
{
	struct ptdesc *pt = desc_alloc(&mm->cache[DESC_PTDESC]);

	if (!pt)
		return -1;
	pt->pt_mm = MDB_FAKE_MM;
	pt->pfn = pfn;
	memdesc_page_set(pfn_to_page(mm, pfn), memdesc_make(pt, MEMDESC_PTDESC));
	return 0;
}

/* A zspage of 2^order pages, each with its zpdesc, chained through next. */
static inline int memdesc_create_zspage(struct memmap *mm, unsigned long pfn, unsigned int order)
{
	struct zpdesc *prev = NULL;
	unsigned long i;

	for (i = 0; i < 1UL << order; i++) {
		struct zpdesc *zp = desc_alloc(&mm->cache[DESC_ZPDESC]);

		if (!zp)
			return -1;
		zp->zspage = MDB_FAKE_ZSPAGE;
		zp->pfn = pfn + i;
		if (prev)
			prev->next = (uintptr_t)zp;
		memdesc_page_set(pfn_to_page(mm, pfn + i), memdesc_make(zp, MEMDESC_ZPDESC));
		prev = zp;
	}
	return 0;
}

static inline int desc_create(struct memmap *mm, unsigned long pfn, unsigned int order,
			      enum page_kind kind)
{
	unsigned long i;

	switch (kind) {
	case PK_SLAB:
		return memdesc_create_slab(mm, pfn, order);
	case PK_NETMEM:
		return memdesc_create_bump(mm, pfn, order);
	case PK_PGTABLE:
		for (i = 0; i < 1UL << order; i++)
			if (memdesc_create_ptdesc(mm, pfn + i))
				return -1;
		return 0;
	case PK_ZSMALLOC:
		return memdesc_create_zspage(mm, pfn, order);
	case PK_RESERVED:
		memdesc_set_range(mm, pfn, order, memdesc_misc(MEMDESC_MISC_RESERVED));
		return 0;
	default:
		return -1;
	}
}

#endif /* MDB_MEMDESC_API_H */
