// SPDX-License-Identifier: GPL-2.0
/*
 * test_layout.c - one layout through its inline API and its ops table,
 * compiled once per layout (test_layout_page64, _page32, _memdesc8).
 *
 * A 65536-pfn memmap of every kind, with folios of every order 0..9, is
 * checked against an independent walk of the same mix plan: every pfn's
 * conversions, kind, unit, counts and flags; then the footprint to the
 * byte; then reference and map counts; then allocation, migration and
 * freeing, which must leave every page they do not own exactly as it was.
 * All of it with aged and with fresh descriptor caches, and with HVO on,
 * then the footprint at other folio descriptor sizes; then a 2 GiB memmap
 * with a 1 GiB hugetlb folio, the same way.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test_layout_common.h"

static const struct layout_ops *ops = &LAYOUT_SYM(ops);

/* ------------------------------------------------------------------------ */

struct expect {
	size_t desc_bytes;
	size_t desc_count;
	size_t by_type[DESC_NR];
	unsigned long folios[2][MIX_MAX_ORDER + 1];	/* [anon?][order] */
	unsigned long pages[PK_NR];
};

/* The descriptor type a block of this kind and order has (if the layout has that type). */
static enum desc_type kind_desc(enum page_kind kind, unsigned int order)
{
	switch (kind) {
	case PK_SLAB:		return DESC_SLAB;
	case PK_PGTABLE:	return DESC_PTDESC;
	case PK_ZSMALLOC:	return DESC_ZPDESC;
	case PK_NETMEM:		return DESC_BUMP;
	case PK_ANON:
	case PK_FILE:
	case PK_HUGETLB:	return folio_desc_type(kind, order);
	default:		return DESC_NR;
	}
}

/* The bytes each descriptor counts for in a memmap built with opts. */
static void acct_sizes(const struct memmap_opts *opts, size_t acct[DESC_NR])
{
	size_t obj[DESC_NR];
	struct mdb_err err;

	int t;

	CHECK(!layout_desc_sizes(ops->desc_size, opts->folio_desc_bytes, opts->large_desc, obj, acct,
				 &err), "%s",
	      err.msg);
	/* Each counts for its cache's stride: the free pointer after a TYPESAFE_BY_RCU object. */
	for (t = 0; t < DESC_NR; t++)
		if (acct[t])
			acct[t] = memmap_cache_stride(opts, t, acct[t]);
}

/*
 * What the layout's descriptors for one placed block must add up to: one a
 * folio, slab or page-pool block, one a page of page tables and zsmalloc,
 * each of the bytes its type counts for; layout_block_desc_bytes(), the
 * header's own figure, must agree at the layout's own sizes.
 */
static void expect_block(struct expect *ex, const struct mix_block *b, const size_t acct[DESC_NR])
{
	enum desc_type t = kind_desc(b->kind, b->order);
	int per_page = b->kind == PK_PGTABLE || b->kind == PK_ZSMALLOC;
	size_t n = per_page ? 1UL << b->order : 1;

	ex->pages[b->kind] += 1UL << b->order;
	if (b->kind == PK_ANON || b->kind == PK_FILE)
		ex->folios[b->kind == PK_ANON][b->order]++;
	if (t == DESC_NR || !ops->desc_size[t]) {
		CHECK(!layout_block_desc_bytes(b->kind, b->order), "%s order %u: header bytes",
		      page_kind_name(b->kind), b->order);
		return;
	}
	CHECK(layout_block_desc_bytes(b->kind, b->order) == n * ops->desc_size[t],
	      "%s order %u: the header's %zu bytes, %zu x %zu by type", page_kind_name(b->kind),
	      b->order, layout_block_desc_bytes(b->kind, b->order), n, ops->desc_size[t]);
	ex->desc_bytes += n * acct[t];
	ex->desc_count += n;
	ex->by_type[t] += n * acct[t];
}

static unsigned int expected_flags(enum page_kind kind)
{
	if (kind == PK_ANON)
		return 1U << PG_swapbacked;
	if (kind == PK_RESERVED)
		return 1U << PG_reserved;
	return 0;
}

/* One pfn of a placed block, through page_info and the inline API. */
static void check_pfn(const struct memmap *mm, const struct mix_block *b, unsigned long pfn)
{
	const struct page *page = pfn_to_page(mm, pfn);
	int compound = kind_is_compound(b->kind);
	unsigned long head = compound ? b->pfn : pfn;
	unsigned int order = compound ? b->order : 0;
	struct folio *folio = page_folio(mm, page);
	struct page_info pi;
	char s[160];

	ops->page_info(mm, pfn, &pi);
	CHECK(page_to_pfn(mm, page) == pfn, "pfn %lu round trip", pfn);
	CHECK(page_kind(mm, page) == b->kind, "pfn %lu: %s, placed %s", pfn,
	      page_info_str(&pi, s, sizeof(s)), page_kind_name(b->kind));
	CHECK(pi.kind == b->kind && pi.head_pfn == head && pi.order == order,
	      "pfn %lu: %s, placed %s head %lu order %u", pfn, page_info_str(&pi, s, sizeof(s)),
	      page_kind_name(b->kind), head, order);
	CHECK(pi.flags == expected_flags(b->kind), "pfn %lu: %s", pfn,
	      page_info_str(&pi, s, sizeof(s)));
	CHECK(pi.refcount == (b->kind == PK_FREE ? 0 : 1), "pfn %lu: %s", pfn,
	      page_info_str(&pi, s, sizeof(s)));
	CHECK(pi.mapcount == 0, "pfn %lu: %s", pfn, page_info_str(&pi, s, sizeof(s)));
	CHECK(!page_slab(mm, page) == (b->kind != PK_SLAB), "pfn %lu: page_slab", pfn);
	CHECK(!page_ptdesc(mm, page) == (b->kind != PK_PGTABLE), "pfn %lu: page_ptdesc", pfn);
	CHECK(page_buddy_order(mm, page) ==
	      (b->kind == PK_FREE && pfn == b->pfn ? (int)b->order : -1), "pfn %lu: buddy order", pfn);
	if (!page_kind_is_folio(b->kind)) {
		CHECK(!folio, "pfn %lu: page_folio of a %s page", pfn, page_kind_name(b->kind));
		return;
	}
	CHECK(folio && folio == page_folio(mm, pfn_to_page(mm, b->pfn)),
	      "pfn %lu: not its head's folio", pfn);
	if (!folio)
		return;
	CHECK(folio_pfn(mm, folio) == b->pfn, "pfn %lu: folio_pfn %lu", pfn, folio_pfn(mm, folio));
	CHECK(folio_order(folio) == b->order, "pfn %lu: folio_order %u", pfn, folio_order(folio));
	CHECK(folio_nr_pages(folio) == 1UL << b->order, "pfn %lu: nr_pages", pfn);
	CHECK(folio_kind(folio) == b->kind, "pfn %lu: folio_kind", pfn);
	CHECK(folio_ref_count(folio) == 1 && folio_mapcount(folio) == 0, "pfn %lu: counts", pfn);
	CHECK(pi.mapping == mdb_new_mapping(b->kind) && pi.index == 0, "pfn %lu: %s", pfn, page_info_str(&pi, s, sizeof(s)));
	CHECK(!!(pi.mapping & FOLIO_MAPPING_ANON) == (b->kind == PK_ANON), "pfn %lu: anon bit", pfn);
	if (ops->desc_size[DESC_FOLIO] && pfn == b->pfn) {
		/* Anon and file folios are distinct types: each kind's descriptor from its own cache. */
		enum desc_type own = folio_desc_type(b->kind, b->order);
		enum desc_type other = folio_desc_type(b->kind == PK_ANON ? PK_FILE : PK_ANON, b->order);

		CHECK(desc_cache_index(&mm->cache[own], folio) >= 0 &&
		      desc_cache_index(&mm->cache[other], folio) < 0,
		      "pfn %lu: a %s folio's descriptor not from the %s cache", pfn,
		      page_kind_name(b->kind), desc_type_name[own]);
	}
}

/*
 * Every pfn against an independent walk of the same plan; after the
 * allocation trace (aged), which boots every block but hugetlb folios again
 * through its buddy, grouped by mobility, and moves them (machine/age.h;
 * tests/machine/test_age.c checks where), the hugetlb pfns only.
 */
static void check_placement(const struct memmap *mm, const struct mix *mix, unsigned long nr_pfns,
			    struct expect *ex)
{
	bool moves = mm->opts.age == DESC_AGED;

	size_t acct[DESC_NR];
	struct mdb_err err;
	struct mix_plan plan;
	struct mix_block b;
	unsigned long pfn, covered = 0;

	memset(ex, 0, sizeof(*ex));
	acct_sizes(&mm->opts, acct);
	CHECK(!mix_plan_init(&plan, mix, nr_pfns, TEST_SEED, &err), "plan: %s", err.msg);
	while (mix_plan_next(&plan, &b)) {
		for (pfn = b.pfn; pfn < b.pfn + (1UL << b.order); pfn++)
			if (!moves || b.kind == PK_HUGETLB)
				check_pfn(mm, &b, pfn);
		expect_block(ex, &b, acct);
		covered += 1UL << b.order;
	}
	mix_plan_release(&plan);
	CHECK(covered == nr_pfns, "plan covers %lu of %lu pfns", covered, nr_pfns);
}

/* The common test mix reaches every kind and every folio order. */
static void check_test_mix_covers(const struct expect *ex)
{
	unsigned int order;
	int k;

	for (k = 0; k < PK_NR; k++)
		CHECK(ex->pages[k], "no %s pages in the test mix", page_kind_name(k));
	for (order = 0; order <= MAX_FOLIO_ORDER; order++)
		CHECK(ex->folios[0][order] && ex->folios[1][order],
		      "order %u: %lu file, %lu anon folios", order, ex->folios[0][order],
		      ex->folios[1][order]);
}

static void check_footprint(const struct memmap *mm, const struct expect *ex)
{
	struct footprint fp;
	int t;

	ops->footprint(mm, &fp);
	CHECK(ops->page_size == sizeof(struct page), "%zu", ops->page_size);
	CHECK(fp.memmap_bytes == mm->nr_pfns * sizeof(struct page), "memmap %zu", fp.memmap_bytes);
	CHECK(fp.desc_bytes == ex->desc_bytes, "desc bytes %zu, expected %zu", fp.desc_bytes,
	      ex->desc_bytes);
	CHECK(fp.desc_count == ex->desc_count, "desc count %zu, expected %zu", fp.desc_count,
	      ex->desc_count);
	for (t = 0; t < DESC_NR; t++)
		CHECK(fp.desc_bytes_by_type[t] == ex->by_type[t], "type %d: %zu, expected %zu", t,
		      fp.desc_bytes_by_type[t], ex->by_type[t]);
	CHECK(fp.desc_reserved_bytes >= fp.desc_bytes, "reserved %zu", fp.desc_reserved_bytes);
	CHECK(fp.memmap_bytes == ops->page_size * mm->nr_pfns, "memmap");
	CHECK(fp.folio_desc_bytes == (ops->desc_size[DESC_FOLIO] ?
				      (mm->opts.folio_desc_bytes ? mm->opts.folio_desc_bytes :
				       ops->desc_size[DESC_FOLIO]) : 0),
	      "folio_desc_bytes %zu", fp.folio_desc_bytes);
	if (!layout_has_descriptors(ops)) {
		CHECK(fp.desc_bytes == 0 && fp.desc_count == 0 && fp.desc_reserved_bytes == 0,
		      "%s has no descriptors, so it is all memmap", ops->name);
		CHECK(sizeof(struct folio) % sizeof(struct page) == 0,
		      "an overlaid folio spans whole pages: %zu", sizeof(struct folio));
	} else {
		CHECK(ops->desc_size[DESC_FOLIO] == sizeof(struct folio), "folio descriptor %zu",
		      ops->desc_size[DESC_FOLIO]);
		CHECK(ops->desc_size[DESC_FOLIO_LARGE] > ops->desc_size[DESC_FOLIO],
		      "large folio descriptor %zu", ops->desc_size[DESC_FOLIO_LARGE]);
	}
}

/* ------------------------------------------------------------------------ */

static void check_counts(struct memmap *mm, unsigned int order, enum page_kind kind)
{
	long pfn = ops->folio_alloc(mm, order, kind);
	struct folio *folio;
	struct page_info pi;

	CHECK(pfn >= 0, "alloc order %u", order);
	if (pfn < 0)
		return;
	folio = page_folio(mm, pfn_to_page(mm, pfn + (1L << order) - 1));
	CHECK(folio && folio_ref_count(folio) == 1 && folio_mapcount(folio) == 0, "new folio");
	folio_get(folio);
	CHECK(folio_ref_count(folio) == 2, "get: %d", folio_ref_count(folio));
	ops->folio_get(mm, pfn);
	ops->page_info(mm, pfn + (1L << order) - 1, &pi);
	CHECK(pi.refcount == 3, "ops get: %d", pi.refcount);
	CHECK(page_ref_count(mm, pfn_to_page(mm, pfn)) == 3, "page_ref_count of the head");
	CHECK(!folio_put(folio) && !ops->folio_put(mm, pfn), "put of a non-last reference");
	CHECK(folio_ref_count(folio) == 1, "after puts: %d", folio_ref_count(folio));
	folio_map(folio);
	ops->folio_map(mm, pfn);
	CHECK(folio_mapcount(folio) == 2, "map: %d", folio_mapcount(folio));
	folio_unmap(folio);
	ops->page_info(mm, pfn, &pi);
	CHECK(pi.mapcount == 1, "unmap: %d", pi.mapcount);
	ops->folio_unmap(mm, pfn);
	CHECK(folio_mapcount(folio) == 0, "unmapped: %d", folio_mapcount(folio));
	folio_set_flag(folio, PG_dirty);
	CHECK(folio_test_flag(folio, PG_dirty) && page_test_flag(mm, pfn_to_page(mm, pfn), PG_dirty),
	      "dirty");
	ops->folio_set_flag(mm, pfn, PG_referenced);
	ops->page_info(mm, pfn + (1L << order) - 1, &pi);
	CHECK(pi.flags == (expected_flags(kind) | 1U << PG_dirty | 1U << PG_referenced),
	      "tail flags %#x", pi.flags);
	folio_clear_flag(folio, PG_dirty);
	CHECK(!folio_test_flag(folio, PG_dirty), "cleared");
	folio_set_mapping(folio, 0x1234000, 77);
	CHECK(folio_mapping(folio) == (kind == PK_ANON ? 0x1234001UL : 0x1234000UL) &&
	      folio_index(folio) == 77, "set_mapping keeps the kind: %#lx", folio_mapping(folio));
	CHECK(ops->folio_put(mm, pfn), "put of the last reference returns true");
	CHECK(folio_ref_count(folio) == 0, "no reference left");
	ops->folio_free(mm, pfn);
}

/* ------------------------------------------------------------------------ */

static struct page_info *snapshot(const struct memmap *mm)
{
	struct page_info *all = calloc(mm->nr_pfns, sizeof(*all));
	unsigned long pfn;

	if (!all) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for (pfn = 0; pfn < mm->nr_pfns; pfn++)
		ops->page_info(mm, pfn, &all[pfn]);
	return all;
}

static int in_range(unsigned long pfn, long start, unsigned int order)
{
	return start >= 0 && pfn >= (unsigned long)start && pfn < (unsigned long)start + (1UL << order);
}

/*
 * Pages outside [a, a + 2^order) and [b, ...) must be as before, except that
 * free pages may now sit in other (split) free blocks; after a free (merged),
 * in the block the freed range merged into (__free_one_page() takes free
 * buddies of the freed block into it).
 */
static void check_rest_merged(const struct memmap *mm, const struct page_info *before, long a,
			      long b, unsigned int order, const char *what, bool merged)
{
	unsigned long pfn;
	struct page_info pi;
	char s0[160], s1[160];

	for (pfn = 0; pfn < mm->nr_pfns; pfn++) {
		if (in_range(pfn, a, order) || in_range(pfn, b, order))
			continue;
		ops->page_info(mm, pfn, &pi);
		if (before[pfn].kind == PK_FREE) {
			CHECK(pi.kind == PK_FREE && pi.head_pfn <= pfn &&
			      pfn < pi.head_pfn + (1UL << pi.order) &&
			      (merged || !in_range(pi.head_pfn, a, order)) && !in_range(pi.head_pfn, b, order),
			      "%s: free pfn %lu now %s head %lu order %u", what, pfn,
			      page_kind_name(pi.kind), pi.head_pfn, pi.order);
			continue;
		}
		CHECK(page_info_equal(&pi, &before[pfn]), "%s: pfn %lu was %s, now %s", what, pfn,
		      page_info_str(&before[pfn], s0, sizeof(s0)), page_info_str(&pi, s1, sizeof(s1)));
	}
}

static void check_rest(const struct memmap *mm, const struct page_info *before, long a, long b,
		       unsigned int order, const char *what)
{
	check_rest_merged(mm, before, a, b, order, what, false);
}

static void check_range_free(const struct memmap *mm, long start, unsigned int order,
			     const char *what)
{
	unsigned long pfn;
	struct page_info pi;

	for (pfn = start; pfn < (unsigned long)start + (1UL << order); pfn++) {
		ops->page_info(mm, pfn, &pi);
		CHECK(pi.kind == PK_FREE && pi.head_pfn <= pfn && pfn < pi.head_pfn + (1UL << pi.order) &&
		      pi.refcount == 0 && pi.flags == 0 && pi.mapcount == 0,
		      "%s: pfn %lu is %s head %lu order %u", what, pfn, page_kind_name(pi.kind),
		      pi.head_pfn, pi.order);
	}
}

/* Every page of the folio at start reads like model, with start as head. */
static void check_range_folio(const struct memmap *mm, long start, unsigned int order,
			      const struct page_info *model, const char *what)
{
	struct page_info want = *model, pi;
	unsigned long pfn;
	char s0[160], s1[160];

	want.head_pfn = start;
	want.order = order;
	for (pfn = start; pfn < (unsigned long)start + (1UL << order); pfn++) {
		ops->page_info(mm, pfn, &pi);
		CHECK(page_info_equal(&pi, &want), "%s: pfn %lu is %s, want %s", what, pfn,
		      page_info_str(&pi, s1, sizeof(s1)), page_info_str(&want, s0, sizeof(s0)));
	}
}

/* What one folio's descriptor counts for in this memmap. */
static size_t folio_acct(const struct memmap *mm, unsigned int order, enum page_kind kind)
{
	size_t acct[DESC_NR];

	acct_sizes(&mm->opts, acct);
	return acct[folio_desc_type(kind, order)];
}

static void check_alloc_migrate_free(struct memmap *mm, unsigned int order, enum page_kind kind)
{
	struct page_info *before = snapshot(mm), model;
	size_t desc = folio_acct(mm, order, kind);
	struct footprint fp0, fp;
	long pfn, new;

	ops->footprint(mm, &fp0);
	pfn = ops->folio_alloc(mm, order, kind);
	CHECK(pfn >= 0 && (pfn & ((1L << order) - 1)) == 0, "alloc order %u: %ld", order, pfn);
	if (pfn < 0)
		goto out;
	model = (struct page_info){ .kind = kind, .refcount = 1, .flags = expected_flags(kind),
				    .mapping = mdb_new_mapping(kind) };
	check_range_folio(mm, pfn, order, &model, "alloc");
	check_rest(mm, before, pfn, -1, order, "alloc");
	ops->footprint(mm, &fp);
	CHECK(fp.desc_bytes == fp0.desc_bytes + desc && fp.desc_count == fp0.desc_count + !!desc,
	      "alloc: desc %zu -> %zu", fp0.desc_bytes, fp.desc_bytes);

	/* Give it state that migration must carry. */
	ops->folio_set_flag(mm, pfn, PG_dirty);
	ops->folio_set_flag(mm, pfn, PG_lru);
	ops->folio_get(mm, pfn);
	ops->folio_map(mm, pfn);
	folio_set_mapping(page_folio(mm, pfn_to_page(mm, pfn)), 0x42000, 9);
	free(before);
	before = snapshot(mm);
	model = before[pfn];

	new = ops->folio_migrate(mm, pfn + (1L << order) - 1);
	CHECK(new >= 0 && new != pfn, "migrate order %u: %ld -> %ld", order, pfn, new);
	if (new < 0) {
		ops->folio_free(mm, pfn);
		goto out;
	}
	check_range_folio(mm, new, order, &model, "migrate");
	check_range_free(mm, pfn, order, "migrated from");
	check_rest(mm, before, pfn, new, order, "migrate");
	ops->footprint(mm, &fp);
	CHECK(fp.desc_bytes == fp0.desc_bytes + desc, "migrate: desc %zu -> %zu", fp0.desc_bytes,
	      fp.desc_bytes);

	free(before);
	before = snapshot(mm);
	ops->folio_free(mm, new);
	check_range_free(mm, new, order, "freed");
	check_rest_merged(mm, before, new, -1, order, "free", true);
	ops->footprint(mm, &fp);
	CHECK(fp.desc_bytes == fp0.desc_bytes && fp.desc_count == fp0.desc_count,
	      "free: desc %zu, was %zu", fp.desc_bytes, fp0.desc_bytes);
out:
	free(before);
}

/*
 * An order-2 folio costs its four memmap entries and one large-folio
 * descriptor, exactly: 4 x 64 where it overlays the memmap (page64: 256
 * bytes), 4 x 8 + 160 with an 8-byte memdesc and the plan's large folio
 * (192, not the 96 a 64-byte folio would give).
 */
static void check_order2_cost(struct memmap *mm)
{
	struct footprint fp0, fp;
	size_t delta, cost;
	long pfn;

	ops->footprint(mm, &fp0);
	pfn = ops->folio_alloc(mm, 2, PK_ANON);
	CHECK(pfn >= 0, "alloc order 2");
	if (pfn < 0)
		return;
	ops->footprint(mm, &fp);
	delta = fp.desc_bytes - fp0.desc_bytes;
	CHECK(fp.memmap_bytes == fp0.memmap_bytes, "the memmap does not grow");
	CHECK(delta == ops->desc_size[DESC_FOLIO_LARGE], "descriptor delta %zu", delta);
	cost = 4 * ops->page_size + delta;
	CHECK(cost == 4 * sizeof(struct page) + layout_block_desc_bytes(PK_ANON, 2),
	      "%s: an order-2 folio costs %zu bytes", ops->name, cost);
	ops->folio_free(mm, pfn);
}

/* Every free order-9 block (two in each order-10 one), and no more, can be allocated at order 9. */
static void check_exhaust(struct memmap *mm)
{
	unsigned long pfn, heads = 0, got = 0;
	long *taken = calloc(mm->nr_pfns >> MAX_FOLIO_ORDER, sizeof(*taken));
	struct page_info pi;
	long p;

	for (pfn = 0; pfn < mm->nr_pfns; pfn++) {
		int order = page_buddy_order(mm, pfn_to_page(mm, pfn));

		heads += order >= (int)MAX_FOLIO_ORDER ? 1UL << (order - (int)MAX_FOLIO_ORDER) : 0;
	}
	CHECK(heads > 0, "the test mix has free order-9 blocks");
	while ((p = ops->folio_alloc(mm, MAX_FOLIO_ORDER, PK_FILE)) >= 0)
		taken[got++] = p;
	CHECK(got == heads, "%lu order-9 allocations from %lu free order-9 blocks", got, heads);
	CHECK(ops->folio_alloc(mm, MAX_FOLIO_ORDER, PK_ANON) == -1, "no block left");
	CHECK(ops->folio_alloc(mm, MAX_FOLIO_ORDER + 1, PK_ANON) == -1, "order above 9");
	CHECK(ops->folio_alloc(mm, 0, PK_SLAB) == -1, "slab is not a folio kind");
	CHECK(ops->folio_alloc(mm, 8, PK_HUGETLB) == -1, "order 8 is no hstate");
	CHECK(ops->folio_alloc(mm, MIX_4K_HUGETLB_PUD, PK_HUGETLB) == -1,
	      "1 GiB folios come from the mix, not the buddy");
	while (got)
		ops->folio_free(mm, taken[--got]);
	for (pfn = 0; pfn < mm->nr_pfns; pfn += 1UL << MAX_FOLIO_ORDER) {
		ops->page_info(mm, pfn, &pi);
		if (pi.kind == PK_FREE && pi.order >= MAX_FOLIO_ORDER)
			got++;
	}
	CHECK(got == heads, "%lu free order-9 blocks after freeing, was %lu", got, heads);
	free(taken);
}

static void check_memmap_init(struct memmap *mm)
{
	struct footprint fp;
	struct page_info pi;
	unsigned long pfn;
	long p;

	/* memblock_free_all() hands out MAX_PAGE_ORDER blocks: the test memmap is whole ones. */
	_Static_assert(TEST_NR_PFNS % (1UL << MIX_4K_MAX_PAGE_ORDER) == 0, "whole order-10 blocks");
	/*
	 * The two boot passes on one page: allocated after the first, free after
	 * the second; then boot again, which runs both on every page before the
	 * buddy gets any (memdesc8 keeps a block's order in its second page).
	 */
	memmap_init_pfn(mm, 1);
	ops->page_info(mm, 1, &pi);
	CHECK(pi.refcount == 1, "after __init_single_page(): refcount %d", pi.refcount);
	memmap_free_pfn(mm, 1);
	ops->memmap_init(mm);
	for (pfn = 0; pfn < mm->nr_pfns; pfn++) {
		ops->page_info(mm, pfn, &pi);
		CHECK(pi.kind == PK_FREE && pi.head_pfn == (pfn & ~((1UL << MAX_PAGE_ORDER) - 1)) &&
		      pi.order == MAX_PAGE_ORDER && pi.refcount == 0 && pi.flags == 0,
		      "after init: pfn %lu is %s head %lu order %u refcount %d flags %#x", pfn,
		      page_kind_name(pi.kind), pi.head_pfn, pi.order, pi.refcount, pi.flags);
	}
	ops->footprint(mm, &fp);
	CHECK(fp.desc_bytes == 0 && fp.desc_count == 0, "init drops every descriptor");
	p = ops->folio_alloc(mm, 0, PK_ANON);
	CHECK(p >= 0, "alloc after init");
	ops->page_info(mm, p, &pi);
	CHECK(pi.kind == PK_ANON && pi.refcount == 1, "alloc after init");
}

/* ------------------------------------------------------------------------ */

struct bind_seen {
	void *first_addr;
	size_t first_len;
	int calls;
	unsigned long resident;
};

/*
 * The hook runs before the first touch of every mapping (the memmap first,
 * then each descriptor cache's slab pages): nothing of it is resident yet.
 */
static int bind_hook(void *addr, size_t len, void *arg)
{
	struct bind_seen *seen = arg;
	size_t page = sysconf(_SC_PAGESIZE), i, n = (len + page - 1) / page;
	unsigned char *vec = malloc(n);

	if (!seen->calls++) {
		seen->first_addr = addr;
		seen->first_len = len;
	}
	if (vec && !mincore(addr, len, vec))
		for (i = 0; i < n; i++)
			seen->resident += vec[i] & 1;
	free(vec);
	return 0;
}

static int failing_bind(void *addr, size_t len, void *arg)
{
	(void)addr;
	(void)len;
	(void)arg;
	return -1;
}

static unsigned int nr_mappings(const struct memmap *mm)
{
	unsigned int n = 1, t;

	for (t = 0; t < DESC_NR; t++)
		n += mm->cache[t].nr_ext;
	return n;
}

static void check_odd_size_and_opts(const struct mix *mix)
{
	unsigned long nr = TEST_NR_PFNS + 100, pfn;
	struct bind_seen seen = { 0 };
	/* aged-permute keeps the plan's pfns: the tail past the last pageblock stays order-0 free. */
	struct memmap_opts opts = { .pages = MEMMAP_PAGES_2M, .seed = TEST_SEED, .bind = bind_hook,
				    .bind_arg = &seen, .age = DESC_AGED_PERMUTE };
	struct mdb_err err = { { 0 } };
	struct memmap *mm;
	struct page_info pi;
	struct expect ex;

	create_or_die(ops, &mm, nr, mix, &opts);
	CHECK(seen.calls == (int)nr_mappings(mm) && seen.first_addr == mm->map &&
	      seen.first_len == mm->map_bytes, "bind hook: %d calls for %u mappings", seen.calls,
	      nr_mappings(mm));
	CHECK(seen.resident == 0, "%lu pages touched before the bind hook", seen.resident);
	CHECK(mm->map_bytes % (2UL << 20) == 0 && mm->map_bytes >= nr * sizeof(struct page) &&
	      (uintptr_t)mm->map % (2UL << 20) == 0, "2m mapping of %zu bytes", mm->map_bytes);
	check_placement(mm, mix, nr, &ex);
	for (pfn = TEST_NR_PFNS; pfn < nr; pfn++) {
		ops->page_info(mm, pfn, &pi);
		CHECK(pi.kind == PK_FREE && pi.head_pfn == pfn && pi.order == 0,
		      "tail pfn %lu: %s order %u", pfn, page_kind_name(pi.kind), pi.order);
	}
	ops->memmap_destroy(mm);

	opts.bind = failing_bind;
	CHECK(ops->memmap_create(&mm, TEST_NR_PFNS, mix, &opts, &err) == -1 && !mm &&
	      strstr(err.msg, "bind"), "a failing bind hook: %s", err.msg);
	CHECK(ops->memmap_create(&mm, 0, mix, NULL, &err) == -1 && !mm && err.msg[0],
	      "0 pfns: %s", err.msg);
}

/* ------------------------------------------------------------------------ */
/* 1 GiB hugetlb folios: a memmap of 2 GiB and a bit.                       */

#define GIGA_NR_PFNS	((1UL << 19) + 3 * 512 + 7)

static void gigantic_mix(struct mix *mix)
{
	static const struct mix_entry e[] = {
		{ PK_HUGETLB, MIX_4K_HUGETLB_PUD, 0.5 }, { PK_HUGETLB, MIX_4K_HUGETLB_PMD, 0.1 },
		{ PK_ANON, 0, 0.1 }, { PK_FILE, 9, 0.1 }, { PK_FREE, 10, 0.1 }, { PK_FREE, 0, 0.05 },
		{ PK_SLAB, 0, 0.05 },
	};

	memset(mix, 0, sizeof(*mix));
	snprintf(mix->name, sizeof(mix->name), "gigantic");
	mix->nr = sizeof(e) / sizeof(e[0]);
	memcpy(mix->entry, e, sizeof(e));
}

/* The first block of this kind and order the plan places; -1 if none. */
static long find_block(const struct mix *mix, unsigned long nr_pfns, enum page_kind kind,
		       unsigned int order)
{
	struct mdb_err err;
	struct mix_plan plan;
	struct mix_block b;
	long pfn = -1;

	if (mix_plan_init(&plan, mix, nr_pfns, TEST_SEED, &err))
		return -1;
	while (pfn < 0 && mix_plan_next(&plan, &b))
		if (b.kind == kind && b.order == order)
			pfn = (long)b.pfn;
	mix_plan_release(&plan);
	return pfn;
}

static void check_gigantic(enum hvo_mode hvo)
{
	struct memmap_opts opts = { .seed = TEST_SEED, .hvo = hvo };
	const unsigned long nr = 1UL << MIX_4K_HUGETLB_PUD;
	struct page_info pi, *before;
	struct footprint fp0, fp;
	struct folio *folio;
	struct memmap *mm;
	struct expect ex;
	struct mix mix;
	long head, pfn;

	gigantic_mix(&mix);
	create_or_die(ops, &mm, GIGA_NR_PFNS, &mix, &opts);
	check_placement(mm, &mix, GIGA_NR_PFNS, &ex);
	check_footprint(mm, &ex);
	/* 1027 whole pageblocks: 1.003 1 GiB folios (1), 102.7 2 MiB ones (102, +1 by remainder). */
	CHECK(ex.pages[PK_HUGETLB] == nr + 103 * 512, "%lu hugetlb pages", ex.pages[PK_HUGETLB]);
	head = find_block(&mix, GIGA_NR_PFNS, PK_HUGETLB, MIX_4K_HUGETLB_PUD);
	CHECK(head >= 0 && head % (long)nr == 0, "the 1 GiB folio at %ld", head);
	if (head < 0)
		goto out;

	/* Its last tail, 1 GiB of RAM from the head, leads to it. */
	folio = page_folio(mm, pfn_to_page(mm, head + nr - 1));
	CHECK(folio && folio == page_folio(mm, pfn_to_page(mm, head)) && folio_test_hugetlb(folio) &&
	      folio_kind(folio) == PK_HUGETLB && folio_order(folio) == MIX_4K_HUGETLB_PUD &&
	      folio_nr_pages(folio) == nr && folio_pfn(mm, folio) == (unsigned long)head,
	      "the last tail's folio");
	CHECK(page_kind(mm, pfn_to_page(mm, head + nr / 2)) == PK_HUGETLB, "a middle tail's kind");
	/*
	 * The first tail of its second vmemmap page: with HVO on, page64 reads
	 * a fake head there (the head's own page mapped again), page64ci the
	 * shared tail page; both must still lead to the folio.
	 */
	pfn = head + (long)(HVO_PAGE_SIZE / sizeof(struct page));
	CHECK(page_folio(mm, pfn_to_page(mm, pfn)) == folio &&
	      page_kind(mm, pfn_to_page(mm, pfn)) == PK_HUGETLB &&
	      page_ref_count(mm, pfn_to_page(mm, pfn)) == 1,
	      "hvo %s: the tail at the start of the second vmemmap page", hvo_mode_name(hvo));
	CHECK(hvo_folio_optimised(&mm->hvo, (unsigned long)head) ==
	      (hvo == HVO_ON && hvo_freed_pages(&ops->hvo, sizeof(struct page), MIX_4K_HUGETLB_PUD)),
	      "hvo %s: the 1 GiB folio's vmemmap remapped or not", hvo_mode_name(hvo));

	/* Counts move on the folio, whichever page they come through. */
	ops->folio_get(mm, head + nr - 1);
	ops->folio_map(mm, head + 12345);
	ops->page_info(mm, head + 7, &pi);
	CHECK(pi.refcount == 2 && pi.mapcount == 1 && pi.order == MIX_4K_HUGETLB_PUD &&
	      pi.head_pfn == (unsigned long)head, "counts: ref %d map %d", pi.refcount, pi.mapcount);
	ops->folio_unmap(mm, head + 1);
	CHECK(!ops->folio_put(mm, head) && folio_ref_count(folio) == 1 && folio_mapcount(folio) == 0,
	      "counts back");

	/* No 1 GiB block in the buddy: migration fails and changes nothing. */
	before = snapshot(mm);
	CHECK(ops->folio_migrate(mm, head + 3) == -1, "a 1 GiB folio cannot move");
	check_rest(mm, before, -1, -1, 0, "failed migration");
	free(before);

	/* Freed (dissolved), its pfns go back in order-10 blocks, its descriptor with them. */
	ops->footprint(mm, &fp0);
	ops->folio_free(mm, head + nr - 1);
	for (pfn = head; pfn < head + (long)nr; pfn++) {
		ops->page_info(mm, pfn, &pi);
		if (pi.kind != PK_FREE || pi.order != MAX_PAGE_ORDER ||
		    pi.head_pfn != ((unsigned long)pfn & ~((1UL << MAX_PAGE_ORDER) - 1))) {
			CHECK(0, "freed pfn %ld: %s head %lu order %u", pfn, page_kind_name(pi.kind),
			      pi.head_pfn, pi.order);
			break;
		}
	}
	ops->footprint(mm, &fp);
	CHECK(fp.desc_bytes == fp0.desc_bytes - ops->desc_size[DESC_FOLIO_LARGE] &&
	      fp.memmap_bytes == fp0.memmap_bytes, "free: desc %zu -> %zu", fp0.desc_bytes,
	      fp.desc_bytes);
	pfn = ops->folio_alloc(mm, MIX_4K_HUGETLB_PMD, PK_HUGETLB);
	CHECK(pfn >= 0, "a 2 MiB hugetlb folio from what is left");
out:
	ops->memmap_destroy(mm);
}

static void check_bad_mix(void)
{
	struct mix mix;
	struct mdb_err err = { { 0 } };
	struct memmap *mm = (struct memmap *)1;

	test_mix(&mix);
	mix.entry[0].fraction = 0.5;	/* sum 1.4 */
	CHECK(ops->memmap_create(&mm, TEST_NR_PFNS, &mix, NULL, &err) == -1 && !mm &&
	      strstr(err.msg, "layout-test"), "bad mix: %s", err.msg);
}

/* One machine through everything above. */
static void check_machine(const struct mix *mix, const struct memmap_opts *opts)
{
	struct memmap *mm;
	struct expect ex;
	unsigned int order;

	create_or_die(ops, &mm, TEST_NR_PFNS, mix, opts);
	CHECK(mm->nr_pfns == TEST_NR_PFNS && mm->seed == TEST_SEED &&
	      !strcmp(mm->mix.name, mix->name) && mm->opts.age == opts->age,
	      "memmap header");
	CHECK((opts->age == DESC_AGED || opts->age == DESC_AGED_PERMUTE) ==
	      (mm->obtained.age_digest != 0 && !mm->obtained.age_failures), "%s: digest %#llx",
	      desc_age_name(opts->age), (unsigned long long)mm->obtained.age_digest);
	check_placement(mm, mix, TEST_NR_PFNS, &ex);
	check_test_mix_covers(&ex);
	check_footprint(mm, &ex);

	check_counts(mm, 0, PK_ANON);
	check_counts(mm, 3, PK_FILE);
	check_counts(mm, 9, PK_ANON);
	check_counts(mm, MIX_4K_HUGETLB_PMD, PK_HUGETLB);
	for (order = 0; order <= MAX_FOLIO_ORDER; order++)
		check_alloc_migrate_free(mm, order, order & 1 ? PK_ANON : PK_FILE);
	check_alloc_migrate_free(mm, MIX_4K_HUGETLB_PMD, PK_HUGETLB);
	if (!opts->folio_desc_bytes)
		check_order2_cost(mm);
	check_footprint(mm, &ex);	/* everything given back */
	check_exhaust(mm);
	check_footprint(mm, &ex);
	check_memmap_init(mm);
	ops->memmap_destroy(mm);
}

/*
 * Folio descriptors of other sizes: above the struct, objects that far
 * apart; below it, objects that still hold the struct and count for the
 * asked size.  Either way every page reads as placed and the footprint
 * counts the asked size.  Sizes that are no multiple of 16 are refused.
 */
static void check_folio_sizes(const struct mix *mix)
{
	static const unsigned int sizes[] = { 64, 96, 128 };
	struct memmap_opts opts = { .age = DESC_FRESH_ORDERED, .seed = TEST_SEED };
	struct mdb_err err = { { 0 } };
	struct memmap *mm;
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct expect ex;

		opts.folio_desc_bytes = sizes[i];
		create_or_die(ops, &mm, TEST_NR_PFNS, mix, &opts);
		check_placement(mm, mix, TEST_NR_PFNS, &ex);
		check_footprint(mm, &ex);
		check_alloc_migrate_free(mm, 0, PK_ANON);
		check_alloc_migrate_free(mm, 3, PK_FILE);
		check_footprint(mm, &ex);
		if (!ops->desc_size[DESC_FOLIO]) {
			ops->memmap_destroy(mm);
			continue;
		}
		CHECK(mm->cache[DESC_FOLIO].obj_size ==
		      (sizes[i] > sizeof(struct folio) ? sizes[i] : sizeof(struct folio)) &&
		      mm->cache[DESC_FOLIO].acct_size == sizes[i] &&
		      mm->cache[DESC_FOLIO_LARGE].acct_size ==
		      ops->desc_size[DESC_FOLIO_LARGE] + sizes[i] - sizeof(struct folio),
		      "%u-byte folios: objects %zu apart counting %zu, large %zu", sizes[i],
		      mm->cache[DESC_FOLIO].obj_size, mm->cache[DESC_FOLIO].acct_size,
		      mm->cache[DESC_FOLIO_LARGE].acct_size);
		CHECK(mm->cache[DESC_ANON].obj_size == mm->cache[DESC_FOLIO].obj_size &&
		      mm->cache[DESC_ANON].acct_size == mm->cache[DESC_FOLIO].acct_size &&
		      mm->cache[DESC_ANON_LARGE].acct_size == mm->cache[DESC_FOLIO_LARGE].acct_size,
		      "%u-byte folios: the anon caches' sizes %zu/%zu", sizes[i],
		      mm->cache[DESC_ANON].acct_size, mm->cache[DESC_ANON_LARGE].acct_size);
		ops->memmap_destroy(mm);
	}
	opts.folio_desc_bytes = 72;
	if (ops->memmap_create(&mm, TEST_NR_PFNS, mix, &opts, &err)) {
		CHECK(ops->desc_size[DESC_FOLIO] && strstr(err.msg, "multiple of 16"), "72-byte folios: %s",
		      err.msg);
	} else {
		CHECK(!ops->desc_size[DESC_FOLIO], "72-byte folios accepted");
		ops->memmap_destroy(mm);
	}
}

/*
 * --desc-rcu: the memdesc layouts' caches, object by object, as the plan
 * makes them (every cache TYPESAFE_BY_RCU: slab and ptdesc 64 -> 80 bytes,
 * zpdesc and bump 48 -> 64, the folio caches' free pointer in lru) and
 * as before (only the folio caches); the memmap counts and holds them so.
 */
static void check_desc_rcu(const struct mix *mix)
{
	/* file, file large, anon, anon large, slab, ptdesc, zpdesc, bump */
	static const size_t all[DESC_NR] = { 80, 112, 80, 112, 80, 80, 64, 64 };
	static const size_t folio[DESC_NR] = { 80, 112, 80, 112, 64, 64, 48, 48 };
	struct memmap_opts opts = { .age = DESC_AGED, .seed = TEST_SEED };
	struct memmap *mm;
	int r, t;

	if (!ops->desc_size[DESC_SLAB])
		return;
	for (r = 0; r < DESC_RCU_NR; r++) {
		const size_t *want = r == DESC_RCU_ALL ? all : folio;
		struct expect ex;

		opts.desc_rcu = r;
		create_or_die(ops, &mm, TEST_NR_PFNS, mix, &opts);
		for (t = 0; t < DESC_NR; t++)
			CHECK(mm->cache[t].obj_size == want[t] && mm->cache[t].acct_size == want[t] &&
			      memmap_cache_stride(&opts, t, ops->desc_size[t]) == want[t] &&
			      mm->cache[t].opts.typesafe_by_rcu ==
			      (r == DESC_RCU_ALL || desc_type_is_folio(t)),
			      "--desc-rcu=%s: %s %zu bytes apart, counting %zu", desc_rcu_name(r),
			      desc_type_name[t], mm->cache[t].obj_size, mm->cache[t].acct_size);
		check_placement(mm, mix, TEST_NR_PFNS, &ex);
		check_footprint(mm, &ex);
		ops->memmap_destroy(mm);
	}
	CHECK(desc_rcu_from_name("all") == DESC_RCU_ALL && desc_rcu_from_name("folio") == DESC_RCU_FOLIO &&
	      desc_rcu_from_name("none") < 0, "--desc-rcu names");
}

/*
 * --large-desc: the plan's large descriptor (the fields FolioAlloc
 * initialises, 112 bytes) by default, 6.18's 160 with full; the counts a
 * whole mapping moves read back the same from either, the shape each
 * descriptor has is its own (MEMDESC_PG_LARGE_FULL), and a migrated folio
 * keeps it.
 */
static void check_large_desc(const struct mix *mix)
{
	static const size_t want[LARGE_DESC_NR] = { FOLIO_LARGE_PLAN_BYTES, FOLIO_LARGE_FULL_BYTES };
	struct memmap_opts opts = { .seed = TEST_SEED };
	struct memmap *mm;
	int l;

	if (!ops->desc_size[DESC_FOLIO])
		return;
	CHECK(ops->desc_size[DESC_FOLIO_LARGE] == FOLIO_LARGE_PLAN_BYTES &&
	      ops->desc_size[DESC_ANON_LARGE] == FOLIO_LARGE_PLAN_BYTES,
	      "the layout's own large descriptor is the plan's: %zu", ops->desc_size[DESC_FOLIO_LARGE]);
	for (l = 0; l < LARGE_DESC_NR; l++) {
		struct expect ex;
		long pfn, moved;

		opts.large_desc = l;
		create_or_die(ops, &mm, TEST_NR_PFNS, mix, &opts);
		CHECK(mm->cache[DESC_FOLIO_LARGE].obj_size == want[l] &&
		      mm->cache[DESC_ANON_LARGE].acct_size == want[l] &&
		      mm->cache[DESC_FOLIO].obj_size == sizeof(struct folio),
		      "--large-desc=%s: large objects %zu, counting %zu", large_desc_name(l),
		      mm->cache[DESC_FOLIO_LARGE].obj_size, mm->cache[DESC_ANON_LARGE].acct_size);
		check_placement(mm, mix, TEST_NR_PFNS, &ex);
		check_footprint(mm, &ex);
		check_counts(mm, 2, PK_ANON);
		check_counts(mm, MIX_4K_HUGETLB_PMD, PK_HUGETLB);
		pfn = ops->folio_alloc(mm, 2, PK_FILE);
		CHECK(pfn >= 0, "--large-desc=%s: alloc", large_desc_name(l));
		if (pfn >= 0) {
			ops->folio_map(mm, pfn);
			moved = ops->folio_migrate(mm, pfn);
			CHECK(moved >= 0, "--large-desc=%s: migrate", large_desc_name(l));
			if (moved >= 0) {
				const struct folio *folio = page_folio(mm, pfn_to_page(mm, moved));

				CHECK(folio && folio_mapcount(folio) == 1,
				      "--large-desc=%s: migrated mapcount %d", large_desc_name(l),
				      folio ? folio_mapcount(folio) : -1);
#ifdef MDB_MEMDESC_H
				CHECK(folio && folio_large_full(folio) == (l == LARGE_DESC_FULL),
				      "--large-desc=%s: the migrated descriptor's shape", large_desc_name(l));
#endif
				ops->folio_unmap(mm, moved);
				ops->folio_free(mm, moved);
			}
		}
		ops->memmap_destroy(mm);
	}
	CHECK(large_desc_from_name("plan") == LARGE_DESC_PLAN &&
	      large_desc_from_name("full") == LARGE_DESC_FULL && large_desc_from_name("half") < 0,
	      "--large-desc names");
}

int main(void)
{
	struct memmap_opts opts = { .seed = TEST_SEED };
	struct mix mix;

	test_mix(&mix);
	CHECK(layout_by_name(ops->name) == ops, "layout_by_name(%s)", ops->name);
	/* DESC_TRACE replays a file: test_age runs it on every layout. */
	for (opts.age = 0; opts.age < DESC_AGE_NR; opts.age++)
		if (opts.age != DESC_TRACE)
			check_machine(&mix, &opts);
	opts.age = DESC_AGED;
	opts.hvo = HVO_ON;		/* the hugetlb folios' vmemmap remapped: the same machine */
	check_machine(&mix, &opts);
	opts.hvo = HVO_OFF;
	check_folio_sizes(&mix);
	check_desc_rcu(&mix);
	check_large_desc(&mix);
	check_odd_size_and_opts(&mix);
	check_gigantic(HVO_OFF);
	check_gigantic(HVO_ON);
	check_bad_mix();

	if (failures) {
		fprintf(stderr, "%s: %d failures\n", ops->name, failures);
		return 1;
	}
	printf("%s: ok\n", ops->name);
	return 0;
}
