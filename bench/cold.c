// SPDX-License-Identifier: GPL-2.0
/*
 * cold.c - line flushes and the TLB sweep of the cold kernels (cold.h).
 */
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

int cold_init(struct cold *c)
{
	size_t i;

	c->bytes = (size_t)COLD_TLB_PAGES * PAGE;
	c->buf = mmap(NULL, c->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->buf == MAP_FAILED) {
		c->buf = NULL;
		return -1;
	}
#ifdef MADV_NOHUGEPAGE
	madvise(c->buf, c->bytes, MADV_NOHUGEPAGE);	/* one translation per 4 KiB */
#endif
	for (i = 0; i < c->bytes; i += PAGE)
		c->buf[i] = 1;
	return 0;
}

void cold_release(struct cold *c)
{
	if (c->buf)
		munmap(c->buf, c->bytes);
	c->buf = NULL;
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
