// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_hugetlb.c - the analytic model (bench/model.c) with hugetlb
 * folios: its formulas on a machine of 1 GiB or 2 MiB hugetlb folios
 * counted by hand (they are folios: skipped whole by the scan, their
 * descriptor read once by the lookup), and its block counts, orders up to
 * 18, against what every layout placed from a mix with both sizes.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "model.h"
#include "test_common.h"

#define NR_PFNS		(1UL << 19)			/* 2 GiB */

/* 64-byte entries with the folio on its head entry; 8-byte ones with 64-byte descriptors. */
static const struct layout_ops o64 = {
	.name = "o64", .page_size = 64,
	.model = { .desc_stride = 0, .lookup = { 2, { { 0, 8 }, { 52, 4 } } },
		   .scan = { 1, { { 0, 8 } } }, .scan_large = { 1, { { 120, 4 } } } },
};
static const struct layout_ops d8 = {
	.name = "d8", .page_size = 8,
	.model = { .desc_stride = 64, .lookup = { 2, { { 0, 8 }, { 48, 4 } } },
		   .scan = { 1, { { 0, 8 } } } },
};

static void expect_lines(model_fn *fn, const char *kernel, const struct layout_ops *ops,
			 const struct model_blocks *b, double want, const char *what)
{
	double got = -1;
	bool ok = fn(ops, b, &got);

	CHECK(ok && fabs(got - want) < 1e-12, "%s %s on %s: %.12f lines per op, expected %.12f",
	      kernel, ops->name, what, got, want);
}

static void test_formulas(void)
{
	const double G = 1UL << HUGETLB_ORDER_PUD, M = 1UL << HUGETLB_ORDER_PMD;
	struct model_blocks b;

	memset(&b, 0, sizeof(b));
	b.nr_pfns = NR_PFNS;
	b.nr[PK_HUGETLB][HUGETLB_ORDER_PUD] = NR_PFNS >> HUGETLB_ORDER_PUD;
	/* Every entry's line, the folio's own lines once per 2^18 pages. */
	expect_lines(model_lookup_seq, "lookup/seq", &o64, &b, 1, "1 GiB hugetlb");
	expect_lines(model_lookup_seq, "lookup/seq", &d8, &b, 1.0 / 8 + 1 / G, "1 GiB hugetlb");
	/* The head's line (+ page64's first tail for _nr_pages), the descriptor's. */
	expect_lines(model_scan_compaction, "scan/compaction", &o64, &b, 2 / G, "1 GiB hugetlb");
	expect_lines(model_scan_compaction, "scan/compaction", &d8, &b, 2 / G, "1 GiB hugetlb");

	memset(&b, 0, sizeof(b));
	b.nr_pfns = NR_PFNS;
	b.nr[PK_HUGETLB][HUGETLB_ORDER_PMD] = NR_PFNS >> HUGETLB_ORDER_PMD;
	expect_lines(model_scan_compaction, "scan/compaction", &o64, &b, 2 / M, "2 MiB hugetlb");
	expect_lines(model_lookup_seq, "lookup/seq", &d8, &b, 1.0 / 8 + 1 / M, "2 MiB hugetlb");
}

/* What the model counts from the plan is what every layout placed, by kind and order. */
static void test_counts(const struct layout_ops *ops, const struct mix *mix)
{
	static unsigned long blocks[PK_NR][MIX_NR_ORDERS];
	struct memmap_opts opts = { .seed = 7 };
	struct model_blocks b;
	struct page_info info;
	struct mdb_err err;
	struct memmap *mm;
	unsigned long pfn, total = 0;
	unsigned int k, o;

	memset(blocks, 0, sizeof(blocks));
	if (model_count_blocks(&b, mix, NR_PFNS, 7, &err) ||
	    ops->memmap_create(&mm, NR_PFNS, mix, &opts, &err)) {
		CHECK(0, "%s/%s: %s", ops->name, mix->name, err.msg);
		return;
	}
	for (pfn = 0; pfn < NR_PFNS; pfn += info.head_pfn == pfn ? 1UL << info.order : 1) {
		ops->page_info(mm, pfn, &info);
		if (info.head_pfn == pfn)
			blocks[info.kind][info.order]++;
	}
	ops->memmap_destroy(mm);
	for (k = 0; k < PK_NR; k++)
		for (o = 0; o < MIX_NR_ORDERS; o++) {
			total += b.nr[k][o] << o;
			if (k == PK_FREE || page_kind_is_folio(k))
				CHECK(blocks[k][o] == b.nr[k][o], "%s: %lu %s blocks of order %u, the "
				      "model counts %lu", ops->name, blocks[k][o], page_kind_name(k), o,
				      b.nr[k][o]);
		}
	CHECK(total == NR_PFNS && b.nr[PK_HUGETLB][HUGETLB_ORDER_PUD] == 1 &&
	      b.nr[PK_FREE][MAX_PAGE_ORDER], "the model's blocks cover %lu pfns", total);
}

int main(void)
{
	static const struct mix_entry e[] = {
		{ PK_HUGETLB, HUGETLB_ORDER_PUD, 0.5 }, { PK_HUGETLB, HUGETLB_ORDER_PMD, 0.2 },
		{ PK_ANON, 9, 0.1 }, { PK_FILE, 0, 0.1 }, { PK_FREE, 10, 0.1 },
	};
	struct mix mix = { .name = "hugetlb-model", .nr = sizeof(e) / sizeof(e[0]) };
	unsigned int l;

	memcpy(mix.entry, e, sizeof(e));
	test_formulas();
	for (l = 0; mdb_layouts[l]; l++)
		test_counts(mdb_layouts[l], &mix);
	if (failures) {
		fprintf(stderr, "test_bench_hugetlb: %d checks failed\n", failures);
		return 1;
	}
	printf("test_bench_hugetlb: the model's hugetlb lines and blocks as counted\n");
	return 0;
}
