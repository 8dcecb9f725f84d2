// SPDX-License-Identifier: GPL-2.0
/*
 * test_harness_kernels.c - kernels that test the harness, not the layouts.
 * Linked with the program into mdbench_test; their MDB_KERNEL registrations
 * join the real ones.  Compiled once, so they run on every layout through
 * struct layout_ops.  Names start with "test/".
 *
 *	test/faults	touches one fresh page per op: page_faults per item is 1
 *	test/halves	the same, calling each op two items: 1/2 per item, and a
 *			kernel counter of 1 per op, per item, is 1/2 too
 *	test/spin	~20us of CPU per op, for interrupting a run
 *	test/mark	folio_get()s one folio of the shared memmap each call
 *	test/seen	reports that folio's refcount: above a fresh one's if shared
 *	test/fresh	(MDB_K_MUTATES) reports it too: a fresh memmap's
 *	test/error	fails with mdb_skip_with_error()
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "kernel.h"

#define FAULT_PAGES	64

static void touch_fresh_pages(struct mdb_state *st, uint64_t items_per_op)
{
	size_t len = FAULT_PAGES * MDB_PAGE_SIZE;
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned int i;

	if (buf == MAP_FAILED) {
		mdb_skip_with_error(st, "mmap failed");
		return;
	}
	madvise(buf, len, MADV_NOHUGEPAGE);	/* one fault per 4 KiB page, whatever THP says */
	while (mdb_keep_running_batch(st, FAULT_PAGES)) {
		for (i = 0; i < FAULT_PAGES; i++)
			buf[i * MDB_PAGE_SIZE] = 1;
		mdb_clobber_memory();
		mdb_pause_timing(st);
		madvise(buf, len, MADV_DONTNEED);	/* fresh again for the next batch */
		mdb_resume_timing(st);
	}
	munmap(buf, len);
	mdb_set_items_processed(st, items_per_op * mdb_iterations(st));
	mdb_counter(st, "ops", (double)mdb_iterations(st), MDB_COUNTER_PER_ITEM);
}

static void k_faults(struct mdb_state *st, const struct bench_env *env)
{
	(void)env;
	touch_fresh_pages(st, 1);
}

static void k_halves(struct mdb_state *st, const struct bench_env *env)
{
	(void)env;
	touch_fresh_pages(st, 2);
}

static void spin_us(long us)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < us * 1000L);
}

static void k_spin(struct mdb_state *st, const struct bench_env *env)
{
	(void)env;
	while (mdb_keep_running_batch(st, 1))
		spin_us(20);
	mdb_set_items_processed(st, mdb_iterations(st));
}

/* Head pfn of the first anon or file folio; -1 if the mix has none. */
static long first_folio(const struct bench_env *env)
{
	struct page_info info;
	unsigned long pfn;

	for (pfn = 0; pfn < env->nr_pfns; pfn++) {
		env->ops->page_info(env->mm, pfn, &info);
		if (info.kind == PK_ANON || info.kind == PK_FILE)
			return (long)info.head_pfn;
	}
	return -1;
}

/* Reads through the ops table; what matters is which memmap it is handed. */
static void refcount_kernel(struct mdb_state *st, const struct bench_env *env, bool get)
{
	struct page_info info;
	long pfn = first_folio(env);
	unsigned long i = 0;

	if (pfn < 0) {
		mdb_skip_with_error(st, "no folio in this mix");
		return;
	}
	if (get)
		env->ops->folio_get(env->mm, (unsigned long)pfn);
	env->ops->page_info(env->mm, (unsigned long)pfn, &info);
	while (mdb_keep_running_batch(st, 16))
		for (unsigned int j = 0; j < 16; j++, i++)
			mdb_do_not_optimize(i % env->nr_pfns);
	mdb_set_items_processed(st, mdb_iterations(st));
	mdb_counter(st, "refcount_seen", info.refcount, MDB_COUNTER_PLAIN);
}

static void k_mark(struct mdb_state *st, const struct bench_env *env)
{
	refcount_kernel(st, env, true);
}

static void k_check(struct mdb_state *st, const struct bench_env *env)
{
	refcount_kernel(st, env, false);
}

static void k_error(struct mdb_state *st, const struct bench_env *env)
{
	(void)env;
	mdb_skip_with_error(st, "test/error: failed on purpose");
	while (mdb_keep_running_batch(st, 1))
		;
}

MDB_KERNEL(test_faults, .name = "test/faults", .class = MDB_BASELINE, .unit = "page touched",
	   .run = k_faults, .sim_ops = 64);
MDB_KERNEL(test_halves, .name = "test/halves", .class = MDB_BASELINE, .unit = "half a page",
	   .run = k_halves, .sim_ops = 64);
MDB_KERNEL(test_spin, .name = "test/spin", .class = MDB_BASELINE, .unit = "20 us of CPU",
	   .run = k_spin, .sim_ops = 1);
/* By name within a group: test/mark runs before test/seen, which sees its reference. */
MDB_KERNEL(test_mark, .name = "test/mark", .class = MDB_DEPENDENT, .unit = "nothing",
	   .run = k_mark, .sim_ops = 16);
MDB_KERNEL(test_seen, .name = "test/seen", .class = MDB_DEPENDENT, .unit = "nothing",
	   .run = k_check, .sim_ops = 16);
MDB_KERNEL(test_fresh, .name = "test/fresh", .class = MDB_MUTATING, .unit = "nothing",
	   .run = k_check, .flags = MDB_K_MUTATES, .sim_ops = 16);
MDB_KERNEL(test_error, .name = "test/error", .class = MDB_DEPENDENT, .unit = "nothing",
	   .run = k_error, .sim_ops = 1);
