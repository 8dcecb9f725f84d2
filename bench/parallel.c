// SPDX-License-Identifier: GPL-2.0
/*
 * parallel.c - the memmap and its folios read and referenced from many CPUs
 * at once (threaded kernels, kernel.h; --threads).
 *
 * folio/getput-shared: every thread takes and drops a reference on one hot
 * folio, as every CPU that runs a program does on the pages of a shared
 * library: GUP-fast's try_get_folio() and gup_put_folio() (walk_ops.h's
 * getput_one(), what folio/getput times on one CPU), on a page of a file
 * folio picked by the seed.  The reference count's line goes from CPU to
 * CPU; page64 keeps it on the line page_folio() reads (the struct page),
 * page32 and memdesc8 in the descriptor, behind a memdesc that stays shared.
 *
 * folio/getput-neighbours: each thread on a folio of its own, the folios
 * neighbours where they live: adjacent descriptors in their cache (page32,
 * memdesc8), adjacent struct pages in the memmap (page64).  Of the small
 * folios (the first 2^20 in pfn order), in address order, the threads' many
 * consecutive ones in which the most neighbouring pairs write a shared line
 * (the false-sharing case; where no pair can, as in page64, none does), then
 * those lying closest together.  An op is what __filemap_get_folio(FGP_LOCK) and its
 * caller do to a page-cache folio: filemap_get_entry()'s try-get and
 * re-check (try_get_folio()), folio_trylock() and folio_unlock() (an atomic
 * set and clear of PG_locked in flags), folio_put().  So each thread writes
 * _refcount and flags of its own folio, and where a neighbour's written
 * field shares a line with one of these (the false-sharing table,
 * false_sharing.h) the line is passed back and forth although no folio is
 * shared.  Counters: neighbour_bytes, the mean distance between the objects
 * of consecutive threads (the stride, when they are adjacent), and
 * sharing_pairs, the fraction of consecutive threads whose folios' written
 * fields (_refcount, flags) share a line.  Left out: the xarray walk, the
 * waiters' bit (PG_waiters) of a contended lock.
 *
 * lookup/random-parallel: lookup/random's walk (walk_ops.h's lookup_one()
 * over the same shuffled pfns) on every thread, each starting at its own
 * place in the list: read-only, so what limits it is the memory system, the
 * memmap and descriptor reads of many CPUs at once.
 *
 * Every thread runs the same op count; time per op is one thread's (shim.h).
 * Where the mix holds a reference, it holds it still: the counts come back
 * to where they started (tests/bench/test_bench_threads.c checks).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "false_sharing.h"
#include "threads.h"
#include "walk_ops.h"

#define NEIGHBOUR_SCAN		(1UL << 20)	/* small folios looked at for neighbours */

struct parallel {
	unsigned long *pfn;		/* thread i's folio page (getput) */
	double neighbour_bytes, sharing_pairs;
	struct pfn_list list;		/* lookup */
};

static struct parallel *parallel_alloc(unsigned int threads, struct mdb_err *err)
{
	struct parallel *p = calloc(1, sizeof(*p));

	if (p)
		p->pfn = calloc(threads, sizeof(*p->pfn));
	if (!p || !p->pfn) {
		free(p);
		mdb_errf(err, "out of memory for the threads' state");
		return NULL;
	}
	return p;
}

static void parallel_teardown(struct bench_env *env)
{
	struct parallel *p = env->shared;

	pfn_list_release(&p->list);
	free(p->pfn);
	free(p);
	env->shared = NULL;
}

/* The hot page: the first page of a file folio in the seed's order, else of any folio. */
static int getput_shared_setup(struct bench_env *env, struct mdb_err *err)
{
	struct parallel *p = parallel_alloc(env->threads, err);
	struct pfn_list list;
	unsigned long i, hot;

	if (!p)
		return -1;
	if (pfn_list_random(&list, env, SELECT_FOLIO_PAGE, BENCH_LIST_MAX) || !list.nr) {
		mdb_errf(err, "folio/getput-shared: %s", list.pfn ? "the mix has no folio" :
			 "out of memory for the pfn list");
		pfn_list_release(&list);
		env->shared = p;
		parallel_teardown(env);
		return -1;
	}
	hot = list.pfn[0];
	for (i = 0; i < list.nr; i++)
		if (page_kind(env->mm, pfn_to_page(env->mm, list.pfn[i])) == PK_FILE) {
			hot = list.pfn[i];
			break;
		}
	pfn_list_release(&list);
	for (i = 0; i < env->threads; i++)
		p->pfn[i] = hot;
	env->shared = p;
	return 0;
}

struct neighbour {
	uintptr_t addr;			/* the folio's struct folio: descriptor or memmap entry */
	unsigned long pfn;
};

static int by_addr(const void *a, const void *b)
{
	uintptr_t x = ((const struct neighbour *)a)->addr, y = ((const struct neighbour *)b)->addr;

	return x < y ? -1 : x > y;
}

/* Small folios in pfn order, up to NEIGHBOUR_SCAN, sorted by where their struct folio lies. */
static struct neighbour *small_folios(const struct memmap *mm, unsigned long *nr)
{
	struct neighbour *n = malloc(NEIGHBOUR_SCAN * sizeof(*n));
	unsigned long pfn;

	*nr = 0;
	if (!n)
		return NULL;
	for (pfn = 0; pfn < mm->nr_pfns && *nr < NEIGHBOUR_SCAN; pfn++) {
		const struct folio *folio = page_folio(mm, pfn_to_page(mm, pfn));

		if (folio && !folio_order(folio))
			n[(*nr)++] = (struct neighbour){ (uintptr_t)folio, pfn };
	}
	qsort(n, *nr, sizeof(*n), by_addr);
	return n;
}

#define FIELD_LINE(folio, member)	((uintptr_t)&(folio)->member / 64)

/* Whether what the op writes of one folio (_refcount, flags) shares a line with what it writes of the other. */
static bool writes_share_line(const struct folio *a, const struct folio *b)
{
	uintptr_t la[2] = { FIELD_LINE(a, _refcount), FIELD_LINE(a, flags) };
	uintptr_t lb[2] = { FIELD_LINE(b, _refcount), FIELD_LINE(b, flags) };

	return la[0] == lb[0] || la[0] == lb[1] || la[1] == lb[0] || la[1] == lb[1];
}

/*
 * The threads' folios into p: of the windows of as many consecutive ones
 * in address order, the one with the most neighbouring pairs sharing a
 * line, then the narrowest.
 */
static int choose_neighbours(const struct memmap *mm, struct parallel *p, unsigned long t,
			     struct mdb_err *err)
{
	unsigned long nr, i, best = 0, *shares, best_shares = 0, w;
	struct neighbour *n = small_folios(mm, &nr);

	if (!n || nr < t) {
		free(n);
		if (n)
			return mdb_errf(err, "folio/getput-neighbours: the mix has %lu small folios, "
					"not one for each of %lu threads", nr, t);
		return mdb_errf(err, "folio/getput-neighbours: out of memory");
	}
	/* shares[i]: pairs sharing among the first i (prefix sums: each window in O(1)). */
	shares = calloc(nr + 1, sizeof(*shares));
	if (!shares) {
		free(n);
		return mdb_errf(err, "folio/getput-neighbours: out of memory");
	}
	for (i = 0; i + 1 < nr; i++)
		shares[i + 1] = shares[i] + writes_share_line((const struct folio *)n[i].addr,
							      (const struct folio *)n[i + 1].addr);
	for (i = 0; i + t <= nr; i++) {
		w = shares[i + t - 1] - shares[i];
		if (!i || w > best_shares || (w == best_shares && n[i + t - 1].addr - n[i].addr <
					      n[best + t - 1].addr - n[best].addr)) {
			best = i;
			best_shares = w;
		}
	}
	for (i = 0; i < t; i++)
		p->pfn[i] = n[best + i].pfn;
	p->neighbour_bytes = t > 1 ? (double)(n[best + t - 1].addr - n[best].addr) / (double)(t - 1) : 0;
	p->sharing_pairs = t > 1 ? (double)best_shares / (double)(t - 1) : 0;
	free(shares);
	free(n);
	return 0;
}

/*
 * Google Benchmark calls the set-up once a call (each iteration count it
 * tries, each repetition), and the choice above (2^20 folios looked up and
 * sorted by address) took a tenth of a second at 16 GiB: a quarter of a
 * headline round on the development VM.  The choices made are kept with
 * the build (the memmap's serial, which no other build reuses) and thread
 * count they were made for, NEIGHBOURS_KEPT of them (a group's layouts and
 * twin run interleaved), the least recently used given up for a new one;
 * the same build and threads get the same folios without the sort.
 */
#define NEIGHBOURS_KEPT	8

static struct {
	pthread_mutex_t lock;
	uint64_t clock;
	struct kept_neighbours {
		uint64_t serial, used;	/* serial 0: none */
		unsigned long threads;
		struct parallel p;	/* its pfn[] and counters */
	} k[NEIGHBOURS_KEPT];
} kept = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The kept choice for mm's build and t threads into p, chosen now if none is kept. */
static int kept_neighbours(const struct memmap *mm, struct parallel *p, unsigned long t,
			   struct mdb_err *err)
{
	struct kept_neighbours *k, *lru = &kept.k[0];
	int ret = 0;

	pthread_mutex_lock(&kept.lock);
	kept.clock++;
	for (k = kept.k; k < kept.k + NEIGHBOURS_KEPT; k++) {
		if (k->serial == mm->serial && k->threads == t)
			break;
		if (k->used < lru->used)
			lru = k;
	}
	if (k == kept.k + NEIGHBOURS_KEPT) {
		k = lru;
		free(k->p.pfn);
		*k = (struct kept_neighbours){ .p.pfn = malloc(t * sizeof(*k->p.pfn)) };
		ret = k->p.pfn ? choose_neighbours(mm, &k->p, t, err) :
				 mdb_errf(err, "folio/getput-neighbours: out of memory");
		if (!ret) {
			k->serial = mm->serial;
			k->threads = t;
		}
	}
	if (!ret) {
		k->used = kept.clock;
		memcpy(p->pfn, k->p.pfn, t * sizeof(*p->pfn));
		p->neighbour_bytes = k->p.neighbour_bytes;
		p->sharing_pairs = k->p.sharing_pairs;
	}
	pthread_mutex_unlock(&kept.lock);
	return ret;
}

static int getput_neighbours_setup(struct bench_env *env, struct mdb_err *err)
{
	struct parallel *p = parallel_alloc(env->threads, err);

	if (!p)
		return -1;
	env->shared = p;
	if (kept_neighbours(env->mm, p, env->threads, err)) {
		parallel_teardown(env);
		return -1;
	}
	return 0;
}

static void getput_shared(struct mdb_state *st, const struct bench_env *env)
{
	const struct memmap *mm = env->mm;
	unsigned long pfn = ((const struct parallel *)env->shared)->pfn[mdb_thread_index(st)], i;

	while (mdb_keep_running_batch(st, BENCH_BATCH))
		for (i = 0; i < BENCH_BATCH; i++)
			mdb_do_not_optimize(getput_one(mm, pfn));
	mdb_set_items_processed(st, mdb_iterations(st));
}

/* __filemap_get_folio(FGP_LOCK)'s lookup and lock, then the caller's unlock and put. */
static inline unsigned long getlock_one(const struct memmap *mm, unsigned long pfn)
{
	struct folio *folio = try_get_folio(mm, pfn_to_page(mm, pfn));

	if (!folio)
		return 1;
	folio_set_flag(folio, PG_locked);	/* folio_trylock(): uncontended, it takes it */
	folio_clear_flag(folio, PG_locked);	/* folio_unlock() */
	return folio_put(folio);
}

static void getput_neighbours(struct mdb_state *st, const struct bench_env *env)
{
	const struct parallel *p = env->shared;
	const struct memmap *mm = env->mm;
	unsigned long pfn = p->pfn[mdb_thread_index(st)], i;

	while (mdb_keep_running_batch(st, BENCH_BATCH))
		for (i = 0; i < BENCH_BATCH; i++)
			mdb_do_not_optimize(getlock_one(mm, pfn));
	mdb_set_items_processed(st, mdb_iterations(st));
	if (!mdb_thread_index(st)) {
		mdb_counter(st, "neighbour_bytes", p->neighbour_bytes, MDB_COUNTER_PLAIN);
		mdb_counter(st, "sharing_pairs", p->sharing_pairs, MDB_COUNTER_PLAIN);
	}
}

static int lookup_parallel_setup(struct bench_env *env, struct mdb_err *err)
{
	struct parallel *p = parallel_alloc(env->threads, err);
	unsigned long i, first;

	if (!p)
		return -1;
	env->shared = p;
	if (pfn_list_random(&p->list, env, SELECT_ANY, BENCH_LIST_MAX) || !p->list.nr) {
		mdb_errf(err, "lookup/random-parallel: out of memory for the pfn list");
		parallel_teardown(env);
		return -1;
	}
	first = bench_list_first(&p->list);
	for (i = 0; i < env->threads; i++)
		p->pfn[i] = (first + p->list.nr * i / env->threads) % p->list.nr;
	return 0;
}

/* lookup/random's throughput walk from the thread's own place in the list. */
static void lookup_parallel(struct mdb_state *st, const struct bench_env *env)
{
	const struct parallel *p = env->shared;
	const struct memmap *mm = env->mm;
	unsigned long next = p->pfn[mdb_thread_index(st)], i;

	bench_list_for_each_op(st, &p->list, next, i)
		mdb_do_not_optimize(lookup_one(mm, p->list.pfn[next]));
	mdb_set_items_processed(st, mdb_iterations(st));
}

MDB_KERNEL(getput_shared,
	   .name = "folio/getput-shared", .class = MDB_DEPENDENT, .unit = "get+put pair",
	   .run = getput_shared, .flags = MDB_K_THREADED,
	   .setup = getput_shared_setup, .teardown = parallel_teardown,
	   .ws = MDB_WS_FOLIOS, .ws_sampled = true, .sim_ops = 1 << 14);

MDB_KERNEL(getput_neighbours,
	   .name = FS_KERNEL_NAME, .class = MDB_DEPENDENT,
	   .unit = "get+lock+unlock+put",
	   .run = getput_neighbours, .flags = MDB_K_THREADED,
	   .setup = getput_neighbours_setup, .teardown = parallel_teardown,
	   .ws = MDB_WS_FOLIOS, .ws_sampled = true, .sim_ops = 1 << 14);

MDB_KERNEL(lookup_parallel,
	   .name = "lookup/random-parallel", .class = MDB_DEPENDENT, .unit = "lookup",
	   .run = lookup_parallel, .flags = MDB_K_THREADED,
	   .setup = lookup_parallel_setup, .teardown = parallel_teardown,
	   .ws = MDB_WS_ALL, .ws_sampled = true, .sim_ops = 1 << 16);
