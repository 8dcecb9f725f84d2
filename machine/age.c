// SPDX-License-Identifier: GPL-2.0
/*
 * age.c - the descriptor churn that ages a machine (see age.h).
 */
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
	unsigned int order;
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
			unsigned int order = l->f[mdb_rng_below(rng, n)].order;

			tr[made++] = (struct transient){ ops->transient_alloc(ops->arg, order), order };
			hash_event(h, 'T', 0, order);
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
			ops->transient_free(ops->arg, tr[i].desc, tr[i].order);
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

struct flist {
	uint32_t head, tail;
};

/*
 * The zone's free_area[] and one CPU's per_cpu_pages, over pfns: head[pfn]
 * is the order of the free buddy block starting there, -1 for none (a page
 * on a pcp list is no buddy block: __free_one_page() does not merge it).
 * blk_free[]: pages of each pageblock in buddy blocks, for compaction.
 */
struct age_buddy {
	unsigned long nr_pfns;
	int8_t *head;
	uint32_t *next, *prev;
	uint16_t *blk_free;
	struct flist area[BASE_PAGE_MAX_PAGE_ORDER + 1];
	struct flist pcp[PCP_MAX_ORDER + 1];
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

/* A buddy block onto free_area[order]'s head (add_to_free_list()), and off it. */
static void area_add(struct age_buddy *b, uint32_t pfn, unsigned int order)
{
	b->head[pfn] = (int8_t)order;
	fl_add_head(b, &b->area[order], pfn);
	blk_count(b->blk_free, pfn, order, 1);
}

static void area_del(struct age_buddy *b, uint32_t pfn, unsigned int order)
{
	fl_del(b, &b->area[order], pfn);
	b->head[pfn] = -1;
	blk_count(b->blk_free, pfn, order, -1);
}

/* __free_one_page(): merged with free buddies of the same order, onto the list's head. */
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
	area_add(b, pfn, order);
}

/* expand(): the upper halves of a block split down to order back on the lists. */
static void buddy_expand(struct age_buddy *b, uint32_t pfn, unsigned int o, unsigned int order)
{
	while (o > order) {
		o--;
		area_add(b, pfn + (1U << o), o);
	}
}

/* __rmqueue_smallest() + expand(): the smallest block that fits, upper halves back. */
static long buddy_alloc(struct age_buddy *b, unsigned int order)
{
	unsigned int o;
	uint32_t pfn;

	for (o = order; o <= MAX_PAGE_ORDER && b->area[o].head == NONE; o++)
		;
	if (o > MAX_PAGE_ORDER)
		return -1;
	pfn = b->area[o].head;
	area_del(b, pfn, o);
	buddy_expand(b, pfn, o, order);
	return pfn;
}

/* Is there a free buddy block of at least this order (__compact_finished()'s test)? */
static bool buddy_has(const struct age_buddy *b, unsigned int order)
{
	for (unsigned int o = order; o <= MAX_PAGE_ORDER; o++)
		if (b->area[o].head != NONE)
			return true;
	return false;
}

/* free_pcppages_bulk(): count pages from the lists' tails (the coldest), order by order. */
static void pcp_drain(struct age_buddy *b, unsigned long count)
{
	unsigned int o = 0, empty = 0;

	while (count && b->pcp_count && empty <= PCP_MAX_ORDER) {
		uint32_t pfn = b->pcp[o].tail;

		if (pfn == NONE) {
			empty++;
		} else {
			empty = 0;
			fl_del(b, &b->pcp[o], pfn);
			b->pcp_count -= 1UL << o;
			count = count > (1UL << o) ? count - (1UL << o) : 0;
			buddy_free(b, pfn, o);
		}
		o = (o + 1) % (PCP_MAX_ORDER + 1);
	}
}

/* free_frozen_pages(): small orders to the pcp list's head, a batch out once past high. */
static void page_free(struct age_buddy *b, uint32_t pfn, unsigned int order)
{
	if (order > PCP_MAX_ORDER) {
		buddy_free(b, pfn, order);
		return;
	}
	fl_add_head(b, &b->pcp[order], pfn);
	b->pcp_count += 1UL << order;
	if (b->pcp_count >= PCP_HIGH_AGE)
		pcp_drain(b, PCP_BATCH);
}

/*
 * rmqueue(): small orders from the pcp list's head, refilled with a batch
 * from the buddy (rmqueue_bulk(), each block to the tail) when empty;
 * larger ones from the buddy.  On failure every pcp page goes back to the
 * buddy (drain_all_pages(), as before compaction) and it tries once more.
 */
static long page_alloc(struct age_buddy *b, unsigned int order)
{
	struct flist *l = &b->pcp[order <= PCP_MAX_ORDER ? order : 0];
	unsigned int i;
	long pfn;

	for (int again = 0; again < 2; again++) {
		if (order > PCP_MAX_ORDER) {
			pfn = buddy_alloc(b, order);
		} else {
			/* rmqueue_bulk(): the whole batch, as far as the buddy has it */
			for (i = 0; l->head == NONE && i < (PCP_BATCH >> order); i++) {
				pfn = buddy_alloc(b, order);
				if (pfn < 0)
					break;
				fl_add_tail(b, l, (uint32_t)pfn);
				b->pcp_count += 1UL << order;
				while (++i < (PCP_BATCH >> order) && (pfn = buddy_alloc(b, order)) >= 0) {
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
	unsigned long n = nr_pfns ? nr_pfns : 1;
	unsigned int o;

	memset(b, 0, sizeof(*b));
	b->nr_pfns = nr_pfns;
	b->head = malloc(n);
	b->next = malloc(n * sizeof(*b->next));
	b->prev = malloc(n * sizeof(*b->prev));
	b->blk_free = calloc(nr_blocks(n), sizeof(*b->blk_free));
	if (!b->head || !b->next || !b->prev || !b->blk_free)
		return -1;
	memset(b->head, -1, nr_pfns);
	for (o = 0; o <= MAX_PAGE_ORDER; o++)
		b->area[o] = (struct flist){ NONE, NONE };
	for (o = 0; o <= PCP_MAX_ORDER; o++)
		b->pcp[o] = (struct flist){ NONE, NONE };
	return 0;
}

static void buddy_release(struct age_buddy *b)
{
	free(b->head);
	free(b->next);
	free(b->prev);
	free(b->blk_free);
}

/* A folio compact_block() moved: its record, where it was and its descriptor there. */
struct migrated {
	uint32_t rec, pfn;	/* the record and where it was */
	unsigned long desc;	/* its descriptor there */
};

/*
 * The trace's folios are records: DESC_AGED's the plan's folios (0..n-1)
 * and the round's short-lived ones after them, DESC_TRACE's one per
 * allocation event.  owner[pfn] is the record of the live folio whose head
 * is pfn (NONE for none), blk_used[] the pages of live folios in each
 * pageblock: what compaction reads.
 */
struct trace_state {
	struct age_buddy b;
	const struct age_trace_ops *ops;
	struct age_trace *t;
	uint64_t rng, h;
	unsigned long next_id;		/* the next descriptor id */
	struct age_folio *rec;
	unsigned long *rec_desc;	/* each record's descriptor id */
	uint32_t *owner;
	uint16_t *blk_used;
	struct migrated *moved;		/* compact_block()'s, room for a pageblock of folios */
	bool compaction;
	bool deferred;			/* compaction found no block; none until a free */
};

static void own(struct trace_state *s, uint32_t r)
{
	s->owner[s->rec[r].pfn] = r;
	blk_count(s->blk_used, s->rec[r].pfn, s->rec[r].order, 1);
}

static void disown(struct trace_state *s, uint32_t r)
{
	s->owner[s->rec[r].pfn] = NONE;
	blk_count(s->blk_used, s->rec[r].pfn, s->rec[r].order, -1);
}

/*
 * Compaction's free scanner and compaction_alloc(): isolate_freepages()
 * walks pageblocks down from the zone's end, and isolate_freepages_block()
 * takes every buddy block of one off the free lists, whole, onto
 * cc->freepages[order]; compaction_alloc_noprof() serves a folio of order
 * from the smallest list that fits, the rest of a split block back onto
 * the lists, and scans another pageblock when they hold none.
 */
struct compact_free {
	struct flist list[BASE_PAGE_MAX_PAGE_ORDER + 1];	/* cc->freepages[], linked through the buddy's arrays */
	long pb;				/* the next pageblock the free scanner reads */
	unsigned long skip;			/* the pageblock being emptied */
};

static void cf_isolate_block(struct trace_state *s, struct compact_free *cf, unsigned long pb)
{
	struct age_buddy *b = &s->b;
	uint32_t pfn = (uint32_t)(pb << PAGEBLOCK_ORDER), end = pfn + PB_PAGES;

	if (end > b->nr_pfns)
		end = (uint32_t)b->nr_pfns;
	while (pfn < end) {
		int o = b->head[pfn];

		if (o < 0) {
			pfn++;
			continue;
		}
		area_del(b, pfn, (unsigned int)o);
		fl_add_tail(b, &cf->list[o], pfn);
		pfn += 1U << o;
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
		while (cf->pb >= 0 && ((unsigned long)cf->pb == cf->skip || !b->blk_free[cf->pb]))
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
 * by live folios the migrate scanner isolates (anon and file folios below
 * the target order and pageblock_order: skip_isolation_on_order();
 * isolate_migratepages_block() takes no slab, page table, hugetlb or
 * reserved page, so a block holding one never empties), with the fewest
 * pages in use: the least migration that frees a pageblock, which
 * fast_find_migrateblock() aims at by picking blocks off the free lists.
 * -1 for none, or when the other blocks' free pages cannot hold its folios.
 */
static long compact_target(struct trace_state *s, unsigned int order)
{
	unsigned long nb = s->b.nr_pfns >> PAGEBLOCK_ORDER, pb, total = 0, best_used = PB_PAGES;
	long best = -1;

	for (pb = 0; pb < nr_blocks(s->b.nr_pfns); pb++)
		total += s->b.blk_free[pb];
	for (pb = 0; pb < nb; pb++) {
		unsigned long used = s->blk_used[pb];
		uint32_t pfn, end;

		if (used + s->b.blk_free[pb] != PB_PAGES || !used || used >= best_used)
			continue;
		for (pfn = (uint32_t)(pb << PAGEBLOCK_ORDER), end = pfn + PB_PAGES; pfn < end; pfn++)
			if (s->owner[pfn] != NONE && s->rec[s->owner[pfn]].order >= order)
				break;
		if (pfn == end) {
			best = (long)pb;
			best_used = used;
		}
	}
	return best >= 0 && total - s->b.blk_free[best] >= best_used ? best : -1;
}


/*
 * compact_zone() on one pageblock: each live folio in it (pfn order, as
 * isolate_migratepages_block() isolates them) migrated to a folio
 * compaction_alloc() gives, with a new descriptor (migrate_pages_batch()
 * allocates every destination of a batch, then frees the sources; a
 * memdesc's destination folio is allocated like any other); the sources'
 * pages back to the buddy, where they merge into the free pageblock.  1
 * emptied, 0 not (compaction_alloc() found too little), -1 out of memory.
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
		s->rec_desc[r] = s->next_id++;
		hash_event(&s->h, 'M', (uint32_t)dst, s->rec[r].order);
		if (s->ops->desc_alloc(s->ops->arg, s->rec_desc[r], s->rec[r].order))
			return -1;
		pfn += 1U << s->rec[r].order;
	}
	for (i = 0; i < nr; i++) {
		unsigned int order = s->rec[s->moved[i].rec].order;

		s->ops->desc_free(s->ops->arg, s->moved[i].desc, order);
		buddy_free(&s->b, s->moved[i].pfn, order);
	}
	cf_release(s, &cf);
	s->t->migrated += nr;
	s->t->compactions += pfn >= end;
	return pfn >= end;
}

/*
 * Compaction until a free block of order exists (__compact_finished()),
 * one pageblock at a time; deferred (defer_compaction()) once it finds
 * nothing to empty, until a folio is freed.  0, or -1 out of memory.
 */
static int compact(struct trace_state *s, unsigned int order)
{
	long pb;

	if (!s->compaction || s->deferred)
		return 0;
	pcp_drain(&s->b, s->b.pcp_count);	/* drain_all_pages() */
	while (!buddy_has(&s->b, order)) {
		int ret;

		pb = compact_target(s, order);
		ret = pb < 0 ? 0 : compact_block(s, (unsigned long)pb);
		if (ret < 0)
			return -1;
		if (!ret) {
			s->deferred = true;
			break;
		}
	}
	return 0;
}

/*
 * Record r allocated: pfns from the buddy (after direct compaction when an
 * order > 0 fails: __alloc_pages_direct_compact()), then a new descriptor.
 * 1 placed, 0 the buddy has none, -1 out of memory.
 */
static int trace_alloc(struct trace_state *s, uint32_t r, unsigned int order, unsigned int kind)
{
	long pfn = page_alloc(&s->b, order);

	if (pfn < 0 && order) {
		if (compact(s, order))
			return -1;
		pfn = page_alloc(&s->b, order);
	}
	if (pfn < 0)
		return 0;
	s->rec[r] = (struct age_folio){ .pfn = (uint32_t)pfn, .order = (uint8_t)order,
					.kind = (uint8_t)kind };
	own(s, r);
	s->rec_desc[r] = s->next_id++;
	hash_event(&s->h, 'A', (uint32_t)pfn, order);
	return s->ops->desc_alloc(s->ops->arg, s->rec_desc[r], order) ? -1 : 1;
}

static void trace_free(struct trace_state *s, uint32_t r)
{
	const struct age_folio *f = &s->rec[r];

	s->ops->desc_free(s->ops->arg, s->rec_desc[r], f->order);
	hash_event(&s->h, 'F', f->pfn, f->order);
	disown(s, r);
	page_free(&s->b, f->pfn, f->order);
	s->deferred = false;
}

/*
 * One round of the seeded trace: k folios freed in random order; k
 * allocated again (the same orders and kinds, wherever the buddy puts them
 * now) among t short-lived ones of the mix's orders (records n..n+t-1),
 * freed at the round's end.  A folio the buddy cannot serve waits for the
 * round's end; if it fails then too it is gone (t->failures).
 */
static int trace_round(struct trace_state *s, const struct age_list *l, uint32_t *idx,
		       uint32_t *late_id, size_t k, size_t t)
{
	struct age_folio *rec = s->rec;
	size_t n = l->nr, i, rec_n = 0, made = 0, late = 0;
	int ret;

	for (i = 0; i < k; i++)
		swap_u32(&idx[i], &idx[i + mdb_rng_below(&s->rng, n - i)]);
	for (i = 0; i < k; i++)
		if (rec[idx[i]].kind != AGE_GONE)
			trace_free(s, idx[i]);
	for (i = k; i > 1; i--)
		swap_u32(&idx[i - 1], &idx[mdb_rng_below(&s->rng, i)]);
	while (rec_n < k || made < t) {
		if (made < t && mdb_rng_below(&s->rng, k - rec_n + t - made) < t - made) {
			unsigned int order = l->f[mdb_rng_below(&s->rng, n)].order;
			uint32_t r = (uint32_t)(n + made++);

			ret = trace_alloc(s, r, order, PK_ANON);
			if (ret < 0)
				return -1;
			if (!ret)
				rec[r].kind = AGE_GONE;
		} else {
			uint32_t id = idx[rec_n++];

			if (rec[id].kind == AGE_GONE)
				continue;
			ret = trace_alloc(s, id, rec[id].order, rec[id].kind);
			if (ret < 0)
				return -1;
			if (!ret)
				late_id[late++] = id;
		}
	}
	for (i = 0; i < t; i++)
		if (rec[n + i].kind != AGE_GONE)
			trace_free(s, (uint32_t)(n + i));
	for (i = 0; i < late; i++) {
		struct age_folio *f = &rec[late_id[i]];

		ret = trace_alloc(s, late_id[i], f->order, f->kind);
		if (ret < 0)
			return -1;
		if (!ret) {
			f->kind = AGE_GONE;
			s->t->failures++;
		}
	}
	return 0;
}

static int trace_seeded(struct trace_state *s, const struct age_list *folios)
{
	size_t n = folios->nr, k = n / AGE_FRACTION_DEN, tn = k / AGE_TRANSIENT_DEN, i;
	uint32_t *idx = malloc((n ? n : 1) * sizeof(*idx)), *late = malloc((k ? k : 1) * sizeof(*late));
	int ret = -1;

	if (!idx || !late)
		goto out;
	for (i = 0; i < n; i++) {
		s->rec[i] = folios->f[i];
		s->rec_desc[i] = s->next_id++;
		own(s, (uint32_t)i);
		idx[i] = (uint32_t)i;
		hash_event(&s->h, 'A', folios->f[i].pfn, folios->f[i].order);
		if (s->ops->desc_alloc(s->ops->arg, s->rec_desc[i], folios->f[i].order))
			goto out;
	}
	for (unsigned int r = 0; r < AGE_ROUNDS && k; r++)
		if (trace_round(s, folios, idx, late, k, tn))
			goto out;
	ret = 0;
out:
	free(idx);
	free(late);
	return ret;
}

/* DESC_TRACE: the plan's anon and file folios to the buddy, then the recorded events. */
static int trace_replayed(struct trace_state *s, const struct age_list *folios,
			  const struct age_replay *rp)
{
	size_t i;
	int ret;

	for (i = 0; i < folios->nr; i++)
		buddy_free(&s->b, folios->f[i].pfn, folios->f[i].order);
	for (i = 0; i < rp->nr_events; i++) {
		const struct age_event *e = &rp->ev[i];

		if (e->kind == AGE_FREE_EVENT) {
			if (s->rec[e->rec].kind != AGE_GONE)
				trace_free(s, e->rec);
			continue;
		}
		ret = trace_alloc(s, e->rec, e->order, e->kind);
		if (ret < 0)
			return -1;
		if (!ret) {
			s->rec[e->rec] = (struct age_folio){ .order = e->order, .kind = AGE_GONE };
			s->t->failures++;
		}
	}
	return 0;
}

/* The records live at the end: DESC_AGED's folios, every one; DESC_TRACE's, those not freed. */
static int trace_final(struct trace_state *s, size_t nr_rec, bool all)
{
	struct age_trace *t = s->t;
	size_t i, n = 0;

	t->final = malloc((nr_rec ? nr_rec : 1) * sizeof(*t->final));
	t->final_desc = malloc((nr_rec ? nr_rec : 1) * sizeof(*t->final_desc));
	if (!t->final || !t->final_desc)
		return -1;
	for (i = 0; i < nr_rec; i++) {
		bool live = s->rec[i].kind != AGE_GONE && s->owner[s->rec[i].pfn] == i;

		if (!all && !live)
			continue;
		t->final[n] = s->rec[i];
		t->final_desc[n++] = s->rec_desc[i];
	}
	t->nr_final = n;
	return 0;
}

int age_trace_run(const struct age_list *folios, const struct age_list *free_blocks,
		  unsigned long nr_pfns, uint64_t seed, const struct age_trace_how *how,
		  const struct age_trace_ops *ops, struct age_trace *t)
{
	const struct age_replay *rp = how ? how->replay : NULL;
	size_t tn = folios->nr / AGE_FRACTION_DEN / AGE_TRANSIENT_DEN;
	size_t nr_rec = rp ? rp->nr_alloc : folios->nr + tn, i;
	struct trace_state s = { .ops = ops, .t = t, .rng = seed ^ AGE_SALT, .h = FNV_OFFSET,
				 .compaction = !how || !how->no_compaction };
	int ret = -1;

	memset(t, 0, sizeof(*t));
	s.rec = calloc(nr_rec ? nr_rec : 1, sizeof(*s.rec));
	s.rec_desc = calloc(nr_rec ? nr_rec : 1, sizeof(*s.rec_desc));
	s.owner = malloc((nr_pfns ? nr_pfns : 1) * sizeof(*s.owner));
	s.blk_used = calloc(nr_blocks(nr_pfns ? nr_pfns : 1), sizeof(*s.blk_used));
	s.moved = malloc(PB_PAGES * sizeof(*s.moved));
	if (!s.rec || !s.rec_desc || !s.owner || !s.blk_used || !s.moved || buddy_init(&s.b, nr_pfns))
		goto out;
	memset(s.owner, 0xff, nr_pfns * sizeof(*s.owner));
	/* Boot: the plan's free blocks to the buddy, its folios where it put them. */
	for (i = 0; i < free_blocks->nr; i++)
		buddy_free(&s.b, free_blocks->f[i].pfn, free_blocks->f[i].order);
	if (rp ? trace_replayed(&s, folios, rp) : trace_seeded(&s, folios))
		goto out;
	/* kcompactd, woken when a THP allocation finds no free pageblock (wakeup_kcompactd()). */
	pcp_drain(&s.b, s.b.pcp_count);
	s.deferred = false;
	if (compact(&s, PAGEBLOCK_ORDER) || trace_final(&s, rp ? nr_rec : folios->nr, !rp))
		goto out;
	t->nr_ids = s.next_id;
	/* What the buddy holds at the end is free memory, in pfn order. */
	pcp_drain(&s.b, s.b.pcp_count);
	for (i = 0; i < nr_pfns; i++)
		if (s.b.head[i] >= 0 && age_list_add(&t->free, i, (unsigned int)s.b.head[i], 0))
			goto out;
	ret = 0;
out:
	t->digest = s.h;
	buddy_release(&s.b);
	free(s.rec);
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
