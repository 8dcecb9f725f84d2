// SPDX-License-Identifier: GPL-2.0
/*
 * test_hvo.c - HVO (machine/hvo.h): the arithmetic against hand counts, and
 * the remapping against the arithmetic and against the layout API.
 *
 * First the pages one folio fills and gives back, per entry size and scheme,
 * at the orders that decide (Documentation/mm/vmemmap_dedup.rst: a 2 MiB
 * folio's 8 vmemmap pages keep 1, a 1 GiB folio's 4096 keep 1).  Then every
 * layout's ops->footprint_hvo() on a 4 GiB memmap that is all hugetlb (two
 * 1 GiB folios, 1024 2 MiB ones), against counts worked out by hand for its
 * geometry (entry size and scheme: the test names no layout), and on a
 * memmap of mixed kinds against a count over the mix plan.  Both again with
 * HVO on, where the pages the memmap's memfd holds (measured) must be
 * exactly the computed memmap, and every pfn must read through the layout
 * API as it does on the same machine with HVO off.  Then the remapping
 * itself on each layout: a folio restored and optimised again reads the
 * same before, between and after, gives back and takes again exactly its
 * computed pages, its tail pages read the bytes of the page they share
 * (page64: its own head page, fake heads at every page-aligned tail;
 * page64ci: the same tail page for every folio of an order); and the
 * fake-head key is on exactly while page64 has a folio remapped.
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
	{ 64, HVO_SAME_ENTRY, 1, 9, 8, 7 },		/* page64md: 6.18's 7 of 8 */
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
	/* page64md: page64's 64 MiB, every folio's pages onto its first: the same counts, no shared page. */
	{ 64, HVO_SAME_ENTRY, 1026, 1026, 15358, 0, 32 },
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
		  unsigned long nr_pfns, const struct mix_entry *e, unsigned int nr, enum hvo_mode hvo)
{
	memset(mix, 0, sizeof(*mix));
	snprintf(mix->name, sizeof(mix->name), "hvo-test");
	mix->nr = nr;
	memcpy(mix->entry, e, nr * sizeof(*e));
	create_or_die(ops, mm, nr_pfns, mix,
		      &(struct memmap_opts){ .seed = TEST_SEED, .hvo = hvo, .age = DESC_FRESH_ORDERED });
}

/* Every pfn of a memmap with HVO on reads as on the same machine with it off. */
static void check_same_machine(const struct layout_ops *ops, struct memmap *on,
			       const struct mix *mix)
{
	struct page_info a, b;
	struct memmap *off;
	unsigned long pfn;
	char s0[160], s1[160];

	create_or_die(ops, &off, on->nr_pfns, mix,
		      &(struct memmap_opts){ .seed = TEST_SEED, .age = DESC_FRESH_ORDERED });
	for (pfn = 0; pfn < on->nr_pfns; pfn++) {
		ops->page_info(off, pfn, &a);
		ops->page_info(on, pfn, &b);
		if (page_info_equal(&a, &b))
			continue;
		page_info_str(&a, s0, sizeof(s0));
		page_info_str(&b, s1, sizeof(s1));
		CHECK(0, "%s: pfn %lu reads %s with HVO on, %s off", ops->name, pfn, s1, s0);
		break;
	}
	ops->memmap_destroy(off);
}

/*
 * With HVO on: the memfd holds exactly the memmap's pages less those HVO
 * gave back, plus the shared ones; ops->footprint() says so too.
 */
static void check_measured(const struct layout_ops *ops, struct memmap *mm,
			   const struct hvo_footprint *want)
{
	size_t pages = (mm->nr_pfns * ops->page_size + HVO_PAGE_SIZE - 1) & ~(HVO_PAGE_SIZE - 1);
	struct footprint_measured m;
	struct footprint fp;

	ops->footprint(mm, &fp);
	CHECK(!memmap_measure(mm, &m), "%s: memmap_measure", ops->name);
	CHECK(!memcmp(&fp.hvo, want, sizeof(*want)), "%s: ops->footprint()'s HVO share: freed %zu, "
	      "want %zu", ops->name, fp.hvo.freed_bytes, want->freed_bytes);
	CHECK(m.memmap_bytes == pages - want->freed_bytes + want->shared_bytes &&
	      m.memmap_bytes == footprint_memmap_bytes(&fp) + pages - fp.memmap_bytes,
	      "%s: the memfd holds %zu bytes; computed: %zu - %zu freed + %zu shared", ops->name,
	      m.memmap_bytes, pages, want->freed_bytes, want->shared_bytes);
	CHECK(mm->hvo.nr_optimised == want->optimised, "%s: %lu folios remapped, %zu computed",
	      ops->name, mm->hvo.nr_optimised, want->optimised);
	CHECK((ops->hvo.scheme == HVO_FAKE_HEAD && want->optimised) == (hvo_key_count() > 0) &&
	      hvo_key_count() == (ops->hvo.scheme == HVO_FAKE_HEAD ? want->optimised : 0),
	      "%s: the fake-head key at %lu with %zu folios remapped", ops->name, hvo_key_count(),
	      want->optimised);
}

/* Mappings a build makes beside its HVO remapping: the memmap's own, its allocations. */
#define BUILD_MAPPINGS	64

static void check_all_hugetlb(const struct layout_ops *ops, enum hvo_mode hvo)
{
	static const struct mix_entry e[] = {
		{ PK_HUGETLB, MIX_4K_HUGETLB_PUD, 0.5 }, { PK_HUGETLB, MIX_4K_HUGETLB_PMD, 0.5 },
	};
	const unsigned long P = HVO_PAGE_SIZE;
	struct hvo_footprint h;
	struct footprint fp;
	struct memmap *mm;
	struct mix mix;
	unsigned long maps;
	unsigned int i;

	for (i = 0; i < sizeof(all_hugetlb) / sizeof(all_hugetlb[0]); i++)
		if (all_hugetlb[i].entry == ops->page_size && all_hugetlb[i].scheme == ops->hvo.scheme)
			break;
	CHECK(i < sizeof(all_hugetlb) / sizeof(all_hugetlb[0]),
	      "%s: no hand count for %zu-byte entries and scheme %d", ops->name, ops->page_size,
	      ops->hvo.scheme);
	if (i == sizeof(all_hugetlb) / sizeof(all_hugetlb[0]))
		return;
	maps = hvo_map_count();
	build(ops, &mm, &mix, ALL_NR_PFNS, e, 2, hvo);
	/*
	 * The mappings the build made, within what the budget counts for its
	 * remapping (BUILD_MAPPINGS for the memmap's own and the allocations
	 * beside it): each folio remapped in turn splits the own mapping after
	 * it, n + 1 mappings for n pages, which counted as n let a 32 GiB
	 * database-256g memmap pass vm.max_map_count unseen.
	 */
	CHECK(hvo_map_count() - maps <= mm->hvo.nr_mappings + BUILD_MAPPINGS,
	      "%s: the build made %lu mappings, %lu counted for HVO", ops->name,
	      hvo_map_count() - maps, mm->hvo.nr_mappings);
	ops->footprint(mm, &fp);
	CHECK(!ops->footprint_hvo(mm, &h), "%s: footprint_hvo", ops->name);
	CHECK(h.folios == 1026 && h.vmemmap_bytes == ALL_NR_PFNS * ops->page_size &&
	      h.optimised == all_hugetlb[i].optimised && h.kept_bytes == all_hugetlb[i].kept * P &&
	      h.freed_bytes == all_hugetlb[i].freed * P && h.shared_bytes == all_hugetlb[i].shared * P &&
	      h.pgtable_bytes == all_hugetlb[i].pgtables * P,
	      "%s: %zu folios, %zu optimised, %zu memmap, kept %zu, freed %zu, shared %zu, "
	      "page tables %zu", ops->name, h.folios, h.optimised, h.vmemmap_bytes, h.kept_bytes,
	      h.freed_bytes, h.shared_bytes, h.pgtable_bytes);
	CHECK(fp.memmap_bytes == ALL_NR_PFNS * ops->page_size &&
	      fp.desc_bytes == 1026 * ops->desc_size[DESC_FOLIO_LARGE], "%s: totals", ops->name);
	if (hvo == HVO_ON) {
		check_measured(ops, mm, &h);
		check_same_machine(ops, mm, &mix);
	} else {
		CHECK(!fp.hvo.folios && !hvo_key_count(), "%s: HVO off, yet counted", ops->name);
	}
	ops->memmap_destroy(mm);
	CHECK(!hvo_key_count(), "%s: the key on after the memmap went", ops->name);
}

/* page_info of every pfn of [head, head + nr). */
static struct page_info *snapshot(const struct layout_ops *ops, const struct memmap *mm,
				  unsigned long head, unsigned long nr)
{
	struct page_info *pi = malloc(nr * sizeof(*pi));
	unsigned long i;

	if (!pi)
		exit(1);
	for (i = 0; i < nr; i++)
		ops->page_info(mm, head + i, &pi[i]);
	return pi;
}

static void check_snapshot(const struct layout_ops *ops, const struct memmap *mm,
			   unsigned long head, unsigned long nr, const struct page_info *want,
			   const char *when)
{
	struct page_info *got = snapshot(ops, mm, head, nr);
	unsigned long i;

	for (i = 0; i < nr; i++)
		if (!page_info_equal(&got[i], &want[i])) {
			CHECK(0, "%s: pfn %lu of the folio at %lu reads otherwise %s", ops->name, i,
			      head, when);
			break;
		}
	free(got);
}

/* What the memfd holds now. */
static size_t held(const struct memmap *mm)
{
	size_t bytes = 0;

	CHECK(!hvo_map_held(&mm->hvo, &bytes), "hvo_map_held");
	return bytes;
}

/*
 * The tail vmemmap pages of an optimised folio read the bytes of what they
 * share: the folio's first page (page64, page64md, page32, memdesc8), or the tail
 * page of their order, the same in every folio of it (page64ci).  page64's
 * page-aligned tails then read as heads: fake heads, which page_info (and
 * so every check above) sees through only because the key is on.
 */
static void check_shared_bytes(const struct layout_ops *ops, const struct memmap *mm,
			       unsigned long head, unsigned int order, long other)
{
	const char *first = (const char *)mm->map + head * ops->page_size;
	unsigned long pages = hvo_vmemmap_pages(ops->page_size, order), p;
	const char *other_tail = other >= 0 ?
		(const char *)mm->map + (unsigned long)other * ops->page_size + HVO_PAGE_SIZE : NULL;

	for (p = ops->hvo.reserve_pages; p < pages; p++) {
		const char *tail = first + p * HVO_PAGE_SIZE;

		if (ops->hvo.scheme == HVO_SHARED_TAIL) {
			CHECK(!other_tail || !memcmp(tail, other_tail, HVO_PAGE_SIZE),
			      "%s: page %lu of the folio at %lu is not its order's shared page",
			      ops->name, p, head);
			CHECK(memcmp(tail, first, ops->page_size),
			      "%s: a shared tail reads as the head", ops->name);
		} else {
			CHECK(!memcmp(tail, first, HVO_PAGE_SIZE), "%s: page %lu of the folio at %lu "
			      "does not read its first page", ops->name, p, head);
		}
		if (failures)
			break;
	}
}

/*
 * Each hugetlb folio of the memmap HVO frees pages of, restored and
 * optimised again: the same reads throughout, exactly its pages back and
 * given back again, the key following page64's folios.
 */
static void check_remap(const struct layout_ops *ops, struct memmap *mm)
{
	long prev[MIX_NR_ORDERS];
	struct mdb_err err;
	unsigned long pfn, nr, freed;
	unsigned int order, seen = 0;
	struct page_info *before, pi;
	unsigned long maps0, counted0;
	size_t h0, h1;

	memset(prev, -1, sizeof(prev));
	for (pfn = 0; pfn < mm->nr_pfns && seen < 6; pfn += nr) {
		ops->page_info(mm, pfn, &pi);
		nr = pi.head_pfn == pfn && pi.kind != PK_FREE ? 1UL << pi.order : 1;
		if (pi.kind != PK_HUGETLB || pi.head_pfn != pfn)
			continue;
		order = pi.order;
		freed = hvo_freed_pages(&ops->hvo, ops->page_size, order) * HVO_PAGE_SIZE;
		if (!freed)
			continue;
		seen++;
		CHECK(hvo_folio_optimised(&mm->hvo, pfn), "%s: the folio at %lu not remapped",
		      ops->name, pfn);
		check_shared_bytes(ops, mm, pfn, order, prev[order]);
		before = snapshot(ops, mm, pfn, nr);
		h0 = held(mm);
		CHECK(!ops->hvo_restore(mm, pfn + nr - 1, &err), "%s: restore: %s", ops->name, err.msg);
		h1 = held(mm);
		CHECK(!hvo_folio_optimised(&mm->hvo, pfn) && h1 == h0 + freed,
		      "%s: restored the folio at %lu: %zu -> %zu bytes held, %lu freed", ops->name,
		      pfn, h0, h1, freed);
		check_snapshot(ops, mm, pfn, nr, before, "once restored");
		CHECK(!ops->hvo_restore(mm, pfn, &err) && held(mm) == h1,
		      "%s: restoring twice changed something", ops->name);
		maps0 = hvo_map_count();
		counted0 = mm->hvo.nr_mappings;
		CHECK(!ops->hvo_optimise(mm, pfn + 1, &err), "%s: optimise: %s", ops->name, err.msg);
		/* The budget never counts fewer mappings than the remapping makes. */
		CHECK(hvo_map_count() - maps0 <= mm->hvo.nr_mappings - counted0,
		      "%s: optimising the folio at %lu: %lu more mappings, %lu more counted", ops->name,
		      pfn, hvo_map_count() - maps0, mm->hvo.nr_mappings - counted0);
		CHECK(hvo_folio_optimised(&mm->hvo, pfn) && held(mm) == h0,
		      "%s: optimised again: %zu bytes held, %zu before", ops->name, held(mm), h0);
		check_snapshot(ops, mm, pfn, nr, before, "optimised again");
		check_shared_bytes(ops, mm, pfn, order, prev[order]);
		prev[order] = (long)pfn;
		free(before);
	}
	CHECK(seen, "%s: no folio to remap", ops->name);
	CHECK(!ops->hvo_optimise(mm, 0, &err), "%s: optimising what is no hugetlb folio", ops->name);
}

/* What HVO leaves, counted over the plan: each hugetlb block alone, PMDs in a set. */
static void check_mixed(const struct layout_ops *ops, enum hvo_mode hvo)
{
	static const struct mix_entry e[] = {
		{ PK_HUGETLB, MIX_4K_HUGETLB_PUD, 0.4 }, { PK_HUGETLB, MIX_4K_HUGETLB_PMD, 0.15 },
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

	build(ops, &mm, &mix, MIXED_NR_PFNS, e, sizeof(e) / sizeof(e[0]), hvo);
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
	if (hvo == HVO_ON) {
		check_measured(ops, mm, &want);
		check_same_machine(ops, mm, &mix);
		check_remap(ops, mm);
	}
	ops->memmap_destroy(mm);
	free(pmd);
}

int main(void)
{
	const struct layout_ops *const *ops;

	check_one();
#ifdef HVO_KEY_NOP
	CHECK(hvo_key_sites() > 0, "no fake-head key sites");
#endif
	for (ops = mdb_layouts; *ops; ops++)
		for (enum hvo_mode hvo = 0; hvo < HVO_MODE_NR; hvo++) {
			check_all_hugetlb(*ops, hvo);
			check_mixed(*ops, hvo);
		}
	if (failures) {
		fprintf(stderr, "hvo: %d failures\n", failures);
		return 1;
	}
	printf("hvo: the arithmetic as counted by hand, the remapping as computed, %u key sites\n",
	       hvo_key_sites());
	return 0;
}
