/* SPDX-License-Identifier: GPL-2.0 */
/*
 * buddy.h - the page allocator's free lists (struct buddy in layout.h),
 * written once and compiled per layout: the lists are linked through the
 * memmap, so each list operation is the layout's (free_list_add(),
 * free_list_del(), free_list_first() and free_list_init() in the layout
 * header), and so are PageBuddy and the order (buddy_set_free(),
 * buddy_clear(), page_buddy_order()).  The same events run on every layout.
 *
 * From mm/page_alloc.c (6.18), with one zone, one migratetype and one CPU:
 *  - __free_one_page(): while below MAX_PAGE_ORDER, the buddy's pfn
 *    (__find_buddy_pfn(): pfn ^ 1 << order), page_is_buddy() (PageBuddy
 *    and buddy_order() == order), del_page_from_free_list(), merge; then
 *    set_buddy_order() and the free list, at the tail when the caller says
 *    so (FPI_TO_TAIL: boot) or when buddy_merge_likely() finds the merged
 *    block's own buddy free, at the head otherwise;
 *  - __rmqueue_smallest(): the first block of the smallest order that has
 *    one (get_page_from_free_area()), del_page_from_free_list(), then
 *    expand(): the upper halves back at their lists' heads;
 *  - rmqueue_pcplist(): orders pcp_allowed_order() admits come from the
 *    per-cpu list (list_first_entry(), list_del()), refilled when empty by
 *    rmqueue_bulk(): nr_pcp_alloc() blocks, each __rmqueue_smallest(),
 *    list_add_tail();
 *  - free_frozen_pages() -> free_unref_page_commit(): list_add() to the
 *    per-cpu list (LIFO); at pcp->high, free_pcppages_bulk(): nr_pcp_free()
 *    pages round-robin from the lists' tails (list_last_entry()), each
 *    through __free_one_page().
 * The pcp's sizes are machine/pcp.h's (batch 63, high at zone_highsize()'s
 * floor, batch << 2); no batch scaling (CONFIG_PCP_BATCH_SCALE_MAX 0: alloc_factor and free_count
 * stay at one batch), no free_high.  Left out: the zone lock and pcp
 * spinlock, watermarks, the vmstat counters, migratetypes and fallbacks,
 * page_reporting, the free-page shuffle.
 */
#ifndef MDB_BUDDY_H
#define MDB_BUDDY_H

#include "layout.h"
#include "pcp.h"

/* FPI_TO_TAIL: boot and hot-plug put fresh blocks at the tail. */
enum fpi { FPI_NONE, FPI_TO_TAIL };

/* order_to_pindex(); -1: pcp_allowed_order() says no. */
static inline int pcp_index(unsigned int order)
{
	if (order <= PAGE_ALLOC_COSTLY_ORDER)
		return (int)order;
	return order == PAGEBLOCK_ORDER ? PAGE_ALLOC_COSTLY_ORDER + 1 : -1;
}

static inline unsigned int pcp_order(int pindex)
{
	return pindex <= PAGE_ALLOC_COSTLY_ORDER ? (unsigned int)pindex : PAGEBLOCK_ORDER;
}

/* Empty lists, as zone_init_free_lists() and setup_pageset() leave them. */
static inline void buddy_reset(struct memmap *mm)
{
	struct buddy *b = &mm->buddy;
	unsigned int i;

	for (i = 0; i <= MAX_PAGE_ORDER; i++)
		free_list_init(&b->free_area[i]);
	for (i = 0; i < NR_PCP_LISTS; i++)
		free_list_init(&b->pcp.lists[i]);
	b->pcp.count = 0;
	b->pcp.batch = PCP_BATCH;
	b->pcp.high = PCP_HIGH;
}

/* set_buddy_order() + __add_to_free_list(). */
static inline void buddy_add(struct memmap *mm, unsigned long pfn, unsigned int order, bool tail)
{
	buddy_set_free(mm, pfn, order);
	free_list_add(mm, &mm->buddy.free_area[order], pfn, tail);
}

/* del_page_from_free_list(): off the list, then __ClearPageBuddy() and the order. */
static inline void buddy_del(struct memmap *mm, unsigned long pfn, unsigned int order)
{
	free_list_del(mm, &mm->buddy.free_area[order], pfn);
	buddy_clear(mm, pfn);
}

/* page_is_buddy() of the block of this order at pfn. */
static inline bool buddy_is_free(const struct memmap *mm, unsigned long pfn, unsigned int order)
{
	return pfn < mm->nr_pfns && page_buddy_order(mm, pfn_to_page(mm, pfn)) == (int)order;
}

/*
 * buddy_merge_likely(): whether the block's buddy one order up is free,
 * so that the block should wait at the tail for it.
 */
static inline bool buddy_merge_likely(const struct memmap *mm, unsigned long pfn, unsigned int order)
{
	unsigned long higher;

	if (order >= MAX_PAGE_ORDER - 1)
		return false;
	higher = pfn & ~(1UL << order);
	return buddy_is_free(mm, higher ^ (1UL << (order + 1)), order + 1);
}

/* __free_one_page(): merge with free buddies, then list the result. */
static inline void buddy_free_one(struct memmap *mm, unsigned long pfn, unsigned int order,
				  enum fpi fpi)
{
	while (order < MAX_PAGE_ORDER) {
		unsigned long buddy = pfn ^ (1UL << order);

		if (!buddy_is_free(mm, buddy, order))
			break;
		buddy_del(mm, buddy, order);
		pfn &= buddy;
		order++;
	}
	buddy_add(mm, pfn, order, fpi == FPI_TO_TAIL || buddy_merge_likely(mm, pfn, order));
}

/* __rmqueue_smallest() + expand(); -1 when no block is large enough. */
static inline long buddy_rmqueue_smallest(struct memmap *mm, unsigned int order)
{
	unsigned int got;
	long pfn;

	for (got = order; got <= MAX_PAGE_ORDER; got++) {
		pfn = free_list_first(mm, &mm->buddy.free_area[got], false);
		if (pfn >= 0)
			break;
	}
	if (got > MAX_PAGE_ORDER)
		return -1;
	buddy_del(mm, (unsigned long)pfn, got);
	while (got > order) {
		got--;
		buddy_add(mm, (unsigned long)pfn + (1UL << got), got, false);
	}
	return pfn;
}

/* nr_pcp_alloc() without batch scaling. */
static inline int pcp_nr_alloc(const struct per_cpu_pages *pcp, unsigned int order)
{
	int batch = pcp->batch, room = pcp->high - pcp->count - pcp->batch;

	if (!order && batch > room)
		batch = room > pcp->batch ? room : pcp->batch;
	if (batch > 1) {
		batch >>= order;
		if (batch < 2)
			batch = 2;
	}
	return batch;
}

/* __rmqueue_pcplist(): the list's first block, after rmqueue_bulk() if it is empty. */
static inline long pcp_rmqueue(struct memmap *mm, unsigned int order, int pindex)
{
	struct per_cpu_pages *pcp = &mm->buddy.pcp;
	struct free_list *list = &pcp->lists[pindex];
	long pfn;
	int i, batch;

	if (!list->nr) {
		batch = pcp_nr_alloc(pcp, order);
		for (i = 0; i < batch; i++) {
			pfn = buddy_rmqueue_smallest(mm, order);
			if (pfn < 0)
				break;
			free_list_add(mm, list, (unsigned long)pfn, true);
			pcp->count += 1 << order;
		}
	}
	pfn = free_list_first(mm, list, false);
	if (pfn < 0)
		return -1;
	free_list_del(mm, list, (unsigned long)pfn);
	pcp->count -= 1 << order;
	return pfn;
}

/* rmqueue(): 2^order free pfns, through the pcp where it takes the order; -1: none. */
static inline long buddy_alloc(struct memmap *mm, unsigned int order)
{
	int pindex = pcp_index(order);

	return pindex >= 0 ? pcp_rmqueue(mm, order, pindex) : buddy_rmqueue_smallest(mm, order);
}

/* free_pcppages_bulk(): count pages, round-robin from pindex, oldest first. */
static inline void pcp_free_bulk(struct memmap *mm, int count, int pindex)
{
	struct per_cpu_pages *pcp = &mm->buddy.pcp;
	struct free_list *list;
	unsigned int order;
	long pfn;

	if (count > pcp->count)
		count = pcp->count;
	pindex--;
	while (count > 0) {
		do {
			if (++pindex > NR_PCP_LISTS - 1)
				pindex = 0;
			list = &pcp->lists[pindex];
		} while (!list->nr);
		order = pcp_order(pindex);
		do {
			pfn = free_list_first(mm, list, true);
			free_list_del(mm, list, (unsigned long)pfn);
			count -= 1 << order;
			pcp->count -= 1 << order;
			buddy_free_one(mm, (unsigned long)pfn, order, FPI_NONE);
		} while (count > 0 && list->nr);
	}
}

/*
 * __free_pages() of a block whose memmap entries are already free: onto
 * the pcp (free_unref_page_commit()) or straight to __free_one_page(); a
 * gigantic block as free_contig_range() gives it back, in MAX_PAGE_ORDER
 * blocks.
 */
static inline void buddy_free(struct memmap *mm, unsigned long pfn, unsigned int order)
{
	struct per_cpu_pages *pcp = &mm->buddy.pcp;
	int pindex = pcp_index(order);
	unsigned long i;

	if (order > MAX_PAGE_ORDER) {
		for (i = 0; i < 1UL << order; i += 1UL << MAX_PAGE_ORDER)
			buddy_free_one(mm, pfn + i, MAX_PAGE_ORDER, FPI_NONE);
		return;
	}
	if (pindex < 0) {
		buddy_free_one(mm, pfn, order, FPI_NONE);
		return;
	}
	free_list_add(mm, &pcp->lists[pindex], pfn, false);
	pcp->count += 1 << order;
	if (pcp->count >= pcp->high)
		pcp_free_bulk(mm, pcp->batch, pindex);
}

/* The pcp list block holding pfn: its head and order; false if none does. */
static inline bool pcp_find(const struct memmap *mm, unsigned long pfn, unsigned long *head,
			    unsigned int *order)
{
	int pindex;

	for (pindex = 0; pindex < NR_PCP_LISTS; pindex++) {
		unsigned int o = pcp_order(pindex);
		unsigned long h = pfn & ~((1UL << o) - 1);

		if (free_list_contains(mm, &mm->buddy.pcp.lists[pindex], h)) {
			*head = h;
			*order = o;
			return true;
		}
	}
	return false;
}

#endif /* MDB_BUDDY_H */
