// SPDX-License-Identifier: GPL-2.0
/*
 * test_plan.c - plan.c without the program: the instances a run expands to,
 * their names and order, the baselines' sizes, folio sizes and HVO groups,
 * threaded instances, the filter, and the refusal when nothing matches;
 * a memmap's conditions (conditions.h): equality, name suffix, JSON both
 * ways.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_run.h"

static const char *const two[] = { "page64", "memdesc8", NULL };

/* The selected instances' names, in plan order, each followed by '\n'. */
static void selected_names(const struct mdb_run *run, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < run->nr_inst; i++)
		if (run->inst[i].selected)
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s\n", run->inst[i].name);
}

static void test_order(void)
{
	static const char want[] =
		"test/error/page64/mix:plain/ram:64MiB\n"
		"test/mark/page64/mix:plain/ram:64MiB\n"
		"test/seen/page64/mix:plain/ram:64MiB\n"
		"test/fresh/page64/mix:plain/ram:64MiB\n"	/* MDB_K_MUTATES: after the sharing ones */
		"test/error/memdesc8/mix:plain/ram:64MiB\n"
		"test/mark/memdesc8/mix:plain/ram:64MiB\n"
		"test/seen/memdesc8/mix:plain/ram:64MiB\n"
		"test/fresh/memdesc8/mix:plain/ram:64MiB\n"
		"test/faults/bytes:128KiB\n"			/* 16384 pfns x 8 bytes */
		"test/faults/bytes:1MiB\n"			/* 16384 pfns x 64 bytes */
		"test/halves/bytes:128KiB\n"
		"test/halves/bytes:1MiB\n"
		"test/spin/bytes:128KiB\n"
		"test/spin/bytes:1MiB\n";
	const struct mdb_kernel **k;
	struct mdb_run run;
	char got[4096];
	const struct mdb_instance *in;

	test_run_plain(&run, "^test/", two);
	mdb_plan(&run);
	selected_names(&run, got, sizeof(got));
	CHECK(!strcmp(got, want), "selected:\n%s", got);
	CHECK(run.nr_selected == 14, "%zu selected", run.nr_selected);
	CHECK(run.nr_baseline_sizes == 2 && run.baseline_sizes[0] == 128 << 10 &&
	      run.baseline_sizes[1] == 1 << 20, "%u baseline sizes", run.nr_baseline_sizes);

	in = test_find(&run, "test/mark/memdesc8/mix:plain/ram:64MiB");
	CHECK(in && in->cond.ops == layout_by_name("memdesc8") && in->cond.nr_pfns == 16384 &&
	      in->cond.ram_bytes == TEST_RAM && in->cond.mix == &run.mixes[0] && !in->threads &&
	      !(in->named & MDB_COND_NAME_HVO) && !in->real && !in->cond.opts.folio_desc_bytes, "test/mark on memdesc8");
	in = test_find(&run, "test/faults/bytes:1MiB");
	CHECK(in && !in->cond.ops && !in->cond.mix && in->buf_bytes == 1 << 20, "test/faults/bytes:1MiB");

	/* The distinct kernels of the selected instances, in plan order. */
	k = mdb_run_kernels(&run);
	CHECK(k && k[0] && !strcmp(k[0]->name, "test/error") && k[3] &&
	      !strcmp(k[3]->name, "test/fresh") && k[6] && !strcmp(k[6]->name, "test/spin") &&
	      !k[7], "mdb_run_kernels");
	free(k);
	test_run_free(&run);
}

/* --folio-desc-bytes: a group per size where the layout has folio descriptors. */
static void test_folio_sizes(void)
{
	const struct layout_ops *md8 = layout_by_name("memdesc8"), *p64 = layout_by_name("page64");
	unsigned int sizes[] = { 64, 128 };
	struct memmap_opts opts;
	const struct mdb_instance *in;
	struct mdb_run run;
	struct mix mix;
	bool below = 64 < md8->desc_size[DESC_FOLIO];

	test_run_mix(&mix, "plain", false);
	test_run_init(&run, "^(test/mark|footprint)/", two, &mix, 1, TEST_RAM);
	run.folio_sizes = malloc(sizeof(sizes));
	memcpy(run.folio_sizes, sizes, sizeof(sizes));
	run.nr_folio_sizes = 2;
	mdb_plan(&run);

	CHECK(test_find(&run, "test/mark/page64/mix:plain/ram:64MiB"), "page64 has no folio sizes");
	CHECK(!test_find(&run, "test/mark/page64/mix:plain/ram:64MiB/folio:64B"), "page64 folio:64B");
	in = test_find(&run, "footprint/memdesc8/mix:plain/ram:64MiB/folio:64B");
	CHECK(in && in->selected && in->cond.opts.folio_desc_bytes == 64, "footprint at 64 bytes");
	/* Below the struct's own size only the reports run. */
	CHECK(!test_find(&run, "test/mark/memdesc8/mix:plain/ram:64MiB/folio:64B") == below,
	      "test/mark at 64 bytes, struct folio %zu bytes", md8->desc_size[DESC_FOLIO]);
	in = test_find(&run, "test/mark/memdesc8/mix:plain/ram:64MiB/folio:128B");
	CHECK(in && in->cond.opts.folio_desc_bytes == 128, "test/mark at 128 bytes");
	CHECK(!test_find(&run, "test/mark/memdesc8/mix:plain/ram:64MiB"), "no unsized memdesc8 group");

	opts = in->cond.opts;
	CHECK(opts.folio_desc_bytes == 128 && opts.seed == 1 && opts.pages == MEMMAP_PAGES_4K &&
	      opts.hvo == HVO_OFF, "the instance's conditions: the run's, its folio size");
	/* The memory a layout needs is at the largest size swept. */
	opts = run.cond.opts;
	opts.folio_desc_bytes = 128;
	CHECK(mdb_memory_need(&run, md8, &mix, TEST_RAM) == md8->memory_need(16384, &mix, &opts),
	      "mdb_memory_need of memdesc8");
	CHECK(mdb_memory_need(&run, md8, &mix, TEST_RAM) > mdb_memory_need(&run, md8, &mix, TEST_RAM / 2),
	      "more RAM, more memory");
	CHECK(mdb_memory_need(&run, p64, &mix, TEST_RAM) >= 16384 * p64->page_size, "page64's memmap");
	test_run_free(&run);
}

/* A mix with hugetlb folios: HVO off, and on for the reports only unless --hvo says. */
static void test_hvo(void)
{
	static const char *const p64[] = { "page64", NULL };
	const struct mdb_instance *in;
	struct mdb_run run;
	struct mix mix;

	test_run_mix(&mix, "huge", true);
	test_run_init(&run, "^(test/mark|footprint)/", p64, &mix, 1, TEST_RAM);
	mdb_plan(&run);
	in = test_find(&run, "test/mark/page64/mix:huge/ram:64MiB/hvo:off");
	CHECK(in && in->cond.opts.hvo == HVO_OFF && (in->named & MDB_COND_NAME_HVO), "test/mark with HVO off");
	CHECK(!test_find(&run, "test/mark/page64/mix:huge/ram:64MiB/hvo:on"), "test/mark with HVO on");
	in = test_find(&run, "footprint/page64/mix:huge/ram:64MiB/hvo:on");
	CHECK(in && in->cond.opts.hvo == HVO_ON && (in->named & MDB_COND_NAME_HVO), "footprint, HVO on");
	CHECK(test_find(&run, "footprint/page64/mix:huge/ram:64MiB/hvo:off"), "footprint, HVO off");
	test_run_free(&run);

	/* --hvo=on: every kernel with HVO on, none off. */
	test_run_init(&run, "^(test/mark|footprint)/", p64, &mix, 1, TEST_RAM);
	run.hvo_given = true;
	run.hvo[HVO_ON] = true;
	mdb_plan(&run);
	CHECK(test_find(&run, "test/mark/page64/mix:huge/ram:64MiB/hvo:on"), "--hvo=on: test/mark");
	CHECK(!test_find(&run, "test/mark/page64/mix:huge/ram:64MiB/hvo:off") &&
	      !test_find(&run, "footprint/page64/mix:huge/ram:64MiB/hvo:off"), "--hvo=on: nothing off");
	test_run_free(&run);
}

/*
 * The placebo twin: at the headline size, the reference layout's timed
 * kernels once more, named .../twin:b; no report kernel, no other layout,
 * no other size.
 */
static void test_twin(void)
{
	static const char *const two[] = { "page64", "page32", NULL };
	const struct mdb_instance *in;
	struct mdb_run run;
	size_t i, twins = 0;

	test_run_plain(&run, "^(test/mark|footprint)/", two);
	run.twin_headline = true;
	run.machine.headline_ram = TEST_RAM;
	mdb_plan(&run);
	in = test_find(&run, "test/mark/page64/mix:plain/ram:64MiB/" MDB_TWIN_NAME);
	CHECK(in && in->cond.twin && in->cond.ops == layout_reference(), "test/mark's twin, of page64");
	for (i = 0; i < run.nr_inst; i++)
		twins += run.inst[i].cond.twin && run.inst[i].selected;
	CHECK(twins == 1, "one twin (%zu): no footprint twin, no page32 twin", twins);
	CHECK(!test_find(&run, "footprint/page64/mix:plain/ram:64MiB/" MDB_TWIN_NAME), "no report twin");
	test_run_free(&run);

	test_run_plain(&run, "^test/mark/", two);
	run.twin_headline = true;
	run.machine.headline_ram = 2 * TEST_RAM;	/* another size: no twin at this one */
	mdb_plan(&run);
	CHECK(!test_find(&run, "test/mark/page64/mix:plain/ram:64MiB/" MDB_TWIN_NAME),
	      "no twin off the headline size");
	test_run_free(&run);
}

/*
 * The quick profile's lean headline: no mutating kernel at the headline
 * size, but at another, and all of them beside the live kernel (its group
 * runs every kernel the module has; the layouts' must pair with it).
 */
static void test_lean(void)
{
	static const char name[] = "test/fresh/page64/mix:plain/ram:64MiB";
	static const char *const one[] = { "page64", NULL };
	struct mdb_run run;
	char real;	/* stands for the module: plan.c asks it nothing without a kpageflags mix */

	test_run_plain(&run, "^test/(fresh|mark)/", one);
	run.lean_headline = true;
	run.machine.headline_ram = TEST_RAM;
	mdb_plan(&run);
	CHECK(!test_find(&run, name), "test/fresh at the lean headline size");
	CHECK(test_find(&run, "test/mark/page64/mix:plain/ram:64MiB"), "test/mark at it");
	test_run_free(&run);

	test_run_plain(&run, "^test/(fresh|mark)/", one);
	run.lean_headline = true;
	run.machine.headline_ram = 2 * TEST_RAM;
	mdb_plan(&run);
	CHECK(test_find(&run, name), "no test/fresh off the headline size");
	test_run_free(&run);

	test_run_plain(&run, "^test/(fresh|mark)/", one);
	run.lean_headline = true;
	run.machine.headline_ram = TEST_RAM;
	run.real = (struct mdb_real *)&real;
	mdb_plan(&run);
	CHECK(test_find(&run, name), "no test/fresh beside the live kernel at the headline size");
	run.real = NULL;
	test_run_free(&run);
}

/* A threaded kernel: one instance per thread count, named as Google Benchmark names it. */
static void test_threads(void)
{
	static const char *const p64[] = { "page64", NULL };
	const struct mdb_kernel *const *k, *threaded = NULL;
	const struct mdb_instance *in;
	char filter[300], name[MDB_NAME_LEN];
	struct mdb_run run;
	struct mdb_err err;
	struct mix mix;
	unsigned int nr, i;

	test_run_mix(&mix, "plain", false);
	CHECK(!mdb_kernels(&k, &nr, &err), "mdb_kernels: %s", err.msg);
	for (i = 0; i < nr && !threaded; i++)
		if ((k[i]->flags & MDB_K_THREADED) && !(k[i]->flags & MDB_K_HVO_ON) &&
		    mdb_kernel_runs_on(k[i], layout_by_name("page64")) &&
		    mdb_kernel_applies(k[i], &mix, layout_by_name("page64")))
			threaded = k[i];
	if (!threaded) {
		printf("threads: no threaded kernel runs on page64, not checked\n");
		return;
	}
	snprintf(filter, sizeof(filter), "^%s/", threaded->name);
	test_run_init(&run, filter, p64, &mix, 1, TEST_RAM);
	mdb_plan(&run);
	CHECK(run.nr_selected == 2, "%s: %zu instances", threaded->name, run.nr_selected);
	snprintf(filter, sizeof(filter), "%s/page64/mix:plain/ram:64MiB/threads:2", threaded->name);
	in = test_find(&run, filter);
	CHECK(in && in->threads == 2 && in->selected, "%s", filter);
	if (in) {
		mdb_instance_gb_name(in, name, sizeof(name));
		*strrchr(filter, '/') = '\0';
		CHECK(!strcmp(name, filter), "Google Benchmark's name %s", name);
	}
	test_run_free(&run);
}

static void test_filter(void)
{
	CHECK(mdb_filter_match("", "lookup/seq/page64"), "empty filter");
	CHECK(mdb_filter_match(NULL, "lookup/seq/page64"), "no filter");
	CHECK(mdb_filter_match("all", "lookup/seq/page64"), "all");
	CHECK(mdb_filter_match("seq", "lookup/seq/page64"), "a part");
	CHECK(!mdb_filter_match("^seq", "lookup/seq/page64"), "anchored");
	CHECK(mdb_filter_match("page(32|64)$", "lookup/seq/page64"), "extended syntax");
	CHECK(!mdb_filter_match("-seq", "lookup/seq/page64"), "negative, matching");
	CHECK(mdb_filter_match("-seq", "lookup/random/page64"), "negative, not matching");
	CHECK(!mdb_filter_match("(", "lookup/seq/page64"), "a bad regex matches nothing");
	CHECK(mdb_filter_match("seq", "lookup/seq/page64"), "after a bad regex");
}

static void plan_nothing(void *arg)
{
	mdb_plan(arg);
}

static void test_nothing_matches(void)
{
	struct mdb_run run;
	char err[1024];
	int status;

	test_run_plain(&run, "^no-such-kernel/", two);
	status = test_dies(plan_nothing, &run, err, sizeof(err));
	CHECK(status == 2, "exit status %d", status);
	CHECK(!strcmp(err, "mdbench: no benchmark matches --benchmark_filter=^no-such-kernel/\n"),
	      "stderr: %s", err);
	test_run_free(&run);
}

/* conditions.h: equal within a group, not across; the suffix; JSON there and back. */
static void test_conditions(void)
{
	static const char *const md8[] = { "memdesc8", NULL };
	const struct mdb_instance *a, *b, *c;
	struct mdb_cond x, y;
	struct mdb_err err;
	struct mdb_run run;
	struct mix mix, back;
	char name[64] = "x";
	json_t *j;
	int n = 1;

	test_run_plain(&run, "^(test/mark|footprint)/", md8);
	run.folio_sizes = calloc(2, sizeof(*run.folio_sizes));
	run.folio_sizes[0] = 96;
	run.folio_sizes[1] = 128;
	run.nr_folio_sizes = 2;
	mdb_plan(&run);
	a = test_find(&run, "test/mark/memdesc8/mix:plain/ram:64MiB/folio:128B");
	b = test_find(&run, "footprint/memdesc8/mix:plain/ram:64MiB/folio:128B");
	c = test_find(&run, "footprint/memdesc8/mix:plain/ram:64MiB/folio:96B");
	CHECK(a && b && c && mdb_cond_equal(&a->cond, &b->cond) && !mdb_cond_equal(&b->cond, &c->cond),
	      "one memmap per group: equal within, not across folio sizes");

	x = run.cond;
	x.base = &base_pages[1];
	x.opts.folio_desc_bytes = 96;
	x.opts.hvo = HVO_ON;
	x.opts.desc_cache = DESC_CACHE_HWCACHE;
	x.opts.large_desc = LARGE_DESC_FULL;
	CHECK(mdb_cond_suffix(&x, MDB_COND_NAME_HVO | MDB_COND_NAME_CACHE, name, sizeof(name), &n) &&
	      !strcmp(name, "x/base:16k/folio:96B/large:full/hvo:on/cache:hwcache"), "suffix %s", name);
	n = 1;
	CHECK(!mdb_cond_suffix(&x, MDB_COND_NAME_HVO, name, 8, &n), "a suffix that does not fit");

	CHECK(!mix_builtin("desktop", &mix, &err), "desktop: %s", err.msg);
	x = b->cond;
	x.mix = &mix;
	x.base = &base_pages[0];
	x.opts.slub = DESC_SLUB_CPU_SLAB;
	x.opts.no_compaction = true;
	x.opts.seed = 42;
	x.opts.desc_rcu = DESC_RCU_FOLIO;
	x.opts.large_desc = LARGE_DESC_FULL;
	j = mdb_cond_json(&x);
	CHECK(j && !mdb_cond_from_json(j, "t", &y, &back, &run.replay, &err), "from JSON: %s", err.msg);
	CHECK(y.mix == &back && !strcmp(back.name, "desktop") && back.nr == mix.nr, "the mix itself");
	y.mix = x.mix;
	y.opts.bind = x.opts.bind;
	y.opts.bind_arg = x.opts.bind_arg;
	CHECK(mdb_cond_equal(&x, &y) && y.ram_bytes == x.ram_bytes, "JSON there and back: the same conditions");
	y.opts.desc_rcu = DESC_RCU_ALL;
	CHECK(!mdb_cond_equal(&x, &y), "--desc-rcu makes another memmap");
	y.opts.desc_rcu = x.opts.desc_rcu;
	y.opts.large_desc = LARGE_DESC_PLAN;
	CHECK(!mdb_cond_equal(&x, &y), "--large-desc makes another memmap");
	json_object_set_new(j, "desc_cache", json_string("rcu-later"));
	CHECK(mdb_cond_from_json(j, "t", &y, &back, &run.replay, &err) &&
	      !strcmp(err.msg, "t: not an instance description"), "a value not allowed: %s", err.msg);
	json_decref(j);
	test_run_free(&run);
}

int main(void)
{
	test_conditions();
	test_order();
	test_folio_sizes();
	test_hvo();
	test_twin();
	test_lean();
	test_threads();
	test_filter();
	test_nothing_matches();
	return test_done("test_plan");
}
