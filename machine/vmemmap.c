// SPDX-License-Identifier: GPL-2.0
/*
 * vmemmap.c - mappings like the kernel's vmemmap, and what smaps says of
 * them (see vmemmap.h).
 */
#define _GNU_SOURCE	/* mremap() */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "err.h"
#include "grow.h"
#include "rng.h"
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

/* ------------------------------------------------------------------------ */
/* The pool (vmemmap.h): free 2 MiB pages, each where it was last parked.   */

#define POOL_GROW	64	/* pages mapped at a time, at most */

static struct {
	pthread_mutex_t lock;
	bool on;
	void **free;
	size_t nr_free, cap;
	size_t target, mapped, drawn;	/* in pages */
	uint64_t rng;
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Room in the free list for need pages. */
static bool free_room(size_t need)
{
	void **grown = mdb_grow(pool.free, &pool.cap, need, sizeof(*pool.free));

	if (!grown)
		return false;
	pool.free = grown;
	return true;
}

/* A 2 MiB-aligned range of len bytes of what mmap gives (prot), the excess trimmed; NULL if none. */
static char *map_aligned(size_t len, int prot, int flags)
{
	char *raw = mmap(NULL, len + VMEMMAP_HUGE, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
	char *p;

	if (raw == MAP_FAILED)
		return NULL;
	p = (char *)round_up((uintptr_t)raw, VMEMMAP_HUGE);
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	munmap(p + len, (size_t)(raw + VMEMMAP_HUGE - p));
	return p;
}

/* More free pages, in huge pages where THP gives them: 0, or -1 with err. */
static int pool_grow(struct mdb_err *err)
{
	size_t n = pool.target < POOL_GROW ? pool.target : POOL_GROW, i;
	char *p;

	if (!free_room(pool.nr_free + n))
		return mdb_errf(err, "out of memory for the vmemmap pool's list");
	p = map_aligned(n * VMEMMAP_HUGE, PROT_READ | PROT_WRITE, 0);
	if (!p)
		return mdb_errf(err, "the vmemmap pool: mmap of %zu bytes: %s", n * VMEMMAP_HUGE,
				strerror(errno));
	(void)madvise(p, n * VMEMMAP_HUGE, MADV_HUGEPAGE);
	memset(p, 0, n * VMEMMAP_HUGE);
	(void)madvise(p, n * VMEMMAP_HUGE, MADV_COLLAPSE);	/* what the fault path left small */
	for (i = 0; i < n; i++)
		pool.free[pool.nr_free++] = p + i * VMEMMAP_HUGE;
	pool.mapped += n;
	return 0;
}

/* A free page drawn at random from no fewer than the target; NULL with err. */
static void *pool_draw(struct mdb_err *err)
{
	size_t i;
	void *pg;

	while (pool.nr_free <= pool.target)
		if (pool_grow(err))
			return NULL;
	i = (size_t)mdb_rng_below(&pool.rng, pool.nr_free);
	pg = pool.free[i];
	pool.free[i] = pool.free[--pool.nr_free];
	pool.drawn++;
	return pg;
}

/*
 * v's pages made free, as many as the pool keeps (no more than twice the
 * target and a growth free; the others go with v's mapping), parked in
 * one PROT_NONE range mapped before the first moves: a range mapped
 * afterwards could land in the hole a move leaves in v's reservation, and
 * go with it when the reservation is unmapped.
 */
static void pool_park(struct vmemmap *v)
{
	size_t n = v->backed / VMEMMAP_HUGE, keep = 2 * pool.target + POOL_GROW, i;
	char *area;

	if (!pool.on || pool.nr_free >= keep)
		return;
	n = n < keep - pool.nr_free ? n : keep - pool.nr_free;
	if (!n || !free_room(pool.nr_free + n))
		return;
	area = map_aligned(n * VMEMMAP_HUGE, PROT_NONE, MAP_NORESERVE);
	if (!area)
		return;
	for (i = 0; i < n; i++) {
		if (mremap((char *)v->addr + i * VMEMMAP_HUGE, VMEMMAP_HUGE, VMEMMAP_HUGE,
			   MREMAP_MAYMOVE | MREMAP_FIXED, area + i * VMEMMAP_HUGE) == MAP_FAILED)
			break;
		pool.free[pool.nr_free++] = area + i * VMEMMAP_HUGE;
	}
	if (i < n)
		munmap(area + i * VMEMMAP_HUGE, (n - i) * VMEMMAP_HUGE);
}

int vmemmap_pool_start(size_t bytes, unsigned long long seed, struct mdb_err *err)
{
	if (bytes < VMEMMAP_HUGE)
		return mdb_errf(err, "the vmemmap pool: %zu bytes, less than one 2 MiB page", bytes);
	pthread_mutex_lock(&pool.lock);
	pool.target = bytes / VMEMMAP_HUGE;
	pool.rng = seed;
	pool.on = true;
	pthread_mutex_unlock(&pool.lock);
	return 0;
}

/* Every free page unmapped, the pool then off if stop; mappings in use keep theirs. */
static void pool_drain(bool stop)
{
	pthread_mutex_lock(&pool.lock);
	while (pool.nr_free)
		munmap(pool.free[--pool.nr_free], VMEMMAP_HUGE);
	if (stop)
		pool.on = false;
	pthread_mutex_unlock(&pool.lock);
}

void vmemmap_pool_renew(void)
{
	pool_drain(false);
}

void vmemmap_pool_stop(void)
{
	pool_drain(true);
}

bool vmemmap_pool_on(void)
{
	bool on;

	pthread_mutex_lock(&pool.lock);
	on = pool.on;
	pthread_mutex_unlock(&pool.lock);
	return on;
}

void vmemmap_pool_stats(struct vmemmap_pool_stats *st)
{
	pthread_mutex_lock(&pool.lock);
	*st = (struct vmemmap_pool_stats){
		.target = pool.target * VMEMMAP_HUGE, .free = pool.nr_free * VMEMMAP_HUGE,
		.mapped = pool.mapped * VMEMMAP_HUGE, .drawn = pool.drawn * VMEMMAP_HUGE };
	pthread_mutex_unlock(&pool.lock);
}

int vmemmap_back(struct vmemmap *v, size_t upto, struct mdb_err *err)
{
	int ret = 0;

	if (upto > v->bytes)
		upto = v->bytes;
	/* Its caller is v's only writer (a build, or a carve under the cache's lock). */
	if (!v->pooled || v->backed >= upto)
		return 0;
	pthread_mutex_lock(&pool.lock);
	while (v->backed < upto) {
		char *dst = (char *)v->addr + v->backed;
		void *pg = pool_draw(err);

		if (!pg) {
			ret = -1;
			break;
		}
		if (mremap(pg, VMEMMAP_HUGE, VMEMMAP_HUGE, MREMAP_MAYMOVE | MREMAP_FIXED, dst) ==
		    MAP_FAILED) {
			ret = mdb_errf(err, "the vmemmap pool: mremap of a 2 MiB page: %s",
				       strerror(errno));
			pool.free[pool.nr_free++] = pg;
			break;
		}
		memset(dst, 0, VMEMMAP_HUGE);	/* as a fault hands it out */
		v->backed += VMEMMAP_HUGE;
	}
	pthread_mutex_unlock(&pool.lock);
	return ret;
}

/* Whether the pool gives v its pages: on, 2 MiB pages asked, nothing to bind. */
static bool pool_takes(const struct vmemmap *v, vmemmap_bind_fn *bind)
{
	return v->pages == MEMMAP_PAGES_2M && !bind && vmemmap_pool_on();
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
	if (pool_takes(v, bind)) {
		v->pooled = true;	/* the range stays PROT_NONE until vmemmap_back() */
		return 0;
	}
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
	if (v->pooled) {
		pthread_mutex_lock(&pool.lock);
		pool_park(v);
		pthread_mutex_unlock(&pool.lock);
	}
	if (v->resv)
		munmap(v->resv, v->resv_bytes);
	memset(v, 0, sizeof(*v));
}

/* A range whose smaps sizes add into *u. */
struct vmemmap_span {
	const void *addr;
	size_t len;
	struct vmemmap_usage *u;
};

/*
 * /proc/self/smaps: a header line "start-end perms ..." per VMA, then
 * "Key:   N kB" lines.  The sizes of every VMA that intersects a span count
 * into that span's usage; the guards make that exactly the mapping's own.
 * One read for all the spans: the kernel formats every VMA of the process
 * for each read, and a process with an HVO memmap has tens of thousands of
 * them (a read took tens of milliseconds, and a build read it once for
 * every descriptor cache mapping, twice).
 */
static int smaps_spans(const struct vmemmap_span *span, size_t n)
{
	unsigned long start, end, kb;
	bool in[VMEMMAP_MAX_SPANS] = { false }, any = false;
	char line[512];
	size_t i;
	FILE *f;

	if (n > VMEMMAP_MAX_SPANS)
		return -1;
	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char dash;

		/* Headers start with a lowercase hex digit, keys with a capital. */
		if (((line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f')) &&
		    sscanf(line, "%lx%c%lx ", &start, &dash, &end) == 3 && dash == '-') {
			any = false;
			for (i = 0; i < n; i++) {
				uintptr_t lo = (uintptr_t)span[i].addr;

				in[i] = span[i].len && start < lo + span[i].len && end > lo;
				any |= in[i];
			}
			continue;
		}
		if (!any)
			continue;
		if (sscanf(line, "Rss: %lu kB", &kb) == 1) {
			for (i = 0; i < n; i++)
				span[i].u->rss += in[i] ? kb << 10 : 0;
		} else if (sscanf(line, "AnonHugePages: %lu kB", &kb) == 1) {
			for (i = 0; i < n; i++)
				span[i].u->huge += in[i] ? kb << 10 : 0;
		}
	}
	fclose(f);
	return 0;
}

void vmemmap_settle_each(const struct vmemmap *const *v, const size_t *populated, size_t n)
{
	struct vmemmap_usage u[VMEMMAP_MAX_SPANS] = { { 0 } };
	struct vmemmap_span span[VMEMMAP_MAX_SPANS];
	size_t i, nr = 0;

	for (i = 0; i < n && nr < VMEMMAP_MAX_SPANS; i++) {
		if (v[i]->pages != MEMMAP_PAGES_2M || !populated[i])
			continue;
		span[nr] = (struct vmemmap_span){
			.addr = v[i]->addr, .u = &u[nr],
			.len = round_up(populated[i] < v[i]->bytes ? populated[i] : v[i]->bytes,
					VMEMMAP_HUGE) };
		nr++;
	}
	if (!nr || smaps_spans(span, nr))
		return;
	/* EINVAL before 6.1, EAGAIN or ENOMEM when memory is short: usage tells. */
	for (i = 0; i < nr; i++)
		if (u[i].huge < u[i].rss)
			(void)madvise((void *)span[i].addr, span[i].len, MADV_COLLAPSE);
}

void vmemmap_settle(const struct vmemmap *v, size_t populated)
{
	vmemmap_settle_each(&v, &populated, 1);
}

int vmemmap_usage_sum(const struct vmemmap *const *v, size_t n, struct vmemmap_usage *u)
{
	struct vmemmap_span span[VMEMMAP_MAX_SPANS];
	size_t i, nr = 0;

	if (n > VMEMMAP_MAX_SPANS)
		return -1;
	for (i = 0; i < n; i++)
		if (v[i]->addr)
			span[nr++] = (struct vmemmap_span){ .addr = v[i]->addr, .len = v[i]->bytes, .u = u };
	return nr ? smaps_spans(span, nr) : 0;
}

int vmemmap_usage(const struct vmemmap *v, struct vmemmap_usage *u)
{
	return vmemmap_usage_sum(&v, 1, u);
}

int vmemmap_usage_of(const void *addr, size_t len, struct vmemmap_usage *u)
{
	return smaps_spans(&(struct vmemmap_span){ .addr = addr, .len = len, .u = u }, 1);
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
