// SPDX-License-Identifier: GPL-2.0
/*
 * footprint.c - what the memmap and its descriptors cost in bytes, computed
 * and measured.
 *
 * Not a timing: the loop is empty and the result is in the counters, so that
 * the bytes land in the same dump, per layout, mix and RAM size, as the
 * times they trade against.  The kernel's figure is the vmemmap (64 bytes a
 * 4 KiB page, 1.56%) plus, with memdescs, the slab caches of descriptors.
 *
 * Computed, two ways: live, the memmap's entries and every live descriptor
 * at the bytes it counts for (total_bytes, bytes_per_GiB); held, the memmap
 * and the slab pages the descriptor caches hold as the kernel would hold
 * them (held_bytes, held_bytes_per_GiB: full, partial and CPU slabs after
 * the build and its aging, and the per-CPU sheaves of desc_slab_cpus()
 * CPUs, desc_cache_held_bytes(): what SUnreclaim would show); the report
 * uses held.  With HVO on (hvo:on), the pages HVO gives
 * back subtracted, the shared tail pages and the PTE pages the kernel
 * splits its vmemmap PMDs into added (machine/hvo.h, counted from the
 * hugetlb folios).  Measured: what the process holds (memmap_measure()):
 * the memmap's mapping (HVO off: its Rss; on: the pages of its memfd, each
 * shared page once) and the descriptor caches' slabs, partial ones and all.
 * The page tables are computed only: the process maps its memfd with 4 KiB
 * pages throughout, where the kernel splits only what HVO remaps.
 */
#include "kernel.h"

#define GiB	(1024.0 * 1024 * 1024)

struct counter {
	const char *name;
	double value;
};

static void put(struct mdb_state *st, const struct counter *c, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		mdb_counter(st, c[i].name, c[i].value, MDB_COUNTER_PLAIN);
}

static void footprint_report(struct mdb_state *st, const struct bench_env *env)
{
	double ram = (double)env->nr_pfns * MDB_PAGE_SIZE, total, held, measured, memmap;
	struct footprint_measured m;
	struct footprint fp;

	env->ops->footprint(env->mm, &fp);
	if (memmap_measure(env->mm, &m)) {
		mdb_skip_with_error(st, "footprint: cannot read /proc/self/smaps or the memmap's memfd");
		return;
	}
	memmap = (double)footprint_memmap_bytes(&fp);
	total = memmap + (double)fp.desc_bytes + (double)fp.hvo.pgtable_bytes;
	held = memmap + (double)fp.desc_held_bytes + (double)fp.hvo.pgtable_bytes;
	measured = (double)m.memmap_bytes + (double)m.desc_bytes;
	while (mdb_keep_running_batch(st, 1))
		mdb_do_not_optimize(total);
	mdb_set_items_processed(st, mdb_iterations(st));
	{
		const struct counter c[] = {
			{ "memmap_bytes", memmap },
			{ "desc_bytes", (double)fp.desc_bytes },
			{ "desc_count", (double)fp.desc_count },
			{ "folio_desc_bytes", (double)fp.folio_desc_bytes },
			{ "desc_reserved_bytes", (double)fp.desc_reserved_bytes },
			{ "desc_held_bytes", (double)fp.desc_held_bytes },
			{ "held_bytes", held },
			{ "held_bytes_per_GiB", held / (ram / GiB) },
			{ "slab_cpus", (double)desc_slab_cpus() },
			{ "total_bytes", total },
			{ "bytes_per_GiB", total / (ram / GiB) },
			{ "overhead_pct", total / ram * 100 },
			{ "measured_memmap_bytes", (double)m.memmap_bytes },
			{ "measured_desc_bytes", (double)m.desc_bytes },
			{ "measured_bytes", measured },
			{ "measured_bytes_per_GiB", measured / (ram / GiB) },
		};
		const struct counter hvo[] = {
			{ "hugetlb_folios", (double)fp.hvo.folios },
			{ "hvo_optimised_folios", (double)fp.hvo.optimised },
			{ "hugetlb_memmap_bytes", (double)fp.hvo.vmemmap_bytes },
			{ "hvo_kept_bytes", (double)fp.hvo.kept_bytes },
			{ "hvo_freed_bytes", (double)fp.hvo.freed_bytes },
			{ "hvo_shared_bytes", (double)fp.hvo.shared_bytes },
			{ "hvo_pgtable_bytes", (double)fp.hvo.pgtable_bytes },
			{ "hvo_mappings", (double)env->mm->hvo.nr_mappings },
		};

		put(st, c, sizeof(c) / sizeof(c[0]));
		if (hvo_map_on(&env->mm->hvo))
			put(st, hvo, sizeof(hvo) / sizeof(hvo[0]));
	}
}

MDB_KERNEL(footprint,
	   .name = "footprint", .class = MDB_REPORT, .unit = "report",
	   .run = footprint_report,
	   .sim_ops = 1);
