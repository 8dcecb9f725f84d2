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
};

/*
 * Writes the dump with no benchmark yet (complete false), so that from now
 * on the file on disk is this run's.  0, or -1 with err.
 */
int mdb_report_start(const struct mdb_report *rep, struct mdb_err *err);
/*
 * Runs every registered benchmark that passes --benchmark_filter, reporting
 * to the terminal as Google Benchmark would, a progress line per benchmark
 * on stderr, and rewriting rep->path (atomically) after every benchmark; a
 * failed write is retried at the next.  SIGINT and SIGTERM end the run
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

#ifdef __cplusplus
}
#endif

#endif /* MDB_SHIM_H */
