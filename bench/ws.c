// SPDX-License-Identifier: GPL-2.0
/*
 * ws.c - a kernel's working set on a layout (see ws.h).  Layout
 * independent: compiled once, works through struct layout_ops.
 */
#include "bench.h"
#include "ws.h"

/* Pages of a (kind, order) block that the walk reaches. */
static unsigned long reached_pages(enum mdb_ws_reach ws, unsigned int kind, unsigned int order)
{
	unsigned long pages = 1UL << order, tails = pages - 1;

	switch (ws) {
	case MDB_WS_ALL:
		return pages;
	case MDB_WS_NONE:
		return 0;
	case MDB_WS_FOLIOS:
		return page_kind_is_folio(kind) ? pages : 0;
	case MDB_WS_FOLIO_TAILS:
		return page_kind_is_folio(kind) ? tails : 0;
	case MDB_WS_HUGETLB:
		return kind == PK_HUGETLB ? pages : 0;
	case MDB_WS_HUGETLB_TAILS_2M:
		return kind == PK_HUGETLB && order == HUGETLB_ORDER_PMD ? tails : 0;
	case MDB_WS_HUGETLB_TAILS_1G:
		return kind == PK_HUGETLB && order == HUGETLB_ORDER_PUD ? tails : 0;
	}
	return 0;
}

/* Descriptor bytes of a (kind, order) block, objects at obj[] apart. */
static uint64_t block_desc_bytes(const size_t obj[DESC_NR], unsigned int kind, unsigned int order)
{
	switch (kind) {
	case PK_ANON:
	case PK_FILE:
	case PK_HUGETLB:
		return obj[folio_desc_type(kind, order)];
	case PK_SLAB:
		return obj[DESC_SLAB];
	case PK_NETMEM:
		return obj[DESC_BUMP];
	case PK_PGTABLE:
		return (uint64_t)obj[DESC_PTDESC] << order;
	case PK_ZSMALLOC:
		return (uint64_t)obj[DESC_ZPDESC] << order;
	default:
		return 0;
	}
}

uint64_t mdb_working_set(const struct mdb_kernel *k, const struct layout_ops *ops,
			 const struct model_blocks *b, unsigned int folio_desc_bytes)
{
	size_t obj[DESC_NR], acct[DESC_NR];
	uint64_t pages = 0, desc = 0, bytes;
	struct mdb_err err;
	unsigned int kind, o;

	/* At the default --large-desc: it moves a large folio's descriptor by 48 bytes at most. */
	if (layout_desc_sizes(ops->desc_size, folio_desc_bytes, LARGE_DESC_PLAN, obj, acct, &err))
		layout_desc_sizes(ops->desc_size, 0, LARGE_DESC_PLAN, obj, acct, &err);
	for (kind = 0; kind < PK_NR; kind++)
		for (o = 0; o < MIX_NR_ORDERS; o++) {
			unsigned long n = b->nr[kind][o], reached = reached_pages(k->ws, kind, o);

			if (!n || !reached)
				continue;
			pages += (uint64_t)n * reached;
			desc += n * block_desc_bytes(obj, kind, o);
		}
	bytes = pages * ops->page_size + desc;
	if (k->ws_sampled && pages > BENCH_LIST_MAX)
		return (uint64_t)((double)bytes * BENCH_LIST_MAX / (double)pages);
	return bytes;
}
