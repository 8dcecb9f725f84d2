// SPDX-License-Identifier: GPL-2.0
/*
 * footprint_hvo.c - what the memmap and its descriptors would cost with
 * HugeTLB Vmemmap Optimisation, computed from the memmap's hugetlb folios
 * (layouts/hvo.h: each layout's scheme, the vmemmap pages a folio keeps and
 * gives back, the shared pages, the PTE pages of the vmemmap PMDs it
 * splits).  A report, like footprint: nothing timed, the figures are its
 * counters, beside footprint's (without HVO) in the same dump.
 *
 * Computed, not measured: the memmap here is not remapped.  Mapping it for
 * real (a memfd, MAP_FIXED onto the shared pages) and measuring what the
 * process holds is issue 14's phase B.
 */
#include "kernel.h"

#define GiB	(1024.0 * 1024 * 1024)

static void footprint_hvo(struct mdb_state *st, const struct bench_env *env)
{
	double ram = (double)env->nr_pfns * MDB_PAGE_SIZE, total, hvo;
	struct hvo_footprint h;
	struct footprint fp;

	env->ops->footprint(env->mm, &fp);
	if (env->ops->footprint_hvo(env->mm, &h)) {
		mdb_skip_with_error(st, "footprint/hvo: out of memory for the vmemmap PMD bitmap");
		return;
	}
	total = (double)fp.memmap_bytes + (double)fp.desc_bytes;
	hvo = (double)hvo_total_bytes(fp.memmap_bytes + fp.desc_bytes, &h);
	while (mdb_keep_running_batch(st, 1))
		mdb_do_not_optimize(h.freed_bytes);
	mdb_set_items_processed(st, mdb_iterations(st));
	mdb_counter(st, "hugetlb_folios", (double)h.folios, MDB_COUNTER_PLAIN);
	mdb_counter(st, "hvo_optimised_folios", (double)h.optimised, MDB_COUNTER_PLAIN);
	mdb_counter(st, "hugetlb_memmap_bytes", (double)h.vmemmap_bytes, MDB_COUNTER_PLAIN);
	mdb_counter(st, "hvo_kept_bytes", (double)h.kept_bytes, MDB_COUNTER_PLAIN);
	mdb_counter(st, "hvo_freed_bytes", (double)h.freed_bytes, MDB_COUNTER_PLAIN);
	mdb_counter(st, "hvo_shared_bytes", (double)h.shared_bytes, MDB_COUNTER_PLAIN);
	mdb_counter(st, "hvo_pgtable_bytes", (double)h.pgtable_bytes, MDB_COUNTER_PLAIN);
	mdb_counter(st, "total_bytes", total, MDB_COUNTER_PLAIN);
	mdb_counter(st, "bytes_per_GiB", total / (ram / GiB), MDB_COUNTER_PLAIN);
	mdb_counter(st, "hvo_bytes", hvo, MDB_COUNTER_PLAIN);
	mdb_counter(st, "bytes_per_GiB_hvo", hvo / (ram / GiB), MDB_COUNTER_PLAIN);
	mdb_counter(st, "overhead_pct_hvo", hvo / ram * 100, MDB_COUNTER_PLAIN);
}

MDB_KERNEL(footprint_hvo,
	   .name = "footprint/hvo", .class = MDB_REPORT, .unit = "report",
	   .run = footprint_hvo,
	   .sim_ops = 1);
