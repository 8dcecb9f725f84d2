// SPDX-License-Identifier: GPL-2.0
/*
 * folio.c - from a page to its folio, and the folio's reference count.
 *
 * folio/tail: page_folio() on a tail page, then one folio field
 * (folio_mapping(), as rmap and the page cache read it next).  page64 reads
 * compound_head from the tail's own struct page and lands on the head; page32
 * and memdesc8 follow the memdesc to a separate descriptor.  Random tails, so
 * each op pays the tail's line and the folio's line.
 *
 * folio/getput: folio_get() then folio_put() on the folio of a random folio
 * page, as a GUP-fast or a page-cache lookup takes and drops a reference:
 * one atomic increment and one atomic decrement-and-test where the layout
 * keeps the count.
 */
#include "bench.h"

static void folio_tail(struct mdb_state *st, const struct bench_env *env)
{
	const struct memmap *mm = env->mm;
	struct pfn_list list;
	unsigned long next = 0, i;

	if (!bench_random_list(st, &list, env, SELECT_FOLIO_TAIL, "folio/tail",
			       "the mix has no large folio, so no tail page"))
		return;
	bench_list_for_each_op(st, &list, next, i) {
		const struct folio *folio = page_folio(mm, pfn_to_page(mm, list.pfn[next]));
		uintptr_t mapping = folio_mapping(folio);

		mdb_do_not_optimize(mapping);
	}
	mdb_set_items_processed(st, mdb_iterations(st));
	pfn_list_release(&list);
}

static void folio_getput(struct mdb_state *st, const struct bench_env *env)
{
	const struct memmap *mm = env->mm;
	struct pfn_list list;
	unsigned long next = 0, i;

	if (!bench_random_list(st, &list, env, SELECT_FOLIO_PAGE, "folio/getput",
			       "the mix has no folio"))
		return;
	bench_list_for_each_op(st, &list, next, i) {
		struct folio *folio = page_folio(mm, pfn_to_page(mm, list.pfn[next]));
		bool last;

		folio_get(folio);
		last = folio_put(folio);	/* never: the mix holds a reference */
		mdb_do_not_optimize(last);
	}
	mdb_set_items_processed(st, mdb_iterations(st));
	pfn_list_release(&list);
}

MDB_KERNEL(folio_tail,
	   .name = "folio/tail", .class = MDB_DEPENDENT, .unit = "tail page",
	   .run = folio_tail,
	   .sim_ops = 1 << 16);

MDB_KERNEL(folio_getput,
	   .name = "folio/getput", .class = MDB_DEPENDENT, .unit = "get+put pair",
	   .run = folio_getput,
	   .sim_ops = 1 << 16);
