// SPDX-License-Identifier: GPL-2.0
/*
 * test_differential.c - every layout must be one machine.
 *
 * One seeded sequence of 20000 operations (allocate a folio of order k,
 * free, migrate, get, put, map, unmap, set a flag) is applied to a memmap
 * of every layout of layouts.list, built from the same mix and seed.  Every
 * operation must return the same in all of them, and page_info must agree:
 * on every pfn an operation touched right after it, on a random sample of
 * pfns every operation, on every pfn every 1000 operations and at the end.
 * Then 3000 more on a 2 GiB memmap holding a 1 GiB hugetlb folio.
 * Only the ops tables are used, so the test holds no layout type.  Both
 * sequences run on aged descriptor caches and again on fresh ones, and once
 * more with HVO on (every hugetlb folio's vmemmap remapped at creation and
 * allocation, restored before it is freed or migrated; page64 reads its
 * fake heads through the key): neither where descriptors lie nor how the
 * memmap is mapped may change anything any layout reports.
 */
#include <stdint.h>

#include "test_layout_common.h"

#define NR_OPS		20000
#define NR_OPS_GIGANTIC	3000
#define FULL_EVERY	1000
#define SAMPLE		32
#define GIGA_NR_PFNS	((1UL << 19) + 3 * 512 + 7)

static const struct layout_ops *const *layouts = mdb_layouts;
static unsigned int NR_LAYOUTS;
static struct memmap **mms;
static unsigned long nr_pfns;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned long rand_below(unsigned long n)
{
	return next_rand() % n;
}

/* Live folio heads, as the ops return them (the same in every layout). */
static unsigned long *live;
static unsigned long nr_live;

static void live_add(unsigned long pfn)
{
	live[nr_live++] = pfn;
}

static void live_del(unsigned long i)
{
	live[i] = live[--nr_live];
}

static long op_no;
static const char *op_name;
/* What the sequence did, so that the summary shows it exercised every path. */
static unsigned long nr_alloc, nr_alloc_failed, nr_free, nr_migrate, nr_migrate_failed,
		     nr_last_put, nr_other;

static void compare_pfn(unsigned long pfn)
{
	struct page_info pi[NR_LAYOUTS];
	char s0[160], s1[160];
	unsigned int l;

	layouts[0]->page_info(mms[0], pfn, &pi[0]);
	for (l = 1; l < NR_LAYOUTS; l++) {
		layouts[l]->page_info(mms[l], pfn, &pi[l]);
		if (page_info_equal(&pi[0], &pi[l]))
			continue;
		CHECK(0, "op %ld (%s): pfn %lu: %s says %s, %s says %s", op_no, op_name, pfn,
		      layouts[0]->name, page_info_str(&pi[0], s0, sizeof(s0)), layouts[l]->name,
		      page_info_str(&pi[l], s1, sizeof(s1)));
	}
	CHECK(pi[0].kind != PK_FREE || pi[0].head_pfn != ~0UL, "op %ld: free pfn %lu in no block",
	      op_no, pfn);
}

static void compare_range(unsigned long pfn, unsigned int order)
{
	unsigned long i;

	for (i = 0; i < 1UL << order; i++)
		compare_pfn(pfn + i);
}

static void compare_all(void)
{
	struct footprint fp[NR_LAYOUTS];
	unsigned long pfn;
	unsigned int l;

	for (pfn = 0; pfn < nr_pfns; pfn++)
		compare_pfn(pfn);
	for (l = 0; l < NR_LAYOUTS; l++)
		layouts[l]->footprint(mms[l], &fp[l]);
	/* No descriptor where a layout has none; the same number in all that have them. */
	for (l = 0; l < NR_LAYOUTS; l++) {
		unsigned int first = NR_LAYOUTS, k;

		for (k = 0; k < NR_LAYOUTS && first == NR_LAYOUTS; k++)
			if (layout_has_descriptors(layouts[k]))
				first = k;
		if (!layout_has_descriptors(layouts[l]))
			CHECK(fp[l].desc_count == 0, "op %ld: %s allocated %zu descriptors", op_no,
			      layouts[l]->name, fp[l].desc_count);
		else
			CHECK(fp[l].desc_count == fp[first].desc_count,
			      "op %ld: %s has %zu descriptors, %s %zu", op_no, layouts[l]->name,
			      fp[l].desc_count, layouts[first]->name, fp[first].desc_count);
	}
}

/* What layout 0 says of pfn; all layouts must agree on it (compare_pfn). */
static struct page_info info0(unsigned long pfn)
{
	struct page_info pi;

	layouts[0]->page_info(mms[0], pfn, &pi);
	return pi;
}

/* Every layout must return the same; the value is layout 0's. */
static long same_long(const long *v)
{
	unsigned int l;

	for (l = 1; l < NR_LAYOUTS; l++)
		CHECK(v[l] == v[0], "op %ld (%s): %s returned %ld, %s %ld", op_no, op_name,
		      layouts[0]->name, v[0], layouts[l]->name, v[l]);
	return v[0];
}

static void do_alloc(void)
{
	/* Small orders are common, as in the kernel; every order occurs. */
	unsigned int order = rand_below(4) ? rand_below(4) : rand_below(MAX_FOLIO_ORDER + 1);
	enum page_kind kind = rand_below(2) ? PK_ANON : PK_FILE;

	/* Now and then a 2 MiB hugetlb folio, or a 1 GiB one (refused: the buddy has none). */
	if (!rand_below(16)) {
		kind = PK_HUGETLB;
		order = rand_below(4) ? MIX_4K_HUGETLB_PMD : MIX_4K_HUGETLB_PUD;
	}
	long v[NR_LAYOUTS];
	unsigned int l;

	op_name = "alloc";
	for (l = 0; l < NR_LAYOUTS; l++)
		v[l] = layouts[l]->folio_alloc(mms[l], order, kind);
	if (same_long(v) < 0) {
		nr_alloc_failed++;
		return;
	}
	nr_alloc++;
	live_add(v[0]);
	compare_range(v[0], order);
}

static void do_free(unsigned long i)
{
	unsigned long pfn = live[i];
	unsigned int order = info0(pfn).order;
	unsigned long any = pfn + rand_below(1UL << order);	/* any page of it */
	unsigned int l;

	op_name = "free";
	for (l = 0; l < NR_LAYOUTS; l++)
		layouts[l]->folio_free(mms[l], any);
	live_del(i);
	nr_free++;
	compare_range(pfn, order);
}

static void do_migrate(unsigned long i)
{
	unsigned long pfn = live[i];
	unsigned int order = info0(pfn).order;
	unsigned long any = pfn + rand_below(1UL << order);	/* any page of it */
	long v[NR_LAYOUTS];
	unsigned int l;

	op_name = "migrate";
	for (l = 0; l < NR_LAYOUTS; l++)
		v[l] = layouts[l]->folio_migrate(mms[l], any);
	if (same_long(v) < 0) {
		nr_migrate_failed++;
		return;
	}
	nr_migrate++;
	live[i] = v[0];
	compare_range(pfn, order);
	compare_range(v[0], order);
}

static void do_put(unsigned long i)
{
	unsigned long pfn = live[i];
	unsigned int order = info0(pfn).order;
	long v[NR_LAYOUTS];
	unsigned int l;

	op_name = "put";
	for (l = 0; l < NR_LAYOUTS; l++)
		v[l] = layouts[l]->folio_put(mms[l], pfn);
	if (same_long(v)) {	/* the last reference: free it at once */
		for (l = 0; l < NR_LAYOUTS; l++)
			layouts[l]->folio_free(mms[l], pfn);
		live_del(i);
		nr_last_put++;
	}
	compare_range(pfn, order);
}

static void do_simple(unsigned long i, unsigned int what)
{
	static const enum pageflag flags[] = {
		PG_locked, PG_referenced, PG_uptodate, PG_dirty, PG_lru, PG_active, PG_swapbacked,
	};
	unsigned long pfn = live[i];
	unsigned int order = info0(pfn).order;
	unsigned long any = pfn + rand_below(1UL << order);
	enum pageflag flag = flags[rand_below(sizeof(flags) / sizeof(flags[0]))];
	unsigned int l;

	nr_other++;
	if (what == 2 && info0(pfn).mapcount == 0)
		what = 1;	/* nothing to unmap: map instead */
	for (l = 0; l < NR_LAYOUTS; l++) {
		switch (what) {
		case 0:
			op_name = "get";
			layouts[l]->folio_get(mms[l], any);
			break;
		case 1:
			op_name = "map";
			layouts[l]->folio_map(mms[l], any);
			break;
		case 2:
			op_name = "unmap";
			layouts[l]->folio_unmap(mms[l], any);
			break;
		default:
			op_name = "set_flag";
			layouts[l]->folio_set_flag(mms[l], any, flag);
			break;
		}
	}
	compare_range(pfn, order);
}

static void do_op(void)
{
	unsigned long r = rand_below(100), i;

	if (!nr_live || r < 30) {
		do_alloc();
		return;
	}
	i = rand_below(nr_live);
	if (r < 45)
		do_free(i);
	else if (r < 55)
		do_migrate(i);
	else if (r < 65)
		do_put(i);
	else
		do_simple(i, (r - 65) % 4);
}

/* Every layout built from mix, then nr_ops operations, all compared as they go. */
static void run(const struct mix *mix, unsigned long nr, long nr_ops, enum desc_age age,
		enum hvo_mode hvo)
{
	struct memmap_opts opts = { .age = age, .seed = TEST_SEED, .hvo = hvo };
	struct page_info pi;
	unsigned long pfn, s;
	unsigned int l;

	nr_pfns = nr;
	rng = 0x9e3779b97f4a7c15ULL;
	nr_live = nr_alloc = nr_alloc_failed = nr_free = nr_migrate = nr_migrate_failed = 0;
	nr_last_put = nr_other = 0;
	for (l = 0; l < NR_LAYOUTS; l++)
		create_or_die(layouts[l], &mms[l], nr_pfns, mix, &opts);
	live = calloc(nr_pfns, sizeof(*live));
	if (!live)
		exit(1);
	op_name = "create";
	op_no = -1;
	compare_all();
	/* The mix's own folios take part too. */
	for (pfn = 0; pfn < nr_pfns; pfn += 1UL << pi.order) {
		layouts[0]->page_info(mms[0], pfn, &pi);
		if (pi.kind == PK_FREE || pi.head_pfn != pfn)
			pi.order = 0;
		else if (page_kind_is_folio(pi.kind))
			live_add(pfn);
	}
	/* A 1 GiB folio is one live folio among thousands: exercise it first, then free it. */
	for (s = 0; s < nr_live;) {
		if (info0(live[s]).order <= MAX_PAGE_ORDER) {
			s++;
			continue;
		}
		for (l = 0; l < 4; l++)
			do_simple(s, l);
		do_migrate(s);
		do_free(s);	/* live[s] is another folio now */
	}
	for (op_no = 0; op_no < nr_ops && failures == 0; op_no++) {
		do_op();
		for (s = 0; s < SAMPLE; s++)
			compare_pfn(rand_below(nr_pfns));
		if (op_no % FULL_EVERY == FULL_EVERY - 1)
			compare_all();
	}
	op_name = "end";
	compare_all();
	for (l = 0; l < NR_LAYOUTS; l++)
		layouts[l]->memmap_destroy(mms[l]);
	printf("differential (%s, hvo %s): %s, %lu pfns, %ld ops: %lu allocs (%lu found no block), "
	       "%lu frees, %lu migrations (%lu found no block), %lu last puts, %lu "
	       "get/map/unmap/flag; %lu live folios%s\n", desc_age_name(age), hvo_mode_name(hvo),
	       mix->name, nr_pfns,
	       nr_ops, nr_alloc, nr_alloc_failed, nr_free, nr_migrate, nr_migrate_failed,
	       nr_last_put, nr_other, nr_live, failures ? "" : ": ok");
	free(live);
}

int main(void)
{
	/* A 1 GiB hugetlb folio (the mix's only), 2 MiB ones and the usual others. */
	static const struct mix_entry gigantic[] = {
		{ PK_HUGETLB, MIX_4K_HUGETLB_PUD, 0.5 }, { PK_HUGETLB, MIX_4K_HUGETLB_PMD, 0.1 },
		{ PK_ANON, 0, 0.1 }, { PK_FILE, 4, 0.1 }, { PK_FREE, 10, 0.1 }, { PK_FREE, 9, 0.05 },
		{ PK_SLAB, 0, 0.05 },
	};
	static const enum desc_age ages[] = { DESC_AGED, DESC_FRESH_ORDERED };
	struct mix mix, giga = { .name = "gigantic" };
	unsigned int a;

	while (layouts[NR_LAYOUTS])
		NR_LAYOUTS++;
	mms = calloc(NR_LAYOUTS, sizeof(*mms));
	if (!mms)
		return 1;
	test_mix(&mix);
	giga.nr = sizeof(gigantic) / sizeof(gigantic[0]);
	memcpy(giga.entry, gigantic, sizeof(gigantic));
	for (a = 0; a < sizeof(ages) / sizeof(ages[0]) && !failures; a++) {
		run(&mix, TEST_NR_PFNS, NR_OPS, ages[a], HVO_OFF);
		if (!failures)
			run(&giga, GIGA_NR_PFNS, NR_OPS_GIGANTIC, ages[a], HVO_OFF);
	}
	if (!failures)
		run(&mix, TEST_NR_PFNS, NR_OPS, DESC_AGED, HVO_ON);
	if (!failures)
		run(&giga, GIGA_NR_PFNS, NR_OPS_GIGANTIC, DESC_AGED, HVO_ON);
	CHECK(!hvo_key_count(), "the fake-head key on with no memmap left");
	free(mms);
	if (failures) {
		fprintf(stderr, "differential: %d failures\n", failures);
		return 1;
	}
	return 0;
}
