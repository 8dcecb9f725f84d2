/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memdesc8.h - the end state of the kernel's plan: struct page is one
 * 8-byte memdesc_t (kernelnewbies.org/MatthewWilcox/Memdescs).
 *
 *	struct page { memdesc_t memdesc; };	8 bytes, 8 per cache line
 *
 * The word's encoding is memdesc.h's: a 4-bit tag, then a pointer to a
 * 16-byte aligned descriptor or inline data.  Anon and file folios have tags
 * of their own, so page_kind() is the memdesc load and a table lookup; free
 * pages (inline order on the block's head) and reserved pages (misc,
 * subtype reserved) need no descriptor at all.  No page carries flags or a
 * count: a folio's are in its descriptor; the other kinds report the one
 * reference their allocation holds (the final plan gives them no refcount:
 * get_page() is not allowed on them) and PG_reserved comes from the misc
 * subtype.
 *
 * struct folio, 80 bytes (72 rounded up to the descriptors' 16-byte
 * alignment; the memdesc plan keeps memcg_data, so the often-quoted 64 does
 * not hold: an order-2 folio costs 4 * 8 + 80 = 112 bytes, not 96):
 *
 *	flags		0	8	PG_* bits; order in bits 58-63, the flags'
 *					"fields" area (no page flags left to hold it)
 *	lru		8	16
 *	mapping		24	8	FOLIO_MAPPING_ANON on anon folios, as today
 *	index		32	8
 *	private		40	8	(swap entry on anon folios)
 *	_refcount	48	4
 *	_mapcount	52	4	count - 1, one for the whole folio
 *	pfn		56	8	nothing else leads back to the memory
 *	memcg_data	64	8	the memory cgroup (folio_memcg())
 *
 * What today's folio holds and this one does not: every per-size field of
 * the tail pages (_large_mapcount, _entire_mapcount, _pincount,
 * _deferred_list), since one mapcount counts for the folio.  Every memdesc
 * of a 2^k folio points to the same descriptor.
 *
 * The other descriptors (struct slab 64, ptdesc 64, zpdesc 48, netmem_desc
 * 48 bytes) are memdesc.h's, shared with page32.
 */
#ifndef MDB_MEMDESC8_H
#define MDB_MEMDESC8_H

#include <stddef.h>

#include "kconst.h"
#include "memdesc.h"

struct page {
	memdesc_t memdesc;
};

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
	unsigned long pfn;
	unsigned long memcg_data;
} __attribute__((aligned(DESC_ALIGN)));

_Static_assert(sizeof(struct page) == 8, "struct page is one memdesc");
_Static_assert(offsetof(struct folio, lru) == 8, "folio.lru");
_Static_assert(offsetof(struct folio, mapping) == 24, "folio.mapping");
_Static_assert(offsetof(struct folio, index) == 32, "folio.index");
_Static_assert(offsetof(struct folio, private) == 40, "folio.private");
_Static_assert(offsetof(struct folio, _refcount) == 48, "folio._refcount");
_Static_assert(offsetof(struct folio, _mapcount) == 52, "folio._mapcount");
_Static_assert(offsetof(struct folio, pfn) == 56, "folio.pfn");
_Static_assert(offsetof(struct folio, memcg_data) == 64, "folio.memcg_data");
_Static_assert(sizeof(struct folio) == 80, "the folio descriptor is 80 bytes");

/*
 * For the analytic model: a lookup reads the folio's flags and _refcount, the
 * scan its flags (the order is in them), isolation flags, mapping, counts
 * and memcg_data (@64, the descriptor's second line); 80-byte folios lie end
 * to end.
 */
#define LAYOUT_MODEL {								\
	.desc_stride = sizeof(struct folio),					\
	.lookup = MODEL_READS(MODEL_FIELD(folio, flags), MODEL_FIELD(folio, _refcount)),	\
	.scan = MODEL_READS(MODEL_FIELD(folio, flags)),				\
	.isolate = MODEL_READS(MODEL_FIELD(folio, flags), MODEL_FIELD(folio, mapping),	\
			       MODEL_FIELD(folio, _refcount), MODEL_FIELD(folio, _mapcount),	\
			       MODEL_FIELD(folio, memcg_data)),			\
}

static inline unsigned int folio_order(const struct folio *folio)
{
	return desc_flags_order(folio->flags);
}

static inline void memdesc_folio_set_order(struct folio *folio, unsigned int order)
{
	folio->flags = desc_flags_with_order(folio->flags, order);
}

static inline void memdesc_folio_copy_extra(struct folio *dst, const struct folio *src)
{
	(void)dst;
	(void)src;
}

static inline void memdesc_page_set(struct page *page, memdesc_t m)
{
	page->memdesc = m;
}

static inline unsigned long memdesc_page_flags(const struct page *page)
{
	memdesc_t m = page->memdesc;

	if (memdesc_type(m) == MEMDESC_MISC && memdesc_misc_subtype(m) == MEMDESC_MISC_RESERVED)
		return 1UL << KPG_reserved;
	return 0;
}

static inline int memdesc_page_refcount(const struct page *page)
{
	return !memdesc_is_buddy(page->memdesc);
}

#include "memdesc_api.h"

#endif /* MDB_MEMDESC8_H */
