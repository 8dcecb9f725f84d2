// SPDX-License-Identifier: GPL-2.0
/*
 * pfn_list.c - the shuffled pfn arrays random kernels walk (see bench.h).
 * Layout independent: compiled once, works through layout_ops.page_info().
 */
#include <stdio.h>
#include <stdlib.h>

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
int pfn_list_random(struct pfn_list *list, const struct bench_env *env, enum pfn_select select,
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

bool bench_random_list(struct mdb_state *st, struct pfn_list *list, const struct bench_env *env,
		       enum pfn_select select, const char *kernel, const char *empty)
{
	char msg[160];

	if (pfn_list_random(list, env, select, BENCH_LIST_MAX)) {
		snprintf(msg, sizeof(msg), "%s: out of memory for the pfn list", kernel);
		mdb_skip_with_error(st, msg);
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

int pfn_list_folio_heads(struct pfn_list *list, const struct bench_env *env, unsigned int order,
			 unsigned long max)
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
		if ((info.kind == PK_ANON || info.kind == PK_FILE) && info.order == order)
			list->pfn[list->nr++] = (uint32_t)pfn;
		if (info.head_pfn != pfn)	/* not a block head: step to the next pfn */
			info.order = 0;
	}
	shuffle(list->pfn, list->nr, &rng);
	if (list->nr > max)
		list->nr = max;
	return 0;
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
