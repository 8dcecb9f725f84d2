/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - what the kernels in bench/ share: a seeded generator, and the
 * pfn lists random kernels walk.
 *
 * Random orders are built before timing, never inside the timed loop: a
 * kernel walks a shuffled array of pfns front to back and cycles.  Reading
 * that array costs one sequential 64-byte line per 16 ops, the same in every
 * layout, and the hardware prefetcher hides it; an inline generator would
 * instead put its own arithmetic on every op.  A random walk's list holds
 * every pfn its selection picks, up to BENCH_LIST_MAX (2^26: 256 GiB of
 * 4 KiB pages), so that at production sizes the walk covers the whole
 * memmap, as a production one does, rather than a sample that a cache
 * holds.  The list then passes the caches too (4 bytes a pfn: 64 MiB at
 * 64 GiB of RAM): it streams from memory at one sequential line per 16
 * ops, 4 bytes an op against the memmap's 8 to 64 bytes and a dependent
 * miss, prefetched, and the same in every layout.
 *
 * The lists are built through layout_ops.page_info(), the layout-independent
 * view, so every layout walks the same pfns in the same order for a given
 * mix and seed: a difference between layouts is the layout's, not the list's.
 */
#ifndef MDB_BENCH_H
#define MDB_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel.h"
#include "rng.h"

#define BENCH_LIST_MAX		(1UL << 26)

/*
 * Ops per mdb_keep_running_batch() of the memmap kernels.  Small, so that
 * what the harness touches between batches stays in L1 while the memmap
 * streams past (at 64 ops a batch brings in at most ~180 lines, a third of
 * a 32 KiB L1); a larger batch would add the harness's own misses to the
 * simulated misses per op.  The call costs a few ns, under 0.1 ns an op.
 */
#define BENCH_BATCH		64

/* pfns fit 32 bits up to 16 TiB of modelled RAM; half the bytes of a long. */
struct pfn_list {
	uint32_t *pfn;
	unsigned long nr;
};

enum pfn_select {
	SELECT_ANY,		/* every pfn */
	SELECT_FOLIO_PAGE,	/* any page of a folio (anon, file, hugetlb) */
	SELECT_FOLIO_TAIL,	/* a page of a large folio other than its head */
	SELECT_HUGETLB_PAGE,	/* any page of a hugetlb folio */
	SELECT_HUGETLB_TAIL_2M,	/* a tail of a 2 MiB hugetlb folio */
	SELECT_HUGETLB_TAIL_1G,	/* a tail of a 1 GiB hugetlb folio */
};

/*
 * Fills list with a random order of the pfns that select picks: a permutation
 * of all of them when there are at most max, else max picked at random (with
 * repetition).  0 on success (nr may be 0: nothing matched); -1 when out of
 * memory.  The same draw again on the same memmap is a copy of the last one.
 */
int pfn_list_random(struct pfn_list *list, const struct bench_env *env, enum pfn_select select,
		    unsigned long max);
/*
 * Head pfns of the folios of this order, shuffled; all of them, up to max.
 * The array has room for nr_pfns >> order entries, as many as could exist.
 */
int pfn_list_folio_heads(struct pfn_list *list, const struct bench_env *env, unsigned int order,
			 unsigned long max);
/* The same for hugetlb folios of this order. */
int pfn_list_hugetlb_heads(struct pfn_list *list, const struct bench_env *env, unsigned int order,
			   unsigned long max);
void pfn_list_release(struct pfn_list *list);

/*
 * The set-up of a kernel that walks a random list: fills list as
 * pfn_list_random() does, or skips the run ("<kernel>: out of memory for the
 * pfn list", or "<kernel>: <empty>" when nothing matched) and returns false
 * with nothing left to release.
 */
bool bench_random_list(struct mdb_state *st, struct pfn_list *list, const struct bench_env *env,
		       enum pfn_select select, const char *kernel, const char *empty);

/*
 * The timed loop of a list-walking kernel: batches of BENCH_BATCH ops for as
 * long as the harness asks, the body's pfn list->pfn[next], cycling.  A
 * macro so the body stays inlined in the kernel, an op costing its own work
 * and one sequential load; next and i are the kernel's unsigned longs, next
 * starting at bench_list_first().
 */
#define bench_list_for_each_op(st, list, next, i)				\
	while (mdb_keep_running_batch(st, BENCH_BATCH))				\
		for (i = 0; i < BENCH_BATCH;					\
		     i++, next = bench_list_next(list, next))

/*
 * Where a run's walk of list starts: another place each run (a counter
 * through splitmix64, the same sequence on every host).  A run walks a few
 * milliseconds of the list; every run starting at entry 0 walked the same
 * first entries again, whose lines the runs before had left in the cache,
 * so a walk over a memmap 64x the LLC was timed on a megabyte of it (a round's
 * ten short runs of folio/tail-dep fell from 298 to 107 ns).
 */
unsigned long bench_list_first(const struct pfn_list *list);

static inline unsigned long bench_list_next(const struct pfn_list *list, unsigned long next)
{
	return next + 1 == list->nr ? 0 : next + 1;
}

/*
 * 0, read from memory at run time (a volatile global), so the compiler cannot
 * know it: pfn + (result & zero) is pfn, yet it is an and and an add the
 * compiler must emit and the CPU must wait for, which makes the next op's
 * address depend on the previous op's result (bench/walk.h).  No CPU in use
 * predicts a load's value, so the chain holds at run time as well.
 */
unsigned long bench_opaque_zero(void);

#endif /* MDB_BENCH_H */
