// SPDX-License-Identifier: GPL-2.0
/*
 * convert.c - pfn_to_page() and page_to_pfn().
 *
 * With SPARSEMEM_VMEMMAP both are arithmetic on the vmemmap base:
 * vmemmap + pfn and page - vmemmap.  What a smaller struct page changes is
 * the scale (a shift of 6, 5 or 3), not the memory touched, so the model
 * expects no data line per op.  The walk is sequential so that nothing but
 * the conversion is on the critical path.
 */
#include "kernel.h"
#include "model.h"

#define CONVERT_BATCH	512

static void convert_pfn_to_page(struct mdb_state *st, const struct bench_env *env)
{
	const struct memmap *mm = env->mm;
	unsigned long pfn = 0, i;

	while (mdb_keep_running_batch(st, CONVERT_BATCH)) {
		for (i = 0; i < CONVERT_BATCH; i++) {
			struct page *page = pfn_to_page(mm, pfn);

			mdb_do_not_optimize(page);
			if (++pfn == env->nr_pfns)
				pfn = 0;
		}
	}
	mdb_set_items_processed(st, mdb_iterations(st));
}

static void convert_page_to_pfn(struct mdb_state *st, const struct bench_env *env)
{
	const struct memmap *mm = env->mm;
	struct page *first = pfn_to_page(mm, 0), *end = first + env->nr_pfns;
	struct page *page = first;
	unsigned long i;

	while (mdb_keep_running_batch(st, CONVERT_BATCH)) {
		for (i = 0; i < CONVERT_BATCH; i++) {
			unsigned long pfn;

			/* Hide where page came from, or the subtraction folds away. */
			mdb_do_not_optimize(page);
			pfn = page_to_pfn(mm, page);
			mdb_do_not_optimize(pfn);
			if (++page == end)
				page = first;
		}
	}
	mdb_set_items_processed(st, mdb_iterations(st));
}

MDB_KERNEL(pfn_to_page,
	   .name = "convert/pfn_to_page", .class = MDB_SEQUENTIAL, .unit = "conversion",
	   .run = convert_pfn_to_page,
	   .sim_ops = 1 << 16, .model = model_none);

MDB_KERNEL(page_to_pfn,
	   .name = "convert/page_to_pfn", .class = MDB_SEQUENTIAL, .unit = "conversion",
	   .run = convert_page_to_pfn,
	   .sim_ops = 1 << 16, .model = model_none);
