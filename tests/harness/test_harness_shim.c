// SPDX-License-Identifier: GPL-2.0
/*
 * test_harness_shim.c - the fixed-count backend of mdb.h (mdb_fixed_run):
 * exact op counts, on_start/on_stop once each and around the ops, errors.
 */
#include <stdio.h>
#include <string.h>

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

int main(void)
{
	struct trace t = { .batch = 8, .fail = true };
	struct mdb_err err = { "" };

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

	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	else
		printf("fixed-count backend: all checks passed\n");
	return failures ? 1 : 0;
}
