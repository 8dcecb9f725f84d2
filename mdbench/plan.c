// SPDX-License-Identifier: GPL-2.0
/*
 * plan.c - the benchmark instances of a run, and whether they fit.
 *
 * Instances cross the RAM sizes, the mixes, the layouts and the kernels that
 * run on each layout, in that nesting, so that the benchmarks of one
 * (layout, mix, RAM) follow each other and share one memmap, built at the
 * first of them outside the timed loop.  Within a group, kernels that share
 * the memmap come first, then those that change it (each gets a fresh one),
 * then those that build their own; by name within each.  With
 * --folio-desc-bytes a layout that has separate folio descriptors gets one
 * group per size, named .../folio:<size>B; sizes below its struct folio
 * hold only the report kernels (footprint): the objects cannot shrink below
 * their fields, so a timing there would time the struct's own size under
 * another name.  On a mix with hugetlb folios every group is built with
 * HVO off and again with it on (.../hvo:off, .../hvo:on; --hvo chooses):
 * with HVO on only the kernels that measure hugetlb folios and the reports
 * run unless --hvo asked for it, and the kernels that remap (MDB_K_HVO_ON)
 * run only there.  A layout with folio descriptors also gets, for every
 * --desc-cache option other than the run's, a group of the report kernels
 * alone (.../cache:<option>): the footprint pass covers every option.  On other mixes HVO changes nothing and the names say
 * nothing of it.  Baselines follow, over the byte sizes of the memmaps the
 * run's layouts and RAM sizes give.
 *
 * The live kernel (--layout=...,kernel) is one more group, after the
 * modelled layouts of its mix (the kpageflags snapshot) at its RAM (this
 * machine's): the kernels the module runs, in the same passes.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "mdbench.h"
#include "meminfo.h"
#include "units.h"
#include "ws.h"

/*
 * The estimate of an instance's cost (est_seconds, for ETAs and scripts/run's
 * stage plan): a timed one runs about EST_RUNS_OF_MIN_TIME times its min
 * time (Google Benchmark grows its iterations until one run passes it),
 * plus, where it builds a memmap (the first of its group, or each time for
 * a kernel that changes it): EST_BUILD_NS_PER_BYTE per byte of memmap and
 * descriptors; under the allocation trace (DESC_AGED) its descriptor events
 * replayed, EST_REPLAY_NS_PER_FOLIO per folio of a layout with folio
 * descriptors; and the trace itself, EST_TRACE_NS_PER_FOLIO per folio, where
 * the run has not run it for that mix and size yet (age_memo.h keeps it).
 * CPU seconds of single footprint builds at 16 GiB on the 2-CPU VM (desktop,
 * 2.1M folios; server): fresh 0.2-0.4 s a build, the trace 1.4 us and a
 * replay 1.3 us per folio; with HVO on, its remapping about 1 ms per
 * hugetlb folio (mappings of a memfd: system calls, slow on a VM).
 */
#define EST_RUNS_OF_MIN_TIME	3.0
#define EST_BUILD_NS_PER_BYTE	1.5
#define EST_TRACE_NS_PER_FOLIO	1400.0
#define EST_REPLAY_NS_PER_FOLIO	1300.0
#define EST_HVO_NS_PER_FOLIO	1.0e6

/* What a group is built with beyond (layout, mix, RAM). */
struct group {
	unsigned int folio_bytes;	/* --folio-desc-bytes' size; 0: the layout's */
	enum hvo_mode hvo;
	bool hvo_named;			/* the names say hvo:<mode> */
	bool hvo_kernels_only;		/* HVO on by default: the MDB_K_HVO kernels and reports */
	bool real;			/* the live kernel's */
	bool lean;			/* the quick profile's headline size: no kernel that changes its memmap, no projection-only one */
	bool cache_named;		/* another --desc-cache option's report group */
	enum desc_cache_kind desc_cache;	/* its option, when cache_named */
	bool twin;			/* the reference layout's placebo twin: timed kernels only */
};

/* The mix's blocks over nr_pfns, counted once for the run's last (mix, size). */
static const struct model_blocks *blocks_of(const struct mdb_run *run, const struct mix *mix,
					    unsigned long nr_pfns)
{
	static struct model_blocks b;
	static struct mix mix_of;
	static uint64_t seed_of;
	struct mdb_err err;

	if (memcmp(&mix_of, mix, sizeof(*mix)) || b.nr_pfns != nr_pfns || seed_of != run->cond.opts.seed) {
		/*
		 * Counted from the mix's plan, not after the aging trace: the
		 * trace moves folios but keeps their kinds and orders, and
		 * running it here (for every size the headline search tries)
		 * cost seconds per mdbench start.
		 */
		if (model_count_blocks(&b, mix, nr_pfns, run->cond.opts.seed, DESC_FRESH_ORDERED, &err))
			mdb_die(&err);
		mix_of = *mix;
		seed_of = run->cond.opts.seed;
	}
	return &b;
}

/* Folios of kind a or b on in's mix and size. */
static unsigned long folios_of(const struct mdb_run *run, const struct mdb_instance *in,
			       enum page_kind a, enum page_kind b)
{
	const struct model_blocks *m = blocks_of(run, in->cond.mix, in->cond.nr_pfns);
	unsigned long n = 0;

	for (unsigned int o = 0; o < MIX_NR_ORDERS; o++)
		n += m->nr[a][o] + (b != a ? m->nr[b][o] : 0);
	return n;
}

/* The folios the allocation trace churns. */
static unsigned long traced_folios(const struct mdb_run *run, const struct mdb_instance *in)
{
	return folios_of(run, in, PK_ANON, PK_FILE);
}

/* The folios HVO remaps. */
static unsigned long hugetlb_folios(const struct mdb_run *run, const struct mdb_instance *in)
{
	return folios_of(run, in, PK_HUGETLB, PK_HUGETLB);
}

/* Whether an instance that runs before in built a memmap of its mix and size: the trace is kept since. */
static bool traced_before(const struct mdb_run *run, const struct mdb_instance *in)
{
	for (const struct mdb_instance *p = run->inst; p < in; p++)
		if (p->selected && p->cond.ops && !p->real && p->cond.mix == in->cond.mix &&
		    p->cond.nr_pfns == in->cond.nr_pfns)
			return true;
	return false;
}

/* The instance that runs before in (instances the filter leaves out build nothing); NULL if none. */
static const struct mdb_instance *last_selected(const struct mdb_run *run,
						const struct mdb_instance *in)
{
	while (in-- > run->inst)
		if (in->selected)
			return in;
	return NULL;
}

static void set_working_set(const struct mdb_run *run, struct mdb_instance *in)
{
	const struct mdb_instance *prev = last_selected(run, in);
	bool builds;

	in->ws_known = !in->real;
	if (!in->cond.ops)
		in->ws_bytes = in->buf_bytes;
	else if (!in->real)
		in->ws_bytes = mdb_working_set(in->kernel, in->cond.ops,
					       blocks_of(run, in->cond.mix, in->cond.nr_pfns),
					       in->cond.opts.folio_desc_bytes);
	in->est_seconds = EST_RUNS_OF_MIN_TIME * run->min_time;
	if (!in->cond.ops || in->real)
		return;
	builds = (in->kernel->flags & (MDB_K_MUTATES | MDB_K_NO_MEMMAP)) || !prev ||
		 !mdb_cond_equal(&prev->cond, &in->cond);
	if (!builds)
		return;
	in->est_seconds += EST_BUILD_NS_PER_BYTE * 1e-9 *
			   (double)in->cond.ops->memory_need(in->cond.nr_pfns, in->cond.mix, &run->cond.opts);
	if (in->cond.opts.hvo == HVO_ON)
		in->est_seconds += EST_HVO_NS_PER_FOLIO * 1e-9 * (double)hugetlb_folios(run, in);
	if (run->cond.opts.age == DESC_AGED)
		in->est_seconds += 1e-9 * (double)traced_folios(run, in) *
				   ((in->cond.ops->desc_size[DESC_FOLIO] ? EST_REPLAY_NS_PER_FOLIO : 0) +
				    (traced_before(run, in) ? 0 : EST_TRACE_NS_PER_FOLIO));
}

/*
 * The smoke profile runs a kernel once per layout, HVO mode and thread
 * count: on the first mix it applies to.
 */
static bool smoked_already(const struct mdb_run *run, const struct mdb_kernel *k,
			   const struct layout_ops *ops, enum hvo_mode hvo, unsigned int threads)
{
	size_t i;

	for (i = 0; i < run->nr_inst; i++)
		if (run->inst[i].kernel == k && run->inst[i].cond.ops == ops &&
		    run->inst[i].cond.opts.hvo == hvo &&
		    run->inst[i].threads == threads)
			return true;
	return false;
}

static void add_instance(struct mdb_run *run, const struct mdb_kernel *k,
			 const struct layout_ops *ops, const struct mix *mix, uint64_t ram,
			 uint64_t buf, const struct group *g, unsigned int threads)
{
	static const struct group none;
	struct mdb_instance *in;
	char size[32];
	int n;

	if (run->smoke_pairs && smoked_already(run, k, ops, g ? g->hvo : HVO_OFF, threads))
		return;
	in = mdb_grow(run->inst, &run->inst_cap, run->nr_inst + 1, sizeof(*run->inst));
	if (!in)
		mdb_dief("out of memory");
	run->inst = in;
	in = &run->inst[run->nr_inst++];
	memset(in, 0, sizeof(*in));
	in->kernel = k;
	if (!g)
		g = &none;
	in->cond = run->cond;
	in->cond.ops = ops;
	in->cond.mix = mix;
	mdb_cond_set_ram(&in->cond, ram);
	in->cond.opts.folio_desc_bytes = g->folio_bytes;
	in->cond.opts.hvo = g->hvo;
	if (g->cache_named)
		in->cond.opts.desc_cache = g->desc_cache;
	in->named = (g->hvo_named ? MDB_COND_NAME_HVO : 0) | (g->cache_named ? MDB_COND_NAME_CACHE : 0);
	in->buf_bytes = buf;
	in->real = g->real;
	in->cond.twin = g->twin;
	in->threads = threads;
	if (ops || g->real) {
		mdb_format_size(ram, size, sizeof(size));
		n = snprintf(in->name, sizeof(in->name), "%s/%s/mix:%s/ram:%s", k->name,
			     g->real ? MDB_REAL_LAYOUT : ops->name, mix->name, size);
		mdb_cond_suffix(&in->cond, in->named, in->name, sizeof(in->name), &n);
		/* Google Benchmark's own suffix for Threads(n), last */
		if (threads && n > 0 && (size_t)n < sizeof(in->name))
			n += snprintf(in->name + n, sizeof(in->name) - n, "/threads:%u", threads);
	} else {
		mdb_format_size(buf, size, sizeof(size));
		n = snprintf(in->name, sizeof(in->name), "%s/bytes:%s", k->name, size);
	}
	if (n < 0 || (size_t)n >= sizeof(in->name))
		mdb_dief("benchmark name too long: %s...", in->name);
	in->selected = mdb_filter_match(run->filter, in->name) &&
		       (!run->sim_headline_only || mdb_headline_kernel(k) || k->class == MDB_REPORT);
	run->nr_selected += in->selected;
	set_working_set(run, in);
}

/* Shared-memmap kernels first, then those that change it, then those that build their own. */
static unsigned int kernel_pass(const struct mdb_kernel *k)
{
	if (k->flags & MDB_K_NO_MEMMAP)
		return 2;
	return k->flags & MDB_K_MUTATES ? 1 : 0;
}

/* Whether kernel k runs in group g of a layout (on), mix and the run's folio size. */
static bool in_group(const struct mdb_kernel *k, const struct layout_ops *on,
		     const struct layout_ops *ops, const struct mix *mix, const struct group *g)
{
	bool reports_only = (ops && g->folio_bytes && g->folio_bytes < ops->desc_size[DESC_FOLIO]) ||
			    g->cache_named;
	bool report = k->class == MDB_REPORT;

	if (!mdb_kernel_runs_on(k, on) || !mdb_kernel_applies(k, mix, g->real ? NULL : ops) ||
	    (reports_only && !report))
		return false;
	if ((k->flags & MDB_K_HVO_ON) && g->hvo != HVO_ON)
		return false;
	if (g->lean && (k->flags & (MDB_K_MUTATES | MDB_K_NOT_HEADLINE)))
		return false;
	if (g->twin && report)		/* the same bytes: nothing to resolve */
		return false;
	return !g->hvo_kernels_only || report || (k->flags & MDB_K_HVO);
}

/*
 * One (layout, mix, RAM, folio size, HVO) group.  real: the live kernel's,
 * whose kernels are those the module runs, named as the reference layout's
 * (ops is NULL).  Below the layout's own folio size only the report kernels
 * run.
 */
static void add_group(struct mdb_run *run, const struct mdb_kernel *const *k, unsigned int nr,
		      const struct layout_ops *ops, const struct mix *mix, uint64_t ram,
		      const struct group *g)
{
	const struct layout_ops *on = g->real ? layout_reference() : ops;
	unsigned int pass, i, t;

	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < nr; i++) {
			if (kernel_pass(k[i]) != pass || !in_group(k[i], on, ops, mix, g) ||
			    (g->real && !mdb_real_has_kernel(k[i])))
				continue;
			if (!(k[i]->flags & MDB_K_THREADED)) {
				add_instance(run, k[i], ops, mix, ram, 0, g, 0);
				continue;
			}
			for (t = 0; t < run->nr_thread_counts; t++)
				add_instance(run, k[i], ops, mix, ram, 0, g, run->thread_counts[t]);
		}
}

/* The HVO groups of one folio size: one, or off and on where the mix has hugetlb folios. */
static void add_hvo_groups(struct mdb_run *run, const struct mdb_kernel *const *k,
			   unsigned int nr, const struct layout_ops *ops, const struct mix *mix,
			   uint64_t ram, const struct group *base)
{
	struct group g = *base;
	enum hvo_mode m;

	/*
	 * Not beside the live kernel (--layout=...,kernel): its group at the
	 * machine's RAM runs every kernel the module has, each beside the
	 * layouts', whatever size the cache probe made the headline (under
	 * qemu it came out as the guest's RAM, and the reference's alloc/
	 * rows were missing from the fidelity table).
	 */
	g.lean = run->lean_headline && ram == run->machine.headline_ram && !run->real;

	if (!mix_has_hugetlb(mix, 0)) {
		add_group(run, k, nr, ops, mix, ram, &g);
		return;
	}
	g.hvo_named = true;
	for (m = 0; m < HVO_MODE_NR; m++) {
		if (run->hvo_given ? !run->hvo[m] : false)
			continue;
		g.hvo = m;
		g.hvo_kernels_only = !run->hvo_given && m == HVO_ON;
		add_group(run, k, nr, ops, mix, ram, &g);
	}
}

/* One group, or one per --folio-desc-bytes size where the layout has folio descriptors. */
static void add_layout_groups(struct mdb_run *run, const struct mdb_kernel *const *k,
			      unsigned int nr, const struct layout_ops *ops, const struct mix *mix,
			      uint64_t ram)
{
	struct group g = { 0 };
	unsigned int f;
	int c;

	if (!run->nr_folio_sizes || !ops->desc_size[DESC_FOLIO]) {
		add_hvo_groups(run, k, nr, ops, mix, ram, &g);
	} else {
		for (f = 0; f < run->nr_folio_sizes; f++) {
			g.folio_bytes = run->folio_sizes[f];
			add_hvo_groups(run, k, nr, ops, mix, ram, &g);
		}
	}
	if (!ops->desc_size[DESC_FOLIO])
		return;
	g = (struct group){ .cache_named = true };
	for (c = 0; c < DESC_CACHE_KIND_NR; c++) {
		if (c == (int)run->cond.opts.desc_cache)
			continue;
		g.desc_cache = c;
		add_hvo_groups(run, k, nr, ops, mix, ram, &g);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void add_baselines(struct mdb_run *run, const struct mdb_kernel *const *k, unsigned int nr)
{
	unsigned int r, l, i, n = 0;
	uint64_t *sizes = malloc((size_t)run->nr_ram_sizes * run->nr_layouts * sizeof(*sizes) + 1);

	if (!sizes)
		mdb_dief("out of memory");
	for (r = 0; r < run->nr_ram_sizes; r++)
		for (l = 0; l < run->nr_layouts; l++)
			sizes[n++] = run->ram_sizes[r] / MDB_PAGE_SIZE * run->layouts[l]->page_size;
	qsort(sizes, n, sizeof(*sizes), cmp_u64);
	for (i = r = 0; i < n; i++)
		if (!r || sizes[r - 1] != sizes[i])
			sizes[r++] = sizes[i];
	run->baseline_sizes = sizes;
	run->nr_baseline_sizes = r;

	for (i = 0; i < nr; i++)
		if (k[i]->class == MDB_BASELINE)
			for (r = 0; r < run->nr_baseline_sizes; r++)
				add_instance(run, k[i], NULL, NULL, 0, sizes[r], NULL, 0);
}

unsigned long long mdb_memory_need(const struct mdb_run *run, const struct layout_ops *ops,
				   const struct mix *mix, uint64_t ram)
{
	struct memmap_opts opts = run->cond.opts;
	unsigned int f;

	for (f = 0; f < run->nr_folio_sizes; f++)
		if (run->folio_sizes[f] > opts.folio_desc_bytes)
			opts.folio_desc_bytes = run->folio_sizes[f];
	return ops->memory_need((unsigned long)(ram >> MDB_PAGE_SHIFT), mix, &opts);
}

/* What an instance holds at most: the memmap and the mix's descriptors, or its buffer. */
static unsigned long long instance_need(const struct mdb_instance *in)
{
	if (in->real)
		return 0;	/* the machine's own memmap; the module keeps its free-memory floor */
	if (!in->cond.ops)
		return in->buf_bytes;
	return in->cond.ops->memory_need(in->cond.nr_pfns, in->cond.mix, &in->cond.opts);
}

/* Before anything runs: does the largest selected instance fit in memory? */
static void check_memory(const struct mdb_run *run)
{
	const struct mdb_instance *worst = NULL;
	unsigned long long avail = mdb_mem_available(), need = 0;
	size_t i;
	char a[32];

	for (i = 0; i < run->nr_inst; i++) {
		if (run->inst[i].selected && instance_need(&run->inst[i]) > need) {
			need = instance_need(&run->inst[i]);
			worst = &run->inst[i];
		}
	}
	if (!avail || need <= avail)
		return;
	if (worst->cond.ops) {
		mdb_format_size(worst->cond.ram_bytes, a, sizeof(a));
		mdb_dief("--ram=%s with %s on mix %s needs %llu MiB of memmap and descriptors "
			 "(%llu bytes), but MemAvailable is %llu MiB", a, worst->cond.ops->name,
			 worst->cond.mix->name, need >> 20, need, avail >> 20);
	}
	mdb_dief("%s needs a %llu MiB buffer, but MemAvailable is %llu MiB", worst->name, need >> 20,
		 avail >> 20);
}

/*
 * The live kernel's HVO: vm.hugetlb_optimize_vmemmap as it reads now (the
 * folios allocated while it was otherwise keep what they got).
 */
static enum hvo_mode real_hvo(void)
{
	FILE *f = fopen("/proc/sys/vm/hugetlb_optimize_vmemmap", "r");
	int on = 0;

	if (f) {
		if (fscanf(f, "%d", &on) != 1)
			on = 0;
		fclose(f);
	}
	return on ? HVO_ON : HVO_OFF;
}

void mdb_plan(struct mdb_run *run)
{
	const struct mdb_kernel *const *k;
	struct mdb_err err;
	unsigned int nr, r, m, l;

	if (mdb_kernels(&k, &nr, &err))
		mdb_die(&err);
	for (r = 0; r < run->nr_ram_sizes; r++)
		for (m = 0; m < run->nr_mixes; m++) {
			if (run->smoke_pairs && mdb_smoke_ram(&run->mixes[m]) != run->ram_sizes[r])
				continue;
			for (l = 0; l < run->nr_layouts; l++) {
				add_layout_groups(run, k, nr, run->layouts[l], &run->mixes[m],
						  run->ram_sizes[r]);
				if (run->layouts[l] == layout_reference() && run->twin_headline &&
				    run->ram_sizes[r] == run->machine.headline_ram)
					add_hvo_groups(run, k, nr, run->layouts[l], &run->mixes[m],
						       run->ram_sizes[r], &(struct group){ .twin = true });
			}
			if (run->real && (int)m == run->kpageflags_mix &&
			    run->ram_sizes[r] == mdb_real_ram_bytes(run->real))
				add_group(run, k, nr, NULL, &run->mixes[m], run->ram_sizes[r],
					  &(struct group){ .real = true, .hvo = real_hvo(),
							   .hvo_named = mix_has_hugetlb(&run->mixes[m], 0) });
		}
	add_baselines(run, k, nr);
	if (!run->nr_selected)
		mdb_dief("no benchmark matches --benchmark_filter=%s", run->filter);
	check_memory(run);
}

uint64_t mdb_smoke_ram(const struct mix *mix)
{
	/*
	 * 32 pageblocks: 64MiB at 4k (the mobility-grouped aging leaves a
	 * free order-9 block there, not at 32MiB); twice the largest hstate:
	 * 2GiB at 4k, 32GiB at 64k.
	 */
	return mix_has_hugetlb(mix, HUGETLB_ORDER_PUD) ? 2ULL << (HUGETLB_ORDER_PUD + MDB_PAGE_SHIFT) :
							  32 * MDB_RAM_STEP;
}

bool mdb_headline_kernel(const struct mdb_kernel *k)
{
	return k->class == MDB_DEPENDENT && !(k->flags & MDB_K_NOT_HEADLINE) &&
	       (k->ws == MDB_WS_ALL || k->ws == MDB_WS_FOLIOS ||
					     k->ws == MDB_WS_FOLIO_TAILS);
}

/* The smallest working set of a headline kernel over the layouts at ram, on the first mix. */
static uint64_t headline_ws(const struct mdb_run *run, const struct mdb_kernel *const *k,
			    unsigned int nr, uint64_t ram)
{
	const struct model_blocks *b = blocks_of(run, &run->mixes[0], (unsigned long)(ram >> MDB_PAGE_SHIFT));
	uint64_t least = UINT64_MAX, ws;
	unsigned int i, l;

	for (i = 0; i < nr; i++)
		for (l = 0; l < run->nr_layouts; l++)
			if (mdb_headline_kernel(k[i]) && mdb_kernel_runs_on(k[i], run->layouts[l])) {
				ws = mdb_working_set(k[i], run->layouts[l], b, 0);
				least = ws < least ? ws : least;
			}
	return least;
}

/* Whether every layout's memmap and descriptors at ram fit in the memory limit. */
static bool headline_fits(const struct mdb_run *run, uint64_t ram)
{
	unsigned int l, m;

	for (l = 0; l < run->nr_layouts; l++)
		for (m = 0; m < run->nr_mixes; m++)
			if (mdb_memory_need(run, run->layouts[l], &run->mixes[m], ram) >
			    run->machine.memory_limit)
				return false;
	return true;
}

void mdb_headline(struct mdb_run *run)
{
	struct mdb_machine *mc = &run->machine;
	const struct mdb_kernel *const *k;
	uint64_t ram = MDB_RAM_STEP, ws, next;
	struct mdb_err err;
	unsigned int nr;

	mdb_measure_caches(run);
	mc->memory_limit = mdb_mem_available() / 2;
	if (!mc->llc_bytes || !run->nr_layouts || !run->nr_mixes) {
		mc->headline_reason = "unavailable: no last-level cache known (hwloc's or measured)";
		return;
	}
	if (mdb_kernels(&k, &nr, &err))
		mdb_die(&err);
	while (ram < MDB_HEADLINE_LLC_TIMES * mc->llc_bytes)
		ram *= 2;
	/* No smaller than the first mix places: its largest hugetlb folio (16GiB at 64k) twice. */
	while (mix_has_hugetlb(&run->mixes[0], HUGETLB_ORDER_PUD) && ram < mdb_smoke_ram(&run->mixes[0]))
		ram *= 2;
	for (;; ram = next) {
		next = ram * 2;
		if (mc->memory_limit && !headline_fits(run, ram)) {
			mc->headline_capped = true;
			mc->headline_reason = "capped: a layout's memmap and descriptors at the size the "
					      "working-set rule wants would pass half of MemAvailable";
			ram /= 2;
			break;
		}
		ws = headline_ws(run, k, nr, ram);
		if (ws >= MDB_HEADLINE_WS_TIMES * mc->llc_bytes) {
			mc->headline_reason = "every layout's headline working set is at least "
					      "headline_ws_times the last-level cache";
			break;
		}
		if (next > MDB_HEADLINE_MAX_RAM || headline_ws(run, k, nr, next) < ws + ws / 100) {
			mc->headline_reason = "the smallest headline working set stops growing here "
					      "(random walks sample at most BENCH_LIST_MAX pfns), below "
					      "headline_ws_times the last-level cache";
			break;
		}
	}
	if (ram < MDB_RAM_STEP)
		ram = MDB_RAM_STEP;
	mc->headline_ram = ram;
}

const struct mdb_kernel **mdb_run_kernels(const struct mdb_run *run)
{
	const struct mdb_kernel **out = calloc(run->nr_inst + 1, sizeof(*out));
	size_t i, n = 0, j;

	if (!out)
		return NULL;
	for (i = 0; i < run->nr_inst; i++) {
		if (!run->inst[i].selected)
			continue;
		for (j = 0; j < n && strcmp(out[j]->name, run->inst[i].kernel->name); j++)
			;
		if (j == n)
			out[n++] = run->inst[i].kernel;
	}
	return out;
}

void mdb_instance_gb_name(const struct mdb_instance *in, char *buf, size_t len)
{
	const char *cut = in->threads ? strrchr(in->name, '/') : NULL;

	snprintf(buf, len, "%.*s", cut ? (int)(cut - in->name) : (int)strlen(in->name), in->name);
}

/* ------------------------------------------------------------------ */
/* Filter, as Google Benchmark's --benchmark_filter                    */

bool mdb_filter_match(const char *filter, const char *name)
{
	static char *cached;
	static regex_t re;
	bool negative, match;

	if (!filter || !*filter || !strcmp(filter, "all"))
		return true;
	negative = filter[0] == '-';
	if (!cached || strcmp(cached, filter)) {
		if (cached)
			regfree(&re);
		free(cached);
		cached = strdup(filter);
		if (!cached || regcomp(&re, filter + negative, REG_EXTENDED | REG_NOSUB)) {
			free(cached);
			cached = NULL;
			return false;
		}
	}
	match = !regexec(&re, name, 0, NULL, 0);
	return negative ? !match : match;
}
