/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ws.h - a kernel's working set: the metadata bytes its walk touches on one
 * layout, computed from the mix's blocks (model.h) and the layout's sizes.
 *
 * The pfns the walk reaches (the kernel's .ws, enum mdb_ws_reach) cost
 * sizeof(struct page) each; each block they lie in costs its descriptor
 * objects as the layout's caches lay them out (layout_desc_sizes(): bytes
 * between objects): one per folio, slab or page-pool block, one per page of
 * the per-page kinds (page tables, zsmalloc).  A sampled walk (.ws_sampled,
 * a random list) reaches at most BENCH_LIST_MAX of those pfns: both parts
 * scale by that share of them.  HVO's remapping is not subtracted.
 */
#ifndef MDB_WS_H
#define MDB_WS_H

#include <stdint.h>

#include "kernel.h"
#include "model.h"

/* Bytes of kernel k's working set on layout ops over blocks b, small folios of folio_desc_bytes (0: own). */
uint64_t mdb_working_set(const struct mdb_kernel *k, const struct layout_ops *ops,
			 const struct model_blocks *b, unsigned int folio_desc_bytes);

#endif /* MDB_WS_H */
