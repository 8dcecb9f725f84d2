// SPDX-License-Identifier: GPL-2.0
/*
 * native.c - the run under Google Benchmark, and one instance for a fixed
 * count of ops (the --simulate child).
 *
 * At most one memmap is alive: the instances of one (layout, mix, RAM)
 * group share it, built at the first of them outside the timed loop; the
 * next group, a kernel that changes its memmap (it gets a fresh one each
 * time) and the baselines all free it first.  --rounds=N registers the
 * instances N times, round after round, so repetitions interleave across
 * layouts (drift hits them all alike) while each round keeps the groups
 * together.
 *
 * A threaded instance's memmap (and its kernel's shared state) is made by
 * the shim's set-up on thread 0 while the other threads wait, never by
 * them: one instance runs at a time, so its state is one static.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdbench.h"
#include "shim.h"

static struct {
	const struct layout_ops *ops;
	const struct mix *mix;
	unsigned long nr_pfns;
	unsigned int folio_desc_bytes;
	enum hvo_mode hvo;
	struct memmap *mm;
} cache;

static const struct mdb_run *the_run;

static void cache_drop(void)
{
	if (cache.mm)
		cache.ops->memmap_destroy(cache.mm);
	memset(&cache, 0, sizeof(cache));
}

/* The instance's memmap, what the kernel gave for it noted for the dump. */
static struct memmap *build(const struct mdb_run *run, const struct mdb_instance *in,
			    struct mdb_err *err)
{
	struct memmap_opts opts = mdb_instance_opts(run, in);
	struct memmap *mm = NULL;

	err->msg[0] = '\0';
	if (in->ops->memmap_create(&mm, in->nr_pfns, in->mix, &opts, err)) {
		if (!err->msg[0])
			mdb_errf(err, "cannot build the memmap");
		return NULL;
	}
	mdb_note_memmap(run, in, mm);
	return mm;
}

static struct memmap *cached_memmap(const struct mdb_instance *in, struct mdb_err *err)
{
	if (cache.mm && cache.ops == in->ops && cache.mix == in->mix && cache.nr_pfns == in->nr_pfns &&
	    cache.folio_desc_bytes == in->folio_desc_bytes && cache.hvo == in->hvo)
		return cache.mm;
	cache_drop();
	cache.mm = build(the_run, in, err);
	if (cache.mm) {
		cache.ops = in->ops;
		cache.mix = in->mix;
		cache.nr_pfns = in->nr_pfns;
		cache.folio_desc_bytes = in->folio_desc_bytes;
		cache.hvo = in->hvo;
	}
	return cache.mm;
}

static void env_init(struct bench_env *env, const struct mdb_run *run, const struct mdb_instance *in)
{
	memset(env, 0, sizeof(*env));
	env->ops = in->ops;
	env->nr_pfns = in->nr_pfns;
	env->mix = in->mix;
	env->opts = &run->opts;
	env->seed = run->opts.seed;
	env->buf_bytes = in->buf_bytes;
	env->threads = 1;
}

static bool needs_memmap(const struct mdb_instance *in)
{
	return in->ops && !(in->kernel->flags & MDB_K_NO_MEMMAP);
}

/*
 * The instance's memmap into env: the group's (cached) unless the kernel
 * changes it or cached is false, then a fresh one in *fresh.  0, or -1 with
 * err.
 */
static int instance_memmap(const struct mdb_instance *in, struct bench_env *env, bool cached,
			   struct memmap **fresh, struct mdb_err *err)
{
	*fresh = NULL;
	if (!needs_memmap(in)) {
		cache_drop();
		return 0;
	}
	if ((in->kernel->flags & MDB_K_MUTATES) || !cached) {
		cache_drop();
		env->mm = *fresh = build(the_run, in, err);
	} else {
		env->mm = cached_memmap(in, err);
	}
	return env->mm ? 0 : -1;
}

/* One Google Benchmark call of an instance; the memmap is built before the clock starts. */
static void bench_instance(struct mdb_state *st, void *arg)
{
	const struct mdb_instance *in = arg;
	struct memmap *fresh;
	struct bench_env env;
	struct mdb_err err;

	env_init(&env, the_run, in);
	if (instance_memmap(in, &env, true, &fresh, &err)) {
		mdb_skip_with_error(st, err.msg);
		return;
	}
	in->kernel->run(st, &env);
	if (fresh)
		in->ops->memmap_destroy(fresh);
}

/* The threaded instance running now: its env (memmap, shared state), made by the set-up. */
static struct {
	const struct mdb_instance *in;
	struct bench_env env;
	struct memmap *fresh;
	bool cached;			/* may share the group's memmap (not in a fixed run) */
} threaded;

static int threaded_setup(void *arg, struct mdb_err *err)
{
	const struct mdb_instance *in = arg;

	threaded.in = in;
	env_init(&threaded.env, the_run, in);
	threaded.env.threads = in->threads;
	if (instance_memmap(in, &threaded.env, threaded.cached, &threaded.fresh, err))
		return -1;
	if (in->kernel->setup && in->kernel->setup(&threaded.env, err)) {
		if (threaded.fresh)
			in->ops->memmap_destroy(threaded.fresh);
		threaded.fresh = NULL;
		return -1;
	}
	return 0;
}

static void threaded_teardown(void *arg)
{
	const struct mdb_instance *in = arg;

	if (in->kernel->teardown)
		in->kernel->teardown(&threaded.env);
	if (threaded.fresh)
		in->ops->memmap_destroy(threaded.fresh);
	threaded.fresh = NULL;
	threaded.in = NULL;
}

static void bench_threaded(struct mdb_state *st, void *arg)
{
	const struct mdb_instance *in = arg;

	in->kernel->run(st, &threaded.env);
}

/* How an instance's threads run: pinned as the topology orders the CPUs, if it was loaded. */
static struct mdb_thread_run thread_run(const struct mdb_run *run, const struct mdb_instance *in)
{
	return (struct mdb_thread_run){
		.nr = in->threads, .cpus = run->topo_loaded ? run->cpus : NULL, .topo = &run->topo,
		.setup = threaded_setup, .teardown = threaded_teardown,
	};
}

int mdb_run_native(struct mdb_run *run)
{
	char path[4096], missing[MDB_COUNTERS_MISSING_LEN], name[MDB_NAME_LEN];
	struct mdb_report rep = {
		.context = mdb_context_cb,
		.arg = run,
		.nr_expected = run->nr_selected * run->rounds,
	};
	struct mdb_err err;
	unsigned int r;
	size_t i;
	int ret;

	the_run = run;
	threaded.cached = true;
	if (run->out_dir) {
		snprintf(path, sizeof(path), "%s/mdbench.json", run->out_dir);
		rep.path = path;
		/* From here on the files in DIR are this run's. */
		if (mdb_report_start(&rep, &err) || mdb_write_side_files(run, &err)) {
			mdb_outdir_abandon();	/* nothing left to block the next run */
			mdb_die(&err);
		}
	}
	if (mdb_counters_missing(&run->counters, missing, sizeof(missing)))
		fprintf(stderr, "mdbench: %s\n", missing);
	mdb_add_gb_context(run);
	for (r = 0; r < run->rounds; r++)
		for (i = 0; i < run->nr_inst; i++) {
			if (!run->inst[i].selected)	/* --benchmark_filter: the plan's */
				continue;
			const struct mdb_instance *in = &run->inst[i];

			if (in->real) {	/* timed by the module itself */
				mdb_register_manual_time(in->name, mdb_real_bench, (void *)in);
			} else if (in->threads) {
				struct mdb_thread_run t = thread_run(run, in);

				mdb_instance_gb_name(in, name, sizeof(name));
				mdb_register_threads(name, bench_threaded, (void *)in, &t);
			} else {
				mdb_register(in->name, bench_instance, (void *)in);
			}
		}
	mdb_use_counters(&run->counters);
	ret = mdb_benchmark_run(&rep);
	cache_drop();
	return ret;
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

int mdb_run_fixed(const struct mdb_run *run, const struct mdb_instance *in, uint64_t ops,
		  void (*on_start)(void *arg), void (*on_stop)(void *arg), void *arg,
		  uint64_t *items, struct mdb_err *err)
{
	struct fixed_arg f = { .in = in };
	int ret;

	if (in->real)
		return mdb_fixed_run(mdb_real_bench, (void *)in, ops, on_start, on_stop, arg, items, err);
	if (in->threads) {
		struct mdb_thread_run t = thread_run(run, in);

		the_run = run;
		threaded.cached = false;	/* a fixed run builds its own memmap */
		return mdb_fixed_run_threads(bench_threaded, (void *)in, ops, &t, on_start, on_stop,
					     arg, items, err);
	}
	env_init(&f.env, run, in);
	if (needs_memmap(in)) {
		f.env.mm = build(run, in, err);
		if (!f.env.mm)
			return -1;
	}
	ret = mdb_fixed_run(bench_fixed, &f, ops, on_start, on_stop, arg, items, err);
	if (f.env.mm)
		in->ops->memmap_destroy(f.env.mm);
	return ret;
}

/*
 * A smoke test of every kernel, Asan builds included: no timing, exactly
 * ops operations (rounded up to the kernel's batch) each.  1 if any failed.
 */
int mdb_run_fixed_all(const struct mdb_run *run, uint64_t ops)
{
	unsigned long failed = 0;
	struct mdb_err err;
	uint64_t items;
	size_t i;

	if (!ops)
		mdb_dief("--fixed-ops=0: at least one op");
	for (i = 0; i < run->nr_inst; i++) {
		const struct mdb_instance *in = &run->inst[i];

		if (!in->selected)
			continue;
		if (mdb_run_fixed(run, in, ops, NULL, NULL, NULL, &items, &err)) {
			printf("%s: error: %s\n", in->name, err.msg);
			failed++;
		} else {
			printf("%s: %llu items\n", in->name, (unsigned long long)items);
		}
	}
	return fflush(stdout) || failed ? 1 : 0;
}
