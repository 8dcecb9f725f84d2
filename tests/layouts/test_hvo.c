// SPDX-License-Identifier: GPL-2.0
/*
 * test_hvo.c - the HVO arithmetic (layouts/hvo.h) against hand counts.
 *
 * First the pages one folio fills and gives back, per entry size and scheme,
 * at the orders that decide (Documentation/mm/vmemmap_dedup.rst: a 2 MiB
 * folio's 8 vmemmap pages keep 1, a 1 GiB folio's 4096 keep 1).  Then every
 * layout's ops->footprint_hvo() on a 4 GiB memmap that is all hugetlb (two
 * 1 GiB folios, 1024 2 MiB ones), against counts worked out by hand for its
 * geometry (entry size and scheme: the test names no layout), and on a
 * memmap of mixed kinds against a count over the mix plan.
 */
#include "test_layout_common.h"

static const struct {
	size_t entry;
	enum hvo_scheme scheme;
	unsigned int reserve, order;
	unsigned long pages, freed;
} one[] = {
	{ 64, HVO_FAKE_HEAD, 1, 9, 8, 7 },		/* 6.18, 2 MiB */
	{ 64, HVO_FAKE_HEAD, 1, 18, 4096, 4095 },	/* 6.18, 1 GiB */
	{ 64, HVO_FAKE_HEAD, 2, 9, 8, 6 },		/* before 5.18: two pages kept */
	{ 64, HVO_SHARED_TAIL, 1, 9, 8, 7 },
	{ 64, HVO_SHARED_TAIL, 1, 18, 4096, 4095 },
	{ 64, HVO_FAKE_HEAD, 1, 6, 1, 0 },		/* one page: nothing to free */
	{ 64, HVO_FAKE_HEAD, 1, 5, 0, 0 },		/* half a page: not whole pages */
	{ 64, HVO_NONE, 1, 18, 4096, 0 },
	{ 32, HVO_SAME_ENTRY, 1, 7, 1, 0 },		/* page32: 128 entries fill a page */
	{ 32, HVO_SAME_ENTRY, 1, 8, 2, 1 },		/* ... from order 8 one is freed */
	{ 32, HVO_SAME_ENTRY, 1, 9, 4, 3 },
	{ 32, HVO_SAME_ENTRY, 1, 18, 2048, 2047 },
	{ 8, HVO_SAME_ENTRY, 1, 9, 1, 0 },		/* memdesc8: 512 fill a page */
	{ 8, HVO_SAME_ENTRY, 1, 10, 2, 1 },
	{ 8, HVO_SAME_ENTRY, 1, 18, 512, 511 },		/* 2 MiB of memdescs -> 4 KiB */
};

/* 4 GiB, all hugetlb: 2 folios of 1 GiB, 1024 of 2 MiB; per geometry, in 4 KiB pages. */
static const struct {
	size_t entry;
	enum hvo_scheme scheme;
	unsigned long optimised, kept, freed, shared, pgtables;
} all_hugetlb[] = {
	/* 64 MiB of memmap, 16384 pages: keep 2 + 1024, free 2 x 4095 + 1024 x 7; 32 PMDs split. */
	{ 64, HVO_FAKE_HEAD, 1026, 1026, 15358, 0, 32 },
	/* The same, and one shared page of tails per order (2). */
	{ 64, HVO_SHARED_TAIL, 1026, 1026, 15358, 2, 32 },
	/* 32 MiB: 2 x 2048 and 1024 x 4 pages; free 2 x 2047 + 1024 x 3; 16 PMDs. */
	{ 32, HVO_SAME_ENTRY, 1026, 1026, 7166, 0, 16 },
	/* 8 MiB: only the 1 GiB folios fill more than a page (512 each): free 2 x 511; 2 PMDs. */
	{ 8, HVO_SAME_ENTRY, 2, 2, 1022, 0, 2 },
};

#define ALL_NR_PFNS	(1UL << 20)
#define MIXED_NR_PFNS	((3UL << 18) + 5 * 512 + 3)

static void check_one(void)
{
	for (unsigned int i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		struct layout_hvo h = { .scheme = one[i].scheme, .reserve_pages = one[i].reserve };

		CHECK(hvo_vmemmap_pages(one[i].entry, one[i].order) == one[i].pages &&
		      hvo_freed_pages(&h, one[i].entry, one[i].order) == one[i].freed,
		      "%zu-byte entries, order %u: %lu pages, %lu freed; want %lu, %lu", one[i].entry,
		      one[i].order, hvo_vmemmap_pages(one[i].entry, one[i].order),
		      hvo_freed_pages(&h, one[i].entry, one[i].order), one[i].pages, one[i].freed);
	}
}

static void build(const struct layout_ops *ops, struct memmap **mm, struct mix *mix,
		  unsigned long nr_pfns, const struct mix_entry *e, unsigned int nr)
{
	memset(mix, 0, sizeof(*mix));
	snprintf(mix->name, sizeof(mix->name), "hvo-test");
	mix->nr = nr;
	memcpy(mix->entry, e, nr * sizeof(*e));
	create_or_die(ops, mm, nr_pfns, mix, &(struct memmap_opts){ .seed = TEST_SEED });
}

static void check_all_hugetlb(const struct layout_ops *ops)
{
	static const struct mix_entry e[] = {
		{ PK_HUGETLB, HUGETLB_ORDER_PUD, 0.5 }, { PK_HUGETLB, HUGETLB_ORDER_PMD, 0.5 },
	};
	const unsigned long P = HVO_PAGE_SIZE;
	struct hvo_footprint h;
	struct footprint fp;
	struct memmap *mm;
	struct mix mix;
	unsigned int i;

	for (i = 0; i < sizeof(all_hugetlb) / sizeof(all_hugetlb[0]); i++)
		if (all_hugetlb[i].entry == ops->page_size && all_hugetlb[i].scheme == ops->hvo.scheme)
			break;
	CHECK(i < sizeof(all_hugetlb) / sizeof(all_hugetlb[0]),
	      "%s: no hand count for %zu-byte entries and scheme %d", ops->name, ops->page_size,
	      ops->hvo.scheme);
	if (i == sizeof(all_hugetlb) / sizeof(all_hugetlb[0]))
		return;
	build(ops, &mm, &mix, ALL_NR_PFNS, e, 2);
	ops->footprint(mm, &fp);
	CHECK(!ops->footprint_hvo(mm, &h), "%s: footprint_hvo", ops->name);
	CHECK(h.folios == 1026 && h.vmemmap_bytes == ALL_NR_PFNS * ops->page_size &&
	      h.optimised == all_hugetlb[i].optimised && h.kept_bytes == all_hugetlb[i].kept * P &&
	      h.freed_bytes == all_hugetlb[i].freed * P && h.shared_bytes == all_hugetlb[i].shared * P &&
	      h.pgtable_bytes == all_hugetlb[i].pgtables * P,
	      "%s: %zu folios, %zu optimised, %zu memmap, kept %zu, freed %zu, shared %zu, "
	      "page tables %zu", ops->name, h.folios, h.optimised, h.vmemmap_bytes, h.kept_bytes,
	      h.freed_bytes, h.shared_bytes, h.pgtable_bytes);
	CHECK(hvo_total_bytes(fp.memmap_bytes + fp.desc_bytes, &h) ==
	      fp.memmap_bytes + fp.desc_bytes - h.freed_bytes + h.shared_bytes + h.pgtable_bytes &&
	      fp.desc_bytes == 1026 * ops->desc_size[DESC_FOLIO_LARGE], "%s: totals", ops->name);
	ops->memmap_destroy(mm);
}

/* What HVO leaves, counted over the plan: each hugetlb block alone, PMDs in a set. */
static void check_mixed(const struct layout_ops *ops)
{
	static const struct mix_entry e[] = {
		{ PK_HUGETLB, HUGETLB_ORDER_PUD, 0.4 }, { PK_HUGETLB, HUGETLB_ORDER_PMD, 0.15 },
		{ PK_ANON, 9, 0.1 }, { PK_FILE, 0, 0.15 }, { PK_FREE, 10, 0.1 }, { PK_FREE, 9, 0.1 },
	};
	size_t entry = ops->page_size, per_page = HVO_PAGE_SIZE / entry;
	unsigned long nr_pmds = MIXED_NR_PFNS * entry / HVO_PMD_SIZE + 1;
	unsigned char *pmd = calloc(nr_pmds, 1);
	struct hvo_footprint h, want = { 0 };
	bool order_seen[MIX_NR_ORDERS] = { false };
	struct mix_plan plan;
	struct mix_block b;
	struct mdb_err err;
	struct memmap *mm;
	struct mix mix;

	build(ops, &mm, &mix, MIXED_NR_PFNS, e, sizeof(e) / sizeof(e[0]));
	CHECK(!mix_plan_init(&plan, &mix, MIXED_NR_PFNS, TEST_SEED, &err), "%s", err.msg);
	while (mix_plan_next(&plan, &b)) {
		unsigned long pages = (1UL << b.order) / per_page, p;

		if (b.kind != PK_HUGETLB)
			continue;
		want.folios++;
		want.vmemmap_bytes += entry << b.order;
		if (pages <= ops->hvo.reserve_pages || ops->hvo.scheme == HVO_NONE)
			continue;
		want.optimised++;
		want.kept_bytes += ops->hvo.reserve_pages * HVO_PAGE_SIZE;
		want.freed_bytes += (pages - ops->hvo.reserve_pages) * HVO_PAGE_SIZE;
		if (ops->hvo.scheme == HVO_SHARED_TAIL && !order_seen[b.order])
			want.shared_bytes += HVO_PAGE_SIZE;
		order_seen[b.order] = true;
		for (p = b.pfn * entry / HVO_PMD_SIZE; p <= ((b.pfn + (1UL << b.order)) * entry - 1) /
		     HVO_PMD_SIZE; p++) {
			want.pgtable_bytes += pmd[p] ? 0 : HVO_PAGE_SIZE;
			pmd[p] = 1;
		}
	}
	mix_plan_release(&plan);
	CHECK(!ops->footprint_hvo(mm, &h) && !memcmp(&h, &want, sizeof(h)),
	      "%s: %zu folios (%zu), freed %zu (%zu), shared %zu (%zu), page tables %zu (%zu)",
	      ops->name, h.folios, want.folios, h.freed_bytes, want.freed_bytes, h.shared_bytes,
	      want.shared_bytes, h.pgtable_bytes, want.pgtable_bytes);
	CHECK(want.folios > 2 && want.optimised, "%s: the mix placed hugetlb folios", ops->name);
	ops->memmap_destroy(mm);
	free(pmd);
}

int main(void)
{
	const struct layout_ops *const *ops;

	check_one();
	for (ops = mdb_layouts; *ops; ops++) {
		check_all_hugetlb(*ops);
		check_mixed(*ops);
	}
	if (failures) {
		fprintf(stderr, "hvo: %d failures\n", failures);
		return 1;
	}
	printf("hvo: the arithmetic and every layout's footprint_hvo() as counted by hand\n");
	return 0;
}
