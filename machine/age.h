/* SPDX-License-Identifier: GPL-2.0 */
/*
 * age.h - a machine that has run for a while: the descriptor churn.
 *
 * A freshly placed mix allocates its descriptors pfn by pfn from empty
 * caches, so neighbouring folios have neighbouring descriptors, the best
 * case a prefetcher can ask for.  A machine that has run for days has freed
 * and allocated its folios over and over: each folio's descriptor is
 * whatever object the cache's freelists held when that folio was last
 * allocated, which has nothing to do with its pfn.  DESC_AGED reaches such
 * a state the way a machine does, by allocating and freeing: AGE_ROUNDS
 * rounds, each of which frees the descriptors of a random half of the
 * folios in random order, then allocates them again in another random order
 * interleaved with short-lived folios (a quarter as many, of the mix's
 * orders: page cache read once, a compiler's heap) that are freed at the
 * end of the round.  The machine itself does not change: every folio keeps
 * its pfns, kind and order, so every layout and both states describe the
 * same memory; only where the descriptors lie differs.
 *
 * The churn is driven from the mix's placement plan and the seed, never from
 * a layout's state: every layout sees the same events (the same pfns, in the
 * same order), and their digest says so.  Layout independent: compiled once.
 */
#ifndef MDB_AGE_H
#define MDB_AGE_H

#include <stddef.h>
#include <stdint.h>

#define AGE_ROUNDS		4
#define AGE_FRACTION_DEN	2	/* each round churns 1/2 of the folios */
#define AGE_TRANSIENT_DEN	4	/* and 1/4 as many short-lived folios */

enum desc_age {
	DESC_AGED,		/* after the allocation trace (age_trace_run()): the default */
	DESC_FRESH,		/* straight after placement, freelists randomised as kernels ship */
	DESC_FRESH_ORDERED,	/* straight after placement, objects in address order: the
				   unreachable best case (no distribution turns off
				   CONFIG_SLAB_FREELIST_RANDOM) */
	DESC_AGED_PERMUTE,	/* the old aging: the churn of descriptors, pfns fixed (age_churn()) */
	DESC_AGE_NR
};

/* "aged", "fresh", "fresh-ordered", "aged-permute"; and back, -1 for anything else. */
const char *desc_age_name(enum desc_age age);
int desc_age_from_name(const char *name);

/* A placed folio, as the plan placed it. */
struct age_folio {
	uint32_t pfn;
	uint8_t order;
	uint8_t kind;		/* enum page_kind */
};

struct age_list {
	struct age_folio *f;
	size_t nr, cap;
};

/* 0, or -1 when out of memory. */
int age_list_add(struct age_list *l, unsigned long pfn, unsigned int order, unsigned int kind);
void age_list_release(struct age_list *l);

/* What the churn does to a layout's memmap. */
struct age_ops {
	/* Free the folio's descriptor; its pages hold no folio until recreate. */
	void (*release)(void *arg, const struct age_folio *f);
	/* A new descriptor for the same pfns, as freshly created; 0 or -1 (out of memory). */
	int (*recreate)(void *arg, const struct age_folio *f);
	/* A descriptor for a short-lived folio of this order; NULL if the layout has none. */
	void *(*transient_alloc)(void *arg, unsigned int order);
	void (*transient_free)(void *arg, void *desc, unsigned int order);
	void *arg;
};

/*
 * The churn over the folios of l, from seed.  *digest: a hash of every event
 * (kind, pfn, order) in order, the same for every layout given the same
 * list and seed.  0, or -1 when a recreate or the churn's own arrays ran
 * out of memory.
 */
int age_churn(const struct age_list *l, uint64_t seed, const struct age_ops *ops,
	      uint64_t *digest);

/*
 * The allocation trace (DESC_AGED).  The machine boots as the plan placed
 * it, then runs AGE_ROUNDS rounds as age_churn() does, but every folio
 * freed gives its pfns back to a buddy allocator of the trace's own (one
 * zone, one CPU's per-cpu lists: __free_one_page()'s merging, pcp lists
 * that are LIFO and spill a batch from their cold end, rmqueue_bulk()
 * refills, __rmqueue_smallest() and expand()), and every folio allocated
 * takes its pfns from it: the folios move, and their descriptors come from
 * the same events.  Hugetlb folios and the other kinds stay where the plan
 * put them.  Layout independent: the events, the pfns and the digest are
 * the same for every layout; a layout replays the descriptor events on its
 * caches (ops) and places the folios at their final pfns.
 */
#define AGE_GONE	0xff	/* kind of a folio the buddy could not place again */

struct age_trace_ops {
	/* Descriptor of folio (or short-lived folio) id, of this order: 0, or -1 out of memory. */
	int (*desc_alloc)(void *arg, unsigned long id, unsigned int order);
	void (*desc_free)(void *arg, unsigned long id, unsigned int order);
	void *arg;
};

struct age_trace {
	struct age_folio *final;	/* folio i of the list: where it ended (kind AGE_GONE: nowhere) */
	struct age_list free;		/* the free blocks at the end, pfn order */
	unsigned long nr_ids;		/* ids handed to desc_alloc: folios, then short-lived ones */
	unsigned long failures;		/* folios the buddy could not place again */
	uint64_t digest;		/* of every event: the same for every layout */
};

/*
 * Runs the trace over the plan's folios (ids 0..nr-1, churned) and free
 * blocks on nr_pfns pfns.  0, or -1 out of memory (t then still to release).
 */
/* The most ids a trace of nr folios hands out. */
static inline unsigned long age_trace_max_ids(size_t nr)
{
	return nr + (unsigned long)AGE_ROUNDS * (nr / AGE_FRACTION_DEN / AGE_TRANSIENT_DEN);
}

int age_trace_run(const struct age_list *folios, const struct age_list *free_blocks,
		  unsigned long nr_pfns, uint64_t seed, const struct age_trace_ops *ops,
		  struct age_trace *t);
void age_trace_release(struct age_trace *t);

#endif /* MDB_AGE_H */
