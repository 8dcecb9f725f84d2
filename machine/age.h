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
	DESC_AGED,		/* after the churn: the default */
	DESC_FRESH,		/* straight after placement, freelists randomised as kernels ship */
	DESC_FRESH_ORDERED,	/* straight after placement, objects in address order: the
				   unreachable best case (no distribution turns off
				   CONFIG_SLAB_FREELIST_RANDOM) */
	DESC_AGE_NR
};

/* "aged", "fresh", "fresh-ordered"; and back, -1 for anything else. */
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

#endif /* MDB_AGE_H */
