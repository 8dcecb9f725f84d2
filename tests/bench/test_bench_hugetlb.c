// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_hugetlb.c - the analytic model's block counts (bench/model.c),
 * orders up to 18, against what every layout placed from a mix with 1 GiB
 * and 2 MiB hugetlb folios.  Its lines for hugetlb folios, counted by hand,
 * are in test_bench_model.c with the other formulas.
 */
#include <stdio.h>
#include <string.h>

#include "kernel.h"
#include "model.h"
#include "test_common.h"

#define NR_PFNS		(1UL << 19)			/* 2 GiB */

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
	if (model_count_blocks(&b, mix, NR_PFNS, 7, DESC_AGED, &err) ||
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
	CHECK(total == NR_PFNS && b.nr[PK_HUGETLB][MIX_4K_HUGETLB_PUD] == 1 &&
	      b.nr[PK_FREE][MAX_PAGE_ORDER], "the model's blocks cover %lu pfns", total);
}

int main(void)
{
	static const struct mix_entry e[] = {
		{ PK_HUGETLB, MIX_4K_HUGETLB_PUD, 0.5 }, { PK_HUGETLB, MIX_4K_HUGETLB_PMD, 0.2 },
		{ PK_ANON, 9, 0.1 }, { PK_FILE, 0, 0.1 }, { PK_FREE, 10, 0.1 },
	};
	struct mix mix = { .name = "hugetlb-model", .nr = sizeof(e) / sizeof(e[0]) };
	unsigned int l;

	memcpy(mix.entry, e, sizeof(e));
	for (l = 0; mdb_layouts[l]; l++)
		test_counts(mdb_layouts[l], &mix);
	if (failures) {
		fprintf(stderr, "test_bench_hugetlb: %d checks failed\n", failures);
		return 1;
	}
	printf("test_bench_hugetlb: the model counts the hugetlb blocks every layout placed\n");
	return 0;
}
