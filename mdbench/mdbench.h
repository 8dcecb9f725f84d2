/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mdbench.h - the mdbench program: what a run asked for, the benchmark
 * instances it expands to, and how its parts (options, plan, native run,
 * dump context, --list, --simulate) reach each other.
 */
#ifndef MDB_MDBENCH_H
#define MDB_MDBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "cachesize.h"
#include "conditions.h"
#include "counters.h"
#include "err.h"
#include "kernel.h"
#include "topology.h"

#define MDB_NAME_LEN		256
#define MDB_SCHEMA_VERSION	2
/* --ram's step: one pageblock of the run's base page (2 MiB at 4k, 32 MiB at 16k, 512 MiB at 64k), the unit the mix is placed in. */
#define MDB_RAM_STEP		(1ULL << (PAGEBLOCK_ORDER + MDB_PAGE_SHIFT))
/* The layout name of the live kernel (realkernel.c); never in layouts.list. */
#define MDB_REAL_LAYOUT		"kernel"

/*
 * One registered benchmark: a kernel, a layout (NULL for baselines), a mix,
 * a size.  Names are '/'-separated: the kernel's name, the layout, then
 * key:value parts:
 *	lookup/random/page64/mix:desktop/ram:4GiB
 *	footprint/memdesc8/mix:desktop/ram:4GiB/folio:96B	(--folio-desc-bytes)
 *	folio/tail-hugetlb-1g/page64/mix:vm-host-512g/ram:8GiB/hvo:on
 *		(a mix with hugetlb folios: HVO off and on, --hvo)
 *	lookup/random/kernel/mix:kpageflags:HOST/ram:1GiB
 *	folio/getput-shared/page32/mix:desktop/ram:4GiB/threads:8	(MDB_K_THREADED)
 *	baseline/latency/bytes:64MiB
 * An instance of the live kernel (real) has no ops: the module runs the
 * kernel of that name (kernel points at the reference layout's registration,
 * for its name, class and unit only; its run is never called).  A threaded
 * kernel has one instance per --threads count, named with Google
 * Benchmark's own "/threads:N", which it appends to what is registered.
 */

struct mdb_instance {
	char name[MDB_NAME_LEN];
	const struct mdb_kernel *kernel;
	/*
	 * Its memmap's conditions: the run's, with what its group varies
	 * (the --folio-desc-bytes size, 0: the layout's; HVO; the cache
	 * option of another option's report group).  cond.ops is NULL for
	 * baselines and the live kernel, cond.mix for baselines.
	 */
	struct mdb_cond cond;
	unsigned int named;		/* MDB_COND_NAME_*: what its name says of cond */
	bool real;			/* the live kernel, through mdbench_kmod */
	uint64_t buf_bytes;		/* baselines */
	unsigned int threads;		/* a threaded kernel's thread count; 0: unthreaded */
	bool selected;			/* passes --benchmark_filter */
	/* The metadata its walk touches (bench/ws.h), or a baseline's buffer. */
	uint64_t ws_bytes;
	bool ws_known;			/* false: the live kernel's, which the module walks */
	double est_seconds;		/* estimated cost of one round of it, for ETAs */
	size_t group;			/* index in run->groups: the round's batch it runs in */
	size_t group_next;		/* the group's next instance; 0: none */
};

/* The last-level cache and the headline RAM size chosen from it (mdb_headline()). */
struct mdb_machine {
	unsigned long long llc_bytes;	/* what the headline is sized from; 0: no cache known */
	unsigned int llc_level;
	unsigned long long llc_hwloc_bytes;	/* hwloc's last level above the CPU; 0: none */
	unsigned long long llc_measured_bytes;	/* the probe's (caches.c); 0: not measured or no knee */
	const char *llc_source;		/* "measured" or "hwloc" */
	char llc_reason[MDB_ERR_LEN + 64];	/* why that one */
	bool probed;			/* the probe ran: curve and knees hold its results */
	bool probe_asked;		/* measure (--llc=measure, or a run that needs the headline) */
	unsigned long long llc_given;	/* --llc=SIZE; 0: none */
	struct cache_curve curve;
	struct cache_knee knee[CACHE_MAX_KNEES];
	unsigned int nr_knees;
	int llc_knee;			/* index in knee[] of the last level; -1: none */
	uint64_t headline_ram;		/* 0: no LLC to size it from */
	const char *headline_reason;	/* why it stopped there */
	bool headline_capped;		/* by memory: the working-set rule wanted more */
	unsigned long long memory_limit;	/* bytes a headline memmap may take */
};

/*
 * --rounds=auto: the groups at the headline size run MDB_AUTO_MIN_ROUNDS
 * rounds, every other benchmark one; then, round by round,
 * one more round of each group (every layout of one kernel, mix, RAM,
 * threads and conditions) with a row still undecided: a layout whose
 * MDB_AUTO_CONFIDENCE interval of its ratio to the reference layout,
 * paired by round (rounds.h: the statistic and interval of the reports'
 * verdicts), neither excludes 1 nor lies within +-MDB_AUTO_MARGIN.  The
 * round runs the reference and the undecided rows only, interleaved
 * (native.c); a group stops when every row is decided, at
 * MDB_AUTO_MAX_ROUNDS, or when --time-budget would be passed by its next
 * round, the groups at the headline size offered the budget first.  A
 * group of one benchmark (a baseline) has no row: it stops at the minimum.
 *
 * Ten, not the five a test can just work with: the rows' 20% trimmed
 * means (rounds.h) cut one round at each end of five and keep three, whose
 * 99% Yuen interval takes t(0.995, 2) = 9.92 standard errors, against two
 * of ten and six kept, t(0.995, 5) = 4.03; and between runs, of b1-b4's
 * headline rows (docs/results.md, then by the U test) cut to their first
 * five rounds 49.5% read the same within +-10% from run to run, against
 * 57.2% as run (5 to 11 rounds).
 */
#define MDB_AUTO_MIN_ROUNDS	10
#define MDB_AUTO_MAX_ROUNDS	30
#define MDB_AUTO_CONFIDENCE	0.99
#define MDB_AUTO_MARGIN		0.05	/* mdb_stats.DEFAULT_MARGIN: 'same within +-5%' */

/* CMake's -DMDB_KNOWN_LAYOUT for the reference's placebo twin (native.c, bench/kernel.h). */
#define MDB_KNOWN_TWIN		"twin"

/* A number macro's value as a string literal (the help text's). */
#define MDB_NUM_STR_(x)		#x
#define MDB_NUM_STR(x)		MDB_NUM_STR_(x)

/*
 * The pool's free pages at most: on the development VM twelve 256 MiB
 * builds drawn from 3 GiB ran 198-219 ns a random hop, twelve faulted in
 * 166-279 ns (docs/conditions.md, "A build's memory").
 */
#define MDB_MEMMAP_POOL_BYTES	(1ULL << 30)

/* One group: a round's batch, and for --rounds=auto its state, for the dump. */
struct mdb_group {
	char key[MDB_NAME_LEN];		/* the name with the layout taken out */
	size_t first;			/* its first instance; the others follow in group_next */
	unsigned int rounds;		/* its reference's */
	unsigned int undecided;		/* rows still undecided at the last pass */
	const char *stopped;		/* NULL: still open */
};

struct mdb_run {
	const char *profile;		/* "quick", "full" or "smoke" */
	const char *out_dir;		/* NULL: no dump directory */
	const char *filter;		/* --benchmark_filter, "" for all */
	bool force;			/* --force: replace an earlier run's files in out_dir */
	unsigned int rounds;		/* --rounds: each instance this many times, round-major */
	bool rounds_auto;		/* --rounds=auto: rounds is the minimum */
	double time_budget;		/* --time-budget in seconds; 0: none */
	unsigned int round_reps;	/* --round-reps: short runs a timed round is made of (rounds.h) */
	bool memmap_pool;		/* --memmap-pool: builds' 2 MiB pages from the pool (vmemmap.h) */
	struct mdb_group *groups;	/* --rounds=auto's, once it ran */
	size_t nr_groups;
	uint64_t fixed_ops;		/* --fixed-ops, checked with the other options; 0: not given */
	const struct layout_ops **layouts;	/* NULL-terminated, layouts.list order */
	unsigned int nr_layouts;
	uint64_t *ram_sizes;
	unsigned int nr_ram_sizes;
	/*
	 * The conditions every memmap of the run shares (cond.base: the
	 * kernel modelled pages RAM in these, --base-page; cond.opts: pages,
	 * age, compaction, cache option, SLUB, seed; folio size 0, HVO off;
	 * no layout, mix or RAM), applied (mdb_cond_apply()) before any mix
	 * is placed.  mixes[] are the mixes placed at the base page
	 * (mix_translate()); given_mixes[] as given, in 4 KiB orders, and
	 * how[] what each entry became.
	 */
	struct mdb_cond cond;
	bool base_given;
	struct mix *mixes;
	struct mix *given_mixes;
	struct mix_translation (*mix_how)[MIX_MAX_ENTRIES];
	unsigned int nr_mixes;
	int kpageflags_mix;		/* index of --mix=kpageflags in mixes; -1: none */
	struct mdb_real *real;		/* --layout=...,kernel: the module; NULL: not asked */
	uint64_t *baseline_sizes;	/* memmap sizes of every layout and RAM size */
	unsigned int nr_baseline_sizes;
	unsigned int *folio_sizes;	/* --folio-desc-bytes, as given; none: the layouts' own */
	unsigned int nr_folio_sizes;
	/*
	 * --hvo: the HVO modes the memmaps of mixes with hugetlb folios are
	 * built in.  Not given: off for every kernel, and on as well for the
	 * MDB_K_HVO kernels and the reports (both reported either way).
	 */
	bool hvo[HVO_MODE_NR];
	bool hvo_given;
	struct age_replay replay;	/* --desc-age=trace:FILE's events; cond.opts.replay points here */
	int cpu;			/* -1: not pinned */
	int node;			/* -1: not bound */
	unsigned int *thread_counts;	/* --threads, ascending, each <= nr_cpus */
	unsigned int nr_thread_counts;
	bool threads_given;		/* --threads was on the command line */
	int *cpus;			/* where thread i of a threaded benchmark runs (topology order) */
	unsigned int nr_cpus;		/* CPUs mdbench may use: --threads=max */
	struct mdb_instance *inst;
	size_t nr_inst, nr_selected;
	size_t inst_cap;		/* room in inst (mdb_grow()) */
	char run_id[64];		/* UTC time and 32 random bits */
	/* What the run needs beyond its plan, for the dump. */
	int argc;
	char **argv;
	struct mdb_counters counters;
	struct mdb_topology topo;
	bool topo_loaded;
	struct mdb_machine machine;
	double min_time;		/* seconds Google Benchmark runs each benchmark at least */
	/*
	 * The quick profile at its headline size runs the kernels that share
	 * their group's memmap and the reports, not those that change it (a
	 * fresh headline-sized memmap for every call: alloc/, migrate/,
	 * init/), which run at its small size; the full profile runs them all,
	 * and so does a run beside the live kernel (add_hvo_groups()).
	 */
	bool lean_headline;
	/*
	 * The quick and full profiles at the headline size also run the
	 * reference layout's timed kernels a second time, as a placebo twin:
	 * a group of its own memmap built alike, named .../twin:b, in every
	 * round beside the others, so that the reports can say how large a
	 * change the run could have shown (the A/A interval).
	 */
	bool twin_headline;
	bool smoke_pairs;		/* the smoke profile: each mix at its own size only */
	bool sim_headline_only;		/* quick --simulate: the headline kernels (and reports) only */
	bool sim_regime;		/* --simulate's LL sized to the native headline's RAM over LLC */
};

/* plan.c: the instances of a run, and whether they fit. */
void mdb_plan(struct mdb_run *run);
/*
 * The headline RAM size (into run->machine): the smallest power of two of at
 * least MDB_HEADLINE_LLC_TIMES the last-level cache (mdb_measure_caches()) at which every layout's
 * working set of every headline kernel (mdb_headline_kernel()) is at least
 * MDB_HEADLINE_WS_TIMES the cache, on the run's first mix; or where that
 * working set stops growing (sampled walks); capped where a layout's memmap
 * and descriptors would pass half of MemAvailable.  Needs the layouts,
 * mixes and topology.
 */
#define MDB_HEADLINE_LLC_TIMES	16
#define MDB_HEADLINE_WS_TIMES	4
#define MDB_HEADLINE_MAX_RAM	(1ULL << 50)	/* 1 PiB, --ram's own limit */
void mdb_headline(struct mdb_run *run);
/*
 * caches.c: the last-level cache the headline is sized from (into
 * run->machine): hwloc's, and, where probe_asked, each level's size from
 * the latency knees of a pointer chase (bench/cachesize.h); the measured
 * one where the two differ by more than MDB_LLC_DISAGREE times.
 */
#define MDB_LLC_DISAGREE	2
void mdb_measure_caches(struct mdb_run *run);
/* The dump's machine.caches: per hwloc level its size, CPUs sharing it, the knee measured. */
json_t *mdb_caches_json(const struct mdb_run *run);
/* The dump's machine.probe: the latency curve and its knees; null where the probe did not run. */
json_t *mdb_probe_json(const struct mdb_run *run);
/*
 * The smoke profile's one RAM size for a mix: 32 pageblocks, 64MiB at 4k
 * (the aged trace's compaction leaves the order-9 kernels a free
 * pageblock), or twice the largest hstate (2GiB at 4k) for one with such
 * hugetlb folios.
 */
uint64_t mdb_smoke_ram(const struct mix *mix);
/* The kernels the headline is measured with: the dependent ones that read the memmap of any mix. */
bool mdb_headline_kernel(const struct mdb_kernel *k);
/* Bytes of memmap and descriptors a layout needs for mix at ram, the largest folio size swept. */
unsigned long long mdb_memory_need(const struct mdb_run *run, const struct layout_ops *ops,
				   const struct mix *mix, uint64_t ram);
/* What to register: the name without the "/threads:N" Google Benchmark appends. */
void mdb_instance_gb_name(const struct mdb_instance *in, char *buf, size_t len);
/* Benchmark name -> true if it passes filter (Google Benchmark's regex syntax). */
bool mdb_filter_match(const char *filter, const char *name);
/* The distinct kernels of the selected instances, in plan order; NULL-terminated, malloc'd. */
const struct mdb_kernel **mdb_run_kernels(const struct mdb_run *run);
/*
 * The layout the dump's ratios are taken against: the first layout run
 * (layouts.list order), never one the run left out; with --layout=kernel
 * alone, the live kernel itself.
 */
static inline const char *mdb_run_reference(const struct mdb_run *run)
{
	return run->nr_layouts ? run->layouts[0]->name : MDB_REAL_LAYOUT;
}

/* native.c: the Google Benchmark run, and one instance for a fixed count of ops. */
int mdb_run_native(struct mdb_run *run);
int mdb_run_fixed(const struct mdb_run *run, const struct mdb_instance *in, uint64_t ops,
		  void (*on_start)(void *arg), void (*on_stop)(void *arg), void *arg,
		  uint64_t *items, struct mdb_err *err);
/*
 * --fixed-ops: every selected instance for ops ops, "NAME: N items" or
 * "NAME: error: ..." each; with counters, then "NAME: counters a=N ...", the
 * raw totals from the first op to the last (pauses included: a -cold
 * kernel's flushes count).
 */
int mdb_run_fixed_all(struct mdb_run *run, uint64_t ops);

/* context.c: what the dump says of the run. */
/*
 * A memmap an instance was built on: what the kernel gave (huge pages) and
 * how its descriptors lie, for conditions.memmaps; says on stderr, once a
 * run, when 2 MiB pages were asked and not all obtained.
 */
void mdb_note_memmap(const struct mdb_run *run, const struct mdb_instance *in,
		     const struct memmap *mm);
json_t *mdb_context(const struct mdb_run *run, bool complete);
json_t *mdb_context_cb(bool complete, void *run);	/* as struct mdb_report.context */
/* Into an instance's entry (dump and --list=json): working_set_bytes and ram_over_llc (null where unknown). */
void mdb_instance_ws_json(const struct mdb_run *run, const struct mdb_instance *in, json_t *o);
json_t *mdb_layout_json(const struct layout_ops *ops);
json_t *mdb_kernel_json(const struct mdb_kernel *k);
/* The false-sharing table of the run's layouts (bench/false_sharing.h), as JSON rows. */
json_t *mdb_false_sharing_json(const struct mdb_run *run);
/* The short form of the context in Google Benchmark's own context (AddCustomContext). */
void mdb_add_gb_context(const struct mdb_run *run);
/* DIR/mix.json and DIR/topology.xml. 0, or -1 with err. */
int mdb_write_side_files(const struct mdb_run *run, struct mdb_err *err);

/* list.c: --list and --list=json. */
int mdb_list(const struct mdb_run *run, bool json);

/* outdir.c: --out: the directory, its lock, and no earlier run's files left looking current. */
int mdb_outdir_open(const char *dir, bool force, bool simulate, struct mdb_err *err);
/* The run could not start: the files it wrote into --out so far are removed. */
void mdb_outdir_abandon(void);

/*
 * realkernel.c: the layout "kernel", the running kernel's own memmap through
 * the mdbench_kmod module (kmod/).  mdb_real_open() opens its device (the
 * MDB_KMOD_DEVICE environment variable names another) and reads this
 * machine's online RAM from /proc/kpageflags; it exits 2 with one line when
 * it cannot (module not loaded, not root).
 */
struct mdb_real *mdb_real_open(const struct mdb_run *run);
void mdb_real_close(struct mdb_real *real);
/* This machine's online memory, rounded to the nearest MDB_RAM_STEP: the kernel instances' RAM. */
uint64_t mdb_real_ram_bytes(const struct mdb_real *real);
const char *mdb_real_release(const struct mdb_real *real);
unsigned int mdb_real_sizeof_page(const struct mdb_real *real);
/* Whether the module runs a kernel of this name. */
bool mdb_real_has_kernel(const struct mdb_kernel *k);
/*
 * Takes the kpageflags mix (mix: --mix=kpageflags) again between two scans
 * of the module's span that agree (at most 10 tries), so that the modelled
 * layouts place what the module walks, and records both censuses of the
 * span (the layout entry's snapshot).  Exits 2 with one line on an error.
 */
void mdb_real_snapshot(struct mdb_real *real, struct mix *mix);
/* One benchmark call of a real instance (arg): manual time, the module's. */
void mdb_real_bench(struct mdb_state *st, void *arg);
/*
 * The layout entry of context.memdesc_bench.layouts: real true, the release,
 * ...; brief: only name, real, release, sizeof_page and descriptors (for
 * Google Benchmark's own context, which its console prints).
 */
json_t *mdb_real_layout_json(const struct mdb_real *real, bool brief);

/* sim.c: --simulate, the parent. */
int mdb_simulate(struct mdb_run *run);
/* sim_child.c: one instance under valgrind, described by a JSON file. */
int mdb_simulate_child(struct mdb_run *run, const char *instance_file);
/* The instance as the child needs it: kernel, layout, mix, sizes, seed, ops. */
json_t *mdb_instance_json(const struct mdb_run *run, const struct mdb_instance *in, uint64_t ops);

#endif /* MDB_MDBENCH_H */
