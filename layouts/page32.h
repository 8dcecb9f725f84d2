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
 *		unsigned int buddy_order;	28	4  (the 4 bytes the plan leaves)
 *	};
 *
 * Choices, field by field:
 *  - flags stays per page, as in the plan: the flags "fields" (section, node,
 *    zone) and page-level bits.  Here it holds PG_reserved on reserved pages;
 *    a folio's flags are the folio descriptor's.
 *  - memdesc (memdesc.h) overlaps buddy_list.next, so the tags a list
 *    pointer can show (0 and 8) read as buddy: memdesc.h's interim
 *    numbering.  The buddy's and the pcp's lists link free pages through
 *    buddy_list/pcp_list as the kernel does (free_list.h, buddy.h).
 *  - buddy_order: PageBuddy and the order of a free block's head, order + 1
 *    (0: heads no block).  The kernel keeps the order in page->private,
 *    which buddy_list.prev overlaps here, and PageBuddy in page_type, which
 *    the plan's page drops; the 4 bytes the plan leaves after _refcount hold
 *    both (this suite's choice: the Path page does not say).
 *  - _mapcount (in the private union) is the per-page mapcount a PTE-mapped
 *    large folio would keep: folio_create() sets it to -1 on every page; the
 *    folio's own counts are the ones the API reads.
 *  - _refcount is 0 on folio pages (the count lives in the folio) and 1 on
 *    the pages of the other kinds, whose allocation holds it, as today.
 *
 * Descriptors, each from its cache in mm->cache[] (desc_alloc()), all in
 * memdesc.h, field by field:
 *  - struct folio, 80 bytes, for order-0 folios: exactly the Path page's
 *    folio (flags, lru, mapping, index, private, _refcount, _mapcount,
 *    pincount, order, 3 spare bytes, pfn, memcg);
 *  - struct folio_large, 112 bytes (160 with --large-desc=full), for
 *    larger folios: those fields, then
 *    the large-folio counts, the deferred-split list and hugetlb's fields,
 *    from its own cache as FolioAlloc allocates it.  One descriptor per
 *    folio, pointed to by all its pages;
 *  - struct slab 64, struct ptdesc 64, struct zpdesc 48 (the plan's order of
 *    conversion: slab, folio, zpdesc, ptdesc), and struct bump 48, the
 *    plan's page_pool descriptor: a 32-byte page has no room for the
 *    page-pool fields, so it needs its descriptor already at this stage;
 *  - anon folios: the same struct folio and struct folio_large (the Path
 *    page's tag 3 points at a struct folio), from caches of their own;
 *  - reserved pages need none: the misc memdesc says "reserved" inline.
 */
#ifndef MDB_PAGE32_H
#define MDB_PAGE32_H

#include <stddef.h>

#define MEMDESC_BUDDY_ALIASES	/* memdesc overlaps buddy_list.next */
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
	unsigned int buddy_order;
};

_Static_assert(offsetof(struct page, flags) == 0, "page.flags");
_Static_assert(offsetof(struct page, buddy_list) == 8, "page.buddy_list");
_Static_assert(offsetof(struct page, pcp_list) == 8, "page.pcp_list");
_Static_assert(offsetof(struct page, memdesc) == 8, "memdesc overlaps buddy_list.next");
_Static_assert(offsetof(struct page, private) == 16, "page.private");
_Static_assert(offsetof(struct page, _mapcount) == 16, "page._mapcount");
_Static_assert(offsetof(struct page, _refcount) == 24, "page._refcount");
_Static_assert(offsetof(struct page, buddy_order) == 28, "page.buddy_order");
_Static_assert(sizeof(struct page) == 32, "struct page is 32 bytes");
/* A list pointer into this memmap has bits 0-2 clear and bit 3 set: tag 8, a buddy alias. */
_Static_assert(offsetof(struct page, buddy_list) % 16 == MEMDESC_BUDDY_ALIAS &&
	       sizeof(struct page) % 16 == 0, "buddy_list.next reads as tag 8");

static inline int memdesc_page_buddy_order(const struct page *page)
{
	return (int)page->buddy_order - 1;
}

static inline void memdesc_page_set_buddy(struct page *page, unsigned int order)
{
	page->buddy_order = order + 1;
}

static inline void memdesc_page_clear_buddy(struct page *page)
{
	page->buddy_order = 0;
}

#include "free_list.h"

#define MEMDESC_PAGE_WORDS	/* flags, _mapcount, _refcount stay in struct page */
#include "memdesc_api.h"

#endif /* MDB_PAGE32_H */
