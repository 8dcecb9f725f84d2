// SPDX-License-Identifier: GPL-2.0
/*
 * driver.c - mdbench: options, the benchmark instances, their memmaps.
 *
 * Our options are taken out of argv; what is left goes to Google Benchmark,
 * whose flags (--benchmark_filter, _repetitions, _format, _out, _min_time)
 * work unchanged.  Every option is checked before anything runs: bad input
 * is one line on stderr and exit status 2.
 *
 * Instances cross the RAM sizes, the mixes, the layouts and each layout's
 * kernels, in that nesting, so that the benchmarks of one (layout, mix, RAM)
 * follow each other and share one memmap, built at the first of them outside
 * the timed loop.  At most one memmap is alive: the next group, a kernel that
 * changes its memmap (it gets a fresh one each time), and the baselines all
 * free it first.  Baselines follow, over the byte sizes of the memmaps the
 * run's layouts and RAM sizes give.
 */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "counters.h"
#include "driver.h"
#include "dump.h"
#include "meminfo.h"
#include "shim.h"
#include "topology.h"

/*
 * Kernels that only a test binary links in (tests/test_harness_kernels.c),
 * registered after the real ones; undefined, hence NULL, in mdbench.
 */
extern const struct mdb_kernel *const mdb_extra_layout_kernels[] __attribute__((weak));
extern const struct mdb_kernel *const mdb_extra_baseline_kernels[] __attribute__((weak));

#define KiB	(1UL << 10)
#define MiB	(1UL << 20)
#define GiB	(1UL << 30)
#define TiB	(1UL << 40)

#define MAX_RAM		(1024 * TiB)	/* keeps every byte count below 2^64 */
#define QUICK_MIN_TIME	"0.05"

struct options {
	const char *layout, *ram, *mix, *profile, *counters, *out, *cpu, *node, *seed;
	const char *sim_child, *sim_ops, *sim_cache, *filter;
	bool hugepage, list, simulate, min_time;
};

static struct mdb_run run;
static struct mdb_counters counters;
static struct mdb_topology topo;
static bool topo_loaded;
static struct mdb_dump_ctx dump;

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	char msg[1024], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (p = msg; *p; p++)		/* one line, whatever a reason contains */
		if (*p == '\n')
			*p = ' ';
	fprintf(stderr, "mdbench: %s\n", msg);
	exit(2);
}

static void usage(void)
{
	printf("usage: mdbench [options] [--benchmark_...]\n"
	       "  --layout=page64,page32,memdesc8   layouts to compare (default: all)\n"
	       "  --ram=256MiB,4GiB                 modelled RAM sizes (KiB/MiB/GiB/TiB, multiples of 4KiB)\n"
	       "  --mix=desktop,...                 built-in mix, JSON file, or kpageflags (default: desktop)\n"
	       "  --profile=quick|full              quick: 256MiB..4GiB, short runs (default); full: 256MiB..64GiB\n"
	       "  --counters=a,b,...|none           short names or libpfm events (default: cycles,instructions,\n"
	       "                                    L1D_load_misses,LLC_load_misses,dTLB_load_misses,page_faults)\n"
	       "  --cpu=N                           pin the benchmark thread to CPU N\n"
	       "  --node=N                          bind memmaps to NUMA node N (memmap_opts.bind)\n"
	       "  --hugepage                        MADV_HUGEPAGE on memmaps, as vmemmap\n"
	       "  --seed=N                          placement of the mix (default 1)\n"
	       "  --out=DIR                         write DIR/mdbench.json, mix.json, topology.xml\n"
	       "  --list                            list benchmarks, layouts and counters, run nothing\n"
	       "  --simulate                        run each kernel under callgrind, write DIR/sim.json\n"
	       "  --sim-cache=fixed|host            --simulate's cache geometry: fixed (default) or this host's\n"
	       "Google Benchmark's flags pass through unchanged: --benchmark_filter=REGEX,\n"
	       "--benchmark_repetitions=N, --benchmark_min_time=SECONDS, --benchmark_format=json,\n"
	       "--benchmark_out=FILE, ... (quick sets --benchmark_min_time=" QUICK_MIN_TIME " unless given).\n");
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
		die("%s needs a value: %s=...", name, name);
	return NULL;
}

static bool opt_flag(const char *arg, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(arg, name, n))
		return false;
	if (arg[n] == '=')
		die("%s takes no value", name);
	return !arg[n];
}

/* Ours out of argv, Google Benchmark's into gb_argv. */
static void parse_args(int argc, char **argv, struct options *o, char **gb_argv, int *gb_argc)
{
	static const struct {
		const char *name;
		size_t offset;
	} valued[] = {
#define OPT(name, field) { name, offsetof(struct options, field) }
		OPT("--layout", layout), OPT("--ram", ram), OPT("--mix", mix),
		OPT("--profile", profile), OPT("--counters", counters), OPT("--out", out),
		OPT("--cpu", cpu), OPT("--node", node), OPT("--seed", seed),
		OPT("--sim-child", sim_child), OPT("--sim-ops", sim_ops), OPT("--sim-cache", sim_cache),
#undef OPT
	};
	unsigned int i;
	int a;

	memset(o, 0, sizeof(*o));
	*gb_argc = 0;
	gb_argv[(*gb_argc)++] = argv[0];
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a], *v = NULL;

		for (i = 0; i < sizeof(valued) / sizeof(valued[0]) && !v; i++) {
			v = opt_value(arg, valued[i].name);
			if (v)
				*(const char **)((char *)o + valued[i].offset) = v;
		}
		if (v)
			continue;
		if (opt_flag(arg, "--hugepage")) {
			o->hugepage = true;
		} else if (opt_flag(arg, "--list")) {
			o->list = true;
		} else if (opt_flag(arg, "--simulate")) {
			o->simulate = true;
		} else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			usage();
			exit(0);
		} else if (!strncmp(arg, "--benchmark_", 12) || !strncmp(arg, "--v=", 4)) {
			if (!strncmp(arg, "--benchmark_filter=", 19))
				o->filter = arg + 19;
			if (!strncmp(arg, "--benchmark_min_time=", 21))
				o->min_time = true;
			gb_argv[(*gb_argc)++] = argv[a];
		} else {
			die("unknown option '%s' (mdbench --help lists them)", arg);
		}
	}
}

/* ------------------------------------------------------------------ */
/* Values                                                              */

static unsigned long long parse_uint(const char *opt, const char *s, unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || v > max || *s == '-')
		die("%s=%s: not a number from 0 to %llu", opt, s, max);
	return v;
}

/* "256MiB" -> bytes; a multiple of 4 KiB, more than 0. */
static size_t parse_size(const char *s)
{
	static const struct {
		const char *suffix;
		unsigned long long unit;
	} units[] = { { "KiB", KiB }, { "MiB", MiB }, { "GiB", GiB }, { "TiB", TiB }, { "B", 1 }, { "", 1 } };
	unsigned long long v;
	unsigned int i;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || *s == '-' || errno)
		die("--ram: '%s' is not a size (e.g. 256MiB, 4GiB)", s);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix))
			break;
	if (i == sizeof(units) / sizeof(units[0]))
		die("--ram: '%s' has an unknown unit (KiB, MiB, GiB or TiB)", s);
	if (v > MAX_RAM / units[i].unit)
		die("--ram: '%s' is too large (at most 1024TiB)", s);
	v *= units[i].unit;
	if (!v || v % MDB_PAGE_SIZE)
		die("--ram: '%s' is not a positive multiple of 4KiB", s);
	return (size_t)v;
}

static void human(size_t bytes, char *buf, size_t len)
{
	if (bytes >= GiB)
		snprintf(buf, len, "%.1f GiB", (double)bytes / GiB);
	else
		snprintf(buf, len, "%.1f MiB", (double)bytes / MiB);
}

/* MemAvailable, or no limit where /proc/meminfo does not say. */
static size_t mem_available(void)
{
	unsigned long long avail = mdb_mem_available();

	return avail ? (size_t)avail : SIZE_MAX;
}

/* What an instance holds at most: the memmap and one descriptor per pfn, or its buffer. */
static size_t instance_need(const struct mdb_instance *in)
{
	if (!in->ops)
		return in->buf_bytes;
	return in->nr_pfns * (in->ops->page_size + in->ops->folio_size);
}

/* ------------------------------------------------------------------ */
/* The run                                                             */

static void add_layouts(const char *list)
{
	char *copy = strdup(list), *name, *save = NULL;
	unsigned int n = 0, i;

	if (!copy)
		die("out of memory");
	for (name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const struct layout_ops *ops = layout_by_name(name);
		char valid[256] = "";

		if (!ops) {
			for (i = 0; mdb_layouts[i]; i++)
				snprintf(valid + strlen(valid), sizeof(valid) - strlen(valid), "%s%s",
					 i ? ", " : "", mdb_layouts[i]->name);
			die("unknown layout '%s' (valid: %s)", name, valid);
		}
		for (i = 0; i < n && run.layouts[i] != ops; i++)
			;
		if (i < n)
			continue;
		if (n == sizeof(run.layouts) / sizeof(run.layouts[0]) - 1)
			die("--layout: at most %zu layouts", sizeof(run.layouts) / sizeof(run.layouts[0]) - 1);
		run.layouts[n++] = ops;
	}
	free(copy);
	if (!n)
		die("--layout=%s names no layout", list);
	run.layouts[n] = NULL;
}

static void add_ram_sizes(const char *list)
{
	char *copy = strdup(list), *s, *save = NULL;
	unsigned int i;

	if (!copy)
		die("out of memory");
	for (s = strtok_r(copy, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		size_t bytes = parse_size(s);

		for (i = 0; i < run.nr_ram_sizes && run.ram_sizes[i] != bytes; i++)
			;
		if (i < run.nr_ram_sizes)
			continue;
		if (run.nr_ram_sizes == MDB_MAX_RAM_SIZES)
			die("--ram: at most %d sizes", MDB_MAX_RAM_SIZES);
		run.ram_sizes[run.nr_ram_sizes++] = bytes;
	}
	free(copy);
	if (!run.nr_ram_sizes)
		die("--ram=%s names no size", list);
}

static void add_mixes(const char *list)
{
	char *copy = strdup(list), *s, *save = NULL;
	char err[MIX_ERR_LEN];
	unsigned int i;

	if (!copy)
		die("out of memory");
	for (s = strtok_r(copy, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		struct mix *mix = &run.mixes[run.nr_mixes];

		if (run.nr_mixes == MDB_MAX_MIXES)
			die("--mix: at most %d mixes", MDB_MAX_MIXES);
		err[0] = '\0';
		if (mix_resolve(s, mix, err))
			die("--mix=%s: %s", s, err[0] ? err : "cannot load it");
		for (i = 0; i < run.nr_mixes; i++)
			if (!strcmp(run.mixes[i].name, mix->name))
				die("--mix: two mixes named '%s'", mix->name);
		run.nr_mixes++;
	}
	free(copy);
	if (!run.nr_mixes)
		die("--mix=%s names no mix", list);
}

/* Full profile: 256MiB x4 up to 64GiB, stopping where the largest layout would not fit. */
static void full_profile_sizes(void)
{
	size_t avail = mem_available(), ram;
	char a[32], b[32], c[32];
	unsigned int i;

	for (ram = 256 * MiB; ram <= 64 * GiB; ram *= 4) {
		size_t need = 0;

		for (i = 0; run.layouts[i]; i++) {
			size_t n = ram / MDB_PAGE_SIZE * (run.layouts[i]->page_size + run.layouts[i]->folio_size);

			need = n > need ? n : need;
		}
		if (need > avail) {
			mdb_format_size(ram, a, sizeof(a));
			human(need, b, sizeof(b));
			human(avail, c, sizeof(c));
			fprintf(stderr, "mdbench: note: --profile=full stops below %s: it needs %s of "
				"memmap and descriptors, MemAvailable is %s\n", a, b, c);
			break;
		}
		run.ram_sizes[run.nr_ram_sizes++] = ram;
	}
	if (!run.nr_ram_sizes)
		die("--profile=full: not even 256MiB of modelled RAM fits in MemAvailable");
}

static size_t nr_alloc;

static void add_instance(const struct mdb_kernel *k, const struct layout_ops *ops,
			 const struct mix *mix, size_t ram, size_t buf)
{
	struct mdb_instance *in;
	char size[32];
	int n;

	if (run.nr_inst == nr_alloc) {
		nr_alloc = nr_alloc ? 2 * nr_alloc : 256;
		run.inst = realloc(run.inst, nr_alloc * sizeof(*run.inst));
		if (!run.inst)
			die("out of memory");
	}
	in = &run.inst[run.nr_inst++];
	memset(in, 0, sizeof(*in));
	in->kernel = k;
	in->ops = ops;
	in->mix = mix;
	in->ram_bytes = ram;
	in->nr_pfns = ram / MDB_PAGE_SIZE;
	in->buf_bytes = buf;
	if (ops) {
		mdb_format_size(ram, size, sizeof(size));
		n = snprintf(in->name, sizeof(in->name), "%s/%s/mix:%s/ram:%s", k->name, ops->name,
			     mix->name, size);
	} else {
		mdb_format_size(buf, size, sizeof(size));
		n = snprintf(in->name, sizeof(in->name), "%s/bytes:%s", k->name, size);
	}
	if (n < 0 || (size_t)n >= sizeof(in->name))
		die("benchmark name too long: %s...", in->name);
}

/* Shared-memmap kernels first, then those that change it, then those that build their own. */
static unsigned int kernel_pass(const struct mdb_kernel *k)
{
	if (k->flags & MDB_K_NO_MEMMAP)
		return 2;
	return k->flags & MDB_K_MUTATES ? 1 : 0;
}

static void add_layout_group(const struct layout_ops *ops, const struct mix *mix, size_t ram)
{
	const struct mdb_kernel *const *lists[2] = { layout_kernels(ops), mdb_extra_layout_kernels };
	unsigned int pass, l, i;

	for (pass = 0; pass < 3; pass++)
		for (l = 0; l < 2; l++)
			for (i = 0; lists[l] && lists[l][i]; i++)
				if (kernel_pass(lists[l][i]) == pass)
					add_instance(lists[l][i], ops, mix, ram, 0);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static void add_baselines(void)
{
	const struct mdb_kernel *const *lists[2] = { baseline_kernels, mdb_extra_baseline_kernels };
	unsigned int r, l, i, n = 0;
	size_t *sizes = dump.baseline_sizes;

	for (r = 0; r < run.nr_ram_sizes; r++)
		for (l = 0; run.layouts[l]; l++)
			sizes[n++] = run.ram_sizes[r] / MDB_PAGE_SIZE * run.layouts[l]->page_size;
	qsort(sizes, n, sizeof(*sizes), cmp_size);
	for (i = r = 0; i < n; i++)
		if (!r || sizes[r - 1] != sizes[i])
			sizes[r++] = sizes[i];
	dump.nr_baseline_sizes = r;

	for (l = 0; l < 2; l++)
		for (i = 0; lists[l] && lists[l][i]; i++)
			for (r = 0; r < dump.nr_baseline_sizes; r++)
				add_instance(lists[l][i], NULL, NULL, 0, sizes[r]);
}

static void build_instances(void)
{
	unsigned int r, m, l;

	for (r = 0; r < run.nr_ram_sizes; r++)
		for (m = 0; m < run.nr_mixes; m++)
			for (l = 0; run.layouts[l]; l++)
				add_layout_group(run.layouts[l], &run.mixes[m], run.ram_sizes[r]);
	add_baselines();
}

/* Before anything runs: does the largest selected instance fit in memory? */
static void check_memory(void)
{
	const struct mdb_instance *worst = NULL;
	size_t avail = mem_available(), need = 0, i;
	char a[32], b[32], c[32];

	for (i = 0; i < run.nr_inst; i++) {
		if (!mdb_filter_match(run.filter, run.inst[i].name))
			continue;
		dump.nr_selected++;
		if (instance_need(&run.inst[i]) > need) {
			need = instance_need(&run.inst[i]);
			worst = &run.inst[i];
		}
	}
	if (!dump.nr_selected)
		die("no benchmark matches --benchmark_filter=%s", run.filter);
	if (need <= avail)
		return;
	human(need, b, sizeof(b));
	human(avail, c, sizeof(c));
	if (worst->ops) {
		mdb_format_size(worst->ram_bytes, a, sizeof(a));
		die("--ram=%s with %s needs %s of memmap and descriptors (%zu bytes), but MemAvailable "
		    "is %s (%zu bytes)", a, worst->ops->name, b, need, c, avail);
	}
	die("%s needs a %s buffer (%zu bytes), but MemAvailable is %s (%zu bytes)", worst->name, b,
	    need, c, avail);
}

/* ------------------------------------------------------------------ */
/* Filter, as Google Benchmark's --benchmark_filter                    */

int mdb_filter_match(const char *filter, const char *name)
{
	static char *cached;
	static regex_t re;
	static bool ok;
	bool negative, match;

	if (!filter || !*filter || !strcmp(filter, "all"))
		return 1;
	negative = filter[0] == '-';
	if (!cached || strcmp(cached, filter)) {
		if (cached)
			regfree(&re);
		free(cached);
		cached = strdup(filter);
		ok = cached && !regcomp(&re, filter + negative, REG_EXTENDED | REG_NOSUB);
		if (!ok) {
			free(cached);
			cached = NULL;
			return 0;
		}
	}
	match = !regexec(&re, name, 0, NULL, 0);
	return negative ? !match : match;
}

static void check_filter(const char *filter)
{
	char msg[256];
	regex_t re;
	int ret;

	if (!filter || !*filter || !strcmp(filter, "all"))
		return;
	ret = regcomp(&re, filter + (filter[0] == '-'), REG_EXTENDED | REG_NOSUB);
	if (ret) {
		regerror(ret, &re, msg, sizeof(msg));
		die("--benchmark_filter=%s: %s", filter, msg);
	}
	regfree(&re);
}

/* ------------------------------------------------------------------ */
/* Memmaps: one alive, shared by the consecutive benchmarks of a group   */

static struct {
	const struct layout_ops *ops;
	const struct mix *mix;
	unsigned long nr_pfns;
	struct memmap *mm;
} cache;

static void cache_drop(void)
{
	if (cache.mm)
		cache.ops->memmap_destroy(cache.mm);
	memset(&cache, 0, sizeof(cache));
}

static struct memmap *build(const struct mdb_run *r, const struct mdb_instance *in,
			    struct mdb_err *err)
{
	struct memmap *mm = NULL;

	err->msg[0] = '\0';
	if (in->ops->memmap_create(&mm, in->nr_pfns, in->mix, &r->opts, err)) {
		if (!err->msg[0])
			snprintf(err->msg, sizeof(err->msg), "cannot build the memmap");
		return NULL;
	}
	return mm;
}

static struct memmap *cached_memmap(const struct mdb_instance *in, struct mdb_err *err)
{
	if (cache.mm && cache.ops == in->ops && cache.mix == in->mix && cache.nr_pfns == in->nr_pfns)
		return cache.mm;
	cache_drop();
	cache.mm = build(&run, in, err);
	if (cache.mm) {
		cache.ops = in->ops;
		cache.mix = in->mix;
		cache.nr_pfns = in->nr_pfns;
	}
	return cache.mm;
}

static void env_init(struct bench_env *env, const struct mdb_run *r, const struct mdb_instance *in)
{
	memset(env, 0, sizeof(*env));
	env->ops = in->ops;
	env->nr_pfns = in->nr_pfns;
	env->mix = in->mix;
	env->opts = &r->opts;
	env->seed = r->opts.seed;
	env->buf_bytes = in->buf_bytes;
}

static bool needs_memmap(const struct mdb_instance *in)
{
	return in->ops && !(in->kernel->flags & (MDB_K_NO_MEMMAP | MDB_K_BASELINE));
}

/* One Google Benchmark call of an instance; the memmap is built before the clock starts. */
static void bench_instance(struct mdb_state *st, void *arg)
{
	const struct mdb_instance *in = arg;
	struct memmap *fresh = NULL;
	struct bench_env env;
	struct mdb_err err;

	env_init(&env, &run, in);
	if (!needs_memmap(in)) {
		cache_drop();
	} else if (in->kernel->flags & MDB_K_MUTATES) {
		cache_drop();
		env.mm = fresh = build(&run, in, &err);
	} else {
		env.mm = cached_memmap(in, &err);
	}
	if (needs_memmap(in) && !env.mm) {
		mdb_skip_with_error(st, err.msg);
		return;
	}
	in->kernel->run(st, &env);
	if (fresh)
		in->ops->memmap_destroy(fresh);
}

struct fixed_arg {
	const struct mdb_instance *in;
	struct bench_env env;
};

static void bench_fixed(struct mdb_state *st, void *arg)
{
	struct fixed_arg *f = arg;

	f->in->kernel->run(st, &f->env);
}

int mdb_run_fixed(const struct mdb_run *r, const struct mdb_instance *in, uint64_t ops,
		  void (*on_start)(void *arg), void (*on_stop)(void *arg), void *arg,
		  uint64_t *items, struct mdb_err *err)
{
	struct fixed_arg f = { .in = in };
	int ret;

	env_init(&f.env, r, in);
	if (needs_memmap(in)) {
		f.env.mm = build(r, in, err);
		if (!f.env.mm)
			return -1;
	}
	ret = mdb_fixed_run(bench_fixed, &f, ops, on_start, on_stop, arg, items, err->msg,
			    sizeof(err->msg));
	if (f.env.mm)
		in->ops->memmap_destroy(f.env.mm);
	return ret;
}

/* ------------------------------------------------------------------ */
/* --list                                                              */

static void list(void)
{
	unsigned int i;
	size_t n;

	printf("benchmarks (%zu):\n", dump.nr_selected);
	for (n = 0; n < run.nr_inst; n++)
		if (mdb_filter_match(run.filter, run.inst[n].name))
			printf("  %s\n", run.inst[n].name);
	printf("layouts:\n");
	for (i = 0; mdb_layouts[i]; i++) {
		const struct layout_ops *ops = mdb_layouts[i];

		if (ops->folio_size)
			printf("  %-10s sizeof(struct page) %zu, sizeof(struct folio) %zu\n", ops->name,
			       ops->page_size, ops->folio_size);
		else
			printf("  %-10s sizeof(struct page) %zu, struct folio overlays the memmap\n",
			       ops->name, ops->page_size);
	}
	printf("counters:\n");
	for (i = 0; i < counters.nr; i++) {
		const struct mdb_counter *c = &counters.c[i];

		printf("  %-18s %-38s %s%s\n", c->name, c->event,
		       c->available ? "available" : "unavailable: ", c->available ? "" : c->reason);
	}
	if (!counters.nr)
		printf("  (none)\n");
	printf("mixes built in:");
	for (i = 0; mix_builtin_names[i]; i++)
		printf(" %s", mix_builtin_names[i]);
	printf("\n");
}

/* ------------------------------------------------------------------ */

int mdb_make_out_dir(const char *dir, char *err, size_t len)
{
	char path[PATH_MAX], *p, c;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path)) {
		snprintf(err, len, "--out: path too long");
		return -1;
	}
	for (p = path + 1;; p++) {
		if (*p && *p != '/')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(path, 0777) && errno != EEXIST) {
			snprintf(err, len, "--out=%s: cannot create %s: %s", dir, path, strerror(errno));
			return -1;
		}
		*p = c;
		if (!c)
			return 0;
	}
}

static void make_out_dir(const char *dir)
{
	char err[2 * PATH_MAX + 64];

	if (mdb_make_out_dir(dir, err, sizeof(err)))
		die("%s", err);
}

static void write_side_files(const char *dir)
{
	char path[PATH_MAX], err[MDB_TOPO_ERR_LEN];

	snprintf(path, sizeof(path), "%s/mix.json", dir);
	if (mdb_dump_write_mixes(&run, path, err))
		die("%s", err);
	snprintf(path, sizeof(path), "%s/topology.xml", dir);
	if (topo_loaded && mdb_topology_export_xml(&topo, path, err))
		die("%s", err);
}

static void setup_run(const struct options *o)
{
	char err[MDB_COUNTER_ERR_LEN];

	run.profile = o->profile ? o->profile : "quick";
	if (strcmp(run.profile, "quick") && strcmp(run.profile, "full"))
		die("unknown --profile=%s (quick or full)", run.profile);
	if (o->sim_cache && strcmp(o->sim_cache, "fixed") && strcmp(o->sim_cache, "host"))
		die("--sim-cache=%s: fixed or host", o->sim_cache);
	run.out_dir = o->out;
	if (o->out && !*o->out)
		die("--out= needs a directory");
	run.filter = o->filter ? o->filter : "";
	check_filter(run.filter);
	run.cpu = o->cpu ? (int)parse_uint("--cpu", o->cpu, INT_MAX) : -1;
	run.node = o->node ? (int)parse_uint("--node", o->node, INT_MAX) : -1;
	run.opts.hugepage = o->hugepage;
	run.opts.seed = o->seed ? parse_uint("--seed", o->seed, ULLONG_MAX) : 1;

	add_layouts(o->layout ? o->layout : "page64,page32,memdesc8");
	if (o->ram)
		add_ram_sizes(o->ram);
	else if (!strcmp(run.profile, "full"))
		full_profile_sizes();
	else
		add_ram_sizes("256MiB,1GiB,4GiB");
	add_mixes(o->mix ? o->mix : "desktop");
	build_instances();
	check_memory();

	/* Under valgrind perf_event_open is no use; the parent measures nothing either. */
	if (!o->sim_child && !o->simulate && mdb_counters_setup(&counters, o->counters, err))
		die("%s", err);

	if (!o->sim_child || run.cpu >= 0 || run.node >= 0) {
		if (mdb_topology_load(&topo, err))
			die("%s", err);
		topo_loaded = true;
	}
	if (run.cpu >= 0 && mdb_topology_pin(&topo, run.cpu, err))
		die("%s", err);
	if (run.node >= 0) {
		if (mdb_topology_set_node(&topo, run.node, err))
			die("%s", err);
		run.opts.bind = mdb_topology_bind;
		run.opts.bind_arg = &topo;
	}
}

int main(int argc, char **argv)
{
	struct mdb_report rep = { .context_json = mdb_dump_context_json, .arg = &dump };
	static char **gb_argv;		/* static: still reachable at any exit */
	char min_time[] = "--benchmark_min_time=" QUICK_MIN_TIME;
	struct options o;
	int gb_argc, ret;
	size_t i;

	gb_argv = calloc((size_t)argc + 2, sizeof(char *));
	if (!gb_argv)
		die("out of memory");
	parse_args(argc, argv, &o, gb_argv, &gb_argc);
	setup_run(&o);
	dump.run = &run;
	dump.argc = argc;
	dump.argv = argv;
	dump.counters = &counters;
	dump.topo = topo_loaded ? &topo : NULL;

	if (!strcmp(run.profile, "quick") && !o.min_time)
		gb_argv[gb_argc++] = min_time;
	if (mdb_benchmark_init(&gb_argc, gb_argv))
		exit(2);

	if (o.list) {
		list();
		return 0;
	}
	if (o.sim_ops && !o.sim_child)
		die("--sim-ops needs --sim-child");
	if (o.sim_child && !o.sim_ops)
		die("--sim-child needs --sim-ops=N");
	if (o.sim_child)
		return mdb_simulate_child(&run, o.sim_child, parse_uint("--sim-ops", o.sim_ops, ULLONG_MAX));
	if (o.simulate)
		return mdb_simulate(&dump);

	if (run.out_dir) {
		make_out_dir(run.out_dir);
		write_side_files(run.out_dir);
		rep.out_dir = run.out_dir;
	}
	for (i = 0; i < run.nr_inst; i++)
		mdb_register(run.inst[i].name, bench_instance, &run.inst[i]);
	mdb_use_counters(&counters);
	ret = mdb_benchmark_run(&rep);
	cache_drop();
	mdb_counters_close(&counters);
	if (topo_loaded)
		mdb_topology_release(&topo);
	free(run.inst);
	free(gb_argv);
	return ret;
}
