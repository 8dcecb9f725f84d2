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
 * memdesc8 numbers the tags as the current Memdescs page does (its 2025
 * revision, "For 2025, we have more modest goals"):
 *
 *	tag	type		rest of the word		here
 *	0	misc		inline: subtype 4-10, bit 11	reserved pages (subtype 0,
 *				mappable, order 12-17		PageReserved)
 *	1	buddy		embedded struct buddy		free pages: order and the
 *								free-list links (memdesc8.h)
 *	2	file		struct folio *			file and hugetlb folios
 *	3	anon		struct anon_folio *		anon folios (a struct folio
 *								from caches of their own)
 *	4	KSM		struct ksm *			-
 *	5	slab		struct slab *			slabs
 *	6	bump		struct bump *			page_pool pages
 *	7	movable		struct movable *		-
 *	8	page table	struct ptdesc *			page tables
 *	9	hwpoison	10 percpu	11 acctmem	-
 *	12	zpdesc		struct zpdesc *			zsmalloc pages
 *	13	managed		14-15 unassigned		-
 *
 * Bump is what the plan now calls page_pool's pages: an earlier revision
 * had "NetPool (struct netpool pointer)" where this one has "Bump (struct
 * bump)", the Path page lists "slab, folio, zpdesc, ptdesc, bump" as the
 * memdescs given a slab cache and asks to "split the pagepool bump
 * allocator out of struct page", and Matthew Wilcox on linux-mm (March
 * 2025): "pagepool is going to be renamed 'bump' because it's a bump
 * allocator".  So the suite's page-pool descriptor is struct bump (the
 * fields of 6.18's netmem_desc, since the plan leaves struct bump "TBD"
 * and the core mm "will have no requirements" on it), not a second type
 * beside a netmem one.  The page kind keeps its name (PK_NETMEM, "netmem"
 * in the mixes): that is what the pages are, bump what describes them.
 *
 * page32 is the interim step of kernelnewbies.org/MatthewWilcox/Memdescs/Path,
 * whose memdesc overlaps buddy_list.next: a free page's word is a list
 * pointer, and the tags a list pointer can show must all mean "buddy".  The
 * Path page reserves 0, 4, 8 and 12 for that, which assumes 4-byte aligned
 * pointers.  buddy_list.next points at another page's buddy_list (offset 8
 * of a 32-byte entry in a 32-byte aligned memmap: low bits 1000) or at a
 * free area's list head (8-byte aligned): bits 0-2 are always zero, bit 3
 * either, so exactly tags 0 and 8 alias and 4 and 12 are free.  page32 and
 * page64md therefore keep the current page's numbers where they do not
 * collide, and the Path page's for buddy and misc:
 *
 *	0, 8	buddy (the aliases: a free page's buddy_list.next, page32.h)
 *	1	misc (as on the Path page; 0 is buddy)	2 file	3 anon	4 KSM
 *	5 slab	6 bump	12 zpdesc
 *	7	page table, displaced from 8 (a buddy alias) to the tag the
 *		current page gives movable, which no page here is
 *
 * A layout says which numbering it uses by defining MEMDESC_BUDDY_ALIASES
 * (page64md, page32: the word overlaps buddy_list.next in both) or not (memdesc8) before including this file.  Anon and file
 * folios have tags 2 and 3 in both, so page_kind() needs no load beyond the
 * memdesc and "is a folio" is one masked compare.
 *
 * Anon folios.  The Memdescs page points tag 3 at a struct anon_folio but
 * draws no field of it; the Path page points it at a struct folio.  So an
 * anon folio's descriptor here is the folio's, field for field (its
 * mapping the anon_vma with FOLIO_MAPPING_ANON, private its swap entry, as
 * today), but as a type of its own it comes from caches of its own
 * (DESC_ANON, DESC_ANON_LARGE), never sharing a slab with a file folio.
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
	MEMDESC_BUMP = 6,
	MEMDESC_ZPDESC = 12,
#ifdef MEMDESC_BUDDY_ALIASES		/* the Path page's interim numbering, aliases fixed */
	MEMDESC_BUDDY = 0,
	MEMDESC_MISC = 1,
	MEMDESC_PTDESC = 7,
	MEMDESC_BUDDY_ALIAS = 8,
#else					/* the Memdescs page's */
	MEMDESC_MISC = 0,
	MEMDESC_BUDDY = 1,
	MEMDESC_MOVABLE = 7,
	MEMDESC_PTDESC = 8,
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
		PK_FREE, PK_RESERVED, PK_FILE, PK_ANON, PK_NR, PK_SLAB, PK_NETMEM, PK_PGTABLE,
		PK_FREE, PK_NR, PK_NR, PK_NR, PK_ZSMALLOC, PK_NR, PK_NR, PK_NR,
#else
		PK_RESERVED, PK_FREE, PK_FILE, PK_ANON, PK_NR, PK_SLAB, PK_NETMEM, PK_NR,
		PK_PGTABLE, PK_NR, PK_NR, PK_NR, PK_ZSMALLOC, PK_NR, PK_NR, PK_NR,
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
 *	order > 0 (kernelnewbies.org/MatthewWilcox/FolioAlloc: _entire_mapcount,
 *	_nr_pages_mapped, _deferred_split_list, nothing else), then what 6.18
 *	keeps beyond that in a large folio's tail pages
 *	_entire_mapcount	FolioAlloc	80	4	page 1
 *	_nr_pages_mapped	FolioAlloc	84	4	page 1 (CONFIG_PAGE_MAPCOUNT)
 *	_deferred_list	FolioAlloc		88	16	page 2
 *			("_deferred_split_list")
 *	--- the plan's large folio ends here: 104 bytes, 112 aligned ---
 *	_large_mapcount				104	4	page 1
 *	_mm_id_mapcount[2]			108	8	page 1 (CONFIG_MM_ID)
 *	(4 bytes)				116	4
 *	_mm_ids					120	8	page 1 (CONFIG_MM_ID)
 *	_hugetlb_subpool, _hugetlb_cgroup,	128	32	page 3
 *	_hugetlb_cgroup_rsvd, _hugetlb_hwpoison
 *							160 bytes
 *
 * --large-desc (enum large_desc, layout.h) says how much of it a large
 * folio's cache hands out: plan (the default), the first 112 bytes, the
 * fields FolioAlloc initialises, and nothing after them is read or
 * written; full, all 160, every field set as 6.18 sets its tail pages.
 * With plan a large folio's mapcount is its _entire_mapcount (the suite
 * maps large folios whole, so it is the folio's one mapcount, as
 * _mapcount is a small folio's) and a hugetlb folio's subpool, cgroups
 * and hwpoison list are not the folio's (FolioAlloc gives them no field:
 * they would live in hugetlb's own structure, which the plan does not
 * draw).  A descriptor says which it is by MEMDESC_PG_LARGE_FULL in its
 * flags (memdesc_api.h), so the accessors need no memmap.
 *
 * Left out: the second page's flag bits (PG_large_rmappable,
 * PG_partially_mapped, ...), which would be bits of flags; _nr_pages, which
 * the order gives.  The plan does not say whether hugetlb folios get a type
 * of their own: they are file folios here, with the large descriptor.  All
 * three memdesc layouts use these structs: the Path page's folio is the
 * only one the plan has drawn, and the final Memdescs page keeps its fields
 * (memcg and pincount included).
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
	int _entire_mapcount;
	int _nr_pages_mapped;
	struct list_head _deferred_list;
	/* --large-desc=full only, from here */
	int _large_mapcount;
	int _mm_id_mapcount[2];
	unsigned long _mm_ids;
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
LAYOUT_OFF(folio_large, _entire_mapcount, 80);
LAYOUT_OFF(folio_large, _nr_pages_mapped, 84);
LAYOUT_OFF(folio_large, _deferred_list, 88);
LAYOUT_OFF(folio_large, _large_mapcount, 104);
LAYOUT_OFF(folio_large, _mm_id_mapcount, 108);
LAYOUT_OFF(folio_large, _mm_ids, 120);
LAYOUT_OFF(folio_large, _hugetlb_subpool, 128);
LAYOUT_OFF(folio_large, _hugetlb_hwpoison, 152);
_Static_assert(sizeof(struct folio_large) == FOLIO_LARGE_FULL_BYTES,
	       "the full large folio descriptor is 160 bytes");
_Static_assert((offsetof(struct folio_large, _large_mapcount) + DESC_ALIGN - 1) / DESC_ALIGN * DESC_ALIGN ==
	       FOLIO_LARGE_PLAN_BYTES, "the plan's large folio descriptor is 112 bytes");

/*
 * For the analytic model: a lookup reads the folio's flags and _refcount,
 * the scan its order, isolation its flags, mapping, counts, order and
 * memcg_data, at the same offsets in both descriptors; each cache's objects
 * lie end to end while fresh.  A large folio's mapcount (_entire_mapcount
 * @80 under the default --large-desc=plan, read by folio_mapcount() for
 * anon ones) shares memcg_data's line wherever a 16-byte aligned
 * descriptor lies, so it adds no line: no .isolate_large.  The model
 * follows the default: with full the count is _large_mapcount @104.
 */
#define LAYOUT_MODEL {								\
	.desc_stride = sizeof(struct folio),					\
	.desc_stride_large = FOLIO_LARGE_PLAN_BYTES,				\
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
 * memory.  Compound kinds (slab, bump) also need their order: it sits in
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
 * struct bump, the plan's page_pool descriptor (above): the fields of
 * 6.18's struct netmem_desc minus pp_magic (the tag says "bump") and
 * _pp_mapping_pad; + pfn.  40 bytes of fields, 48 with the alignment.
 */
struct bump {
	unsigned long flags;			/* order in the top bits */
	uintptr_t pp;				/* struct page_pool * */
	unsigned long dma_addr;
	long pp_ref_count;
	unsigned long pfn;
} __attribute__((aligned(DESC_ALIGN)));

_Static_assert(sizeof(struct slab) == 64, "slab descriptor");
_Static_assert(sizeof(struct ptdesc) == 64, "ptdesc descriptor");
_Static_assert(sizeof(struct zpdesc) == 48, "zpdesc descriptor");
_Static_assert(sizeof(struct bump) == 48, "bump descriptor");

#endif /* MDB_MEMDESC_H */
