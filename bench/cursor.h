/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cursor.h - a value a kernel keeps per memmap build: where a scanner
 * resumes, as compaction resumes its scanners from
 * zone->compact_cached_migrate_pfn and compact_cached_free_pfn
 * (mm/compaction.c, update_cached_migrate() and isolate_freepages()) rather
 * than from the zone's start each time, or whether a build was set up.
 * Keyed by the memmap's serial, which no other build reuses: a new build
 * starts afresh.  A round's layouts and the reference's twin run
 * interleaved, so several builds are in use at once: BUILD_SLOTS of them
 * are kept, the least recently used given up for a new one.  Not for
 * threaded kernels.
 */
#ifndef MDB_CURSOR_H
#define MDB_CURSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"

#define BUILD_SLOTS	16

struct build_slots {
	struct {
		uint64_t serial;	/* the build it is kept for; 0: none */
		uint64_t used;		/* when last asked for (clock) */
		unsigned long value;
	} s[BUILD_SLOTS];
	uint64_t clock;
};

/*
 * The value kept for mm's build; on its first use (*fresh true) a slot of
 * its own with value 0, in place of the least recently used.
 */
static inline unsigned long *build_slot(struct build_slots *b, const struct memmap *mm,
					bool *fresh)
{
	unsigned int i, lru = 0;

	b->clock++;
	for (i = 0; i < BUILD_SLOTS; i++) {
		if (b->s[i].serial == mm->serial) {
			b->s[i].used = b->clock;
			*fresh = false;
			return &b->s[i].value;
		}
		if (b->s[i].used < b->s[lru].used)
			lru = i;
	}
	b->s[lru].serial = mm->serial;
	b->s[lru].used = b->clock;
	b->s[lru].value = 0;
	*fresh = true;
	return &b->s[lru].value;
}

/* The pfn a scanner resumes at on mm's nr_pfns: where it stopped, 0 on a new build or past the end. */
static inline unsigned long *scan_cursor(struct build_slots *b, const struct memmap *mm,
					 unsigned long nr_pfns)
{
	bool fresh;
	unsigned long *pfn = build_slot(b, mm, &fresh);

	if (*pfn >= nr_pfns)
		*pfn = 0;
	return pfn;
}

#endif /* MDB_CURSOR_H */
