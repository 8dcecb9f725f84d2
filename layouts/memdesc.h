/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memdesc.h - the memdesc_t word and the descriptors it points at, shared by
 * page64md (where it is page->compound_head), page32 (page->memdesc) and
 * memdesc8 (the whole struct page).  Written once so the layouts read and
 * write the same encoding; only what surrounds the word, and the tag numbers the word's
 * position forces, differ.
 *
 * The tag.  A memdesc is one unsigned long whose bits 0-3 are a type tag;
 * the rest is a pointer to a descriptor or inline data.  Four bits, because
 * "all structs pointed to from a memdesc must be allocated from a slab which
 * has its alignment set to 16 bytes (in order to allow the bottom 4 bits to
 * be used for the type)" (kernelnewbies.org/MatthewWilcox/Memdescs): an
 * 8-byte aligned pointer alone would leave only bits 0-2 free.  Every
 * descriptor here comes from a DESC_ALIGN (16) aligned cache, so bits 0-3
 * of its address are zero and hold the tag.
 *
 * memdesc8 numbers the tags as the current Memdescs page does:
 *
 *	tag	type		rest of the word		here
 *	0	misc		inline: subtype 4-10, bit 11	reserved pages (subtype 0,
 *				mappable, order 12-17		PageReserved)
 *	1	buddy		embedded struct buddy		free pages: order and the
 *								free-list links (memdesc8.h)
 *	2	file		struct folio *			file folios
 *	3	anon		struct anon_folio *		anon folios (a struct folio here)
 *	4	KSM		struct ksm *			-
 *	5	slab		struct slab *			slabs
 *	6	movable		struct movable *		zsmalloc (a movable_ops user)
 *	7	page table	struct ptdesc *			page tables
 *	8	netpool		struct netpool *		page-pool (netmem) pages
 *	9	hwpoison	10 percpu	11-15 unassigned	-
 *
 * page32 is the interim step of kernelnewbies.org/MatthewWilcox/Memdescs/Path,
 * whose memdesc overlaps buddy_list.next: a free page's word is a list
 * pointer, and the tags a list pointer can show must all mean "buddy".  The
 * Path page reserves 0, 4, 8 and 12 for that, which assumes 4-byte aligned
 * pointers.  buddy_list.next points at another page's buddy_list (offset 8
 * of a 32-byte entry in a 32-byte aligned memmap: low bits 1000) or at a
 * free area's list head (8-byte aligned): bits 0-2 are always zero, bit 3
 * either, so exactly tags 0 and 8 alias and 4 and 12 are free.  page32
 * therefore keeps the current page's numbers where they do not collide:
 *
 *	0, 8	buddy (the aliases: a free page's buddy_list.next, page32.h)
 *	1	misc (as on the Path page; 0 is buddy)	2 file	3 anon	4 KSM
 *	5 slab	6 movable (zsmalloc)	7 page table
 *	12	netpool, displaced from 8 (a buddy alias) to a tag no revision of
 *		the plan assigns
 *
 * A layout says which numbering it uses by defining MEMDESC_BUDDY_ALIASES
 * (page64md, page32: the word overlaps buddy_list.next in both) or not (memdesc8) before including this file.  Anon and file
 * folios have tags 2 and 3 in both, so page_kind() needs no load beyond the
 * memdesc and "is a folio" is one masked compare.
 *
 * Free pages: the buddy's free lists run through the memmap (buddy.h).
 * page32 links them with buddy_list, which the memdesc overlaps; memdesc8
 * keeps the order and pfn links inline in the buddy memdesc (memdesc8.h).
 * Every free page that heads no block holds the bare buddy tag
 * (MEMDESC_FREE) or, on a list, a link; a free page inside a block finds
 * its head as the kernel's is_free_buddy_page() does, by trying each
 * aligned candidate.
 *
 * Include only from a layout header (via layout.h).
 */
#ifndef MDB_MEMDESC_H
#define MDB_MEMDESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef MDB_LAYOUT_H
#error "include layout.h, not memdesc.h"
#endif

#include "kconst.h"

typedef uintptr_t memdesc_t;

enum memdesc_type {
	MEMDESC_FILE = 2,
	MEMDESC_ANON = 3,
	MEMDESC_KSM = 4,
	MEMDESC_SLAB = 5,
	MEMDESC_MOVABLE = 6,
	MEMDESC_PTDESC = 7,
#ifdef MEMDESC_BUDDY_ALIASES		/* the Path page's interim numbering, aliases fixed */
	MEMDESC_BUDDY = 0,
	MEMDESC_MISC = 1,
	MEMDESC_BUDDY_ALIAS = 8,
	MEMDESC_NETMEM = 12,
#else					/* the Memdescs page's */
	MEMDESC_MISC = 0,
	MEMDESC_BUDDY = 1,
	MEMDESC_NETMEM = 8,
#endif
};

#ifdef MEMDESC_BUDDY_ALIASES
#define MEMDESC_BUDDY_MASK	0x7UL	/* a list pointer: bits 0-2 clear */
#else
#define MEMDESC_BUDDY_MASK	0xfUL
#endif

#define MEMDESC_TYPE_MASK	0xfUL
#define MEMDESC_SUBTYPE_SHIFT	4
#define MEMDESC_SUBTYPE_MASK	(0x7fUL << MEMDESC_SUBTYPE_SHIFT)

/* A free page that heads no block; also what boot leaves in every entry. */
#define MEMDESC_FREE		((memdesc_t)MEMDESC_BUDDY)

enum memdesc_misc {
	MEMDESC_MISC_RESERVED = 0,
};

_Static_assert(DESC_ALIGN == 16, "the tag needs the 4 low bits of a descriptor pointer");
_Static_assert(MEMDESC_FILE == 2 && MEMDESC_ANON == 3, "memdesc_is_folio() tests tags 2 and 3");


static inline unsigned int memdesc_type(memdesc_t m)
{
	return m & MEMDESC_TYPE_MASK;
}

static inline bool memdesc_is_buddy(memdesc_t m)
{
	return (m & MEMDESC_BUDDY_MASK) == MEMDESC_BUDDY;
}

/* Tags 2 and 3: one test for "is a folio", either kind. */
static inline bool memdesc_is_folio(memdesc_t m)
{
	return (m & 0xe) == MEMDESC_FILE;
}

static inline void *memdesc_ptr(memdesc_t m)
{
	return (void *)(m & ~MEMDESC_TYPE_MASK);
}

static inline memdesc_t memdesc_make(const void *desc, enum memdesc_type type)
{
	return (memdesc_t)desc | type;
}

static inline memdesc_t memdesc_misc(enum memdesc_misc subtype)
{
	return MEMDESC_MISC | ((memdesc_t)subtype << MEMDESC_SUBTYPE_SHIFT);
}

static inline enum memdesc_misc memdesc_misc_subtype(memdesc_t m)
{
	return (m & MEMDESC_SUBTYPE_MASK) >> MEMDESC_SUBTYPE_SHIFT;
}

static inline memdesc_t memdesc_folio_type(enum page_kind kind)
{
	return kind == PK_ANON ? MEMDESC_ANON : MEMDESC_FILE;
}

/* Tag -> kind in one indexed load, tags in enum memdesc_type order; PK_NR: unused tags. */
static inline enum page_kind memdesc_kind(memdesc_t m)
{
	static const unsigned char kind[16] = {
#ifdef MEMDESC_BUDDY_ALIASES
		PK_FREE, PK_RESERVED, PK_FILE, PK_ANON, PK_NR, PK_SLAB, PK_ZSMALLOC, PK_PGTABLE,
		PK_FREE, PK_NR, PK_NR, PK_NR, PK_NETMEM, PK_NR, PK_NR, PK_NR,
#else
		PK_RESERVED, PK_FREE, PK_FILE, PK_ANON, PK_NR, PK_SLAB, PK_ZSMALLOC, PK_PGTABLE,
		PK_NETMEM, PK_NR, PK_NR, PK_NR, PK_NR, PK_NR, PK_NR, PK_NR,
#endif
	};
	return kind[memdesc_type(m)];
}

/* ------------------------------------------------------------------------ */
/*
 * The folio descriptors, as the plan sizes them.  A small folio (order 0)
 * is a struct folio from its own cache; a large one is a struct folio_large
 * from another (kernelnewbies.org/MatthewWilcox/FolioAlloc: "folio_slab =
 * order > 0 ? folio_large_slab : folio_small_slab"), which starts with the
 * small folio's fields, so every memdesc points at a struct folio either
 * way and folio_order() says which it is.  Field by field, with where the
 * plan puts each and where today's (6.18) struct folio keeps it:
 *
 *	struct folio				offset	size
 *	flags		the Path page's folio	0	8	6.18: page 0 (memdesc_flags_t)
 *	lru		Path			8	16	page 0
 *	mapping		Path; FOLIO_MAPPING_ANON 24	8	page 0
 *			on anon folios, as today
 *	index		Path			32	8	page 0
 *	private/swap	Path ("void *private"),	40	8	page 0
 *			the swap entry of anon
 *	_refcount	Path			48	4	page 0
 *	_mapcount	Path: the folio's one	52	4	page 0 (order 0), _large_mapcount
 *			mapcount when small				for large ones
 *	_pincount	Path ("pincount"),	56	4	page 1 (large folios only; small
 *			FolioAlloc sets it				ones pin with a refcount bias)
 *	order		Path, FolioAlloc	60	1	page 1 (_flags_1 low byte)
 *	(3 bytes the Path page leaves free)	61	3
 *	pfn		Path, FolioAlloc: nothing 64	8	implied by the address
 *			else leads back to the memory
 *	memcg_data	Path ("memcg"), FolioAlloc 72	8	page 0
 *							80 bytes
 *
 *	struct folio_large: struct folio, then what FolioAlloc initialises for
 *	order > 0 and what 6.18 keeps in a large folio's tail pages
 *	_large_mapcount				80	4	page 1
 *	_entire_mapcount	FolioAlloc	84	4	page 1
 *	_nr_pages_mapped	FolioAlloc	88	4	page 1 (CONFIG_PAGE_MAPCOUNT)
 *	_mm_id_mapcount[2]			92	8	page 1 (CONFIG_MM_ID)
 *	(4 bytes)				100	4
 *	_mm_ids					104	8	page 1 (CONFIG_MM_ID)
 *	_deferred_list	FolioAlloc		112	16	page 2
 *			("_deferred_split_list")
 *	_hugetlb_subpool, _hugetlb_cgroup,	128	32	page 3
 *	_hugetlb_cgroup_rsvd, _hugetlb_hwpoison
 *							160 bytes
 *
 * Left out: the second page's flag bits (PG_large_rmappable,
 * PG_partially_mapped, ...), which would be bits of flags; _nr_pages, which
 * the order gives.  The plan does not say whether hugetlb folios get a type
 * of their own; here every large folio pays for hugetlb's fields as every
 * folio of order >= 2 does today.  Both layouts use these structs: the Path
 * page's folio is the only one the plan has drawn, and the final Memdescs
 * page keeps its fields (memcg and pincount included).
 */
struct folio {
	unsigned long flags;
	struct list_head lru;
	uintptr_t mapping;
	unsigned long index;
	union {
		void *private;
		unsigned long swap;
	};
	int _refcount;
	int _mapcount;
	int _pincount;
	unsigned char order;
	/* 3 bytes available here */
	unsigned long pfn;
	unsigned long memcg_data;
} __attribute__((aligned(DESC_ALIGN)));

struct folio_large {
	struct folio folio;
	int _large_mapcount;
	int _entire_mapcount;
	int _nr_pages_mapped;
	int _mm_id_mapcount[2];
	unsigned long _mm_ids;
	struct list_head _deferred_list;
	void *_hugetlb_subpool;
	void *_hugetlb_cgroup;
	void *_hugetlb_cgroup_rsvd;
	void *_hugetlb_hwpoison;
} __attribute__((aligned(DESC_ALIGN)));

LAYOUT_OFF(folio, flags, 0);
LAYOUT_OFF(folio, lru, 8);
LAYOUT_OFF(folio, mapping, 24);
LAYOUT_OFF(folio, index, 32);
LAYOUT_OFF(folio, private, 40);
LAYOUT_OFF(folio, _refcount, 48);
LAYOUT_OFF(folio, _mapcount, 52);
LAYOUT_OFF(folio, _pincount, 56);
LAYOUT_OFF(folio, order, 60);
LAYOUT_OFF(folio, pfn, 64);
LAYOUT_OFF(folio, memcg_data, 72);
_Static_assert(sizeof(struct folio) == 80, "the plan's small folio is 80 bytes");
LAYOUT_OFF(folio_large, folio, 0);
LAYOUT_OFF(folio_large, _large_mapcount, 80);
LAYOUT_OFF(folio_large, _entire_mapcount, 84);
LAYOUT_OFF(folio_large, _nr_pages_mapped, 88);
LAYOUT_OFF(folio_large, _mm_id_mapcount, 92);
LAYOUT_OFF(folio_large, _mm_ids, 104);
LAYOUT_OFF(folio_large, _deferred_list, 112);
LAYOUT_OFF(folio_large, _hugetlb_subpool, 128);
LAYOUT_OFF(folio_large, _hugetlb_hwpoison, 152);
_Static_assert(sizeof(struct folio_large) == 160, "the large folio descriptor is 160 bytes");

/*
 * For the analytic model: a lookup reads the folio's flags and _refcount,
 * the scan its order, isolation its flags, mapping, counts, order and
 * memcg_data, at the same offsets in both descriptors; each cache's objects
 * lie end to end while fresh.  A large folio's _large_mapcount (@80, read by
 * folio_mapcount() for anon ones) shares memcg_data's line wherever a
 * 16-byte aligned descriptor lies, so it adds no line: no .isolate_large.
 */
#define LAYOUT_MODEL {								\
	.desc_stride = sizeof(struct folio),					\
	.desc_stride_large = sizeof(struct folio_large),			\
	.lookup = MODEL_READS(MODEL_FIELD(folio, flags), MODEL_FIELD(folio, _refcount)),	\
	.scan = MODEL_READS(MODEL_FIELD(folio, order)),				\
	.isolate = MODEL_READS(MODEL_FIELD(folio, flags), MODEL_FIELD(folio, mapping),	\
			       MODEL_FIELD(folio, _refcount), MODEL_FIELD(folio, _mapcount),	\
			       MODEL_FIELD(folio, order), MODEL_FIELD(folio, memcg_data)),	\
}

/* ------------------------------------------------------------------------ */
/*
 * Descriptors both memdesc layouts allocate for the non-folio kinds.  Each
 * keeps what the kernel's overlay struct keeps in 6.18 once the struct-page
 * plumbing (the page-level flags, page_type, _refcount) is gone, plus the pfn
 * it describes, because nothing else leads back from a descriptor to its
 * memory.  Compound kinds (slab, netmem) also need their order: it sits in
 * the top bits of their flags word, where the kernel keeps its flags "fields"
 * (section, node, zone) today.  All are 16-byte aligned, so sizeof is what
 * the descriptor cache hands out.
 */
#define DESC_FLAGS_ORDER_SHIFT	58
#define DESC_FLAGS_ORDER_MASK	(0x3fUL << DESC_FLAGS_ORDER_SHIFT)

static inline unsigned int desc_flags_order(unsigned long flags)
{
	return flags >> DESC_FLAGS_ORDER_SHIFT;
}

static inline unsigned long desc_flags_with_order(unsigned long flags, unsigned int order)
{
	return (flags & ~DESC_FLAGS_ORDER_MASK) | ((unsigned long)order << DESC_FLAGS_ORDER_SHIFT);
}

/* struct slab of 6.18 minus __page_type/__page_refcount; + pfn. 64 bytes. */
struct slab {
	unsigned long flags;			/* order in the top bits */
	uintptr_t slab_cache;			/* struct kmem_cache * */
	struct list_head slab_list;
	void *freelist;
	union {
		unsigned long counters;
		struct {
			unsigned int inuse:16;
			unsigned int objects:15;
			unsigned int frozen:1;
		};
	};
	unsigned long obj_exts;
	unsigned long pfn;
} __attribute__((aligned(DESC_ALIGN)));

/*
 * struct ptdesc of 6.18 minus __page_mapping/__page_type/__page_refcount;
 * + pfn.  56 bytes of fields, 64 with the alignment.
 */
struct ptdesc {
	unsigned long pt_flags;
	struct list_head pt_list;		/* or pt_rcu_head, pmd_huge_pte */
	union {
		unsigned long pt_index;
		uintptr_t pt_mm;		/* struct mm_struct * */
		int pt_frag_refcount;
	};
	unsigned long ptl;			/* spinlock_t, padded as in 6.18 */
	unsigned long pt_memcg_data;
	unsigned long pfn;
} __attribute__((aligned(DESC_ALIGN)));

/*
 * struct zpdesc of 6.18 minus lru (zsmalloc no longer keeps an LRU),
 * movable_ops (6.18 finds them by page type) and _refcount; + pfn.
 * 36 bytes of fields, 48 with the alignment.
 */
struct zpdesc {
	unsigned long flags;
	union {
		uintptr_t next;			/* struct zpdesc * */
		unsigned long handle;
	};
	uintptr_t zspage;			/* struct zspage * */
	unsigned long pfn;
	unsigned int first_obj_offset;
} __attribute__((aligned(DESC_ALIGN)));

/*
 * struct netmem_desc of 6.18 minus pp_magic (the tag says "netmem") and
 * _pp_mapping_pad; + pfn.  40 bytes of fields, 48 with the alignment.
 */
struct netmem_desc {
	unsigned long flags;			/* order in the top bits */
	uintptr_t pp;				/* struct page_pool * */
	unsigned long dma_addr;
	long pp_ref_count;
	unsigned long pfn;
} __attribute__((aligned(DESC_ALIGN)));

_Static_assert(sizeof(struct slab) == 64, "slab descriptor");
_Static_assert(sizeof(struct ptdesc) == 64, "ptdesc descriptor");
_Static_assert(sizeof(struct zpdesc) == 48, "zpdesc descriptor");
_Static_assert(sizeof(struct netmem_desc) == 48, "netmem descriptor");

#endif /* MDB_MEMDESC_H */
