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

#include "kernel.h"
#include "model.h"
#include "test_common.h"

#define NR_PFNS		(64UL << 20 >> MDB_PAGE_SHIFT)	/* 64 MiB */

static void expect_lines(model_fn *fn, const char *kernel, const struct layout_ops *ops,
			 const struct model_blocks *b, double streamed, double dependent,
			 const char *what)
{
	struct model_lines got = { -1, -1 };
	bool ok = fn(ops, b, &got);

	CHECK(ok, "%s %s on %s: no model", kernel, ops->name, what);
	CHECK(ok && fabs(got.streamed - streamed) < 1e-9 && fabs(got.dependent - dependent) < 1e-9,
	      "%s %s on %s: %.9f streamed + %.9f dependent lines per op, expected %.9f + %.9f",
	      kernel, ops->name, what, got.streamed, got.dependent, streamed, dependent);
}

/* A machine of one kind of block: n pfns in blocks of this kind and order. */
static void one_kind(struct model_blocks *b, enum page_kind kind, unsigned int order)
{
	memset(b, 0, sizeof(*b));
	b->nr_pfns = NR_PFNS;
	b->nr[kind][order] = NR_PFNS >> order;
}

/*
 * Three geometries, written out by hand (not taken from the layouts, so the
 * formulas are checked against numbers counted on paper):
 *  - o64: 64-byte entries, the folio overlays its head entry; a lookup reads
 *    @0 and @52 (its own line), isolation the head's fields and, of a large
 *    folio, @80 and @120 (the next line), the skip of a large folio its
 *    order @64 (the next line), as Linux's struct page;
 *  - d32: 32-byte entries, 80-byte folio descriptors laid end to end: a
 *    lookup reads @0 (8 bytes) and @48 (4): flags and count of 4 folios
 *    span 5 lines; the skip @60 (1): one line each; isolation reads the
 *    whole descriptor (up to memcg_data @72): 5 lines per 4 folios;
 *  - d8: 8-byte entries, 64-byte descriptors: one line each, whatever is read.
 * Streamed lines are the memmap's; a descriptor's lines and the line a skip
 * lands on past a gap are dependent.  Small and large folios' descriptors
 * have the same stride here; test_strides gives them different ones.
 */
static const struct layout_ops o64 = {
	.name = "o64", .page_size = 64,
	.model = { .desc_stride = 0, .lookup = { 2, { { 0, 8 }, { 52, 4 } } },
		   .scan = { 1, { { 0, 8 } } }, .scan_large = { 1, { { 64, 8 } } },
		   .isolate = { 5, { { 0, 8 }, { 24, 8 }, { 48, 4 }, { 52, 4 }, { 56, 8 } } },
		   .isolate_large = { 2, { { 80, 4 }, { 120, 4 } } } },
};
static const struct layout_ops d32 = {
	.name = "d32", .page_size = 32,
	.model = { .desc_stride = 80, .desc_stride_large = 80,
		   .lookup = { 2, { { 0, 8 }, { 48, 4 } } },
		   .scan = { 1, { { 60, 1 } } },
		   .isolate = { 6, { { 0, 8 }, { 24, 8 }, { 48, 4 }, { 52, 4 }, { 60, 1 }, { 72, 8 } } } },
};
static const struct layout_ops d8 = {
	.name = "d8", .page_size = 8,
	.model = { .desc_stride = 64, .desc_stride_large = 64,
		   .lookup = { 2, { { 0, 8 }, { 48, 4 } } },
		   .scan = { 1, { { 0, 8 } } },
		   .isolate = { 4, { { 0, 8 }, { 24, 8 }, { 48, 4 }, { 52, 4 } } } },
};

static void test_formulas(void)
{
	const double E64 = 1, E32 = 2, E8 = 8, PB = 512, TAIL = 1.0 / 1024;
	const double G = 1UL << MIX_4K_HUGETLB_PUD;
	struct model_blocks b;

	one_kind(&b, PK_ANON, 0);	/* every folio isolated, none leaves a gap */
	expect_lines(model_lookup_seq, "lookup/seq", &o64, &b, 1, 0, "order-0 folios");
	expect_lines(model_lookup_seq, "lookup/seq", &d32, &b, 1 / E32, 1.25, "order-0 folios");
	expect_lines(model_lookup_seq, "lookup/seq", &d8, &b, 1 / E8, 1, "order-0 folios");
	expect_lines(model_scan_compaction, "scan/compaction", &o64, &b, 1, 0, "order-0 folios");
	expect_lines(model_scan_compaction, "scan/compaction", &d32, &b, 1 / E32, 1.25, "order-0 folios");
	expect_lines(model_scan_compaction, "scan/compaction", &d8, &b, 1 / E8, 1, "order-0 folios");

	/* Skipped by their order: a head, the order's line, a gap to the next. */
	one_kind(&b, PK_FILE, 9);
	expect_lines(model_lookup_seq, "lookup/seq", &o64, &b, 1, 0, "order-9 folios");
	expect_lines(model_lookup_seq, "lookup/seq", &d32, &b, 1 / E32, 1.25 / PB, "order-9 folios");
	expect_lines(model_lookup_seq, "lookup/seq", &d8, &b, 1 / E8, 1 / PB, "order-9 folios");
	expect_lines(model_scan_compaction, "scan/compaction", &o64, &b, 1 / PB, 1 / PB, "order-9 folios");
	expect_lines(model_scan_compaction, "scan/compaction", &d32, &b, 0, 2 / PB, "order-9 folios");
	expect_lines(model_scan_compaction, "scan/compaction", &d8, &b, 0, 2 / PB, "order-9 folios");

	/* Isolated: o64 reads the head and the first tail, then jumps two lines. */
	one_kind(&b, PK_ANON, 2);
	expect_lines(model_scan_compaction, "scan/compaction", &o64, &b, 1.0 / 4, 1.0 / 4, "order-2 folios");
	expect_lines(model_scan_compaction, "scan/compaction", &d32, &b, 0, 2.25 / 4, "order-2 folios");
	expect_lines(model_scan_compaction, "scan/compaction", &d8, &b, 1 / E8, 1.0 / 4, "order-2 folios");

	one_kind(&b, PK_ANON, 1);	/* o64: head and first tail are the whole folio: no gap */
	expect_lines(model_scan_compaction, "scan/compaction", &o64, &b, 1, 0, "order-1 folios");
	one_kind(&b, PK_FREE, 1);	/* o64: the head only, then a gap */
	expect_lines(model_scan_compaction, "scan/compaction", &o64, &b, 0, 1.0 / 2, "order-1 free blocks");

	/*
	 * Hugetlb folios are folios: every entry streamed, the descriptor read
	 * once a folio (dependent); the scan skips them whole, 2 MiB and 1 GiB
	 * alike (order >= SCAN_COMPACT_ORDER): the head's line, page64's first
	 * tail, a jump.
	 */
	one_kind(&b, PK_HUGETLB, MIX_4K_HUGETLB_PMD);
	expect_lines(model_lookup_seq, "lookup/seq", &o64, &b, 1, 0, "2 MiB hugetlb");
	expect_lines(model_lookup_seq, "lookup/seq", &d8, &b, 1 / E8, 1 / PB, "2 MiB hugetlb");
	expect_lines(model_scan_compaction, "scan/compaction", &o64, &b, 1 / PB, 1 / PB, "2 MiB hugetlb");
	expect_lines(model_scan_compaction, "scan/compaction", &d8, &b, 0, 2 / PB, "2 MiB hugetlb");
	memset(&b, 0, sizeof(b));	/* 2 GiB: two 1 GiB folios */
	b.nr_pfns = 2 * G;
	b.nr[PK_HUGETLB][MIX_4K_HUGETLB_PUD] = 2;
	expect_lines(model_lookup_seq, "lookup/seq", &d8, &b, 1 / E8, 1 / G, "1 GiB hugetlb");
	expect_lines(model_scan_compaction, "scan/compaction", &o64, &b, 1 / G, 1 / G, "1 GiB hugetlb");
	expect_lines(model_scan_compaction, "scan/compaction", &d8, &b, 0, 2 / G, "1 GiB hugetlb");

	one_kind(&b, PK_FREE, 9);
	expect_lines(model_lookup_seq, "lookup/seq", &o64, &b, 1 / E64, 0, "free pageblocks");
	expect_lines(model_lookup_seq, "lookup/seq", &d32, &b, 1 / E32, 0, "free pageblocks");
	expect_lines(model_lookup_seq, "lookup/seq", &d8, &b, 1 / E8, 0, "free pageblocks");
	expect_lines(model_scan_compaction, "scan/compaction", &o64, &b, 0, 1 / PB, "free pageblocks");
	expect_lines(model_scan_compaction, "scan/compaction", &d8, &b, 0, 1 / PB, "free pageblocks");

	one_kind(&b, PK_SLAB, 3);	/* walked page by page, no descriptor read */
	expect_lines(model_lookup_seq, "lookup/seq", &d32, &b, 1 / E32, 0, "order-3 slabs");
	expect_lines(model_lookup_seq, "lookup/seq", &d8, &b, 1 / E8, 0, "order-3 slabs");
	expect_lines(model_scan_compaction, "scan/compaction", &o64, &b, 1 / E64, 0, "order-3 slabs");
	expect_lines(model_scan_compaction, "scan/compaction", &d32, &b, 1 / E32, 0, "order-3 slabs");
	expect_lines(model_scan_compaction, "scan/compaction", &d8, &b, 1 / E8, 0, "order-3 slabs");

	/* Two passes over every entry, and one buddy push per order-10 block. */
	/* list_add_tail() writes the previous block's head: evicted unless 1024 entries fit L1. */
	expect_lines(model_init_memmap, "init/memmap", &o64, &b, 2 / E64, TAIL, "any mix");
	expect_lines(model_init_memmap, "init/memmap", &d32, &b, 2 / E32, TAIL, "any mix");
	expect_lines(model_init_memmap, "init/memmap", &d8, &b, 2 / E8, 0, "any mix");
	expect_lines(model_none, "convert/pfn_to_page", &d8, &b, 0, 0, "any mix");
}

/*
 * compaction/cluster, per cluster of COMPACT_CLUSTER_MAX (32) pages, on the
 * same geometries: the scan's lines of the pfns a cluster covers, each
 * isolated folio's two LRU neighbours (dependent), and the old block's
 * entries the scan did not read, which freeing it writes (streamed).
 */
static void test_cluster(void)
{
	const double F = NR_PFNS;
	struct model_blocks b;
	struct model_lines lines;

	/* 32 order-0 file folios a cluster, nothing past them. */
	one_kind(&b, PK_FILE, 0);
	expect_lines(model_compaction_cluster, "compaction/cluster", &o64, &b, 32, 64, "order-0 file");
	expect_lines(model_compaction_cluster, "compaction/cluster", &d32, &b, 16, 32 * 1.25 + 64,
		     "order-0 file");
	expect_lines(model_compaction_cluster, "compaction/cluster", &d8, &b, 4, 32 + 64, "order-0 file");

	/* 8 order-2 folios: o64 reads head and first tail, a gap, then frees 2 more lines. */
	one_kind(&b, PK_FILE, 2);
	expect_lines(model_compaction_cluster, "compaction/cluster", &o64, &b, 8 * (1 + 2), 8 + 16,
		     "order-2 file");
	expect_lines(model_compaction_cluster, "compaction/cluster", &d8, &b, 8 * 0.5, 8 + 16,
		     "order-2 file");

	/* One order-6 folio a cluster (64 pages): o64 frees the 62 lines it skipped. */
	one_kind(&b, PK_FILE, 6);
	expect_lines(model_compaction_cluster, "compaction/cluster", &o64, &b, 1 + 62, 1 + 2,
		     "order-6 file");
	expect_lines(model_compaction_cluster, "compaction/cluster", &d32, &b, 32 - 1, 2.25 + 2,
		     "order-6 file");

	/* Half free pageblocks: 1/16 of one skipped per cluster, a gap each. */
	memset(&b, 0, sizeof(b));
	b.nr_pfns = NR_PFNS;
	b.nr[PK_FILE][0] = NR_PFNS / 2;
	b.nr[PK_FREE][9] = NR_PFNS / 2 / 512;
	expect_lines(model_compaction_cluster, "compaction/cluster", &o64, &b, 32, 64 + F / 1024 / (F / 64),
		     "order-0 file and free pageblocks");

	/* Nothing isolation takes: anon as the mix places it (unmapped), THPs, free memory. */
	one_kind(&b, PK_ANON, 0);
	CHECK(!model_compaction_cluster(&o64, &b, &lines), "compaction/cluster: a model on anon only");
	one_kind(&b, PK_FILE, 9);
	CHECK(!model_compaction_cluster(&d8, &b, &lines), "compaction/cluster: a model on THPs only");
	one_kind(&b, PK_FREE, 10);
	CHECK(!model_compaction_cluster(&d32, &b, &lines), "compaction/cluster: a model on free memory");
}

/* Small and large folios from caches of different strides, each counted at its own. */
static void test_strides(void)
{
	static const struct layout_ops mixed = {
		.name = "mixed", .page_size = 8,
		.model = { .desc_stride = 64, .desc_stride_large = 80,
			   .lookup = { 2, { { 0, 8 }, { 48, 4 } } }, .scan = { 1, { { 0, 8 } } } },
	};
	struct model_blocks b;

	memset(&b, 0, sizeof(b));
	b.nr_pfns = NR_PFNS;
	b.nr[PK_ANON][0] = NR_PFNS / 2;
	b.nr[PK_FILE][9] = NR_PFNS / 2 / 512;
	expect_lines(model_lookup_seq, "lookup/seq", &mixed, &b, 1 / 8.0,
		     (NR_PFNS / 2 * 1.0 + NR_PFNS / 1024 * 1.25) / NR_PFNS,
		     "order-0 folios in 64-byte, order-9 in 80-byte descriptors");
}

/*
 * model_predict() on every layout of the list, as a run builds it: aged
 * descriptors are outside the model for the kernels that read them (not for
 * the memmap-only ones, nor where folios overlay the memmap); a folio size
 * from --folio-desc-bytes moves the stride.  On all-order0 with the fields
 * a lookup reads in the first 64 bytes, 128-byte folios cost one line each.
 */
static void test_predict(void)
{
	struct memmap_opts fresh = { .age = DESC_FRESH_ORDERED, .seed = 1 }, aged = { .seed = 1 };
	struct memmap_opts big = { .age = DESC_FRESH_ORDERED, .folio_desc_bytes = 128, .seed = 1 };
	struct model_lines lines;
	struct mdb_err err;
	struct mix mix, desktop;
	unsigned int l;

	CHECK(!mix_builtin("all-order0", &mix, &err), "%s", err.msg);
	CHECK(!mix_builtin("desktop", &desktop, &err), "%s", err.msg);
	for (l = 0; mdb_layouts[l]; l++) {
		const struct layout_ops *ops = mdb_layouts[l];
		bool sep = ops->model.desc_stride != 0;

		CHECK(model_predict(model_lookup_seq, ops, &mix, NR_PFNS, &fresh, &lines),
		      "%s: no fresh prediction", ops->name);
		CHECK(model_predict(model_lookup_seq, ops, &mix, NR_PFNS, &aged, &lines) == !sep &&
		      model_predict(model_scan_compaction, ops, &mix, NR_PFNS, &aged, &lines) == !sep,
		      "%s: aged descriptors %s", ops->name, sep ? "predicted" : "not predicted");
		CHECK(!model_predict(model_compaction_cluster, ops, &mix, NR_PFNS, &fresh, &lines),
		      "%s: compaction/cluster predicted on all-order0, whose anon folios "
		      "isolation refuses", ops->name);
		CHECK(model_predict(model_compaction_cluster, ops, &desktop, NR_PFNS, &fresh, &lines) &&
		      model_predict(model_compaction_cluster, ops, &desktop, NR_PFNS, &aged, &lines) == !sep,
		      "%s: compaction/cluster on desktop: fresh not predicted, or aged %s", ops->name,
		      sep ? "predicted" : "not predicted");
		CHECK(model_predict(model_init_memmap, ops, &mix, NR_PFNS, &aged, &lines) &&
		      model_predict(model_none, ops, &mix, NR_PFNS, &aged, &lines),
		      "%s: the memmap-only models do not depend on descriptors", ops->name);
		if (!sep)
			continue;
		CHECK(model_predict(model_lookup_seq, ops, &mix, NR_PFNS, &big, &lines) &&
		      fabs(lines.streamed - (double)ops->page_size / 64) < 1e-9 &&
		      fabs(lines.dependent - 1) < 1e-9,
		      "%s: 128-byte folios: %.6f + %.6f lines per lookup", ops->name, lines.streamed,
		      lines.dependent);
	}
}

/* Outside what the model covers: entries that do not divide a line, and no pfns. */
static void test_no_model(void)
{
	struct layout_ops odd = d8;
	struct model_blocks b;
	struct model_lines lines;

	one_kind(&b, PK_ANON, 0);
	odd.page_size = 24;
	CHECK(!model_lookup_seq(&odd, &b, &lines), "24-byte entries: no model");
	b.nr_pfns = 0;
	CHECK(!model_scan_compaction(&d8, &b, &lines), "no pfns: no model");
}

/*
 * Every layout of the list: each kernel with a model predicts something for
 * it, at least the memmap's own lines, where the layout's own geometry
 * (LAYOUT_MODEL, taken with offsetof from its header) is what the formulas
 * above use.
 */
static void test_layouts(void)
{
	const struct mdb_kernel *const *k;
	struct mdb_err err;
	struct model_blocks b;
	unsigned int n, i;
	struct model_lines lines;

	CHECK(!mdb_kernels(&k, &n, &err), "%s", err.msg);
	one_kind(&b, PK_FILE, 0);	/* file: compaction/cluster isolates them */
	for (i = 0; i < n; i++) {
		const struct layout_ops *ops = k[i]->layout;

		if (!k[i]->model || !ops)
			continue;
		CHECK(k[i]->model(ops, &b, &lines), "%s has no model on %s", k[i]->name, ops->name);
		CHECK(k[i]->model == model_none ||
		      model_lines_total(&lines) >= (double)ops->page_size / 64 - 1e-12,
		      "%s on %s: %.6f lines per op, below the memmap's own", k[i]->name, ops->name,
		      model_lines_total(&lines));
		CHECK(lines.streamed >= 0 && lines.dependent >= 0, "%s on %s: %.6f streamed, "
		      "%.6f dependent lines", k[i]->name, ops->name, lines.streamed, lines.dependent);
	}
}

/*
 * The blocks the model counts from the mix plan are the blocks the layouts
 * placed: folios and free blocks by order, the other kinds by pfns (page
 * tables and zsmalloc pages are units of one page once placed).
 */
static void test_counts(const struct layout_ops *ops, const char *mix_name)
{
	unsigned long pfns[PK_NR] = { 0 }, want_pfns[PK_NR] = { 0 };
	unsigned long blocks[PK_NR][MIX_NR_ORDERS] = { { 0 } };	/* the trace merges up to MAX_PAGE_ORDER */
	struct mdb_err err;
	struct model_blocks b;
	struct memmap_opts opts = { .seed = 7 };
	struct page_info info;
	struct memmap *mm;
	struct mdb_err merr;
	unsigned long pfn, total = 0;
	struct mix mix;
	unsigned int k, o;

	if (mix_builtin(mix_name, &mix, &err) || model_count_blocks(&b, &mix, NR_PFNS, 7, opts.age, &err)) {
		CHECK(0, "mix %s: %s", mix_name, err.msg);
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
		for (o = 0; o < MIX_NR_ORDERS; o++) {
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
	test_cluster();
	test_strides();
	test_predict();
	test_no_model();
	test_layouts();
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
