// SPDX-License-Identifier: GPL-2.0
/*
 * test_harness_shim.c - the fixed-count backend of mdb.h (mdb_fixed_run):
 * exact op counts, on_start/on_stop once each and around the ops, errors.
 * And manual time (mdb_register_manual_time, mdb_set_iteration_time) through
 * Google Benchmark into the dump: the time per op is exactly the one the
 * benchmark reported, whatever the clock said, and no hardware counter is
 * read around it.  And threads, both backends: set-up and teardown once a
 * call, every thread index once, the loops started and ended together, each
 * thread's exact op count; through Google Benchmark, the time per op one
 * thread's (exactly the manual time each thread reported, whichever Google
 * Benchmark this is built against), rates over all threads, a per-item
 * counter over every thread's items.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonio.h"
#include "shim.h"
#include "test_common.h"

struct trace {
	uint64_t batch;
	uint64_t ops;		/* done by the kernel */
	uint64_t ops_at_start, ops_at_stop;
	int starts, stops;
	uint64_t iterations;	/* mdb_iterations() after the loop */
	bool fail;
};

static struct trace *cur;

static void on_start(void *arg)
{
	struct trace *t = arg;

	t->starts++;
	t->ops_at_start = t->ops;
}

static void on_stop(void *arg)
{
	struct trace *t = arg;

	t->stops++;
	t->ops_at_stop = t->ops;
}

static void kernel(struct mdb_state *st, void *arg)
{
	struct trace *t = arg;

	if (t->fail)
		mdb_skip_with_error(st, "broken on purpose");
	while (mdb_keep_running_batch(st, t->batch)) {
		mdb_pause_timing(st);		/* no-ops here, but must be harmless */
		mdb_resume_timing(st);
		t->ops += t->batch;
	}
	t->iterations = mdb_iterations(st);
	mdb_set_items_processed(st, t->iterations);
	mdb_counter(st, "ignored", 1.0, MDB_COUNTER_PER_ITEM);
}

static void run(uint64_t batch, uint64_t ops, uint64_t want)
{
	struct trace t = { .batch = batch };
	struct mdb_err err = { "" };
	int ret;

	cur = &t;
	ret = mdb_fixed_run(kernel, &t, ops, on_start, on_stop, &t, NULL, &err);
	CHECK(ret == 0, "batch %lu ops %lu: returned %d (%s)", batch, ops, ret, err.msg);
	CHECK(t.ops == want, "batch %lu ops %lu: ran %lu ops, want %lu", batch, ops, t.ops, want);
	CHECK(t.iterations == want, "batch %lu ops %lu: mdb_iterations %lu, want %lu", batch, ops,
	      t.iterations, want);
	CHECK(t.starts == 1 && t.stops == 1, "on_start %d times, on_stop %d times", t.starts, t.stops);
	CHECK(t.ops_at_start == 0 && t.ops_at_stop == want, "on_start after %lu ops, on_stop after %lu",
	      t.ops_at_start, t.ops_at_stop);
}

/* 250 ns an op by its own account, whatever the clock says: it does nothing. */
#define MANUAL_NS	250.0
#define MANUAL_BATCH	100

static void manual_kernel(struct mdb_state *st, void *arg)
{
	(void)arg;
	while (mdb_keep_running_batch(st, MANUAL_BATCH))
		mdb_set_iteration_time(st, MANUAL_BATCH * MANUAL_NS * 1e-9);
	mdb_set_items_processed(st, mdb_iterations(st));
}

/* The same, timed by the clock: the hardware counters are read around it. */
static void clock_kernel(struct mdb_state *st, void *arg)
{
	(void)arg;
	while (mdb_keep_running_batch(st, MANUAL_BATCH))
		mdb_clobber_memory();
	mdb_set_items_processed(st, mdb_iterations(st));
}

/* ------------------------------------------------------------------ */
/* Threads.                                                            */

#define TH_MAX		4

struct threads_trace {
	uint64_t batch;
	int setups, teardowns, calls;	/* calls: of the kernel, by every thread */
	int arrived;			/* threads that reached their loop */
	uint64_t ops[TH_MAX];		/* done by each thread */
	int seen[TH_MAX];		/* thread indices, per call */
	int bad_index, bad_threads;
	int starts, stops;
	int arrived_at_start;		/* what on_start saw */
	uint64_t ops_at_stop;		/* what on_stop saw */
	unsigned int nr;
};

static int th_setup(void *arg, struct mdb_err *err)
{
	struct threads_trace *t = arg;

	(void)err;
	t->setups++;
	t->arrived = 0;
	memset(t->seen, 0, sizeof(t->seen));
	return 0;
}

static void th_teardown(void *arg)
{
	struct threads_trace *t = arg;
	unsigned int i;

	t->teardowns++;
	for (i = 0; i < t->nr; i++)
		t->bad_index += t->seen[i] != 1;
}

static void th_kernel(struct mdb_state *st, void *arg)
{
	struct threads_trace *t = arg;
	unsigned int me = mdb_thread_index(st);

	__atomic_fetch_add(&t->calls, 1, __ATOMIC_RELAXED);
	if (mdb_threads(st) != t->nr || me >= t->nr) {
		__atomic_fetch_add(&t->bad_threads, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&t->seen[me], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&t->arrived, 1, __ATOMIC_RELEASE);
	t->ops[me] = 0;
	while (mdb_keep_running_batch(st, t->batch))
		__atomic_fetch_add(&t->ops[me], t->batch, __ATOMIC_RELAXED);
	mdb_set_items_processed(st, mdb_iterations(st));
	/* Each thread: its own op count; per item, the counter is 1 over all threads. */
	mdb_counter(st, "per_item", (double)mdb_iterations(st), MDB_COUNTER_PER_ITEM);
}

static void th_on_start(void *arg)
{
	struct threads_trace *t = arg;

	t->starts++;
	t->arrived_at_start = __atomic_load_n(&t->arrived, __ATOMIC_ACQUIRE);
}

static void th_on_stop(void *arg)
{
	struct threads_trace *t = arg;
	unsigned int i;

	t->stops++;
	for (i = 0; i < t->nr; i++)
		t->ops_at_stop += __atomic_load_n(&t->ops[i], __ATOMIC_RELAXED);
}

static void fixed_threads(unsigned int nr, uint64_t batch, uint64_t ops)
{
	struct threads_trace t = { .batch = batch, .nr = nr };
	struct mdb_thread_run run = { .nr = nr, .setup = th_setup, .teardown = th_teardown };
	uint64_t items = 0, each = (ops + batch - 1) / batch * batch;
	struct mdb_err err = { "" };
	unsigned int i;

	CHECK(mdb_fixed_run_threads(th_kernel, &t, ops, &run, th_on_start, th_on_stop, &t, &items,
				    &err) == 0, "%u threads: %s", nr, err.msg);
	CHECK(t.setups == 1 && t.teardowns == 1 && t.calls == (int)nr && !t.bad_index &&
	      !t.bad_threads, "%u threads: set-up %d, teardown %d, %d calls, %d bad indices, %d bad counts",
	      nr, t.setups, t.teardowns, t.calls, t.bad_index, t.bad_threads);
	for (i = 0; i < nr; i++)
		CHECK(t.ops[i] == each, "%u threads: thread %u ran %lu ops, want %lu", nr, i, t.ops[i], each);
	CHECK(items == nr * each, "%u threads: %lu items, want %lu", nr, items, nr * each);
	CHECK(t.starts == 1 && t.stops == 1 && t.arrived_at_start == (int)nr &&
	      t.ops_at_stop == nr * each, "%u threads: on_start %d (after %d arrived), on_stop %d "
	      "(after %lu ops)", nr, t.starts, t.arrived_at_start, t.stops, t.ops_at_stop);
}

/* The manual-time kernel on threads: each reports MANUAL_NS an op. */
static void th_manual_kernel(struct mdb_state *st, void *arg)
{
	struct threads_trace *t = arg;

	__atomic_fetch_add(&t->seen[mdb_thread_index(st) % TH_MAX], 1, __ATOMIC_RELAXED);
	manual_kernel(st, NULL);
}

static int failing_setup(void *arg, struct mdb_err *err)
{
	(void)arg;
	return mdb_errf(err, "no memmap on purpose");
}

static json_t *no_context(bool complete, void *arg)
{
	(void)arg;
	return json_pack("{s:b}", "complete", complete);
}

static const json_t *entry_named(const json_t *doc, const char *name)
{
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(doc, "benchmarks"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "name")) ?: "", name))
			return e;
	return NULL;
}

static void manual_time(void)
{
	struct threads_trace th_manual = { .nr = 2 }, th_clock = { .nr = 2, .batch = 16 };
	const json_t *tm, *tc, *tf;
	char dir[] = "/tmp/test_harness_shim.XXXXXX", path[64];
	char *argv[] = { (char *)"test_harness_shim", mdb_gb_min_time("0.01"), NULL };
	struct mdb_report rep = { .path = path, .context = no_context, .nr_expected = 2 };
	struct mdb_counters set;
	struct mdb_err err = { "" };
	const json_t *m, *c;
	json_t *doc;
	int argc = 2;
	double t;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/dump.json", dir);
	CHECK(mdb_benchmark_init(&argc, argv, &err) == 0, "benchmark init: %s", err.msg);
	/* task_clock: a software counter, countable without a PMU where perf is allowed. */
	CHECK(mdb_counters_setup(&set, "task_clock", &err) == 0, "counters: %s", err.msg);
	mdb_use_counters(&set);
	mdb_register_manual_time("test/manual", manual_kernel, NULL);
	mdb_register("test/clock", clock_kernel, NULL);
	mdb_register_threads("test/threads-manual", th_manual_kernel, &th_manual, &(struct mdb_thread_run){
		.nr = 2, .setup = th_setup, .teardown = th_teardown, .manual_time = true });
	mdb_register_threads("test/threads", th_kernel, &th_clock, &(struct mdb_thread_run){
		.nr = 2, .setup = th_setup, .teardown = th_teardown });
	mdb_register_threads("test/threads-failing", th_kernel, &th_clock, &(struct mdb_thread_run){
		.nr = 2, .setup = failing_setup });
	rep.nr_expected = 5;
	CHECK(mdb_report_start(&rep, &err) == 0, "report start: %s", err.msg);
	/* 1: test/threads-failing failed, as it must. */
	CHECK(mdb_benchmark_run(&rep) == 1, "benchmark run: not exactly the failing set-up failed");
	doc = mdb_json_load_file(path, 1 << 20, &err);
	CHECK(doc != NULL, "dump: %s", err.msg);
	m = doc ? entry_named(doc, "test/manual/manual_time") : NULL;
	c = doc ? entry_named(doc, "test/clock") : NULL;
	CHECK(m && c, "no entry test/manual/manual_time or test/clock in the dump");
	if (m) {
		t = json_number_value(json_object_get(m, "real_time"));
		CHECK(t > MANUAL_NS * (1 - 1e-9) && t < MANUAL_NS * (1 + 1e-9),
		      "manual time: real_time %.6f ns an op, the benchmark said %.1f", t, MANUAL_NS);
		CHECK(!strcmp(json_string_value(json_object_get(m, "time_unit")) ?: "", "ns"),
		      "manual time: not in ns");
		CHECK(!json_object_get(m, "task_clock"), "manual time: a counter read around it");
	}
	if (c && mdb_counters_nr_available(&set))
		CHECK(json_object_get(c, "task_clock"), "clock time: task_clock not read around it");

	tm = doc ? entry_named(doc, "test/threads-manual/manual_time/threads:2") : NULL;
	tc = doc ? entry_named(doc, "test/threads/threads:2") : NULL;
	tf = doc ? entry_named(doc, "test/threads-failing/threads:2") : NULL;
	CHECK(tm && tc && tf, "no entry for the threaded benchmarks");
	if (tm) {
		t = json_number_value(json_object_get(tm, "real_time"));
		CHECK(t > MANUAL_NS * (1 - 1e-9) && t < MANUAL_NS * (1 + 1e-9),
		      "threads: real_time %.6f ns an op, each thread said %.1f (Google Benchmark %s)", t,
		      MANUAL_NS, mdb_gb_api);
		t = json_number_value(json_object_get(tm, "items_per_second"));
		CHECK(t > 2e9 / MANUAL_NS * (1 - 1e-9) && t < 2e9 / MANUAL_NS * (1 + 1e-9),
		      "threads: %.1f items per second, want both threads' %.1f", t, 2e9 / MANUAL_NS);
		CHECK(json_integer_value(json_object_get(tm, "threads")) == 2, "threads: not 2 threads");
	}
	if (tc) {
		t = json_number_value(json_object_get(tc, "per_item"));
		CHECK(t > 1 - 1e-9 && t < 1 + 1e-9, "threads: per-item counter %.6f, want 1", t);
	}
	CHECK(th_clock.setups >= 1 && th_clock.setups == th_clock.teardowns &&
	      th_clock.calls == 2 * th_clock.teardowns && !th_clock.bad_index && !th_clock.bad_threads,
	      "threads: set-up %d, teardown %d, %d calls, %d bad indices",
	      th_clock.setups, th_clock.teardowns, th_clock.calls, th_clock.bad_index);
	CHECK(th_manual.setups >= 1 && th_manual.setups == th_manual.teardowns,
	      "threads: manual set-up %d, teardown %d", th_manual.setups, th_manual.teardowns);
	if (tf)
		CHECK(json_is_true(json_object_get(tf, "error_occurred")) &&
		      !strcmp(json_string_value(json_object_get(tf, "error_message")) ?: "",
			      "no memmap on purpose"), "threads: a failed set-up is not the run's error");
	json_decref(doc);
	mdb_counters_close(&set);
	unlink(path);
	rmdir(dir);
	free(argv[1]);
}

int main(void)
{
	struct trace t = { .batch = 8, .fail = true };
	struct mdb_err err = { "" };
	uint64_t items;

	run(1, 1000, 1000);
	run(64, 1000, 1024);		/* rounded up to the batch */
	run(64, 64, 64);
	run(1000, 1, 1000);
	run(7, 0, 0);

	CHECK(mdb_fixed_run(kernel, &t, 100, on_start, on_stop, &t, NULL, &err) == -1,
	      "a failing kernel returns -1");
	CHECK(!strcmp(err.msg, "broken on purpose"), "error message '%s'", err.msg);
	CHECK(t.ops == 0, "a failed kernel ran %lu ops", t.ops);
	CHECK(t.starts == t.stops, "on_start %d, on_stop %d", t.starts, t.stops);
	/* A benchmark that times itself runs under the fixed count too: its time is ignored. */
	items = 0;
	CHECK(mdb_fixed_run(manual_kernel, NULL, 1000, NULL, NULL, NULL, &items, &err) == 0 &&
	      items == 1000, "manual-time kernel in a fixed run: %lu items (%s)", items, err.msg);

	fixed_threads(1, 7, 1000);
	fixed_threads(3, 7, 1000);
	fixed_threads(4, 64, 64);
	fixed_threads(2, 5, 0);

	manual_time();

	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	else
		printf("fixed-count backend: all checks passed\n");
	return failures ? 1 : 0;
}
