/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shim.h - the program's side of the Google Benchmark shim (shim.cc):
 * flags, registration, the run with its dump, and the fixed-count run.
 * Kernels see only mdb.h.  Works with Google Benchmark 1.7 to 1.9.
 */
#ifndef MDB_SHIM_H
#define MDB_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "counters.h"
#include "err.h"
#include "mdb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*mdb_bench_fn)(struct mdb_state *st, void *arg);

/* "1.7" (Run::error_occurred) or "1.8+" (Run::skipped): the API compiled against. */
extern const char mdb_gb_api[];

/*
 * Checks one --benchmark_* or --v= flag before Google Benchmark sees it (it
 * aborts or prints its usage and exits 0 on some bad values).  May rewrite
 * the value into the form this Google Benchmark wants (*fixed, malloc'd, or
 * NULL to keep arg).  0, or -1 with err.
 */
int mdb_gb_check_flag(const char *arg, char **fixed, struct mdb_err *err);
/* "--benchmark_min_time=" for seconds, in this version's syntax; malloc'd. */
char *mdb_gb_min_time(const char *seconds);
/*
 * Hands argv to Google Benchmark, which takes its own flags out.  -1 with
 * err if something is left it does not know either.
 */
int mdb_benchmark_init(int *argc, char **argv, struct mdb_err *err);
/* Benchmarks run in the order they are registered. */
void mdb_register(const char *name, mdb_bench_fn fn, void *arg);
/*
 * The same for a benchmark that times itself (mdb_set_iteration_time()):
 * Google Benchmark's UseManualTime(), so it appends "/manual_time" to the
 * name in its output.  Hardware counters are not read around it: what they
 * would count (the calls that measure) is not what the benchmark times.
 */
void mdb_register_manual_time(const char *name, mdb_bench_fn fn, void *arg);
/*
 * A threaded benchmark: Google Benchmark's Threads(nr), its name ending in
 * "/threads:<nr>".  Each thread is pinned to cpus[i] (through topo) for the
 * call and put back after; setup runs once per call on thread 0, untimed,
 * while the others wait, and teardown once after every thread is done: what
 * the threads share (a memmap) is made there and by nobody else.  A setup
 * that fails (-1 with err) fails every thread with its reason.  Manual time
 * as mdb_register_manual_time(), each thread timing its own batches.
 *
 * Time per op is one thread's (Google Benchmark 1.9's meaning: the sum of
 * the threads' times over the sum of their ops); rates are over all threads.
 * Builds against Google Benchmark 1.7 and 1.8, which divide a threaded
 * run's real time by its threads and give cpu-timed rates per thread, put
 * both back to that meaning before anything is reported.  Hardware counters
 * are the main thread's (the one that opened them), per op of its own.
 */
struct mdb_topology;

struct mdb_thread_run {
	unsigned int nr;		/* threads, >= 1 */
	const int *cpus;		/* CPU of thread i, nr of them; NULL: not pinned */
	const struct mdb_topology *topo;
	int (*setup)(void *arg, struct mdb_err *err);	/* NULL: nothing to share */
	void (*teardown)(void *arg);
	bool manual_time;
};

/* t is copied.  Runs in registration order with the others. */
void mdb_register_threads(const char *name, mdb_bench_fn fn, void *arg,
			  const struct mdb_thread_run *t);
/*
 * The benchmarks registered from now on run reps repetitions of at least
 * min_time seconds each (Google Benchmark's Repetitions() and MinTime(): one
 * iteration count, found by the first): a round of reps short runs, which
 * mdb_benchmark_run() reduces to one entry with rep->round_value.  reps <= 1:
 * one run, as --benchmark_repetitions and --benchmark_min_time say.
 */
void mdb_set_round(unsigned int reps, double min_time);
/*
 * Whether the next mdb_benchmark_run() pass runs the repetitions of its
 * benchmarks in a random interleaved order (Google Benchmark's
 * --benchmark_enable_random_interleaving, its std::random_device shuffle),
 * unless that flag was given on the command line, which then holds.
 */
void mdb_set_interleave(bool on);
/* Counters read around every timed loop from now on; NULL for none. */
void mdb_use_counters(struct mdb_counters *set);
/* A key: value in Google Benchmark's own context (its --benchmark_out files too). */
void mdb_add_custom_context(const char *key, const char *value);

struct mdb_report {
	const char *path;		/* the dump to keep rewritten; NULL: none */
	/* The object for context.memdesc_bench, a new reference; called for every rewrite. */
	json_t *(*context)(bool complete, void *arg);
	void *arg;
	unsigned long nr_expected;	/* benchmark runs to come, for the progress lines */
	/*
	 * Per benchmark (Google Benchmark's run_name): fields to add to each
	 * of its entries (may be NULL), and its estimated seconds, whose sum
	 * over what is left, scaled by how long the estimates have taken so
	 * far, is the progress line's est_left (may be NULL: by count).
	 */
	void (*annotate)(const char *run_name, json_t *entry, void *arg);
	double (*est_seconds)(const char *run_name, void *arg);
	double est_total;		/* the estimates of all nr_expected runs */
	/*
	 * After each pass over the registered benchmarks (NULL: one pass):
	 * the registry is cleared, and this registers the next pass and
	 * returns how many runs it registered, or 0: the run ends; the runs
	 * not among nr_expected yet into *added, their estimates into *est.
	 * elapsed: seconds since the first pass began.
	 */
	unsigned long (*next_pass)(void *arg, double elapsed, unsigned long *added, double *est);
	/*
	 * A round's value from its repetitions' (mdb_set_round()), NULL when
	 * no benchmark has more than one of ours: the repetitions of a
	 * benchmark are reported as one entry, the first's with each time
	 * and counter replaced by this of the repetitions' values, and
	 * round_rep: {reps, real_time[], cpu_time[]}; Google Benchmark's
	 * aggregates of them are not kept.
	 */
	double (*round_value)(const double *v, size_t n);
};

/*
 * Writes the dump with no benchmark yet (complete false), so that from now
 * on the file on disk is this run's.  0, or -1 with err.
 */
int mdb_report_start(const struct mdb_report *rep, struct mdb_err *err);
/*
 * Runs every registered benchmark that passes --benchmark_filter, reporting
 * to the terminal as Google Benchmark would, a progress line per benchmark
 * on stderr,
 *	mdbench: progress <done>/<total> elapsed=<s> est_left=<s> <name>
 * and rewriting rep->path (atomically) after every benchmark; a failed
 * write is retried at the next.  Once all have run, every benchmark with
 * more than one repetition (rounds) and no aggregate of Google Benchmark's
 * own gets a median aggregate row, as --benchmark_repetitions gives
 * (name <run_name>_median, run_type aggregate, aggregate_name median):
 * the median of each of its numeric fields over its repetitions.  SIGINT and SIGTERM end the run
 * keeping what is on disk.  Returns main()'s exit status: 0, or 1 if a
 * benchmark failed or results could not be written (said in one line).
 */
int mdb_benchmark_run(const struct mdb_report *rep);

/*
 * Calls fn once with a state that runs exactly ops operations (rounded up to
 * the batch), on_start right before the first and on_stop right after the
 * last.  0 with the kernel's mdb_set_items_processed() in *items (0 if it set
 * none; items may be NULL), or -1 with the kernel's error in err.
 */
int mdb_fixed_run(mdb_bench_fn fn, void *arg, uint64_t ops, void (*on_start)(void *),
		  void (*on_stop)(void *), void *cb_arg, uint64_t *items, struct mdb_err *err);
/*
 * The same on t->nr threads, as a threaded benchmark runs: pinned, setup
 * and teardown once, each thread exactly ops ops (rounded up to its batch)
 * between the same start and end; on_start and on_stop on thread 0, after
 * every thread has reached its loop and before any leaves it.  *items: the
 * threads' items summed; the first thread's error in err.
 */
int mdb_fixed_run_threads(mdb_bench_fn fn, void *arg, uint64_t ops, const struct mdb_thread_run *t,
			  void (*on_start)(void *), void (*on_stop)(void *), void *cb_arg,
			  uint64_t *items, struct mdb_err *err);

#ifdef __cplusplus
}
#endif

#endif /* MDB_SHIM_H */
