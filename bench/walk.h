/* SPDX-License-Identifier: GPL-2.0 */
/*
 * walk.h - the three ways a random kernel walks its shuffled pfn list
 * (bench.h), for files compiled once per layout:
 *
 *  - throughput ("lookup/random"): each op's pfn is the list's next entry,
 *    known ahead, so the CPU runs several ops' misses at once and the time
 *    per op is below the latency of one miss: a batch of independent
 *    lookups, as a scan of a list of pfns does.
 *  - dependent ("-dep"): the op's pfn is the list's next entry plus the
 *    previous op's result and'ed with bench_opaque_zero(), so the pfn, the
 *    same as in the throughput walk, is known only once the previous op's
 *    last load has returned: one chain of misses, what a page-table walk or
 *    memory_failure(pfn) pays, where each lookup needs the one before.  The
 *    entry is read from the list ahead of time (the list is sequential), so
 *    the chain adds an and and an add per op, nothing the memmap does not
 *    cost.
 *  - cold ("-cold"): the dependent walk, with every line the next COLD_OPS
 *    ops will read flushed from every cache and the TLB swept before them,
 *    timing paused (cold.h): a kernel path that starts cold.
 *  - warm ("-warm"): the throughput walk over the list's first WARM_PFNS
 *    entries only, so every line an op reads is in L1 from the second lap
 *    on: the folio a page fault has just found (filemap_map_pages(),
 *    do_wp_page(): the fault read its PTE and looked the folio up first),
 *    whose reference costs what the layout's atomics cost, not a miss.
 *
 * An op is a function (const struct memmap *, pfn) -> a value that depends
 * on every load it made; bench_walk() inlines it into each loop.
 */
#ifndef MDB_WALK_H
#define MDB_WALK_H

#include "bench.h"
#include "cold.h"

enum walk_mode {
	WALK_THROUGHPUT,
	WALK_DEPENDENT,
	WALK_COLD,
	WALK_WARM,
};

/* Pfns the warm walk cycles over: their lines (a folio, its entry: at most 4 each) fit any L1. */
#define WARM_PFNS	16

struct walk_kernel {
	const char *name;		/* for the reasons of a skip */
	enum pfn_select select;
	const char *empty;		/* why there is no pfn to walk */
};

typedef unsigned long walk_op(const struct memmap *mm, unsigned long pfn);

/*
 * Every line an op on pfn may read: its memmap entry, its folio (page64:
 * the head entry and the three tails struct folio spans) or the head entry
 * of its unit.  Reading them to find them brings them in; the flush then
 * takes them out of every level.
 */
/* The bytes of struct folio to flush: one that overlays the memmap ends with it. */
static inline size_t walk_folio_bytes(const struct memmap *mm, const struct folio *folio)
{
	const char *f = (const char *)folio, *end = (const char *)pfn_to_page(mm, mm->nr_pfns);

	if (f >= (const char *)mm->map && f < end && (size_t)(end - f) < sizeof(*folio))
		return (size_t)(end - f);
	return sizeof(*folio);
}

static inline void walk_flush_pfn(const struct memmap *mm, unsigned long pfn)
{
	const struct page *page = pfn_to_page(mm, pfn);
	const struct folio *folio = page_folio(mm, page);
	unsigned int order;

	cold_flush(page, sizeof(*page));
	if (folio)
		cold_flush(folio, walk_folio_bytes(mm, folio));
	else if (page_kind(mm, page) != PK_FREE)
		cold_flush(pfn_to_page(mm, page_head_pfn(mm, page, &order)), sizeof(*page));
}

static inline __attribute__((always_inline))
void walk_cold(struct mdb_state *st, const struct memmap *mm,
			     const struct pfn_list *list, walk_op *op)
{
	unsigned long zero = bench_opaque_zero(), dep = 0, next = bench_list_first(list), n, i;
	const struct cold *cold = cold_buffer();

	if (!cold) {
		mdb_skip_with_error(st, "cold walk: cannot map the TLB sweep's buffer");
		return;
	}
	while (mdb_keep_running_batch(st, COLD_OPS)) {
		mdb_pause_timing(st);
		for (i = 0, n = next; i < COLD_OPS; i++, n = bench_list_next(list, n))
			walk_flush_pfn(mm, list->pfn[n]);
		cold_sweep(cold);
		mdb_resume_timing(st);
		for (i = 0; i < COLD_OPS; i++, next = bench_list_next(list, next))
			dep = op(mm, list->pfn[next] + (dep & zero));
	}
	mdb_do_not_optimize(dep);
	mdb_counter(st, "ops_per_eviction", COLD_OPS, MDB_COUNTER_PLAIN);
}

/* mode and op are constants at every call: each kernel gets its own loop. */
static inline __attribute__((always_inline))
void bench_walk(struct mdb_state *st, const struct bench_env *env, const struct walk_kernel *w,
		enum walk_mode mode, walk_op *op)
{
	const struct memmap *mm = env->mm;
	unsigned long zero = bench_opaque_zero(), dep = 0, next = 0, i;
	struct pfn_list list;

	if (mode == WALK_COLD && !cold_supported()) {
		mdb_skip_with_error(st, "cold walk: no cache-line flush on this architecture");
		return;
	}
	if (!bench_random_list(st, &list, env, w->select, w->name, w->empty))
		return;
	switch (mode) {
	case WALK_WARM:
		if (list.nr > WARM_PFNS)
			list.nr = WARM_PFNS;
		bench_list_for_each_op(st, &list, next, i)
			mdb_do_not_optimize(op(mm, list.pfn[next]));
		break;
	case WALK_THROUGHPUT:
		next = bench_list_first(&list);
		bench_list_for_each_op(st, &list, next, i)
			mdb_do_not_optimize(op(mm, list.pfn[next]));
		break;
	case WALK_DEPENDENT:
		next = bench_list_first(&list);
		bench_list_for_each_op(st, &list, next, i)
			dep = op(mm, list.pfn[next] + (dep & zero));
		mdb_do_not_optimize(dep);
		break;
	case WALK_COLD:
		walk_cold(st, mm, &list, op);
		break;
	}
	mdb_set_items_processed(st, mdb_iterations(st));
	pfn_list_release(&list);
}

#endif /* MDB_WALK_H */
