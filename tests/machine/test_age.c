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
 *  - aged and fresh machines are the same machine (page_info of every pfn),
 *    and where descriptors are separate, fresh ones follow pfn order and
 *    aged ones do not (the adjacency measure).
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

static void test_layout(const struct layout_ops *ops)
{
	struct memmap *aged = build(ops, DESC_AGED, TEST_SEED), *again = build(ops, DESC_AGED, TEST_SEED);
	struct memmap *other = build(ops, DESC_AGED, SEED2), *fresh = build(ops, DESC_FRESH_ORDERED, TEST_SEED);
	const struct memmap_obtained *a = &aged->obtained, *g = &again->obtained, *o = &other->obtained,
				     *f = &fresh->obtained;
	struct page_info pa, pf;
	unsigned long pfn, differ = 0;

	CHECK(a->age_digest && a->age_digest == g->age_digest && a->desc_digest == g->desc_digest &&
	      a->desc_adjacency == g->desc_adjacency, "%s: the same seed, another machine", ops->name);
	CHECK(o->age_digest != a->age_digest, "%s: another seed, the same churn", ops->name);
	CHECK(!f->age_digest, "%s: a fresh machine was churned", ops->name);
	for (pfn = 0; pfn < TEST_NR_PFNS; pfn++) {
		ops->page_info(aged, pfn, &pa);
		ops->page_info(fresh, pfn, &pf);
		differ += !page_info_equal(&pa, &pf);
	}
	CHECK(!differ, "%s: %lu pfns read differently aged and fresh", ops->name, differ);
	if (!ops->desc_size[DESC_FOLIO]) {
		CHECK(a->desc_adjacency == -1 && f->desc_adjacency == -1 && !a->desc_digest,
		      "%s: adjacency without folio descriptors", ops->name);
	} else {
		CHECK(o->desc_digest != a->desc_digest && f->desc_digest != a->desc_digest,
		      "%s: the placement does not follow the seed and the age", ops->name);
		CHECK(f->desc_adjacency > 0.9 && a->desc_adjacency < 0.25 && a->desc_pairs == f->desc_pairs,
		      "%s: adjacency fresh %.3f, aged %.3f over %lu, %lu pairs", ops->name,
		      f->desc_adjacency, a->desc_adjacency, f->desc_pairs, a->desc_pairs);
	}
	printf("%s: adjacency fresh %.4f, aged %.4f (%lu pairs); churn %016llx\n", ops->name,
	       f->desc_adjacency, a->desc_adjacency, a->desc_pairs,
	       (unsigned long long)a->age_digest);
	ops->memmap_destroy(aged);
	ops->memmap_destroy(again);
	ops->memmap_destroy(other);
	ops->memmap_destroy(fresh);
}

/* The churn's events are the plan's: one digest for every layout; alike caches, alike placement. */
static void test_across_layouts(void)
{
	const struct layout_ops *const *l, *const *m;

	for (l = mdb_layouts; *l; l++) {
		struct memmap *x = build(*l, DESC_AGED, TEST_SEED);

		for (m = l + 1; *m; m++) {
			struct memmap *y = build(*m, DESC_AGED, TEST_SEED);

			CHECK(x->obtained.age_digest == y->obtained.age_digest,
			      "%s and %s saw different churns", (*l)->name, (*m)->name);
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
