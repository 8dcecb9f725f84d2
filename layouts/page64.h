/* SPDX-License-Identifier: GPL-2.0 */
/*
 * page64.h - the real 64-byte struct page of Linux 6.18 on x86-64.
 *
 * Field for field what `pahole -C page /sys/kernel/btf/vmlinux` shows, and
 * struct folio, struct slab, struct ptdesc and struct zpdesc as the overlays
 * of it they are in the kernel: no descriptor is allocated anywhere, the
 * memmap is all there is (footprint = 64 bytes * nr_pfns exactly).
 * tests/test_btf.c compares these offsets with the running kernel's BTF.
 *
 * Encodings are the kernel's (kconst.h):
 *  - a tail page holds compound_head = head | 1; a head has PG_head;
 *    compound_head() is 6.18's _compound_head(), with the fake-head check
 *    page_fixed_fake_head() adds under CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP
 *    behind its static key, off until a memmap is built with HVO (hvo.h);
 *    page64ci.h is this file with the tail word and compound_head() of the
 *    compound_info series instead;
 *  - a folio's order is the low byte of the first tail's flags (_flags_1),
 *    its page count in _nr_pages, as folio_order()/folio_nr_pages() read them;
 *  - typed pages carry their type in page_type's top byte: PGTY_buddy on the
 *    head of a free block (order in page->private), PGTY_table on page
 *    tables, PGTY_slab on a slab's head, PGTY_zsmalloc on zsmalloc pages,
 *    PGTY_hugetlb on a hugetlb folio's head;
 *  - anon folios have FOLIO_MAPPING_ANON set in mapping; netmem pages have
 *    pp_magic == PP_SIGNATURE; reserved pages have PG_reserved;
 *  - _mapcount (and _large_mapcount, _entire_mapcount) store count - 1.
 * The kernel's 6.18 flags field is memdesc_flags_t, a struct around one
 * unsigned long; here it is the unsigned long itself.
 *
 * Units of the non-folio kinds: a slab and a page-pool (netmem) block are
 * compound pages, like a folio; page tables, zsmalloc pages and reserved
 * pages are each their own unit of one page, as in the kernel, whatever
 * order the mix placed them at.
 *
 * A free page that heads no block has no type, no mapping, no reference and
 * no PG_head: page_kind() reports it free, and its block is found as
 * is_free_buddy_page() finds it.  A folio whose last reference is gone looks
 * the same once its mapping is cleared, so callers free such a folio at once.
 */
#ifndef MDB_PAGE64_H
#define MDB_PAGE64_H

#include <assert.h>
#include <stddef.h>

#include "hvo.h"
#include "kconst.h"

/* The tail word: 6.18's compound_head, or what page64ci.h names it. */
#ifndef PAGE64_TAIL_WORD
#define PAGE64_TAIL_WORD	compound_head
#endif

struct page {
	unsigned long flags;
	union {
		struct {	/* page cache, anon, free (buddy) and pcp pages */
			union {
				struct list_head lru;
				struct list_head buddy_list;
				struct list_head pcp_list;
			};
			uintptr_t mapping;		/* struct address_space * */
			unsigned long __folio_index;
			unsigned long private;		/* buddy order on a free head */
		};
		struct {	/* page_pool (netmem) pages */
			unsigned long pp_magic;
			uintptr_t pp;			/* struct page_pool * */
			unsigned long _pp_mapping_pad;
			unsigned long dma_addr;
			long pp_ref_count;
		};
		struct {	/* tail pages of a compound page */
			unsigned long PAGE64_TAIL_WORD;	/* bit 0 set: a tail */
		};
	};
	union {
		unsigned int page_type;
		int _mapcount;
	};
	int _refcount;
	unsigned long memcg_data;
};

struct folio {
	union {
		struct {
			unsigned long flags;
			union {
				struct list_head lru;
				struct {
					void *__filler;
					unsigned int mlock_count;
				};
			};
			uintptr_t mapping;
			unsigned long index;
			union {
				void *private;
				unsigned long swap;
			};
			int _mapcount;
			int _refcount;
			unsigned long memcg_data;
		};
		struct page page;
	};
	union {
		struct {
			unsigned long _flags_1;		/* low byte: order */
			unsigned long _head_1;
			int _large_mapcount;
			int _nr_pages_mapped;
			int _entire_mapcount;
			int _pincount;
			int _mm_id_mapcount[2];
			unsigned long _mm_ids;
			int _mapcount_1;
			int _refcount_1;
			unsigned int _nr_pages;
		};
		struct page __page_1;
	};
	union {
		struct {
			unsigned long _flags_2;
			unsigned long _head_2;
			struct list_head _deferred_list;
		};
		struct page __page_2;
	};
	union {
		struct {
			unsigned long _flags_3;
			unsigned long _head_3;
			void *_hugetlb_subpool;
			void *_hugetlb_cgroup;
			void *_hugetlb_cgroup_rsvd;
			void *_hugetlb_hwpoison;
		};
		struct page __page_3;
	};
};

struct slab {
	unsigned long flags;
	uintptr_t slab_cache;			/* struct kmem_cache * */
	union {
		struct list_head slab_list;
		struct {
			void *next;
			int slabs;
		};
	};
	void *freelist;
	union {
		unsigned long counters;
		struct {
			unsigned int inuse:16;
			unsigned int objects:15;
			unsigned int frozen:1;
		};
	};
	unsigned int __page_type;
	int __page_refcount;
	unsigned long obj_exts;
};

struct ptdesc {
	unsigned long pt_flags;
	union {
		struct list_head pt_list;
		struct {
			unsigned long _pt_pad_1;
			uintptr_t pmd_huge_pte;
		};
	};
	unsigned long __page_mapping;
	union {
		unsigned long pt_index;
		uintptr_t pt_mm;			/* struct mm_struct * */
		int pt_frag_refcount;
	};
	union {
		unsigned long _pt_pad_2;
		unsigned int ptl;			/* spinlock_t */
	};
	unsigned int __page_type;
	int __page_refcount;
	unsigned long pt_memcg_data;
};

struct zpdesc {
	unsigned long flags;
	struct list_head lru;
	unsigned long movable_ops;
	union {
		uintptr_t next;				/* struct zpdesc * */
		unsigned long handle;
	};
	uintptr_t zspage;			/* struct zspage * */
	unsigned int first_obj_offset;		/* low 24 bits of page_type */
	int _refcount;
};

LAYOUT_OFF(page, flags, 0);
LAYOUT_OFF(page, lru, 8);
LAYOUT_OFF(page, buddy_list, 8);
LAYOUT_OFF(page, pcp_list, 8);
LAYOUT_OFF(page, mapping, 24);
LAYOUT_OFF(page, __folio_index, 32);
LAYOUT_OFF(page, private, 40);
LAYOUT_OFF(page, pp_magic, 8);
LAYOUT_OFF(page, pp, 16);
LAYOUT_OFF(page, _pp_mapping_pad, 24);
LAYOUT_OFF(page, dma_addr, 32);
LAYOUT_OFF(page, pp_ref_count, 40);
LAYOUT_OFF(page, PAGE64_TAIL_WORD, 8);
LAYOUT_OFF(page, page_type, 48);
LAYOUT_OFF(page, _mapcount, 48);
LAYOUT_OFF(page, _refcount, 52);
LAYOUT_OFF(page, memcg_data, 56);
_Static_assert(sizeof(struct page) == 64, "struct page is 64 bytes");

LAYOUT_OFF(folio, flags, 0);
LAYOUT_OFF(folio, lru, 8);
LAYOUT_OFF(folio, mlock_count, 16);
LAYOUT_OFF(folio, mapping, 24);
LAYOUT_OFF(folio, index, 32);
LAYOUT_OFF(folio, private, 40);
LAYOUT_OFF(folio, _mapcount, 48);
LAYOUT_OFF(folio, _refcount, 52);
LAYOUT_OFF(folio, memcg_data, 56);
LAYOUT_OFF(folio, _flags_1, 64);
LAYOUT_OFF(folio, _head_1, 72);
LAYOUT_OFF(folio, _large_mapcount, 80);
LAYOUT_OFF(folio, _nr_pages_mapped, 84);
LAYOUT_OFF(folio, _entire_mapcount, 88);
LAYOUT_OFF(folio, _pincount, 92);
LAYOUT_OFF(folio, _mm_id_mapcount, 96);
LAYOUT_OFF(folio, _mm_ids, 104);
LAYOUT_OFF(folio, _mapcount_1, 112);
LAYOUT_OFF(folio, _refcount_1, 116);
LAYOUT_OFF(folio, _nr_pages, 120);
LAYOUT_OFF(folio, _flags_2, 128);
LAYOUT_OFF(folio, _head_2, 136);
LAYOUT_OFF(folio, _deferred_list, 144);
LAYOUT_OFF(folio, _flags_3, 192);
LAYOUT_OFF(folio, _head_3, 200);
LAYOUT_OFF(folio, _hugetlb_subpool, 208);
LAYOUT_OFF(folio, _hugetlb_cgroup, 216);
LAYOUT_OFF(folio, _hugetlb_cgroup_rsvd, 224);
LAYOUT_OFF(folio, _hugetlb_hwpoison, 232);
_Static_assert(sizeof(struct folio) == 256, "struct folio spans 4 pages");
/* The overlays must land on the fields of the pages they overlay. */
LAYOUT_OFF(folio, page, 0);
LAYOUT_OFF(folio, __page_1, 64);
LAYOUT_OFF(folio, __page_2, 128);
LAYOUT_OFF(folio, __page_3, 192);

LAYOUT_OFF(slab, flags, 0);
LAYOUT_OFF(slab, slab_cache, 8);
LAYOUT_OFF(slab, slab_list, 16);
LAYOUT_OFF(slab, freelist, 32);
LAYOUT_OFF(slab, counters, 40);
LAYOUT_OFF(slab, __page_type, 48);
LAYOUT_OFF(slab, __page_refcount, 52);
LAYOUT_OFF(slab, obj_exts, 56);
_Static_assert(sizeof(struct slab) == 64, "struct slab overlays one page");

LAYOUT_OFF(ptdesc, pt_flags, 0);
LAYOUT_OFF(ptdesc, pt_list, 8);
LAYOUT_OFF(ptdesc, pmd_huge_pte, 16);
LAYOUT_OFF(ptdesc, __page_mapping, 24);
LAYOUT_OFF(ptdesc, pt_index, 32);
LAYOUT_OFF(ptdesc, pt_mm, 32);
LAYOUT_OFF(ptdesc, ptl, 40);
LAYOUT_OFF(ptdesc, __page_type, 48);
LAYOUT_OFF(ptdesc, __page_refcount, 52);
LAYOUT_OFF(ptdesc, pt_memcg_data, 56);
_Static_assert(sizeof(struct ptdesc) == 64, "struct ptdesc overlays one page");

LAYOUT_OFF(zpdesc, flags, 0);
LAYOUT_OFF(zpdesc, lru, 8);
LAYOUT_OFF(zpdesc, movable_ops, 24);
LAYOUT_OFF(zpdesc, next, 32);
LAYOUT_OFF(zpdesc, zspage, 40);
LAYOUT_OFF(zpdesc, first_obj_offset, 48);
LAYOUT_OFF(zpdesc, _refcount, 52);
_Static_assert(sizeof(struct zpdesc) <= sizeof(struct page), "struct zpdesc overlays one page");

/* The buddy's and the pcp's lists through page->buddy_list (lru, pcp_list). */
#include "free_list.h"

#define PAGE64_HEAD		(1UL << KPG_head)
#define PAGE64_RESERVED		(1UL << KPG_reserved)

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

/* compound_head(): below, or page64ci.h's. */
static inline struct page *page64_head(const struct page *page);
/* Whether a speculative reference may write the page's count: below, or page64ci.h's. */
static inline bool page_count_writable(const struct page *page, int u);
/* What prep_compound_tail() writes in the tail word of a 2^order folio's tails. */
static inline unsigned long page64_tail_word(const struct page *head, unsigned int order);

#ifndef PAGE64_TAIL_MASK
/*
 * page_fixed_fake_head(): with HVO on, a tail at a page-aligned vmemmap
 * address reads as its folio's head (the same physical page is mapped
 * there), PG_head and all; the real head is in the next struct page's
 * compound_head.  The static key keeps all of it out of the way while HVO
 * is off: a NOP, then the return (hvo.h).
 */
static inline const struct page *page64_fixed_fake_head(const struct page *page)
{
	if (!hvo_fake_head_key())
		return page;
	if (!((uintptr_t)page & (MDB_PAGE_SIZE - 1)) && (page->flags & PAGE64_HEAD)) {
		unsigned long head = __atomic_load_n(&page[1].compound_head, __ATOMIC_RELAXED);

		if (__builtin_expect(head & 1, 1))
			return (const struct page *)(head - 1);
	}
	return page;
}

/*
 * _compound_head() of 6.18, as compound_head() and page_folio() inline it:
 * READ_ONCE() of the tail word, so that each call loads it again, as in the
 * kernel (a lookup asking three questions reads it three times).
 */
static inline struct page *page64_head(const struct page *page)
{
	unsigned long head = __atomic_load_n(&page->compound_head, __ATOMIC_RELAXED);

	if (__builtin_expect(head & 1, 0))
		return (struct page *)(head - 1);
	return (struct page *)page64_fixed_fake_head(page);
}

/*
 * page_count_writable() of 6.18 (include/linux/page-flags.h), which
 * page_ref_add_unless(), and so folio_try_get(), asks first: with HVO on,
 * a speculative reference (GUP-fast, the page cache's lookup, a pfn
 * walker) must not write a struct page HVO mapped read-only: not one
 * whose count is u (frozen while it is remapped), not a fake head.  Behind
 * the same key as page64_fixed_fake_head(): with HVO off, nothing.
 */
static inline bool page_count_writable(const struct page *page, int u)
{
	if (!hvo_fake_head_key())
		return true;
	if (__atomic_load_n(&page->_refcount, __ATOMIC_ACQUIRE) == u)
		return false;
	return page64_fixed_fake_head(page) == page;
}

/* set_compound_head(): a pointer to the head, bit 0 set. */
static inline unsigned long page64_tail_word(const struct page *head, unsigned int order)
{
	(void)order;
	return (unsigned long)head | 1;
}
#endif /* !PAGE64_TAIL_MASK */

/* page_has_type(): a top byte of 0x80..0xfe is a type, not a mapcount. */
static inline bool page64_has_type(const struct page *page)
{
	return (int)page->page_type < (int)((unsigned int)PGTY_mapcount_underflow << 24);
}

static inline unsigned int page64_type(const struct page *page)
{
	return page->page_type >> 24;
}

/* PAGE_TYPE_OPS' PageSlab() and friends: the top byte is the type or it is not. */
static inline bool page64_is_type(const struct page *page, enum kpagetype type)
{
	return page64_type(page) == type;
}

static inline enum page_kind page64_typed_kind(const struct page *head)
{
	switch (page64_type(head)) {
	case PGTY_buddy:	return PK_FREE;
	case PGTY_table:	return PK_PGTABLE;
	case PGTY_slab:		return PK_SLAB;
	case PGTY_zsmalloc:	return PK_ZSMALLOC;
	case PGTY_hugetlb:	return PK_HUGETLB;
	default:		return PK_NR;
	}
}

/* page_pool_page_is_pp() */
static inline bool page64_is_pp(const struct page *head)
{
	return (head->pp_magic & PP_MAGIC_MASK) == PP_SIGNATURE;
}

/*
 * The tests the kernel makes, in its order: a type, the page-pool signature,
 * the anon bit, PG_reserved; what is left is a file folio unless it has no
 * trace of one (free).  All of it on the head's one cache line.
 */
static inline enum page_kind page64_kind(const struct page *page, const struct page *head)
{
	if (page64_has_type(head))
		return page64_typed_kind(head);
	if (page64_is_pp(head))
		return PK_NETMEM;
	if (head->mapping & FOLIO_MAPPING_ANON)
		return PK_ANON;
	if (head->flags & PAGE64_RESERVED)
		return PK_RESERVED;
	if (head != page || head->mapping || head->_refcount || (head->flags & PAGE64_HEAD))
		return PK_FILE;
	return PK_FREE;
}

static inline enum page_kind page_kind(const struct memmap *mm, const struct page *page)
{
	(void)mm;
	return page64_kind(page, page64_head(page));
}

static inline struct folio *page_folio(const struct memmap *mm, const struct page *page)
{
	struct page *head = page64_head(page);
	enum page_kind kind = page64_kind(page, head);

	(void)mm;
	if (!page_kind_is_folio(kind))
		return NULL;
	return (struct folio *)head;
}

static inline struct slab *page_slab(const struct memmap *mm, const struct page *page)
{
	struct page *head = page64_head(page);

	(void)mm;
	if (!page64_is_type(head, PGTY_slab))
		return NULL;
	return (struct slab *)head;
}

static inline struct ptdesc *page_ptdesc(const struct memmap *mm, const struct page *page)
{
	(void)mm;
	if (!page64_is_type(page, PGTY_table))
		return NULL;
	return (struct ptdesc *)page;
}

/* PG_reserved is PF_NO_COMPOUND (the page's own word), the rest PF_HEAD. */
static inline bool page_test_flag(const struct memmap *mm, const struct page *page,
				  enum pageflag flag)
{
	const struct page *p = flag == PG_reserved ? page : page64_head(page);

	(void)mm;
	return p->flags & kpg_mask(flag);
}

static inline int page_ref_count(const struct memmap *mm, const struct page *page)
{
	(void)mm;
	return __atomic_load_n(&page64_head(page)->_refcount, __ATOMIC_RELAXED);
}

static inline int page_buddy_order(const struct memmap *mm, const struct page *page)
{
	(void)mm;
	if (!page64_is_type(page, PGTY_buddy))
		return -1;
	return page->private;
}

static inline unsigned long page_head_pfn(const struct memmap *mm, const struct page *page,
					  unsigned int *order)
{
	const struct page *head = page64_head(page);
	int buddy = page_buddy_order(mm, head);

	/* compound_order(): folio_order() for any compound page. */
	*order = buddy >= 0 ? (unsigned int)buddy : folio_order((const struct folio *)head);
	return page_to_pfn(mm, head);
}

/* compound_order(): the head's PG_head, then the first tail's _flags_1. */
static inline unsigned int page_order_unsafe(const struct memmap *mm, const struct page *head)
{
	(void)mm;
	return folio_order((const struct folio *)head);
}

/* ------------------------------------------------------------------------ */
/* Folios. */

static inline unsigned long folio_pfn(const struct memmap *mm, const struct folio *folio)
{
	return page_to_pfn(mm, &folio->page);
}

static inline unsigned int folio_order(const struct folio *folio)
{
	if (!(folio->flags & PAGE64_HEAD))
		return 0;
	return folio->_flags_1 & 0xff;
}

static inline unsigned long folio_nr_pages(const struct folio *folio)
{
	if (!(folio->flags & PAGE64_HEAD))
		return 1;
	return folio->_nr_pages;
}

static inline int folio_mapcount(const struct folio *folio)
{
	if (!(folio->flags & PAGE64_HEAD))
		return __atomic_load_n(&folio->_mapcount, __ATOMIC_RELAXED) + 1;
	return __atomic_load_n(&folio->_large_mapcount, __ATOMIC_RELAXED) + 1;
}

/* FOLIO_TYPE_OPS(hugetlb, hugetlb): a type in the head's page_type. */
static inline bool folio_test_hugetlb(const struct folio *folio)
{
	return page64_is_type(&folio->page, PGTY_hugetlb);
}

/*
 * folio_has_pincount(): a large folio (64-bit) keeps its pins in the first
 * tail's _pincount, a line beyond the head's; a small one has no room and
 * pins with GUP_PIN_COUNTING_BIAS references.
 */
static inline int *folio_pincount_ptr(const struct folio *folio)
{
	if (!(folio->flags & PAGE64_HEAD))
		return NULL;
	return (int *)&folio->_pincount;
}

/* page_ref_add_unless() of the folio's head page asks page_count_writable() first. */
static inline bool folio_count_writable(const struct folio *folio, int u)
{
	return page_count_writable(&folio->page, u);
}

/* folio_kind(), the reference count, flags, mapping and index: plain fields. */
#include "folio_fields.h"

/*
 * A large folio is mapped whole (as by a PMD): large_folio_map() on its
 * first tail's counts; a hugetlb folio's leaves _nr_pages_mapped alone.
 */
static inline void folio_map(struct folio *folio)
{
	if (!(folio->flags & PAGE64_HEAD)) {
		__atomic_fetch_add(&folio->_mapcount, 1, __ATOMIC_RELAXED);
		return;
	}
	large_folio_map(&folio->_large_mapcount, &folio->_entire_mapcount,
			folio_test_hugetlb(folio) ? NULL : &folio->_nr_pages_mapped);
}

static inline void folio_unmap(struct folio *folio)
{
	if (!(folio->flags & PAGE64_HEAD)) {
		__atomic_fetch_sub(&folio->_mapcount, 1, __ATOMIC_RELAXED);
		return;
	}
	large_folio_unmap(&folio->_large_mapcount, &folio->_entire_mapcount,
			  folio_test_hugetlb(folio) ? NULL : &folio->_nr_pages_mapped);
}

/* ------------------------------------------------------------------------ */
/* Life cycle. */

/* No descriptor is ever allocated. */
#define LAYOUT_DESC_SIZES	{ 0 }

/* HVO of 6.18: one vmemmap page kept, the rest mapped onto it (fake heads). */
#ifndef LAYOUT_HVO
#define LAYOUT_HVO		{ .scheme = HVO_FAKE_HEAD, .reserve_pages = 1 }
#endif

/*
 * For the analytic model: the folio overlays its head entry, so the flag and
 * count a lookup reads (flags @0, _refcount @52) are on the entry's own line;
 * folio_order() of a large folio reads _flags_1 in the first tail page
 * (@64): one line beyond the head entry.  Isolating a folio reads the head
 * entry's fields, and of a large one _large_mapcount (@80, folio_mapcount())
 * and _nr_pages (@120, folio_nr_pages()) in that same first tail.
 */
#define LAYOUT_MODEL {								\
	.desc_stride = 0,							\
	.desc_stride_large = 0,							\
	.lookup = MODEL_READS(MODEL_FIELD(folio, flags), MODEL_FIELD(folio, _refcount)),	\
	.scan = MODEL_READS(MODEL_FIELD(folio, flags)),				\
	.scan_large = MODEL_READS(MODEL_FIELD(folio, _flags_1)),		\
	.isolate = MODEL_READS(MODEL_FIELD(folio, flags), MODEL_FIELD(folio, mapping),	\
			       MODEL_FIELD(folio, _mapcount), MODEL_FIELD(folio, _refcount),	\
			       MODEL_FIELD(folio, memcg_data)),			\
	.isolate_large = MODEL_READS(MODEL_FIELD(folio, _large_mapcount),	\
				     MODEL_FIELD(folio, _nr_pages)),		\
}

static inline size_t layout_block_desc_bytes(enum page_kind kind, unsigned int order)
{
	(void)kind;
	(void)order;
	return 0;
}

/*
 * __init_single_page(): zeroed (mm_zero_struct_page()), init_page_count()'s
 * reference, page_mapcount_reset(), INIT_LIST_HEAD(&page->lru).  The flags'
 * zone, node and section fields (set_page_links()) are left out: nothing
 * here reads them.
 */
static inline void memmap_init_pfn(struct memmap *mm, unsigned long pfn)
{
	struct page *page = pfn_to_page(mm, pfn);

	*page = (struct page){ ._mapcount = -1, ._refcount = 1 };
	page->lru.next = page->lru.prev = &page->lru;
}

/* __free_pages_core()'s loop: __ClearPageReserved(), set_page_count(0). */
static inline void memmap_free_pfn(struct memmap *mm, unsigned long pfn)
{
	struct page *page = pfn_to_page(mm, pfn);

	page->flags &= ~PAGE64_RESERVED;
	page->_refcount = 0;
}

/* set_buddy_order() + __SetPageBuddy(): the head only. */
static inline void buddy_set_free(struct memmap *mm, unsigned long pfn, unsigned int order)
{
	struct page *page = pfn_to_page(mm, pfn);

	page->private = order;
	page->page_type = (unsigned int)PGTY_buddy << 24;
}

/* del_page_from_free_list(): __ClearPageBuddy() (page_type back to UINT_MAX), set_page_private(0). */
static inline void buddy_clear(struct memmap *mm, unsigned long pfn)
{
	struct page *page = pfn_to_page(mm, pfn);

	page->page_type = UINT32_MAX;
	page->private = 0;
}

/*
 * prep_new_page() + prep_compound_page(): tails first (compound_head,
 * TAIL_MAPPING), then the head's second, third page fields.  head_flags
 * are the flags the head starts with.
 */
static inline struct page *page64_prep(struct memmap *mm, unsigned long pfn, unsigned int order,
				       unsigned long head_flags)
{
	struct page *head = pfn_to_page(mm, pfn);
	struct folio *folio = (struct folio *)head;
	unsigned long i, nr = 1UL << order;

	*head = (struct page){ .flags = head_flags, ._mapcount = -1, ._refcount = 1 };
	if (!order)
		return head;
	head->flags |= PAGE64_HEAD;
	for (i = 1; i < nr; i++) {
		head[i].mapping = TAIL_MAPPING;
		head[i].PAGE64_TAIL_WORD = page64_tail_word(head, order);
		head[i].private = 0;
	}
	folio->_flags_1 = order;
	folio->_large_mapcount = -1;
	folio->_nr_pages_mapped = 0;
	folio->_entire_mapcount = -1;
	folio->_pincount = 0;
	folio->_mm_id_mapcount[0] = folio->_mm_id_mapcount[1] = -1;
	folio->_mm_ids = 0;
	folio->_nr_pages = nr;
	if (order > 1)
		folio->_deferred_list.next = folio->_deferred_list.prev = &folio->_deferred_list;
	return head;
}

/* Bit 9 of _flags_1: PG_large_rmappable (= PG_workingset), anon or file THP. */
#define PAGE64_LARGE_RMAPPABLE	(1UL << KPG_workingset)

/*
 * init_new_hugetlb_folio() on a compound page prep_compound_page() made
 * (alloc_buddy_hugetlb_folio(), or the gigantic allocation): the type, an
 * empty lru, no subpool and no cgroups in the fourth page's fields.  Not
 * large-rmappable: hugetlb keeps its own rmap counts.
 */
static inline void page64_init_hugetlb(struct folio *folio)
{
	assert(folio_order(folio) >= 2);
	folio->page.page_type = (unsigned int)PGTY_hugetlb << 24;
	folio->lru.next = folio->lru.prev = &folio->lru;
	folio->_hugetlb_subpool = NULL;
	folio->_hugetlb_cgroup = NULL;
	folio->_hugetlb_cgroup_rsvd = NULL;
}

static inline struct folio *folio_create(struct memmap *mm, unsigned long pfn, unsigned int order,
					 enum page_kind kind)
{
	unsigned long flags = kind == PK_ANON ? 1UL << KPG_swapbacked : 0;
	struct folio *folio = (struct folio *)page64_prep(mm, pfn, order, flags);

	folio->mapping = mdb_new_mapping(kind);
	if (kind == PK_HUGETLB)
		page64_init_hugetlb(folio);
	else if (order)
		folio->_flags_1 |= PAGE64_LARGE_RMAPPABLE;
	return folio;
}

/* free_pages_prepare(): every tail back to a plain free page, then the head. */
static inline void folio_destroy(struct memmap *mm, struct folio *folio)
{
	struct page *head = &folio->page;
	unsigned long i, nr = folio_nr_pages(folio);

	(void)mm;
	if (nr > 1) {
		folio->_flags_1 = 0;
		folio->_nr_pages = 0;
	}
	for (i = 1; i < nr; i++) {
		head[i].PAGE64_TAIL_WORD = 0;
		head[i].mapping = 0;
		head[i].private = 0;
	}
	*head = (struct page){ ._mapcount = -1 };
}

/* What migrate_folio() carries: the API's flags, mapping, index, counts. */
static inline void folio_copy_meta(struct folio *dst, const struct folio *src)
{
	folio_copy_fields(dst, src);
	if (src->flags & PAGE64_HEAD) {
		dst->_large_mapcount = src->_large_mapcount;
		dst->_entire_mapcount = src->_entire_mapcount;
		dst->_nr_pages_mapped = src->_nr_pages_mapped;
		dst->_pincount = src->_pincount;
	}
}

/* allocate_slab(): a compound page whose head is the struct slab. */
static inline void page64_create_slab(struct memmap *mm, unsigned long pfn, unsigned int order)
{
	struct slab *slab = (struct slab *)page64_prep(mm, pfn, order, 0);

	slab->slab_cache = MDB_FAKE_SLAB_CACHE;
	slab->objects = (MDB_PAGE_SIZE << order) / 64;
	slab->__page_type = (unsigned int)PGTY_slab << 24;
}

/* page_pool_set_pp_info() on a (compound) page-pool block. */
static inline void page64_create_netmem(struct memmap *mm, unsigned long pfn, unsigned int order)
{
	struct page *page = page64_prep(mm, pfn, order, 0);

	page->pp_magic = PP_SIGNATURE;
	page->pp = MDB_FAKE_PAGE_POOL;
	page->dma_addr = pfn << MDB_PAGE_SHIFT;
	page->pp_ref_count = 1;
}

static inline void page64_create_one(struct memmap *mm, unsigned long pfn, enum page_kind kind,
				     unsigned long next_pfn)
{
	struct page *page = pfn_to_page(mm, pfn);
	struct ptdesc *pt = (struct ptdesc *)page;
	struct zpdesc *zp = (struct zpdesc *)page;

	*page = (struct page){ ._mapcount = -1, ._refcount = 1 };
	switch (kind) {
	case PK_PGTABLE:
		pt->pt_mm = MDB_FAKE_MM;
		pt->__page_type = (unsigned int)PGTY_table << 24;
		break;
	case PK_ZSMALLOC:
		/* A zspage chains its pages; the block's last page ends the chain. */
		zp->next = next_pfn ? (uintptr_t)pfn_to_page(mm, next_pfn) : 0;
		zp->zspage = MDB_FAKE_ZSPAGE;
		page->page_type = (unsigned int)PGTY_zsmalloc << 24;
		break;
	default:
		page->flags = PAGE64_RESERVED;
		break;
	}
}

static inline int desc_create(struct memmap *mm, unsigned long pfn, unsigned int order,
			      enum page_kind kind)
{
	unsigned long i, nr = 1UL << order;

	switch (kind) {
	case PK_SLAB:
		page64_create_slab(mm, pfn, order);
		return 0;
	case PK_NETMEM:
		page64_create_netmem(mm, pfn, order);
		return 0;
	case PK_PGTABLE:
	case PK_ZSMALLOC:
	case PK_RESERVED:
		for (i = 0; i < nr; i++)
			page64_create_one(mm, pfn + i, kind, i + 1 < nr ? pfn + i + 1 : 0);
		return 0;
	default:
		return -1;
	}
}

#endif /* MDB_PAGE64_H */
