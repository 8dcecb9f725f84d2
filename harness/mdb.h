/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdb.h - the C API benchmark kernels are written against.
 *
 * A thin layer over Google Benchmark's State (harness/shim.cc), shaped like
 * benchmark.h so a kernel reads like a Google Benchmark function:
 *
 *	static void lookup_seq(struct mdb_state *st, const struct bench_env *env)
 *	{
 *		... set-up, not timed ...
 *		while (mdb_keep_running_batch(st, BATCH)) {
 *			for (i = 0; i < BATCH; i++)
 *				mdb_do_not_optimize(...);
 *		}
 *		mdb_set_items_processed(st, mdb_iterations(st));
 *	}
 *
 * The same kernel also runs under --simulate, where the state is a fixed-count
 * run inside valgrind instead of Google Benchmark's timing loop; the kernel
 * cannot tell.  Hardware counters are read around the timed loop by the shim,
 * not by the kernel.
 *
 * A threaded benchmark runs the kernel on every one of its threads at once,
 * each with its own state: mdb_thread_index() tells them apart.  As in
 * Google Benchmark, no thread starts its timed loop before all have reached
 * it, and none leaves it before all are done; each runs the same number of
 * ops.  What the threads share is made before any of them runs (shim.h).
 */
#ifndef MDB_H
#define MDB_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mdb_state;

/*
 * Runs the loop in batches of n operations: the bookkeeping costs one call per
 * batch, not per op.  The first call starts timing and counters; the call that
 * returns false stops them.  The total op count is a multiple of n.
 */
bool mdb_keep_running_batch(struct mdb_state *st, uint64_t n);
uint64_t mdb_iterations(const struct mdb_state *st);	/* ops so far */
/* How many ops one iteration stands for: results are per item. */
void mdb_set_items_processed(struct mdb_state *st, uint64_t items);
void mdb_set_bytes_processed(struct mdb_state *st, uint64_t bytes);
void mdb_pause_timing(struct mdb_state *st);
void mdb_resume_timing(struct mdb_state *st);
/*
 * For a benchmark registered with mdb_register_manual_time() only: the time
 * the batch just run took, measured by the kernel itself (the real-kernel
 * module times its own work, so the ioctl around it is not counted).  Call
 * once per batch; the reported time is the sum over the items.  A no-op in
 * the fixed-count run.
 */
void mdb_set_iteration_time(struct mdb_state *st, double seconds);
/* The calling thread, 0 .. mdb_threads() - 1, and how many run the benchmark (1 unthreaded). */
unsigned int mdb_thread_index(const struct mdb_state *st);
unsigned int mdb_threads(const struct mdb_state *st);
/* Ends the benchmark as failed, with a reason that reaches the dump. */
void mdb_skip_with_error(struct mdb_state *st, const char *msg);

enum mdb_counter_flags {
	MDB_COUNTER_PLAIN = 0,		/* the value as given */
	MDB_COUNTER_PER_ITEM = 1,	/* divided by items processed */
	MDB_COUNTER_RATE = 2,		/* divided by seconds */
};
void mdb_counter(struct mdb_state *st, const char *name, double value, enum mdb_counter_flags flags);

/* As benchmark::DoNotOptimize / ClobberMemory. */
#define mdb_do_not_optimize(v)	__asm__ volatile("" : : "r,m"(v) : "memory")
static inline void mdb_clobber_memory(void)
{
	__asm__ volatile("" : : : "memory");
}

#ifdef __cplusplus
}
#endif

#endif /* MDB_H */
