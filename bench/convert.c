// SPDX-License-Identifier: GPL-2.0
/*
 * convert.c - pfn_to_page() and page_to_pfn().
 *
 * With SPARSEMEM_VMEMMAP both are arithmetic on the vmemmap base:
 * vmemmap + pfn and page - vmemmap.  What a smaller struct page changes is
 * the scale (a shift of 6, 5 or 3), not the memory touched, so the model
 * expects no data line per op.  The walk is sequential so that nothing but
 * the conversion is on the critical path.
 *
 * At well under a nanosecond an op, these are the kernels where the harness
 * shows most: batches of CONVERT_BATCH ops per mdb_keep_running_batch()
 * keep its call under 1% of the time, and convert/pfn_to_page times the
 * same loop without the harness right after its own, as plain_ns: total
 * time over total ops, the mean Google Benchmark takes too, so that
 * real_time / plain_ns - 1 is the harness's own cost.
 */
#include <time.h>

#include "kernel.h"
#include "model.h"

#define CONVERT_BATCH	4096
#define PLAIN_OPS	(1UL << 24)	/* ~5 ms of the plain loop (and seconds under valgrind) */

/*
 * n conversions from pfn on, cycling; where the next would start.  The walk
 * goes in runs up to the end of the memmap, so that no per-op wrap (which
 * the compiler makes a cmov) chains one op's pfn to the last's.
 */
static inline __attribute__((always_inline))
unsigned long pfn_to_page_run(const struct memmap *mm, unsigned long nr_pfns, unsigned long pfn,
			      unsigned long n)
{
	unsigned long run, i;

	for (; n; n -= run) {
		run = nr_pfns - pfn < n ? nr_pfns - pfn : n;
		for (i = 0; i < run; i++) {
			struct page *page = pfn_to_page(mm, pfn + i);

			mdb_do_not_optimize(page);
		}
		pfn = pfn + run == nr_pfns ? 0 : pfn + run;
	}
	return pfn;
}

/* ns per op of the same loop, PLAIN_OPS ops without the harness. */
static double pfn_to_page_plain(const struct memmap *mm, unsigned long nr_pfns)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pfn_to_page_run(mm, nr_pfns, 0, PLAIN_OPS);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) /
	       (double)PLAIN_OPS;
}

static void convert_pfn_to_page(struct mdb_state *st, const struct bench_env *env)
{
	const struct memmap *mm = env->mm;
	unsigned long pfn = 0;

	while (mdb_keep_running_batch(st, CONVERT_BATCH))
		pfn = pfn_to_page_run(mm, env->nr_pfns, pfn, CONVERT_BATCH);
	mdb_set_items_processed(st, mdb_iterations(st));
	mdb_counter(st, "plain_ns", pfn_to_page_plain(mm, env->nr_pfns), MDB_COUNTER_PLAIN);
}

static void convert_page_to_pfn(struct mdb_state *st, const struct bench_env *env)
{
	const struct memmap *mm = env->mm;
	struct page *first = pfn_to_page(mm, 0);
	unsigned long start = 0, run, left, i;

	while (mdb_keep_running_batch(st, CONVERT_BATCH)) {
		/* In runs up to the end of the memmap, as pfn_to_page_run(). */
		for (left = CONVERT_BATCH; left; left -= run) {
			run = env->nr_pfns - start < left ? env->nr_pfns - start : left;
			for (i = 0; i < run; i++) {
				struct page *page = first + start + i;
				unsigned long pfn;

				/* Hide where page came from, or the subtraction folds away. */
				mdb_do_not_optimize(page);
				pfn = page_to_pfn(mm, page);
				mdb_do_not_optimize(pfn);
			}
			start = start + run == env->nr_pfns ? 0 : start + run;
		}
	}
	mdb_set_items_processed(st, mdb_iterations(st));
}

MDB_KERNEL(pfn_to_page,
	   .name = "convert/pfn_to_page", .class = MDB_SEQUENTIAL, .unit = "conversion",
	   .run = convert_pfn_to_page,
	   .ws = MDB_WS_NONE, .sim_ops = 1 << 16, .model = model_none);

MDB_KERNEL(page_to_pfn,
	   .name = "convert/page_to_pfn", .class = MDB_SEQUENTIAL, .unit = "conversion",
	   .run = convert_page_to_pfn,
	   .ws = MDB_WS_NONE, .sim_ops = 1 << 16, .model = model_none);
