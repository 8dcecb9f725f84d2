/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kconst.h - the encodings of the running kernel (Linux 6.18, x86-64) that
 * the layouts reuse, so that a page64 memmap holds what the kernel's holds
 * and page32/memdesc8 keep the same flag bits in their descriptors.
 *
 * Sources: include/linux/page-flags.h (enum pageflags, enum pagetype,
 * FOLIO_MAPPING_ANON), include/linux/poison.h (POISON_POINTER_DELTA,
 * PP_SIGNATURE, TAIL_MAPPING).  Layout independent.
 */
#ifndef MDB_KCONST_H
#define MDB_KCONST_H

#include <stdint.h>

/* Read by the layout headers, which layout.h includes after its declarations. */
#ifndef MDB_LAYOUT_H
#error "include layout.h, not kconst.h"
#endif

/* Bit numbers of enum pageflags (6.18, CONFIG_MMU). */
enum kpageflags {
	KPG_locked = 0,
	KPG_writeback = 1,
	KPG_referenced = 2,
	KPG_uptodate = 3,
	KPG_dirty = 4,
	KPG_lru = 5,
	KPG_head = 6,		/* "must be in bit 6": cleared by an order in the low byte */
	KPG_waiters = 7,
	KPG_active = 8,
	KPG_workingset = 9,
	KPG_owner_priv_1 = 10,
	KPG_owner_2 = 11,
	KPG_arch_1 = 12,
	KPG_reserved = 13,
	KPG_private = 14,
	KPG_private_2 = 15,
	KPG_reclaim = 16,
	KPG_swapbacked = 17,
	KPG_unevictable = 18,
	KPG_dropbehind = 19,
	KPG_mlocked = 20,
};

/* The kernel bit behind each flag of the API; folds to a constant. */
static inline unsigned int kpg_bit(enum pageflag flag)
{
	switch (flag) {
	case PG_locked:		return KPG_locked;
	case PG_referenced:	return KPG_referenced;
	case PG_uptodate:	return KPG_uptodate;
	case PG_dirty:		return KPG_dirty;
	case PG_lru:		return KPG_lru;
	case PG_active:		return KPG_active;
	case PG_swapbacked:	return KPG_swapbacked;
	case PG_reserved:	return KPG_reserved;
	default:		return KPG_locked;
	}
}

static inline unsigned long kpg_mask(enum pageflag flag)
{
	return 1UL << kpg_bit(flag);
}

/* All kernel bits the API can set: what migration carries and page_info reads. */
#define KPG_API_MASK	((1UL << KPG_locked) | (1UL << KPG_referenced) |		\
			 (1UL << KPG_uptodate) | (1UL << KPG_dirty) |			\
			 (1UL << KPG_lru) | (1UL << KPG_active) |			\
			 (1UL << KPG_swapbacked) | (1UL << KPG_reserved))

/* enum pagetype: the top byte of page->page_type on typed pages. */
enum kpagetype {
	PGTY_buddy = 0xf0,
	PGTY_offline = 0xf1,
	PGTY_table = 0xf2,
	PGTY_guard = 0xf3,
	PGTY_hugetlb = 0xf4,
	PGTY_slab = 0xf5,
	PGTY_zsmalloc = 0xf6,
	PGTY_unaccepted = 0xf7,
	PGTY_large_kmalloc = 0xf8,
	PGTY_mapcount_underflow = 0xff,
};

/* Low bit of folio->mapping on anon folios: it points to an anon_vma. */
#define FOLIO_MAPPING_ANON	0x1UL
#define FOLIO_MAPPING_ANON_KSM	0x2UL
#define FOLIO_MAPPING_FLAGS	(FOLIO_MAPPING_ANON | FOLIO_MAPPING_ANON_KSM)

/* include/linux/poison.h, x86-64 (CONFIG_ILLEGAL_POINTER_VALUE). */
#define POISON_POINTER_DELTA	0xdead000000000000UL
#define PP_SIGNATURE		(0x40UL + POISON_POINTER_DELTA)
#define TAIL_MAPPING		(0x400UL + POISON_POINTER_DELTA)
/* What list_del() leaves in an unlinked entry. */
#define LIST_POISON1		(0x100UL + POISON_POINTER_DELTA)
#define LIST_POISON2		(0x122UL + POISON_POINTER_DELTA)
/*
 * page_pool_page_is_pp() masks the DMA index bits 7..38 and the two low bits;
 * this suite never stores a DMA index, so the two low bits are all it masks.
 */
#define PP_MAGIC_MASK		(~0x3UL)

/*
 * Stand-ins for the kernel objects a memmap points at (anon_vma,
 * address_space, kmem_cache, page_pool, zspage, mm_struct): never
 * dereferenced, but shaped like direct-map addresses so that they cost what
 * a pointer costs and compare equal across layouts.
 */
#define MDB_FAKE_ANON_VMA	0xffff888100001000UL
#define MDB_FAKE_MAPPING	0xffff888100002000UL
#define MDB_FAKE_SLAB_CACHE	0xffff888100003000UL
#define MDB_FAKE_PAGE_POOL	0xffff888100004000UL
#define MDB_FAKE_ZSPAGE		0xffff888100005000UL
#define MDB_FAKE_MM		0xffff888100006000UL

/*
 * What a new folio's mapping holds: its kind, as folio_test_anon() reads it
 * (a hugetlb folio gets the address_space of a hugetlbfs file).
 */
static inline uintptr_t mdb_new_mapping(enum page_kind kind)
{
	return kind == PK_ANON ? (MDB_FAKE_ANON_VMA | FOLIO_MAPPING_ANON) : MDB_FAKE_MAPPING;
}

/*
 * folio_set_mapping() keeps the folio's kind: the anon bit follows the kind,
 * not the caller, as it would in the kernel where only rmap code sets it.
 */
static inline uintptr_t mdb_kind_mapping(uintptr_t mapping, enum page_kind kind)
{
	mapping &= ~FOLIO_MAPPING_FLAGS;
	return kind == PK_ANON ? mapping | FOLIO_MAPPING_ANON : mapping;
}

#endif /* MDB_KCONST_H */
