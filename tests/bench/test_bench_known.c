// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_known.c - the known difference (bench/kernel.h,
 * -DMDB_KNOWN_EXTRA), compiled here with MDB_KNOWN_EXTRA=10 as every
 * layout's kernels are in such a build: while bench_known_on is set (the
 * instance slowed), a loop of batches under the fixed-count backend counts
 * the ops asked and runs 10% more, exactly (100 counted batches of 10 ops,
 * 10 more uncounted), a second loop afresh; with it clear (every other
 * instance), exactly the ops counted.
 */
#include "kernel.h"
#include "shim.h"
#include "test_common.h"

struct loop {
	uint64_t ran, counted;
};

static void body(struct mdb_state *st, void *arg)
{
	struct loop *l = arg;

	while (mdb_keep_running_batch(st, 10))
		l->ran += 10;
	l->counted = mdb_iterations(st);
}

int main(void)
{
	struct mdb_err err;
	uint64_t items;
	int i;

	for (i = 0; i < 3; i++) {
		struct loop l = { 0 };
		uint64_t want = i < 2 ? 1100 : 1000;

		bench_known_on = i < 2;
		CHECK(!mdb_fixed_run(body, &l, 1000, NULL, NULL, NULL, &items, &err), "%s", err.msg);
		CHECK(l.counted == 1000 && l.ran == want, "loop %d (%s): %llu ops counted, %llu ran, "
		      "not %llu", i, bench_known_on ? "slowed" : "not slowed",
		      (unsigned long long)l.counted, (unsigned long long)l.ran,
		      (unsigned long long)want);
	}
	return test_done("test_bench_known");
}
