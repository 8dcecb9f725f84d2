/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.h - the analytic cache-line model of the sequential kernels.
 *
 * For a kernel that walks the pfn range in order, the data lines it must
 * bring into L1 per op follow from the layout and the mix alone: the memmap
 * bytes it reads per pfn over 64, plus, per block of the mix (a folio, a free
 * block, a slab ...), the lines of whatever it must hop to beyond the memmap
 * (a separately allocated descriptor, page64's second struct page of a large
 * folio).  A line is counted once however many ops of the same block read
 * it, since a sequential walk finishes with a block before it moves on.
 * No prefetching, no reuse across blocks: that is what callgrind simulates,
 * so the simulated D1 misses per op must match their sum
 * (tests/bench/test_bench_sim.py); the split into streamed and dependent
 * lines (struct model_lines) says which of them a prefetcher could hide.
 *
 * Layout independent: compiled once; what it knows about each layout is the
 * layout's own LAYOUT_MODEL (struct layout_model, offsets taken with
 * offsetof from its header), and the simulation test checks the predictions
 * against callgrind.  Each kernel with a model names its hook in its
 * registration (kernel.h).
 */
#ifndef MDB_MODEL_H
#define MDB_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"

/* Blocks the mix places over nr_pfns, as mix_plan_init() counts them. */
struct model_blocks {
	unsigned long nr_pfns;
	unsigned long nr[PK_NR][MIX_NR_ORDERS];	/* the leftover free pfns are order 0 */
};

/*
 * 0, or -1 with err when the mix cannot be placed.  age DESC_AGED counts
 * the blocks where the allocation trace (age.h) leaves them; every other
 * age leaves them as placed.
 */
int model_count_blocks(struct model_blocks *b, const struct mix *mix, unsigned long nr_pfns,
		       uint64_t seed, enum desc_age age, struct mdb_err *err);

/*
 * The orders the compaction scan (bench/scan.c) isolates: below the target
 * of a compaction for a THP (cc->order = HPAGE_PMD_ORDER, pageblock_order
 * on x86-64); skip_isolation_on_order() skips folios of that order and up.
 */
#define SCAN_COMPACT_ORDER	PAGEBLOCK_ORDER

/* The pages compaction isolates before it migrates them: SWAP_CLUSTER_MAX. */
#define COMPACT_CLUSTER_MAX	32

/*
 * Data lines per op, split by what can hide them.  Streamed: memmap lines
 * the walk reads in pfn order, each the line after the last one it read
 * (or one of several it reads at once from a pfn it knows), which a
 * prefetcher following the walk has in flight.  Dependent: lines whose
 * address comes from a value the op loads and that follow no such stream: a
 * descriptor reached through its memdesc, the entry a skip lands on past a
 * gap (the step is an order read from memory), a random pfn's entry; each
 * is a miss on the critical path.  Callgrind, which has no prefetcher,
 * misses on both: it checks their sum.  (Descriptors a fresh cache handed
 * out in pfn order lie in order too, so a prefetcher may follow those as
 * well; the model counts what the layout guarantees, not what a cache's
 * history happens to give.)
 */
struct model_lines {
	double streamed;
	double dependent;
};

static inline double model_lines_total(const struct model_lines *l)
{
	return l->streamed + l->dependent;
}

/*
 * The hooks kernels register: data lines per op the kernel must bring into
 * L1 for this layout on these blocks; false when the layout's geometry is
 * outside what the model covers.
 */
typedef bool model_fn(const struct layout_ops *ops, const struct model_blocks *b,
		      struct model_lines *lines);
model_fn model_none;			/* convert/...: arithmetic, no data line */
model_fn model_lookup_seq;
model_fn model_scan_compaction;
model_fn model_compaction_cluster;	/* per cluster of COMPACT_CLUSTER_MAX pages */
model_fn model_init_memmap;

/* A descriptor stride that stands for "no order": the aged caches' (age.h). */
#define MODEL_DESC_SCATTERED	(~0U)

/*
 * A kernel's hook on a mix placed over nr_pfns, counting the blocks first,
 * for the layout as opts builds it (folio descriptor size, ageing); false
 * where the model does not cover those conditions (aged descriptors for a
 * kernel that reads them).
 */
bool model_predict(model_fn *fn, const struct layout_ops *ops, const struct mix *mix,
		   unsigned long nr_pfns, const struct memmap_opts *opts, struct model_lines *lines);

#endif /* MDB_MODEL_H */
