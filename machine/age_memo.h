/* SPDX-License-Identifier: GPL-2.0 */
/*
 * age_memo.h - the allocation trace run once per run, not once per memmap.
 *
 * The trace (age.h, DESC_AGED) is layout independent: given the same plan
 * (folios, free blocks), pfns and seed it hands every layout the same
 * descriptor events in the same order and leaves the folios and free blocks
 * at the same pfns.  A run builds a memmap for each layout, mix, RAM size,
 * HVO mode and descriptor-cache option, and again for every kernel that
 * changes its memmap: at 16 GiB the trace's own buddy was 3.4 s of a 3.8 s
 * build, and the footprint pass alone built 160 of them.
 *
 * age_trace_memo_run() is age_trace_run() with a memory: the first call for
 * a (plan, nr_pfns, seed) runs the trace and records its descriptor events;
 * a later call with the same inputs replays them to its own ops and copies
 * the outcome.  What a layout sees is the same, event for event (tests/machine
 * test_age_memo checks it against age_trace_run()).  The last
 * AGE_MEMO_ENTRIES traces are kept: a run's sizes interleave over its rounds.
 * Calls are serialised by a lock; the ops run under it.
 */
#ifndef MDB_AGE_MEMO_H
#define MDB_AGE_MEMO_H

#include "age.h"

#define AGE_MEMO_ENTRIES	4

/* As age_trace_run(); *t is released with age_trace_release(). */
int age_trace_memo_run(const struct age_list *folios, const struct age_list *free_blocks,
		       unsigned long nr_pfns, uint64_t seed, const struct age_trace_ops *ops,
		       struct age_trace *t);

/* Traces run (not replayed) since the start, for tests. */
unsigned long age_memo_runs(void);

/* Forget every kept trace (tests, and to give the memory back). */
void age_memo_release(void);

#endif /* MDB_AGE_MEMO_H */
