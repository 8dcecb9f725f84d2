// SPDX-License-Identifier: GPL-2.0
/*
 * pfn_list.c - the shuffled pfn arrays random kernels walk (see bench.h).
 * Layout independent: compiled once, works through layout_ops.page_info().
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static bool pfn_selected(const struct bench_env *env, unsigned long pfn, enum pfn_select select)
{
	struct page_info info;
	bool folio, tail;

	if (select == SELECT_ANY)
		return true;
	env->ops->page_info(env->mm, pfn, &info);
	folio = page_kind_is_folio(info.kind);
	tail = folio && info.order > 0 && info.head_pfn != pfn;
	switch (select) {
	case SELECT_FOLIO_PAGE:
		return folio;
	case SELECT_HUGETLB_PAGE:
		return info.kind == PK_HUGETLB;
	case SELECT_HUGETLB_TAIL_2M:
		return tail && info.kind == PK_HUGETLB && info.order == HUGETLB_ORDER_PMD;
	case SELECT_HUGETLB_TAIL_1G:
		return tail && info.kind == PK_HUGETLB && info.order == HUGETLB_ORDER_PUD;
	default:
		return tail;
	}
}

static void shuffle(uint32_t *a, unsigned long n, uint64_t *rng)
{
	unsigned long i, j;
	uint32_t t;

	for (i = n; i > 1; i--) {
		j = mdb_rng_below(rng, i);
		t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/*
 * Collects every matching pfn, then either shuffles them all or draws max of
 * them.  The full set costs 4 bytes a pfn only during set-up.
 */
static int draw_random(struct pfn_list *list, const struct bench_env *env, enum pfn_select select,
		       unsigned long max)
{
	uint64_t rng = env->seed ^ (0x6c697374ULL + select);
	unsigned long pfn, nr = 0, i;
	uint32_t *all;

	list->pfn = NULL;
	list->nr = 0;
	all = malloc(env->nr_pfns * sizeof(*all) + 1);
	if (!all)
		return -1;
	for (pfn = 0; pfn < env->nr_pfns; pfn++)
		if (pfn_selected(env, pfn, select))
			all[nr++] = (uint32_t)pfn;
	if (nr <= max) {
		shuffle(all, nr, &rng);
		list->pfn = all;
		list->nr = nr;
		return 0;
	}
	list->pfn = malloc(max * sizeof(*list->pfn));
	if (!list->pfn) {
		free(all);
		return -1;
	}
	for (i = 0; i < max; i++)
		list->pfn[i] = all[mdb_rng_below(&rng, nr)];
	list->nr = max;
	free(all);
	return 0;
}

/*
 * Google Benchmark calls a kernel several times an instance (one iteration,
 * then more until its min time) and each call draws its list again: at
 * 16 GiB a draw reads 4M pfns' page_info(), a few tenths of a second, more
 * than the timed loop takes.  The lists drawn are kept with what each was
 * drawn from (the memmap's serial, which no other build reuses, its size,
 * the selection, the cap, the seed) and the same draw again gets a copy:
 * the same pfns in the same order, without the walk.  A round's layouts run
 * interleaved, a call on each in turn, so KEPT_LISTS are kept (a group's
 * layouts and twin), the least recently used given up for a new draw.  A
 * kernel that changes its memmap gets a new build, so a new serial, for
 * every call.
 */
#define KEPT_LISTS	8

struct kept_list {
	uint64_t serial, seed, used;
	unsigned long nr_pfns, max;
	enum pfn_select select;
	struct pfn_list list;		/* pfn NULL: none kept */
};

static struct {
	pthread_mutex_t lock;
	uint64_t clock;
	struct kept_list k[KEPT_LISTS];
} kept = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool kept_matches(const struct kept_list *k, const struct bench_env *env,
			 enum pfn_select select, unsigned long max)
{
	return k->list.pfn && k->serial == env->mm->serial && k->nr_pfns == env->nr_pfns &&
	       k->seed == env->seed && k->select == select && k->max == max;
}

/* The kept draw of env's list, drawn now if none is kept; NULL when out of memory. */
static const struct pfn_list *kept_draw(const struct bench_env *env, enum pfn_select select,
					unsigned long max)
{
	struct kept_list *k, *lru = &kept.k[0];

	kept.clock++;
	for (k = kept.k; k < kept.k + KEPT_LISTS; k++) {
		if (kept_matches(k, env, select, max)) {
			k->used = kept.clock;
			return &k->list;
		}
		if (k->used < lru->used)
			lru = k;
	}
	pfn_list_release(&lru->list);
	lru->used = 0;
	if (draw_random(&lru->list, env, select, max))
		return NULL;
	*lru = (struct kept_list){ .serial = env->mm->serial, .seed = env->seed,
				   .used = kept.clock, .nr_pfns = env->nr_pfns, .max = max,
				   .select = select, .list = lru->list };
	return &lru->list;
}

/* A copy of the list into list; -1 when out of memory. */
static int copy_list(struct pfn_list *list, const struct pfn_list *from)
{
	list->pfn = malloc(from->nr * sizeof(*list->pfn) + 1);
	if (!list->pfn)
		return -1;
	memcpy(list->pfn, from->pfn, from->nr * sizeof(*list->pfn));
	list->nr = from->nr;
	return 0;
}

int pfn_list_random(struct pfn_list *list, const struct bench_env *env, enum pfn_select select,
		    unsigned long max)
{
	const struct pfn_list *from;
	int ret;

	pthread_mutex_lock(&kept.lock);
	from = kept_draw(env, select, max);
	ret = from ? copy_list(list, from) : -1;
	pthread_mutex_unlock(&kept.lock);
	if (ret) {
		list->pfn = NULL;
		list->nr = 0;
	}
	return ret;
}

unsigned long bench_list_first(const struct pfn_list *list)
{
	static _Atomic uint64_t runs;
	uint64_t state = atomic_fetch_add_explicit(&runs, 1, memory_order_relaxed);

	return list->nr ? mdb_rng_below(&state, list->nr) : 0;
}

bool bench_random_list(struct mdb_state *st, struct pfn_list *list, const struct bench_env *env,
		       enum pfn_select select, const char *kernel, const char *empty)
{
	char msg[160];

	if (pfn_list_random(list, env, select, BENCH_LIST_MAX)) {
		snprintf(msg, sizeof(msg), "%s: out of memory for the pfn list", kernel);
		mdb_skip_with_error(st, msg);
		return false;
	}
	if (!list->nr && env->mix->placed) {
		/* A snapshot keeps its pfns: a RAM size below the machine's sees only its lowest. */
		snprintf(msg, sizeof(msg), "%s: %s in the snapshot's first %lu MiB of pfns "
			 "(--ram=<the machine's RAM> models all of them)", kernel, empty,
			 env->nr_pfns >> (20 - MDB_PAGE_SHIFT));
		mdb_skip_with_error(st, msg);
		pfn_list_release(list);
		return false;
	}
	if (!list->nr) {
		snprintf(msg, sizeof(msg), "%s: %s", kernel, empty);
		mdb_skip_with_error(st, msg);
		pfn_list_release(list);
		return false;
	}
	return true;
}

/* Heads of the folios of this order whose kind is hugetlb, or anon and file. */
static int list_heads(struct pfn_list *list, const struct bench_env *env, unsigned int order,
		      unsigned long max, bool hugetlb)
{
	uint64_t rng = env->seed ^ (0x68656164ULL + order);
	struct page_info info;
	unsigned long pfn;

	list->nr = 0;
	list->pfn = malloc((env->nr_pfns >> order) * sizeof(*list->pfn) + 1);
	if (!list->pfn)
		return -1;
	for (pfn = 0; pfn < env->nr_pfns; pfn += 1UL << info.order) {
		env->ops->page_info(env->mm, pfn, &info);
		if ((hugetlb ? info.kind == PK_HUGETLB : info.kind == PK_ANON || info.kind == PK_FILE) &&
		    info.order == order && info.head_pfn == pfn)
			list->pfn[list->nr++] = (uint32_t)pfn;
		if (info.head_pfn != pfn)	/* not a block head: step to the next pfn */
			info.order = 0;
	}
	shuffle(list->pfn, list->nr, &rng);
	if (list->nr > max)
		list->nr = max;
	return 0;
}

int pfn_list_folio_heads(struct pfn_list *list, const struct bench_env *env, unsigned int order,
			 unsigned long max)
{
	return list_heads(list, env, order, max, false);
}

int pfn_list_hugetlb_heads(struct pfn_list *list, const struct bench_env *env, unsigned int order,
			   unsigned long max)
{
	return list_heads(list, env, order, max, true);
}

static volatile unsigned long bench_zero;

unsigned long bench_opaque_zero(void)
{
	return bench_zero;
}

void pfn_list_release(struct pfn_list *list)
{
	free(list->pfn);
	list->pfn = NULL;
	list->nr = 0;
}
