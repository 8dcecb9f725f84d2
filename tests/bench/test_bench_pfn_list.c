// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_pfn_list.c - pfn_list_random() (bench/pfn_list.c) keeps its
 * last draw: a second draw of the same (memmap, selection, cap, seed) is the
 * same list, a copy the caller may change, and a draw of anything else is
 * drawn anew.  On every layout, 64 MiB of the desktop and server mixes (16384 pfns, below
 * BENCH_LIST_MAX: the list is a permutation of every pfn the selection
 * picks), each list checked against the pfns page_info() says it picks;
 * memmap serials are never reused, not even by a build at a freed one's
 * address.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "test_common.h"

#define NR_PFNS		(64UL << 20 >> MDB_PAGE_SHIFT)

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Whether list holds each folio tail of the memmap once, in any order. */
static bool all_tails(const struct bench_env *env, const struct pfn_list *list)
{
	uint32_t *sorted = malloc(list->nr * sizeof(*sorted) + 1);
	struct page_info info;
	unsigned long pfn, n = 0;
	bool ok = true;

	memcpy(sorted, list->pfn, list->nr * sizeof(*sorted));
	qsort(sorted, list->nr, sizeof(*sorted), cmp_u32);
	for (pfn = 0; pfn < env->nr_pfns && ok; pfn++) {
		env->ops->page_info(env->mm, pfn, &info);
		if (page_kind_is_folio(info.kind) && info.order && info.head_pfn != pfn)
			ok = n < list->nr && sorted[n++] == pfn;
	}
	free(sorted);
	return ok && n == list->nr;
}

static bool same(const struct pfn_list *a, const struct pfn_list *b)
{
	return a->nr == b->nr && !memcmp(a->pfn, b->pfn, a->nr * sizeof(*a->pfn));
}

static int build(struct bench_env *env, const struct layout_ops *ops, const struct mix *mix,
		 uint64_t seed)
{
	static struct memmap_opts opts;
	struct mdb_err err;

	opts = (struct memmap_opts){ .seed = seed, .age = DESC_AGED };
	memset(env, 0, sizeof(*env));
	env->ops = ops;
	env->mix = mix;
	env->nr_pfns = NR_PFNS;
	env->opts = &opts;
	env->seed = seed;
	env->threads = 1;
	if (ops->memmap_create(&env->mm, NR_PFNS, mix, &opts, &err)) {
		CHECK(0, "%s: %s", ops->name, err.msg);
		return -1;
	}
	return 0;
}

static void test_layout(const struct layout_ops *ops, const struct mix *mix, const struct mix *mix2)
{
	struct pfn_list first, again, other, back, sampled;
	struct bench_env a, b;
	uint64_t serial_a;

	if (build(&a, ops, mix, 1))
		return;
	serial_a = a.mm->serial;
	CHECK(!pfn_list_random(&first, &a, SELECT_FOLIO_TAIL, BENCH_LIST_MAX) && first.nr,
	      "%s: no folio tail drawn", ops->name);
	CHECK(all_tails(&a, &first), "%s: the first draw is not every folio tail once", ops->name);
	CHECK(!pfn_list_random(&again, &a, SELECT_FOLIO_TAIL, BENCH_LIST_MAX) && same(&first, &again),
	      "%s: the second draw differs from the first", ops->name);
	CHECK(again.pfn != first.pfn, "%s: the second draw shares the first's array", ops->name);
	again.pfn[0] ^= 1;	/* the caller's copy: the kept list must not change */
	pfn_list_release(&again);
	CHECK(!pfn_list_random(&again, &a, SELECT_FOLIO_TAIL, BENCH_LIST_MAX) && same(&first, &again),
	      "%s: a caller's change reached the kept list", ops->name);
	pfn_list_release(&again);

	/* Another cap: drawn with repetition, max of them. */
	CHECK(!pfn_list_random(&sampled, &a, SELECT_FOLIO_TAIL, 100) && sampled.nr == 100,
	      "%s: a cap of 100 gave %lu", ops->name, sampled.nr);
	pfn_list_release(&sampled);

	/*
	 * Another memmap, the same seed and size (only its serial tells it
	 * from the first): drawn anew, then the first rebuilt draws its list.
	 */
	ops->memmap_destroy(a.mm);
	if (build(&b, ops, mix2, 1))
		goto out;
	CHECK(b.mm->serial != serial_a, "%s: a new build has the freed one's serial %llu", ops->name,
	      (unsigned long long)serial_a);
	CHECK(!pfn_list_random(&other, &b, SELECT_FOLIO_TAIL, BENCH_LIST_MAX) && all_tails(&b, &other),
	      "%s: the other memmap's draw is not its own tails", ops->name);
	CHECK(!same(&first, &other), "%s: the server mix's list is the desktop's", ops->name);
	pfn_list_release(&other);
	ops->memmap_destroy(b.mm);
	if (build(&a, ops, mix, 1))
		goto out;
	CHECK(!pfn_list_random(&back, &a, SELECT_FOLIO_TAIL, BENCH_LIST_MAX) && same(&first, &back),
	      "%s: the desktop memmap rebuilt draws another list", ops->name);
	pfn_list_release(&back);
	ops->memmap_destroy(a.mm);
out:
	pfn_list_release(&first);
}

int main(void)
{
	struct mdb_err err;
	struct mix mix, mix2;
	unsigned int l;

	if (mix_builtin("desktop", &mix, &err) || mix_builtin("server", &mix2, &err)) {
		CHECK(0, "desktop, server: %s", err.msg);
		return 1;
	}
	for (l = 0; mdb_layouts[l]; l++)
		test_layout(mdb_layouts[l], &mix, &mix2);
	if (failures)
		fprintf(stderr, "test_bench_pfn_list: %d checks failed\n", failures);
	else
		printf("test_bench_pfn_list: every layout's draws kept and copied\n");
	return failures != 0;
}
