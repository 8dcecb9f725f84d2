/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memdesc8.h - the end state of the kernel's plan: struct page is one
 * 8-byte memdesc_t (kernelnewbies.org/MatthewWilcox/Memdescs).
 *
 *	struct page { memdesc_t memdesc; };	8 bytes, 8 per cache line
 *
 * The word's encoding is memdesc.h's, numbered as the current Memdescs page
 * numbers its types (0 misc, 1 buddy, 2 file, 3 anon, 4 KSM, 5 slab, 6
 * movable, 7 page table, 8 netpool): a 4-bit tag, then a pointer to a
 * 16-byte aligned descriptor or inline data.  Anon and file folios have tags
 * of their own, so page_kind() is the memdesc load and a table lookup; free
 * pages (buddy, inline order on the block's head) and reserved pages (misc,
 * subtype PageReserved) need no descriptor at all.  No page carries flags
 * or a count: a folio's are in its descriptor; the other kinds report the
 * one reference their allocation holds (the plan gives misc memory no
 * refcount: get_page() is not allowed on it) and PG_reserved comes from the
 * misc subtype.
 *
 * Descriptors (memdesc.h, field by field): struct folio, 80 bytes, for
 * order-0 folios, and struct folio_large, 160 bytes, for larger ones, each
 * from its own cache; the memdesc plan keeps memcg_data and the pincount,
 * so the often-quoted 64-byte folio does not hold: an order-0 folio costs
 * 8 + 80 = 88 bytes, an order-2 one 4 * 8 + 160 = 192.  Every memdesc of a
 * 2^k folio points to its one descriptor.  The others (struct slab 64,
 * ptdesc 64, zpdesc 48, netmem_desc 48 bytes) are memdesc.h's too, shared
 * with page32.
 */
#ifndef MDB_MEMDESC8_H
#define MDB_MEMDESC8_H

#include <stddef.h>

#include "memdesc.h"

struct page {
	memdesc_t memdesc;
};

_Static_assert(sizeof(struct page) == 8, "struct page is one memdesc");

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
