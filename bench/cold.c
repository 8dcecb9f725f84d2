// SPDX-License-Identifier: GPL-2.0
/*
 * cold.c - line flushes and the TLB sweep of the cold kernels (cold.h).
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include "cold.h"

#define LINE		64
#define PAGE		4096

bool cold_supported(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
	return true;
#else
	return false;
#endif
}

static inline void flush_line(const void *p)
{
#if defined(__x86_64__)
	__asm__ volatile("clflush %0" : : "m"(*(const volatile char *)p) : "memory");
#elif defined(__aarch64__)
	__asm__ volatile("dc civac, %0" : : "r"(p) : "memory");
#else
	(void)p;
#endif
}

/* The flushes are done before anything after this runs. */
static inline void flush_fence(void)
{
#if defined(__x86_64__)
	__asm__ volatile("mfence" : : : "memory");
#elif defined(__aarch64__)
	__asm__ volatile("dsb ish" : : : "memory");
#endif
}

void cold_flush(const void *p, size_t len)
{
	uintptr_t line = (uintptr_t)p & ~(uintptr_t)(LINE - 1), end = (uintptr_t)p + len;

	for (; line < end; line += LINE)
		flush_line((const void *)line);
}

/*
 * The sweep's buffer, mapped and touched once per process and kept: Google
 * Benchmark calls a cold kernel 10-15 times a round (its iteration search,
 * then the round's short runs), and mapping and faulting in 8192 pages each
 * time cost about 110 ms a call on the development VM, whose page faults
 * trap to the hypervisor: 1.5 of the 1.9 s a cold kernel's round took.  The
 * sweep only reads it, so the ops see the same evictions whichever call
 * mapped it.
 */
static struct cold sweep_buf;
static pthread_once_t sweep_once = PTHREAD_ONCE_INIT;

static void sweep_map(void)
{
	size_t bytes = (size_t)COLD_TLB_PAGES * PAGE, i;
	char *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		return;
#ifdef MADV_NOHUGEPAGE
	madvise(buf, bytes, MADV_NOHUGEPAGE);	/* one translation per 4 KiB */
#endif
	for (i = 0; i < bytes; i += PAGE)
		buf[i] = 1;
	sweep_buf.buf = buf;
	sweep_buf.bytes = bytes;
}

const struct cold *cold_buffer(void)
{
	pthread_once(&sweep_once, sweep_map);
	return sweep_buf.buf ? &sweep_buf : NULL;
}

/* Page p's line is p mod 64: the sweep fills every set of the L1 alike. */
void cold_sweep(const struct cold *c)
{
	const volatile char *buf = c->buf;
	size_t p;

	flush_fence();
	for (p = 0; p < COLD_TLB_PAGES; p++)
		(void)buf[p * PAGE + p % (PAGE / LINE) * LINE];
	flush_fence();
}
