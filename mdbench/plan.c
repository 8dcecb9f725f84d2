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
 * run only there.  On other mixes HVO changes nothing and the names say
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

#include "mdbench.h"
#include "meminfo.h"
#include "units.h"

/* What a group is built with beyond (layout, mix, RAM). */
struct group {
	unsigned int folio_bytes;	/* --folio-desc-bytes' size; 0: the layout's */
	enum hvo_mode hvo;
	bool hvo_named;			/* the names say hvo:<mode> */
	bool hvo_kernels_only;		/* HVO on by default: the MDB_K_HVO kernels and reports */
	bool real;			/* the live kernel's */
};

static void add_instance(struct mdb_run *run, const struct mdb_kernel *k,
			 const struct layout_ops *ops, const struct mix *mix, uint64_t ram,
			 uint64_t buf, const struct group *g, unsigned int threads)
{
	static const struct group none;
	struct mdb_instance *in;
	char size[32];
	int n;

	/* run->inst holds 256 instances, then twice as many each time it is full. */
	if (!run->nr_inst || (run->nr_inst >= 256 && !(run->nr_inst & (run->nr_inst - 1)))) {
		size_t nr = run->nr_inst ? 2 * run->nr_inst : 256;

		run->inst = realloc(run->inst, nr * sizeof(*run->inst));
		if (!run->inst)
			mdb_dief("out of memory");
	}
	in = &run->inst[run->nr_inst++];
	memset(in, 0, sizeof(*in));
	in->kernel = k;
	in->ops = ops;
	in->mix = mix;
	in->ram_bytes = ram;
	in->nr_pfns = (unsigned long)(ram >> MDB_PAGE_SHIFT);
	if (!g)
		g = &none;
	in->buf_bytes = buf;
	in->folio_desc_bytes = g->folio_bytes;
	in->hvo = g->hvo;
	in->hvo_named = g->hvo_named;
	in->real = g->real;
	in->threads = threads;
	if (ops || g->real) {
		mdb_format_size(ram, size, sizeof(size));
		n = snprintf(in->name, sizeof(in->name), "%s/%s/mix:%s/ram:%s", k->name,
			     g->real ? MDB_REAL_LAYOUT : ops->name, mix->name, size);
		if (g->folio_bytes && n > 0 && (size_t)n < sizeof(in->name))
			n += snprintf(in->name + n, sizeof(in->name) - n, "/folio:%uB", g->folio_bytes);
		if (g->hvo_named && n > 0 && (size_t)n < sizeof(in->name))
			n += snprintf(in->name + n, sizeof(in->name) - n, "/hvo:%s",
				      hvo_mode_name(g->hvo));
		/* Google Benchmark's own suffix for Threads(n), last */
		if (threads && n > 0 && (size_t)n < sizeof(in->name))
			n += snprintf(in->name + n, sizeof(in->name) - n, "/threads:%u", threads);
	} else {
		mdb_format_size(buf, size, sizeof(size));
		n = snprintf(in->name, sizeof(in->name), "%s/bytes:%s", k->name, size);
	}
	if (n < 0 || (size_t)n >= sizeof(in->name))
		mdb_dief("benchmark name too long: %s...", in->name);
	in->selected = mdb_filter_match(run->filter, in->name);
	run->nr_selected += in->selected;
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
	bool reports_only = ops && g->folio_bytes && g->folio_bytes < ops->desc_size[DESC_FOLIO];
	bool report = k->class == MDB_REPORT;

	if (!mdb_kernel_runs_on(k, on) || !mdb_kernel_applies(k, mix, g->real ? NULL : ops) ||
	    (reports_only && !report))
		return false;
	if ((k->flags & MDB_K_HVO_ON) && g->hvo != HVO_ON)
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
			   uint64_t ram, unsigned int folio_bytes)
{
	struct group g = { .folio_bytes = folio_bytes };
	enum hvo_mode m;

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
	unsigned int f;

	if (!run->nr_folio_sizes || !ops->desc_size[DESC_FOLIO]) {
		add_hvo_groups(run, k, nr, ops, mix, ram, 0);
		return;
	}
	for (f = 0; f < run->nr_folio_sizes; f++)
		add_hvo_groups(run, k, nr, ops, mix, ram, run->folio_sizes[f]);
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

struct memmap_opts mdb_instance_opts(const struct mdb_run *run, const struct mdb_instance *in)
{
	struct memmap_opts opts = run->opts;

	opts.folio_desc_bytes = in->folio_desc_bytes;
	opts.hvo = in->hvo;
	return opts;
}

unsigned long long mdb_memory_need(const struct mdb_run *run, const struct layout_ops *ops,
				   const struct mix *mix, uint64_t ram)
{
	struct memmap_opts opts = run->opts;
	unsigned int f;

	for (f = 0; f < run->nr_folio_sizes; f++)
		if (run->folio_sizes[f] > opts.folio_desc_bytes)
			opts.folio_desc_bytes = run->folio_sizes[f];
	return ops->memory_need((unsigned long)(ram >> MDB_PAGE_SHIFT), mix, &opts);
}

/* What an instance holds at most: the memmap and the mix's descriptors, or its buffer. */
static unsigned long long instance_need(const struct mdb_run *run, const struct mdb_instance *in)
{
	struct memmap_opts opts;

	if (in->real)
		return 0;	/* the machine's own memmap; the module keeps its free-memory floor */
	if (!in->ops)
		return in->buf_bytes;
	opts = mdb_instance_opts(run, in);
	return in->ops->memory_need(in->nr_pfns, in->mix, &opts);
}

/* Before anything runs: does the largest selected instance fit in memory? */
static void check_memory(const struct mdb_run *run)
{
	const struct mdb_instance *worst = NULL;
	unsigned long long avail = mdb_mem_available(), need = 0;
	size_t i;
	char a[32];

	for (i = 0; i < run->nr_inst; i++) {
		if (run->inst[i].selected && instance_need(run, &run->inst[i]) > need) {
			need = instance_need(run, &run->inst[i]);
			worst = &run->inst[i];
		}
	}
	if (!avail || need <= avail)
		return;
	if (worst->ops) {
		mdb_format_size(worst->ram_bytes, a, sizeof(a));
		mdb_dief("--ram=%s with %s on mix %s needs %llu MiB of memmap and descriptors "
			 "(%llu bytes), but MemAvailable is %llu MiB", a, worst->ops->name,
			 worst->mix->name, need >> 20, need, avail >> 20);
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
			for (l = 0; l < run->nr_layouts; l++)
				add_layout_groups(run, k, nr, run->layouts[l], &run->mixes[m],
						  run->ram_sizes[r]);
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
