/* SPDX-License-Identifier: GPL-2.0 */
/*
 * driver.h - one run of mdbench: what was asked for, and the benchmark
 * instances it expands to.  Shared by the Google Benchmark path (driver.c)
 * and the callgrind path (simulate.c).
 */
#ifndef MDB_DRIVER_H
#define MDB_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

#define MDB_NAME_LEN		192
#define MDB_MAX_RAM_SIZES	16

#define MDB_MAX_MIXES		8

/*
 * One registered benchmark: a kernel, a layout (NULL for baselines), a mix,
 * a size.  Names are '/'-separated: the kernel's name, the layout, then
 * key:value parts:
 *	lookup/random/page64/mix:desktop/ram:4GiB
 *	baseline/latency/bytes:64MiB
 */
struct mdb_instance {
	char name[MDB_NAME_LEN];
	const struct mdb_kernel *kernel;
	const struct layout_ops *ops;
	const struct mix *mix;		/* NULL for baselines */
	unsigned long nr_pfns;
	size_t ram_bytes;
	size_t buf_bytes;		/* baselines */
};

struct mdb_run {
	const char *profile;		/* "quick" or "full" */
	const char *out_dir;		/* NULL: no dump directory */
	const char *filter;		/* --benchmark_filter, "" for all */
	const struct layout_ops *layouts[4];	/* NULL-terminated subset */
	size_t ram_sizes[MDB_MAX_RAM_SIZES];
	unsigned int nr_ram_sizes;
	struct mix mixes[MDB_MAX_MIXES];	/* --mix=a,b,... */
	unsigned int nr_mixes;
	struct memmap_opts opts;
	int cpu;			/* -1: not pinned */
	int node;			/* -1: not bound */
	struct mdb_instance *inst;
	size_t nr_inst;
};

/*
 * Runs one instance outside Google Benchmark for exactly ops operations
 * (rounded up to the kernel's batch), calling on_start right before the first
 * timed op and on_stop right after the last, as callgrind's client requests
 * want.  Builds and frees the memmap the instance needs.  0 with the items
 * the kernel processed in *items (ops may have been rounded up to its batch),
 * or -1 with err.
 */
int mdb_run_fixed(const struct mdb_run *run, const struct mdb_instance *in, uint64_t ops,
		  void (*on_start)(void *arg), void (*on_stop)(void *arg), void *arg,
		  uint64_t *items, struct mdb_err *err);

/* mkdir -p dir for --out.  0, or -1 with a one-line reason in err. */
int mdb_make_out_dir(const char *dir, char *err, size_t len);

/* Benchmark name -> true if it passes run->filter (Google Benchmark's regex syntax). */
int mdb_filter_match(const char *filter, const char *name);

struct mdb_dump_ctx;

/*
 * --simulate: re-runs this binary under valgrind callgrind, one instance at a
 * time, and writes <out_dir>/sim.json with ctx (the run, argv, the topology)
 * as its context.  Exit status for main().
 */
int mdb_simulate(const struct mdb_dump_ctx *ctx);
/* The child side, under valgrind: --sim-child=<instance name> --sim-ops=N. */
int mdb_simulate_child(const struct mdb_run *run, const char *name, uint64_t ops);

#endif /* MDB_DRIVER_H */
