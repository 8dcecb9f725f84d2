// SPDX-License-Identifier: GPL-2.0
/*
 * lookup.c - pfn -> page -> what it is, one flag, its reference count.
 *
 * The three questions a pfn walker asks before it touches a page: what kind
 * (PageBuddy/PageSlab/folio_test_anon..., here page_kind()), a flag
 * (PageDirty), and the count get_page() would move (page_ref_count, the
 * folio's for a folio page).  Sequential as /proc/kpageflags, page_idle or a
 * memory_failure() sweep read them; random as a pfn from a PTE or a hardware
 * error report arrives.  Where a layout keeps the answer in a descriptor, the
 * lookup costs a dependent load beyond the memmap; that hop is what the
 * sequential model counts and what the random walk exposes as latency.
 */
#include "bench.h"
#include "lookup_op.h"
#include "model.h"

static void lookup_seq(struct mdb_state *st, const struct bench_env *env)
{
	const struct memmap *mm = env->mm;
	unsigned long pfn = 0, i;

	while (mdb_keep_running_batch(st, BENCH_BATCH)) {
		for (i = 0; i < BENCH_BATCH; i++) {
			lookup_one(mm, pfn);
			if (++pfn == env->nr_pfns)
				pfn = 0;
		}
	}
	mdb_set_items_processed(st, mdb_iterations(st));
}

static void lookup_random(struct mdb_state *st, const struct bench_env *env)
{
	const struct memmap *mm = env->mm;
	struct pfn_list list;
	unsigned long next = 0, i;

	if (!bench_random_list(st, &list, env, SELECT_ANY, "lookup/random", "the memmap has no pfn"))
		return;
	bench_list_for_each_op(st, &list, next, i)
		lookup_one(mm, list.pfn[next]);
	mdb_set_items_processed(st, mdb_iterations(st));
	pfn_list_release(&list);
}

MDB_KERNEL(lookup_seq,
	   .name = "lookup/seq", .class = MDB_SEQUENTIAL, .unit = "lookup",
	   .run = lookup_seq,
	   .sim_ops = 1 << 18, .model = model_lookup_seq);

MDB_KERNEL(lookup_random,
	   .name = "lookup/random", .class = MDB_DEPENDENT, .unit = "lookup",
	   .run = lookup_random,
	   .sim_ops = 1 << 16);
