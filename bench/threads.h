/* SPDX-License-Identifier: GPL-2.0 */
/*
 * threads.h - what the threaded kernels (MDB_K_THREADED, kernel.h) share:
 * per-thread state on lines of its own, as per-CPU data is, so that the
 * threads' own bookkeeping shares no line and only what the kernel shares
 * does; and a way to stop waiting for a thread that has failed.
 *
 * A threaded kernel's setup() makes what its threads share (env->shared);
 * each thread then runs the kernel with its own index (mdb_thread_index()),
 * standing for one CPU: desc_set_this_cpu() makes the descriptor caches use
 * that CPU's state, as smp_processor_id() does.
 */
#ifndef MDB_THREADS_H
#define MDB_THREADS_H

#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "spin.h"

#define BENCH_LINE	64

/* Bytes of one slot holding size bytes: whole lines. */
static inline size_t bench_slot_bytes(size_t size)
{
	return (size + BENCH_LINE - 1) & ~(size_t)(BENCH_LINE - 1);
}

/* nr zeroed slots of size bytes, each starting a line; NULL when out of memory. */
static inline void *bench_slots_alloc(size_t nr, size_t size)
{
	size_t bytes = nr * bench_slot_bytes(size);
	void *p = aligned_alloc(BENCH_LINE, bytes ? bytes : BENCH_LINE);

	if (p)
		memset(p, 0, bytes);
	return p;
}

/* Slot i of an array from bench_slots_alloc(). */
#define bench_slot(base, i, type)						\
	((type *)((char *)(base) + (size_t)(i) * bench_slot_bytes(sizeof(type))))

/*
 * A thread that cannot go on: says why (the benchmark fails with it) and
 * raises abort, which every wait of the others watches.
 */
static inline void bench_thread_fail(struct mdb_state *st, bool *abort, const char *why)
{
	__atomic_store_n(abort, true, __ATOMIC_RELAXED);
	mdb_skip_with_error(st, why);
}

static inline bool bench_aborted(const bool *abort)
{
	return __atomic_load_n(abort, __ATOMIC_RELAXED);
}

#endif /* MDB_THREADS_H */
