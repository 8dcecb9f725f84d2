/* SPDX-License-Identifier: GPL-2.0 */
/*
 * data.h - memory behind the modelled pfns, for the kernels that touch a
 * folio's data (zeroing after allocation, copying on migration).
 *
 * The modelled RAM has no contents, and backing all of it would cost as
 * much memory as it models, so pfns share a window: pfn's page is at
 * (pfn x 4 KiB) mod the window's size, a power of two at least four times
 * the last-level cache (64 MiB to 1 GiB).  Naturally aligned blocks stay
 * contiguous in it.  A folio freed and allocated again (the LIFO batches of
 * the alloc kernels) finds its data where it left it, still cached as the kernel's
 * per-cpu lists intend; pages of random folios (the migrate kernels) and the 2 MiB of
 * a THP come from DRAM, as they would.  Transparent huge pages are asked
 * for, as the kernel's direct map is mapped with huge pages.
 *
 * Zeroing and copying are the kernel's x86-64 routines (clear_page_erms or
 * clear_page_rep, copy_page's rep movsq) page by page, as kernel_init_pages()
 * / folio_zero_user() and folio_copy() go; memset and memmove elsewhere.
 * Compiled once.
 */
#ifndef MDB_DATA_H
#define MDB_DATA_H

#include <stddef.h>

#include "basepage.h"

struct bench_data {
	char *buf;		/* 2 MiB aligned */
	size_t bytes;		/* a power of two, a multiple of 2 MiB */
	void *map;		/* the mapping, with room to align buf */
	size_t map_bytes;
};

/* 0, or -1 when the window cannot be mapped. */
int bench_data_map(struct bench_data *d);
void bench_data_unmap(struct bench_data *d);

static inline void *bench_data_page(const struct bench_data *d, unsigned long pfn)
{
	return d->buf + ((pfn << mdb_base.shift) & (d->bytes - 1));
}

/* clear_page() on 2^order pages of pfn's data. */
void bench_data_clear(const struct bench_data *d, unsigned long pfn, unsigned int order);
/* copy_page() of 2^order pages, src's data to dst's. */
void bench_data_copy(const struct bench_data *d, unsigned long dst, unsigned long src,
		     unsigned int order);

#endif /* MDB_DATA_H */
