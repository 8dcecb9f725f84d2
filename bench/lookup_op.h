/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lookup_op.h - one op of the lookup kernels: pfn -> page -> what it is, one
 * flag, its reference count (see lookup.c), for every kernel that asks those
 * questions (lookup/seq, lookup/random, lookup/random-hugetlb).  Included by
 * files compiled once per layout.
 */
#ifndef MDB_LOOKUP_OP_H
#define MDB_LOOKUP_OP_H

#include "kernel.h"

static inline void lookup_one(const struct memmap *mm, unsigned long pfn)
{
	const struct page *page = pfn_to_page(mm, pfn);
	enum page_kind kind = page_kind(mm, page);
	bool dirty = page_test_flag(mm, page, PG_dirty);
	int ref = page_ref_count(mm, page);

	mdb_do_not_optimize(kind);
	mdb_do_not_optimize(dirty);
	mdb_do_not_optimize(ref);
}

#endif /* MDB_LOOKUP_OP_H */
