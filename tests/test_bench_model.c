// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_model.c - the analytic model (bench/model.c): its formulas on
 * machines simple enough to count the lines by hand, and its block counts
 * against what every layout actually placed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "test_common.h"

#define NR_PFNS		(64UL << 20 >> MDB_PAGE_SHIFT)	/* 64 MiB */

static void expect_lines(const char *kernel, const struct layout_ops *ops,
			 const struct model_blocks *b, double want, const char *what)
{
	double got = -1;
	bool ok = model_d1_lines(kernel, ops, b, &got);

	CHECK(ok, "%s %s on %s: no model", kernel, ops->name, what);
	CHECK(ok && fabs(got - want) < 1e-9, "%s %s on %s: %.9f lines per op, expected %.9f", kernel,
	      ops->name, what, got, want);
}

/* A machine of one kind of block: n pfns in blocks of this kind and order. */
static void one_kind(struct model_blocks *b, enum page_kind kind, unsigned int order)
{
	memset(b, 0, sizeof(*b));
	b->nr_pfns = NR_PFNS;
	b->nr[kind][order] = NR_PFNS >> order;
}

/*
 * By hand: E entries per line (1, 2, 8); page32's 80-byte folios laid end
 * to end put their flags (@0) and count (@48) on 5 lines per 4 folios, its
 * order (@60) on one line each; memdesc8's 64-byte folios one line each.
 */
static void test_formulas(void)
{
	const double E64 = 1, E32 = 2, E8 = 8, PB = 512;
	struct model_blocks b;

	one_kind(&b, PK_ANON, 0);
	expect_lines("lookup/seq", &page64_ops, &b, 1, "order-0 folios");
	expect_lines("lookup/seq", &page32_ops, &b, 1 / E32 + 1.25, "order-0 folios");
	expect_lines("lookup/seq", &memdesc8_ops, &b, 1 / E8 + 1, "order-0 folios");
	expect_lines("scan/compaction", &page64_ops, &b, 1, "order-0 folios");
	expect_lines("scan/compaction", &page32_ops, &b, 1 / E32 + 1, "order-0 folios");
	expect_lines("scan/compaction", &memdesc8_ops, &b, 1 / E8 + 1, "order-0 folios");

	one_kind(&b, PK_FILE, 9);	/* one descriptor, one head (+ page64's page[1]) per 512 */
	expect_lines("lookup/seq", &page64_ops, &b, 1, "order-9 folios");
	expect_lines("lookup/seq", &page32_ops, &b, 1 / E32 + 1.25 / PB, "order-9 folios");
	expect_lines("lookup/seq", &memdesc8_ops, &b, 1 / E8 + 1 / PB, "order-9 folios");
	expect_lines("scan/compaction", &page64_ops, &b, 2 / PB, "order-9 folios");
	expect_lines("scan/compaction", &page32_ops, &b, 2 / PB, "order-9 folios");
	expect_lines("scan/compaction", &memdesc8_ops, &b, 2 / PB, "order-9 folios");

	one_kind(&b, PK_ANON, 2);	/* memdesc8: 2 folio heads per memmap line */
	expect_lines("scan/compaction", &page64_ops, &b, 2.0 / 4, "order-2 folios");
	expect_lines("scan/compaction", &page32_ops, &b, 2.0 / 4, "order-2 folios");
	expect_lines("scan/compaction", &memdesc8_ops, &b, 1 / E8 + 1.0 / 4, "order-2 folios");

	one_kind(&b, PK_FREE, 9);
	expect_lines("lookup/seq", &page64_ops, &b, 1 / E64, "free pageblocks");
	expect_lines("lookup/seq", &page32_ops, &b, 1 / E32, "free pageblocks");
	expect_lines("lookup/seq", &memdesc8_ops, &b, 1 / E8, "free pageblocks");
	expect_lines("scan/compaction", &page64_ops, &b, 1 / PB, "free pageblocks");
	expect_lines("scan/compaction", &memdesc8_ops, &b, 1 / PB, "free pageblocks");

	one_kind(&b, PK_SLAB, 3);	/* walked page by page, no descriptor read */
	expect_lines("lookup/seq", &page32_ops, &b, 1 / E32, "order-3 slabs");
	expect_lines("lookup/seq", &memdesc8_ops, &b, 1 / E8, "order-3 slabs");
	expect_lines("scan/compaction", &page64_ops, &b, 1 / E64, "order-3 slabs");
	expect_lines("scan/compaction", &page32_ops, &b, 1 / E32, "order-3 slabs");
	expect_lines("scan/compaction", &memdesc8_ops, &b, 1 / E8, "order-3 slabs");

	expect_lines("init/memmap", &page64_ops, &b, 1 / E64 + 1 / PB + 1 / PB / 8, "any mix");
	expect_lines("init/memmap", &page32_ops, &b, 1 / E32 + 1 / PB + 1 / PB / 8, "any mix");
	expect_lines("init/memmap", &memdesc8_ops, &b, 1 / E8 + 1 / PB + 1 / PB / 8, "any mix");
	expect_lines("convert/pfn_to_page", &memdesc8_ops, &b, 0, "any mix");
	expect_lines("convert/page_to_pfn", &page64_ops, &b, 0, "any mix");
}

static void test_no_model(void)
{
	struct layout_ops fake = page64_ops;
	struct model_blocks b;
	double lines;

	one_kind(&b, PK_ANON, 0);
	CHECK(!model_d1_lines("lookup/random", &page64_ops, &b, &lines),
	      "lookup/random is not sequential: no model");
	CHECK(!model_d1_lines("footprint", &memdesc8_ops, &b, &lines), "footprint has no model");
	fake.name = "page16";
	CHECK(!model_d1_lines("lookup/seq", &fake, &b, &lines), "an unknown layout has no model");
}

/*
 * The blocks the model counts from the mix plan are the blocks the layouts
 * placed: folios and free blocks by order, the other kinds by pfns (page
 * tables and zsmalloc pages are units of one page once placed).
 */
static void test_counts(const struct layout_ops *ops, const char *mix_name)
{
	unsigned long pfns[PK_NR] = { 0 }, want_pfns[PK_NR] = { 0 };
	unsigned long blocks[PK_NR][MAX_FOLIO_ORDER + 1] = { { 0 } };
	char err[MIX_ERR_LEN];
	struct model_blocks b;
	struct memmap_opts opts = { .seed = 7 };
	struct page_info info;
	struct memmap *mm;
	struct mdb_err merr;
	unsigned long pfn, total = 0;
	struct mix mix;
	unsigned int k, o;

	if (mix_builtin(mix_name, &mix, err) || model_count_blocks(&b, &mix, NR_PFNS, 7, err)) {
		CHECK(0, "mix %s: %s", mix_name, err);
		return;
	}
	if (ops->memmap_create(&mm, NR_PFNS, &mix, &opts, &merr)) {
		CHECK(0, "%s/%s: %s", ops->name, mix_name, merr.msg);
		return;
	}
	for (pfn = 0; pfn < NR_PFNS; pfn++) {
		ops->page_info(mm, pfn, &info);
		pfns[info.kind]++;
		if (info.head_pfn == pfn)
			blocks[info.kind][info.order]++;
	}
	ops->memmap_destroy(mm);
	for (k = 0; k < PK_NR; k++)
		for (o = 0; o <= MAX_FOLIO_ORDER; o++) {
			want_pfns[k] += b.nr[k][o] << o;
			total += b.nr[k][o] << o;
			if (k == PK_FREE || k == PK_ANON || k == PK_FILE)
				CHECK(blocks[k][o] == b.nr[k][o], "%s/%s: %lu %s blocks of order %u, "
				      "the model counts %lu", ops->name, mix_name, blocks[k][o],
				      page_kind_name(k), o, b.nr[k][o]);
		}
	CHECK(total == NR_PFNS, "%s: the model's blocks cover %lu pfns of %lu", mix_name, total,
	      NR_PFNS);
	for (k = 0; k < PK_NR; k++)
		CHECK(pfns[k] == want_pfns[k], "%s/%s: %lu %s pfns, the model counts %lu", ops->name,
		      mix_name, pfns[k], page_kind_name(k), want_pfns[k]);
}

int main(void)
{
	unsigned int l, m;

	test_formulas();
	test_no_model();
	for (l = 0; mdb_layouts[l]; l++)
		for (m = 0; mix_builtin_names[m]; m++)
			test_counts(mdb_layouts[l], mix_builtin_names[m]);
	if (failures) {
		fprintf(stderr, "test_bench_model: %d checks failed\n", failures);
		return 1;
	}
	printf("test_bench_model: all checks passed\n");
	return 0;
}
