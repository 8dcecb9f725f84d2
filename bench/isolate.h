/* SPDX-License-Identifier: GPL-2.0 */
/*
 * isolate.h - isolate_migratepages_block()'s take of an LRU folio, which
 * scan/compaction (scan.c, put back at once) and compaction/cluster
 * (compaction.c, off the LRU and migrated) both run.  For files compiled
 * once per layout.
 */
#ifndef MDB_ISOLATE_H
#define MDB_ISOLATE_H

#include "layout.h"
#include "mdb.h"

/*
 * folio_get_nontail_page() (folio_try_get()), folio_mapping() and the
 * pinned-anon check (folio_ref_count() - 1 > folio_mapcount()),
 * folio_test_lru(), folio_test_dirty(), folio_test_clear_lru(): true with
 * the reference held and PG_lru cleared; false where isolation gives up
 * (the reference dropped again).
 */
static inline bool isolate_take(struct folio *folio)
{
	uintptr_t mapping;
	bool dirty;

	if (!folio_try_get(folio))
		return false;
	mapping = folio_kind(folio) == PK_ANON ? 0 : folio_mapping(folio);
	if (!mapping && folio_ref_count(folio) - 1 > folio_mapcount(folio))
		goto put;
	if (!folio_test_flag(folio, PG_lru))
		goto put;
	dirty = folio_test_flag(folio, PG_dirty);
	mdb_do_not_optimize(dirty);
	if (!folio_test_clear_flag(folio, PG_lru))
		goto put;
	return true;
put:
	folio_put(folio);
	return false;
}

#endif /* MDB_ISOLATE_H */
