// SPDX-License-Identifier: GPL-2.0
/*
 * baseline.c - the machine's own limits over the same sizes, layout
 * independent: what a dependent load and a sequential read cost when the
 * working set is buf_bytes.  A memmap walk can be no faster than the
 * bandwidth line for its bytes, and a random lookup that hops to a
 * descriptor pays about two latency lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "bench.h"

#define LINE		64
#define CHASE_BATCH	256
#define READ_BATCH	64	/* lines: 4 KiB */

static void *buf_map(struct mdb_state *st, const struct bench_env *env, const char *who)
{
	char msg[160];
	void *buf;

	if (env->buf_bytes < LINE || env->buf_bytes % LINE) {
		snprintf(msg, sizeof(msg), "%s: buffer of %zu bytes is not a whole number of "
			 "64-byte lines", who, env->buf_bytes);
		mdb_skip_with_error(st, msg);
		return NULL;
	}
	buf = mmap(NULL, env->buf_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		snprintf(msg, sizeof(msg), "%s: cannot map %zu bytes", who, env->buf_bytes);
		mdb_skip_with_error(st, msg);
		return NULL;
	}
	if (env->opts)	/* pages as the memmaps it is compared with */
		vmemmap_advise(buf, env->buf_bytes, env->opts->pages);
	return buf;
}

/*
 * One pointer per line, linked into a single random cycle (Sattolo), so each
 * load's address comes from the previous load and the prefetcher cannot
 * guess it: lat_mem_rd with a random stride.
 */
static void **chase_build(void *buf, size_t bytes, uint64_t seed)
{
	size_t nr = bytes / LINE, i, j;
	uint32_t *order = nr > UINT32_MAX ? NULL : malloc(nr * sizeof(*order));
	uint64_t rng = seed ^ 0x636861736eULL;
	char *base = buf;

	if (!order)
		return NULL;
	for (i = 0; i < nr; i++)
		order[i] = i;
	for (i = nr - 1; i > 0; i--) {
		uint32_t t;

		j = mdb_rng_below(&rng, i);	/* j < i: one cycle through all */
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < nr; i++)
		*(void **)(base + (size_t)order[i] * LINE) = base + (size_t)order[(i + 1) % nr] * LINE;
	free(order);
	return (void **)base;
}

static void baseline_latency(struct mdb_state *st, const struct bench_env *env)
{
	void *buf = buf_map(st, env, "baseline/latency");
	void **p;
	unsigned long i;

	if (!buf)
		return;
	p = chase_build(buf, env->buf_bytes, env->seed);
	if (!p) {
		mdb_skip_with_error(st, "baseline/latency: out of memory for the permutation");
		munmap(buf, env->buf_bytes);
		return;
	}
	while (mdb_keep_running_batch(st, CHASE_BATCH)) {
		for (i = 0; i < CHASE_BATCH; i++)
			p = *p;
		mdb_do_not_optimize(p);
	}
	mdb_set_items_processed(st, mdb_iterations(st));
	munmap(buf, env->buf_bytes);
}

/* An op reads one 64-byte line, all eight words of it. */
static void baseline_bandwidth(struct mdb_state *st, const struct bench_env *env)
{
	uint64_t *buf = buf_map(st, env, "baseline/bandwidth");
	size_t lines = env->buf_bytes / LINE, line = 0, w;
	unsigned long i;
	uint64_t sum = 0;

	if (!buf)
		return;
	for (w = 0; w < env->buf_bytes / sizeof(*buf); w++)	/* fault it in, untimed */
		buf[w] = w;
	while (mdb_keep_running_batch(st, READ_BATCH)) {
		for (i = 0; i < READ_BATCH; i++) {
			const uint64_t *l = buf + line * (LINE / sizeof(*buf));

			for (w = 0; w < LINE / sizeof(*buf); w++)
				sum += l[w];
			if (++line == lines)
				line = 0;
		}
		mdb_do_not_optimize(sum);
	}
	mdb_set_items_processed(st, mdb_iterations(st));
	mdb_set_bytes_processed(st, mdb_iterations(st) * LINE);
	munmap(buf, env->buf_bytes);
}

MDB_KERNEL(latency,
	   .name = "baseline/latency", .class = MDB_BASELINE, .unit = "dependent load",
	   .run = baseline_latency,
	   .sim_ops = 1 << 16);

MDB_KERNEL(bandwidth,
	   .name = "baseline/bandwidth", .class = MDB_BASELINE, .unit = "64-byte line read",
	   .run = baseline_bandwidth,
	   .sim_ops = 1 << 16);
