/* SPDX-License-Identifier: GPL-2.0 */
/*
 * page64md.h - the first step of the kernel's memdesc plan: today's 64-byte
 * struct page kept, every page's compound_head pointing at a memdesc
 * allocated from a slab cache of its type (kernelnewbies.org/MatthewWilcox/
 * Memdescs/Path: "For each memdesc (slab, folio, zpdesc, ptdesc, bump) in
 * turn, we create a slab cache for it.  Then we make page->compound_head
 * point to the dynamically allocated memdesc rather than the first page.
 * Then we can transition to the above layout", the 32-byte page32.h).
 *
 * The worst case of the plan: every lookup pays the hop to the descriptor,
 * and the memmap stays 64 bytes a page, so the descriptors' bytes come on
 * top of today's memmap, nothing is gained in density.
 *
 *	struct page {				offset	size	6.18
 *		unsigned long flags;		0	8	flags
 *		union {				8	16
 *			struct list_head buddy_list;		lru/buddy_list
 *			struct list_head pcp_list;		pcp_list
 *			struct {
 *				memdesc_t memdesc;	8	8	compound_head
 *				unsigned long __lru_prev; 16	8	lru.prev
 *			};
 *		};
 *		unsigned long __folio_mapping;	24	8	mapping
 *		unsigned long __folio_index;	32	8	index
 *		unsigned long private;		40	8	private
 *		union {				48	4
 *			unsigned int page_type;
 *			int _mapcount;
 *		};
 *		int _refcount;			52	4	_refcount
 *		unsigned long memcg_data;	56	8	memcg_data
 *	};
 *
 * The fields the Path page keeps in its page (flags, buddy_list/pcp_list,
 * memdesc, private, _mapcount, _refcount) are where 6.18 has them; the
 * memdesc is the compound_head word, which overlaps buddy_list.next, so the
 * tags are the Path page's interim numbering with 0 and 8 aliasing "buddy"
 * (memdesc.h, MEMDESC_BUDDY_ALIASES, as page32).  The rest of today's page
 * (lru.prev, mapping and index, which the Path renames __folio_mapping and
 * __folio_index once no page user is left, memcg_data) is still there and
 * read by nothing: the page is not shrunk until the next step.
 *
 * What each word holds:
 *  - memdesc: on every page of a folio, slab, page table, zsmalloc page and
 *    page-pool block, its type's tag and descriptor (memdesc_api.h): no
 *    head or tail pages, no PG_head, no _flags_1 order; a reserved page the
 *    misc memdesc, inline;
 *  - free pages keep today's buddy encoding, which the Path's first step
 *    does not touch: linked through buddy_list (free_list.h), PageBuddy in
 *    page_type's top byte and the order in private on a block's head
 *    (set_buddy_order(), __SetPageBuddy(); del_page_from_free_list()
 *    clears both);
 *  - flags keeps PG_reserved of a reserved page; a folio's flags are its
 *    descriptor's ("we copy page->flags from the first page to the folio",
 *    Path page);
 *  - _mapcount is -1 on every folio page (the per-page mapcount the Path's
 *    page keeps "only for folios"), _refcount 0 on folio pages (the count is
 *    the folio's) and 1 on the other kinds, whose allocation holds it.
 *
 * Descriptors: memdesc.h's, from the caches of mm->cache[] exactly as page32
 * and memdesc8 take them (struct folio 80 bytes, struct folio_large 112,
 * each from a file and an anon cache, struct slab 64, ptdesc 64, zpdesc 48,
 * and struct bump 48 for the page-pool blocks, which a 64-byte page could
 * still hold inline but which the
 * Path lists among the types given a cache).  HVO: every entry of a hugetlb
 * folio is the same bytes, so all of its vmemmap but the first page maps
 * onto the first (HVO_SAME_ENTRY), freeing what 6.18's HVO frees.
 *
 * Left out: the order in which the Path converts the types (each type its
 * own series; here all at once, the end of the step); compound pages that
 * are no memdesc yet (__GFP_COMP kmalloc-large, vmalloc and driver
 * allocations: none is in the mix); the zone/node/section bits of flags
 * and their copy in the folio's flags; page_type for slabs and page tables
 * (the memdesc's tag says it; 6.18 also sets PGTY_slab, PGTY_table).
 */
#ifndef MDB_PAGE64MD_H
#define MDB_PAGE64MD_H

#include <stddef.h>

#define MEMDESC_BUDDY_ALIASES	/* memdesc is compound_head, which overlaps buddy_list.next */
#include "memdesc.h"

struct page {
	unsigned long flags;
	union {
		struct list_head buddy_list;
		struct list_head pcp_list;
		struct {
			union {
				memdesc_t memdesc;
				unsigned long compound_head;
			};
			unsigned long __lru_prev;
		};
	};
	unsigned long __folio_mapping;
	unsigned long __folio_index;
	unsigned long private;
	union {
		unsigned int page_type;
		int _mapcount;
	};
	int _refcount;
	unsigned long memcg_data;
};

LAYOUT_OFF(page, flags, 0);
LAYOUT_OFF(page, buddy_list, 8);
LAYOUT_OFF(page, pcp_list, 8);
LAYOUT_OFF(page, compound_head, 8);
LAYOUT_OFF(page, memdesc, 8);
LAYOUT_OFF(page, __folio_mapping, 24);
LAYOUT_OFF(page, __folio_index, 32);
LAYOUT_OFF(page, private, 40);
LAYOUT_OFF(page, page_type, 48);
LAYOUT_OFF(page, _mapcount, 48);
LAYOUT_OFF(page, _refcount, 52);
LAYOUT_OFF(page, memcg_data, 56);
_Static_assert(sizeof(struct page) == 64, "today's struct page, kept");
/* A list pointer into this memmap has bits 0-2 clear and bit 3 set: tag 8, a buddy alias. */
_Static_assert(offsetof(struct page, buddy_list) % 16 == MEMDESC_BUDDY_ALIAS &&
	       sizeof(struct page) % 16 == 0, "buddy_list.next reads as tag 8");

/* PageBuddy(): page_type's top byte; the order in private (buddy_order()). */
static inline int memdesc_page_buddy_order(const struct page *page)
{
	if (page->page_type >> 24 != PGTY_buddy)
		return -1;
	return (int)page->private;
}

/* set_buddy_order() + __SetPageBuddy(). */
static inline void memdesc_page_set_buddy(struct page *page, unsigned int order)
{
	page->private = order;
	page->page_type = (unsigned int)PGTY_buddy << 24;
}

/* del_page_from_free_list(): __ClearPageBuddy() (page_type back to UINT_MAX), set_page_private(0). */
static inline void memdesc_page_clear_buddy(struct page *page)
{
	page->page_type = UINT32_MAX;
	page->private = 0;
}

#include "free_list.h"

#define MEMDESC_PAGE_WORDS	/* today's flags, _mapcount, _refcount stay in struct page */
#include "memdesc_api.h"

#endif /* MDB_PAGE64MD_H */
