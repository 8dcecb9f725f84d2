// SPDX-License-Identifier: GPL-2.0
/*
 * migrate.c - moving a folio to other pfns, as migrate_pages() does for
 * compaction, NUMA balancing or memory offlining.
 *
 * Per folio: take a destination block (the allocation callback), set up its
 * memmap and, where the layout has one, a new descriptor; carry the folio's
 * state across (folio_migrate_flags()/folio_migrate_mapping(), the
 * page-cache or anon mapping and index, the counts); repoint every memdesc;
 * free the old block and its descriptor.  Data is not copied: the modelled
 * RAM has no contents, so this is the metadata cost only.
 *
 * The folios are the mix's own of that order, in random order; when the mix
 * has none, set-up allocates some.  Each migration frees the block the next
 * one can take, so the free pool neither grows nor shrinks.
 */
#include <stdio.h>

#include "bench.h"

#define MIGRATE_BATCH		16
#define MIGRATE_SETUP_MAX	1024	/* folios set-up allocates when the mix has none */

/* Allocates folios of this order, leaving one block free as a destination. */
static int migrate_alloc_folios(struct pfn_list *list, const struct bench_env *env,
				unsigned int order)
{
	unsigned long max = env->nr_pfns >> order;	/* the list holds that many */
	long pfn;

	if (max > MIGRATE_SETUP_MAX)
		max = MIGRATE_SETUP_MAX;
	while (list->nr < max) {
		pfn = env->ops->folio_alloc(env->mm, order, PK_ANON);
		if (pfn < 0)
			break;
		list->pfn[list->nr++] = (uint32_t)pfn;
	}
	if (list->nr < 2)
		return -1;
	env->ops->folio_free(env->mm, list->pfn[--list->nr]);
	return 0;
}

static int migrate_setup(struct mdb_state *st, struct pfn_list *list,
			 const struct bench_env *env, unsigned int order)
{
	char msg[160];
	long pfn;

	if (pfn_list_folio_heads(list, env, order, BENCH_LIST_MAX)) {
		mdb_skip_with_error(st, "migrate: out of memory for the folio list");
		return -1;
	}
	if (!list->nr && migrate_alloc_folios(list, env, order)) {
		snprintf(msg, sizeof(msg), "migrate/order%u: the mix has no folio of order %u "
			 "and too few free blocks to allocate one and move it", order, order);
		goto fail;
	}
	/* One untimed move proves there is somewhere to move to. */
	pfn = env->ops->folio_migrate(env->mm, list->pfn[0]);
	if (pfn < 0) {
		snprintf(msg, sizeof(msg), "migrate/order%u: no free block of order %u "
			 "to migrate to", order, order);
		goto fail;
	}
	list->pfn[0] = (uint32_t)pfn;
	return 0;
fail:
	mdb_skip_with_error(st, msg);
	pfn_list_release(list);
	return -1;
}

static void migrate_folios(struct mdb_state *st, const struct bench_env *env, unsigned int order)
{
	struct pfn_list list;
	unsigned long next = 0, i;
	long pfn;

	if (migrate_setup(st, &list, env, order))
		return;
	while (mdb_keep_running_batch(st, MIGRATE_BATCH)) {
		for (i = 0; i < MIGRATE_BATCH; i++) {
			pfn = env->ops->folio_migrate(env->mm, list.pfn[next]);
			if (pfn < 0)
				break;
			list.pfn[next] = (uint32_t)pfn;
			if (++next == list.nr)
				next = 0;
		}
		if (pfn < 0) {
			mdb_skip_with_error(st, "migrate: ran out of destination blocks");
			pfn_list_release(&list);
			return;
		}
	}
	mdb_set_items_processed(st, mdb_iterations(st));
	pfn_list_release(&list);
}

static void migrate_order0(struct mdb_state *st, const struct bench_env *env)
{
	migrate_folios(st, env, 0);
}

static void migrate_order9(struct mdb_state *st, const struct bench_env *env)
{
	migrate_folios(st, env, 9);
}

MDB_KERNEL(migrate_order0,
	   .name = "migrate/order0", .class = MDB_MUTATING, .unit = "migration",
	   .run = migrate_order0,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 14);

MDB_KERNEL(migrate_order9,
	   .name = "migrate/order9", .class = MDB_MUTATING, .unit = "migration",
	   .run = migrate_order9,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 10);
