/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kernel.h - what a benchmark kernel is, and what it is handed.
 *
 * A kernel is one MDB_KERNEL() registration in the file that defines it,
 * carrying everything the program, the dump and the scripts need to know
 * of it: name, class, the unit of one op, flags, the ops to run under
 * --simulate and its analytic-model hook.  Registrations land in one linker
 * section ("mdb_kernels"), as the kernel's initcalls do, so nothing else
 * lists kernels: adding one is its registration (and, for a new file, one
 * line in bench/CMakeLists.txt).
 *
 * A file compiled once per layout (layouts/layout.h) registers one copy per
 * layout, each bound to that layout's ops and with the layout API inlined;
 * a file compiled once registers a kernel that works through struct
 * layout_ops and so runs on every layout, or a baseline (no layout).
 *
 * A threaded kernel (MDB_K_THREADED) runs on each of mdbench's --threads
 * counts, its run() on every thread at once (mdb_thread_index()); what its
 * threads share it makes in setup(), once, before any of them starts and
 * outside every timing, with the memmap already built, and undoes in
 * teardown() after the last.  Only setup() and teardown() may write env.
 */
#ifndef MDB_KERNEL_H
#define MDB_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"
#include "mdb.h"
#include "mix.h"

struct model_blocks;
struct model_lines;

struct bench_env {
	const struct layout_ops *ops;	/* NULL for baselines */
	struct memmap *mm;		/* built from mix over nr_pfns; NULL for baselines */
	unsigned long nr_pfns;		/* modelled RAM / 4 KiB */
	const struct mix *mix;
	const struct memmap_opts *opts;
	uint64_t seed;
	size_t buf_bytes;		/* baselines: working-set size */
	unsigned int threads;		/* threads running the kernel: 1 unless MDB_K_THREADED */
	void *shared;			/* a threaded kernel's: what its setup() made */
};

/* What bounds a kernel, for plots and the choice of baseline. */
enum mdb_kernel_class {
	MDB_SEQUENTIAL,		/* streams the memmap: bandwidth bounds it */
	MDB_DEPENDENT,		/* one dependent chain of loads per op: latency bounds it */
	MDB_MUTATING,		/* allocates, frees, migrates */
	MDB_BASELINE,		/* the machine's own limits, layout independent */
	MDB_REPORT,		/* no timing: its result is in its counters (footprint) */
	MDB_NR_CLASSES
};

enum mdb_kernel_flags {
	MDB_K_MUTATES = 1 << 0,		/* leaves the memmap changed: gets its own copy */
	MDB_K_NO_MEMMAP = 1 << 1,	/* builds what it needs itself */
	/*
	 * Measures hugetlb folios: on a mix with them it runs with HVO off and
	 * on (hvo:off, hvo:on) unless --hvo names one; the others run with
	 * HVO off only, unless --hvo asks for more.  Report kernels always do.
	 */
	MDB_K_HVO = 1 << 2,
	MDB_K_HVO_ON = 1 << 3,		/* needs HVO on (it remaps): only at hvo:on */
	MDB_K_THREADED = 1 << 4,	/* runs on several threads at once: name ends /threads:N */
	/*
	 * A term of scripts/project's, not of the headline: the quick profile
	 * runs it at 256MiB only (project takes it there), and a dependent one
	 * is not in --simulate's headline set nor sizes the headline.
	 */
	MDB_K_NOT_HEADLINE = 1 << 5,
};

/*
 * Which pfns a kernel's walk reaches, for its working set (bench/ws.c):
 * their memmap entries and the descriptors they lead to.
 */
enum mdb_ws_reach {
	MDB_WS_ALL,		/* every pfn (the default) */
	MDB_WS_NONE,		/* no metadata beyond a few lines: address arithmetic (convert/), a warm walk */
	MDB_WS_FOLIOS,		/* the pages of folios (anon, file, hugetlb) */
	MDB_WS_FOLIO_TAILS,	/* the tail pages of large folios */
	MDB_WS_HUGETLB,		/* the pages of hugetlb folios */
	MDB_WS_HUGETLB_TAILS_2M,	/* the tails of 2 MiB hugetlb folios */
	MDB_WS_HUGETLB_TAILS_1G,	/* the tails of 1 GiB hugetlb folios */
};

/*
 * One /proc/vmstat event counter whose events are a kernel's ops, for
 * scripts/project: a workload did sum(ops_per_event x the counter's delta)
 * of the kernel's ops (a negative entry takes out events another kernel
 * counts).  A counter ending in '*' stands for every counter it prefixes
 * (pgalloc_* for pgalloc_dma, pgalloc_dma32, pgalloc_normal, ...); one
 * starting "derived:" is scripts/project's, made from others where an event
 * is not an op (derived:alloc_order0: allocations, where pgalloc_* counts
 * pages; scripts/lib/mdb_project.py says how each is made).
 */
struct mdb_vmstat {
	const char *counter;
	double ops_per_event;
};

/* .vmstat = MDB_VMSTAT({ "pgmigrate_success", 1 }, { "thp_migration_success", -MDB_THP_PAGES }) */
#define MDB_VMSTAT(...)	((const struct mdb_vmstat[]){ __VA_ARGS__, { NULL, 0 } })
/* HPAGE_PMD_NR of the 4 KiB host whose /proc/vmstat is projected: what one PMD THP adds to pgmigrate_success. */
#define MDB_THP_PAGES	(1 << MIX_4K_MAX_FOLIO_ORDER)

struct mdb_kernel {
	const char *name;		/* "lookup/random": the benchmark name's first part */
	enum mdb_kernel_class class;
	const char *unit;		/* what one op is: "lookup", "pfn", "alloc+free pair" */
	void (*run)(struct mdb_state *st, const struct bench_env *env);
	unsigned int flags;
	uint64_t sim_ops;		/* ops to run under --simulate */
	/*
	 * Cache and TLB misses an op cannot avoid, at least: a -cold op's lines
	 * are all flushed and its translations swept (cold.h), so it misses at
	 * least its memmap entry.  A miss counter that reads 0 on such a kernel
	 * did not count (an emulated PMU): the dump says not trusted.  0: no floor.
	 */
	double min_misses;
	/* Data lines per op the analytic model predicts (bench/model.c); NULL: none. */
	bool (*model)(const struct layout_ops *ops, const struct model_blocks *b,
		      struct model_lines *lines);
	/*
	 * A threaded kernel's shared state, made once before its threads run
	 * (0, or -1 with err: every thread fails with it) and undone after
	 * (NULL: nothing to share).
	 */
	int (*setup)(struct bench_env *env, struct mdb_err *err);
	void (*teardown)(struct bench_env *env);
	/* The layout this copy inlines; NULL: any layout (through ops), or a baseline. */
	const struct layout_ops *layout;
	/*
	 * Whether the kernel has anything to measure on a mix and layout
	 * (hugetlb kernels need hugetlb folios; ops is NULL for the live
	 * kernel); the plan leaves it out of the others.  NULL: every mix.
	 */
	bool (*applies)(const struct mix *mix, const struct layout_ops *ops);
	/* What its walk reaches (working set); sampled: a random list of at most BENCH_LIST_MAX. */
	enum mdb_ws_reach ws;
	bool ws_sampled;
	/*
	 * A kernel reporting metadata_share (ref.h): what the whole it divides
	 * by holds and leaves out, for the dump (kernels[].metadata_share_of).
	 */
	const char *share_of;
	/* The vmstat counters that count its op on a live kernel; NULL: none does. */
	const struct mdb_vmstat *vmstat;
};

#ifdef MDB_LAYOUT
#define MDB_KERNEL_LAYOUT	(&LAYOUT_SYM(ops))
#else
#define MDB_KERNEL_LAYOUT	NULL
#endif

/*
 *	MDB_KERNEL(lookup_seq, .name = "lookup/seq", .class = MDB_SEQUENTIAL,
 *		   .unit = "pfn", .run = lookup_seq, .sim_ops = 1 << 18);
 */
#define MDB_KERNEL(id, ...)							\
	static const struct mdb_kernel id##_kernel = {				\
		.layout = MDB_KERNEL_LAYOUT, __VA_ARGS__			\
	};									\
	static const struct mdb_kernel *const id##_kernel_entry			\
	__attribute__((used, section("mdb_kernels"), aligned(sizeof(void *)))) = &id##_kernel

/* Every registered kernel, in link order (the linker makes these). */
extern const struct mdb_kernel *const __start_mdb_kernels[] __attribute__((weak));
extern const struct mdb_kernel *const __stop_mdb_kernels[] __attribute__((weak));

/* "sequential", "dependent", "mutating", "baseline", "report". */
const char *mdb_kernel_class_name(enum mdb_kernel_class class);

/* Whether k runs on layout ops (bound to it, or through ops); baselines never. */
static inline bool mdb_kernel_runs_on(const struct mdb_kernel *k, const struct layout_ops *ops)
{
	return k->class != MDB_BASELINE && (!k->layout || k->layout == ops);
}

/* Whether k has anything to measure on mix and layout ops (NULL: the live kernel). */
static inline bool mdb_kernel_applies(const struct mdb_kernel *k, const struct mix *mix,
				      const struct layout_ops *ops)
{
	return !k->applies || k->applies(mix, ops);
}

/*
 * The registered kernels, checked and sorted by name: every layout must have
 * the same set (a layout missing one is a build error, caught here at run
 * time before anything runs).  0, or -1 with err.  The array is static.
 */
int mdb_kernels(const struct mdb_kernel *const **list, unsigned int *nr, struct mdb_err *err);
/* The kernel named name that runs on ops (NULL ops: a baseline); NULL if none. */
const struct mdb_kernel *mdb_kernel_find(const char *name, const struct layout_ops *ops);

/*
 * A known difference (CMake -DMDB_KNOWN_EXTRA=P, 1..100, compiled into every
 * layout's per-layout kernels alike): while bench_known_on is set (mdbench
 * sets it for the instances of -DMDB_KNOWN_LAYOUT, a layout or the
 * reference's placebo twin, before each runs), a kernel's batches run P%
 * more of their own ops than they count, every batch in the timed loop as
 * the kernel wrote it (the same list, the same dependent chain), so that
 * instance's time per op reads P% higher than its work would give and the
 * suite must find it slower.  An accumulator spreads the extra batches
 * evenly (P of every 100 counted); it restarts when a loop ends.  The dump
 * records it (context.memdesc_bench.known_extra).  Never in a build whose
 * numbers are meant as measurements.  Set before the instance's threads
 * start, read by them only.
 */
extern bool bench_known_on;

#ifdef MDB_KNOWN_EXTRA
_Static_assert(MDB_KNOWN_EXTRA >= 1 && MDB_KNOWN_EXTRA <= 100, "MDB_KNOWN_EXTRA: 1 to 100 (%)");

static _Thread_local unsigned int bench_known_acc;

static inline bool bench_known_keep_running(struct mdb_state *st, uint64_t n)
{
	if (bench_known_acc >= 100) {		/* an uncounted batch, inside the clock */
		bench_known_acc -= 100;
		return true;
	}
	if (!mdb_keep_running_batch(st, n)) {
		bench_known_acc = 0;
		return false;
	}
	bench_known_acc += bench_known_on ? MDB_KNOWN_EXTRA : 0;
	return true;
}
#define mdb_keep_running_batch(st, n) bench_known_keep_running(st, n)
#endif

#endif /* MDB_KERNEL_H */
