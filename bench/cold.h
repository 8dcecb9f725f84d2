/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cold.h - making an op start cold, as a kernel path that has not run for a
 * while does: every data line it will read flushed from every cache level,
 * and the TLB emptied of its translations.
 *
 * Flushing is targeted (clflush on x86-64, dc civac on arm64): the kernel
 * names the lines its next ops will read, so they come from DRAM whatever
 * the size of the LLC, where a sweep through a buffer larger than the LLC
 * would cost milliseconds per op and still leave an inclusive-cache victim
 * or two.  The TLB sweep touches one line on each of COLD_TLB_PAGES 4 KiB
 * pages (twice the largest second-level TLB in use, 4096 entries; transparent
 * huge pages refused), spread over every cache set: it evicts every
 * translation and the L1 along the way.
 *
 * Both run with timing paused (mdb_pause_timing()), before a batch of
 * COLD_OPS ops whose lines were all flushed: a pause and resume leaves one
 * of Google Benchmark's clock reads, a syscall, inside the timed region
 * (about 290 ns on the development machine), so one pair per op would add
 * more than the op costs; per batch it adds that over COLD_OPS (~3%, not
 * subtracted).  The ops of
 * a batch are dependent (bench/walk.h), so their misses do not overlap, and
 * each finds its own lines cold; their pfns are random, so they rarely share
 * a page and each pays its page walk.  Compiled once.
 */
#ifndef MDB_COLD_H
#define MDB_COLD_H

#include <stdbool.h>
#include <stddef.h>

#define COLD_OPS		32
#define COLD_TLB_PAGES		8192

struct cold {
	char *buf;		/* COLD_TLB_PAGES pages, touched once per process */
	size_t bytes;
};

/* Whether this architecture has a cache-line flush user space may use. */
bool cold_supported(void);
/* The process's sweep buffer, mapped on the first call; NULL when it cannot be. */
const struct cold *cold_buffer(void);
/* Flushes every line of [p, p + len) from every cache level. */
void cold_flush(const void *p, size_t len);
/* Evicts every TLB entry (and the L1); waits for earlier flushes to finish. */
void cold_sweep(const struct cold *c);

#endif /* MDB_COLD_H */
