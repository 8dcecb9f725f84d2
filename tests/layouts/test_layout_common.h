/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_layout_common.h - what the layout tests share: CHECK (from
 * test_common.h), the test mix (every kind, folios of every order 0..9,
 * 2 MiB hugetlb folios), and
 * a census of a memmap through the layout-independent page_info().
 */
#ifndef MDB_TEST_LAYOUT_COMMON_H
#define MDB_TEST_LAYOUT_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "test_common.h"

#define TEST_NR_PFNS	65536UL		/* 256 MiB of modelled RAM, 128 pageblocks */
#define TEST_SEED	0x5eed

/* Every kind; anon and file folios at every order; sums to 1. */
static inline void test_mix(struct mix *mix)
{
	static const struct { enum page_kind kind; unsigned int order; double fraction; } e[] = {
		{ PK_FREE, 9, 0.06 }, { PK_FREE, 3, 0.02 }, { PK_FREE, 0, 0.02 },
		{ PK_HUGETLB, 9, 0.04 },
		{ PK_SLAB, 0, 0.03 }, { PK_SLAB, 1, 0.02 }, { PK_SLAB, 3, 0.03 },
		{ PK_PGTABLE, 0, 0.04 }, { PK_PGTABLE, 1, 0.01 },
		{ PK_ZSMALLOC, 0, 0.02 }, { PK_ZSMALLOC, 2, 0.01 },
		{ PK_NETMEM, 0, 0.02 }, { PK_NETMEM, 2, 0.01 },
		{ PK_RESERVED, 0, 0.03 }, { PK_RESERVED, 9, 0.04 },
	};
	unsigned int i, order;

	memset(mix, 0, sizeof(*mix));
	snprintf(mix->name, sizeof(mix->name), "layout-test");
	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		mix->entry[mix->nr++] = (struct mix_entry){ e[i].kind, e[i].order, e[i].fraction };
	for (order = 0; order <= MAX_FOLIO_ORDER; order++) {
		mix->entry[mix->nr++] = (struct mix_entry){ PK_ANON, order, 0.03 };
		mix->entry[mix->nr++] = (struct mix_entry){ PK_FILE, order, 0.03 };
	}
}

static inline int page_info_equal(const struct page_info *a, const struct page_info *b)
{
	return a->kind == b->kind && a->head_pfn == b->head_pfn && a->order == b->order &&
	       a->refcount == b->refcount && a->mapcount == b->mapcount && a->flags == b->flags &&
	       a->mapping == b->mapping && a->index == b->index;
}

/* buf, describing pi: called in a CHECK's message, so only when the check fails. */
static inline const char *page_info_str(const struct page_info *pi, char *buf, size_t len)
{
	snprintf(buf, len, "%s head %lu order %u ref %d map %d flags %#x mapping %#lx index %lu",
		 page_kind_name(pi->kind), pi->head_pfn, pi->order, pi->refcount, pi->mapcount,
		 pi->flags, (unsigned long)pi->mapping, pi->index);
	return buf;
}

/* Which units a plan places, as page_info reports them: a folio, slab or
 * netmem block, a free block, or one page per unit for the other kinds. */
static inline int kind_is_compound(enum page_kind kind)
{
	return page_kind_is_folio(kind) || kind == PK_SLAB || kind == PK_NETMEM || kind == PK_FREE;
}

static inline void create_or_die(const struct layout_ops *ops, struct memmap **mm,
				 unsigned long nr_pfns, const struct mix *mix,
				 const struct memmap_opts *opts)
{
	struct mdb_err err = { { 0 } };

	if (ops->memmap_create(mm, nr_pfns, mix, opts, &err)) {
		fprintf(stderr, "%s: memmap_create(%lu): %s\n", ops->name, nr_pfns, err.msg);
		exit(1);
	}
}

#endif /* MDB_TEST_LAYOUT_COMMON_H */
