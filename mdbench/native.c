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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "mdbench.h"
#include "model.h"
#include "rounds.h"
#include "shim.h"

/* The group's memmap, and the conditions it was built under. */
static struct {
	struct mdb_cond cond;
	struct memmap *mm;
} cache;

static const struct mdb_run *the_run;

static void cache_drop(void)
{
	if (cache.mm)
		cache.cond.ops->memmap_destroy(cache.mm);
	memset(&cache, 0, sizeof(cache));
}

/* The instance's memmap, what the kernel gave for it noted for the dump. */
static struct memmap *build(const struct mdb_run *run, const struct mdb_instance *in,
			    struct mdb_err *err)
{
	struct memmap *mm = NULL;

	err->msg[0] = '\0';
	if (in->cond.ops->memmap_create(&mm, in->cond.nr_pfns, in->cond.mix, &in->cond.opts, err)) {
		if (!err->msg[0])
			mdb_errf(err, "cannot build the memmap");
		return NULL;
	}
	mdb_note_memmap(run, in, mm);
	return mm;
}

static struct memmap *cached_memmap(const struct mdb_instance *in, struct mdb_err *err)
{
	if (cache.mm && mdb_cond_equal(&cache.cond, &in->cond))
		return cache.mm;
	cache_drop();
	cache.mm = build(the_run, in, err);
	if (cache.mm)
		cache.cond = in->cond;
	return cache.mm;
}

static void env_init(struct bench_env *env, const struct mdb_run *run, const struct mdb_instance *in)
{
	memset(env, 0, sizeof(*env));
	env->ops = in->cond.ops;
	env->nr_pfns = in->cond.nr_pfns;
	env->mix = in->cond.mix;
	env->opts = &run->cond.opts;
	env->seed = run->cond.opts.seed;
	env->buf_bytes = in->buf_bytes;
	env->threads = 1;
}

static bool needs_memmap(const struct mdb_instance *in)
{
	return in->cond.ops && !(in->kernel->flags & MDB_K_NO_MEMMAP);
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
		in->cond.ops->memmap_destroy(fresh);
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
			in->cond.ops->memmap_destroy(threaded.fresh);
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
		in->cond.ops->memmap_destroy(threaded.fresh);
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

/* The instance Google Benchmark's run_name names ("/manual_time" appended for the live kernel). */
static const struct mdb_instance *instance_of(const char *run_name)
{
	static size_t last;
	size_t i, n = the_run->nr_inst, len;

	if (!run_name)
		return NULL;
	len = strlen(run_name);
	if (len > 12 && !strcmp(run_name + len - 12, "/manual_time"))
		len -= 12;
	for (i = 0; i < n; i++) {	/* from the last one found: they come in order */
		const struct mdb_instance *in = &the_run->inst[(last + i) % n];

		if (!strncmp(in->name, run_name, len) && !in->name[len]) {
			last = (last + i) % n;
			return in;
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* --rounds=auto                                                       */

/* Each selected instance's times (ns per op) round by round, whether one failed, whether its row is decided. */
static struct samples {
	double *t;
	unsigned int n;
	size_t cap;			/* room in t (mdb_grow()) */
	bool failed;
	bool decided;			/* its row against the group's reference, at the last pass */
} *samples;

static double auto_est;			/* estimates of everything registered so far */
static uint64_t auto_rng;		/* the layouts' order in a round (seeded by --seed) */

/*
 * The short runs one round of in is made of (rounds.h): one where each run
 * builds a memmap of its own (a kernel that changes it: K builds would
 * cost K times the set-up) or where the values are exact (a report).
 */
static unsigned int round_reps(const struct mdb_run *run, const struct mdb_instance *in)
{
	if (in->kernel->class == MDB_REPORT || (in->kernel->flags & MDB_K_MUTATES) || !run->min_time)
		return 1;
	return run->round_reps;
}

static void register_instance(const struct mdb_run *run, const struct mdb_instance *in)
{
	char name[MDB_NAME_LEN];
	unsigned int reps = round_reps(run, in);

	mdb_set_round(reps, run->min_time / reps);

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

/* splitmix64: the next of a seeded sequence, for the rounds' order. */
static uint64_t next_rand(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The instances of one memmap in the plan: one layout (a twin, the live kernel apart). */
static bool same_block(const struct mdb_instance *a, const struct mdb_instance *b)
{
	return a->cond.ops == b->cond.ops && a->cond.twin == b->cond.twin && a->real == b->real;
}

/*
 * Registers one round of the instances idx[0, nr) (plan order), the
 * layouts in a random order: a section of the plan (one mix, RAM, ...,
 * until a layout comes again) keeps each layout's instances together, as
 * they share its memmap, and shuffles the layouts (Fisher-Yates, seeded).
 */
static void register_round(const struct mdb_run *run, const size_t *idx, size_t nr)
{
	size_t start[64], nb, b, j, i = 0;

	while (i < nr) {
		for (nb = 0; i < nr && nb < 64; nb++) {	/* the section's blocks */
			for (b = 0; b < nb && !same_block(&run->inst[idx[start[b]]], &run->inst[idx[i]]); b++)
				;
			if (b < nb)
				break;
			start[nb] = i;
			while (i < nr && same_block(&run->inst[idx[start[nb]]], &run->inst[idx[i]]))
				i++;
		}
		{
			size_t order[64], end;

			for (b = 0; b < nb; b++)
				order[b] = b;
			for (b = nb; b > 1; b--) {
				size_t k = next_rand(&auto_rng) % b, t = order[b - 1];

				order[b - 1] = order[k];
				order[k] = t;
			}
			for (b = 0; b < nb; b++) {
				end = order[b] + 1 < nb ? start[order[b] + 1] : i;
				for (j = start[order[b]]; j < end; j++)
					register_instance(run, &run->inst[idx[j]]);
			}
		}
	}
}

/* The name without its layout (and a twin without its twin part): the key of its group. */
static void group_key(const struct mdb_instance *in, char *key, size_t len)
{
	const char *layout = in->real ? MDB_REAL_LAYOUT : in->cond.ops ? in->cond.ops->name : NULL;
	size_t k = strlen(in->kernel->name);
	char *twin;

	if (!layout) {
		snprintf(key, len, "%s", in->name);
		return;
	}
	snprintf(key, len, "%s%s", in->kernel->name, in->name + k + 1 + strlen(layout));
	twin = in->cond.twin ? strstr(key, "/" MDB_TWIN_NAME) : NULL;
	if (twin)
		memmove(twin, twin + strlen("/" MDB_TWIN_NAME),
			strlen(twin + strlen("/" MDB_TWIN_NAME)) + 1);
}

/* The groups of the selected instances, in plan order of their first. */
static void auto_start(struct mdb_run *run)
{
	size_t i, g, *last;
	char key[MDB_NAME_LEN];

	run->groups = calloc(run->nr_inst, sizeof(*run->groups));
	samples = calloc(run->nr_inst, sizeof(*samples));
	last = calloc(run->nr_inst, sizeof(*last));
	if (!run->groups || !samples || !last)
		mdb_dief("out of memory");
	auto_rng = run->cond.opts.seed;
	for (i = 0; i < run->nr_inst; i++) {
		struct mdb_instance *in = &run->inst[i];

		if (!in->selected)
			continue;
		group_key(in, key, sizeof(key));
		for (g = 0; g < run->nr_groups && strcmp(run->groups[g].key, key); g++)
			;
		if (g == run->nr_groups) {
			snprintf(run->groups[g].key, sizeof(run->groups[g].key), "%s", key);
			run->groups[g].first = i;
			run->nr_groups++;
		} else {
			run->inst[last[g]].group_next = i;
		}
		in->group = g;
		last[g] = i;
	}
	free(last);
}

static void add_sample(const struct mdb_run *run, const struct mdb_instance *in, json_t *entry)
{
	struct samples *s = &samples[in - run->inst];
	json_t *t = json_object_get(entry, "real_time");
	double *grown;

	if (json_is_true(json_object_get(entry, "error_occurred")) ||
	    (json_is_string(json_object_get(entry, "skipped")) &&
	     strcmp(json_string_value(json_object_get(entry, "skipped")), "false")) ||
	    !json_is_number(t)) {
		s->failed = true;
		return;
	}
	grown = mdb_grow(s->t, &s->cap, s->n + 1, sizeof(*s->t));
	if (!grown)
		mdb_dief("out of memory");
	s->t = grown;
	s->t[s->n++] = json_number_value(t);
}

/* The group's reference: the reference layout's instance, or its first. */
static size_t group_ref(const struct mdb_run *run, const struct mdb_group *g)
{
	size_t i;

	for (i = g->first; ; i = run->inst[i].group_next) {
		if (run->inst[i].cond.ops == layout_reference() && !run->inst[i].real &&
		    !run->inst[i].cond.twin)
			return i;
		if (!run->inst[i].group_next)
			return g->first;
	}
}

/* The logs of s's times into out; false if one is not positive. */
static bool log_times(const struct samples *s, double *out)
{
	unsigned int r;

	for (r = 0; r < s->n; r++) {
		if (!(s->t[r] > 0))
			return false;
		out[r] = log(s->t[r]);
	}
	return true;
}

/*
 * Whether the row of x against the reference ref is decided, as the
 * reports' verdict() decides it: the MDB_AUTO_CONFIDENCE interval of the
 * Hodges-Lehmann ratio (rounds.h) excludes 1 (faster, slower) or lies
 * inside [1/(1 + margin), 1 + margin] (same within the margin).
 */
static bool row_decided(const struct samples *ref, const struct samples *x)
{
	double *lr = malloc((ref->n + x->n + 1) * sizeof(*lr)), *lx = lr + ref->n, est, lo, hi;
	bool ok;

	if (!lr)
		mdb_dief("out of memory");
	ok = log_times(ref, lr) && log_times(x, lx) &&
	     mdb_hl_interval(lr, ref->n, lx, x->n, 1 - MDB_AUTO_CONFIDENCE, &est, &lo, &hi) &&
	     (lo > 0 || hi < 0 || (lo >= -log1p(MDB_AUTO_MARGIN) && hi <= log1p(MDB_AUTO_MARGIN)));
	free(lr);
	return ok;
}

static bool group_at_headline(const struct mdb_run *run, const struct mdb_group *g)
{
	return run->machine.headline_ram && run->inst[g->first].cond.ram_bytes == run->machine.headline_ram;
}

/* Each row's state into samples[].decided and the group; why it stops, or NULL. */
static const char *group_verdict(const struct mdb_run *run, struct mdb_group *g)
{
	size_t ref = group_ref(run, g), i;
	bool alone = !run->inst[g->first].group_next;

	g->undecided = 0;
	g->rounds = samples[ref].n;
	for (i = g->first; ; i = run->inst[i].group_next) {
		if (samples[i].failed)
			return "a benchmark of the group failed";
		if (run->inst[i].kernel->class == MDB_REPORT)
			return "not timed (a report)";	/* no rows: its values are exact */
		if (i != ref) {
			samples[i].decided = row_decided(&samples[ref], &samples[i]);
			g->undecided += !samples[i].decided;
		}
		if (!run->inst[i].group_next)
			break;
	}
	if (alone && g->rounds >= MDB_AUTO_MIN_ROUNDS)
		return "one benchmark: no row to decide";
	if (!alone && !g->undecided)
		return "every row decided";
	return g->rounds >= MDB_AUTO_MAX_ROUNDS ? "at the most rounds" : NULL;
}

/* Whether instance i runs in the group's next round: the reference and the undecided rows. */
static bool runs_next(const struct mdb_run *run, size_t i)
{
	const struct mdb_group *g = &run->groups[run->inst[i].group];

	return !g->stopped && (i == group_ref(run, g) || !samples[i].decided);
}

static double group_est(const struct mdb_run *run, const struct mdb_group *g)
{
	double est = 0;
	size_t i;

	for (i = g->first; ; i = run->inst[i].group_next) {
		if (runs_next(run, i))
			est += run->inst[i].est_seconds;
		if (!run->inst[i].group_next)
			return est;
	}
}

/*
 * After a pass: which groups stay open, and one more round of their
 * reference and undecided rows, as many as the time budget allows at the
 * pace the estimates have run at, those at the headline size first (their
 * first MDB_AUTO_MIN_ROUNDS rounds ran before any other group's second).
 */
static unsigned long auto_next_pass(void *arg, double elapsed, double *est)
{
	struct mdb_run *run = arg;
	double pace = auto_est > 0 ? elapsed / auto_est : 1, planned = 0;
	unsigned long n = 0;
	size_t g, i, *idx;
	int pass;

	for (pass = 0; pass < 2; pass++)	/* the headline size's groups, then the others */
		for (g = 0; g < run->nr_groups; g++) {
			struct mdb_group *grp = &run->groups[g];

			if (grp->stopped || group_at_headline(run, grp) != !pass)
				continue;
			grp->stopped = group_verdict(run, grp);
			if (!grp->stopped && run->time_budget > 0 &&
			    elapsed + (planned + group_est(run, grp)) * pace > run->time_budget)
				grp->stopped = "time budget";
			if (!grp->stopped)
				planned += group_est(run, grp);
		}
	idx = malloc((run->nr_inst + 1) * sizeof(*idx));
	if (!idx)
		mdb_dief("out of memory");
	for (i = 0; i < run->nr_inst; i++)
		if (run->inst[i].selected && runs_next(run, i))
			idx[n++] = i;
	register_round(run, idx, n);
	free(idx);
	*est = planned;
	auto_est += planned;
	return n;
}

/*
 * Misses an op of in cannot avoid: the kernel's floor (a -cold op's flushed
 * lines) or the analytic model's lines per op.  Where the model does not
 * cover the run's descriptors (scattered by a randomised or aged cache), it
 * is asked for them in pfn order, the fewest lines they can take: a floor.
 */
static double expected_misses(const struct mdb_instance *in)
{
	struct memmap_opts opts = in->cond.opts;
	const struct mdb_cond *c = &in->cond;
	struct model_lines lines;
	double n = in->kernel->min_misses;
	bool known;

	if (!c->ops || !in->kernel->model)
		return n;
	known = model_predict(in->kernel->model, c->ops, c->mix, c->nr_pfns, &opts, &lines);
	if (!known) {
		opts.age = DESC_FRESH_ORDERED;
		known = model_predict(in->kernel->model, c->ops, c->mix, c->nr_pfns, &opts, &lines);
	}
	if (known && model_lines_total(&lines) > n)
		n = model_lines_total(&lines);
	return n;
}

/*
 * The hardware counters of the run just reported (set->last): where the PMU
 * multiplexed, each count's scaling (raw count, time enabled and running);
 * a counter whose group never ran, and an instruction count of 0 or a miss
 * count of 0 on a kernel that must miss, are not values but reasons
 * (counters.h: mdb_counter_untrusted_zero()).
 */
static void annotate_counters(const struct mdb_run *run, const struct mdb_instance *in,
			      json_t *entry)
{
	const struct mdb_counters *set = &run->counters;
	const struct mdb_counter_values *v = &set->last;
	double expected = -1;
	json_t *scaling = json_object(), *untrusted = json_object();
	char why[MDB_COUNTER_REASON_LEN];
	unsigned int i;

	for (i = 0; i < set->nr; i++) {
		const struct mdb_counter *c = &set->c[i];
		json_t *val = json_object_get(entry, c->name);

		if (!val && c->available && !v->valid[i] && v->enabled[i] &&
		    !json_is_true(json_object_get(entry, "error_occurred"))) {
			snprintf(why, sizeof(why), "its group never ran on the PMU (time_running 0 "
				 "of %llu ns enabled): unavailable", (unsigned long long)v->enabled[i]);
			json_object_set_new(untrusted, c->name, json_string(why));
		}
		if (!val || !v->valid[i])
			continue;
		if (v->running[i] != v->enabled[i])
			json_object_set_new(scaling, c->name, json_pack(
				"{s:I, s:f, s:I, s:I}", "raw", (json_int_t)v->raw[i],
				"scaled", v->value[i], "time_enabled_ns", (json_int_t)v->enabled[i],
				"time_running_ns", (json_int_t)v->running[i]));
		if (json_number_value(val) == 0 && expected < 0)
			expected = expected_misses(in);
		if (mdb_counter_untrusted_zero(c, json_number_value(val), expected, why,
					       sizeof(why))) {
			json_object_set_new(untrusted, c->name, json_string(why));
			json_object_del(entry, c->name);
		}
	}
	if (json_object_size(scaling))
		json_object_set(entry, "counter_scaling", scaling);
	if (json_object_size(untrusted))
		json_object_set(entry, "counters_not_trusted", untrusted);
	json_decref(scaling);
	json_decref(untrusted);
}

static void annotate(const char *run_name, json_t *entry, void *arg)
{
	const struct mdb_instance *in = instance_of(run_name);
	const struct mdb_run *run = arg;

	if (!in)
		return;
	mdb_instance_ws_json(arg, in, entry);
	annotate_counters(run, in, entry);
	if (samples)
		add_sample(arg, in, entry);
}

static double est_seconds(const char *run_name, void *arg)
{
	const struct mdb_instance *in = instance_of(run_name);

	(void)arg;
	return in ? in->est_seconds : 0;
}

/*
 * The rounds an instance runs at first: a report kernel's values (footprint
 * bytes, counts) do not vary between rounds, so it runs in the first one
 * only; at the headline size each of its builds took seconds a round.
 * Under --rounds=auto, the headline size's groups their minimum and the
 * others one round, the rest as auto_next_pass() decides.
 */
static unsigned int instance_rounds(const struct mdb_run *run, const struct mdb_instance *in)
{
	if (!in->selected)
		return 0;
	if (in->kernel->class == MDB_REPORT)
		return 1;
	if (run->rounds_auto && !(run->machine.headline_ram &&
				  in->cond.ram_bytes == run->machine.headline_ram))
		return 1;
	return run->rounds;
}

int mdb_run_native(struct mdb_run *run)
{
	char path[4096], missing[MDB_COUNTERS_MISSING_LEN];
	struct mdb_report rep = {
		.context = mdb_context_cb,
		.arg = run,
		.annotate = annotate,
		.est_seconds = est_seconds,
		.next_pass = run->rounds_auto ? auto_next_pass : NULL,
		.round_value = run->round_reps > 1 ? mdb_round_value : NULL,
	};
	struct mdb_err err;
	unsigned int r;
	size_t i, *idx;
	int ret;

	the_run = run;
	threaded.cached = true;
	for (i = 0; i < run->nr_inst; i++) {
		rep.nr_expected += instance_rounds(run, &run->inst[i]);
		rep.est_total += run->inst[i].est_seconds * instance_rounds(run, &run->inst[i]);
	}
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
	if (run->rounds_auto)
		auto_start(run);
	idx = malloc((run->nr_inst + 1) * sizeof(*idx));
	if (!idx)
		mdb_dief("out of memory");
	for (r = 0; r < run->rounds; r++) {
		size_t n = 0;

		for (i = 0; i < run->nr_inst; i++)
			if (r < instance_rounds(run, &run->inst[i]))	/* --benchmark_filter: the plan's */
				idx[n++] = i;
		if (run->rounds_auto) {
			register_round(run, idx, n);
		} else {
			for (i = 0; i < n; i++)
				register_instance(run, &run->inst[idx[i]]);
		}
	}
	free(idx);
	auto_est = rep.est_total;
	mdb_use_counters(&run->counters);
	ret = mdb_benchmark_run(&rep);
	cache_drop();
	for (i = 0; samples && i < run->nr_inst; i++)
		free(samples[i].t);
	free(samples);
	samples = NULL;
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
		in->cond.ops->memmap_destroy(f.env.mm);
	return ret;
}

/*
 * A smoke test of every kernel, Asan builds included: no timing, exactly
 * ops operations (rounded up to the kernel's batch) each.  1 if any failed.
 */
static void fixed_counters_start(void *arg)
{
	mdb_counters_start(arg);
}

static void fixed_counters_stop(void *arg)
{
	struct mdb_counters *set = arg;
	struct mdb_counter_values v;

	mdb_counters_stop(set, &v);
}

/*
 * The counters' totals over a fixed run, one line after its items:
 *	<name>: counters <counter>=<raw>[/<running>of<enabled>ns] ...
 * raw counts, not scaled, with the times where the PMU multiplexed; a
 * counter its group never reached is "unscheduled".  Nothing when none
 * counts.
 */
static void print_fixed_counters(const struct mdb_instance *in, const struct mdb_counters *set)
{
	const struct mdb_counter_values *v = &set->last;
	unsigned int i;

	if (!mdb_counters_nr_available(set))
		return;
	printf("%s: counters", in->name);
	for (i = 0; i < set->nr; i++) {
		if (!set->c[i].available)
			continue;
		if (!v->valid[i])
			printf(" %s=unscheduled", set->c[i].name);
		else if (v->running[i] != v->enabled[i])
			printf(" %s=%llu/%lluof%lluns", set->c[i].name, (unsigned long long)v->raw[i],
			       (unsigned long long)v->running[i], (unsigned long long)v->enabled[i]);
		else
			printf(" %s=%llu", set->c[i].name, (unsigned long long)v->raw[i]);
	}
	printf("\n");
}

int mdb_run_fixed_all(struct mdb_run *run, uint64_t ops)
{
	bool count = mdb_counters_nr_available(&run->counters) > 0;
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
		/* The live kernel's counters are the module's (realkernel.c). */
		if (mdb_run_fixed(run, in, ops, count && !in->real ? fixed_counters_start : NULL,
				  count && !in->real ? fixed_counters_stop : NULL, &run->counters,
				  &items, &err)) {
			printf("%s: error: %s\n", in->name, err.msg);
			failed++;
		} else {
			printf("%s: %llu items\n", in->name, (unsigned long long)items);
			if (count && !in->real)
				print_fixed_counters(in, &run->counters);
		}
	}
	return fflush(stdout) || failed ? 1 : 0;
}
