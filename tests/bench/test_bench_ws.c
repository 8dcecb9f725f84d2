// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_ws.c - mdb_working_set() (bench/ws.h) against the memmap each
 * layout really builds.
 *
 * For every layout, built-in mix (and the mix file argv[1]) and reach (every pfn, folio pages, folio
 * tails, hugetlb tails, none), on a memmap of 64 MiB (below BENCH_LIST_MAX
 * pfns: no sampling), the working set computed from the mix's block counts
 * equals the one counted pfn by pfn over the built memmap through
 * page_info(): sizeof(struct page) per reached pfn, plus, per block that has
 * a reached pfn, its descriptor objects at the distance the layout's caches
 * put them (layout_desc_sizes()).  Then fixed values: page64 (no
 * descriptors) at 256 MiB is 64 bytes a pfn, none for convert/; a sampled
 * walk over more pfns than BENCH_LIST_MAX counts that many.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "test_common.h"
#include "ws.h"

#define NR_PFNS		(64UL << 20 >> MDB_PAGE_SHIFT)

static bool reached(enum mdb_ws_reach ws, const struct page_info *pi, unsigned long pfn)
{
	bool folio = page_kind_is_folio(pi->kind), tail = folio && pi->order && pi->head_pfn != pfn;

	switch (ws) {
	case MDB_WS_ALL:
		return true;
	case MDB_WS_FOLIOS:
		return folio;
	case MDB_WS_FOLIO_TAILS:
		return tail;
	case MDB_WS_HUGETLB:
		return pi->kind == PK_HUGETLB;
	case MDB_WS_HUGETLB_TAILS_2M:
		return tail && pi->kind == PK_HUGETLB && pi->order == MIX_4K_HUGETLB_PMD;
	case MDB_WS_HUGETLB_TAILS_1G:
		return tail && pi->kind == PK_HUGETLB && pi->order == MIX_4K_HUGETLB_PUD;
	default:
		return false;
	}
}

/* The descriptor bytes of the block a head pfn starts (one per page for page tables, zsmalloc). */
static uint64_t head_desc_bytes(const size_t obj[DESC_NR], const struct page_info *pi)
{
	switch (pi->kind) {
	case PK_ANON:
	case PK_FILE:
	case PK_HUGETLB:
		return obj[folio_desc_type(pi->kind, pi->order)];
	case PK_SLAB:
		return obj[DESC_SLAB];
	case PK_NETMEM:
		return obj[DESC_BUMP];
	case PK_PGTABLE:
		return obj[DESC_PTDESC];
	case PK_ZSMALLOC:
		return obj[DESC_ZPDESC];
	default:
		return 0;
	}
}

static bool tails_only(enum mdb_ws_reach ws)
{
	return ws == MDB_WS_FOLIO_TAILS || ws == MDB_WS_HUGETLB_TAILS_2M || ws == MDB_WS_HUGETLB_TAILS_1G;
}

/* Counted over the built memmap: every pfn is its own unit for page tables and zsmalloc. */
static uint64_t counted(const struct layout_ops *ops, const struct memmap *mm, enum mdb_ws_reach ws)
{
	size_t obj[DESC_NR], acct[DESC_NR];
	struct page_info pi;
	struct mdb_err err;
	uint64_t bytes = 0;
	unsigned long pfn;

	if (layout_desc_sizes(ops->desc_size, 0, LARGE_DESC_PLAN, obj, acct, &err))
		return 0;
	for (pfn = 0; pfn < mm->nr_pfns; pfn++) {
		ops->page_info(mm, pfn, &pi);
		if (!reached(ws, &pi, pfn))
			continue;
		bytes += ops->page_size;
		/* A block's descriptor once: at its head, or at its first tail when heads are not reached. */
		if (pi.kind == PK_PGTABLE || pi.kind == PK_ZSMALLOC || pfn == pi.head_pfn ||
		    (tails_only(ws) && pfn == pi.head_pfn + 1))
			bytes += head_desc_bytes(obj, &pi);
	}
	return bytes;
}

static const struct mdb_kernel *kernel_with(enum mdb_ws_reach ws, bool sampled)
{
	const struct mdb_kernel *const *k;
	struct mdb_err err;
	unsigned int nr, i;

	if (mdb_kernels(&k, &nr, &err))
		return NULL;
	for (i = 0; i < nr; i++)
		if (k[i]->ws == ws && k[i]->ws_sampled == sampled && k[i]->class != MDB_BASELINE)
			return k[i];
	return NULL;
}

static void check_layout_mix(const struct layout_ops *ops, const char *mix_name)
{
	static const enum mdb_ws_reach reaches[] = { MDB_WS_ALL, MDB_WS_NONE, MDB_WS_FOLIOS,
		MDB_WS_FOLIO_TAILS, MDB_WS_HUGETLB, MDB_WS_HUGETLB_TAILS_2M, MDB_WS_HUGETLB_TAILS_1G };
	struct memmap_opts opts = { .seed = 1, .age = DESC_FRESH_ORDERED };	/* the plan's placement, as mdbench counts */
	struct model_blocks b;
	struct memmap *mm;
	struct mdb_err err;
	struct mix mix;
	unsigned int i;

	if (mix_resolve(mix_name, &mix, &err) || ops->memmap_create(&mm, NR_PFNS, &mix, &opts, &err) ||
	    model_count_blocks(&b, &mix, NR_PFNS, 1, DESC_FRESH_ORDERED, &err)) {
		CHECK(0, "%s/%s: %s", ops->name, mix_name, err.msg);
		return;
	}
	for (i = 0; i < sizeof(reaches) / sizeof(reaches[0]); i++) {
		struct mdb_kernel k = { .name = "test", .ws = reaches[i] };
		uint64_t want = counted(ops, mm, reaches[i]), got = mdb_working_set(&k, ops, &b, 0);

		CHECK(got == want, "%s/%s reach %d: computed %llu, counted %llu", ops->name, mix_name,
		      (int)reaches[i], (unsigned long long)got, (unsigned long long)want);
	}
	ops->memmap_destroy(mm);
}

int main(int argc, char **argv)
{
	const struct layout_ops *page64 = layout_by_name("page64");
	const struct mdb_kernel *random = kernel_with(MDB_WS_ALL, true);
	const struct mdb_kernel *convert = kernel_with(MDB_WS_NONE, false);
	struct model_blocks b;
	struct mdb_err err;
	struct mix mix;
	unsigned int l, m;

	for (l = 0; mdb_layouts[l]; l++)
		for (m = 0; mix_builtin_names[m]; m++)
			check_layout_mix(mdb_layouts[l], mix_builtin_names[m]);
	/* A mix file with 2 MiB hugetlb folios (results/mixes/database-256g.json). */
	for (l = 0; argc > 1 && mdb_layouts[l]; l++)
		check_layout_mix(mdb_layouts[l], argv[1]);

	CHECK(page64 && random && convert, "page64, a sampled walk of every pfn and convert/ registered");
	if (!page64 || !random || !convert)
		return 1;
	if (mix_builtin("desktop", &mix, &err) || model_count_blocks(&b, &mix, 65536, 1, DESC_FRESH_ORDERED, &err))
		return 1;
	CHECK(mdb_working_set(random, page64, &b, 0) == 4194304, "page64 at 256 MiB: %llu",
	      (unsigned long long)mdb_working_set(random, page64, &b, 0));
	CHECK(mdb_working_set(convert, page64, &b, 0) == 0, "convert reads no metadata");
	/* 2 x BENCH_LIST_MAX order-0 anon folios: the walk samples BENCH_LIST_MAX of them, 64 bytes each. */
	memset(&b, 0, sizeof(b));
	b.nr_pfns = 2 * BENCH_LIST_MAX;
	b.nr[PK_ANON][0] = 2 * BENCH_LIST_MAX;
	CHECK(mdb_working_set(random, page64, &b, 0) == BENCH_LIST_MAX * 64, "sampled: %llu",
	      (unsigned long long)mdb_working_set(random, page64, &b, 0));
	return failures != 0;
}
