// SPDX-License-Identifier: GPL-2.0
/*
 * alloc_remote.c - alloc/order0-remote: a folio allocated on one CPU and
 * freed on another (a threaded kernel, kernel.h; --threads).
 *
 * A page a process faults in on one CPU is often freed on another: munmap()
 * or exit from another CPU, reclaim in kswapd, a pipe's or a socket's pages
 * consumed on the reader's CPU.  The threads stand in a ring: each allocates
 * order-0 anon folios on its CPU (folio_create(): the memmap entry and, with
 * memdescs, the struct folio from this CPU's state of the descriptor cache)
 * and hands their pfns to the next thread, which finds each folio as
 * zap_pte_range() does, from the pfn (page_folio()), and frees it on its own
 * CPU (folio_destroy(): the memmap entry back to free and, with memdescs,
 * kmem_cache_free() of a descriptor another CPU allocated: __slab_free()'s
 * remote path, desc_cache.h).  The pfn then stays with the freeing CPU for
 * its next allocation, as a freed order-0 page stays on that CPU's pcp list.
 * With one thread, the ring is the thread itself: allocation and free on one
 * CPU, the baseline.
 *
 * An op is one allocation and one free (of another CPU's folio); batches of
 * 64 go round, each thread's in a ring of its own with room for two.  Left
 * out: the pcp lists' own bookkeeping and the zone lock (pfns never go back
 * to the buddy while the benchmark runs), the memcg charge and uncharge,
 * the rmap and the TLB flush of a real munmap().
 */
#include <stdio.h>

#include "threads.h"

#define REMOTE_BATCH	BENCH_BATCH
#define REMOTE_RING	(2 * REMOTE_BATCH)

/* pfns from one thread to the next: the producer's index and the consumer's on lines of their own. */
struct remote_ring {
	unsigned long head;
	char pad_head[BENCH_LINE - sizeof(unsigned long)];
	unsigned long tail;
	char pad_tail[BENCH_LINE - sizeof(unsigned long)];
	unsigned long pfn[REMOTE_RING];
};

/* A thread's free pfns: its CPU's pcp list. */
struct remote_pool {
	unsigned long nr;
	unsigned long pfn[REMOTE_BATCH];
};

struct remote {
	unsigned int threads;
	struct remote_ring *ring;	/* slot i: from thread i to thread i + 1 */
	struct remote_pool *pool;	/* slot i: thread i's */
	bool abort;
};

static struct remote_ring *ring_of(const struct remote *r, unsigned int i)
{
	return bench_slot(r->ring, i, struct remote_ring);
}

static struct remote_pool *pool_of(const struct remote *r, unsigned int i)
{
	return bench_slot(r->pool, i, struct remote_pool);
}

/* Waits for room; false if another thread failed meanwhile. */
static bool ring_push(struct remote_ring *q, unsigned long pfn, const bool *abort)
{
	unsigned long head = q->head;

	while (head - __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE) == REMOTE_RING) {
		if (bench_aborted(abort))
			return false;
		mdb_cpu_relax();
	}
	q->pfn[head % REMOTE_RING] = pfn;
	__atomic_store_n(&q->head, head + 1, __ATOMIC_RELEASE);
	return true;
}

static bool ring_pop(struct remote_ring *q, unsigned long *pfn, const bool *abort)
{
	unsigned long tail = q->tail;

	while (__atomic_load_n(&q->head, __ATOMIC_ACQUIRE) == tail) {
		if (bench_aborted(abort))
			return false;
		mdb_cpu_relax();
	}
	*pfn = q->pfn[tail % REMOTE_RING];
	__atomic_store_n(&q->tail, tail + 1, __ATOMIC_RELEASE);
	return true;
}

/* The folios left in the rings and the pools' pfns back to the buddy, through CPU 0. */
static void remote_teardown(struct bench_env *env)
{
	struct remote *r = env->shared;
	struct memmap *mm = env->mm;
	unsigned long pfn;
	unsigned int t;

	for (t = 0; r->ring && r->pool && t < r->threads; t++) {
		struct remote_pool *pool = pool_of(r, t);

		while (ring_pop(ring_of(r, t), &pfn, &(bool){ true }))
			env->ops->folio_free(mm, pfn);
		while (pool->nr) {
			pfn = pool->pfn[--pool->nr];
			if (folio_create(mm, pfn, 0, PK_ANON))
				env->ops->folio_free(mm, pfn);
		}
	}
	free(r->ring);
	free(r->pool);
	free(r);
	env->shared = NULL;
}

/* Each thread's pool: REMOTE_BATCH order-0 pfns from the buddy, their folios undone. */
static int remote_setup(struct bench_env *env, struct mdb_err *err)
{
	struct memmap *mm = env->mm;
	struct remote *r = calloc(1, sizeof(*r));
	unsigned int t, i;
	long pfn;

	if (!r)
		return mdb_errf(err, "out of memory for the threads' state");
	env->shared = r;
	r->threads = env->threads;
	r->ring = bench_slots_alloc(env->threads, sizeof(struct remote_ring));
	r->pool = bench_slots_alloc(env->threads, sizeof(struct remote_pool));
	if (!r->ring || !r->pool) {
		remote_teardown(env);
		return mdb_errf(err, "out of memory for the threads' state");
	}
	if (env->threads > DESC_MAX_CPUS) {
		remote_teardown(env);
		return mdb_errf(err, "alloc/order0-remote: %u threads, the descriptor caches have "
				"states for %d CPUs", env->threads, DESC_MAX_CPUS);
	}
	for (t = 0; t < env->threads; t++) {
		struct remote_pool *pool = pool_of(r, t);

		for (i = 0; i < REMOTE_BATCH; i++) {
			pfn = env->ops->folio_alloc(mm, 0, PK_ANON);
			if (pfn < 0) {
				remote_teardown(env);
				return mdb_errf(err, "alloc/order0-remote: the mix leaves too few free "
						"blocks for %u threads' %d order-0 folios", env->threads,
						REMOTE_BATCH);
			}
			folio_destroy(mm, page_folio(mm, pfn_to_page(mm, (unsigned long)pfn)));
			pool->pfn[pool->nr++] = (unsigned long)pfn;
		}
	}
	return 0;
}

static void alloc_remote(struct mdb_state *st, const struct bench_env *env)
{
	struct remote *r = env->shared;
	unsigned int me = mdb_thread_index(st), n = mdb_threads(st);
	struct remote_ring *out = ring_of(r, me), *in = ring_of(r, (me + n - 1) % n);
	struct remote_pool *pool = pool_of(r, me);
	struct memmap *mm = env->mm;
	unsigned long pfn, i;

	desc_set_this_cpu(me);
	while (mdb_keep_running_batch(st, REMOTE_BATCH)) {
		for (i = 0; i < REMOTE_BATCH; i++) {
			pfn = pool->pfn[--pool->nr];
			if (!folio_create(mm, pfn, 0, PK_ANON)) {
				pool->nr++;
				bench_thread_fail(st, &r->abort, "alloc/order0-remote: out of memory for "
						  "a folio descriptor");
				goto out;
			}
			if (!ring_push(out, pfn, &r->abort))
				goto aborted;
		}
		for (i = 0; i < REMOTE_BATCH; i++) {
			if (!ring_pop(in, &pfn, &r->abort))
				goto aborted;
			folio_destroy(mm, page_folio(mm, pfn_to_page(mm, pfn)));
			pool->pfn[pool->nr++] = pfn;
		}
	}
	mdb_set_items_processed(st, mdb_iterations(st));
	goto out;
aborted:
	mdb_skip_with_error(st, "alloc/order0-remote: another thread failed");
out:
	desc_set_this_cpu(0);
}

MDB_KERNEL(alloc_remote,
	   .name = "alloc/order0-remote", .class = MDB_MUTATING, .unit = "alloc+remote free",
	   .run = alloc_remote, .flags = MDB_K_MUTATES | MDB_K_THREADED,
	   .setup = remote_setup, .teardown = remote_teardown,
	   .sim_ops = 1 << 14);
