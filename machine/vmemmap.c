// SPDX-License-Identifier: GPL-2.0
/*
 * vmemmap.c - mappings like the kernel's vmemmap, and what smaps says of
 * them (see vmemmap.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "err.h"
#include "units.h"
#include "vmemmap.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25	/* include/uapi/asm-generic/mman-common.h, Linux 6.1 */
#endif

#define SMALL_PAGE	4096UL

static const char *const pages_name[MEMMAP_PAGES_NR] = {
	[MEMMAP_PAGES_2M] = "2m",
	[MEMMAP_PAGES_4K] = "4k",
};

const char *memmap_pages_name(enum memmap_pages pages)
{
	return mdb_name_of(pages_name, MEMMAP_PAGES_NR, pages);
}

int memmap_pages_from_name(const char *name)
{
	return mdb_parse_name(name, pages_name, MEMMAP_PAGES_NR);
}

static size_t page_bytes(enum memmap_pages pages)
{
	return pages == MEMMAP_PAGES_2M ? VMEMMAP_HUGE : SMALL_PAGE;
}

static size_t round_up(size_t x, size_t to)
{
	return (x + to - 1) & ~(to - 1);
}

int vmemmap_advise(void *addr, size_t len, enum memmap_pages pages)
{
	return madvise(addr, len, pages == MEMMAP_PAGES_2M ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
}

/*
 * One PROT_NONE reservation with room for the alignment and a guard page
 * on each side; whatever is later mapped into the usable range stays a VMA
 * of its own, never merged with a neighbour.
 */
int vmemmap_reserve_aligned(struct vmemmap *v, size_t bytes, enum memmap_pages pages, size_t align,
			    struct mdb_err *err)
{
	memset(v, 0, sizeof(*v));
	if (!bytes || pages >= MEMMAP_PAGES_NR || (align & (align - 1)))
		return mdb_errf(err, "vmemmap_reserve: %zu bytes of %s pages aligned to %zu", bytes,
				memmap_pages_name(pages), align);
	if (align < page_bytes(pages))
		align = page_bytes(pages);
	v->pages = pages;
	v->bytes = round_up(bytes, page_bytes(pages));
	v->resv_bytes = v->bytes + align + 2 * SMALL_PAGE;
	v->resv = mmap(NULL, v->resv_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (v->resv == MAP_FAILED) {
		v->resv = NULL;
		return mdb_errf(err, "mmap of %zu bytes: %s", v->resv_bytes, strerror(errno));
	}
	v->addr = (void *)round_up((uintptr_t)v->resv + SMALL_PAGE, align);
	return 0;
}

int vmemmap_reserve(struct vmemmap *v, size_t bytes, enum memmap_pages pages, struct mdb_err *err)
{
	return vmemmap_reserve_aligned(v, bytes, pages, 0, err);
}

/* The usable range, just mapped: advised as its pages ask, bound; all unmapped on failure. */
static int advise_bind(struct vmemmap *v, vmemmap_bind_fn *bind, void *bind_arg,
		       struct mdb_err *err)
{
	if (vmemmap_advise(v->addr, v->bytes, v->pages)) {
		mdb_errf(err, "madvise(%s) on a %zu-byte mapping: %s",
			 v->pages == MEMMAP_PAGES_2M ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE", v->bytes,
			 strerror(errno));
		goto fail;
	}
	if (bind && bind(v->addr, v->bytes, bind_arg)) {
		mdb_errf(err, "binding a %zu-byte mapping failed", v->bytes);
		goto fail;
	}
	return 0;
fail:
	vmemmap_unmap(v);
	return -1;
}

/* The usable range made anonymous memory, advised, bound. */
int vmemmap_populate(struct vmemmap *v, vmemmap_bind_fn *bind, void *bind_arg, struct mdb_err *err)
{
	if (mprotect(v->addr, v->bytes, PROT_READ | PROT_WRITE)) {
		mdb_errf(err, "mprotect of a %zu-byte mapping: %s", v->bytes, strerror(errno));
		vmemmap_unmap(v);
		return -1;
	}
	return advise_bind(v, bind, bind_arg, err);
}

/*
 * The usable range made a shared mapping of fd from offset 0, 4 KiB pages
 * (MADV_NOHUGEPAGE: shmem THP may not hand out a huge page that HVO would
 * then have to split), bound.
 */
int vmemmap_populate_shared(struct vmemmap *v, int fd, vmemmap_bind_fn *bind, void *bind_arg,
			    struct mdb_err *err)
{
	if (v->pages != MEMMAP_PAGES_4K) {
		mdb_errf(err, "a shared vmemmap mapping is of 4 KiB pages");
	} else if (mmap(v->addr, v->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
		   MAP_FAILED) {
		mdb_errf(err, "mmap of a %zu-byte memfd: %s", v->bytes, strerror(errno));
	} else {
		return advise_bind(v, bind, bind_arg, err);
	}
	vmemmap_unmap(v);
	return -1;
}

int vmemmap_map(struct vmemmap *v, size_t bytes, enum memmap_pages pages, vmemmap_bind_fn *bind,
		void *bind_arg, struct mdb_err *err)
{
	if (vmemmap_reserve(v, bytes, pages, err))
		return -1;
	return vmemmap_populate(v, bind, bind_arg, err);
}

void vmemmap_unmap(struct vmemmap *v)
{
	if (v->resv)
		munmap(v->resv, v->resv_bytes);
	memset(v, 0, sizeof(*v));
}

void vmemmap_settle(const struct vmemmap *v, size_t populated)
{
	struct vmemmap_usage u = { 0 };
	size_t len;

	if (v->pages != MEMMAP_PAGES_2M || !populated)
		return;
	len = round_up(populated < v->bytes ? populated : v->bytes, VMEMMAP_HUGE);
	if (vmemmap_usage_of(v->addr, len, &u) || u.huge >= u.rss)
		return;
	/* EINVAL before 6.1, EAGAIN or ENOMEM when memory is short: usage tells. */
	(void)madvise(v->addr, len, MADV_COLLAPSE);
}

int vmemmap_usage(const struct vmemmap *v, struct vmemmap_usage *u)
{
	if (!v->addr)
		return 0;
	return vmemmap_usage_of(v->addr, v->bytes, u);
}

/*
 * /proc/self/smaps: a header line "start-end perms ..." per VMA, then
 * "Key:   N kB" lines.  The sizes of every VMA that intersects the range
 * count; the guards make that exactly the mapping's own.
 */
int vmemmap_usage_of(const void *addr, size_t len, struct vmemmap_usage *u)
{
	uintptr_t lo = (uintptr_t)addr, hi = lo + len;
	unsigned long start, end, kb;
	bool in = false;
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char dash;

		if (sscanf(line, "%lx%c%lx ", &start, &dash, &end) == 3 && dash == '-') {
			in = start < hi && end > lo;
			continue;
		}
		if (!in)
			continue;
		if (sscanf(line, "Rss: %lu kB", &kb) == 1)
			u->rss += kb << 10;
		else if (sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			u->huge += kb << 10;
	}
	fclose(f);
	return 0;
}

const char *vmemmap_thp_mode(char *buf, size_t len)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char *open, *close;
	const char *ret = NULL;

	if (!f)
		return NULL;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		open = strchr(buf, '[');
		close = open ? strchr(open, ']') : NULL;
		if (close) {
			*close = '\0';
			ret = open + 1;
		} else {
			ret = buf;
		}
	}
	fclose(f);
	return ret;
}
