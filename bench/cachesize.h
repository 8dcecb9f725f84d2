/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cachesize.h - the machine's caches as a pointer chase sees them, not as
 * the CPUID (or a hypervisor's idea of it) says.
 *
 * cache_probe() times baseline/latency's chase (chase.h, one random cycle
 * through every line of a buffer) over doubling buffers from
 * CACHE_PROBE_MIN to a bound, each the best of CACHE_PROBE_REPS timings (a
 * loaded machine only ever adds time).  cache_knees() finds the knees of
 * that curve: the largest size of each latency plateau before the latency
 * climbs, i.e. the size of each cache level.  The probe stops once two
 * sizes in a row load at memory's latency (CACHE_MEMORY_OVER_L1), or at
 * its bound: a second or two on the development VM; the detector is a
 * pure function, tested on recorded curves.
 */
#ifndef MDB_CACHESIZE_H
#define MDB_CACHESIZE_H

#include <stdint.h>

#include "err.h"

#define CACHE_PROBE_MIN		(8ULL << 10)
#define CACHE_PROBE_MAX		(256ULL << 20)	/* the largest bound cache_probe() takes */
#define CACHE_PROBE_SIZES	16		/* 8 KiB .. 256 MiB, doubling */
#define CACHE_PROBE_REPS	8
#define CACHE_PROBE_LOADS	(1U << 15)	/* dependent loads a timing: a few ms at most */

/*
 * A climb starts where the latency grows by more than CACHE_KNEE_STEP from
 * one size to the next (twice the size), and counts as a cache level's end
 * once it has grown by CACHE_KNEE_RISE over the plateau before it.
 */
#define CACHE_KNEE_STEP		1.2
#define CACHE_KNEE_RISE		1.5
#define CACHE_MAX_KNEES		8
/*
 * Memory, not a cache: a load at least CACHE_MEMORY_OVER_L1 times the
 * smallest size's (DRAM is 80-150x an L1 hit, a last-level cache 8-35x, on
 * the x86-64 and arm64 server cores of 2020-2026).
 */
#define CACHE_MEMORY_OVER_L1	40.0

struct cache_curve {
	unsigned int n;
	uint64_t bytes[CACHE_PROBE_SIZES];	/* doubling */
	double ns[CACHE_PROBE_SIZES];		/* per dependent load */
	double seconds;				/* what the probe took */
};

struct cache_knee {
	uint64_t bytes;		/* the last size of the plateau: the cache's size */
	double below_ns;	/* the plateau's latency */
	double above_ns;	/* where the climb stops */
};

/* The curve from CACHE_PROBE_MIN up to max_bytes (<= CACHE_PROBE_MAX). 0, or -1 with err. */
int cache_probe(struct cache_curve *c, uint64_t max_bytes, uint64_t seed, struct mdb_err *err);
/*
 * The knees of a curve (sizes doubling, at least 3 points), smallest first,
 * at most max of them; 0 for a flat curve.  Upward noise (a point timed
 * while something else ran) is taken out first: each point is lowered to
 * the least latency at its size or any larger one, which no cache can beat.
 */
unsigned int cache_knees(const struct cache_curve *c, struct cache_knee *knee, unsigned int max);
/*
 * The last-level cache: the first knee whose climb reaches memory
 * (CACHE_MEMORY_OVER_L1 times the curve's first point), its index in
 * knee[]; -1 when none does (the probe stopped inside a cache: the last
 * level is larger than its bound).  On a loaded machine the climb out of
 * L2 can run on into memory with no plateau between: that knee is then the
 * last level as this machine gives it to one thread now.
 */
int cache_llc_knee(const struct cache_curve *c, const struct cache_knee *knee, unsigned int nr);

#endif /* MDB_CACHESIZE_H */
