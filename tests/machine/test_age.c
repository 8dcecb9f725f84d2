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

static void *fake_alloc(void *arg, unsigned int order)
{
	struct recorder *r = arg;

	rec(r, 3000000 + order);
	return (void *)(uintptr_t)++r->transients;
}

static void fake_free(void *arg, void *desc, unsigned int order)
{
	struct recorder *r = arg;

	(void)desc;
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
	unsigned long allocs, frees, bad;
};

static int rec_alloc(void *arg, unsigned long id, unsigned int order)
{
	struct trace_rec *r = arg;

	(void)order;
	r->bad += r->live[id];
	r->live[id] = 1;
	r->allocs++;
	return 0;
}

static void rec_free(void *arg, unsigned long id, unsigned int order)
{
	struct trace_rec *r = arg;

	(void)order;
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
	r.live = calloc(age_trace_max_ids(folios.nr), 1);
	q.live = calloc(age_trace_max_ids(folios.nr), 1);
	CHECK(!age_trace_run(&folios, &blocks, TRACE_PFNS, TEST_SEED,
			     &(struct age_trace_ops){ rec_alloc, rec_free, &r }, &t) &&
	      !age_trace_run(&folios, &blocks, TRACE_PFNS, TEST_SEED,
			     &(struct age_trace_ops){ rec_alloc, rec_free, &q }, &u), "age_trace_run");
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

int main(void)
{
	const struct layout_ops *const *l;

	test_churn();
	test_trace();
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
