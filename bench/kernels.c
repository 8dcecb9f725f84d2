// SPDX-License-Identifier: GPL-2.0
/*
 * kernels.c - this layout's kernels, in the order the driver registers them.
 * Compiled once per layout, like the kernels themselves.
 */
#include "kernel.h"

extern const struct mdb_kernel LAYOUT_SYM(k_pfn_to_page), LAYOUT_SYM(k_page_to_pfn),
	LAYOUT_SYM(k_lookup_seq), LAYOUT_SYM(k_lookup_random), LAYOUT_SYM(k_folio_tail),
	LAYOUT_SYM(k_scan_compaction), LAYOUT_SYM(k_folio_getput), LAYOUT_SYM(k_init_memmap),
	LAYOUT_SYM(k_alloc_order0), LAYOUT_SYM(k_alloc_order9), LAYOUT_SYM(k_migrate_order0),
	LAYOUT_SYM(k_migrate_order9), LAYOUT_SYM(k_footprint);

const struct mdb_kernel *const LAYOUT_SYM(kernels)[] = {
	&LAYOUT_SYM(k_pfn_to_page),
	&LAYOUT_SYM(k_page_to_pfn),
	&LAYOUT_SYM(k_lookup_seq),
	&LAYOUT_SYM(k_lookup_random),
	&LAYOUT_SYM(k_folio_tail),
	&LAYOUT_SYM(k_scan_compaction),
	&LAYOUT_SYM(k_folio_getput),
	&LAYOUT_SYM(k_init_memmap),
	&LAYOUT_SYM(k_alloc_order0),
	&LAYOUT_SYM(k_alloc_order9),
	&LAYOUT_SYM(k_migrate_order0),
	&LAYOUT_SYM(k_migrate_order9),
	&LAYOUT_SYM(k_footprint),
	NULL
};
