/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memdesc8.h - the end state of the kernel's plan: struct page is one
 * 8-byte memdesc_t (kernelnewbies.org/MatthewWilcox/Memdescs).
 *
 *	struct page { memdesc_t memdesc; };	8 bytes, 8 per cache line
 *
 * The word's encoding is memdesc.h's, numbered as the current Memdescs page
 * numbers its types (0 misc, 1 buddy, 2 file, 3 anon, 4 KSM, 5 slab, 6
 * bump, 8 page table, 12 zpdesc): a 4-bit tag, then a pointer to a
 * 16-byte aligned descriptor or inline data.  Anon and file folios have tags
 * of their own, so page_kind() is the memdesc load and a table lookup; free
 * pages (buddy, inline order on the block's head) and reserved pages (misc,
 * subtype PageReserved) need no descriptor at all.  No page carries flags
 * or a count: a folio's are in its descriptor; the other kinds report the
 * one reference their allocation holds (the plan gives misc memory no
 * refcount: get_page() is not allowed on it) and PG_reserved comes from the
 * misc subtype.
 *
 * Free pages: the buddy memdesc holds the buddy's data inline, as the
 * plan's "embedded struct buddy", which the Memdescs page makes "one or
 * two words": bits 4-5 PageBuddy and what the page heads (0: no block, 1:
 * an order-0 block, 2: a larger block, whose order the second word holds),
 * bits 6-34 the next and 35-63 the previous pfn of the free list it is on
 * (buddy.h: the buddy's free_area and the pcp lists), a link to the entry
 * itself for the list's end.  The second word is the memdesc of the
 * block's second page, a free page that heads nothing: its bits 6-9 hold
 * the order (a block of order >= 1 starts at an even pfn, so both words
 * lie on one line of the memmap).  Twenty-nine bits of pfn: 2 TiB of RAM
 * at 4 KiB pages, 8 TiB at 16 KiB, 32 TiB at 64 KiB (memmap_create()
 * refuses more); an order in every head's own word, as before, would leave
 * 28 bits, 1 TiB.  The plan does not draw the struct; this is the suite's
 * reading of it.  A list operation writes the memdescs of the entry and
 * its neighbours, as list_add()/list_del() write their struct pages.
 *
 * Descriptors (memdesc.h, field by field): struct folio, 80 bytes, for
 * order-0 folios, and struct folio_large, 112 bytes as FolioAlloc has it
 * (160 with --large-desc=full), for larger ones, each
 * from its own cache; the memdesc plan keeps memcg_data and the pincount,
 * so the often-quoted 64-byte folio does not hold: an order-0 folio costs
 * 8 + 80 = 88 bytes, an order-2 one 4 * 8 + 112 = 144.  Every memdesc of a
 * 2^k folio points to its one descriptor.  The others (struct slab 64,
 * ptdesc 64, zpdesc 48, bump 48 bytes, before TYPESAFE_BY_RCU's free
 * pointer) are memdesc.h's too, shared with page32; anon folios take the
 * same two descriptors from caches of their own.
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

#define MEMDESC8_STATE_SHIFT	4
#define MEMDESC8_STATE_MASK	(0x3UL << MEMDESC8_STATE_SHIFT)
#define MEMDESC8_HEADS_ORDER0	1UL	/* the state: heads an order-0 block */
#define MEMDESC8_HEADS_LARGER	2UL	/* heads a block whose order is the second word's */
#define MEMDESC8_LINK_BITS	29
#define MEMDESC8_LINK_MASK	((1UL << MEMDESC8_LINK_BITS) - 1)
#define MEMDESC8_LINK_NIL	(~0UL)	/* a list end: stored as a link to the entry itself */
#define MEMDESC8_NEXT_SHIFT	6
#define MEMDESC8_PREV_SHIFT	(MEMDESC8_NEXT_SHIFT + MEMDESC8_LINK_BITS)
#define MEMDESC8_LOW_MASK	((1UL << MEMDESC8_NEXT_SHIFT) - 1)
#define MEMDESC8_ORDER_SHIFT	6	/* in the second word, which no list links */
#define MEMDESC8_ORDER_MASK	(0xfUL << MEMDESC8_ORDER_SHIFT)
/* pfns a link can name: memmap_create() refuses a larger memmap. */
#define LAYOUT_MAX_PFNS		(1UL << MEMDESC8_LINK_BITS)
_Static_assert(MEMDESC8_PREV_SHIFT + MEMDESC8_LINK_BITS == 64, "the links fill the word");
_Static_assert(MEMDESC8_STATE_SHIFT + 2 == MEMDESC8_NEXT_SHIFT, "the state fills bits 4-5");
_Static_assert(BASE_PAGE_MAX_PAGE_ORDER < 16, "an order fits the second word's 4 bits");

static inline int memdesc_page_buddy_order(const struct page *page)
{
	memdesc_t m = page->memdesc;

	if (!memdesc_is_buddy(m))
		return -1;
	switch ((m & MEMDESC8_STATE_MASK) >> MEMDESC8_STATE_SHIFT) {
	case MEMDESC8_HEADS_ORDER0:
		return 0;
	case MEMDESC8_HEADS_LARGER:
		return (int)((page[1].memdesc & MEMDESC8_ORDER_MASK) >> MEMDESC8_ORDER_SHIFT);
	default:
		return -1;
	}
}

/* A block's head about to be listed: the tag and what it heads, no links yet; the order. */
static inline void memdesc_page_set_buddy(struct page *page, unsigned int order)
{
	if (!order) {
		page->memdesc = MEMDESC_BUDDY | MEMDESC8_HEADS_ORDER0 << MEMDESC8_STATE_SHIFT;
		return;
	}
	page->memdesc = MEMDESC_BUDDY | MEMDESC8_HEADS_LARGER << MEMDESC8_STATE_SHIFT;
	page[1].memdesc = MEMDESC_FREE | (memdesc_t)order << MEMDESC8_ORDER_SHIFT;
}

/* Off its list: both words back to free pages that head nothing. */
static inline void memdesc_page_clear_buddy(struct page *page)
{
	if ((page->memdesc & MEMDESC8_STATE_MASK) >> MEMDESC8_STATE_SHIFT == MEMDESC8_HEADS_LARGER)
		page[1].memdesc = MEMDESC_FREE;
	page->memdesc = MEMDESC_FREE;
}

/* The link at shift of pfn's word m: a pfn, or MEMDESC8_LINK_NIL where it names pfn itself. */
static inline unsigned long memdesc8_link(memdesc_t m, unsigned int shift, unsigned long pfn)
{
	unsigned long to = (m >> shift) & MEMDESC8_LINK_MASK;

	return to == pfn ? MEMDESC8_LINK_NIL : to;
}

/* The word's link field at shift for to, seen from pfn. */
static inline memdesc_t memdesc8_link_bits(unsigned long pfn, unsigned int shift, unsigned long to)
{
	return (memdesc_t)((to == MEMDESC8_LINK_NIL ? pfn : to) & MEMDESC8_LINK_MASK) << shift;
}

static inline void memdesc8_set_link(struct memmap *mm, unsigned long pfn, unsigned int shift,
				     unsigned long to)
{
	struct page *page = (struct page *)mm->map + pfn;
	memdesc_t m = page->memdesc & ~(MEMDESC8_LINK_MASK << shift);

	__atomic_store_n(&page->memdesc, m | memdesc8_link_bits(pfn, shift, to), __ATOMIC_RELAXED);
}

/* INIT_LIST_HEAD(): both ends nil. */
static inline void free_list_init(struct free_list *list)
{
	list->end[0] = list->end[1] = MEMDESC8_LINK_NIL;
	list->nr = 0;
}

/* list_add()/list_add_tail() in pfn links: the entry, then each neighbour or the list's end. */
static inline void free_list_add(struct memmap *mm, struct free_list *list, unsigned long pfn,
				 bool tail)
{
	unsigned long prev = tail ? list->end[1] : MEMDESC8_LINK_NIL;
	unsigned long next = tail ? MEMDESC8_LINK_NIL : list->end[0];
	struct page *page = (struct page *)mm->map + pfn;

	page->memdesc = (page->memdesc & MEMDESC8_LOW_MASK) |
			memdesc8_link_bits(pfn, MEMDESC8_NEXT_SHIFT, next) |
			memdesc8_link_bits(pfn, MEMDESC8_PREV_SHIFT, prev);
	if (next == MEMDESC8_LINK_NIL)
		list->end[1] = pfn;
	else
		memdesc8_set_link(mm, next, MEMDESC8_PREV_SHIFT, pfn);
	if (prev == MEMDESC8_LINK_NIL)
		list->end[0] = pfn;
	else
		memdesc8_set_link(mm, prev, MEMDESC8_NEXT_SHIFT, pfn);
	list->nr++;
}

/* list_del(): the neighbours (or the ends) linked past the entry; its links cleared. */
static inline void free_list_del(struct memmap *mm, struct free_list *list, unsigned long pfn)
{
	struct page *page = (struct page *)mm->map + pfn;
	memdesc_t m = page->memdesc;
	unsigned long next = memdesc8_link(m, MEMDESC8_NEXT_SHIFT, pfn);
	unsigned long prev = memdesc8_link(m, MEMDESC8_PREV_SHIFT, pfn);

	if (next == MEMDESC8_LINK_NIL)
		list->end[1] = prev;
	else
		memdesc8_set_link(mm, next, MEMDESC8_PREV_SHIFT, prev);
	if (prev == MEMDESC8_LINK_NIL)
		list->end[0] = next;
	else
		memdesc8_set_link(mm, prev, MEMDESC8_NEXT_SHIFT, next);
	page->memdesc = m & MEMDESC8_LOW_MASK;
	list->nr--;
}

static inline long free_list_first(const struct memmap *mm, const struct free_list *list, bool last)
{
	(void)mm;
	return list->nr ? (long)list->end[last] : -1;
}

static inline bool free_list_contains(const struct memmap *mm, const struct free_list *list,
				      unsigned long pfn)
{
	unsigned long pos = list->nr ? list->end[0] : MEMDESC8_LINK_NIL;

	while (pos != MEMDESC8_LINK_NIL && pos != pfn)
		pos = memdesc8_link(((const struct page *)mm->map)[pos].memdesc, MEMDESC8_NEXT_SHIFT, pos);
	return pos == pfn;
}

#include "memdesc_api.h"

#endif /* MDB_MEMDESC8_H */
