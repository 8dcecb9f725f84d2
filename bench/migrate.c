// SPDX-License-Identifier: GPL-2.0
/*
 * migrate.c - moving a folio to other pfns, as migrate_pages() does for
 * compaction, NUMA balancing or memory offlining.
 *
 * Per folio: take a destination block (the allocation callback), set up its
 * memmap and, where the layout has one, a new descriptor; carry the folio's
 * state across (folio_migrate_flags()/folio_migrate_mapping(), the
 * page-cache or anon mapping and index, the counts); repoint every memdesc;
 * free the old block and its descriptor (ops->folio_migrate()).
 *
 * migrate/orderN is that metadata alone (N in 4 KiB pages: order9 is a 2 MiB
 * folio, order 5 at --base-page=64k, mix_order_from_4k()).  migrate/orderN-copy also copies
 * the folio's data, as migrate_folio() -> __migrate_folio() does with
 * folio_mc_copy() (copy_mc_highpage() page by page; here copy_page(), the
 * same rep movs without the machine-check fixups; data.h), and reports the
 * metadata's share of the whole as alloc/orderN-zero does (metadata_share =
 * metadata_ns / full_ns, both timed alternately in the same run).  The copy
 * follows the metadata move instead of sitting inside it (the kernel copies
 * after taking the destination and before carrying the state over): in a
 * stream of migrations one copy still falls between every two metadata
 * moves, evicting what the next one reads.  Left out: unmapping and
 * remapping (try_to_migrate(), remove_migration_ptes(): the rmap walks),
 * the folio lock, the LRU and the page cache's xarray.
 *
 * The folios are the mix's own of that order, in random order; when the mix
 * has none, set-up allocates some.  Each migration frees the block the next
 * one can take, so the free pool neither grows nor shrinks.
 */
#include <stdio.h>

#include "bench.h"
#include "data.h"
#include "ref.h"

#define MIGRATE_BATCH		16
#define MIGRATE_SHARE_OF	"folio_migrate() (destination from the pcp, descriptor, state carried, old block freed) and copy_page() of the data; not in it: the rmap walks that unmap and remap (try_to_migrate(), remove_migration_ptes()) and their TLB flushes, the folio lock, the LRU and the page cache xarray, the memcg move"
#define MIGRATE_SETUP_MAX	1024	/* folios set-up allocates when the mix has none */

struct migrate_walk {
	struct memmap *mm;
	const struct layout_ops *ops;
	unsigned int order;
	struct pfn_list list;			/* the folios' head pfns */
	unsigned long next;
	struct bench_data data;			/* buf NULL: metadata only */
};

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

/* One migration of the next folio, its data copied when data is given; false: no block. */
static bool migrate_one(struct migrate_walk *w, const struct bench_data *data)
{
	unsigned long old = w->list.pfn[w->next];
	long pfn = w->ops->folio_migrate(w->mm, old);

	if (pfn < 0)
		return false;
	if (data)
		bench_data_copy(data, (unsigned long)pfn, old, w->order);
	w->list.pfn[w->next] = (uint32_t)pfn;
	w->next = bench_list_next(&w->list, w->next);
	return true;
}

static int migrate_setup(struct mdb_state *st, struct migrate_walk *w, const struct bench_env *env)
{
	unsigned int order = w->order;
	char msg[160];

	if (pfn_list_folio_heads(&w->list, env, order, BENCH_LIST_MAX)) {
		mdb_skip_with_error(st, "migrate: out of memory for the folio list");
		return -1;
	}
	if (!w->list.nr && migrate_alloc_folios(&w->list, env, order)) {
		snprintf(msg, sizeof(msg), "migrate/order%u: the mix has no folio of order %u "
			 "and too few free blocks to allocate one and move it", order, order);
		goto fail;
	}
	/* One untimed move proves there is somewhere to move to. */
	if (!migrate_one(w, NULL)) {
		snprintf(msg, sizeof(msg), "migrate/order%u: no free block of order %u "
			 "to migrate to", order, order);
		goto fail;
	}
	return 0;
fail:
	mdb_skip_with_error(st, msg);
	pfn_list_release(&w->list);
	return -1;
}

/* ref.h's loops: 0 the metadata alone, 1 with the copy; a batch each. */
static uint64_t migrate_ref(void *arg, unsigned int which)
{
	struct migrate_walk *w = arg;
	unsigned int i;

	for (i = 0; i < MIGRATE_BATCH; i++)
		migrate_one(w, which ? &w->data : NULL);
	return MIGRATE_BATCH;
}

static void migrate_folios(struct mdb_state *st, const struct bench_env *env, unsigned int order,
			   bool copy)
{
	struct migrate_walk w = { .mm = env->mm, .ops = env->ops, .order = order };
	const struct bench_data *data = copy ? &w.data : NULL;
	unsigned long i;

	if (copy && bench_data_map(&w.data)) {
		mdb_skip_with_error(st, "migrate: cannot map the data window to copy");
		return;
	}
	if (migrate_setup(st, &w, env))
		goto out;
	while (mdb_keep_running_batch(st, MIGRATE_BATCH)) {
		for (i = 0; i < MIGRATE_BATCH; i++) {
			if (!migrate_one(&w, data)) {
				mdb_skip_with_error(st, "migrate: ran out of destination blocks");
				goto release;
			}
		}
	}
	mdb_set_items_processed(st, mdb_iterations(st));
	if (copy)
		ref_metadata_share(st, &(const struct ref_loops){ .run = migrate_ref, .arg = &w, .nr = 2 });
release:
	pfn_list_release(&w.list);
out:
	bench_data_unmap(&w.data);
}

static void migrate_order0(struct mdb_state *st, const struct bench_env *env)
{
	migrate_folios(st, env, 0, false);
}

static void migrate_order9(struct mdb_state *st, const struct bench_env *env)
{
	migrate_folios(st, env, mix_order_from_4k(9), false);
}

static void migrate_order0_copy(struct mdb_state *st, const struct bench_env *env)
{
	migrate_folios(st, env, 0, true);
}

static void migrate_order9_copy(struct mdb_state *st, const struct bench_env *env)
{
	migrate_folios(st, env, mix_order_from_4k(9), true);
}

MDB_KERNEL(migrate_order0,
	   .name = "migrate/order0", .class = MDB_MUTATING, .unit = "migration",
	   .run = migrate_order0,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 14,
	   /* migrate_pages() counts a large folio's pages; the THPs' are migrate/order9's */
	   .vmstat = MDB_VMSTAT({ "pgmigrate_success", 1 },
				{ "thp_migration_success", -MDB_THP_PAGES }));

MDB_KERNEL(migrate_order9,
	   .name = "migrate/order9", .class = MDB_MUTATING, .unit = "migration",
	   .run = migrate_order9,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 10,
	   .vmstat = MDB_VMSTAT({ "thp_migration_success", 1 }));

MDB_KERNEL(migrate_order0_copy,
	   .name = "migrate/order0-copy", .class = MDB_MUTATING, .unit = "migration with copy",
	   .run = migrate_order0_copy, .share_of = MIGRATE_SHARE_OF,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 12);

MDB_KERNEL(migrate_order9_copy,
	   .name = "migrate/order9-copy", .class = MDB_MUTATING, .unit = "migration with copy",
	   .run = migrate_order9_copy, .share_of = MIGRATE_SHARE_OF,
	   .flags = MDB_K_MUTATES, .sim_ops = 1 << 4);
