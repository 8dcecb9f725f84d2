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
#include <string.h>
#include <sys/mman.h>

#include "bench.h"
#include "chase.h"
#include "ref.h"

#define LINE		CHASE_LINE
#define CHASE_BATCH	256
#define READ_BATCH	1024	/* lines: 64 KiB, so the harness costs < 1% at L1 speed */

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

static void baseline_latency(struct mdb_state *st, const struct bench_env *env)
{
	void *buf = buf_map(st, env, "baseline/latency");
	void **p;

	if (!buf)
		return;
	p = chase_build(buf, env->buf_bytes, env->seed);
	if (!p) {
		mdb_skip_with_error(st, "baseline/latency: out of memory for the permutation");
		munmap(buf, env->buf_bytes);
		return;
	}
	while (mdb_keep_running_batch(st, CHASE_BATCH)) {
		p = chase_walk(p, CHASE_BATCH);
		mdb_do_not_optimize(p);
	}
	mdb_set_items_processed(st, mdb_iterations(st));
	munmap(buf, env->buf_bytes);
}

/*
 * Reads lines [0, n) of buf: every byte loaded, summed into four vector
 * accumulators so that no add waits for the one before (STREAM's and
 * tinymembench's way to reach the memory's limit rather than the adder's).
 * Compiled twice: 16-byte vectors for any x86-64 or arm64, and 32-byte
 * AVX2 loads where the CPU has them, picked once at run time.
 */
#define READ_LINES(name, vsize)								\
static uint64_t name(const void *buf, size_t n)						\
{											\
	typedef uint64_t vec __attribute__((vector_size(vsize)));			\
	const vec *p = buf, *end = p + n * LINE / sizeof(vec);				\
	vec a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };				\
	uint64_t sum = 0;								\
	unsigned int i;									\
											\
	for (; p + 4 <= end; p += 4) {							\
		a0 += p[0];								\
		a1 += p[1];								\
		a2 += p[2];								\
		a3 += p[3];								\
	}										\
	for (; p < end; p++)								\
		a0 += *p;								\
	a0 += a1 + a2 + a3;								\
	for (i = 0; i < sizeof(vec) / sizeof(uint64_t); i++)				\
		sum += a0[i];								\
	return sum;									\
}

READ_LINES(read_lines_16, 16)
#if defined(__x86_64__)
__attribute__((target("avx2"))) READ_LINES(read_lines_avx2, 32)
#endif

typedef uint64_t read_fn(const void *buf, size_t n);

static read_fn *read_lines(void)
{
#if defined(__x86_64__)
	if (__builtin_cpu_supports("avx2"))
		return read_lines_avx2;
#endif
	return read_lines_16;
}

struct bandwidth_ref {
	const char *buf;
	size_t lines;
	read_fn *read;
};

/*
 * ref.h's loops over the whole buffer: 0 the baseline's own read, 1 the
 * reference, glibc's memchr() for a byte the buffer does not hold: an
 * independent read loop, hand-tuned per CPU, that has to look at every byte.
 */
static uint64_t bandwidth_ref(void *arg, unsigned int which)
{
	const struct bandwidth_ref *r = arg;

	if (which)
		mdb_do_not_optimize(memchr(r->buf, 0xff, r->lines * LINE));
	else
		mdb_do_not_optimize(r->read(r->buf, r->lines));
	return r->lines;
}

/*
 * An op reads one 64-byte line, all of it; READ_BATCH lines per batch, the
 * buffer read front to back and cycling.  ratio_to_reference is the
 * baseline's ns per line over memchr()'s, timed alternately in the same run
 * (ref.h): near 1 when the baseline is at the machine's limit, above it if
 * the baseline's loop, not the memory, bounds it.
 */
static void baseline_bandwidth(struct mdb_state *st, const struct bench_env *env)
{
	uint64_t *buf = buf_map(st, env, "baseline/bandwidth");
	struct bandwidth_ref ref = { .lines = env->buf_bytes / LINE, .read = read_lines() };
	const struct ref_loops loops = { .run = bandwidth_ref, .arg = &ref, .nr = 2 };
	size_t line = 0, n, w;
	double ns[REF_MAX_LOOPS];
	uint64_t sum = 0;

	if (!buf)
		return;
	ref.buf = (const char *)buf;
	/* Faulted in, untimed; no byte is 0xff, so memchr() reads it all. */
	for (w = 0; w < env->buf_bytes / sizeof(*buf); w++)
		buf[w] = w & 0x7f7f7f7f7f7f7f7fULL;
	while (mdb_keep_running_batch(st, READ_BATCH)) {
		for (n = READ_BATCH; n; n -= w, line = line + w == ref.lines ? 0 : line + w) {
			w = ref.lines - line < n ? ref.lines - line : n;
			sum += ref.read((const char *)buf + line * LINE, w);
		}
		mdb_do_not_optimize(sum);
	}
	mdb_set_items_processed(st, mdb_iterations(st));
	mdb_set_bytes_processed(st, mdb_iterations(st) * LINE);
	ref_time(&loops, ns);
	mdb_counter(st, "reference_ns", ns[1], MDB_COUNTER_PLAIN);
	mdb_counter(st, "ratio_to_reference", ns[0] / ns[1], MDB_COUNTER_PLAIN);
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
