// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_basepage.c - the memmap at 16 and 64 KiB base pages
 * (--base-page), against figures worked out here by hand.
 *
 *  - The built-in mixes translated (mix_translate()): the expected entries
 *    are written out below, each 4 KiB order lowered by 2 (16k) or 4 (64k),
 *    floored at 0, the fractions of entries that meet added up, the hugetlb
 *    levels kept; and the blocks the placement lays (mix_plan) counted
 *    against the largest-remainder counts of mix.c's rule, worked here from
 *    those hand entries.
 *  - ops->footprint() of every layout on every built-in mix at each: the
 *    memmap is one entry per base page (RAM / 16 KiB or 64 KiB times
 *    sizeof(struct page)); descriptors one per folio, slab and page-pool
 *    block, one per page-table and zsmalloc page, from those hand counts.
 *  - HVO on hugetlb folios of the base page's PMD and largest hstates: per
 *    folio it keeps one base page of entries and gives back the rest (the
 *    figures in the table, in bytes), or nothing where they fill one page;
 *    and every page of a remapped folio still resolves to its head.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layout.h"
#include "test_common.h"

#define E(k, o, f)	{ .kind = PK_##k, .order = (o), .fraction = (f) }

struct want_mix {
	const char *base, *mix;
	unsigned long long ram;
	struct mix_entry e[32];
};

/* desktop and server of mix.c, by hand: (kind, order at the base page, fraction). */
static const struct want_mix want[] = {
	{ "16k", "desktop", 256ULL << 20, {
		E(FREE, 7, 0.08), E(FREE, 6, 0.002), E(FREE, 5, 0.002), E(FREE, 4, 0.003),
		E(FREE, 3, 0.004), E(FREE, 2, 0.005), E(FREE, 1, 0.007),
		E(FREE, 0, 0.007 + 0.006 + 0.004),
		E(FILE, 0, 0.17 + 0.02 + 0.05), E(FILE, 1, 0.04), E(FILE, 2, 0.04), E(FILE, 3, 0.04),
		E(ANON, 0, 0.30), E(ANON, 7, 0.10),
		E(SLAB, 0, 0.01 + 0.005 + 0.005), E(SLAB, 1, 0.02),
		E(PGTABLE, 0, 0.0095 + 0.0005), E(ZSMALLOC, 0, 0.01), E(NETMEM, 0, 0.002),
		E(RESERVED, 0, 0.038), E(RESERVED, 7, 0.02) } },
	{ "64k", "desktop", 2ULL << 30, {
		E(FREE, 5, 0.08), E(FREE, 4, 0.002), E(FREE, 3, 0.002), E(FREE, 2, 0.003),
		E(FREE, 1, 0.004), E(FREE, 0, 0.005 + 0.007 + 0.007 + 0.006 + 0.004),
		E(FILE, 0, 0.17 + 0.02 + 0.05 + 0.04 + 0.04), E(FILE, 1, 0.04),
		E(ANON, 0, 0.30), E(ANON, 5, 0.10),
		E(SLAB, 0, 0.01 + 0.005 + 0.005 + 0.02),
		E(PGTABLE, 0, 0.0095 + 0.0005), E(ZSMALLOC, 0, 0.01), E(NETMEM, 0, 0.002),
		E(RESERVED, 0, 0.038), E(RESERVED, 5, 0.02) } },
	{ "16k", "server", 256ULL << 20, {
		E(FILE, 0, 0.12 + 0.06), E(FILE, 2, 0.08), E(FILE, 3, 0.06), E(FILE, 4, 0.05),
		E(FILE, 5, 0.04), E(FILE, 6, 0.03), E(FILE, 7, 0.06),
		E(ANON, 0, 0.06), E(ANON, 7, 0.24),
		E(FREE, 0, 0.01 + 0.01), E(FREE, 1, 0.01), E(FREE, 7, 0.05),
		E(SLAB, 0, 0.01 + 0.005 + 0.005), E(SLAB, 1, 0.02),
		E(PGTABLE, 0, 0.005), E(NETMEM, 0, 0.02), E(ZSMALLOC, 0, 0.02),
		E(RESERVED, 0, 0.015), E(RESERVED, 7, 0.02) } },
	{ "64k", "server", 2ULL << 30, {
		E(FILE, 0, 0.12 + 0.06 + 0.08), E(FILE, 1, 0.06), E(FILE, 2, 0.05), E(FILE, 3, 0.04),
		E(FILE, 4, 0.03), E(FILE, 5, 0.06),
		E(ANON, 0, 0.06), E(ANON, 5, 0.24),
		E(FREE, 0, 0.01 + 0.01 + 0.01), E(FREE, 5, 0.05),
		E(SLAB, 0, 0.01 + 0.005 + 0.005 + 0.02),
		E(PGTABLE, 0, 0.005), E(NETMEM, 0, 0.02), E(ZSMALLOC, 0, 0.02),
		E(RESERVED, 0, 0.015), E(RESERVED, 5, 0.02) } },
	{ "16k", "all-order0", 256ULL << 20, { E(ANON, 0, 1.0) } },
	{ "64k", "all-order0", 2ULL << 30, { E(ANON, 0, 1.0) } },
	{ "16k", "free", 256ULL << 20, { E(FREE, 7, 1.0) } },
	{ "64k", "free", 2ULL << 30, { E(FREE, 5, 1.0) } },
};

static unsigned int nr_entries(const struct want_mix *w)
{
	unsigned int n = 0;

	while (n < 32 && w->e[n].fraction > 0)
		n++;
	return n;
}

/*
 * mix.c's placement counts, from its comment: over the whole pageblocks,
 * each entry the floor of its share of blocks, then one more block by
 * largest remainder (ties: lower kind, then lower order) while it fits;
 * the rest free order 0.  Plus the pfns past the last whole pageblock, free.
 */
static void hand_counts(const struct want_mix *w, unsigned long nr_pfns,
			unsigned long count[PK_NR][MIX_NR_ORDERS])
{
	unsigned long nr = nr_pfns & ~((1UL << PAGEBLOCK_ORDER) - 1), pages = 0;
	double rem[PK_NR][MIX_NR_ORDERS], sum = 0;
	unsigned int i, n = nr_entries(w), o;
	int k;

	memset(count, 0, sizeof(unsigned long) * PK_NR * MIX_NR_ORDERS);
	for (k = 0; k < PK_NR; k++)
		for (o = 0; o < MIX_NR_ORDERS; o++)
			rem[k][o] = -1;
	for (i = 0; i < n; i++)
		sum += w->e[i].fraction;
	for (i = 0; i < n; i++) {
		const struct mix_entry *e = &w->e[i];
		double ideal = e->fraction / sum * (double)nr / (double)(1UL << e->order);
		double whole = floor(ideal + 1e-9);

		count[e->kind][e->order] = (unsigned long)whole;
		rem[e->kind][e->order] = round(fmax(ideal - whole, 0) * 1e9);
		pages += (unsigned long)whole << e->order;
	}
	for (;;) {
		int bk = -1;
		unsigned int bo = 0;

		for (k = 0; k < PK_NR; k++)
			for (o = 0; o < MIX_NR_ORDERS; o++)
				if (rem[k][o] > 0 && (bk < 0 || rem[k][o] > rem[bk][bo])) {
					bk = k;
					bo = o;
				}
		if (bk < 0)
			break;
		rem[bk][bo] = -1;
		if (pages + (1UL << bo) <= nr) {
			count[bk][bo]++;
			pages += 1UL << bo;
		}
	}
	count[PK_FREE][0] += nr - pages + (nr_pfns - nr);
}

static void check_translation(const struct want_mix *w, const struct mix *got)
{
	unsigned int n = nr_entries(w), i, j;

	CHECK(got->nr == n, "%s at %s: %u entries, want %u", w->mix, w->base, got->nr, n);
	for (i = 0; i < n; i++) {
		for (j = 0; j < got->nr; j++)
			if (got->entry[j].kind == w->e[i].kind && got->entry[j].order == w->e[i].order)
				break;
		CHECK(j < got->nr && fabs(got->entry[j].fraction - w->e[i].fraction) < 1e-12,
		      "%s at %s: (%s, %u) %.17g, want %.17g", w->mix, w->base,
		      page_kind_name(w->e[i].kind), w->e[i].order,
		      j < got->nr ? got->entry[j].fraction : -1.0, w->e[i].fraction);
	}
}

/* What the placement lays, per (kind, order), against the hand counts. */
static void check_counts(const struct want_mix *w, const struct mix *mix, unsigned long nr_pfns,
			 unsigned long hand[PK_NR][MIX_NR_ORDERS])
{
	static unsigned long got[PK_NR][MIX_NR_ORDERS];
	struct mix_plan plan;
	struct mix_block b;
	struct mdb_err err;
	unsigned int o, bad = 0;
	int k;

	memset(got, 0, sizeof(got));
	if (mix_plan_init(&plan, mix, nr_pfns, 1, &err)) {
		CHECK(false, "%s at %s: %s", w->mix, w->base, err.msg);
		return;
	}
	while (mix_plan_next(&plan, &b))
		got[b.kind][b.order]++;
	mix_plan_release(&plan);
	for (k = 0; k < PK_NR; k++)
		for (o = 0; o < MIX_NR_ORDERS; o++)
			if (got[k][o] != hand[k][o] && bad++ < 3)
				CHECK(false, "%s at %s: %lu blocks of (%s, %u), want %lu", w->mix, w->base,
				      got[k][o], page_kind_name((enum page_kind)k), o, hand[k][o]);
	CHECK(!bad, "%s at %s: the placement's counts", w->mix, w->base);
}

static void check_footprint(const struct layout_ops *ops, const struct want_mix *w,
			    const struct mix *mix, unsigned long nr_pfns,
			    unsigned long hand[PK_NR][MIX_NR_ORDERS])
{
	/*
	 * Fresh: the placement the mix asks for, descriptor for descriptor.  An
	 * aged machine's trace keeps page cache up to the high watermark and may
	 * end with a block it could not place again (AGE_GONE): a count of its
	 * own, not the mix's.
	 */
	struct memmap_opts opts = { .seed = 1, .age = DESC_FRESH };
	size_t bytes = 0, count = 0;
	struct footprint fp;
	struct memmap *mm;
	struct mdb_err err;
	unsigned int o;
	int k;

	if (ops->memmap_create(&mm, nr_pfns, mix, &opts, &err)) {
		CHECK(false, "%s/%s at %s: %s", ops->name, w->mix, w->base, err.msg);
		return;
	}
	ops->footprint(mm, &fp);
	ops->memmap_destroy(mm);
	/* Each descriptor at its cache's stride (the free pointer of a TYPESAFE_BY_RCU cache). */
#define STRIDE(t)	(ops->desc_size[t] ? memmap_cache_stride(&opts, t, ops->desc_size[t]) : 0)
	for (k = 0; k < PK_NR; k++)
		for (o = 0; o < MIX_NR_ORDERS; o++) {
			size_t n = hand[k][o];
			size_t folio = STRIDE(folio_desc_type(k, o));

			switch (k) {
			case PK_ANON: case PK_FILE: case PK_HUGETLB:
				bytes += n * folio;
				count += folio ? n : 0;
				break;
			case PK_SLAB:
				bytes += n * STRIDE(DESC_SLAB);
				count += ops->desc_size[DESC_SLAB] ? n : 0;
				break;
			case PK_NETMEM:
				bytes += n * STRIDE(DESC_BUMP);
				count += ops->desc_size[DESC_BUMP] ? n : 0;
				break;
			case PK_PGTABLE:
				bytes += (n << o) * STRIDE(DESC_PTDESC);
				count += ops->desc_size[DESC_PTDESC] ? n << o : 0;
				break;
			case PK_ZSMALLOC:
				bytes += (n << o) * STRIDE(DESC_ZPDESC);
				count += ops->desc_size[DESC_ZPDESC] ? n << o : 0;
				break;
			}
		}
#undef STRIDE
	/* RAM / base page entries: 16384 at 256 MiB and 16 KiB, 32768 at 2 GiB and 64 KiB. */
	CHECK(fp.memmap_bytes == w->ram / (1ULL << (w->base[0] == '1' ? 14 : 16)) * ops->page_size &&
	      fp.desc_bytes == bytes && fp.desc_count == count,
	      "%s/%s at %s: memmap %zu, descriptors %zu in %zu; want %llu, %zu in %zu", ops->name,
	      w->mix, w->base, fp.memmap_bytes, fp.desc_bytes, fp.desc_count,
	      w->ram / (1ULL << (w->base[0] == '1' ? 14 : 16)) * ops->page_size, bytes, count);
}

/*
 * HVO per folio, bytes: the entries of one folio, and what HVO keeps of
 * them (one base page, or all where they fill no more than one).
 */
static const struct {
	const char *base;
	bool top;			/* the largest hstate; else the PMD one */
	size_t entry;
	unsigned long long vmemmap, kept;
} hvo_want[] = {
	{ "16k", false, 64, 128 << 10, 16 << 10 },	/* 32 MiB: 2048 entries */
	{ "16k", false, 32, 64 << 10, 16 << 10 },
	{ "16k", false, 8, 16 << 10, 16 << 10 },	/* one page: nothing given back */
	{ "16k", true, 64, 4 << 20, 16 << 10 },		/* 1 GiB: 65536 entries */
	{ "16k", true, 32, 2 << 20, 16 << 10 },
	{ "16k", true, 8, 512 << 10, 16 << 10 },
	{ "64k", false, 64, 512 << 10, 64 << 10 },	/* 512 MiB: 8192 entries */
	{ "64k", false, 32, 256 << 10, 64 << 10 },
	{ "64k", false, 8, 64 << 10, 64 << 10 },	/* one page */
};

static void check_hvo(const struct layout_ops *ops, unsigned int i)
{
	/* Given in 4 KiB orders: half the RAM in PMD-level (or PUD-level) hugetlb folios. */
	struct mix given = { .name = "hvo", .nr = 2, .entry = {
		{ PK_HUGETLB, hvo_want[i].top ? MIX_4K_HUGETLB_PUD : MIX_4K_HUGETLB_PMD, 0.5 },
		{ PK_FREE, MIX_4K_MAX_PAGE_ORDER, 0.5 } } };
	/* Two folios: 128 MiB at 16k (32 MiB ones), 2 GiB at 64k (512 MiB), 4 GiB for 1 GiB ones at 16k. */
	unsigned long nr_pfns = hvo_want[i].top ? 4UL << (30 - 14) :
				hvo_want[i].base[0] == '1' ? 128UL << (20 - 14) : 2UL << (30 - 16);
	struct memmap_opts opts = { .seed = 1, .hvo = HVO_ON };
	struct footprint fp;
	struct memmap *mm;
	struct mdb_err err;
	struct mix mix;
	unsigned long pfn, bad = 0;
	size_t freed;

	if (ops->page_size != hvo_want[i].entry)
		return;
	if (mix_translate(&given, &mdb_base, &mix, NULL, &err) ||
	    ops->memmap_create(&mm, nr_pfns, &mix, &opts, &err)) {
		CHECK(false, "%s at %s: %s", ops->name, hvo_want[i].base, err.msg);
		return;
	}
	ops->footprint(mm, &fp);
	freed = hvo_want[i].vmemmap - hvo_want[i].kept;
	CHECK(fp.hvo.folios == 2 && fp.hvo.vmemmap_bytes == 2 * hvo_want[i].vmemmap &&
	      fp.hvo.optimised == (freed ? 2 : 0) && fp.hvo.kept_bytes == (freed ? 2 * hvo_want[i].kept : 0) &&
	      fp.hvo.freed_bytes == 2 * freed,
	      "%s at %s, %s hstate: %zu folios, %zu optimised, vmemmap %zu, kept %zu, freed %zu; "
	      "want 2, %d, %llu, %llu, %zu", ops->name, hvo_want[i].base,
	      hvo_want[i].top ? "largest" : "PMD", fp.hvo.folios, fp.hvo.optimised,
	      fp.hvo.vmemmap_bytes, fp.hvo.kept_bytes, fp.hvo.freed_bytes, freed ? 2 : 0,
	      2 * hvo_want[i].vmemmap, freed ? 2 * hvo_want[i].kept : 0, 2 * freed);
	/* Remapped or not, every page of a hugetlb folio resolves to its head. */
	for (pfn = 0; pfn < nr_pfns; pfn++) {
		struct page_info pi;

		ops->page_info(mm, pfn, &pi);
		if (pi.kind == PK_HUGETLB &&
		    (pi.order != (hvo_want[i].top ? HUGETLB_ORDER_PUD : HUGETLB_ORDER_PMD) ||
		     pi.head_pfn != (pfn & ~((1UL << pi.order) - 1))))
			bad++;
	}
	CHECK(!bad, "%s at %s: %lu hugetlb pages resolve wrongly under HVO", ops->name,
	      hvo_want[i].base, bad);
	ops->memmap_destroy(mm);
}

int main(void)
{
	static unsigned long hand[PK_NR][MIX_NR_ORDERS];
	const char *bases[] = { "16k", "64k" };
	unsigned int i, b, l;

	for (b = 0; b < 2; b++) {
		base_page_set(base_page_find(bases[b]));
		for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			const struct want_mix *w = &want[i];
			unsigned long nr_pfns = (unsigned long)(w->ram >> MDB_PAGE_SHIFT);
			struct mix given, mix;
			struct mdb_err err;

			if (strcmp(w->base, bases[b]))
				continue;
			if (mix_builtin(w->mix, &given, &err) ||
			    mix_translate(&given, &mdb_base, &mix, NULL, &err)) {
				CHECK(false, "%s at %s: %s", w->mix, w->base, err.msg);
				continue;
			}
			check_translation(w, &mix);
			hand_counts(w, nr_pfns, hand);
			check_counts(w, &mix, nr_pfns, hand);
			for (l = 0; mdb_layouts[l]; l++)
				check_footprint(mdb_layouts[l], w, &mix, nr_pfns, hand);
		}
		for (i = 0; i < sizeof(hvo_want) / sizeof(hvo_want[0]); i++)
			if (!strcmp(hvo_want[i].base, bases[b]))
				for (l = 0; mdb_layouts[l]; l++)
					check_hvo(mdb_layouts[l], i);
	}
	return failures ? 1 : 0;
}
