/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shim.h - the driver's side of the Google Benchmark shim (shim.cc):
 * registration, the run with its dump, and the fixed-count run.
 * Kernels see only mdb.h.
 */
#ifndef MDB_SHIM_H
#define MDB_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "mdb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*mdb_bench_fn)(struct mdb_state *st, void *arg);

/*
 * Hands argv to Google Benchmark, which takes its own flags out.  -1 if
 * something is left it does not know either (it has said so on stderr).
 */
int mdb_benchmark_init(int *argc, char **argv);
/* Benchmarks run in the order they are registered. */
void mdb_register(const char *name, mdb_bench_fn fn, void *arg);
/* Counters read around every timed loop from now on; NULL for none. */
void mdb_use_counters(struct mdb_counters *set);

struct mdb_report {
	const char *out_dir;		/* NULL: no dump */
	/* The memdesc_bench context object as JSON, malloc'd; called for every rewrite. */
	char *(*context_json)(bool complete, void *arg);
	void *arg;
};

/*
 * Runs every registered benchmark that passes --benchmark_filter, reporting
 * to the terminal as Google Benchmark would and, with an out_dir, rewriting
 * out_dir/mdbench.json after every benchmark.  SIGINT and SIGTERM end the run
 * keeping what finished.  Returns main()'s exit status: 0, or 1 if a
 * benchmark failed or the dump could not be written.
 */
int mdb_benchmark_run(const struct mdb_report *rep);

/*
 * Calls fn once with a state that runs exactly ops operations (rounded up to
 * the batch), on_start right before the first and on_stop right after the
 * last.  0 with the kernel's mdb_set_items_processed() in *items (0 if it set
 * none; items may be NULL), or -1 with the kernel's error in err.
 */
int mdb_fixed_run(mdb_bench_fn fn, void *arg, uint64_t ops, void (*on_start)(void *),
		  void (*on_stop)(void *), void *cb_arg, uint64_t *items, char *err,
		  size_t err_len);

#ifdef __cplusplus
}
#endif

#endif /* MDB_SHIM_H */
