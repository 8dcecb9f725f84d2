// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_cold.c - the cold kernels' TLB sweep buffer (bench/cold.c) is
 * mapped and faulted in once per process: every cold_buffer() after the first
 * hands back the same COLD_TLB_PAGES pages and faults none of them in again
 * (a hundred calls fault in fewer pages than one buffer holds), and a sweep
 * and a flush of it run.
 */
#include <sys/resource.h>

#include "cold.h"
#include "test_common.h"

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

int main(void)
{
	const struct cold *first, *c;
	long before;
	int i;

	CHECK(cold_supported(), "no cache-line flush on this architecture");
	first = cold_buffer();
	CHECK(first, "cannot map the sweep buffer");
	if (!first)
		return test_done("test_bench_cold");
	CHECK(first->buf && first->bytes == (size_t)COLD_TLB_PAGES * 4096,
	      "sweep buffer of %zu bytes, want %zu", first->bytes, (size_t)COLD_TLB_PAGES * 4096);
	before = minor_faults();
	for (i = 0; i < 100; i++) {
		c = cold_buffer();
		CHECK(c && c->buf == first->buf && c->bytes == first->bytes,
		      "call %d: another buffer (%p)", i, (const void *)c);
		if (c)
			cold_sweep(c);
	}
	CHECK(minor_faults() - before < COLD_TLB_PAGES,
	      "100 calls faulted in %ld pages: the buffer is mapped again", minor_faults() - before);
	cold_flush(first->buf, first->bytes);
	cold_sweep(first);
	return test_done("test_bench_cold");
}
