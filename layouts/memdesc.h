/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memdesc.h - the memdesc_t word and the descriptors it points at, shared by
 * page32 (where it is page->memdesc) and memdesc8 (where it is the whole
 * struct page).  Written once so both layouts read and write the same
 * encoding; only what surrounds the word differs.
 *
 * A memdesc is one unsigned long.  Bits 0-3 are a type tag; the rest is
 * either a pointer to a 16-byte aligned descriptor (whose low 4 bits are
 * free for the tag), or inline data for memory that needs no descriptor.
 * The numbering is the one of the kernel's interim plan
 * (kernelnewbies.org/MatthewWilcox/Memdescs/Path): in the 32-byte page the
 * memdesc word overlaps buddy_list.next, an 8-byte aligned pointer, so every
 * tag with its two low bits clear (0, 4, 8, 12) reads as "buddy", and the
 * other types take tags 1-3, 5-7, 9-11, 13-15.
 *
 *	tag	meaning		rest of the word
 *	0	buddy		inline: head bit 11, order bits 12-17
 *	1	misc		inline: subtype bits 4-10, order bits 12-17
 *	2	file folio	struct folio *
 *	3	anon folio	struct folio *
 *	5	slab		struct slab *
 *	6	page table	struct ptdesc *
 *	7	zsmalloc	struct zpdesc *
 *	9	netmem		struct netmem_desc *
 *
 * Anon and file folios have tags of their own, as in the kernel's plan, so
 * that page_kind() needs no load beyond the memdesc.  The misc subtypes and
 * the inline order field follow the final plan's type-0 "misc" memory
 * (kernelnewbies.org/MatthewWilcox/Memdescs): subtype 0 is PageReserved.
 *
 * Free pages: the buddy's free lists live outside the memmap in this suite
 * (struct buddy in layout.h), so no memmap entry holds list pointers; the
 * head of a free block carries tag 0 with the head bit and its order
 * (what page->private holds for PageBuddy pages today), every other free
 * page is the all-zero word.  A free page inside a block finds its head as
 * the kernel's is_free_buddy_page() does, by trying each aligned candidate.
 *
 * Include only from a layout header (via layout.h).
 */
#ifndef MDB_MEMDESC_H
#define MDB_MEMDESC_H

#include <stdbool.h>
#include <stdint.h>

#ifndef MDB_LAYOUT_H
#error "include layout.h, not memdesc.h"
#endif

typedef uintptr_t memdesc_t;

enum memdesc_type {
	MEMDESC_BUDDY = 0,
	MEMDESC_MISC = 1,
	MEMDESC_FILE = 2,
	MEMDESC_ANON = 3,
	MEMDESC_SLAB = 5,
	MEMDESC_PTDESC = 6,
	MEMDESC_ZPDESC = 7,
	MEMDESC_NETMEM = 9,
};

#define MEMDESC_TYPE_MASK	0xfUL
#define MEMDESC_SUBTYPE_SHIFT	4
#define MEMDESC_SUBTYPE_MASK	(0x7fUL << MEMDESC_SUBTYPE_SHIFT)
#define MEMDESC_BUDDY_HEAD	(1UL << 11)
#define MEMDESC_ORDER_SHIFT	12
#define MEMDESC_ORDER_MASK	(0x3fUL << MEMDESC_ORDER_SHIFT)

/* A free page that heads no block; also what boot leaves in every entry. */
#define MEMDESC_FREE		((memdesc_t)0)

enum memdesc_misc {
	MEMDESC_MISC_RESERVED = 0,
};

_Static_assert(DESC_ALIGN == 16, "the tag needs the 4 low bits of a descriptor pointer");

static inline unsigned int memdesc_type(memdesc_t m)
{
	return m & MEMDESC_TYPE_MASK;
}

static inline bool memdesc_is_buddy(memdesc_t m)
{
	return (m & 0x3) == 0;
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

static inline memdesc_t memdesc_buddy(unsigned int order)
{
	return MEMDESC_BUDDY | MEMDESC_BUDDY_HEAD | ((memdesc_t)order << MEMDESC_ORDER_SHIFT);
}

/* Order of the free block this word heads; -1 if it heads none. */
static inline int memdesc_buddy_order(memdesc_t m)
{
	if (!memdesc_is_buddy(m) || !(m & MEMDESC_BUDDY_HEAD))
		return -1;
	return (m & MEMDESC_ORDER_MASK) >> MEMDESC_ORDER_SHIFT;
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

/* Tag -> kind in one indexed load; PK_NR marks tags no memdesc uses. */
static inline enum page_kind memdesc_kind(memdesc_t m)
{
	static const unsigned char kind[16] = {
		[0] = PK_FREE, [4] = PK_FREE, [8] = PK_FREE, [12] = PK_FREE,
		[MEMDESC_MISC] = PK_RESERVED,
		[MEMDESC_FILE] = PK_FILE,
		[MEMDESC_ANON] = PK_ANON,
		[MEMDESC_SLAB] = PK_SLAB,
		[MEMDESC_PTDESC] = PK_PGTABLE,
		[MEMDESC_ZPDESC] = PK_ZSMALLOC,
		[MEMDESC_NETMEM] = PK_NETMEM,
		[10] = PK_NR, [11] = PK_NR, [13] = PK_NR, [14] = PK_NR, [15] = PK_NR,
	};
	return kind[memdesc_type(m)];
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
