// SPDX-License-Identifier: GPL-2.0
/*
 * native.c - the run under Google Benchmark, and one instance for a fixed
 * count of ops (the --simulate child).
 *
 * A round runs group by group (a group: one kernel, mix, RAM size, ...
 * across the layouts and the reference's twin), each group one Google
 * Benchmark pass with its repetitions randomly interleaved, so that the
 * short runs of its layouts alternate within a fraction of a second and a
 * phase of the machine falls on them alike: the reports compare the
 * layouts of one round with each other (paired by the entries' "round").
 * The groups of a section (one mix and RAM size) run one after another on
 * the section's memmaps, kept from group to group (as many as fit the
 * memory limit) and all dropped when the round ends, so that each round
 * measures builds of its own; a kernel that changes its memmap gets a
 * fresh one each time, and the baselines run with none kept.
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
#include "meminfo.h"
#include "model.h"
#include "rounds.h"
#include "shim.h"

/*
 * The memmaps kept, with the conditions each was built under: a section's
 * layouts and twin, least recently used given up first where the next
 * would pass the memory limit (half of MemAvailable) or MEMMAPS_KEPT.
 */
#define MEMMAPS_KEPT	16

static struct kept_memmap {
	struct mdb_cond cond;
	struct memmap *mm;
	unsigned long long bytes;	/* what memory_need() said it takes */
	uint64_t used;			/* when last handed out (kept_clock) */
} kept[MEMMAPS_KEPT];
static uint64_t kept_clock;
static unsigned long long kept_limit;	/* bytes the kept memmaps and the next may take */

static const struct mdb_run *the_run;

static void kept_drop(struct kept_memmap *k)
{
	if (k->mm)
		k->cond.ops->memmap_destroy(k->mm);
	memset(k, 0, sizeof(*k));
}

static void memmaps_drop(void)
{
	unsigned int i;

	for (i = 0; i < MEMMAPS_KEPT; i++)
		kept_drop(&kept[i]);
}

static unsigned long long memmap_bytes(const struct mdb_instance *in)
{
	return in->cond.ops->memory_need(in->cond.nr_pfns, in->cond.mix, &in->cond.opts);
}

/*
 * A free slot for a build of in's memmap (bytes), the least recently used kept
 * memmaps given up until it fits the limit beside those left (alone, it is
 * built whatever the limit: check_memory() let the run start with it).  An
 * HVO memmap is kept alone: it maps page by page and takes what
 * vm.max_map_count leaves at its build (hvo_map_init()), so a second beside
 * it would leave the process no mapping to allocate with.
 */
static struct kept_memmap *memmap_room(const struct mdb_instance *in, unsigned long long bytes)
{
	for (;;) {
		struct kept_memmap *k, *lru = NULL, *slot = NULL;
		unsigned long long held = 0;
		bool alone = in->cond.opts.hvo == HVO_ON;

		for (k = kept; k < kept + MEMMAPS_KEPT; k++) {
			if (!k->mm) {
				slot = slot ? slot : k;
				continue;
			}
			if (k->cond.opts.hvo == HVO_ON)
				alone = true;
			held += k->bytes;
			if (!lru || k->used < lru->used)
				lru = k;
		}
		if (!lru || (slot && !alone && held + bytes <= kept_limit))
			return slot;
		kept_drop(lru);
	}
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
	unsigned long long bytes;
	struct kept_memmap *k;

	kept_clock++;
	for (k = kept; k < kept + MEMMAPS_KEPT; k++) {
		if (k->mm && mdb_cond_equal(&k->cond, &in->cond)) {
			k->used = kept_clock;
			return k->mm;
		}
	}
	bytes = memmap_bytes(in);
	k = memmap_room(in, bytes);
	k->mm = build(the_run, in, err);
	if (!k->mm)
		return NULL;
	k->cond = in->cond;
	k->bytes = bytes;
	k->used = kept_clock;
	return k->mm;
}

/*
 * Whether in is what a known-difference build slows (CMake -DMDB_KNOWN_EXTRA,
 * bench/kernel.h): the reference's placebo twin for MDB_KNOWN_TWIN, else the
 * layout named, never its twin.
 */
static bool known_instance(const struct mdb_instance *in)
{
	if (!MDB_KNOWN_EXTRA_PCT || !in->cond.ops)
		return false;
	if (!strcmp(MDB_KNOWN_EXTRA_LAYOUT, MDB_KNOWN_TWIN))
		return in->cond.twin;
	return !in->cond.twin && !strcmp(in->cond.ops->name, MDB_KNOWN_EXTRA_LAYOUT);
}

static void env_init(struct bench_env *env, const struct mdb_run *run, const struct mdb_instance *in)
{
	bench_known_on = known_instance(in);
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
		memmaps_drop();
		return 0;
	}
	if ((in->kernel->flags & MDB_K_MUTATES) || !cached) {
		memmap_room(in, memmap_bytes(in));
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
	for (i = 0; i < n; i++) {	/* from the last one found: mostly near it */
		const struct mdb_instance *in = &the_run->inst[(last + i) % n];

		if (!strncmp(in->name, run_name, len) && !in->name[len]) {
			last = (last + i) % n;
			return in;
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Rounds, group by group; --rounds=auto                               */

/*
 * Each selected instance's times (ns per op) and the rounds they are of,
 * whether one failed, whether its row is decided (--rounds=auto).
 */
static struct samples {
	struct sample {
		double t;
		unsigned int round;
	} *v;
	unsigned int n;
	size_t cap;			/* room in v (mdb_grow()) */
	bool failed;
	bool decided;			/* its row against the group's reference, at the last pass */
} *samples;

static double auto_est;			/* estimates of everything registered so far */

/* The round running: its instances, group after group (a batch each), and where it is. */
static struct {
	size_t *idx, nr, pos;
	unsigned int round;		/* 1-based: the entries' "round" */
} pass;

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

/* The groups of the selected instances, numbered in plan order of their first. */
static void groups_start(struct mdb_run *run)
{
	size_t i, g, *last;
	char key[MDB_NAME_LEN];

	run->groups = calloc(run->nr_inst, sizeof(*run->groups));
	samples = calloc(run->nr_inst, sizeof(*samples));
	last = calloc(run->nr_inst, sizeof(*last));
	pass.idx = malloc((run->nr_inst + 1) * sizeof(*pass.idx));
	if (!run->groups || !samples || !last || !pass.idx)
		mdb_dief("out of memory");
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
	struct sample *grown;

	if (json_is_true(json_object_get(entry, "error_occurred")) ||
	    (json_is_string(json_object_get(entry, "skipped")) &&
	     strcmp(json_string_value(json_object_get(entry, "skipped")), "false")) ||
	    !json_is_number(t)) {
		s->failed = true;
		return;
	}
	grown = mdb_grow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	if (!grown)
		mdb_dief("out of memory");
	s->v = grown;
	s->v[s->n++] = (struct sample){ .t = json_number_value(t), .round = pass.round };
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

/*
 * The log ratios of x's times to ref's in the rounds both ran (a round's
 * layouts ran interleaved) into d; how many, or -1 if a time is not
 * positive.  Both are in round order.
 */
static long log_ratios(const struct samples *ref, const struct samples *x, double *d)
{
	unsigned int i = 0, j;
	long n = 0;

	for (j = 0; j < x->n; j++) {
		while (i < ref->n && ref->v[i].round < x->v[j].round)
			i++;
		if (i == ref->n || ref->v[i].round != x->v[j].round)
			continue;
		if (!(ref->v[i].t > 0) || !(x->v[j].t > 0))
			return -1;
		d[n++] = log(x->v[j].t / ref->v[i].t);
	}
	return n;
}

/*
 * Whether the row of x against the reference ref is decided, as the
 * reports' verdict() decides it: the MDB_AUTO_CONFIDENCE interval of the
 * ratio over the rounds both ran (rounds.h: mdb_paired_interval()) excludes
 * 1 (faster, slower) or lies inside [1/(1 + margin), 1 + margin] (same
 * within the margin).
 */
static bool row_decided(const struct samples *ref, const struct samples *x)
{
	double *d = malloc((x->n + 1) * sizeof(*d)), est, lo, hi;
	long n;
	bool ok;

	if (!d)
		mdb_dief("out of memory");
	n = log_ratios(ref, x, d);
	ok = n > 0 && mdb_paired_interval(d, (size_t)n, 1 - MDB_AUTO_CONFIDENCE, &est, &lo, &hi) &&
	     (lo > 0 || hi < 0 || (lo >= -log1p(MDB_AUTO_MARGIN) && hi <= log1p(MDB_AUTO_MARGIN)));
	free(d);
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
 * After a round: which groups stay open, and one more round of their
 * reference and undecided rows into pass.idx, as many as the time budget
 * allows at the pace the estimates have run at, those at the headline size
 * first (their first MDB_AUTO_MIN_ROUNDS rounds ran before any other
 * group's second); how many, their estimates into *est.
 */
static size_t auto_next_round(struct mdb_run *run, double elapsed, double *est)
{
	double pace = auto_est > 0 ? elapsed / auto_est : 1, planned = 0;
	size_t g, i, n = 0;
	int p;

	for (p = 0; p < 2; p++)	/* the headline size's groups, then the others */
		for (g = 0; g < run->nr_groups; g++) {
			struct mdb_group *grp = &run->groups[g];

			if (grp->stopped || group_at_headline(run, grp) != !p)
				continue;
			grp->stopped = group_verdict(run, grp);
			if (!grp->stopped && run->time_budget > 0 &&
			    elapsed + (planned + group_est(run, grp)) * pace > run->time_budget)
				grp->stopped = "time budget";
			if (!grp->stopped)
				planned += group_est(run, grp);
		}
	for (i = 0; i < run->nr_inst; i++)
		if (run->inst[i].selected && runs_next(run, i))
			pass.idx[n++] = i;
	*est = planned;
	auto_est += planned;
	return n;
}

/*
 * The rounds an instance runs at first: a report kernel's values (footprint
 * bytes, counts) do not vary between rounds, so it runs in the first one
 * only; at the headline size each of its builds took seconds a round.
 * Under --rounds=auto, the headline size's groups their minimum and the
 * others one round, the rest as auto_next_round() decides.
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

/* Planned round r (0-based) into pass.idx: the instances that run r rounds or more; how many. */
static size_t planned_round(const struct mdb_run *run, unsigned int r)
{
	size_t i, n = 0;

	for (i = 0; i < run->nr_inst; i++)
		if (r < instance_rounds(run, &run->inst[i]))	/* --benchmark_filter: the plan's */
			pass.idx[n++] = i;
	return n;
}

static int batch_order(const void *a, const void *b)
{
	const struct mdb_instance *x = &the_run->inst[*(const size_t *)a];
	const struct mdb_instance *y = &the_run->inst[*(const size_t *)b];

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Round number round of the n instances in pass.idx begins: group by group,
 * no memmap kept, the pool's memory drawn anew (vmemmap.h says why).
 */
static void round_begin(unsigned int round, size_t n)
{
	memmaps_drop();
	vmemmap_pool_renew();
	qsort(pass.idx, n, sizeof(*pass.idx), batch_order);
	pass.nr = n;
	pass.pos = 0;
	pass.round = round;
}

/*
 * Whether the memmaps the instances idx[0, n) use can be kept at once, so
 * that their runs may interleave: within the memory limit together, and
 * none with HVO on beside another (memmap_room() keeps those alone).
 */
static bool memmaps_fit(const struct mdb_run *run, const size_t *idx, size_t n)
{
	unsigned long long bytes = 0;
	size_t i, j, nr = 0, hvo = 0;

	for (i = 0; i < n; i++) {
		const struct mdb_instance *in = &run->inst[idx[i]];

		if (!needs_memmap(in))
			continue;
		for (j = 0; j < i && !mdb_cond_equal(&run->inst[idx[j]].cond, &in->cond); j++)
			;
		if (j < i)
			continue;
		bytes += memmap_bytes(in);
		nr++;
		hvo += in->cond.opts.hvo == HVO_ON;
	}
	return bytes <= kept_limit && (!hvo || nr == 1);
}

/*
 * Registers the round's next group, its instances in plan order, their
 * repetitions interleaved where memmaps_fit(), else one instance after
 * another; how many.
 */
static unsigned long register_batch(const struct mdb_run *run)
{
	size_t start = pass.pos, i;

	while (pass.pos < pass.nr &&
	       run->inst[pass.idx[pass.pos]].group == run->inst[pass.idx[start]].group)
		pass.pos++;
	for (i = start; i < pass.pos; i++)
		register_instance(run, &run->inst[pass.idx[i]]);
	mdb_set_interleave(memmaps_fit(run, pass.idx + start, pass.pos - start));
	return pass.pos - start;
}

/*
 * After each group: the round's next one; after a round, the next planned
 * round, then (--rounds=auto) one of the groups still open, counted into
 * *added and *est as runs not expected before; 0 when the run ends.
 */
static unsigned long next_batch(void *arg, double elapsed, unsigned long *added, double *est)
{
	struct mdb_run *run = arg;
	size_t n = 0;

	*added = 0;
	*est = 0;
	while (pass.pos == pass.nr) {
		if (pass.round < run->rounds) {
			n = planned_round(run, pass.round);
		} else if (run->rounds_auto) {
			n = auto_next_round(run, elapsed, est);
			*added = n;
			if (!n)
				return 0;
		} else {
			return 0;
		}
		round_begin(pass.round + 1, n);
	}
	return register_batch(run);
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
		/* The model (an aging replay) only where a zero it judges can be untrusted. */
		if (json_number_value(val) == 0 && expected < 0 && mdb_counter_counts_misses(c))
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
	json_object_set_new(entry, "round", json_integer(pass.round));
	add_sample(arg, in, entry);
}

static double est_seconds(const char *run_name, void *arg)
{
	const struct mdb_instance *in = instance_of(run_name);

	(void)arg;
	return in ? in->est_seconds : 0;
}

/*
 * Whether the run selects report kernels alone (scripts/run's footprint
 * passes): nothing is timed, so no memmap is kept beside the one being
 * built (kept_limit 0) and such runs, several at once, hold one build each.
 */
static bool reports_only(const struct mdb_run *run)
{
	size_t i;

	for (i = 0; i < run->nr_inst; i++)
		if (run->inst[i].selected && run->inst[i].kernel->class != MDB_REPORT)
			return false;
	return true;
}

/*
 * The pool's free pages (--memmap-pool): four times the largest build the
 * run makes, so that a build spreads over memory others had, up to
 * MDB_MEMMAP_POOL_BYTES or an eighth of what the kept memmaps may take.
 */
static size_t pool_bytes(const struct mdb_run *run)
{
	unsigned long long b = 0, need, cap = kept_limit / 8 < MDB_MEMMAP_POOL_BYTES ?
					     kept_limit / 8 : MDB_MEMMAP_POOL_BYTES;
	size_t i;

	for (i = 0; i < run->nr_inst; i++) {
		if (!run->inst[i].selected || !needs_memmap(&run->inst[i]))
			continue;
		need = 4 * memmap_bytes(&run->inst[i]);
		b = need > b ? need : b;
	}
	b = b < cap ? b : cap;
	return b < VMEMMAP_HUGE ? VMEMMAP_HUGE : (size_t)b;
}

int mdb_run_native(struct mdb_run *run)
{
	char path[4096], missing[MDB_COUNTERS_MISSING_LEN];
	struct mdb_report rep = {
		.context = mdb_context_cb,
		.arg = run,
		.annotate = annotate,
		.est_seconds = est_seconds,
		.next_pass = next_batch,
		.round_value = run->round_reps > 1 ? mdb_round_value : NULL,
	};
	struct mdb_err err;
	size_t i;
	int ret;

	the_run = run;
	threaded.cached = true;
	kept_limit = reports_only(run) ? 0 :
		     run->machine.memory_limit ? run->machine.memory_limit : mdb_mem_available() / 2;
	if (run->memmap_pool && !run->cond.opts.bind &&
	    vmemmap_pool_start(pool_bytes(run), run->cond.opts.seed, &err))
		mdb_die(&err);
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
	groups_start(run);
	round_begin(1, run->rounds ? planned_round(run, 0) : 0);
	register_batch(run);
	auto_est = rep.est_total;
	mdb_use_counters(&run->counters);
	ret = mdb_benchmark_run(&rep);
	memmaps_drop();
	for (i = 0; i < run->nr_inst; i++)
		free(samples[i].v);
	free(samples);
	samples = NULL;
	free(pass.idx);
	pass.idx = NULL;
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
