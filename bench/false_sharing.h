/* SPDX-License-Identifier: GPL-2.0 */
/*
 * false_sharing.h - which written field of a folio shares a cache line with
 * a written field of its neighbour, computed from each layout's own structs.
 *
 * Many CPUs write a few folio fields: _refcount (folio_get(), folio_put(),
 * GUP, the page cache's lookups), flags (folio_lock(), the LRU and dirty
 * bits: atomic bit operations) and _mapcount (mapping and unmapping).  When
 * a folio's field and its neighbour's share a 64-byte line, two CPUs each on
 * its own folio still pass that line back and forth.  Who the neighbour is
 * depends on where the folio lives:
 *
 *  - a separately allocated descriptor (page32, memdesc8): the next object
 *    of its slab, the slab's objects end to end from a page boundary at the
 *    cache's object size (desc_slab_geometry()); small and large folios
 *    have caches of their own;
 *  - a folio that overlays the memmap (page64): the next struct page, the
 *    memmap starting on a page boundary.
 *
 * A pair's first object starts at some offset in its line (line_offset); for
 * each offset the table says which fields share a line and what fraction of
 * the neighbouring pairs start there.  The offsets and sizes come from each
 * layout's struct folio (FALSE_SHARING_FIELDS in a unit compiled per layout:
 * offsetof, as MODEL_FIELD), the strides from its descriptor sizes: nothing
 * is copied by hand.  A large folio's descriptor starts with struct folio
 * (page_folio() returns a struct folio * for every folio), so its fields
 * are at the same offsets.
 */
#ifndef MDB_FALSE_SHARING_H
#define MDB_FALSE_SHARING_H

/* The kernel that times what the table predicts: threads on neighbouring folios. */
#define FS_KERNEL_NAME	"folio/getput-neighbours"

#include "layout.h"

#define FS_LINE			64
#define FS_MAX_FIELDS		4
#define FS_MAX_ROWS		256

struct fs_field {
	const char *name;
	unsigned short off, len;
};

/* One layout's written folio fields, registered from a unit compiled for it. */
struct fs_fields {
	const struct layout_ops *layout;
	unsigned int nr;
	struct fs_field f[FS_MAX_FIELDS];
};

#define FS_FIELD(member)							\
	{ #member, offsetof(struct folio, member), sizeof(((struct folio *)0)->member) }

/* In a unit compiled per layout: FALSE_SHARING_FIELDS(FS_FIELD(flags), ...); */
#define FALSE_SHARING_FIELDS(...)						\
	static const struct fs_fields fs_fields_entry = {			\
		.layout = &LAYOUT_SYM(ops),					\
		.nr = sizeof((struct fs_field[]){ __VA_ARGS__ }) / sizeof(struct fs_field), \
		.f = { __VA_ARGS__ },						\
	};									\
	static const struct fs_fields *const fs_fields_ptr			\
	__attribute__((used, section("mdb_fs_fields"), aligned(sizeof(void *)))) = &fs_fields_entry

/*
 * One row: for neighbouring objects whose first starts line_offset bytes
 * into its line (a fraction pairs of all neighbouring pairs), hot_field of
 * the first shares line (counted from the first's line) with
 * neighbour_field of the second; offsets from the first object's start.
 * An offset at which nothing shares has one row with both fields NULL.
 */
struct fs_row {
	const char *layout;
	const char *object;		/* "folio descriptor", "large folio descriptor", "struct page" */
	const char *desc_cache;		/* the cache option (desc_cache.h) of a descriptor's row; NULL for struct page */
	unsigned int stride;		/* bytes from an object to its neighbour */
	unsigned int line_offset;
	double pairs;
	const char *hot_field, *neighbour_field;
	unsigned int hot_offset, neighbour_offset, line;
};

/*
 * The rows of a layout, at most max, for its small folio descriptors of
 * folio_desc_bytes (0: its own size; memmap_opts' meaning), its caches made
 * as cache says (their stride).  The count, or -1 when the layout
 * registered no fields.
 */
int false_sharing_rows(const struct layout_ops *ops, unsigned int folio_desc_bytes,
		       enum desc_cache_kind cache, struct fs_row *rows, unsigned int max);

#endif /* MDB_FALSE_SHARING_H */
