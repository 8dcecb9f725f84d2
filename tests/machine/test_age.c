// SPDX-License-Identifier: GPL-2.0
/*
 * test_age.c - aged descriptor caches (machine/age.c) on every layout,
 * through the ops tables only.
 *
 *  - the churn itself: for a list and a seed, the same events every time;
 *    every folio it frees it allocates again in the same round, every
 *    short-lived descriptor goes by the round's end;
 *  - a machine: the same seed gives the same churn and the same placement
 *    (digests, adjacency) every time; another seed another one; the churn
 *    is the same on every layout, and layouts whose caches are built alike
 *    place every descriptor alike;
 *  - the old churn (aged-permute) leaves the machine as placed (page_info of
 *    every pfn); the trace (aged) moves folios, the same way on every
 *    layout, keeping the pages of every kind; where descriptors are
 *    separate, fresh-ordered ones follow pfn order, randomised fresh ones
 *    less, aged ones hardly (the adjacency measure);
 *  - the trace on a list of its own: the same seed the same events and
 *    final pfns; every pfn ends in exactly one folio or free block; every
 *    descriptor it allocates but the live folios' is freed.
 */
#include <stdint.h>

#include "test_layout_common.h"

#define SEED2	(TEST_SEED + 1)

/* ------------------------------------------------------------------------ */
/* The churn on a list of its own.                                          */

#define FAKE_FOLIOS	1000

struct recorder {
	unsigned char live[FAKE_FOLIOS];	/* the folio has a descriptor */
	unsigned long events, transients, freed, bad;
	uint64_t log;				/* of the events, in order */
};

static void rec(struct recorder *r, uint64_t what)
{
	r->log = (r->log ^ what) * 0x100000001b3ULL;
	r->events++;
}

static void fake_release(void *arg, const struct age_folio *f)
{
	struct recorder *r = arg;

	r->bad += !r->live[f->pfn];
	r->live[f->pfn] = 0;
	rec(r, 1000000 + f->pfn);
}

static int fake_recreate(void *arg, const struct age_folio *f)
{
	struct recorder *r = arg;

	r->bad += r->live[f->pfn];
	r->live[f->pfn] = 1;
	rec(r, 2000000 + f->pfn);
	return 0;
}

static void *fake_alloc(void *arg, unsigned int order, unsigned int kind)
{
	struct recorder *r = arg;

	r->bad += kind != PK_ANON;	/* a short-lived folio is of a kind the list holds */
	rec(r, 3000000 + order);
	return (void *)(uintptr_t)++r->transients;
}

static void fake_free(void *arg, void *desc, unsigned int order, unsigned int kind)
{
	struct recorder *r = arg;

	(void)desc;
	r->bad += kind != PK_ANON;
	r->freed++;
	rec(r, 4000000 + order);
}

static void run_fake(struct recorder *r, const struct age_list *l, uint64_t seed, uint64_t *digest)
{
	const struct age_ops ops = { fake_release, fake_recreate, fake_alloc, fake_free, r };

	memset(r, 0, sizeof(*r));
	memset(r->live, 1, sizeof(r->live));
	CHECK(!age_churn(l, seed, &ops, digest), "age_churn");
}

static void test_churn(void)
{
	struct age_list l = { 0 };
	struct recorder a, b, c;
	uint64_t da, db, dc;
	unsigned long k = FAKE_FOLIOS / AGE_FRACTION_DEN, t = k / AGE_TRANSIENT_DEN, i;

	for (i = 0; i < FAKE_FOLIOS; i++)
		CHECK(!age_list_add(&l, i, i % 10, PK_ANON), "age_list_add");
	run_fake(&a, &l, TEST_SEED, &da);
	run_fake(&b, &l, TEST_SEED, &db);
	run_fake(&c, &l, SEED2, &dc);
	CHECK(a.log == b.log && da == db && da != 0, "the same seed, the same churn");
	CHECK(a.log != c.log && da != dc, "another seed, another churn");
	CHECK(!a.bad, "%lu folios freed twice or allocated while live", a.bad);
	for (i = 0; i < FAKE_FOLIOS; i++)
		CHECK(a.live[i], "folio %lu has no descriptor after the churn", i);
	CHECK(a.transients == AGE_ROUNDS * t && a.freed == a.transients,
	      "%lu short-lived descriptors, %lu freed, %lu expected", a.transients, a.freed,
	      AGE_ROUNDS * t);
	CHECK(a.events == AGE_ROUNDS * (2 * k + 2 * t), "%lu events", a.events);
	age_list_release(&l);
}

/* ------------------------------------------------------------------------ */
/* The trace on a list of its own.                                          */

#define TRACE_PFNS	(1UL << 16)

struct trace_rec {
	unsigned char *live;
	unsigned long cap;			/* ids live[] has room for */
	unsigned long allocs, frees, bad;
	unsigned long log[64], nr_log;		/* the first events: id, + 1UL << 63 for a free */
};

static void rec_log(struct trace_rec *r, unsigned long what)
{
	if (r->nr_log < sizeof(r->log) / sizeof(r->log[0]))
		r->log[r->nr_log] = what;
	r->nr_log++;
}

static int rec_alloc(void *arg, unsigned long id, unsigned int order, unsigned int kind)
{
	struct trace_rec *r = arg;

	(void)order;
	r->bad += kind != PK_ANON && kind != PK_FILE;
	if (id >= r->cap) {
		r->bad++;
		return 0;
	}
	rec_log(r, id);
	r->bad += r->live[id];
	r->live[id] = 1;
	r->allocs++;
	return 0;
}

static void rec_free(void *arg, unsigned long id, unsigned int order, unsigned int kind)
{
	struct trace_rec *r = arg;

	(void)order;
	r->bad += kind != PK_ANON && kind != PK_FILE;
	if (id >= r->cap) {
		r->bad++;
		return;
	}
	rec_log(r, id | 1UL << 63);
	r->bad += !r->live[id];
	r->live[id] = 0;
	r->frees++;
}

/* Folios of orders 0, 0, 2 and 9 every 2 MiB, the rest of each 2 MiB free. */
static void trace_plan(struct age_list *folios, struct age_list *blocks)
{
	unsigned long base;

	for (base = 0; base < TRACE_PFNS; base += 512) {
		if ((base / 512) % 4 == 3) {
			age_list_add(folios, base, 9, PK_ANON);
			continue;
		}
		age_list_add(folios, base, 0, PK_FILE);
		age_list_add(folios, base + 1, 0, PK_ANON);
		age_list_add(blocks, base + 2, 1, PK_FREE);
		age_list_add(folios, base + 4, 2, PK_ANON);
		for (unsigned int o = 3; o < 9; o++)
			age_list_add(blocks, base + (1UL << o), o, PK_FREE);
	}
}

static void test_trace(void)
{
	struct age_list folios = { 0 }, blocks = { 0 };
	struct age_trace t, u;
	struct trace_rec r = { 0 }, q = { 0 };
	unsigned char *cover = calloc(TRACE_PFNS, 1);
	unsigned long i, j, live = 0, twice = 0;

	trace_plan(&folios, &blocks);
	r.cap = q.cap = 16 * folios.nr;
	r.live = calloc(r.cap, 1);
	q.live = calloc(q.cap, 1);
	CHECK(!age_trace_run(&folios, &blocks, TRACE_PFNS, TEST_SEED, NULL,
			     &(struct age_trace_ops){ rec_alloc, rec_free, &r }, &t) &&
	      !age_trace_run(&folios, &blocks, TRACE_PFNS, TEST_SEED, NULL,
			     &(struct age_trace_ops){ rec_alloc, rec_free, &q }, &u), "age_trace_run");
	CHECK(t.nr_final == folios.nr && t.nr_ids <= r.cap, "%zu folios at the end of %zu, %lu ids",
	      t.nr_final, folios.nr, t.nr_ids);
	CHECK(t.digest == u.digest && !memcmp(t.final, u.final, folios.nr * sizeof(*t.final)) &&
	      t.free.nr == u.free.nr, "the same seed, another trace");
	for (i = 0; i < folios.nr; i++) {
		if (t.final[i].kind == AGE_GONE)
			continue;
		live++;
		CHECK(t.final[i].order == folios.f[i].order && t.final[i].kind == folios.f[i].kind &&
		      !(t.final[i].pfn & ((1U << t.final[i].order) - 1)), "folio %lu changed", i);
		for (j = 0; j < 1UL << t.final[i].order; j++)
			twice += cover[t.final[i].pfn + j]++;
	}
	for (i = 0; i < t.free.nr; i++)
		for (j = 0; j < 1UL << t.free.f[i].order; j++)
			twice += cover[t.free.f[i].pfn + j]++;
	for (i = 0, j = 0; i < TRACE_PFNS; i++)
		j += cover[i] == 1;
	CHECK(!twice && j == TRACE_PFNS, "%lu pfns covered twice, %lu once of %lu", twice, j,
	      TRACE_PFNS);
	CHECK(!r.bad && r.allocs - r.frees == live && live + t.failures == folios.nr,
	      "descriptors: %lu allocated, %lu freed, %lu live, %lu failures, %lu bad", r.allocs,
	      r.frees, live, t.failures, r.bad);
	printf("trace: %zu folios, %lu events, %lu failures, %zu free blocks at the end\n",
	       folios.nr, r.allocs + r.frees, t.failures, t.free.nr);
	age_trace_release(&t);
	age_trace_release(&u);
	age_list_release(&folios);
	age_list_release(&blocks);
	free(r.live);
	free(q.live);
	free(cover);
}

/*
 * Grouping by mobility: a plan that puts 32 slab pages at the start of each
 * of 16 pageblocks (512 pages, one pageblock's worth, the other kinds'
 * pages anon) boots them through the buddy, so slab ends in 2 pageblocks,
 * one unmovable and one reclaimable (alloc_mt(): every other slab block
 * reclaimable; each claims a whole free pageblock, __rmqueue_claim()),
 * instead of all 16.  Their other 256 pages each are not slab's: the
 * machine is 7/8 full, and anon allocations that find no movable block
 * steal them (__rmqueue_steal()), as the kernel's do.
 */
#define MOB_BLOCKS	16UL

static void test_trace_mobility(void)
{
	struct age_list folios = { 0 }, blocks = { 0 };
	unsigned long pb, slab_in[MOB_BLOCKS] = { 0 }, nr_slab = 0;
	struct trace_rec r = { 0 };
	struct age_trace t;
	size_t i;

	for (pb = 0; pb < MOB_BLOCKS; pb++) {
		unsigned long base = pb << PAGEBLOCK_ORDER;

		for (i = 0; i < 32; i++)
			age_list_add(&folios, base + i, 0, PK_SLAB);
		for (i = 32; i < 448; i++)
			age_list_add(&folios, base + i, 0, PK_ANON);
		age_list_add(&blocks, base + 448, 6, PK_FREE);
	}
	r.cap = 16 * folios.nr;
	r.live = calloc(r.cap, 1);
	CHECK(!age_trace_run(&folios, &blocks, MOB_BLOCKS << PAGEBLOCK_ORDER, TEST_SEED, NULL,
			     &(struct age_trace_ops){ rec_alloc, rec_free, &r }, &t), "age_trace_run");
	for (i = 0; i < t.nr_final; i++) {
		if (t.final[i].kind == PK_SLAB)
			slab_in[t.final[i].pfn >> PAGEBLOCK_ORDER]++;
	}
	for (pb = 0; pb < MOB_BLOCKS; pb++) {
		nr_slab += slab_in[pb] > 0;
		CHECK(!slab_in[pb] || slab_in[pb] == 256, "pageblock %lu: %lu slab pages", pb,
		      slab_in[pb]);
	}
	CHECK(nr_slab == 2 && t.pageblocks[AGE_MT_UNMOVABLE] == 1 &&
	      t.pageblocks[AGE_MT_RECLAIMABLE] == 1 && !t.failures && !r.bad,
	      "slab in %lu pageblocks, %lu unmovable, %lu reclaimable, %lu failures",
	      nr_slab, t.pageblocks[AGE_MT_UNMOVABLE], t.pageblocks[AGE_MT_RECLAIMABLE], t.failures);
	age_trace_release(&t);
	age_list_release(&folios);
	age_list_release(&blocks);
	free(r.live);
}


/* ------------------------------------------------------------------------ */
/* A recorded trace, replayed (DESC_TRACE).                                 */

#define REPLAY_PFNS	2048UL		/* four pageblocks, two free order-10 blocks at boot */

static const char *fixtures = "tests/machine/fixtures/trace";

static void fixture(char *path, size_t len, const char *name)
{
	snprintf(path, len, "%s/%s", fixtures, name);
}

/* Runs the trace in fixture name on REPLAY_PFNS pfns, all free at boot. */
static void replay(const char *name, bool no_compaction, struct age_replay *rp,
		   struct age_trace *t, struct trace_rec *r)
{
	struct age_list folios = { 0 }, blocks = { 0 };
	struct mdb_err err;
	char path[512];

	fixture(path, sizeof(path), name);
	if (age_replay_load(path, rp, &err)) {
		CHECK(0, "%s", err.msg);
		exit(1);
	}
	age_list_add(&blocks, 0, MAX_PAGE_ORDER, PK_FREE);
	age_list_add(&blocks, 1024, MAX_PAGE_ORDER, PK_FREE);
	memset(r, 0, sizeof(*r));
	r->cap = 4 * rp->nr_alloc + 64;
	r->live = calloc(r->cap, 1);
	CHECK(!age_trace_run(&folios, &blocks, REPLAY_PFNS, TEST_SEED,
			     &(struct age_trace_how){ rp, no_compaction },
			     &(struct age_trace_ops){ rec_alloc, rec_free, r }, t), "age_trace_run");
	age_list_release(&blocks);
}

static bool has_free_block(const struct age_trace *t, unsigned int order)
{
	for (size_t i = 0; i < t->free.nr; i++)
		if (t->free.f[i].order >= order)
			return true;
	return false;
}

static unsigned long free_pages(const struct age_trace *t)
{
	unsigned long n = 0;

	for (size_t i = 0; i < t->free.nr; i++)
		n += 1UL << t->free.f[i].order;
	return n;
}

/* The folio at the end with this descriptor id, or NULL. */
static const struct age_folio *final_of(const struct age_trace *t, unsigned long desc)
{
	for (size_t i = 0; i < t->nr_final; i++)
		if (t->final_desc[i] == desc)
			return &t->final[i];
	return NULL;
}

static bool folio_is(const struct age_folio *f, unsigned long pfn, unsigned int order,
		     unsigned int kind)
{
	return f && f->pfn == pfn && f->order == order && f->kind == kind;
}

/*
 * lifo.trace by hand: boot frees [0, 1024) and [1024, 2048) at order 10,
 * the second on free_area[10]'s head.  The first order-0 allocation
 * refills the pcp list with 63 pages split off 1024 in address order
 * (rmqueue_bulk() to the tail), so ids 100 and 0x65 get 1024 and 1025;
 * order 2 refills its own list from what expand() left, 1088 first; the
 * free of 100 puts 1024 back on the order-0 list's head, where 103 takes
 * it (LIFO); the THP splits nothing: expand() left 1536 at order 9.
 * Descriptors: one id per allocation in file order (0..4), id 0 freed
 * before id 3 is allocated, so a LIFO cache gives 103 the object 100 had.
 */
static void test_replay_lifo(void)
{
	static const unsigned long want_log[] = { 0, 1, 2, 0 | 1UL << 63, 3, 4 };
	struct age_replay rp;
	struct age_trace t;
	struct trace_rec r;

	replay("lifo.trace", false, &rp, &t, &r);
	CHECK(rp.nr_events == 6 && rp.nr_alloc == 5 && rp.nr_free == 1 &&
	      rp.alloc_by_order[0] == 3 && rp.alloc_by_order[2] == 1 && rp.alloc_by_order[9] == 1 &&
	      rp.peak_pages == 1 + 4 + 1 + 512 && rp.live_pages == 1 + 4 + 1 + 512,
	      "lifo.trace: %zu events, %lu allocations, %lu frees, peak %lu, live %lu",
	      rp.nr_events, rp.nr_alloc, rp.nr_free, rp.peak_pages, rp.live_pages);
	/* sha256sum tests/machine/fixtures/trace/lifo.trace */
	CHECK(strlen(rp.sha256) == 64 &&
	      !strcmp(rp.sha256, "f04ac4822e6ba7d81d472fce0add1321fb29d976cf5be452db0aae71ad6224c8"),
	      "lifo.trace: sha256 '%s'", rp.sha256);
	CHECK(t.nr_final == 4 && !final_of(&t, 0) && folio_is(final_of(&t, 1), 1025, 0, PK_FILE) &&
	      folio_is(final_of(&t, 2), 1088, 2, PK_ANON) &&
	      folio_is(final_of(&t, 3), 1024, 0, PK_ANON) &&
	      folio_is(final_of(&t, 4), 1536, 9, PK_ANON),
	      "lifo.trace: %zu folios at the end, placed elsewhere than by hand", t.nr_final);
	CHECK(r.nr_log == 6 && !memcmp(r.log, want_log, sizeof(want_log)) && !r.bad &&
	      t.nr_ids == 5, "lifo.trace: descriptor events out of order (%lu, %lu bad)", r.nr_log,
	      r.bad);
	CHECK(!t.failures && !t.compactions && free_pages(&t) == REPLAY_PFNS - 518 &&
	      has_free_block(&t, MAX_PAGE_ORDER),
	      "lifo.trace: %lu failures, %lu compactions, %lu free pages", t.failures,
	      t.compactions, free_pages(&t));
	age_trace_release(&t);
	age_replay_release(&rp);
	free(r.live);
}

/*
 * compact.trace by hand: ten order-4 folios left, at least one in every
 * pageblock, no free order-9 block.  kcompactd empties pageblock 2, which
 * holds the fewest pages (id 17 at 1280, descriptor 16); the free scanner
 * isolates pageblock 3's free blocks (1600 order 6, 1664 order 7, 1792
 * order 8) and compaction_alloc() splits the smallest, 1600, for it: the
 * folio moves to 1600 with a new descriptor (id 128, the first after the
 * trace's), and 1024 is free at order 9.  Without compaction nothing moves.
 * compact-thp.trace asks for a THP after it: direct compaction does the
 * same, and the THP takes 1024.  (ID k of the files is descriptor k - 1.)
 */
static void test_replay_compaction(void)
{
	struct age_replay rp;
	struct age_trace t, n, d, dn;
	struct trace_rec r, rn, rd, rdn;

	replay("compact.trace", false, &rp, &t, &r);
	age_replay_release(&rp);
	replay("compact.trace", true, &rp, &n, &rn);
	CHECK(rp.nr_alloc == 128 && rp.nr_free == 118 && rp.peak_pages == REPLAY_PFNS &&
	      rp.live_pages == 160, "compact.trace: %lu allocations, %lu frees, peak %lu, live %lu",
	      rp.nr_alloc, rp.nr_free, rp.peak_pages, rp.live_pages);
	age_replay_release(&rp);
	CHECK(!n.compactions && !has_free_block(&n, PAGEBLOCK_ORDER) &&
	      folio_is(final_of(&n, 16), 1280, 4, PK_FILE) && n.nr_ids == 128,
	      "compact.trace without compaction: %lu compactions, a free pageblock %d",
	      n.compactions, has_free_block(&n, PAGEBLOCK_ORDER));
	CHECK(t.compactions == 1 && t.migrated == 1 && t.nr_final == 10 && t.nr_ids == 129 &&
	      !final_of(&t, 16) && folio_is(final_of(&t, 128), 1600, 4, PK_FILE) &&
	      folio_is(final_of(&t, 32), 1536, 4, PK_FILE) &&
	      folio_is(final_of(&t, 95), 496, 4, PK_ANON) && !r.bad,
	      "compact.trace: %lu compactions, %lu migrated, %lu ids", t.compactions, t.migrated,
	      t.nr_ids);
	/* Pageblock 2's five free blocks one; 3's three four (1616/4, 1632/5, 1664/7, 1792/8). */
	CHECK(t.free.nr == n.free.nr - 5 + 1 - 3 + 4 && free_pages(&t) == REPLAY_PFNS - 160,
	      "compact.trace: %zu free blocks (%zu without compaction), %lu free pages", t.free.nr,
	      n.free.nr, free_pages(&t));
	for (size_t i = 0; i < t.free.nr; i++)
		if (t.free.f[i].order >= PAGEBLOCK_ORDER)
			CHECK(t.free.f[i].pfn == 1024 && t.free.f[i].order == PAGEBLOCK_ORDER,
			      "compact.trace: free block %u order %u", t.free.f[i].pfn, t.free.f[i].order);
	CHECK(t.digest != n.digest, "compaction left no trace in the digest");

	replay("compact-thp.trace", false, &rp, &d, &rd);
	age_replay_release(&rp);
	replay("compact-thp.trace", true, &rp, &dn, &rdn);
	age_replay_release(&rp);
	/*
	 * Then kcompactd, with no free pageblock left, empties pageblock 1 (2
	 * folios): id 97 to 1616 and id 128 to 1632 (descriptors 130, 131).
	 */
	CHECK(d.compactions == 2 && d.migrated == 3 && !d.failures &&
	      folio_is(final_of(&d, 129), 1024, 9, PK_ANON) &&
	      folio_is(final_of(&d, 128), 1600, 4, PK_FILE) &&
	      folio_is(final_of(&d, 130), 1616, 4, PK_FILE) &&
	      folio_is(final_of(&d, 131), 1632, 4, PK_ANON) && !final_of(&d, 96) &&
	      !final_of(&d, 127) && has_free_block(&d, PAGEBLOCK_ORDER),
	      "compact-thp.trace: %lu compactions, %lu migrated, %lu failures", d.compactions,
	      d.migrated, d.failures);
	CHECK(!dn.compactions && dn.failures == 1 && dn.nr_final == 10,
	      "compact-thp.trace without compaction: %lu compactions, %lu failures", dn.compactions,
	      dn.failures);
	age_trace_release(&t);
	age_trace_release(&n);
	age_trace_release(&d);
	age_trace_release(&dn);
	free(r.live);
	free(rn.live);
	free(rd.live);
	free(rdn.live);
}

static unsigned long free_blocks_of(const struct age_trace *t, unsigned int order)
{
	unsigned long n = 0;

	for (unsigned int mt = 0; mt < AGE_MT_NR; mt++)
		n += t->free_blocks[order][mt];
	return n;
}

/*
 * placed.trace by hand, the kernel's events at its pfns from every page
 * held: the file folio lands at 1024 and the kernel's order-3 block at 512
 * (pageblock 1 unmovable: its first allocation's type); 1030 and 1031,
 * freed and drained, merge at order 1 on the movable list; 2000's order-3
 * block, freed and drained, goes to the reclaimable list with its
 * pageblock; 1100's order-1 free stays on the per-cpu lists (2 pages, not
 * in the buddy's blocks, free memory after); 1200, refilled then
 * allocated, is a file folio; 1024 allocated again over its live folio
 * (a conflict) ends that folio (descriptor 0) and makes an anon one.
 */
static void test_replay_placed(void)
{
	static const unsigned long F = 1UL << 63;
	static const unsigned long want_log[] = { 0, 1, 2, 1 | F, 2 | F, 3, 0 | F, 4 };
	struct age_replay rp;
	struct age_trace t;
	struct trace_rec r;
	unsigned long held = 0;

	replay("placed.trace", false, &rp, &t, &r);
	CHECK(rp.placed && rp.nr_alloc == 6 && rp.nr_free == 4 && rp.end_pfn == 2008 &&
	      rp.alloc_by_order[3] == 1 && rp.nr_events == 15,
	      "placed.trace: placed %d, %lu allocations, %lu frees, end %lu, %zu events", rp.placed,
	      rp.nr_alloc, rp.nr_free, rp.end_pfn, rp.nr_events);
	CHECK(folio_is(final_of(&t, 4), 1024, 0, PK_ANON) && folio_is(final_of(&t, 3), 1200, 0, PK_FILE) &&
	      !final_of(&t, 0) && !final_of(&t, 1) && !final_of(&t, 2),
	      "placed.trace: the folios are not where the kernel put them");

	for (size_t i = 0; i < t.nr_final; i++) {
		const struct age_folio *f = &t.final[i];

		if (f->pfn == 512)
			CHECK(f->order == 3 && f->kind == PK_RESERVED, "placed.trace: 512 order %u kind %u",
			      f->order, f->kind);
		else if (f->kind == PK_RESERVED)
			held += 1UL << f->order;
	}
	CHECK(held == REPLAY_PFNS - 2 - 8 - 12, "placed.trace: %lu pages held", held);
	CHECK(t.free_blocks[1][AGE_MT_MOVABLE] == 1 && t.free_blocks[3][AGE_MT_RECLAIMABLE] == 1 &&
	      free_blocks_of(&t, 0) == 0 && free_blocks_of(&t, 1) == 1 && free_blocks_of(&t, 3) == 1 &&
	      t.pcp_pages == 2 && t.conflicts == 1 && free_pages(&t) == 12 && t.free.nr == 3,
	      "placed.trace: free blocks %lu/%lu, %lu pcp pages, %lu conflicts, %lu free pages",
	      t.free_blocks[1][AGE_MT_MOVABLE], t.free_blocks[3][AGE_MT_RECLAIMABLE], t.pcp_pages,
	      t.conflicts, free_pages(&t));
	CHECK(t.pageblocks[AGE_MT_UNMOVABLE] == 1 && t.pageblocks[AGE_MT_MOVABLE] == 2 &&
	      t.pageblocks[AGE_MT_RECLAIMABLE] == 1 && !t.compactions && !t.failures,
	      "placed.trace: pageblocks %lu/%lu/%lu, %lu compactions", t.pageblocks[0],
	      t.pageblocks[1], t.pageblocks[2], t.compactions);
	CHECK(r.nr_log == 8 && !memcmp(r.log, want_log, sizeof(want_log)) && !r.bad && t.nr_ids == 5,
	      "placed.trace: descriptor events out of order (%lu, %lu bad)", r.nr_log, r.bad);
	age_trace_release(&t);
	age_replay_release(&rp);
	free(r.live);
}

/* Each bad file: its one-line reason, naming the file and line. */
static void test_replay_bad(void)
{
	static const struct {
		const char *name, *why;
	} bad[] = {
		{ "free-unallocated.trace", ":2: frees 2, which is not allocated" },
		{ "free-twice.trace", ":3: frees 1, which is not allocated" },
		{ "alloc-twice.trace", ":2: allocates 1, which is already allocated" },
		{ "order-too-big.trace", ":1: ORDER '10': want 0 to 9" },
		{ "bad-kind.trace", ":1: KIND 'slab': want anon or file" },
		{ "missing-field.trace", ":1: 'a' takes ID ORDER KIND" },
		{ "extra-field.trace", ":1: MT 'extra': want 0, 1 or 2" },	/* five fields: placed */
		{ "placed-mixed.trace", ":2: a folio event in a trace of placed events" },
		{ "placed-unaligned.trace", ":1: PFN '3': want a pfn below 2^32, aligned to its order" },
		{ "placed-kind.trace", ":1: KIND 'slab': want anon, file or kernel" },
		{ "placed-folio-order.trace", ":1: an anon folio of order 10: at most 9" },
		{ "placed-mt.trace", ":1: MT '3': want 0, 1 or 2" },
		{ "bad-verb.trace", ":1: 'x': want 'a ID ORDER KIND' or 'f ID'" },
		{ "bad-id.trace", ":1: ID '-1': not a number below 2^64" },
		{ "id-overflow.trace", ":1: ID '18446744073709551616': not a number below 2^64" },
		{ "crlf.trace", ":1: a control character (0x0d)" },
		{ "nul.trace", ":2: a NUL byte" },
		{ "empty.trace", ": no events" },
		{ "missing.trace", ": No such file or directory" },
	};
	struct age_replay rp;
	struct mdb_err err;
	char name[64], path[512], want[640];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "bad/%s", bad[i].name);
		fixture(path, sizeof(path), name);
		snprintf(want, sizeof(want), "%s%s", path, bad[i].why);
		CHECK(age_replay_load(path, &rp, &err) && !strcmp(err.msg, want) && !rp.ev && !rp.path,
		      "%s: '%s', want '%s'", bad[i].name, err.msg, want);
	}
}

/* A replayed trace on every layout: the same placement, compaction or not. */
static void test_replay_layouts(void)
{
	struct mix mix = { .name = "all-free", .nr = 1,
			   .entry = { { PK_FREE, MAX_PAGE_ORDER, 1.0 } } };
	struct memmap *first[2] = { NULL, NULL };
	const struct layout_ops *first_ops = NULL;
	struct age_replay rp;
	struct mdb_err err;
	char path[512];

	fixture(path, sizeof(path), "compact.trace");
	if (age_replay_load(path, &rp, &err)) {
		CHECK(0, "%s", err.msg);
		return;
	}
	for (const struct layout_ops *const *l = mdb_layouts; *l; l++)
		for (int off = 0; off < 2; off++) {
			struct memmap_opts opts = { .age = DESC_TRACE, .seed = TEST_SEED, .replay = &rp,
						    .no_compaction = off };
			unsigned long n[PK_NR] = { 0 }, pfn, differ = 0, big_free = 0;
			struct page_info pi, pf;
			struct memmap *mm;

			create_or_die(*l, &mm, REPLAY_PFNS, &mix, &opts);
			for (pfn = 0; pfn < REPLAY_PFNS; pfn++) {
				(*l)->page_info(mm, pfn, &pi);
				n[pi.kind < PK_NR ? pi.kind : 0]++;
				big_free += pi.kind == PK_FREE && pi.order >= PAGEBLOCK_ORDER;
				if (first[off]) {
					first_ops->page_info(first[off], pfn, &pf);
					differ += pi.kind != pf.kind || pi.head_pfn != pf.head_pfn ||
						  pi.order != pf.order;
				}
			}
			CHECK(n[PK_ANON] == 80 && n[PK_FILE] == 80 && n[PK_FREE] == REPLAY_PFNS - 160 &&
			      mm->obtained.age_compactions == (off ? 0UL : 1UL) &&
			      big_free == (off ? 0UL : 512UL) && !differ && mm->obtained.age_digest,
			      "%s, compaction %s: %lu anon, %lu file, %lu free pages, %lu compactions, "
			      "%lu placed unlike %s", (*l)->name, off ? "off" : "on", n[PK_ANON],
			      n[PK_FILE], n[PK_FREE], mm->obtained.age_compactions, differ,
			      first_ops ? first_ops->name : "-");
			if (first[off]) {
				CHECK(mm->obtained.age_digest == first[off]->obtained.age_digest,
				      "%s: another digest", (*l)->name);
				(*l)->memmap_destroy(mm);
			} else {
				first[off] = mm;
				first_ops = *l;
			}
		}
	for (int off = 0; off < 2; off++)
		first_ops->memmap_destroy(first[off]);
	age_replay_release(&rp);
}

/* ------------------------------------------------------------------------ */
/* Machines.                                                                */

static struct memmap *build(const struct layout_ops *ops, enum desc_age age, uint64_t seed)
{
	struct memmap_opts opts = { .age = age, .seed = seed };
	struct memmap *mm;
	struct mix mix;

	test_mix(&mix);
	create_or_die(ops, &mm, TEST_NR_PFNS, &mix, &opts);
	return mm;
}

static bool same_caches(const struct layout_ops *a, const struct layout_ops *b)
{
	return !memcmp(a->desc_size, b->desc_size, sizeof(a->desc_size));
}

/* Pages of each kind (and free ones): what aging must keep, wherever it moves them. */
static void kind_pages(const struct layout_ops *ops, struct memmap *mm, unsigned long *n)
{
	struct page_info pi;
	unsigned long pfn;

	memset(n, 0, PK_NR * sizeof(*n));
	for (pfn = 0; pfn < TEST_NR_PFNS; pfn++) {
		ops->page_info(mm, pfn, &pi);
		n[pi.kind < PK_NR ? pi.kind : 0]++;
	}
}

/*
 * aged (the trace), fresh, fresh-ordered and aged-permute (the old churn)
 * on one layout: the same seed builds the same machine; another seed
 * another; fresh machines are not churned; the old churn keeps every pfn
 * as placed, the trace moves folios but keeps the pages of every kind;
 * adjacency from best to worst.
 */
static void test_layout(const struct layout_ops *ops)
{
	struct memmap *aged = build(ops, DESC_AGED, TEST_SEED), *again = build(ops, DESC_AGED, TEST_SEED);
	struct memmap *other = build(ops, DESC_AGED, SEED2);
	struct memmap *ordered = build(ops, DESC_FRESH_ORDERED, TEST_SEED);
	struct memmap *fresh = build(ops, DESC_FRESH, TEST_SEED);
	struct memmap *permuted = build(ops, DESC_AGED_PERMUTE, TEST_SEED);
	const struct memmap_obtained *a = &aged->obtained, *g = &again->obtained, *o = &other->obtained,
				     *f = &ordered->obtained, *r = &fresh->obtained,
				     *p = &permuted->obtained;
	unsigned long pfn, differ = 0, moved = 0, na[PK_NR], nf[PK_NR];
	struct page_info pa, pf, pp;

	CHECK(a->age_digest && a->age_digest == g->age_digest && a->desc_digest == g->desc_digest &&
	      a->desc_adjacency == g->desc_adjacency, "%s: the same seed, another machine", ops->name);
	CHECK(o->age_digest != a->age_digest, "%s: another seed, the same trace", ops->name);
	CHECK(!f->age_digest && !r->age_digest && p->age_digest && p->age_digest != a->age_digest,
	      "%s: fresh machines churned, or the two agings alike", ops->name);
	CHECK(!a->age_failures, "%s: %lu folios the trace could not place again", ops->name,
	      a->age_failures);
	for (pfn = 0; pfn < TEST_NR_PFNS; pfn++) {
		ops->page_info(permuted, pfn, &pp);
		ops->page_info(ordered, pfn, &pf);
		ops->page_info(aged, pfn, &pa);
		differ += !page_info_equal(&pp, &pf);
		moved += pa.kind != pf.kind || pa.head_pfn != pf.head_pfn;
	}
	CHECK(!differ, "%s: %lu pfns read differently after the old churn", ops->name, differ);
	kind_pages(ops, aged, na);
	kind_pages(ops, ordered, nf);
	CHECK(moved > TEST_NR_PFNS / 20 && !memcmp(na, nf, sizeof(na)),
	      "%s: the trace moved %lu pfns; pages per kind %s", ops->name, moved,
	      memcmp(na, nf, sizeof(na)) ? "differ" : "kept");
	if (!ops->desc_size[DESC_FOLIO]) {
		CHECK(a->desc_adjacency == -1 && f->desc_adjacency == -1 && !a->desc_digest,
		      "%s: adjacency without folio descriptors", ops->name);
	} else {
		CHECK(o->desc_digest != a->desc_digest && f->desc_digest != a->desc_digest,
		      "%s: the placement does not follow the seed and the age", ops->name);
		CHECK(f->desc_adjacency > 0.9 && r->desc_adjacency < f->desc_adjacency &&
		      a->desc_adjacency < 0.25 && p->desc_adjacency < 0.25 &&
		      p->desc_pairs == f->desc_pairs,
		      "%s: adjacency fresh-ordered %.3f, fresh %.3f, aged %.3f, permuted %.3f", ops->name,
		      f->desc_adjacency, r->desc_adjacency, a->desc_adjacency, p->desc_adjacency);
	}
	printf("%s: adjacency fresh-ordered %.4f, fresh %.4f, aged %.4f, aged-permute %.4f "
	       "(%lu pairs aged); trace %016llx\n", ops->name, f->desc_adjacency, r->desc_adjacency,
	       a->desc_adjacency, p->desc_adjacency, a->desc_pairs, (unsigned long long)a->age_digest);
	ops->memmap_destroy(aged);
	ops->memmap_destroy(again);
	ops->memmap_destroy(other);
	ops->memmap_destroy(ordered);
	ops->memmap_destroy(fresh);
	ops->memmap_destroy(permuted);
}

/* The churn's events are the plan's: one digest for every layout; alike caches, alike placement. */
static void test_across_layouts(void)
{
	const struct layout_ops *const *l, *const *m;

	for (l = mdb_layouts; *l; l++) {
		struct memmap *x = build(*l, DESC_AGED, TEST_SEED);

		for (m = l + 1; *m; m++) {
			struct memmap *y = build(*m, DESC_AGED, TEST_SEED);

			unsigned long pfn, differ = 0;
			struct page_info px, py;

			CHECK(x->obtained.age_digest == y->obtained.age_digest,
			      "%s and %s saw different traces", (*l)->name, (*m)->name);
			/* The trace moves folios alike in every layout: the same kind and head at every pfn. */
			for (pfn = 0; pfn < TEST_NR_PFNS; pfn++) {
				(*l)->page_info(x, pfn, &px);
				(*m)->page_info(y, pfn, &py);
				differ += px.kind != py.kind || px.head_pfn != py.head_pfn ||
					  px.order != py.order;
			}
			CHECK(!differ, "%s and %s: %lu pfns placed differently by the trace", (*l)->name,
			      (*m)->name, differ);
			if (layout_has_descriptors(*l) && same_caches(*l, *m))
				CHECK(x->obtained.desc_digest == y->obtained.desc_digest &&
				      x->obtained.desc_adjacency == y->obtained.desc_adjacency,
				      "%s and %s build their caches alike but place differently",
				      (*l)->name, (*m)->name);
			(*m)->memmap_destroy(y);
		}
		(*l)->memmap_destroy(x);
	}
}

int main(int argc, char **argv)
{
	const struct layout_ops *const *l;

	if (argc > 1)
		fixtures = argv[1];
	test_churn();
	test_trace();
	test_trace_mobility();
	test_replay_lifo();
	test_replay_compaction();
	test_replay_placed();
	test_replay_bad();
	test_replay_layouts();
	for (l = mdb_layouts; *l; l++)
		test_layout(*l);
	test_across_layouts();
	if (failures) {
		fprintf(stderr, "test_age: %d failures\n", failures);
		return 1;
	}
	printf("test_age: ok\n");
	return 0;
}
