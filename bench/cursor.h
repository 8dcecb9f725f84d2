/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cursor.h - where a scanner resumes on a memmap, as compaction resumes its
 * scanners from zone->compact_cached_migrate_pfn and compact_cached_free_pfn
 * (mm/compaction.c, update_cached_migrate() and isolate_freepages()) rather
 * than from the zone's start each time.  Keyed by the memmap's serial, which
 * no other build reuses: a new build starts at pfn 0.
 */
#ifndef MDB_CURSOR_H
#define MDB_CURSOR_H

#include <stdint.h>

#include "layout.h"

struct scan_cursor {
	uint64_t serial;		/* the build it is a place on */
	unsigned long pfn;		/* where the next call starts */
};

/* The pfn the scanner resumes at on mm's nr_pfns: where it stopped, or 0 on another build. */
static inline unsigned long *scan_cursor(struct scan_cursor *c, const struct memmap *mm,
					 unsigned long nr_pfns)
{
	if (c->serial != mm->serial || c->pfn >= nr_pfns)
		*c = (struct scan_cursor){ .serial = mm->serial };
	return &c->pfn;
}

#endif /* MDB_CURSOR_H */
