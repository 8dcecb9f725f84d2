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
	double gib = (double)env->nr_pfns * MDB_PAGE_SIZE / GiB, total, hvo;
	struct hvo_footprint h;
	struct footprint fp;
	unsigned int i;

	env->ops->footprint(env->mm, &fp);
	if (env->ops->footprint_hvo(env->mm, &h)) {
		mdb_skip_with_error(st, "footprint/hvo: out of memory for the vmemmap PMD bitmap");
		return;
	}
	total = (double)fp.memmap_bytes + (double)fp.desc_bytes;
	hvo = (double)hvo_total_bytes(fp.memmap_bytes + fp.desc_bytes, &h);
	{
		const struct { const char *name; double value; } c[] = {
			{ "hugetlb_folios", (double)h.folios },
			{ "hvo_optimised_folios", (double)h.optimised },
			{ "hugetlb_memmap_bytes", (double)h.vmemmap_bytes },
			{ "hvo_kept_bytes", (double)h.kept_bytes },
			{ "hvo_freed_bytes", (double)h.freed_bytes },
			{ "hvo_shared_bytes", (double)h.shared_bytes },
			{ "hvo_pgtable_bytes", (double)h.pgtable_bytes },
			{ "total_bytes", total },
			{ "bytes_per_GiB", total / gib },
			{ "hvo_bytes", hvo },
			{ "bytes_per_GiB_hvo", hvo / gib },
			{ "overhead_pct_hvo", hvo / (gib * GiB) * 100 },
		};

		while (mdb_keep_running_batch(st, 1))
			mdb_do_not_optimize(hvo);
		mdb_set_items_processed(st, mdb_iterations(st));
		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
			mdb_counter(st, c[i].name, c[i].value, MDB_COUNTER_PLAIN);
	}
}

MDB_KERNEL(footprint_hvo,
	   .name = "footprint/hvo", .class = MDB_REPORT, .unit = "report",
	   .run = footprint_hvo,
	   .sim_ops = 1);
