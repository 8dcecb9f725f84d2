// SPDX-License-Identifier: GPL-2.0
/*
 * lookup.c - pfn -> page -> what it is, one flag, its reference count.
 *
 * The three questions a pfn walker asks before it touches a page: what kind
 * (PageBuddy/PageSlab/folio_test_anon..., here page_kind()), a flag
 * (PageDirty), and the count get_page() would move (page_ref_count, the
 * folio's for a folio page).  Sequential as /proc/kpageflags, page_idle or a
 * memory_failure() sweep read them; random as a pfn from a PTE or a hardware
 * error report arrives: a batch of them (lookup/random, misses overlapping),
 * one after the other (lookup/random-dep: each lookup waits for the one
 * before, as a page-table walk or memory_failure(pfn) does), or cold
 * (lookup/random-cold: every line and translation evicted first, bench/walk.h).
 * Where a layout keeps the answer in a descriptor, the lookup costs a
 * dependent load beyond the memmap; that hop is what the sequential model
 * counts and what the random walks expose as latency.
 */
#include "model.h"
#include "walk_ops.h"

static void lookup_seq(struct mdb_state *st, const struct bench_env *env)
{
	const struct memmap *mm = env->mm;
	unsigned long pfn = 0, i;

	while (mdb_keep_running_batch(st, BENCH_BATCH)) {
		for (i = 0; i < BENCH_BATCH; i++) {
			mdb_do_not_optimize(lookup_one(mm, pfn));
			if (++pfn == env->nr_pfns)
				pfn = 0;
		}
	}
	mdb_set_items_processed(st, mdb_iterations(st));
}

static const struct walk_kernel lookup_walk = {
	.name = "lookup/random", .select = SELECT_ANY, .empty = "the memmap has no pfn",
};

static void lookup_random(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &lookup_walk, WALK_THROUGHPUT, lookup_one);
}

static void lookup_random_dep(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &lookup_walk, WALK_DEPENDENT, lookup_one);
}

static void lookup_random_cold(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &lookup_walk, WALK_COLD, lookup_one);
}

MDB_KERNEL(lookup_seq,
	   .name = "lookup/seq", .class = MDB_SEQUENTIAL, .unit = "lookup",
	   .run = lookup_seq,
	   .sim_ops = 1 << 18, .model = model_lookup_seq);

MDB_KERNEL(lookup_random,
	   .name = "lookup/random", .class = MDB_DEPENDENT, .unit = "lookup",
	   .run = lookup_random,
	   .ws = MDB_WS_ALL, .ws_sampled = true, .sim_ops = 1 << 16);

MDB_KERNEL(lookup_random_dep,
	   .name = "lookup/random-dep", .class = MDB_DEPENDENT, .unit = "lookup",
	   .run = lookup_random_dep,
	   .ws = MDB_WS_ALL, .ws_sampled = true, .sim_ops = 1 << 16);

MDB_KERNEL(lookup_random_cold,
	   .name = "lookup/random-cold", .class = MDB_DEPENDENT, .unit = "lookup",
	   .run = lookup_random_cold,
	   .ws = MDB_WS_ALL, .ws_sampled = true, .sim_ops = 1 << 10,
	   .min_misses = 1);
