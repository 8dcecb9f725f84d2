/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ref.h - loops a kernel times itself, in the same run, for the checks it
 * reports as counters: a baseline against an independent reference loop,
 * the metadata-only cycle against the full one (the metadata's share), the
 * plain C loop under a kernel's harnessed one.  Calls of the loops
 * alternate (A B A B ...) so that drift and noise hit them alike; each call
 * is timed with CLOCK_MONOTONIC, and each loop's result is its median ns
 * per op over the rounds.  At least REF_MIN_ROUNDS rounds, more while the
 * whole stays under REF_BUDGET_NS, at most REF_MAX_ROUNDS.  A kernel runs
 * them outside its timed loop.  Compiled once.
 */
#ifndef MDB_REF_H
#define MDB_REF_H

#include <stdint.h>

#define REF_MIN_ROUNDS		5
#define REF_MAX_ROUNDS		201
#define REF_BUDGET_NS		50000000ULL	/* 50 ms */
#define REF_MAX_LOOPS		2

struct ref_loops {
	/* One call of loop which (0 .. nr - 1): the ops it did, at least 1. */
	uint64_t (*run)(void *arg, unsigned int which);
	void *arg;
	unsigned int nr;		/* 1 or 2 */
};

/* ns[which]: median ns per op of each loop. */
void ref_time(const struct ref_loops *loops, double ns[REF_MAX_LOOPS]);

struct mdb_state;

/*
 * The metadata's share of a kernel that also touches data: loop 0 the
 * metadata alone, loop 1 the whole, timed as above; counters metadata_ns,
 * full_ns and metadata_share = metadata_ns / full_ns.
 */
void ref_metadata_share(struct mdb_state *st, const struct ref_loops *loops);

#endif /* MDB_REF_H */
