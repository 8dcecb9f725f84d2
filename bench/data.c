// SPDX-License-Identifier: GPL-2.0
/*
 * data.c - the data window and the kernel's page clear and copy (data.h).
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "basepage.h"
#include "data.h"

/* The run's base page: clear_page()/copy_page() of one pfn's data is that many bytes. */
#define PAGE		(1UL << mdb_base.shift)
#define WINDOW_MIN	(64UL << 20)
#define WINDOW_MAX	(1UL << 30)
#define HUGE		(2UL << 20)

#if defined(__x86_64__)
#include <cpuid.h>

/* X86_FEATURE_ERMS: CPUID.(EAX=7,ECX=0):EBX bit 9. */
static int has_erms(void)
{
	static int erms = -1;
	unsigned int a, b, c, d;

	if (erms < 0)
		erms = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1U << 9));
	return erms;
}

/* clear_page(): clear_page_erms where ERMS says rep stosb is fast, clear_page_rep otherwise. */
static void clear_page(void *page)
{
	unsigned long n;

	if (has_erms()) {
		n = PAGE;
		__asm__ volatile("rep stosb" : "+D"(page), "+c"(n) : "a"(0) : "memory");
	} else {
		n = PAGE / 8;
		__asm__ volatile("rep stosq" : "+D"(page), "+c"(n) : "a"(0UL) : "memory");
	}
}

/* copy_page() on a REP_GOOD CPU. */
static void copy_page(void *dst, const void *src)
{
	unsigned long n = PAGE / 8;

	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}
#else
static void clear_page(void *page)
{
	memset(page, 0, PAGE);
	__asm__ volatile("" : : "r"(page) : "memory");
}

static void copy_page(void *dst, const void *src)
{
	memmove(dst, src, PAGE);
	__asm__ volatile("" : : "r"(dst) : "memory");
}
#endif

int bench_data_map(struct bench_data *d)
{
	long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
	size_t want = llc > 0 ? 4 * (size_t)llc : WINDOW_MIN;

	for (d->bytes = WINDOW_MIN; d->bytes < want && d->bytes < WINDOW_MAX; d->bytes <<= 1)
		;
	d->map_bytes = d->bytes + HUGE;
	d->map = mmap(NULL, d->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (d->map == MAP_FAILED) {
		d->map = d->buf = NULL;
		return -1;
	}
	d->buf = (char *)(((uintptr_t)d->map + HUGE - 1) & ~(HUGE - 1));
	madvise(d->buf, d->bytes, MADV_HUGEPAGE);
	memset(d->buf, 1, d->bytes);	/* faulted in before anything is timed */
	return 0;
}

void bench_data_unmap(struct bench_data *d)
{
	if (d->map)
		munmap(d->map, d->map_bytes);
	d->map = d->buf = NULL;
}

void bench_data_clear(const struct bench_data *d, unsigned long pfn, unsigned int order)
{
	unsigned long i;

	for (i = 0; i < 1UL << order; i++)
		clear_page(bench_data_page(d, pfn + i));
}

void bench_data_copy(const struct bench_data *d, unsigned long dst, unsigned long src,
		     unsigned int order)
{
	unsigned long i;

	for (i = 0; i < 1UL << order; i++)
		copy_page(bench_data_page(d, dst + i), bench_data_page(d, src + i));
}
