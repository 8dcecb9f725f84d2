/* SPDX-License-Identifier: GPL-2.0 */
/*
 * page32.h - the interim 32-byte struct page of the kernel's memdesc plan
 * (kernelnewbies.org/MatthewWilcox/Memdescs/Path, "Then we can shrink
 * struct page to 32 bytes").
 *
 *	struct page {				offset	size
 *		unsigned long flags;		0	8
 *		union {				8	16
 *			struct list_head buddy_list;
 *			struct list_head pcp_list;
 *			struct {
 *				memdesc_t memdesc;	8	8
 *				union {
 *					unsigned long private;	16	8
 *					int _mapcount;		16	4
 *				};
 *			};
 *		};
 *		int _refcount;			24	4
 *		unsigned int _unused;		28	4  (padding the plan leaves)
 *	};
 *
 * Choices, field by field:
 *  - flags stays per page, as in the plan: the flags "fields" (section, node,
 *    zone) and page-level bits.  Here it holds PG_reserved on reserved pages;
 *    a folio's flags are the folio descriptor's.
 *  - memdesc (memdesc.h) overlaps buddy_list.next, so tags 0/4/8/12 read as
 *    buddy.  Free lists live outside the memmap in this suite, so a free
 *    block's head holds the inline buddy word (with its order) where the
 *    kernel would link buddy_list, and pcp_list is never used.
 *  - _mapcount (in the private union) is the per-page mapcount a PTE-mapped
 *    large folio would keep: folio_create() sets it to -1 on every page; the
 *    folio's own _mapcount is the one the API counts.
 *  - _refcount is 0 on folio pages (the count lives in the folio) and 1 on
 *    the pages of the other kinds, whose allocation holds it, as today.
 *
 * Descriptors, each from its cache in mm->cache[] (desc_alloc()):
 *  - struct folio, 80 bytes: exactly the plan's standalone folio (flags,
 *    lru, mapping, index, private, _refcount, _mapcount, _pincount, order,
 *    3 spare bytes, pfn, memcg).  The plan says large folios "will store
 *    more information here"; nothing here reads such data, so every folio
 *    costs the 80 bytes.  One per folio, pointed to by all its pages.
 *  - struct slab 64, struct ptdesc 64, struct zpdesc 48 (the plan's order of
 *    conversion: slab, folio, zpdesc, ptdesc), and struct netmem_desc 48:
 *    a 32-byte page has no room for the page-pool fields, so netmem needs
 *    its descriptor already at this stage (memdesc.h has their fields).
 *  - reserved pages need none: the misc memdesc says "reserved" inline.
 */
#ifndef MDB_PAGE32_H
#define MDB_PAGE32_H

#include <stddef.h>

#include "kconst.h"
#include "memdesc.h"

struct page {
	unsigned long flags;
	union {
		struct list_head buddy_list;
		struct list_head pcp_list;
		struct {
			memdesc_t memdesc;
			union {
				unsigned long private;
				int _mapcount;
			};
		};
	};
	int _refcount;
	unsigned int _unused;
};

struct folio {
	unsigned long flags;
	struct list_head lru;
	uintptr_t mapping;
	unsigned long index;
	void *private;
	int _refcount;
	int _mapcount;
	int _pincount;
	unsigned char order;
	/* 3 bytes available here */
	unsigned long pfn;
	unsigned long memcg_data;
} __attribute__((aligned(DESC_ALIGN)));

_Static_assert(offsetof(struct page, flags) == 0, "page.flags");
_Static_assert(offsetof(struct page, buddy_list) == 8, "page.buddy_list");
_Static_assert(offsetof(struct page, pcp_list) == 8, "page.pcp_list");
_Static_assert(offsetof(struct page, memdesc) == 8, "memdesc overlaps buddy_list.next");
_Static_assert(offsetof(struct page, private) == 16, "page.private");
_Static_assert(offsetof(struct page, _mapcount) == 16, "page._mapcount");
_Static_assert(offsetof(struct page, _refcount) == 24, "page._refcount");
_Static_assert(sizeof(struct page) == 32, "struct page is 32 bytes");
_Static_assert(offsetof(struct folio, order) == 60, "folio.order");
_Static_assert(offsetof(struct folio, pfn) == 64, "folio.pfn");
_Static_assert(sizeof(struct folio) == 80, "the plan's folio is 80 bytes");

/*
 * For the analytic model: a lookup reads the folio's flags and _refcount, the
 * scan its order, isolation flags, mapping, counts, order and memcg_data;
 * 80-byte folios lie end to end in their cache.
 */
#define LAYOUT_MODEL {								\
	.desc_stride = sizeof(struct folio),					\
	.lookup = MODEL_READS(MODEL_FIELD(folio, flags), MODEL_FIELD(folio, _refcount)),	\
	.scan = MODEL_READS(MODEL_FIELD(folio, order)),				\
	.isolate = MODEL_READS(MODEL_FIELD(folio, flags), MODEL_FIELD(folio, mapping),	\
			       MODEL_FIELD(folio, _refcount), MODEL_FIELD(folio, _mapcount),	\
			       MODEL_FIELD(folio, order), MODEL_FIELD(folio, memcg_data)),	\
}

static inline unsigned int folio_order(const struct folio *folio)
{
	return folio->order;
}

static inline void memdesc_folio_set_order(struct folio *folio, unsigned int order)
{
	folio->order = order;
}

static inline void memdesc_folio_copy_extra(struct folio *dst, const struct folio *src)
{
	dst->_pincount = src->_pincount;
}

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

#include "memdesc_api.h"

#endif /* MDB_PAGE32_H */
