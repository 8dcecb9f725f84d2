// SPDX-License-Identifier: GPL-2.0
/*
 * age.c - the descriptor churn that ages a machine (see age.h).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "age.h"
#include "grow.h"
#include "mix.h"
#include "pcp.h"
#include "rng.h"
#include "units.h"

#define AGE_SALT	0x61676564ULL	/* "aged": the churn's draws differ from the plan's */
#define FNV_OFFSET	0xcbf29ce484222325ULL
#define FNV_PRIME	0x100000001b3ULL

static const char *const age_name[DESC_AGE_NR] = {
	[DESC_AGED] = "aged",
	[DESC_FRESH] = "fresh",
	[DESC_FRESH_ORDERED] = "fresh-ordered",
	[DESC_AGED_PERMUTE] = "aged-permute",
	[DESC_TRACE] = "trace",
};

const char *desc_age_name(enum desc_age age)
{
	return mdb_name_of(age_name, DESC_AGE_NR, age);
}

const char *age_migratetype_name(enum age_migratetype mt)
{
	static const char *const name[AGE_MT_NR] = {
		[AGE_MT_UNMOVABLE] = "unmovable",
		[AGE_MT_MOVABLE] = "movable",
		[AGE_MT_RECLAIMABLE] = "reclaimable",
	};

	return mdb_name_of(name, AGE_MT_NR, mt);
}

int desc_age_from_name(const char *name)
{
	return mdb_parse_name(name, age_name, DESC_AGE_NR);
}

int age_list_add(struct age_list *l, unsigned long pfn, unsigned int order, unsigned int kind)
{
	struct age_folio *f = mdb_grow(l->f, &l->cap, l->nr + 1, sizeof(*f));

	if (!f)
		return -1;
	l->f = f;
	l->f[l->nr++] = (struct age_folio){ .pfn = (uint32_t)pfn, .order = (uint8_t)order,
					    .kind = (uint8_t)kind };
	return 0;
}

void age_list_release(struct age_list *l)
{
	free(l->f);
	memset(l, 0, sizeof(*l));
}

/* FNV-1a over one event. */
static void hash_event(uint64_t *h, char what, uint32_t pfn, unsigned int order)
{
	uint64_t v[2] = { (uint64_t)(unsigned char)what << 8 | order, pfn };
	const unsigned char *p = (const unsigned char *)v;

	for (size_t i = 0; i < sizeof(v); i++)
		*h = (*h ^ p[i]) * FNV_PRIME;
}

static void swap_u32(uint32_t *a, uint32_t *b)
{
	uint32_t t = *a;

	*a = *b;
	*b = t;
}

struct transient {
	void *desc;
	unsigned int order, kind;
};

/* One round: free k folios' descriptors, allocate them again among t short-lived ones. */
static int age_round(const struct age_list *l, uint32_t *idx, struct transient *tr, size_t k,
		     size_t t, uint64_t *rng, const struct age_ops *ops, uint64_t *h)
{
	size_t n = l->nr, i, rec = 0, made = 0;

	for (i = 0; i < k; i++)		/* k distinct folios, in random order */
		swap_u32(&idx[i], &idx[i + mdb_rng_below(rng, n - i)]);
	for (i = 0; i < k; i++) {
		const struct age_folio *f = &l->f[idx[i]];

		ops->release(ops->arg, f);
		hash_event(h, 'R', f->pfn, f->order);
	}
	for (i = k; i > 1; i--)		/* allocated again in another order */
		swap_u32(&idx[i - 1], &idx[mdb_rng_below(rng, i)]);
	while (rec < k || made < t) {
		if (made < t && mdb_rng_below(rng, k - rec + t - made) < t - made) {
			const struct age_folio *like = &l->f[mdb_rng_below(rng, n)];

			tr[made++] = (struct transient){ ops->transient_alloc(ops->arg, like->order, like->kind),
							 like->order, like->kind };
			hash_event(h, 'T', 0, like->order);
		} else {
			const struct age_folio *f = &l->f[idx[rec++]];

			if (ops->recreate(ops->arg, f))
				return -1;
			hash_event(h, 'C', f->pfn, f->order);
		}
	}
	for (i = t; i > 1; i--) {	/* the short-lived ones go, in random order */
		struct transient x = tr[i - 1];
		size_t j = mdb_rng_below(rng, i);

		tr[i - 1] = tr[j];
		tr[j] = x;
	}
	for (i = 0; i < t; i++) {
		if (tr[i].desc)
			ops->transient_free(ops->arg, tr[i].desc, tr[i].order, tr[i].kind);
		hash_event(h, 'F', 0, tr[i].order);
	}
	return 0;
}

int age_churn(const struct age_list *l, uint64_t seed, const struct age_ops *ops, uint64_t *digest)
{
	size_t n = l->nr, k = n / AGE_FRACTION_DEN, t = k / AGE_TRANSIENT_DEN, i;
	uint32_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	struct transient *tr = malloc((t ? t : 1) * sizeof(*tr));
	uint64_t rng = seed ^ AGE_SALT, h = FNV_OFFSET;
	int ret = 0;

	if (!idx || !tr) {
		ret = -1;
		goto out;
	}
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	for (unsigned int r = 0; r < AGE_ROUNDS && !ret && k; r++)
		ret = age_round(l, idx, tr, k, t, &rng, ops, &h);
out:
	free(idx);
	free(tr);
	*digest = h;
	return ret;
}

/* ------------------------------------------------------------------------ */
/* The allocation trace (DESC_AGED, DESC_TRACE): a buddy with per-CPU lists. */

#define NONE			UINT32_MAX
#define PCP_MAX_ORDER		3	/* PAGE_ALLOC_COSTLY_ORDER: orders the pcp lists keep */
#define PB_PAGES		(1U << PAGEBLOCK_ORDER)

/*
 * Grouping by mobility: the migratetypes of the per-cpu lists, numbered as
 * include/linux/mmzone.h numbers them.  Every pageblock has one
 * (pageblock_flags), MOVABLE at boot (memmap_init_range()); its free
 * blocks are on that type's free lists.  Not modelled: HIGHATOMIC, CMA,
 * ISOLATE, and ALLOC_NOFRAGMENT (alloc_flags_nofragment() sets it only
 * when a lower zone exists; the trace has one zone).
 */

/* mm/page_alloc.c's fallbacks[]: the order in which other types' lists are raided. */
static const uint8_t fallbacks[AGE_MT_NR][AGE_MT_NR - 1] = {
	[AGE_MT_UNMOVABLE]   = { AGE_MT_RECLAIMABLE, AGE_MT_MOVABLE },
	[AGE_MT_MOVABLE]     = { AGE_MT_RECLAIMABLE, AGE_MT_UNMOVABLE },
	[AGE_MT_RECLAIMABLE] = { AGE_MT_UNMOVABLE, AGE_MT_MOVABLE },
};

/*
 * The migratetype of an allocation (gfp_migratetype()): user pages are
 * GFP_HIGHUSER_MOVABLE, page cache takes the mapping's gfp mask (movable
 * on every disk filesystem), zsmalloc's pages __GFP_MOVABLE (they migrate
 * through movable_ops: zs_page_migrate()); page tables, page pools and
 * memblock's reservations are unmovable.  Slab is reclaimable for caches
 * made with SLAB_RECLAIM_ACCOUNT (dentries, inodes), unmovable for the
 * rest: the mixes do not tell them apart, so every other slab block of the
 * plan (odd index) counts as reclaimable, /proc/meminfo's SReclaimable
 * being about half of Slab on a desktop.
 */
static unsigned int alloc_mt(unsigned int kind, size_t index)
{
	switch (kind) {
	case PK_ANON:
	case PK_FILE:
	case PK_ZSMALLOC:
		return AGE_MT_MOVABLE;
	case PK_SLAB:
		return index & 1 ? AGE_MT_RECLAIMABLE : AGE_MT_UNMOVABLE;
	default:
		return AGE_MT_UNMOVABLE;
	}
}

/* What compaction's migrate scanner isolates: LRU folios and movable_ops pages. */
static bool kind_movable(unsigned int kind)
{
	return kind == PK_ANON || kind == PK_FILE || kind == PK_ZSMALLOC;
}

struct flist {
	uint32_t head, tail;
};

/*
 * The zone's free_area[] and one CPU's per_cpu_pages, over pfns: head[pfn]
 * is the order of the free buddy block starting there, -1 for none (a page
 * on a pcp list is no buddy block: __free_one_page() does not merge it),
 * and head_mt[pfn] the type of the list it is on.  Per pageblock: its
 * migratetype, its pages in buddy blocks (blk_free) and in live movable
 * allocations (blk_movable), for stealing and compaction.
 */
struct age_buddy {
	unsigned long nr_pfns;
	int8_t *head;
	uint8_t *head_mt, *pb_mt;
	uint32_t *next, *prev;
	uint16_t *blk_free, *blk_movable;
	struct flist area[BASE_PAGE_MAX_PAGE_ORDER + 1][AGE_MT_NR];
	unsigned long nr_free[BASE_PAGE_MAX_PAGE_ORDER + 1];	/* blocks of each order */
	struct flist pcp[AGE_MT_NR][PCP_MAX_ORDER + 1];
	unsigned long pcp_count;	/* pages on the pcp lists */
};

static void fl_add_head(struct age_buddy *b, struct flist *l, uint32_t pfn)
{
	b->prev[pfn] = NONE;
	b->next[pfn] = l->head;
	if (l->head != NONE)
		b->prev[l->head] = pfn;
	else
		l->tail = pfn;
	l->head = pfn;
}

static void fl_add_tail(struct age_buddy *b, struct flist *l, uint32_t pfn)
{
	b->next[pfn] = NONE;
	b->prev[pfn] = l->tail;
	if (l->tail != NONE)
		b->next[l->tail] = pfn;
	else
		l->head = pfn;
	l->tail = pfn;
}

static void fl_del(struct age_buddy *b, struct flist *l, uint32_t pfn)
{
	if (b->prev[pfn] != NONE)
		b->next[b->prev[pfn]] = b->next[pfn];
	else
		l->head = b->next[pfn];
	if (b->next[pfn] != NONE)
		b->prev[b->next[pfn]] = b->prev[pfn];
	else
		l->tail = b->prev[pfn];
}

/* Adds n (which may be negative) pages per page of the block to its pageblocks' counts. */
static void blk_count(uint16_t *blk, uint32_t pfn, unsigned int order, int n)
{
	if (order < PAGEBLOCK_ORDER) {
		blk[pfn >> PAGEBLOCK_ORDER] = (uint16_t)(blk[pfn >> PAGEBLOCK_ORDER] + n * (1 << order));
		return;
	}
	for (uint32_t i = 0; i < 1U << (order - PAGEBLOCK_ORDER); i++)
		blk[(pfn >> PAGEBLOCK_ORDER) + i] = (uint16_t)(blk[(pfn >> PAGEBLOCK_ORDER) + i] +
							      n * (int)PB_PAGES);
}

static unsigned int pb_mt(const struct age_buddy *b, uint32_t pfn)
{
	return b->pb_mt[pfn >> PAGEBLOCK_ORDER];
}

/* change_pageblock_range(): every pageblock of a block of order to type mt. */
static void set_blocks_mt(struct age_buddy *b, uint32_t pfn, unsigned int order, unsigned int mt)
{
	uint32_t n = order > PAGEBLOCK_ORDER ? 1U << (order - PAGEBLOCK_ORDER) : 1;

	for (uint32_t i = 0; i < n; i++)
		b->pb_mt[(pfn >> PAGEBLOCK_ORDER) + i] = (uint8_t)mt;
}

/* A buddy block onto free_area[order].free_list[mt]'s head (__add_to_free_list()), and off it. */
static void area_add(struct age_buddy *b, uint32_t pfn, unsigned int order, unsigned int mt)
{
	b->head[pfn] = (int8_t)order;
	b->head_mt[pfn] = (uint8_t)mt;
	fl_add_head(b, &b->area[order][mt], pfn);
	b->nr_free[order]++;
	blk_count(b->blk_free, pfn, order, 1);
}

static void area_del(struct age_buddy *b, uint32_t pfn, unsigned int order)
{
	fl_del(b, &b->area[order][b->head_mt[pfn]], pfn);
	b->head[pfn] = -1;
	b->nr_free[order]--;
	blk_count(b->blk_free, pfn, order, -1);
}

/*
 * __free_one_page(): merged with free buddies of the same order, onto the
 * head of the list of the merged block's pageblock type (a merge across
 * pageblocks of different types is allowed: all three are mergeable).
 */
static void buddy_free(struct age_buddy *b, uint32_t pfn, unsigned int order)
{
	while (order < MAX_PAGE_ORDER) {
		uint32_t buddy = pfn ^ (1U << order);

		if (buddy >= b->nr_pfns || b->head[buddy] != (int8_t)order)
			break;
		area_del(b, buddy, order);
		pfn &= ~(1U << order);
		order++;
	}
	area_add(b, pfn, order, pb_mt(b, pfn));
}

/* expand(): the upper halves of a block split down to order back on list mt. */
static void buddy_expand(struct age_buddy *b, uint32_t pfn, unsigned int o, unsigned int order,
			 unsigned int mt)
{
	while (o > order) {
		o--;
		area_add(b, pfn + (1U << o), o, mt);
	}
}

/* page_del_and_expand(): the block at the head of list (o, mt) split down to order. */
static uint32_t take_block(struct age_buddy *b, unsigned int o, unsigned int mt, unsigned int order)
{
	uint32_t pfn = b->area[o][mt].head;

	area_del(b, pfn, o);
	buddy_expand(b, pfn, o, order, mt);
	return pfn;
}

/* __rmqueue_smallest(): the smallest block of type mt that fits. */
static long rmqueue_smallest(struct age_buddy *b, unsigned int order, unsigned int mt)
{
	for (unsigned int o = order; o <= MAX_PAGE_ORDER; o++)
		if (b->area[o][mt].head != NONE)
			return take_block(b, o, mt, order);
	return -1;
}

/* should_try_claim_block(): whether a fallback block of order o may take its pageblock. */
static bool should_try_claim_block(unsigned int o, unsigned int mt)
{
	return o >= PAGEBLOCK_ORDER / 2 || mt != AGE_MT_MOVABLE;
}

/* find_suitable_fallback(): the first of mt's fallbacks with a block of order o; -1 none. */
static int find_fallback(const struct age_buddy *b, unsigned int o, unsigned int mt)
{
	for (unsigned int i = 0; i < AGE_MT_NR - 1; i++)
		if (b->area[o][fallbacks[mt][i]].head != NONE)
			return fallbacks[mt][i];
	return -1;
}

/* The first pfn from pfn on that heads a buddy block, or end. */
static uint32_t next_free_head(const struct age_buddy *b, uint32_t pfn, uint32_t end)
{
	while (pfn < end && b->head[pfn] < 0)
		pfn++;
	return pfn;
}

/* The end of pageblock pb, within the zone. */
static uint32_t pb_end(const struct age_buddy *b, unsigned long pb)
{
	unsigned long end = (pb + 1) << PAGEBLOCK_ORDER;

	return (uint32_t)(end < b->nr_pfns ? end : b->nr_pfns);
}

/* __move_freepages_block(): the pageblock's free blocks onto type mt's lists, and the block. */
static void move_freepages_block(struct age_buddy *b, unsigned long pb, unsigned int mt)
{
	uint32_t end = pb_end(b, pb), pfn = next_free_head(b, (uint32_t)(pb << PAGEBLOCK_ORDER), end);

	while (pfn < end) {
		unsigned int o = (unsigned int)b->head[pfn];

		area_del(b, pfn, o);
		area_add(b, pfn, o, mt);
		pfn = next_free_head(b, pfn + (1U << o), end);
	}
	b->pb_mt[pb] = (uint8_t)mt;
}

/*
 * try_to_claim_block(): a free block of another type's pageblock.  A whole
 * pageblock or more changes type outright; a smaller one takes its
 * pageblock when at least half of it is free or alike (for a movable
 * allocation the movable pages; for another type, in a movable block, the
 * pages that are neither free nor movable), and the allocation is then
 * served from the claimed block's lists.  -1: not claimed.
 */
static long try_to_claim_block(struct age_buddy *b, unsigned int o, int from, unsigned int order,
			       unsigned int mt)
{
	uint32_t pfn = b->area[o][from].head;
	unsigned long pb = pfn >> PAGEBLOCK_ORDER, free, alike;

	if (o >= PAGEBLOCK_ORDER) {
		area_del(b, pfn, o);
		set_blocks_mt(b, pfn, o, mt);
		buddy_expand(b, pfn, o, order, mt);
		return pfn;
	}
	free = b->blk_free[pb];
	if (mt == AGE_MT_MOVABLE)
		alike = b->blk_movable[pb];
	else if (from == AGE_MT_MOVABLE)
		alike = PB_PAGES - free - b->blk_movable[pb];
	else
		alike = 0;
	if (free + alike < PB_PAGES / 2)
		return -1;
	move_freepages_block(b, pb, mt);
	return rmqueue_smallest(b, order, mt);
}

/*
 * __rmqueue_claim() then __rmqueue_steal(): the largest block of another
 * type that may claim its pageblock, largest order first; failing that,
 * the smallest block of another type that fits, taken alone (its remnants
 * stay on that type's lists).
 */
static long rmqueue_fallback(struct age_buddy *b, unsigned int order, unsigned int mt)
{
	unsigned int o;
	int from;
	long pfn;

	for (o = MAX_PAGE_ORDER + 1; o-- > order;) {
		if (!should_try_claim_block(o, mt))
			break;
		from = find_fallback(b, o, mt);
		if (from >= 0 && (pfn = try_to_claim_block(b, o, from, order, mt)) >= 0)
			return pfn;
	}
	for (o = order; o <= MAX_PAGE_ORDER; o++) {
		from = find_fallback(b, o, mt);
		if (from >= 0)
			return take_block(b, o, (unsigned int)from, order);
	}
	return -1;
}

/* __rmqueue(): mt's own lists, then another type's. */
static long buddy_alloc(struct age_buddy *b, unsigned int order, unsigned int mt)
{
	long pfn = rmqueue_smallest(b, order, mt);

	return pfn >= 0 ? pfn : rmqueue_fallback(b, order, mt);
}

/* Is there a free buddy block of at least this order (__compact_finished()'s test)? */
static bool buddy_has(const struct age_buddy *b, unsigned int order)
{
	for (unsigned int o = order; o <= MAX_PAGE_ORDER; o++)
		if (b->nr_free[o])
			return true;
	return false;
}

/*
 * fragmentation_score_zone() of one zone: the share of free pages (in
 * percent) in blocks below COMPACTION_HPAGE_ORDER, extfrag_for_order().
 */
static unsigned long frag_score(const struct age_buddy *b)
{
	unsigned long total = 0, big = 0;

	for (unsigned int o = 0; o <= MAX_PAGE_ORDER; o++) {
		total += b->nr_free[o] << o;
		if (o >= PAGEBLOCK_ORDER)
			big += b->nr_free[o] << o;
	}
	return total ? (total - big) * 100 / total : 0;
}

/*
 * free_pcppages_bulk(): count pages from the lists' tails (the coldest),
 * list by list, each page to the buddy as its pageblock's type now says.
 */
static void pcp_drain(struct age_buddy *b, unsigned long count)
{
	unsigned int l = 0, empty = 0, nl = AGE_MT_NR * (PCP_MAX_ORDER + 1);

	while (count && b->pcp_count && empty < nl) {
		unsigned int o = l % (PCP_MAX_ORDER + 1);
		struct flist *list = &b->pcp[l / (PCP_MAX_ORDER + 1)][o];
		uint32_t pfn = list->tail;

		if (pfn == NONE) {
			empty++;
		} else {
			empty = 0;
			fl_del(b, list, pfn);
			b->pcp_count -= 1UL << o;
			count = count > (1UL << o) ? count - (1UL << o) : 0;
			buddy_free(b, pfn, o);
		}
		l = (l + 1) % nl;
	}
}

/*
 * free_frozen_pages(): small orders to the head of the pcp list of their
 * pageblock's type, a batch out once past high.
 */
static void page_free(struct age_buddy *b, uint32_t pfn, unsigned int order)
{
	if (order > PCP_MAX_ORDER) {
		buddy_free(b, pfn, order);
		return;
	}
	fl_add_head(b, &b->pcp[pb_mt(b, pfn)][order], pfn);
	b->pcp_count += 1UL << order;
	if (b->pcp_count >= PCP_HIGH_AGE)
		pcp_drain(b, PCP_BATCH);
}

/*
 * rmqueue(): small orders from the head of the pcp list of type mt,
 * refilled with a batch from the buddy (rmqueue_bulk(), each block to the
 * tail) when empty; larger ones from the buddy.  On failure every pcp page
 * goes back to the buddy (drain_all_pages(), as before compaction) and it
 * tries once more.
 */
static long page_alloc(struct age_buddy *b, unsigned int order, unsigned int mt)
{
	struct flist *l = &b->pcp[mt][order <= PCP_MAX_ORDER ? order : 0];
	unsigned int i;
	long pfn;

	for (int again = 0; again < 2; again++) {
		if (order > PCP_MAX_ORDER) {
			pfn = buddy_alloc(b, order, mt);
		} else {
			/* rmqueue_bulk(): the whole batch, as far as the buddy has it */
			for (i = 0; l->head == NONE && i < (PCP_BATCH >> order); i++) {
				pfn = buddy_alloc(b, order, mt);
				if (pfn < 0)
					break;
				fl_add_tail(b, l, (uint32_t)pfn);
				b->pcp_count += 1UL << order;
				while (++i < (PCP_BATCH >> order) && (pfn = buddy_alloc(b, order, mt)) >= 0) {
					fl_add_tail(b, l, (uint32_t)pfn);
					b->pcp_count += 1UL << order;
				}
			}
			pfn = l->head;
			if (pfn != NONE) {
				fl_del(b, l, (uint32_t)pfn);
				b->pcp_count -= 1UL << order;
			} else {
				pfn = -1;
			}
		}
		if (pfn >= 0)
			return pfn;
		pcp_drain(b, b->pcp_count);
	}
	return -1;
}

static unsigned long nr_blocks(unsigned long nr_pfns)
{
	return (nr_pfns + PB_PAGES - 1) >> PAGEBLOCK_ORDER;
}

static int buddy_init(struct age_buddy *b, unsigned long nr_pfns)
{
	unsigned long n = nr_pfns ? nr_pfns : 1, pb;
	unsigned int o, mt;

	memset(b, 0, sizeof(*b));
	b->nr_pfns = nr_pfns;
	b->head = malloc(n);
	b->head_mt = calloc(n, 1);
	b->pb_mt = malloc(nr_blocks(n));
	b->next = malloc(n * sizeof(*b->next));
	b->prev = malloc(n * sizeof(*b->prev));
	b->blk_free = calloc(nr_blocks(n), sizeof(*b->blk_free));
	b->blk_movable = calloc(nr_blocks(n), sizeof(*b->blk_movable));
	if (!b->head || !b->head_mt || !b->pb_mt || !b->next || !b->prev || !b->blk_free ||
	    !b->blk_movable)
		return -1;
	memset(b->head, -1, nr_pfns);
	for (pb = 0; pb < nr_blocks(n); pb++)
		b->pb_mt[pb] = AGE_MT_MOVABLE;
	for (mt = 0; mt < AGE_MT_NR; mt++) {
		for (o = 0; o <= MAX_PAGE_ORDER; o++)
			b->area[o][mt] = (struct flist){ NONE, NONE };
		for (o = 0; o <= PCP_MAX_ORDER; o++)
			b->pcp[mt][o] = (struct flist){ NONE, NONE };
	}
	return 0;
}

static void buddy_release(struct age_buddy *b)
{
	free(b->head);
	free(b->head_mt);
	free(b->pb_mt);
	free(b->next);
	free(b->prev);
	free(b->blk_free);
	free(b->blk_movable);
}

/* A folio compact_block() moved: its record, where it was and its descriptor there. */
struct migrated {
	uint32_t rec, pfn;	/* the record and where it was */
	unsigned long desc;	/* its descriptor there */
};

/*
 * The trace's allocations are records: DESC_AGED's the plan's blocks
 * (0..n-1) and the round's short-lived folios after them, DESC_TRACE's one
 * per allocation event and the plan's kept blocks after them.  owner[pfn]
 * is the record of the live allocation whose head is pfn (NONE for none),
 * blk_used[] the pages of live allocations in each pageblock: what
 * compaction reads.  Only anon and file folios have folio descriptors
 * (ops); the other kinds' pages move, their descriptors are made where
 * they end.
 */
struct trace_state {
	struct age_buddy b;
	const struct age_trace_ops *ops;
	struct age_trace *t;
	uint64_t rng, h;
	unsigned long next_id;		/* the next descriptor id */
	struct age_folio *rec;
	uint8_t *rec_mt;		/* each record's migratetype */
	unsigned long *rec_desc;	/* each record's descriptor id */
	uint32_t *owner;
	uint16_t *blk_used;
	struct migrated *moved;		/* compact_block()'s, room for a pageblock of folios */
	uint8_t *pstate;		/* placed: each page's state (enum placed_state) */
	uint32_t *cover;		/* placed: the record holding each PS_REC page */
	uint8_t *pb_seen;		/* placed: pageblocks whose type an event has said */
	bool compaction;
	bool deferred;			/* compaction found no block; none until a free */
	unsigned long free_target;	/* pages free after boot, which reclaim keeps */
};

static bool has_desc(unsigned int kind)
{
	return kind == PK_ANON || kind == PK_FILE;
}

static void own(struct trace_state *s, uint32_t r)
{
	s->owner[s->rec[r].pfn] = r;
	blk_count(s->blk_used, s->rec[r].pfn, s->rec[r].order, 1);
	if (kind_movable(s->rec[r].kind))
		blk_count(s->b.blk_movable, s->rec[r].pfn, s->rec[r].order, 1);
}

static void disown(struct trace_state *s, uint32_t r)
{
	s->owner[s->rec[r].pfn] = NONE;
	blk_count(s->blk_used, s->rec[r].pfn, s->rec[r].order, -1);
	if (kind_movable(s->rec[r].kind))
		blk_count(s->b.blk_movable, s->rec[r].pfn, s->rec[r].order, -1);
}

/*
 * Compaction's free scanner and compaction_alloc(): isolate_freepages()
 * walks pageblocks down from the zone's end, and isolate_freepages_block()
 * takes every buddy block of one off the free lists, whole, onto
 * cc->freepages[order]; compaction_alloc_noprof() serves a folio of order
 * from the smallest list that fits, the rest of a split block back onto
 * the lists, and scans another pageblock when they hold none.  Only
 * movable pageblocks are targets, and none that is a free pageblock
 * already (suitable_migration_target()).
 */
struct compact_free {
	struct flist list[BASE_PAGE_MAX_PAGE_ORDER + 1];	/* cc->freepages[], linked through the buddy's arrays */
	long pb;				/* the next pageblock the free scanner reads */
	unsigned long skip;			/* the pageblock being emptied */
};

/*
 * suitable_migration_target(): a movable pageblock with free pages, unless
 * it starts with a free block of the pageblock order or more (the free
 * scanner breaks up no block that already is what compaction is after).
 */
static bool cf_target(const struct age_buddy *b, unsigned long pb)
{
	int8_t first = b->head[pb << PAGEBLOCK_ORDER];

	return b->blk_free[pb] && b->pb_mt[pb] == AGE_MT_MOVABLE && first < (int8_t)PAGEBLOCK_ORDER;
}

static void cf_isolate_block(struct trace_state *s, struct compact_free *cf, unsigned long pb)
{
	struct age_buddy *b = &s->b;
	uint32_t end = pb_end(b, pb), pfn = next_free_head(b, (uint32_t)(pb << PAGEBLOCK_ORDER), end);

	while (pfn < end) {
		unsigned int o = (unsigned int)b->head[pfn];

		area_del(b, pfn, o);
		fl_add_tail(b, &cf->list[o], pfn);
		pfn = next_free_head(b, pfn + (1U << o), end);
	}
}

static long cf_alloc(struct trace_state *s, struct compact_free *cf, unsigned int order)
{
	struct age_buddy *b = &s->b;
	unsigned int o;
	uint32_t pfn;

	for (;;) {
		for (o = order; o <= MAX_PAGE_ORDER && cf->list[o].head == NONE; o++)
			;
		if (o <= MAX_PAGE_ORDER)
			break;
		while (cf->pb >= 0 && ((unsigned long)cf->pb == cf->skip || !cf_target(b, (unsigned long)cf->pb)))
			cf->pb--;
		if (cf->pb < 0)
			return -1;
		cf_isolate_block(s, cf, (unsigned long)cf->pb--);
	}
	pfn = cf->list[o].head;
	fl_del(b, &cf->list[o], pfn);
	while (o > order) {
		o--;
		fl_add_tail(b, &cf->list[o], pfn + (1U << o));
	}
	return pfn;
}

/* release_free_list(): what the free scanner isolated and nobody took, back to the buddy. */
static void cf_release(struct trace_state *s, struct compact_free *cf)
{
	for (unsigned int o = 0; o <= MAX_PAGE_ORDER; o++)
		while (cf->list[o].head != NONE) {
			uint32_t pfn = cf->list[o].head;

			fl_del(&s->b, &cf->list[o], pfn);
			buddy_free(&s->b, pfn, o);
		}
}

/*
 * The pageblock compaction empties: one whose pages are all free or held
 * by live allocations the migrate scanner isolates (anon and file folios,
 * and zsmalloc's movable_ops pages, below the target order and
 * pageblock_order: skip_isolation_on_order(); isolate_migratepages_block()
 * takes no slab, page table, hugetlb or reserved page, so a block holding
 * one never empties), with the fewest pages in use: the least migration
 * that frees a pageblock, which fast_find_migrateblock() aims at by picking
 * blocks off the free lists.  -1 for none, or when the movable blocks'
 * free pages cannot hold its folios.
 */
static long compact_target(struct trace_state *s, unsigned int order)
{
	unsigned long nb = s->b.nr_pfns >> PAGEBLOCK_ORDER, pb, total = 0, best_used = PB_PAGES;
	long best = -1;

	for (pb = 0; pb < nr_blocks(s->b.nr_pfns); pb++)
		if (cf_target(&s->b, pb))
			total += s->b.blk_free[pb];
	for (pb = 0; pb < nb; pb++) {
		unsigned long used = s->blk_used[pb];
		uint32_t pfn, end;

		if (used + s->b.blk_free[pb] != PB_PAGES || !used || used >= best_used ||
		    s->b.blk_movable[pb] != used)
			continue;
		for (pfn = (uint32_t)(pb << PAGEBLOCK_ORDER), end = pfn + PB_PAGES; pfn < end; pfn++)
			if (s->owner[pfn] != NONE && s->rec[s->owner[pfn]].order >= order)
				break;
		if (pfn == end) {
			best = (long)pb;
			best_used = used;
		}
	}
	if (best < 0)
		return -1;
	return total - (cf_target(&s->b, (unsigned long)best) ? s->b.blk_free[best] : 0) >= best_used ?
	       best : -1;
}

/*
 * compact_zone() on one pageblock: each live allocation in it (pfn order,
 * as isolate_migratepages_block() isolates them) migrated to a block
 * compaction_alloc() gives, a folio with a new descriptor
 * (migrate_pages_batch() allocates every destination of a batch, then
 * frees the sources; a memdesc's destination folio is allocated like any
 * other); the sources' pages back to the buddy, where they merge into the
 * free pageblock.  1 emptied, 0 not (compaction_alloc() found too little),
 * -1 out of memory.
 */
static int compact_block(struct trace_state *s, unsigned long pb)
{
	uint32_t pfn = (uint32_t)(pb << PAGEBLOCK_ORDER), end = pfn + PB_PAGES, nr = 0, i;
	struct compact_free cf = { .pb = (long)nr_blocks(s->b.nr_pfns) - 1, .skip = pb };

	for (i = 0; i <= MAX_PAGE_ORDER; i++)
		cf.list[i] = (struct flist){ NONE, NONE };
	while (pfn < end) {
		uint32_t r = s->owner[pfn];
		long dst;

		if (r == NONE) {
			pfn++;
			continue;
		}
		dst = cf_alloc(s, &cf, s->rec[r].order);
		if (dst < 0)
			break;
		s->moved[nr++] = (struct migrated){ r, pfn, s->rec_desc[r] };
		disown(s, r);
		s->rec[r].pfn = (uint32_t)dst;
		own(s, r);
		hash_event(&s->h, 'M', (uint32_t)dst, s->rec[r].order);
		if (has_desc(s->rec[r].kind)) {
			s->rec_desc[r] = s->next_id++;
			if (s->ops->desc_alloc(s->ops->arg, s->rec_desc[r], s->rec[r].order,
					       s->rec[r].kind))
				return -1;
		}
		pfn += 1U << s->rec[r].order;
	}
	for (i = 0; i < nr; i++) {
		const struct age_folio *f = &s->rec[s->moved[i].rec];

		if (has_desc(f->kind))
			s->ops->desc_free(s->ops->arg, s->moved[i].desc, f->order, f->kind);
		buddy_free(&s->b, s->moved[i].pfn, f->order);
	}
	cf_release(s, &cf);
	s->t->migrated += nr;
	s->t->compactions += pfn >= end;
	return pfn >= end;
}

/* One pageblock compacted: 1, or 0 none could be (the caller defers), -1 out of memory. */
static int compact_one(struct trace_state *s, unsigned int order)
{
	long pb = compact_target(s, order);
	int ret = pb < 0 ? 0 : compact_block(s, (unsigned long)pb);

	if (!ret)
		s->deferred = true;
	return ret;
}

/*
 * Compaction until a free block of order exists (__compact_finished()),
 * one pageblock at a time; deferred (defer_compaction()) once it finds
 * nothing to empty, until a folio is freed.  0, or -1 out of memory.
 */
static int compact(struct trace_state *s, unsigned int order)
{
	int ret = 1;

	if (!s->compaction || s->deferred)
		return 0;
	pcp_drain(&s->b, s->b.pcp_count);	/* drain_all_pages() */
	while (ret > 0 && !buddy_has(&s->b, order))
		ret = compact_one(s, order);
	return ret < 0 ? -1 : 0;
}

/*
 * kcompactd's proactive compaction (proactive_compact_node(), on by default
 * since 5.9 with vm.compaction_proactiveness 20): when the zone's
 * fragmentation score passes the high watermark, min(100 - 20 + 10, 100),
 * it compacts until the score is at most the low one, 100 - 20.
 */
#define PROACTIVE_WMARK_LOW	80UL
#define PROACTIVE_WMARK_HIGH	90UL

static int compact_proactive(struct trace_state *s)
{
	int ret = 1;

	if (!s->compaction)
		return 0;
	pcp_drain(&s->b, s->b.pcp_count);
	if (frag_score(&s->b) <= PROACTIVE_WMARK_HIGH)
		return 0;
	/* kcompactd defers proactive compaction once a pass leaves the score where it was */
	for (unsigned long score = frag_score(&s->b), prev = 101; ret > 0 && score > PROACTIVE_WMARK_LOW &&
	     score < prev; prev = score, score = frag_score(&s->b))
		ret = compact_one(s, PAGEBLOCK_ORDER);
	return ret < 0 ? -1 : 0;
}

/*
 * Record r allocated: pfns from the buddy, of its migratetype (after direct
 * compaction when an order > 0 fails: __alloc_pages_direct_compact()),
 * then a new descriptor for a folio.  1 placed, 0 the buddy has none, -1
 * out of memory.
 */
static int trace_alloc(struct trace_state *s, uint32_t r, unsigned int order, unsigned int kind)
{
	long pfn = page_alloc(&s->b, order, s->rec_mt[r]);

	if (pfn < 0 && order) {
		if (compact(s, order))
			return -1;
		pfn = page_alloc(&s->b, order, s->rec_mt[r]);
	}
	if (pfn < 0)
		return 0;
	s->rec[r] = (struct age_folio){ .pfn = (uint32_t)pfn, .order = (uint8_t)order,
					.kind = (uint8_t)kind };
	own(s, r);
	hash_event(&s->h, 'A', (uint32_t)pfn, order << 2 | s->rec_mt[r]);
	if (!has_desc(kind))
		return 1;
	s->rec_desc[r] = s->next_id++;
	return s->ops->desc_alloc(s->ops->arg, s->rec_desc[r], order, kind) ? -1 : 1;
}

static void trace_free(struct trace_state *s, uint32_t r)
{
	const struct age_folio *f = &s->rec[r];

	if (has_desc(f->kind))
		s->ops->desc_free(s->ops->arg, s->rec_desc[r], f->order, f->kind);
	hash_event(&s->h, 'F', f->pfn, f->order);
	disown(s, r);
	page_free(&s->b, f->pfn, f->order);
	s->deferred = false;
}

/* Allocates record r as rec[r] says, or marks it gone (t->failures); 0 or -1. */
static int alloc_or_gone(struct trace_state *s, uint32_t r)
{
	struct age_folio *f = &s->rec[r];
	int ret = trace_alloc(s, r, f->order, f->kind);

	if (ret > 0)
		return 0;
	f->kind = AGE_GONE;
	s->t->failures += !ret;
	return ret;
}

/*
 * Boot: every block of the plan (hugetlb aside: its pool is not the
 * buddy's) freed to the buddy, then allocated again through it, each with
 * its migratetype: memblock's reservations first (they predate the buddy,
 * and memblock packs them), the rest in the order order[] gives, so that
 * grouping by mobility decides where each kind lies, as on a machine
 * that booted and ran.  A block the buddy cannot place yet is tried again
 * at the end, then gone.  Records first .. first + l->nr - 1.
 */
static int trace_boot(struct trace_state *s, const struct age_list *l, uint32_t first,
		      const uint32_t *order, uint32_t *late)
{
	size_t i, nr_late = 0;
	int pass;

	for (i = 0; i < l->nr; i++) {
		s->rec[first + i] = l->f[i];
		s->rec_mt[first + i] = (uint8_t)alloc_mt(l->f[i].kind, i);
		buddy_free(&s->b, l->f[i].pfn, l->f[i].order);
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < l->nr; i++) {
			uint32_t r = first + (order ? order[i] : (uint32_t)i);
			int ret;

			if ((s->rec[r].kind == PK_RESERVED) != !pass)
				continue;
			ret = trace_alloc(s, r, s->rec[r].order, s->rec[r].kind);
			if (ret < 0)
				return -1;
			if (!ret)
				late[nr_late++] = r;
		}
	for (i = 0; i < nr_late; i++)
		if (alloc_or_gone(s, late[i]))
			return -1;
	return 0;
}

/* The buddy's blocks by order and the list they are on (/proc/pagetypeinfo's table). */
static void count_free_blocks(const struct age_buddy *b, struct age_trace *t)
{
	for (unsigned int o = 0; o <= MAX_PAGE_ORDER; o++)
		for (unsigned int mt = 0; mt < AGE_MT_NR; mt++)
			for (uint32_t pfn = b->area[o][mt].head; pfn != NONE; pfn = b->next[pfn])
				t->free_blocks[o][mt]++;
}

/* Pages free: in buddy blocks and on the pcp lists. */
static unsigned long nr_free_pages(const struct age_buddy *b)
{
	unsigned long n = b->pcp_count;

	for (unsigned int o = 0; o <= MAX_PAGE_ORDER; o++)
		n += b->nr_free[o] << o;
	return n;
}

/*
 * The zone's high watermark in pages, as __setup_per_zone_wmarks() sets it
 * on a machine of nr_pfns pages with the defaults: min_free_kbytes
 * sqrt(16 x lowmem KiB) within [128 KiB, 256 MiB] (calculate_min_free_kbytes()),
 * then min plus twice the larger of min/4 and watermark_scale_factor (10)
 * ten-thousandths of the zone.
 */
static unsigned long high_wmark_pages(unsigned long nr_pfns)
{
	unsigned long kib = nr_pfns << (mdb_base.shift - 10), min_kib = 0, min, gap;

	while ((min_kib + 1) * (min_kib + 1) <= 16 * kib)
		min_kib++;
	min_kib = min_kib < 128 ? 128 : min_kib > 262144 ? 262144 : min_kib;
	min = min_kib >> (mdb_base.shift - 10);
	gap = nr_pfns * 10 / 10000 > min / 4 ? nr_pfns * 10 / 10000 : min / 4;
	return min + 2 * gap;
}

/*
 * The short-lived records first..first+t-1 that are live freed, oldest
 * first: the page cache ones (file) when file, the others when not;
 * SIZE_MAX: none.
 */
static void free_transients(struct trace_state *s, size_t first, size_t t, bool file)
{
	if (first == SIZE_MAX)
		return;
	for (size_t i = first; i < first + t; i++)
		if (s->rec[i].kind != AGE_GONE && (s->rec[i].kind == PK_FILE) == file &&
		    s->owner[s->rec[i].pfn] == i)
			trace_free(s, (uint32_t)i);
}

/*
 * One round of the seeded trace, in LRU order, at a steady state: the
 * workload allocates the k folios allocated longest ago (lru[0..k-1]) again,
 * in that order (it touches them again: the same orders and kinds,
 * wherever the buddy puts them now), interleaved at random with t
 * short-lived allocations of the plan's kinds and orders (records
 * base..base+t-1: page cache read once, a compiler's heap and page tables,
 * slab objects, skbs).  Those stay until the end of the next round, oldest
 * first (the page cache read once is reclaimed once older pages are), so
 * memory fills as on a machine that has run a while: reclaim keeps free
 * memory at the zone's high watermark (free_target), freeing the oldest of
 * the k, in LRU order, before an allocation would take it below (kswapd
 * reclaims to the high watermark; direct reclaim takes the inactive list's
 * tail too); a folio is freed before it is allocated again.  An allocation
 * of order > 0 then often finds no free block and compacts.  The
 * reallocated ones are then the youngest.  A folio the buddy cannot serve
 * waits for the round's end; if it fails then too it is gone
 * (t->failures).
 */
static int trace_round(struct trace_state *s, const struct age_list *l, uint32_t *lru,
		       size_t nr_lru, const uint32_t *pool, size_t nr_pool, uint32_t *late_id,
		       size_t k, size_t t, size_t base, size_t prev)
{
	struct age_folio *rec = s->rec;
	size_t i, rec_n = 0, made = 0, late = 0, freed = 0;
	int ret;

	while (rec_n < k || made < t) {
		bool transient = made < t && mdb_rng_below(&s->rng, k - rec_n + t - made) < t - made;
		uint32_t r = transient ? (uint32_t)(base + made++) : lru[rec_n++];

		if (transient) {
			uint32_t like = pool[mdb_rng_below(&s->rng, nr_pool)];

			rec[r].order = l->f[like].order;
			rec[r].kind = l->f[like].kind;
			s->rec_mt[r] = (uint8_t)alloc_mt(rec[r].kind, like);
		}
		while (freed < k && (freed < rec_n ||
				     nr_free_pages(&s->b) < s->free_target + (1UL << rec[r].order))) {
			if (rec[lru[freed]].kind != AGE_GONE)
				trace_free(s, lru[freed]);
			freed++;
		}
		if (rec[r].kind == AGE_GONE)
			continue;
		ret = trace_alloc(s, r, rec[r].order, rec[r].kind);
		if (ret < 0)
			return -1;
		if (!ret) {
			if (transient)
				rec[r].kind = AGE_GONE;
			else
				late_id[late++] = r;
		}
	}
	free_transients(s, prev, t, true);
	free_transients(s, base, t, false);
	for (i = 0; i < late; i++)
		if (alloc_or_gone(s, late_id[i]))
			return -1;
	/* The k just allocated are now the youngest: the list rotates. */
	for (i = 0; i < k; i++)
		late_id[i] = lru[i];
	memmove(lru, lru + k, (nr_lru - k) * sizeof(*lru));
	memcpy(lru + nr_lru - k, late_id, k * sizeof(*lru));
	return 0;
}

/*
 * DESC_AGED: boot (the plan's blocks in random order, drawn from the seed),
 * then AGE_ROUNDS rounds over the anon and file folios in LRU order, the
 * order boot allocated them first; the last round's short-lived folios go
 * at the end.  The rounds' short-lived records alternate between n.. and
 * n + tn.. (the previous round's are still live).
 */
static int trace_seeded(struct trace_state *s, const struct age_list *l)
{
	size_t n = l->nr, nr_lru = 0, nr_pool = 0, k, tn, i;
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order)), *pool = malloc((n ? n : 1) * sizeof(*pool));
	uint32_t *lru = malloc((n ? n : 1) * sizeof(*lru)), *late = malloc((n ? n : 1) * sizeof(*late));
	int ret = -1;

	if (!order || !pool || !lru || !late)
		goto out;
	for (i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (i = n; i > 1; i--)
		swap_u32(&order[i - 1], &order[mdb_rng_below(&s->rng, i)]);
	if (trace_boot(s, l, 0, order, late))
		goto out;
	for (i = 0; i < n; i++) {
		if (has_desc(l->f[order[i]].kind))
			lru[nr_lru++] = order[i];
		if (l->f[i].kind != PK_RESERVED)
			pool[nr_pool++] = (uint32_t)i;
	}
	k = nr_lru / AGE_FRACTION_DEN;
	tn = k / AGE_TRANSIENT_DEN;
	s->free_target = high_wmark_pages(s->b.nr_pfns);
	for (unsigned int r = 0; r < AGE_ROUNDS && k; r++)
		if (trace_round(s, l, lru, nr_lru, pool, nr_pool, late, k, tn, n + (r & 1) * tn,
				r ? n + ((r - 1) & 1) * tn : SIZE_MAX))
			goto out;
	if (k)
		free_transients(s, n + ((AGE_ROUNDS - 1) & 1) * tn, tn, true);
	ret = 0;
out:
	free(order);
	free(pool);
	free(lru);
	free(late);
	return ret;
}

/*
 * DESC_TRACE: the plan's blocks to the buddy, its kept blocks (neither
 * anon nor file) allocated again in its order as records nr_alloc.., then
 * the recorded events.
 */
static int trace_replayed(struct trace_state *s, const struct age_list *folios,
			  const struct age_list *kept, const struct age_replay *rp)
{
	uint32_t first = (uint32_t)rp->nr_alloc;
	uint32_t *late = malloc((kept->nr ? kept->nr : 1) * sizeof(*late));
	size_t i;
	int ret = -1;

	if (!late)
		return -1;
	for (i = 0; i < folios->nr; i++)
		if (has_desc(folios->f[i].kind))
			buddy_free(&s->b, folios->f[i].pfn, folios->f[i].order);
	if (trace_boot(s, kept, first, NULL, late))
		goto out;
	for (i = 0; i < rp->nr_events; i++) {
		const struct age_event *e = &rp->ev[i];

		if (e->kind == AGE_FREE_EVENT) {
			if (s->rec[e->rec].kind != AGE_GONE)
				trace_free(s, e->rec);
			continue;
		}
		s->rec[e->rec] = (struct age_folio){ .order = e->order, .kind = e->kind };
		s->rec_mt[e->rec] = (uint8_t)alloc_mt(e->kind, 0);
		if (alloc_or_gone(s, e->rec))
			goto out;
	}
	ret = 0;
out:
	free(late);
	return ret;
}

/*
 * A placed trace (the kernel's page events at its pfns): no buddy of the
 * replay's own decides where anything goes.  Every page starts held (by
 * what the kernel allocated before the recording began, or never gave the
 * buddy: memblock's reservations, holes); an allocation takes its pages
 * wherever they are (the buddy, the per-cpu lists, held), a free puts them
 * on the per-cpu lists (orders free_frozen_pages() keeps there:
 * pcp_allowed_order()) or in the buddy, where __free_one_page() merges
 * them; drains and refills move them between the two as the kernel's did.
 * A pageblock's type is what an extfrag event says, else the migratetype
 * of the first allocation in it (an allocation comes from its own type's
 * lists unless an extfrag event says it fell back).  No compaction: the
 * kernel's migrations are in the trace as allocations and frees.
 */
enum placed_state { PS_HELD, PS_BUDDY, PS_PCP, PS_REC };

static bool pcp_allowed_order(unsigned int order)
{
	return order <= PCP_MAX_ORDER || order == PAGEBLOCK_ORDER;
}

/* The buddy block holding pfn (its head, its order in *o), or NONE. */
static uint32_t buddy_block_of(const struct age_buddy *b, uint32_t pfn, unsigned int *o)
{
	for (unsigned int k = 0; k <= MAX_PAGE_ORDER; k++) {
		uint32_t h = pfn & ~((1U << k) - 1);

		if (b->head[h] == (int8_t)k) {
			*o = k;
			return h;
		}
	}
	return NONE;
}

/*
 * The buddy's pages of the aligned block (pfn, order) taken off its lists:
 * a free block holding it split down to it, its other halves back on the
 * list it was on (as expand() does), or else each half alone.
 */
static void buddy_carve(struct age_buddy *b, uint32_t pfn, unsigned int order)
{
	unsigned int o;
	uint32_t h = buddy_block_of(b, pfn, &o);

	if (h != NONE && o >= order) {
		unsigned int mt = b->head_mt[h];

		area_del(b, h, o);
		while (o > order) {
			o--;
			if (pfn & (1U << o)) {
				area_add(b, h, o, mt);
				h += 1U << o;
			} else {
				area_add(b, h + (1U << o), o, mt);
			}
		}
		return;
	}
	if (order) {
		buddy_carve(b, pfn, order - 1);
		buddy_carve(b, pfn + (1U << (order - 1)), order - 1);
	}
}

/* The pages of (pfn, order) that are not free given to the buddy, in aligned blocks. */
static void placed_give(struct trace_state *s, uint32_t pfn, unsigned int order)
{
	uint32_t n = 1U << order, i;

	for (i = 0; i < n && s->pstate[pfn + i] != PS_BUDDY; i++)
		;
	if (i == n) {
		memset(s->pstate + pfn, PS_BUDDY, n);
		buddy_free(&s->b, pfn, order);
	} else if (order) {
		placed_give(s, pfn, order - 1);
		placed_give(s, pfn + n / 2, order - 1);
	}
}

/* Record q gone (freed, or its pages freed or taken in pieces): its other pages stay held. */
static void placed_drop(struct trace_state *s, uint32_t q)
{
	struct age_folio *f = &s->rec[q];

	if (has_desc(f->kind))
		s->ops->desc_free(s->ops->arg, s->rec_desc[q], f->order, f->kind);
	hash_event(&s->h, 'F', f->pfn, f->order);
	disown(s, q);
	for (uint32_t p = f->pfn; p < f->pfn + (1U << f->order); p++)
		if (s->pstate[p] == PS_REC && s->cover[p] == q)
			s->pstate[p] = PS_HELD;
	f->kind = AGE_GONE;
}

/* The records holding pages of (pfn, order) dropped; how many pages were held by one. */
static unsigned long placed_release(struct trace_state *s, uint32_t pfn, unsigned int order)
{
	unsigned long held = 0;

	for (uint32_t p = pfn; p < pfn + (1U << order); p++)
		if (s->pstate[p] == PS_REC) {
			placed_drop(s, s->cover[p]);
			held++;
		}
	return held;
}

/* Pageblock pb is of type mt (move_freepages_block() when it changes). */
static void placed_pb_mt(struct trace_state *s, unsigned long pb, unsigned int mt)
{
	s->pb_seen[pb] = 1;
	if (s->b.pb_mt[pb] != mt)
		move_freepages_block(&s->b, pb, mt);
}

/* The pages of (pfn, order) out of the buddy and the per-cpu lists, into state st. */
static void placed_take(struct trace_state *s, uint32_t pfn, unsigned int order, uint8_t st)
{
	buddy_carve(&s->b, pfn, order);
	memset(s->pstate + pfn, st, 1U << order);
}

static int placed_alloc(struct trace_state *s, const struct age_event *e)
{
	uint32_t r = e->rec, n = 1U << e->order;
	unsigned long pb;

	for (pb = e->pfn >> PAGEBLOCK_ORDER; pb <= (e->pfn + n - 1) >> PAGEBLOCK_ORDER; pb++)
		if (!s->pb_seen[pb])
			placed_pb_mt(s, pb, e->mt);
	s->t->conflicts += placed_release(s, e->pfn, e->order);
	placed_take(s, e->pfn, e->order, PS_REC);
	for (uint32_t p = e->pfn; p < e->pfn + n; p++)
		s->cover[p] = r;
	s->rec[r] = (struct age_folio){ .pfn = e->pfn, .order = e->order, .kind = e->kind };
	s->rec_mt[r] = e->mt;
	own(s, r);
	hash_event(&s->h, 'A', e->pfn, (unsigned int)e->order << 2 | e->mt);
	if (!has_desc(e->kind))
		return 0;
	s->rec_desc[r] = s->next_id++;
	return s->ops->desc_alloc(s->ops->arg, s->rec_desc[r], e->order, e->kind);
}

static int placed_event(struct trace_state *s, const struct age_event *e)
{
	uint32_t p, n = 1U << e->order;

	switch (e->kind) {
	case AGE_MT_EVENT:
		placed_pb_mt(s, e->pfn >> PAGEBLOCK_ORDER, e->mt);
		return 0;
	case AGE_FREE_EVENT:
		placed_release(s, e->pfn, e->order);
		hash_event(&s->h, 'f', e->pfn, e->order);
		if (!pcp_allowed_order(e->order)) {
			placed_give(s, e->pfn, e->order);
			return 0;
		}
		for (p = e->pfn; p < e->pfn + n; p++)
			if (s->pstate[p] != PS_BUDDY)
				s->pstate[p] = PS_PCP;
		return 0;
	case AGE_DRAIN_EVENT:
		s->t->conflicts += placed_release(s, e->pfn, e->order);
		hash_event(&s->h, 'd', e->pfn, e->order);
		placed_give(s, e->pfn, e->order);
		return 0;
	case AGE_REFILL_EVENT:
		s->t->conflicts += placed_release(s, e->pfn, e->order);
		hash_event(&s->h, 'r', e->pfn, e->order);
		placed_take(s, e->pfn, e->order, PS_PCP);
		return 0;
	default:
		return placed_alloc(s, e);
	}
}

/* Pages on the per-cpu lists at the end; then given to the buddy, where they are free memory. */
static unsigned long placed_drain(struct trace_state *s)
{
	unsigned long n = 0;

	for (uint32_t p = 0; p < s->b.nr_pfns; p++)
		if (s->pstate[p] == PS_PCP) {
			n++;
			placed_give(s, p, 0);
		}
	return n;
}

/*
 * The pages no event gave a record and none freed, at the end: held since
 * before the recording by nothing the trace names (reserved), in naturally
 * aligned blocks of at most MAX_FOLIO_ORDER (the orders a mix reserves).
 */
static int placed_held(const struct trace_state *s, struct age_list *held)
{
	uint32_t p = 0, end = (uint32_t)s->b.nr_pfns;

	while (p < end) {
		unsigned int o = 0;

		if (s->pstate[p] != PS_HELD) {
			p++;
			continue;
		}
		while (o < MAX_FOLIO_ORDER && !(p & ((2U << o) - 1)) && p + (2U << o) <= end) {
			uint32_t q = p + (1U << o);

			while (q < p + (2U << o) && s->pstate[q] == PS_HELD)
				q++;
			if (q < p + (2U << o))
				break;
			o++;
		}
		if (age_list_add(held, p, o, PK_RESERVED))
			return -1;
		p += 1U << o;
	}
	return 0;
}

/* DESC_TRACE of a placed trace: its events, at the kernel's pfns, from every page held. */
static int trace_placed(struct trace_state *s, const struct age_replay *rp)
{
	unsigned long n = s->b.nr_pfns;

	s->pstate = calloc(n ? n : 1, 1);	/* PS_HELD */
	s->cover = malloc((n ? n : 1) * sizeof(*s->cover));
	s->pb_seen = calloc(nr_blocks(n ? n : 1), 1);
	if (!s->pstate || !s->cover || !s->pb_seen)
		return -1;
	for (size_t i = 0; i < rp->nr_events; i++)
		if (placed_event(s, &rp->ev[i]))
			return -1;
	/* A kernel block above a folio's order is held pages, cut as placed_held() cuts them. */
	for (uint32_t r = 0; r < rp->nr_alloc; r++)
		if (s->rec[r].kind != AGE_GONE && s->rec[r].order > MAX_FOLIO_ORDER &&
		    s->owner[s->rec[r].pfn] == r)
			placed_drop(s, r);
	return 0;
}

/*
 * The records live at the end: DESC_AGED's blocks, every one; DESC_TRACE's,
 * those not freed, after a placed trace's held blocks.
 */
static int trace_final(struct trace_state *s, size_t nr_rec, bool all, const struct age_list *held)
{
	struct age_trace *t = s->t;
	size_t i, n = 0, nr = nr_rec + held->nr;

	t->final = malloc((nr ? nr : 1) * sizeof(*t->final));
	t->final_desc = malloc((nr ? nr : 1) * sizeof(*t->final_desc));
	if (!t->final || !t->final_desc)
		return -1;
	for (i = 0; i < held->nr; i++) {
		t->final[n] = held->f[i];
		t->final_desc[n++] = ULONG_MAX;		/* no descriptor */
	}
	for (i = 0; i < nr_rec; i++) {
		bool live = s->rec[i].kind != AGE_GONE && s->owner[s->rec[i].pfn] == i;

		if (!all && !live)
			continue;
		t->final[n] = s->rec[i];
		t->final_desc[n++] = has_desc(s->rec[i].kind) ? s->rec_desc[i] : ULONG_MAX;
	}
	t->nr_final = n;
	for (i = 0; i < nr_blocks(s->b.nr_pfns); i++)
		t->pageblocks[s->b.pb_mt[i]]++;
	return 0;
}

/* The plan's blocks that are neither anon nor file: DESC_TRACE keeps them. */
static int kept_of(const struct age_list *folios, struct age_list *kept)
{
	for (size_t i = 0; i < folios->nr; i++)
		if (!has_desc(folios->f[i].kind) &&
		    age_list_add(kept, folios->f[i].pfn, folios->f[i].order, folios->f[i].kind))
			return -1;
	return 0;
}

int age_trace_run(const struct age_list *folios, const struct age_list *free_blocks,
		  unsigned long nr_pfns, uint64_t seed, const struct age_trace_how *how,
		  const struct age_trace_ops *ops, struct age_trace *t)
{
	const struct age_replay *rp = how ? how->replay : NULL;
	struct age_list kept = { 0 }, held = { 0 };
	size_t nr_churn = 0, tn, nr_rec, i;
	struct trace_state s = { .ops = ops, .t = t, .rng = seed ^ AGE_SALT, .h = FNV_OFFSET,
				 .compaction = !how || !how->no_compaction };
	int ret = -1;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < folios->nr; i++)
		nr_churn += has_desc(folios->f[i].kind);
	tn = nr_churn / AGE_FRACTION_DEN / AGE_TRANSIENT_DEN;
	if (rp && !rp->placed && kept_of(folios, &kept))
		goto out;
	nr_rec = rp ? rp->nr_alloc + kept.nr : folios->nr + 2 * tn;
	s.rec = calloc(nr_rec ? nr_rec : 1, sizeof(*s.rec));
	s.rec_mt = calloc(nr_rec ? nr_rec : 1, sizeof(*s.rec_mt));
	s.rec_desc = calloc(nr_rec ? nr_rec : 1, sizeof(*s.rec_desc));
	s.owner = malloc((nr_pfns ? nr_pfns : 1) * sizeof(*s.owner));
	s.blk_used = calloc(nr_blocks(nr_pfns ? nr_pfns : 1), sizeof(*s.blk_used));
	s.moved = malloc(PB_PAGES * sizeof(*s.moved));
	if (!s.rec || !s.rec_mt || !s.rec_desc || !s.owner || !s.blk_used || !s.moved ||
	    buddy_init(&s.b, nr_pfns))
		goto out;
	memset(s.owner, 0xff, nr_pfns * sizeof(*s.owner));
	if (rp && rp->placed) {
		/* The kernel's events at its pfns: the plan places nothing (trace_placed()). */
		if (trace_placed(&s, rp) || placed_held(&s, &held))
			goto out;
		count_free_blocks(&s.b, t);
		t->pcp_pages = placed_drain(&s);
		if (trace_final(&s, nr_rec, false, &held))
			goto out;
		goto listed;
	}
	/* Boot: the plan's free blocks to the buddy; the trace allocates the rest again. */
	for (i = 0; i < free_blocks->nr; i++)
		buddy_free(&s.b, free_blocks->f[i].pfn, free_blocks->f[i].order);
	if (rp ? trace_replayed(&s, folios, &kept, rp) : trace_seeded(&s, folios))
		goto out;
	/*
	 * kcompactd: woken when a THP allocation finds no free pageblock
	 * (wakeup_kcompactd()), and proactively (compact_proactive()).
	 */
	pcp_drain(&s.b, s.b.pcp_count);
	s.deferred = false;
	if (compact(&s, PAGEBLOCK_ORDER))
		goto out;
	s.deferred = false;
	if (compact_proactive(&s) || trace_final(&s, rp ? nr_rec : folios->nr, !rp, &held))
		goto out;
	pcp_drain(&s.b, s.b.pcp_count);
	count_free_blocks(&s.b, t);
listed:
	t->nr_ids = s.next_id;
	/* What the buddy holds at the end is free memory, in pfn order. */
	for (i = 0; i < nr_pfns; i++)
		if (s.b.head[i] >= 0 && age_list_add(&t->free, i, (unsigned int)s.b.head[i], 0))
			goto out;
	ret = 0;
out:
	t->digest = s.h;
	buddy_release(&s.b);
	age_list_release(&kept);
	age_list_release(&held);
	free(s.pstate);
	free(s.cover);
	free(s.pb_seen);
	free(s.rec);
	free(s.rec_mt);
	free(s.rec_desc);
	free(s.owner);
	free(s.blk_used);
	free(s.moved);
	return ret;
}

void age_trace_release(struct age_trace *t)
{
	free(t->final);
	free(t->final_desc);
	age_list_release(&t->free);
	memset(t, 0, sizeof(*t));
}
