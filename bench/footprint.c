// SPDX-License-Identifier: GPL-2.0
/*
 * footprint.c - what the memmap and its descriptors cost in bytes.
 *
 * Not a timing: the loop is empty and the result is in the counters, so that
 * the bytes land in the same dump, per layout, mix and RAM size, as the
 * times they trade against.  The kernel's figure is the vmemmap (64 bytes a
 * 4 KiB page, 1.56%) plus, with memdescs, the slab caches of descriptors.
 */
#include "kernel.h"

#define GiB	(1024.0 * 1024 * 1024)

static void footprint_report(struct mdb_state *st, const struct bench_env *env)
{
	struct footprint fp;
	double ram = (double)env->nr_pfns * MDB_PAGE_SIZE;
	double total;

	env->ops->footprint(env->mm, &fp);
	total = (double)fp.memmap_bytes + (double)fp.desc_bytes;
	while (mdb_keep_running_batch(st, 1))
		mdb_do_not_optimize(fp.desc_bytes);
	mdb_set_items_processed(st, mdb_iterations(st));
	mdb_counter(st, "memmap_bytes", (double)fp.memmap_bytes, MDB_COUNTER_PLAIN);
	mdb_counter(st, "desc_bytes", (double)fp.desc_bytes, MDB_COUNTER_PLAIN);
	mdb_counter(st, "desc_count", (double)fp.desc_count, MDB_COUNTER_PLAIN);
	mdb_counter(st, "folio_desc_bytes", (double)fp.folio_desc_bytes, MDB_COUNTER_PLAIN);
	mdb_counter(st, "desc_reserved_bytes", (double)fp.desc_reserved_bytes, MDB_COUNTER_PLAIN);
	mdb_counter(st, "total_bytes", total, MDB_COUNTER_PLAIN);
	mdb_counter(st, "bytes_per_GiB", total / (ram / GiB), MDB_COUNTER_PLAIN);
	mdb_counter(st, "overhead_pct", total / ram * 100, MDB_COUNTER_PLAIN);
}

MDB_KERNEL(footprint,
	   .name = "footprint", .class = MDB_REPORT, .unit = "report",
	   .run = footprint_report,
	   .sim_ops = 1);
