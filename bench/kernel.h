/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel.h - what a benchmark kernel is, and what it is handed.
 *
 * Each bench/<kernel>.c is compiled once per layout (see layouts/layout.h) and
 * defines its kernels as LAYOUT_SYM(k_<name>); bench/kernels.c lists them in
 * LAYOUT_SYM(kernels)[].  The driver crosses that list with the RAM sizes
 * (and, for baselines, the buffer sizes) and registers one benchmark each.
 */
#ifndef MDB_KERNEL_H
#define MDB_KERNEL_H

#include <stdint.h>

#include "layout.h"
#include "mdb.h"

struct bench_env {
	const struct layout_ops *ops;	/* NULL for baselines */
	struct memmap *mm;		/* built from mix over nr_pfns; NULL for baselines */
	unsigned long nr_pfns;		/* modelled RAM / 4 KiB */
	const struct mix *mix;
	const struct memmap_opts *opts;
	uint64_t seed;
	size_t buf_bytes;		/* baselines: working-set size */
};

enum mdb_kernel_flags {
	MDB_K_MUTATES = 1 << 0,		/* leaves the memmap changed: gets its own copy */
	MDB_K_BASELINE = 1 << 1,	/* layout independent, sweeps buf_bytes */
	MDB_K_NO_MEMMAP = 1 << 2,	/* builds what it needs itself (memmap init) */
	MDB_K_SEQUENTIAL = 1 << 3,	/* has an analytic miss model to check */
};

struct mdb_kernel {
	const char *name;		/* "lookup/random": the benchmark name's first part */
	void (*run)(struct mdb_state *st, const struct bench_env *env);
	unsigned int flags;
	uint64_t sim_ops;		/* ops to run under --simulate */
};

/* NULL-terminated, one list per layout (bench/kernels.c), and the baselines. */
extern const struct mdb_kernel *const page64_kernels[];
extern const struct mdb_kernel *const page32_kernels[];
extern const struct mdb_kernel *const memdesc8_kernels[];
extern const struct mdb_kernel *const baseline_kernels[];
const struct mdb_kernel *const *layout_kernels(const struct layout_ops *ops);

#endif /* MDB_KERNEL_H */
