/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmemmap.h - how a memmap and the descriptor caches are mapped, and what
 * the kernel actually gave.
 *
 * x86-64 maps the vmemmap with PMD (2 MiB) pages wherever it can
 * (vmemmap_populate_hugepages()), and slab objects live in the direct map,
 * which uses 1 GiB or 2 MiB pages.  A user-space model of either is an
 * anonymous mapping backed by transparent huge pages: MEMMAP_PAGES_2M asks
 * for them (MADV_HUGEPAGE before the first touch, MADV_COLLAPSE afterwards
 * for whatever the fault path left in 4 KiB pages), MEMMAP_PAGES_4K forbids
 * them (MADV_NOHUGEPAGE, so that THP "always" cannot hand out any either).
 * What was obtained is read back from /proc/self/smaps (Rss and
 * AnonHugePages of the mapping's VMA): asking is not getting, and a run
 * must never report 4 KiB pages as 2 MiB ones.
 *
 * Every mapping is its own VMA: it sits between two PROT_NONE guard pages,
 * so the kernel cannot merge it with a neighbour and smaps speaks of it
 * alone.  Layout independent: compiled once.  HVO's memmap (hvo.h) is the
 * same reservation made a shared mapping of a memfd instead
 * (vmemmap_populate_shared()).
 */
#ifndef MDB_VMEMMAP_H
#define MDB_VMEMMAP_H

#include <stdbool.h>
#include <stddef.h>

struct mdb_err;

#define VMEMMAP_HUGE		(2UL << 20)	/* PMD_SIZE on x86-64 */

enum memmap_pages {
	MEMMAP_PAGES_2M,	/* as the kernel maps vmemmap: the default */
	MEMMAP_PAGES_4K,	/* no huge page anywhere: the TLB's worst case */
	MEMMAP_PAGES_NR
};

/* "2m", "4k"; and back, -1 for anything else. */
const char *memmap_pages_name(enum memmap_pages pages);
int memmap_pages_from_name(const char *name);

/* Called after mmap, before the first touch (NUMA binding); may be NULL. */
typedef int vmemmap_bind_fn(void *addr, size_t len, void *arg);

struct vmemmap {
	void *addr;			/* the usable range: 2 MiB aligned for 2m */
	size_t bytes;			/* its length: whole pages of the asked size */
	enum memmap_pages pages;
	void *resv;			/* what mmap returned, guards included */
	size_t resv_bytes;
	bool pooled;			/* its 2 MiB pages come from the pool (below) */
	size_t backed;			/* pooled: the bytes from addr that have pages */
};

/*
 * The pool.  On this suite's development VM the latency of a random walk
 * depends on where in guest-physical memory a mapping lands: 256 MiB
 * ranges of one process measured 166-279 ns a hop, each the same on every
 * repetition (the host backs the guest's memory unevenly), so two builds
 * of one memmap differed by up to 1.6x and a layout's round by its luck.
 * With the pool on, every 2 MiB page of an unbound 2m mapping is one drawn
 * at random from pages the process keeps (mremap() moves it, huge page and
 * all, and back when the mapping goes): each build spreads over the same
 * memory, and twelve 256 MiB builds so made ran 198-219 ns.  A page is
 * drawn when the mapping needs it (vmemmap_back()), as the fault path
 * would give it, and zeroed as the fault path gives it.  Off until
 * vmemmap_pool_start() (mdbench starts it unless --memmap-pool=off), every
 * mapping is faulted in where the kernel puts it.
 *
 * vmemmap_pool_start(bytes, seed): at least bytes of free pages to draw
 * from beside those in use (rounded to 2 MiB pages; grown 64 pages at a
 * time, given back to the kernel past twice that); 0 or -1 with err.
 * vmemmap_pool_stop(): every free page unmapped, the pool off; a mapping
 * still holding pages gives them back when unmapped.
 *
 * vmemmap_pool_renew(): every free page unmapped, the pool still on: the
 * next draws map memory the kernel (and the host behind it) hands out
 * anew.  mdbench renews it as each round begins.  Kept for a whole run,
 * the pool's pages are one draw of the machine's memory for every round
 * of that run, and a draw favours some layouts over others: over four
 * processes of six rounds at 16 GiB the rows' trimmed means stood apart
 * 2.65 times as far (mean over 20 rows of the variance between processes
 * over each one's squared standard error) as the rounds said they could,
 * and 1.29 with the pool renewed every round, at the same width within a
 * process (median standard error 0.0095 kept, 0.0091 renewed) and 5-8%
 * more time (docs/conditions.md, "A build's memory").
 */
struct vmemmap_pool_stats {
	size_t target;			/* bytes kept free to draw from */
	size_t free;			/* bytes free now */
	size_t mapped;			/* bytes mmap()ed for the pool, ever */
	size_t drawn;			/* bytes drawn, ever */
};

int vmemmap_pool_start(size_t bytes, unsigned long long seed, struct mdb_err *err);
void vmemmap_pool_stop(void);
void vmemmap_pool_renew(void);
bool vmemmap_pool_on(void);
void vmemmap_pool_stats(struct vmemmap_pool_stats *st);
/*
 * Pages for v's first upto bytes (a pooled mapping; nothing for another):
 * 0, or -1 with err when the pool could not grow.
 */
int vmemmap_back(struct vmemmap *v, size_t upto, struct mdb_err *err);

/* What /proc/self/smaps says of one or more mappings. */
struct vmemmap_usage {
	size_t rss;			/* resident bytes */
	size_t huge;			/* of which in transparent huge pages (AnonHugePages) */
};

/*
 * Reserves at least bytes (rounded up to whole pages of the asked size),
 * aligned to them, between guard pages, inaccessible: for a caller that maps
 * its own memory there with MAP_FIXED (a memfd whose pages appear more than
 * once, as HVO's vmemmap does).  0, or -1 with err.
 */
int vmemmap_reserve(struct vmemmap *v, size_t bytes, enum memmap_pages pages, struct mdb_err *err);
/*
 * The same with the usable range aligned to align bytes (a power of 2; no
 * less than the pages asked for): page64ci's heads must lie naturally
 * aligned to their folio in the vmemmap.
 */
int vmemmap_reserve_aligned(struct vmemmap *v, size_t bytes, enum memmap_pages pages, size_t align,
			    struct mdb_err *err);
/*
 * The reserved range made anonymous memory, lazily populated, advised as
 * its pages ask; bind runs before the first touch.  With the pool on, an
 * unbound 2m range is pooled instead: no page until vmemmap_back() asks.
 * 0, or -1 with err (nothing left mapped, the reservation included).
 */
int vmemmap_populate(struct vmemmap *v, vmemmap_bind_fn *bind, void *bind_arg, struct mdb_err *err);
/*
 * The reserved range (of 4 KiB pages) made a shared mapping of the file fd
 * from offset 0, read-write, lazily populated; bind runs before the first
 * touch.  HVO's memmap (hvo.h): a memfd whose pages can then be mapped more
 * than once.  0, or -1 with err (nothing left mapped, the reservation
 * included; fd stays open).
 */
int vmemmap_populate_shared(struct vmemmap *v, int fd, vmemmap_bind_fn *bind, void *bind_arg,
			    struct mdb_err *err);
/* vmemmap_reserve(), then vmemmap_populate(). */
int vmemmap_map(struct vmemmap *v, size_t bytes, enum memmap_pages pages, vmemmap_bind_fn *bind,
		void *bind_arg, struct mdb_err *err);
void vmemmap_unmap(struct vmemmap *v);
/*
 * Once the first populated bytes are written: for 2m, collapse into huge
 * pages whatever the fault path left in small ones (MADV_COLLAPSE, Linux
 * 6.1+; it may fail, which usage then shows).  Nothing for 4k.
 */
void vmemmap_settle(const struct vmemmap *v, size_t populated);
/* Adds the mapping's resident and huge bytes to *u.  0, or -1 if smaps cannot be read. */
int vmemmap_usage(const struct vmemmap *v, struct vmemmap_usage *u);
/* The same for any range: the VMAs of /proc/self/smaps that intersect it. */
int vmemmap_usage_of(const void *addr, size_t len, struct vmemmap_usage *u);

/*
 * The same for several mappings (at most VMEMMAP_MAX_SPANS) in one read of
 * smaps, which costs a pass over every VMA of the process: settle each
 * v[i] up to populated[i]; add every v[i]'s bytes into one *u.
 */
#define VMEMMAP_MAX_SPANS	256
void vmemmap_settle_each(const struct vmemmap *const *v, const size_t *populated, size_t n);
int vmemmap_usage_sum(const struct vmemmap *const *v, size_t n, struct vmemmap_usage *u);
/* Advises an existing mapping (a kernel's own buffer) as pages asks; 0 or -1. */
int vmemmap_advise(void *addr, size_t len, enum memmap_pages pages);

/* The transparent_hugepage "enabled" mode in effect: "always", "madvise", "never", or NULL. */
const char *vmemmap_thp_mode(char *buf, size_t len);

#endif /* MDB_VMEMMAP_H */
