/* SPDX-License-Identifier: GPL-2.0 */
/*
 * free_list.h - the free lists of a layout whose struct page has a
 * list_head buddy_list (page64, page64md, page32): include/linux/list.h's list_add(),
 * list_add_tail() and list_del() on the entries themselves, as the buddy
 * and the per-cpu lists link them (buddy.h).  Each link writes the entry
 * and its neighbours' entries: the lines a free or an allocation touches
 * beyond the block's own.  Included by the layout once struct page is
 * complete.
 */
#ifndef MDB_FREE_LIST_H
#define MDB_FREE_LIST_H

static inline struct page *buddy_list_page(const struct list_head *entry)
{
	return (struct page *)((char *)entry - offsetof(struct page, buddy_list));
}

/* INIT_LIST_HEAD(). */
static inline void free_list_init(struct free_list *list)
{
	list->head.next = list->head.prev = &list->head;
	list->nr = 0;
}

/* list_add() (at the head) or list_add_tail(): __list_add() between prev and next. */
static inline void free_list_add(struct memmap *mm, struct free_list *list, unsigned long pfn,
				 bool tail)
{
	struct list_head *entry = &pfn_to_page(mm, pfn)->buddy_list;
	struct list_head *prev = tail ? list->head.prev : &list->head, *next = prev->next;

	next->prev = entry;
	entry->next = next;
	entry->prev = prev;
	__atomic_store_n(&prev->next, entry, __ATOMIC_RELAXED);	/* WRITE_ONCE() */
	list->nr++;
}

/* list_del(): the neighbours linked past the entry, the entry poisoned. */
static inline void free_list_del(struct memmap *mm, struct free_list *list, unsigned long pfn)
{
	struct list_head *entry = &pfn_to_page(mm, pfn)->buddy_list;

	entry->next->prev = entry->prev;
	__atomic_store_n(&entry->prev->next, entry->next, __ATOMIC_RELAXED);
	entry->next = (struct list_head *)LIST_POISON1;
	entry->prev = (struct list_head *)LIST_POISON2;
	list->nr--;
}

/* list_first_entry_or_null(), or the last entry; -1 when empty. */
static inline long free_list_first(const struct memmap *mm, const struct free_list *list, bool last)
{
	const struct list_head *entry = last ? list->head.prev : list->head.next;

	if (entry == &list->head)
		return -1;
	return (long)page_to_pfn(mm, buddy_list_page(entry));
}

/* Whether pfn's entry is on the list (a walk: for page_info(), not for kernels). */
static inline bool free_list_contains(const struct memmap *mm, const struct free_list *list,
				      unsigned long pfn)
{
	const struct list_head *entry = &pfn_to_page(mm, pfn)->buddy_list, *pos;

	for (pos = list->head.next; pos != &list->head; pos = pos->next)
		if (pos == entry)
			return true;
	return false;
}

#endif /* MDB_FREE_LIST_H */
