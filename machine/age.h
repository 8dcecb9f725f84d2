/* SPDX-License-Identifier: GPL-2.0 */
/*
 * age.h - a machine that has run for a while: the descriptor churn.
 *
 * A freshly placed mix allocates its descriptors pfn by pfn from empty
 * caches, so neighbouring folios have neighbouring descriptors, the best
 * case a prefetcher can ask for.  A machine that has run for days has freed
 * and allocated its folios over and over: each folio's descriptor is
 * whatever object the cache's freelists held when that folio was last
 * allocated, which has nothing to do with its pfn.  DESC_AGED reaches such
 * a state the way a machine does, by allocating and freeing: AGE_ROUNDS
 * rounds, each of which frees the descriptors of a random half of the
 * folios in random order, then allocates them again in another random order
 * interleaved with short-lived folios (a quarter as many, of the mix's
 * orders: page cache read once, a compiler's heap) that are freed at the
 * end of the round.  The machine itself does not change: every folio keeps
 * its pfns, kind and order, so every layout and both states describe the
 * same memory; only where the descriptors lie differs.
 *
 * The churn is driven from the mix's placement plan and the seed, never from
 * a layout's state: every layout sees the same events (the same pfns, in the
 * same order), and their digest says so.  Layout independent: compiled once.
 */
#ifndef MDB_AGE_H
#define MDB_AGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "mix.h"

#define AGE_ROUNDS		4
#define AGE_FRACTION_DEN	2	/* each round churns 1/2 of the folios */
#define AGE_TRANSIENT_DEN	4	/* and 1/4 as many short-lived folios */

enum desc_age {
	DESC_AGED,		/* after the allocation trace (age_trace_run()): the default */
	DESC_FRESH,		/* straight after placement, freelists randomised as kernels ship */
	DESC_FRESH_ORDERED,	/* straight after placement, objects in address order: the
				   unreachable best case (no distribution turns off
				   CONFIG_SLAB_FREELIST_RANDOM) */
	DESC_AGED_PERMUTE,	/* descriptors freed and made again in random order (age_churn()),
				   every folio kept at its pfn: the caches age, the memmap stays
				   as placed */
	DESC_TRACE,		/* a recorded trace replayed (struct age_replay): --desc-age=trace:FILE */
	DESC_AGE_NR
};

/* "aged", "fresh", "fresh-ordered", "aged-permute", "trace"; and back, -1 for anything else. */
const char *desc_age_name(enum desc_age age);
int desc_age_from_name(const char *name);

/* A placed folio, as the plan placed it. */
struct age_folio {
	uint32_t pfn;
	uint8_t order;
	uint8_t kind;		/* enum page_kind */
	uint16_t zero;		/* 0: no padding, so that lists compare whole (age_memo.c) */
};

struct age_list {
	struct age_folio *f;
	size_t nr, cap;
};

/* 0, or -1 when out of memory. */
int age_list_add(struct age_list *l, unsigned long pfn, unsigned int order, unsigned int kind);
void age_list_release(struct age_list *l);

/* What the churn does to a layout's memmap. */
struct age_ops {
	/* Free the folio's descriptor; its pages hold no folio until recreate. */
	void (*release)(void *arg, const struct age_folio *f);
	/* A new descriptor for the same pfns, as freshly created; 0 or -1 (out of memory). */
	int (*recreate)(void *arg, const struct age_folio *f);
	/* A descriptor for a short-lived folio of this order and kind; NULL if the layout has none. */
	void *(*transient_alloc)(void *arg, unsigned int order, unsigned int kind);
	void (*transient_free)(void *arg, void *desc, unsigned int order, unsigned int kind);
	void *arg;
};

/*
 * The churn over the folios of l, from seed.  *digest: a hash of every event
 * (kind, pfn, order) in order, the same for every layout given the same
 * list and seed.  0, or -1 when a recreate or the churn's own arrays ran
 * out of memory.
 */
int age_churn(const struct age_list *l, uint64_t seed, const struct age_ops *ops,
	      uint64_t *digest);

/*
 * A recorded trace (DESC_TRACE), read from a file of one event a line,
 * in one of two forms.  Folio events, replayed through the trace's buddy:
 *
 *	a ID ORDER KIND		allocate folio ID: ORDER 0..MAX_FOLIO_ORDER, KIND anon or file
 *	f ID			free folio ID, which an earlier line allocated
 *
 * ID is any unsigned number below 2^64 naming a live folio; it may be
 * allocated again once freed.  Or the kernel's own page events, placed at
 * its pfns (scripts/trace --ftrace writes them from mm_page_alloc,
 * mm_page_free, mm_page_pcpu_drain, mm_page_alloc_zone_locked and
 * mm_page_alloc_extfrag):
 *
 *	a PFN ORDER KIND MT	the kernel allocated 2^ORDER pages at PFN: ORDER
 *				0..MAX_PAGE_ORDER, KIND anon, file or kernel (no
 *				folio: slab, page tables, the rest), MT the
 *				allocation's migratetype (0 unmovable, 1 movable,
 *				2 reclaimable, as ftrace prints it)
 *	f PFN ORDER		it freed them (to its per-cpu lists when ORDER is
 *				one they keep: 0..3 and PAGEBLOCK_ORDER)
 *	d PFN ORDER		the per-cpu lists gave them to the buddy
 *	r PFN ORDER		the buddy gave them to the per-cpu lists
 *	m PFN MT		the pageblock holding PFN is now of type MT
 *
 * A placed trace needs no ID to be live: a free of pages allocated before
 * the recording began is what it says.  Fields are separated by spaces or
 * tabs; blank lines and lines starting with '#' are skipped.  A file holds
 * one form; anything else is refused with the file and line.
 */
struct age_event {
	uint32_t rec;		/* the allocation this event is about: 0, 1, ... in file order */
	uint32_t pfn;		/* a placed event's pfn */
	uint8_t order;
	uint8_t kind;		/* PK_ANON, PK_FILE, PK_RESERVED (placed kernel); AGE_*_EVENT */
	uint8_t mt;		/* a placed allocation's or pageblock's migratetype */
	uint8_t zero;
};

#define AGE_FREE_EVENT		0xfe
#define AGE_DRAIN_EVENT		0xfd	/* placed: per-cpu lists to the buddy */
#define AGE_REFILL_EVENT	0xfc	/* placed: the buddy to the per-cpu lists */
#define AGE_MT_EVENT		0xfb	/* placed: a pageblock's migratetype */

struct age_replay {
	char *path;			/* as given */
	char sha256[65];		/* of the file's bytes, hex */
	struct age_event *ev;
	size_t nr_events;
	bool placed;			/* the kernel's page events, at its pfns */
	unsigned long end_pfn;		/* placed: one past the highest pfn an event names */
	unsigned long nr_alloc, nr_free;	/* events of each verb */
	unsigned long alloc_by_order[BASE_PAGE_MAX_PAGE_ORDER + 1];	/* in base pages */
	unsigned long peak_pages;	/* the most pages the trace holds at once */
	unsigned long live_pages;	/* and at its end */
};

/* The trace in path, checked: 0, or -1 with err ("FILE:LINE: problem"). */
int age_replay_load(const char *path, struct age_replay *r, struct mdb_err *err);
void age_replay_release(struct age_replay *r);

/*
 * The allocation trace (DESC_AGED, DESC_TRACE), on a buddy allocator of the
 * trace's own (one zone, one CPU's per-cpu lists: __free_one_page()'s
 * merging, pcp lists that are LIFO and spill a batch from their cold end,
 * rmqueue_bulk() refills, __rmqueue_smallest() and expand()) that groups by
 * mobility: every pageblock has a migratetype, each allocation takes one
 * (anon, file and zsmalloc movable; slab half reclaimable, half unmovable;
 * the rest unmovable) and goes to its own type's blocks, raiding the
 * others as __rmqueue_claim() and __rmqueue_steal() do (age.c).
 *
 * Boot: the plan's blocks (folios lists every block but free and hugetlb
 * ones; free_blocks the free ones) are freed to the buddy and allocated
 * again through it, memblock's reservations first, so that the machine's
 * kinds lie as grouping by mobility puts them.  DESC_AGED boots them in an
 * order drawn from the seed, then runs AGE_ROUNDS rounds over its anon and
 * file folios in LRU order: each round frees the half allocated longest
 * ago, oldest first, and allocates them again among short-lived folios; the
 * other kinds live throughout.  DESC_TRACE boots the kept kinds in the
 * plan's order, gives the plan's anon and file folios to the buddy and
 * replays the recorded events instead: the folios it leaves live are the
 * machine's anon and file folios.  Hugetlb folios stay where the plan put
 * them.  A placed trace (the kernel's page events) is the whole machine:
 * the plan places nothing, every page starts held, and each event takes or
 * gives the kernel's own pfns (trace_placed() in age.c).
 *
 * Compaction (unless how->no_compaction): an allocation of order > 0 that
 * fails is retried after direct compaction; when the trace ends with no
 * free pageblock kcompactd compacts until there is one, and then
 * proactively while the fragmentation score is high (age.c).
 *
 * Layout independent: the events, the pfns and the digest are the same for
 * every layout; a layout replays the descriptor events (anon and file
 * folios' only) on its caches (ops) and places every block at its final
 * pfns.
 */
#define AGE_GONE	0xff	/* kind of a folio the buddy could not place again */

struct age_trace_ops {
	/*
	 * Descriptor id, for a folio of this order and kind (PK_ANON or
	 * PK_FILE: each has its caches): 0, or -1 out of memory.
	 */
	int (*desc_alloc)(void *arg, unsigned long id, unsigned int order, unsigned int kind);
	void (*desc_free)(void *arg, unsigned long id, unsigned int order, unsigned int kind);
	void *arg;
};

/* What the trace replays, and whether it compacts; NULL: the seeded trace, compacting. */
struct age_trace_how {
	const struct age_replay *replay;	/* DESC_TRACE's events, or NULL */
	bool no_compaction;
};

/* Pageblock migratetypes, as include/linux/mmzone.h numbers the first three. */
enum age_migratetype { AGE_MT_UNMOVABLE, AGE_MT_MOVABLE, AGE_MT_RECLAIMABLE, AGE_MT_NR };

/* "unmovable", "movable", "reclaimable". */
const char *age_migratetype_name(enum age_migratetype mt);

struct age_trace {
	/*
	 * The blocks at the end (kind AGE_GONE: nowhere): DESC_AGED's are the
	 * plan's, block i of the list as i; DESC_TRACE's those live at the end
	 * (descriptor ids mean something for anon and file folios only).
	 */
	struct age_folio *final;
	unsigned long *final_desc;	/* each one's descriptor id; ULONG_MAX: none (not anon or file) */
	size_t nr_final;
	struct age_list free;		/* the free blocks at the end, pfn order */
	unsigned long nr_ids;		/* descriptor ids handed out: 0 .. nr_ids - 1 */
	unsigned long failures;		/* allocations the buddy could not serve */
	unsigned long compactions;	/* pageblocks compaction emptied */
	unsigned long migrated;		/* folios it moved to do so */
	unsigned long pageblocks[AGE_MT_NR];	/* pageblocks of each type at the end */
	/* Buddy blocks at the end by order and the list they are on (/proc/pagetypeinfo's table). */
	unsigned long free_blocks[BASE_PAGE_MAX_PAGE_ORDER + 1][AGE_MT_NR];
	unsigned long pcp_pages;	/* placed: on the per-cpu lists at the end, not in free_blocks */
	unsigned long conflicts;	/* placed: allocations over pages the replay held */
	uint64_t digest;		/* of every event: the same for every layout */
};

/*
 * Runs the trace over the plan's folios and free blocks on nr_pfns pfns.
 * 0, or -1 out of memory (t then still to release).
 */
int age_trace_run(const struct age_list *folios, const struct age_list *free_blocks,
		  unsigned long nr_pfns, uint64_t seed, const struct age_trace_how *how,
		  const struct age_trace_ops *ops, struct age_trace *t);
void age_trace_release(struct age_trace *t);

#endif /* MDB_AGE_H */
