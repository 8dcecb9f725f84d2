// SPDX-License-Identifier: GPL-2.0
/*
 * test_age_memo.c - the trace kept and replayed (machine/age_memo.c) is the
 * trace run: the same descriptor events in the same order, the same final
 * pfns, free blocks, ids, failures and digest as age_trace_run(), whether it
 * ran or was replayed; other inputs (seed, pfns, plan) run again; past
 * AGE_MEMO_ENTRIES traces the least recently used one is run again.
 */
#include <stdint.h>
#include <string.h>

#include "age_memo.h"
#include "mix.h"
#include "test_common.h"

#define PFNS	(1UL << 15)
#define SEED	0x5eedULL

/* Every descriptor event, in order. */
struct log {
	uint64_t *ev;
	size_t nr, cap;
};

static void log_add(struct log *l, uint64_t e)
{
	if (l->nr == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->ev = realloc(l->ev, l->cap * sizeof(*l->ev));
		if (!l->ev)
			abort();
	}
	l->ev[l->nr++] = e;
}

/* The kind too: a replay must take each descriptor from the anon or the file caches as the run did. */
static int log_alloc(void *arg, unsigned long id, unsigned int order, unsigned int kind)
{
	log_add(arg, (uint64_t)id << 16 | kind << 8 | order << 1 | 1);
	return 0;
}

static void log_free(void *arg, unsigned long id, unsigned int order, unsigned int kind)
{
	log_add(arg, (uint64_t)id << 16 | kind << 8 | order << 1);
}

/* Each 1 MiB: anon orders 0 and 3, file order 0, the rest free; every fourth an order-8 folio. */
static void plan(struct age_list *folios, struct age_list *blocks)
{
	for (unsigned long base = 0; base < PFNS; base += 256) {
		if ((base / 256) % 4 == 1) {
			age_list_add(folios, base, 8, PK_ANON);
			continue;
		}
		age_list_add(folios, base, 0, PK_ANON);
		age_list_add(folios, base + 1, 0, PK_FILE);
		age_list_add(blocks, base + 2, 1, PK_FREE);
		age_list_add(blocks, base + 4, 2, PK_FREE);
		age_list_add(folios, base + 8, 3, PK_ANON);
		for (unsigned int o = 4; o < 8; o++)
			age_list_add(blocks, base + (1UL << o), o, PK_FREE);
	}
}

struct outcome {
	struct log log;
	struct age_trace t;
};

static int run_how(bool memo, const struct age_list *f, const struct age_list *b,
		   unsigned long pfns, uint64_t seed, const struct age_trace_how *how,
		   struct outcome *o)
{
	const struct age_trace_ops ops = { log_alloc, log_free, &o->log };

	memset(o, 0, sizeof(*o));
	return memo ? age_trace_memo_run(f, b, pfns, seed, how, &ops, &o->t) :
		      age_trace_run(f, b, pfns, seed, how, &ops, &o->t);
}

static int run(bool memo, const struct age_list *f, const struct age_list *b, unsigned long pfns,
	       uint64_t seed, struct outcome *o)
{
	return run_how(memo, f, b, pfns, seed, NULL, o);
}

static void release(struct outcome *o)
{
	free(o->log.ev);
	age_trace_release(&o->t);
}

static void check_same(const struct outcome *a, const struct outcome *b, size_t nr, const char *what)
{
	CHECK(a->log.nr == b->log.nr && !memcmp(a->log.ev, b->log.ev, a->log.nr * sizeof(uint64_t)),
	      "%s: events differ (%zu and %zu)", what, a->log.nr, b->log.nr);
	CHECK(a->t.nr_final == nr && b->t.nr_final == nr &&
	      !memcmp(a->t.final, b->t.final, nr * sizeof(*a->t.final)) &&
	      !memcmp(a->t.final_desc, b->t.final_desc, nr * sizeof(*a->t.final_desc)),
	      "%s: final pfns or descriptors differ", what);
	CHECK(a->t.free.nr == b->t.free.nr &&
	      !memcmp(a->t.free.f, b->t.free.f, a->t.free.nr * sizeof(*a->t.free.f)),
	      "%s: free blocks differ (%zu and %zu)", what, a->t.free.nr, b->t.free.nr);
	CHECK(a->t.nr_ids == b->t.nr_ids && a->t.failures == b->t.failures &&
	      a->t.compactions == b->t.compactions && a->t.migrated == b->t.migrated &&
	      a->t.digest == b->t.digest, "%s: ids %lu/%lu, failures %lu/%lu, digests differ",
	      what, a->t.nr_ids, b->t.nr_ids, a->t.failures, b->t.failures);
}

int main(void)
{
	struct age_list folios = { 0 }, blocks = { 0 }, fewer = { 0 };
	struct outcome ref, ran, replayed, other;
	unsigned long runs;

	plan(&folios, &blocks);
	CHECK(!run(false, &folios, &blocks, PFNS, SEED, &ref), "age_trace_run");
	CHECK(ref.log.nr > 2 * folios.nr, "a trace of %zu events over %zu folios", ref.log.nr, folios.nr);

	runs = age_memo_runs();
	CHECK(!run(true, &folios, &blocks, PFNS, SEED, &ran), "the first memo run");
	CHECK(age_memo_runs() == runs + 1, "the first call did not run the trace");
	check_same(&ref, &ran, folios.nr, "run");
	CHECK(!run(true, &folios, &blocks, PFNS, SEED, &replayed), "the replay");
	CHECK(age_memo_runs() == runs + 1, "the same inputs ran the trace again");
	check_same(&ref, &replayed, folios.nr, "replayed");
	release(&ran);
	release(&replayed);

	/* Another seed, another pfn count, another plan: each runs, none is the first's. */
	CHECK(!run(true, &folios, &blocks, PFNS, SEED + 1, &other) && age_memo_runs() == runs + 2,
	      "another seed");
	CHECK(other.t.digest != ref.t.digest, "another seed replayed the first trace");
	release(&other);
	CHECK(!run(true, &folios, &blocks, PFNS * 2, SEED, &other) && age_memo_runs() == runs + 3,
	      "another pfn count");
	release(&other);
	for (size_t i = 0; i + 1 < folios.nr; i++)
		age_list_add(&fewer, folios.f[i].pfn, folios.f[i].order, folios.f[i].kind);
	CHECK(!run(true, &fewer, &blocks, PFNS, SEED, &other) && age_memo_runs() == runs + 4,
	      "a plan with one folio less");
	release(&other);

	/* A fifth trace evicts the least recently used: the first. */
	CHECK(!run(true, &folios, &blocks, PFNS, SEED + 2, &other) && age_memo_runs() == runs + 5,
	      "a fifth trace");
	release(&other);
	CHECK(!run(true, &folios, &blocks, PFNS, SEED, &ran) && age_memo_runs() == runs + 6,
	      "the least recently used trace was kept past %d", AGE_MEMO_ENTRIES);
	check_same(&ref, &ran, folios.nr, "run after eviction");
	release(&ran);

	age_memo_release();
	CHECK(!run(true, &folios, &blocks, PFNS, SEED, &ran) && age_memo_runs() == runs + 7,
	      "a released memo replayed");
	release(&ran);

	/* Compaction off is another trace: run, then replayed as run without the memo. */
	release(&ref);
	CHECK(!run_how(false, &folios, &blocks, PFNS, SEED, &(struct age_trace_how){ .no_compaction = true },
		       &ref), "age_trace_run without compaction");
	CHECK(!run_how(true, &folios, &blocks, PFNS, SEED, &(struct age_trace_how){ .no_compaction = true },
		       &ran) && age_memo_runs() == runs + 8, "compaction off replayed the trace with it");
	CHECK(!run_how(true, &folios, &blocks, PFNS, SEED, &(struct age_trace_how){ .no_compaction = true },
		       &replayed) && age_memo_runs() == runs + 8, "compaction off ran again");
	check_same(&ref, &replayed, folios.nr, "replayed without compaction");
	release(&ran);
	release(&replayed);
	age_memo_release();
	release(&ref);
	age_list_release(&folios);
	age_list_release(&blocks);
	age_list_release(&fewer);
	return test_done("age_memo");
}
