// SPDX-License-Identifier: GPL-2.0
/*
 * test_harness_shim.c - the fixed-count backend of mdb.h (mdb_fixed_run):
 * exact op counts, on_start/on_stop once each and around the ops, errors.
 * And manual time (mdb_register_manual_time, mdb_set_iteration_time) through
 * Google Benchmark into the dump: the time per op is exactly the one the
 * benchmark reported, whatever the clock said, and no hardware counter is
 * read around it.
 */
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
	CHECK(mdb_report_start(&rep, &err) == 0, "report start: %s", err.msg);
	CHECK(mdb_benchmark_run(&rep) == 0, "benchmark run failed");
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

	manual_time();

	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	else
		printf("fixed-count backend: all checks passed\n");
	return failures ? 1 : 0;
}
