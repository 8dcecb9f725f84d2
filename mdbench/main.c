// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - mdbench: options, and what to do with them.
 *
 * Our options are taken out of argv; Google Benchmark's (--benchmark_*,
 * --v=) are checked here first (it aborts or exits 0 on some bad values)
 * and then handed to it.  Every option is checked before anything runs:
 * bad input is one line on stderr and exit status 2.  Numbers are decimal,
 * the whole string, nothing else.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "git_commit.h"
#include "interrupt.h"
#include "mdbench.h"
#include "meminfo.h"
#include "rounds.h"
#include "shim.h"
#include "units.h"

#define QUICK_MIN_TIME	"0.05"
#define SMOKE_MIN_TIME	"0.005"
#define GB_MIN_TIME	0.5		/* Google Benchmark's own default */
#define QUICK_SMALL_RAM	(256 * MDB_MiB)	/* the quick profile's cache-fit size, for contrast */
#define MAX_RAM		MDB_HEADLINE_MAX_RAM	/* keeps every byte count below 2^64 */
#define MIN_RAM		MDB_RAM_STEP	/* one pageblock */

struct options {
	const char *layout, *ram, *mix, *profile, *counters, *out, *cpu, *node, *seed, *rounds;
	const char *list, *sim_cache, *sim_instance, *filter, *fixed_ops, *time_budget;
	const char *memmap_pages, *desc_age, *folio_desc_bytes, *hvo, *threads, *desc_cache, *desc_rcu, *slub;
	const char *large_desc;
	const char *compaction, *slab_cpus, *round_reps, *memmap_pool;
	const char *base_page;
	const char *llc;
	const char *min_time;		/* --benchmark_min_time's value */
	bool simulate, force;
	bool gb_out, gb_list_tests;	/* --benchmark_out, --benchmark_list_tests=true */
	bool gb_repetitions;		/* --benchmark_repetitions */
};

/*
 * The options, one entry each, in the style of perf's OPT_* tables
 * (tools/lib/subcmd/parse-options.h): the name, its field in struct
 * options, its allowed values where they form a list, the value's form in
 * --help and the help itself (lines after the first start at the help
 * column).  The parser, --help and the error for a value not allowed all
 * read this table: adding an option is one entry here and its field.
 */
enum opt_kind {
	OPT_VALUE,		/* --name=value, given once */
	OPT_FLAG,		/* --name, no value */
	OPT_OWN,		/* parsed by parse_args() itself (--list[=json], --help, --version) */
};

/* Allowed values: name_of(0) up to the first NULL ("" skipped), then prefix's "FILE" form. */
struct opt_choices {
	const char *(*name_of)(int i);
	const char *prefix;	/* "trace:": a value starting with it is allowed too */
	const char *prefixed;	/* how --help and errors show it: "trace:FILE" */
};

struct opt_spec {
	const char *name;
	enum opt_kind kind;
	size_t offset;
	const struct opt_choices *choices;	/* NULL: checked where it is used */
	const char *argh;	/* the value's form in --help; NULL: the choices, a|b|c */
	const char *help;
};

#define OPT_STRING(n, f, a, h)	{ n, OPT_VALUE, offsetof(struct options, f), NULL, a, h }
#define OPT_CHOICE(n, f, c, h)	{ n, OPT_VALUE, offsetof(struct options, f), &(c), NULL, h }
#define OPT_BOOLEAN(n, f, h)	{ n, OPT_FLAG, offsetof(struct options, f), NULL, NULL, h }
#define OPT_OWN(n, a, h)	{ n, OPT_OWN, 0, NULL, a, h }

/* The machine's own names (one source each), as opt_choices lists them. */
static const char *memmap_pages_choice(int i)
{
	return i < MEMMAP_PAGES_NR ? memmap_pages_name(i) : NULL;
}

static const char *desc_age_choice(int i)	/* trace is trace:FILE */
{
	return i < DESC_AGE_NR ? (i == DESC_TRACE ? "" : desc_age_name(i)) : NULL;
}

static const char *desc_cache_choice(int i)
{
	return i < DESC_CACHE_KIND_NR ? desc_cache_kind_name(i) : NULL;
}

static const char *desc_rcu_choice(int i)
{
	return i < DESC_RCU_NR ? desc_rcu_name(i) : NULL;
}

static const char *large_desc_choice(int i)
{
	return i < LARGE_DESC_NR ? large_desc_name(i) : NULL;
}

static const char *slub_choice(int i)
{
	return i < DESC_SLUB_NR ? desc_slub_name(i) : NULL;
}

static const char *base_page_choice(int i)
{
	return base_pages[i].name;
}

static const char *on_off_choice(int i)
{
	return i < 2 ? (const char *[]){ "on", "off" }[i] : NULL;
}

static const char *sim_cache_choice(int i)
{
	return i < 3 ? (const char *[]){ "regime", "fixed", "host" }[i] : NULL;
}

static const struct opt_choices memmap_pages_values = { memmap_pages_choice, NULL, NULL };
static const struct opt_choices desc_age_values = { desc_age_choice, "trace:", "trace:FILE" };
static const struct opt_choices desc_cache_values = { desc_cache_choice, NULL, NULL };
static const struct opt_choices desc_rcu_values = { desc_rcu_choice, NULL, NULL };
static const struct opt_choices large_desc_values = { large_desc_choice, NULL, NULL };
static const struct opt_choices slub_values = { slub_choice, NULL, NULL };
static const struct opt_choices base_page_values = { base_page_choice, NULL, NULL };
static const struct opt_choices on_off_values = { on_off_choice, NULL, NULL };
static const struct opt_choices sim_cache_values = { sim_cache_choice, NULL, NULL };

static const struct opt_spec opt_table[] = {
	OPT_STRING("--layout", layout, "A,B,...",
		   "layouts to compare (default: all of layouts.list)\n"
		   "and " MDB_REAL_LAYOUT ": the running kernel's own memmap through the\n"
		   "mdbench_kmod module (root; kmod/README.md), on --mix=kpageflags"),
	OPT_STRING("--ram", ram, "256MiB,4GiB,headline",
		   "modelled RAM sizes (B/KiB/MiB/GiB/TiB, multiples of 2MiB);\n"
		   "headline: the smallest power of two >= 16x the last-level\n"
		   "cache (--llc) where every layout's headline working set\n"
		   "is >= 4x it; capped at half of MemAvailable (dump:\n"
		   "context.memdesc_bench.machine)"),
	OPT_STRING("--llc", llc, "auto|measure|hwloc|SIZE",
		   "the last-level cache the headline is sized from: measured\n"
		   "by a pointer chase (a second or less), used where it and\n"
		   "hwloc's differ by more than 2x; auto (default): measure\n"
		   "when the run needs the headline size; SIZE: as given"),
	OPT_STRING("--mix", mix, "desktop,...", "built-in mix, JSON file, or kpageflags (default: desktop)"),
	OPT_STRING("--profile", profile, "quick|full|smoke",
		   "quick (default): 256MiB and the headline size (there only\n"
		   "the kernels that keep their memmap, projection-only\n"
		   "ones aside), short runs;\n"
		   "full: 256MiB..64GiB; smoke: every kernel of every layout\n"
		   "once, 64MiB (2GiB for 1 GiB hugetlb mixes), shortest"),
	OPT_STRING("--counters", counters, "a,b,...|none",
		   "short, perf or libpfm event names (default: cycles,instructions,\n"
		   "L1D_load_misses,LLC_load_misses,dTLB_load_misses,page_faults)"),
	OPT_STRING("--cpu", cpu, "N",
		   "pin the benchmark thread to CPU N (and a threaded\nbenchmark's first thread)"),
	OPT_STRING("--threads", threads, "1,2,4,max",
		   "thread counts of the threaded kernels (max: every CPU\n"
		   "mdbench may use, taskset included); one thread per\n"
		   "core, then per hardware thread, each pinned; more\n"
		   "threads than CPUs are refused: they would time the\n"
		   "scheduler (default: quick 1,2; full 1,2,4,...,max;\n"
		   "--simulate runs them on 1 thread only)"),
	OPT_STRING("--node", node, "N", "bind memmaps to NUMA node N"),
	OPT_CHOICE("--memmap-pages", memmap_pages, memmap_pages_values,
		   "memmaps and descriptor caches on 2 MiB pages, as the\n"
		   "kernel maps vmemmap and slabs (default), or 4 KiB pages"),
	OPT_CHOICE("--memmap-pool", memmap_pool, on_off_values,
		   "each 2 MiB page of a memmap and its descriptor caches\n"
		   "drawn at random from pages the process keeps, so that\n"
		   "every build spreads over the same memory (default), or\n"
		   "faulted in where the kernel puts it (--node: always)"),
	OPT_CHOICE("--desc-age", desc_age, desc_age_values,
		   "after a seeded allocation trace that moves folios and\n"
		   "ages their descriptors, as on a machine that has run a\n"
		   "while (default); fresh: as placed, freelists randomised\n"
		   "as kernels ship; fresh-ordered: in address order, the\n"
		   "unreachable best case; aged-permute: the descriptors\n"
		   "churned as the trace would, each folio kept at its pfn;\n"
		   "trace:FILE: a recorded trace replayed instead of the\n"
		   "seeded one (docs/conditions.md: the format)"),
	OPT_CHOICE("--compaction", compaction, on_off_values,
		   "the aging trace compacts as kcompactd and direct\n"
		   "compaction would (default), or never"),
	OPT_CHOICE("--desc-cache", desc_cache, desc_cache_values,
		   "the folio descriptor caches: TYPESAFE_BY_RCU with\n"
		   "freeptr_offset (default), the plan's 16-byte alignment,\n"
		   "RCU with the free pointer after the object, or\n"
		   "SLAB_HWCACHE_ALIGN"),
	OPT_CHOICE("--desc-rcu", desc_rcu, desc_rcu_values,
		   "which memdesc caches are TYPESAFE_BY_RCU: all, as the\n"
		   "plan makes them (default; slab and ptdesc 80 B, zpdesc\n"
		   "and bump 64 B), or the folio caches only (64, 48 B)"),
	OPT_CHOICE("--large-desc", large_desc, large_desc_values,
		   "the memdesc layouts' large folio descriptor: the fields\n"
		   "FolioAlloc initialises (default, 112 B), or all of 6.18's\n"
		   "large-folio and hugetlb fields (160 B)"),
	OPT_CHOICE("--slub", slub, slub_values,
		   "SLUB with per-CPU sheaves and the barn (default), or\n"
		   "6.18's per-CPU slab (struct kmem_cache_cpu)"),
	OPT_STRING("--slab-cpus", slab_cpus, "N",
		   "the nr_cpu_ids descriptor caches are sized and held for:\n"
		   "slab order (calculate_order()) and the footprint's\n"
		   "per-CPU sheaves (default: this machine's CPUs)"),
	OPT_STRING("--folio-desc-bytes", folio_desc_bytes, "64,80,...",
		   "sweep the small folio descriptor's size (multiples of 16;\n"
		   "below the layout's struct folio only footprint runs)"),
	OPT_STRING("--hvo", hvo, "off|on|off,on",
		   "HugeTLB Vmemmap Optimisation on mixes with hugetlb folios:\n"
		   "their memmap remapped as the kernel does (hvo:on), or not;\n"
		   "default: off, and on as well for the hugetlb kernels and\n"
		   "footprint (distributions build HVO but boot with it off)"),
	OPT_CHOICE("--base-page", base_page, base_page_values,
		   "the modelled kernel's base page (default 4k): memmap entries,\n"
		   "mix orders, hugetlb sizes, buddy and pageblock orders,\n"
		   "HVO (docs/conditions.md)"),
	OPT_STRING("--seed", seed, "N", "placement of the mix and the descriptor churn (default 1)"),
	OPT_STRING("--rounds", rounds, "N|auto",
		   "run every benchmark N times, round after round (default 1;\n"
		   "a report kernel once); auto: " MDB_NUM_STR(MDB_AUTO_MIN_ROUNDS) " rounds at the headline\n"
		   "size, then more of each group (all layouts of a kernel/mix/\n"
		   "RAM/threads) until every layout's 99% interval against the\n"
		   "reference is decided, " MDB_NUM_STR(MDB_AUTO_MAX_ROUNDS) " rounds, or the time budget"),
	OPT_STRING("--round-reps", round_reps, "K",
		   "a timed round is K short runs (min time / K each) reduced\n"
		   "to one value (rounds.h; default 10, 1: one run; a kernel\n"
		   "that rebuilds its memmap each run: 1)"),
	OPT_STRING("--time-budget", time_budget, "SECONDS",
		   "--rounds=auto: no extra round that would end past it; the\n"
		   "headline size's groups are offered it first"),
	OPT_STRING("--out", out, "DIR", "write DIR/mdbench.json, mix.json, topology.xml"),
	OPT_BOOLEAN("--force", force, "replace an earlier run's results in DIR"),
	OPT_OWN("--list", "[=json]", "list benchmarks, layouts, kernels and counters, run nothing"),
	OPT_BOOLEAN("--simulate", simulate,
		    "run each kernel under callgrind, write DIR/sim.json (quick:\n"
		    "the headline kernels and footprint at 256MiB; full: all)"),
	OPT_CHOICE("--sim-cache", sim_cache, sim_cache_values,
		   "--simulate's cache geometry: regime (the quick and full\n"
		   "profiles' default: the fixed L1s, an LL the RAM is as many\n"
		   "times as the native headline's is its LLC), fixed (default\n"
		   "with --ram: D1 32KiB, LL 8MiB) or this host's (hwloc)"),
	OPT_STRING("--sim-instance", sim_instance, NULL, NULL),	/* the --simulate child's */
	OPT_STRING("--fixed-ops", fixed_ops, "N",
		   "no timing: run each benchmark for N ops (on each of a\n"
		   "threaded one's threads), print the items"),
	OPT_OWN("--version", "", "the commit and Google Benchmark API this binary is built from"),
};

#define HELP_COLUMN	36

/* The allowed values joined: "a|b|c" (sep "|", last "|") or "a, b or c" (", ", " or "). */
static void choices_text(const struct opt_choices *c, const char *sep, const char *last,
			 char *buf, size_t len)
{
	const char *v[16];
	int n = 0, i;
	size_t at = 0;

	for (i = 0; c->name_of(i) && n < 15; i++)
		if (*c->name_of(i))
			v[n++] = c->name_of(i);
	if (c->prefixed)
		v[n++] = c->prefixed;
	buf[0] = '\0';
	for (i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? (i == n - 1 ? last : sep) : "", v[i]);
}

static bool choice_allowed(const struct opt_choices *c, const char *v)
{
	int i;

	if (c->prefix && !strncmp(v, c->prefix, strlen(c->prefix)))
		return true;
	for (i = 0; c->name_of(i); i++)
		if (*c->name_of(i) && !strcmp(c->name_of(i), v))
			return true;
	return false;
}

/* Every value given for an option with a list of allowed values is one of them. */
static void check_choices(const struct options *o)
{
	char words[256];
	size_t i;

	for (i = 0; i < sizeof(opt_table) / sizeof(opt_table[0]); i++) {
		const struct opt_spec *sp = &opt_table[i];
		const char *v = sp->kind == OPT_VALUE ? *(const char *const *)((const char *)o + sp->offset) :
							NULL;

		if (!v || !sp->choices || choice_allowed(sp->choices, v))
			continue;
		choices_text(sp->choices, ", ", " or ", words, sizeof(words));
		mdb_dief("%s=%s: %s", sp->name, v, words);
	}
}

static void usage(void)
{
	char left[128], values[128];
	size_t i;

	printf("usage: mdbench [options] [--benchmark_...]\n");
	for (i = 0; i < sizeof(opt_table) / sizeof(opt_table[0]); i++) {
		const struct opt_spec *sp = &opt_table[i];
		const char *h = sp->help, *nl;
		int n;

		if (!h)
			continue;
		if (sp->choices)
			choices_text(sp->choices, "|", "|", values, sizeof(values));
		n = snprintf(left, sizeof(left), "  %s%s%s", sp->name,
			     sp->kind == OPT_VALUE ? "=" : "",
			     sp->choices ? values : sp->argh ? sp->argh : "");
		printf("%-*s%s", HELP_COLUMN, left, n >= HELP_COLUMN ? "  " : "");
		for (; (nl = strchr(h, '\n')); h = nl + 1)
			printf("%.*s\n%*s", (int)(nl - h), h, HELP_COLUMN, "");
		printf("%s\n", h);
	}
	printf("Google Benchmark's flags are checked, then passed on: --benchmark_filter=REGEX,\n"
	       "--benchmark_repetitions=N, --benchmark_min_time=SECONDS, --benchmark_format=json,\n"
	       "--benchmark_out=FILE, ... (quick sets --benchmark_min_time=" QUICK_MIN_TIME ", smoke "
	       SMOKE_MIN_TIME ", unless given).\n"
	       "Progress: one line on stderr per benchmark run, 'mdbench: progress DONE/TOTAL elapsed=S\n"
	       "est_left=S NAME' (results/SCHEMA.md).  Google Benchmark's '***WARNING*** Library was built\n"
	       "as DEBUG' is about Debian's libbenchmark package, not mdbench (the timed loops are ours).\n");
}

/* "--name=value" -> value; NULL if arg is not that option. */
static const char *opt_value(const char *arg, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(arg, name, n))
		return NULL;
	if (arg[n] == '=')
		return arg + n + 1;
	if (!arg[n])
		mdb_dief("%s needs a value: %s=...", name, name);
	return NULL;
}

static bool opt_flag(const char *arg, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(arg, name, n))
		return false;
	if (arg[n] == '=')
		mdb_dief("%s takes no value", name);
	return !arg[n];
}

/* Whether Google Benchmark's flag a names the same flag as b, values aside. */
static bool same_gb_flag(const char *a, const char *b)
{
	size_t n = strcspn(a, "=");

	return n == strcspn(b, "=") && !strncmp(a, b, n);
}

/* A Google Benchmark boolean as it reads one: no value, or one of its true words. */
static bool gb_true(const char *arg)
{
	static const char *const yes[] = { "true", "yes", "on", "1", NULL };
	const char *v = strchr(arg, '=');
	const char *const *y;

	if (!v)
		return true;
	for (y = yes; *y; y++)
		if (!strcmp(v + 1, *y))
			return true;
	return false;
}

/* Ours out of argv, Google Benchmark's (checked) into gb_argv. */
static void parse_args(int argc, char **argv, struct options *o, char **gb_argv, int *gb_argc)
{
	struct mdb_err err;
	unsigned int i;
	int a;

	memset(o, 0, sizeof(*o));
	*gb_argc = 0;
	gb_argv[(*gb_argc)++] = argv[0];
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a], *v = NULL;
		char *fixed;

		for (i = 0; i < sizeof(opt_table) / sizeof(opt_table[0]) && !v; i++) {
			const struct opt_spec *sp = &opt_table[i];
			const char **field = (const char **)((char *)o + sp->offset);

			if (sp->kind != OPT_VALUE)
				continue;
			v = opt_value(arg, sp->name);
			if (v && *field)	/* the second would silently win */
				mdb_dief("%s given twice", sp->name);
			if (v)
				*field = v;
		}
		if (v)
			continue;
		for (i = 0; i < sizeof(opt_table) / sizeof(opt_table[0]); i++)
			if (opt_table[i].kind == OPT_FLAG && opt_flag(arg, opt_table[i].name))
				break;
		if (i < sizeof(opt_table) / sizeof(opt_table[0])) {
			*(bool *)((char *)o + opt_table[i].offset) = true;
		} else if (!strcmp(arg, "--list")) {
			o->list = "text";
		} else if (!strncmp(arg, "--list=", 7)) {
			o->list = arg + 7;
			if (strcmp(o->list, "json") && strcmp(o->list, "text"))
				mdb_dief("--list=%s: text or json", o->list);
		} else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			usage();
			exit(0);
		} else if (!strcmp(arg, "--version")) {
			printf("mdbench %s%s (dump schema %d, Google Benchmark API %s)\n", MDB_GIT_COMMIT,
			       !strcmp(MDB_GIT_DIRTY, "true") ? "-dirty" : "", MDB_SCHEMA_VERSION,
			       mdb_gb_api);
			exit(0);
		} else if (!strncmp(arg, "--benchmark_", 12) || !strncmp(arg, "--v=", 4)) {
			if (mdb_gb_check_flag(arg, &fixed, &err))
				mdb_die(&err);
			/*
			 * The filter is ours alone: only the instances it selects
			 * are registered, so Google Benchmark's own regex engine
			 * (std::regex) cannot disagree with the plan's (regcomp).
			 */
			if (!strncmp(arg, "--benchmark_filter=", 19)) {
				if (o->filter)
					mdb_dief("--benchmark_filter given twice");
				o->filter = arg + 19;
				continue;
			}
			/* Google Benchmark keeps the last silently: the first was meant too. */
			for (i = 1; i < (unsigned int)*gb_argc; i++)
				if (same_gb_flag(gb_argv[i], arg))
					mdb_dief("%.*s given twice", (int)strcspn(arg, "="), arg);
			gb_argv[(*gb_argc)++] = fixed ? fixed : argv[a];
			if (!strncmp(arg, "--benchmark_min_time=", 21))
				o->min_time = arg + 21;
			if (same_gb_flag(arg, "--benchmark_out"))
				o->gb_out = true;
			if (same_gb_flag(arg, "--benchmark_repetitions"))
				o->gb_repetitions = true;
			if (same_gb_flag(arg, "--benchmark_list_tests"))
				o->gb_list_tests = gb_true(arg);
		} else {
			mdb_dief("unknown option '%s' (mdbench --help lists them)", arg);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Values                                                              */

static uint64_t parse_number(const char *opt, const char *s, uint64_t max)
{
	struct mdb_err err;
	uint64_t v;

	if (mdb_parse_u64(s, max, &v, opt, &err))
		mdb_die(&err);
	return v;
}

/*
 * Calls add() for each item of a comma-separated list: no empty item, no
 * empty list.  Duplicates are the caller's to skip.
 */
static void for_each_item(const char *opt, const char *list, void (*add)(struct mdb_run *, const char *),
			  struct mdb_run *run)
{
	char *copy = strdup(list), *item, *next;

	if (!copy)
		mdb_dief("out of memory");
	if (!*list)
		mdb_dief("%s= names nothing", opt);
	for (item = copy; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		if (!*item)
			mdb_dief("%s=%s: an empty item", opt, list);
		add(run, item);
	}
	free(copy);
}

/* Grows a malloc'd array of n elements of size to hold one more. */
static void *grow(void *array, unsigned int n, size_t size)
{
	void *p = realloc(array, (n + 1) * size);

	if (!p)
		mdb_dief("out of memory");
	return p;
}

static void add_layout(struct mdb_run *run, const char *name)
{
	const struct layout_ops *ops = layout_by_name(name);
	char valid[512] = "";
	unsigned int i;

	if (!strcmp(name, MDB_REAL_LAYOUT)) {
		run->real = mdb_real_open(run);
		return;
	}
	if (!ops) {
		for (i = 0; mdb_layouts[i]; i++)
			snprintf(valid + strlen(valid), sizeof(valid) - strlen(valid), "%s%s",
				 i ? ", " : "", mdb_layouts[i]->name);
		mdb_dief("unknown layout '%s' (layouts: %s)", name, valid);
	}
	for (i = 0; i < run->nr_layouts; i++)
		if (run->layouts[i] == ops)
			return;
	run->layouts = grow(run->layouts, run->nr_layouts + 1, sizeof(*run->layouts));
	run->layouts[run->nr_layouts++] = ops;
	run->layouts[run->nr_layouts] = NULL;
}

/* In layouts.list order, whatever order they were given in: the reference comes first. */
static void order_layouts(struct mdb_run *run)
{
	unsigned int n = 0, i, j;

	for (i = 0; mdb_layouts[i]; i++)
		for (j = 0; j < run->nr_layouts; j++)
			if (run->layouts[j] == mdb_layouts[i]) {
				const struct layout_ops *t = run->layouts[n];

				run->layouts[n] = run->layouts[j];
				run->layouts[j] = t;
				n++;
			}
}

static void add_ram_bytes(struct mdb_run *run, uint64_t bytes)
{
	unsigned int i;

	for (i = 0; i < run->nr_ram_sizes; i++)
		if (run->ram_sizes[i] == bytes)
			return;
	run->ram_sizes = grow(run->ram_sizes, run->nr_ram_sizes, sizeof(*run->ram_sizes));
	run->ram_sizes[run->nr_ram_sizes++] = bytes;
}

static void add_ram(struct mdb_run *run, const char *s)
{
	struct mdb_err err;
	uint64_t bytes;
	char min[32];

	if (!strcmp(s, "headline")) {
		if (!run->machine.headline_ram)
			mdb_dief("--ram=headline: %s", run->machine.headline_reason);
		add_ram_bytes(run, run->machine.headline_ram);
		return;
	}
	if (mdb_parse_size(s, MAX_RAM, &bytes, "--ram", &err))
		mdb_die(&err);
	if (bytes < MIN_RAM || bytes % MIN_RAM) {
		mdb_format_size(MIN_RAM, min, sizeof(min));
		mdb_dief("--ram: '%s' is not a positive multiple of %s, one pageblock (the mix is "
			 "placed in pageblocks)", s, min);
	}
	add_ram_bytes(run, bytes);
}

/* --hvo: off, on; duplicates once. */
static void add_hvo(struct mdb_run *run, const char *s)
{
	int m = hvo_mode_from_name(s);

	if (m < 0)
		mdb_dief("--hvo=%s: off, on or off,on", s);
	run->hvo[m] = true;
}

/* --folio-desc-bytes: decimal bytes, what layout_desc_sizes() takes; duplicates once. */
static void add_folio_size(struct mdb_run *run, const char *s)
{
	struct mdb_err err;
	unsigned int i;
	uint64_t v;

	if (mdb_parse_u64(s, FOLIO_DESC_BYTES_MAX, &v, "--folio-desc-bytes", &err))
		mdb_die(&err);
	if (!v || v % DESC_ALIGN)
		mdb_dief("--folio-desc-bytes: %s is not a multiple of %d from %d to %d (descriptors "
			 "are %d-byte aligned)", s, DESC_ALIGN, DESC_ALIGN, FOLIO_DESC_BYTES_MAX,
			 DESC_ALIGN);
	for (i = 0; i < run->nr_folio_sizes; i++)
		if (run->folio_sizes[i] == v)
			return;
	run->folio_sizes = grow(run->folio_sizes, run->nr_folio_sizes, sizeof(*run->folio_sizes));
	run->folio_sizes[run->nr_folio_sizes++] = (unsigned int)v;
}

static void add_mix(struct mdb_run *run, const char *arg)
{
	struct mdb_err err;
	struct mix *mix;
	unsigned int i;

	run->mixes = grow(run->mixes, run->nr_mixes, sizeof(*run->mixes));
	run->given_mixes = grow(run->given_mixes, run->nr_mixes, sizeof(*run->given_mixes));
	run->mix_how = grow(run->mix_how, run->nr_mixes, sizeof(*run->mix_how));
	mix = &run->mixes[run->nr_mixes];
	if (mix_resolve(arg, &run->given_mixes[run->nr_mixes], &err))
		mdb_dief("--mix=%s: %s", arg, err.msg);
	/* Given in 4 KiB pages; placed in the run's base pages. */
	if (mix_translate(&run->given_mixes[run->nr_mixes], run->cond.base, mix,
			  run->mix_how[run->nr_mixes], &err))
		mdb_dief("--mix=%s at --base-page=%s: %s", arg, run->cond.base->name, err.msg);
	for (i = 0; i < run->nr_mixes; i++)
		if (!strcmp(run->mixes[i].name, mix->name))
			mdb_dief("--mix: two mixes named '%s'", mix->name);
	/* Said once, up front, not as every benchmark's error (memmap_create() refuses it too). */
	if (mix->placed && run->cond.opts.replay)
		mdb_dief("--mix=%s: a kpageflags snapshot keeps every block where it saw it; "
			 "--desc-age=trace:%s replays onto a drawn mix only (at --base-page=16k or 64k "
			 "the snapshot's fractions are drawn)", arg, run->replay.path);
	if (!strcmp(arg, "kpageflags"))
		run->kpageflags_mix = (int)run->nr_mixes;
	run->nr_mixes++;
}

static void add_thread_count(struct mdb_run *run, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < run->nr_thread_counts && run->thread_counts[i] < n; i++)
		;
	if (i < run->nr_thread_counts && run->thread_counts[i] == n)
		return;
	run->thread_counts = grow(run->thread_counts, run->nr_thread_counts,
				  sizeof(*run->thread_counts));
	for (j = run->nr_thread_counts++; j > i; j--)
		run->thread_counts[j] = run->thread_counts[j - 1];
	run->thread_counts[i] = n;
}

/* --threads: decimal counts from 1 to the CPUs mdbench may use, or max; kept in ascending order. */
static void add_threads(struct mdb_run *run, const char *s)
{
	struct mdb_err err;
	char allowed[128];
	uint64_t n;

	if (!strcmp(s, "max")) {
		add_thread_count(run, run->nr_cpus);
		return;
	}
	if (mdb_parse_u64(s, UINT32_MAX, &n, "--threads", &err) || !n)
		mdb_dief("--threads=%s: a decimal count of threads from 1 to %u, or max", s,
			 run->nr_cpus);
	if (n > run->nr_cpus) {
		mdb_topology_allowed_list(&run->topo, allowed, sizeof(allowed));
		mdb_dief("--threads: %s threads, but mdbench may use %u CPUs (%s): each thread needs one "
			 "of its own, or it times the scheduler (max takes them all)", s, run->nr_cpus,
			 allowed);
	}
	add_thread_count(run, (unsigned int)n);
}

/* The profile's thread counts: quick 1 and 2; full 1, 2, 4, ... below every CPU, then all. */
static void default_threads(struct mdb_run *run)
{
	unsigned int top = strcmp(run->profile, "full") ? 2 : run->nr_cpus, n;

	if (top > run->nr_cpus)
		top = run->nr_cpus;
	add_thread_count(run, 1);
	for (n = 2; n < top; n *= 2)
		add_thread_count(run, n);
	add_thread_count(run, top);
}

/* A replayed trace must fit each RAM size it runs at: at its peak it holds that many pages. */
static void check_replay_fits(const struct mdb_run *run)
{
	for (unsigned int i = 0; run->cond.opts.replay && i < run->nr_ram_sizes; i++)
		if (run->replay.peak_pages > run->ram_sizes[i] >> MDB_PAGE_SHIFT)
			mdb_dief("--desc-age=trace:%s: holds %lu pages at its peak, more than the %llu "
				 "of %llu MiB of RAM", run->replay.path, run->replay.peak_pages,
				 (unsigned long long)(run->ram_sizes[i] >> MDB_PAGE_SHIFT),
				 (unsigned long long)(run->ram_sizes[i] >> 20));
}

static void setup_threads(struct mdb_run *run, const struct options *o)
{
	struct mdb_err err;

	if (mdb_topology_thread_cpus(&run->topo, run->cpu, &run->cpus, &run->nr_cpus, &err))
		mdb_die(&err);
	run->threads_given = o->threads != NULL;
	if (o->threads)
		for_each_item("--threads", o->threads, add_threads, run);
	else
		default_threads(run);
	if (o->simulate && (run->nr_thread_counts > 1 || run->thread_counts[0] != 1)) {
		if (o->threads)
			fprintf(stderr, "mdbench: note: --simulate runs the threaded kernels on 1 thread: "
				"callgrind runs threads one at a time through one simulated cache, so "
				"more would count no contention\n");
		run->nr_thread_counts = 1;
		run->thread_counts[0] = 1;
	}
}

/* bytes rounded up to whole pageblocks (--ram's step: 512MiB at --base-page=64k). */
static uint64_t pageblocks_up(uint64_t bytes)
{
	return (bytes + MDB_RAM_STEP - 1) / MDB_RAM_STEP * MDB_RAM_STEP;
}

/* Full profile: 256MiB (or one pageblock) x4 up to 64GiB, stopping where the largest layout would not fit. */
static void full_profile_sizes(struct mdb_run *run)
{
	unsigned long long avail = mdb_mem_available();
	uint64_t ram;
	char a[32];

	for (ram = pageblocks_up(256 * MDB_MiB); ram <= 64 * MDB_GiB; ram *= 4) {
		unsigned long long need = 0;
		unsigned int l, m;

		for (l = 0; l < run->nr_layouts; l++)
			for (m = 0; m < run->nr_mixes; m++) {
				unsigned long long n = mdb_memory_need(run, run->layouts[l],
								       &run->mixes[m], ram);

				need = n > need ? n : need;
			}
		if (avail && need > avail) {
			mdb_format_size(ram, a, sizeof(a));
			fprintf(stderr, "mdbench: note: --profile=full stops below %s: it needs %llu MiB "
				"of memmap and descriptors, MemAvailable is %llu MiB\n", a, need >> 20,
				avail >> 20);
			break;
		}
		add_ram_bytes(run, ram);
	}
	if (!run->nr_ram_sizes)
		mdb_dief("--profile=full: not even 256MiB of modelled RAM fits in MemAvailable");
}

/*
 * Quick profile: one size whose memmaps fit the last-level cache, for
 * contrast, and the headline size; 256MiB, 1GiB and 4GiB where no cache is
 * known to size the headline from.  Under --simulate only what the
 * headline needs (mdb_plan(): its kernels' misses per op), at the small
 * size: callgrind's cache is a fixed model whose misses per op do not hang
 * on the RAM once the memmap passes it, and it builds a headline-sized
 * memmap at valgrind's pace, minutes each.
 */
static void quick_profile_sizes(struct mdb_run *run, bool simulate)
{
	if (!run->machine.headline_ram && !simulate) {
		add_ram_bytes(run, pageblocks_up(QUICK_SMALL_RAM));
		add_ram_bytes(run, pageblocks_up(MDB_GiB));
		add_ram_bytes(run, pageblocks_up(4 * MDB_GiB));
		return;
	}
	add_ram_bytes(run, pageblocks_up(QUICK_SMALL_RAM));
	if (!simulate)
		add_ram_bytes(run, run->machine.headline_ram);
}

/*
 * Smoke profile (scripts/test): every kernel of every layout once, each mix
 * as small as it runs: 32 pageblocks (64MiB at 4k: the aged trace's
 * compaction leaves the order-9 kernels a free pageblock), or twice the largest
 * hstate for a mix with such hugetlb folios (2GiB at 4k: the smallest size
 * that holds one of a mix mostly made of them);
 * the plan pairs each mix with its own size only (mdb_smoke_ram()).
 */
static void smoke_profile_sizes(struct mdb_run *run)
{
	unsigned int m;

	for (m = 0; m < run->nr_mixes; m++)
		add_ram_bytes(run, mdb_smoke_ram(&run->mixes[m]));
}

/* "20261203T101500Z-3f9a2c1b": when, and 32 random bits to tell two runs of one second apart. */
static void make_run_id(struct mdb_run *run)
{
	uint32_t r = 0;
	time_t now = time(NULL);
	struct tm tm;
	char when[32];
	FILE *f = fopen("/dev/urandom", "r");

	if (!f || fread(&r, sizeof(r), 1, f) != 1)
		r = (uint32_t)getpid() ^ (uint32_t)now;
	if (f)
		fclose(f);
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(run->run_id, sizeof(run->run_id), "%s-%08x", when, r);
}

static const char *profile_min_time(const char *profile)
{
	return !strcmp(profile, "smoke") ? SMOKE_MIN_TIME : QUICK_MIN_TIME;
}

/* Seconds of --benchmark_min_time (checked already), or the profile's; iterations ("100x"): 0. */
static double min_time_seconds(const struct mdb_run *run, const char *given)
{
	if (!given)
		return strcmp(run->profile, "full") ? strtod(profile_min_time(run->profile), NULL) :
		       GB_MIN_TIME;
	return given[strlen(given) - 1] == 'x' ? 0 : strtod(given, NULL);
}

static void setup_run(struct mdb_run *run, const struct options *o)
{
	const struct layout_ops *const *l;
	struct mdb_err err;

	run->profile = o->profile ? o->profile : "quick";
	if (strcmp(run->profile, "quick") && strcmp(run->profile, "full") &&
	    strcmp(run->profile, "smoke"))
		mdb_dief("unknown --profile=%s (quick, full or smoke)", run->profile);
	run->min_time = min_time_seconds(run, o->min_time);
	check_choices(o);
	if (o->sim_cache && !o->simulate)
		mdb_dief("--sim-cache needs --simulate");
	if (o->out && !*o->out)
		mdb_dief("--out= needs a directory");
	if (o->force && !o->out)
		mdb_dief("--force needs --out=DIR");
	if (o->simulate && !o->out)
		mdb_dief("--simulate needs --out=DIR for its sim.json");
	/* Google Benchmark opens its out file before it lists, and writes nothing there. */
	if (o->gb_out && o->gb_list_tests)
		mdb_dief("--benchmark_out with --benchmark_list_tests: the listing goes to stdout, "
			 "and the file would only be emptied");
	if (o->fixed_ops)
		run->fixed_ops = parse_number("--fixed-ops", o->fixed_ops, UINT32_MAX);
	run->out_dir = o->out;
	run->force = o->force;
	run->filter = o->filter ? o->filter : "";
	run->cpu = o->cpu ? (int)parse_number("--cpu", o->cpu, INT_MAX) : -1;
	run->node = o->node ? (int)parse_number("--node", o->node, INT_MAX) : -1;
	run->rounds_auto = o->rounds && !strcmp(o->rounds, "auto");
	run->rounds = run->rounds_auto ? MDB_AUTO_MIN_ROUNDS :
		      o->rounds ? (unsigned int)parse_number("--rounds", o->rounds, 1000) : 1;
	if (!run->rounds)
		mdb_dief("--rounds=0: at least 1");
	if (o->time_budget && !run->rounds_auto)
		mdb_dief("--time-budget needs --rounds=auto");
	if (o->time_budget) {
		run->time_budget = (double)parse_number("--time-budget", o->time_budget, 7 * 24 * 3600);
		if (!run->time_budget)
			mdb_dief("--time-budget=0: at least 1 second");
	}
	/* Google Benchmark's repetitions, when asked for, are the user's own. */
	run->round_reps = o->gb_repetitions || o->simulate || o->fixed_ops ? 1 : MDB_ROUND_REPS;
	if (o->round_reps) {
		run->round_reps = (unsigned int)parse_number("--round-reps", o->round_reps, 100);
		if (!run->round_reps)
			mdb_dief("--round-reps=0: at least 1");
		if (run->round_reps > 1 && o->gb_repetitions)
			mdb_dief("--round-reps with --benchmark_repetitions: a round is one or the other");
	}
	if (run->rounds_auto && (o->simulate || o->fixed_ops))
		mdb_dief("--rounds=auto: only for a timed run (not --simulate or --fixed-ops)");
	/*
	 * Before anything sized in pages: --ram's step, the mixes, the headline,
	 * the orders of a replayed trace.
	 */
	run->base_given = o->base_page != NULL;
	run->cond.base = base_page_find(o->base_page ? o->base_page : "4k");
	run->cond.slab_cpus = desc_slab_cpus();	/* the machine's */
	if (o->slab_cpus) {
		run->cond.slab_cpus = (unsigned int)parse_number("--slab-cpus", o->slab_cpus,
								 DESC_SLAB_CPUS_MAX);
		if (!run->cond.slab_cpus)
			mdb_dief("--slab-cpus=%s: 1 to %u", o->slab_cpus, DESC_SLAB_CPUS_MAX);
	}
	mdb_cond_apply(&run->cond);
	if (o->desc_age && !strncmp(o->desc_age, "trace:", 6)) {
		if (!o->desc_age[6])
			mdb_dief("--desc-age=trace: needs a file, trace:FILE");
		if (age_replay_load(o->desc_age + 6, &run->replay, &err)) {
			mdb_err_prefix(&err, "--desc-age=trace");
			mdb_die(&err);
		}
		run->cond.opts.replay = &run->replay;
	}
	run->cond.opts.no_compaction = o->compaction && !strcmp(o->compaction, "off");
	run->memmap_pool = !o->memmap_pool || !strcmp(o->memmap_pool, "on");
	run->cond.opts.desc_cache = o->desc_cache ? desc_cache_kind_from_name(o->desc_cache) : DESC_CACHE_RCU;
	run->cond.opts.desc_rcu = o->desc_rcu ? desc_rcu_from_name(o->desc_rcu) : DESC_RCU_ALL;
	run->cond.opts.large_desc = o->large_desc ? large_desc_from_name(o->large_desc) : LARGE_DESC_PLAN;
	run->cond.opts.slub = o->slub ? desc_slub_from_name(o->slub) : DESC_SLUB_SHEAVES;
	/*
	 * As the modelled kernel maps its vmemmap: PMD pages at 4k
	 * (vmemmap_populate_hugepages()), base pages at 16k and 64k, where
	 * arm64's vmemmap_populate() (arch/arm64/mm/mmu.c) takes
	 * vmemmap_populate_basepages() unless CONFIG_ARM64_4K_PAGES: this
	 * machine's smallest page stands for them.
	 */
	run->cond.opts.pages = o->memmap_pages ? memmap_pages_from_name(o->memmap_pages) :
			       run->cond.base->shift == BASE_PAGE_MIN_SHIFT ? MEMMAP_PAGES_2M :
			       MEMMAP_PAGES_4K;
	run->cond.opts.age = run->cond.opts.replay ? DESC_TRACE :
			o->desc_age ? desc_age_from_name(o->desc_age) : DESC_AGED;
	if (o->folio_desc_bytes)
		for_each_item("--folio-desc-bytes", o->folio_desc_bytes, add_folio_size, run);
	run->hvo_given = o->hvo != NULL;
	if (o->hvo)
		for_each_item("--hvo", o->hvo, add_hvo, run);
	run->cond.opts.seed = o->seed ? parse_number("--seed", o->seed, UINT64_MAX) : 1;
	make_run_id(run);

	run->kpageflags_mix = -1;
	/* First: --layout=kernel without the module or root stops here, in one line. */
	if (o->layout)
		for_each_item("--layout", o->layout, add_layout, run);
	else
		for (l = mdb_layouts; *l; l++)
			add_layout(run, (*l)->name);
	order_layouts(run);
	if (run->real && o->simulate)
		mdb_dief("--simulate: the layout " MDB_REAL_LAYOUT " runs in the kernel, where "
			 "callgrind cannot follow");
	/* The live kernel runs on its own memmap: this machine's snapshot, at its size. */
	for_each_item("--mix", o->mix ? o->mix : run->real ? "kpageflags" : "desktop", add_mix, run);
	if (run->real && run->kpageflags_mix < 0)
		mdb_dief("--layout=" MDB_REAL_LAYOUT " runs on this machine's own memmap: --mix must "
			 "include kpageflags, its snapshot, for the other layouts to run beside it");
	if (run->real)
		mdb_real_snapshot(run->real, &run->mixes[run->kpageflags_mix]);
	/* The CPUs first: --threads is checked against them, the plan and the headline need them. */
	if (mdb_topology_load(&run->topo, &err))
		mdb_die(&err);
	run->topo_loaded = true;
	if (run->cpu >= 0 && mdb_topology_pin(&run->topo, run->cpu, &err))
		mdb_die(&err);
	if (o->llc && strcmp(o->llc, "auto") && strcmp(o->llc, "measure") && strcmp(o->llc, "hwloc")) {
		uint64_t llc;

		if (mdb_parse_size(o->llc, CACHE_PROBE_MAX * 16, &llc, "--llc", &err) || llc < 64)
			mdb_dief("--llc=%s: auto, measure, hwloc or a size (64B to 4GiB)", o->llc);
		run->machine.llc_given = llc;
	}
	/* --simulate in the native headline's regime: asked, or the quick and full profiles' default. */
	run->sim_regime = o->simulate && (o->sim_cache ? !strcmp(o->sim_cache, "regime") :
					  !o->ram && strcmp(run->profile, "smoke"));
	/* auto: where the headline size is used (the quick and full profiles' sizes, --ram=headline, the regime). */
	run->machine.probe_asked = o->llc ? !strcmp(o->llc, "measure") :
				   (!o->ram ? strcmp(run->profile, "smoke") != 0 :
				    strstr(o->ram, "headline") != NULL) || run->sim_regime;
	mdb_headline(run);
	if (o->ram && !run->nr_layouts)
		mdb_dief("--ram: the layout " MDB_REAL_LAYOUT " alone runs at this machine's own RAM; "
			 "--ram sizes the modelled layouts");
	run->smoke_pairs = !o->ram && !strcmp(run->profile, "smoke");
	run->lean_headline = !o->ram && !strcmp(run->profile, "quick");
	run->twin_headline = !o->ram && !o->simulate && strcmp(run->profile, "smoke");
	if (o->ram)
		for_each_item("--ram", o->ram, add_ram, run);
	else if (!strcmp(run->profile, "full") && run->nr_layouts)
		full_profile_sizes(run);
	else if (!strcmp(run->profile, "smoke") && run->nr_layouts)
		smoke_profile_sizes(run);
	else if (!run->real)
		quick_profile_sizes(run, o->simulate);
	if (run->real)
		add_ram_bytes(run, mdb_real_ram_bytes(run->real));
	check_replay_fits(run);
	setup_threads(run, o);
	run->sim_headline_only = o->simulate && !strcmp(run->profile, "quick") && !o->filter;
	mdb_plan(run);

	/* Under valgrind perf_event_open is no use; the parent measures nothing either. */
	if (!o->simulate && mdb_counters_setup(&run->counters, o->counters, &err))
		mdb_die(&err);
	if (o->simulate && o->counters)
		mdb_dief("--counters: --simulate counts with callgrind, not perf");

	if (run->node >= 0) {
		if (mdb_topology_set_node(&run->topo, run->node, &err))
			mdb_die(&err);
		run->cond.opts.bind = mdb_topology_bind;
		run->cond.opts.bind_arg = &run->topo;
	}
}

static void release_run(struct mdb_run *run)
{
	age_replay_release(&run->replay);
	mdb_counters_close(&run->counters);
	mdb_real_close(run->real);
	if (run->topo_loaded)
		mdb_topology_release(&run->topo);
	free(run->inst);
	free(run->layouts);
	free(run->ram_sizes);
	free(run->mixes);
	free(run->given_mixes);
	free(run->mix_how);
	free(run->baseline_sizes);
	free(run->folio_sizes);
	free(run->thread_counts);
	free(run->groups);
	free(run->cpus);
}

int main(int argc, char **argv)
{
	static struct mdb_run run;
	static char **gb_argv;		/* static: still reachable at any exit */
	struct mdb_err err;
	struct options o;
	int gb_argc, ret;

	mdb_interrupt_catch(true);	/* until a file is written: "nothing written" */
	gb_argv = calloc((size_t)argc + 2, sizeof(char *));
	if (!gb_argv)
		mdb_dief("out of memory");
	parse_args(argc, argv, &o, gb_argv, &gb_argc);
	mdb_interrupt_untouched(o.out);
	if (o.sim_instance) {
		if (argc != 2)
			mdb_dief("--sim-instance=FILE is the only option of a --simulate child");
		return mdb_simulate_child(&run, o.sim_instance);
	}
	run.argc = argc;
	run.argv = argv;
	setup_run(&run, &o);

	if (strcmp(run.profile, "full") && !o.min_time)
		gb_argv[gb_argc++] = mdb_gb_min_time(profile_min_time(run.profile));
	if (mdb_benchmark_init(&gb_argc, gb_argv, &err))
		mdb_die(&err);

	if (o.list)
		ret = mdb_list(&run, !strcmp(o.list, "json"));
	else if (o.fixed_ops)
		ret = mdb_run_fixed_all(&run, run.fixed_ops);
	else if (run.out_dir && mdb_outdir_open(run.out_dir, run.force, o.simulate, &err))
		mdb_die(&err);
	else if (o.simulate)
		ret = mdb_simulate(&run);
	else
		ret = mdb_run_native(&run);
	release_run(&run);
	return ret;
}
