// SPDX-License-Identifier: GPL-2.0
/*
 * hvo_remap.c - what HVO costs a hugetlb allocation and free: the remapping
 * of a folio's vmemmap, per layout.
 *
 * hvo/restore-optimise-2m, hvo/restore-optimise-1g: one op is one folio of
 * the mix (its 2 MiB or 1 GiB hugetlb folios, in random order) restored
 * and optimised again: hugetlb_vmemmap_restore_folio(), which
 * __update_and_free_hugetlb_folio() calls before a surplus or dissolved
 * folio goes back to the buddy, then hugetlb_vmemmap_optimize_folio(),
 * which alloc_fresh_hugetlb_folio() calls before a new one enters the pool
 * (ops->hvo_restore(), ops->hvo_optimise(); machine/hvo.h).  Restoring maps
 * the folio's vmemmap beyond its first page read-write onto pages of its
 * own and copies into each what it read through the shared page;
 * optimising maps each of those pages read-only onto the shared page again
 * (one mmap(MAP_FIXED) per page: the PTE rewrite and, for the mapping it
 * replaces, the zap and TLB flush) and gives its pages back
 * (fallocate(PUNCH_HOLE)).  restore_ns and optimise_ns split each op's
 * time, clock_gettime() around each half.  Left out: the buddy allocation of
 * the folio itself, the cross-CPU TLB shootdown (one CPU here), the vmemmap
 * PMD split (the memfd is 4 KiB-mapped from the start) and the head page's
 * copy to a new page; what a syscall adds to the kernel's own page-table
 * walk is in.  Runs only with HVO on, on mixes with such folios, and only on
 * layouts where HVO frees pages of them (memdesc8's 2 MiB folios fill one
 * page: nothing to remap; applies).
 */
#include <stdio.h>
#include <time.h>

#include "bench.h"

/*
 * top: the mix's PUD-level folios (1 GiB at 4k), at the base page's largest
 * hstate; else its PMD-level ones (mix_translate()).  The names keep the
 * 4 KiB sizes: conditions.base_page.hugetlb says what they are at the run's.
 */
struct remap_kernel {
	const char *name;
	bool top;
};

static unsigned int remap_order(const struct remap_kernel *k)
{
	return k->top ? HUGETLB_ORDER_PUD : HUGETLB_ORDER_PMD;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void skip(struct mdb_state *st, const struct remap_kernel *k, const char *why)
{
	char msg[MDB_ERR_LEN];

	snprintf(msg, sizeof(msg), "%s: %s", k->name, why);
	mdb_skip_with_error(st, msg);
}

static void remap(struct mdb_state *st, const struct bench_env *env, const struct remap_kernel *k)
{
	unsigned long pages = hvo_freed_pages(&env->ops->hvo, env->ops->page_size, remap_order(k));
	double restore = 0, optimise = 0, t0, t1, t2;
	struct pfn_list list;
	unsigned long next = 0;
	struct mdb_err err = { { 0 } };

	if (!hvo_map_on(&env->mm->hvo))
		return skip(st, k, "HVO is off: nothing is remapped");
	if (pfn_list_hugetlb_heads(&list, env, remap_order(k), BENCH_LIST_MAX))
		return skip(st, k, "out of memory for the folio list");
	if (!list.nr) {
		pfn_list_release(&list);
		return skip(st, k, "the mix placed no hugetlb folio of that size here");
	}
	while (mdb_keep_running_batch(st, 1)) {
		t0 = now_ns();
		if (env->ops->hvo_restore(env->mm, list.pfn[next], &err))
			break;
		t1 = now_ns();
		if (env->ops->hvo_optimise(env->mm, list.pfn[next], &err))
			break;
		t2 = now_ns();
		restore += t1 - t0;
		optimise += t2 - t1;
		next = bench_list_next(&list, next);
	}
	pfn_list_release(&list);
	if (err.msg[0])
		return mdb_skip_with_error(st, err.msg);
	mdb_set_items_processed(st, mdb_iterations(st));
	mdb_counter(st, "restore_ns", restore / (double)mdb_iterations(st), MDB_COUNTER_PLAIN);
	mdb_counter(st, "optimise_ns", optimise / (double)mdb_iterations(st), MDB_COUNTER_PLAIN);
	mdb_counter(st, "vmemmap_pages_remapped", (double)pages, MDB_COUNTER_PLAIN);
}

static const struct remap_kernel remap_2m = { "hvo/restore-optimise-2m", false };
static const struct remap_kernel remap_1g = { "hvo/restore-optimise-1g", true };

static void hvo_remap_2m(struct mdb_state *st, const struct bench_env *env)
{
	remap(st, env, &remap_2m);
}

static void hvo_remap_1g(struct mdb_state *st, const struct bench_env *env)
{
	remap(st, env, &remap_1g);
}

/* Folios of this order in the mix, and pages HVO frees of them in this layout. */
static bool remaps(const struct mix *mix, const struct layout_ops *ops, unsigned int order)
{
	return ops && mix_has_hugetlb(mix, order) && hvo_freed_pages(&ops->hvo, ops->page_size, order);
}

static bool remaps_2m(const struct mix *mix, const struct layout_ops *ops)
{
	return remaps(mix, ops, HUGETLB_ORDER_PMD);
}

static bool remaps_1g(const struct mix *mix, const struct layout_ops *ops)
{
	return remaps(mix, ops, HUGETLB_ORDER_PUD);
}

MDB_KERNEL(hvo_remap_2m,
	   .name = "hvo/restore-optimise-2m", .class = MDB_MUTATING,
	   .unit = "restore+optimise pair", .run = hvo_remap_2m, .applies = remaps_2m,
	   .flags = MDB_K_HVO | MDB_K_HVO_ON, .sim_ops = 16);

MDB_KERNEL(hvo_remap_1g,
	   .name = "hvo/restore-optimise-1g", .class = MDB_MUTATING,
	   .unit = "restore+optimise pair", .run = hvo_remap_1g, .applies = remaps_1g,
	   .flags = MDB_K_HVO | MDB_K_HVO_ON, .sim_ops = 2);
