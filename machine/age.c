// SPDX-License-Identifier: GPL-2.0
/*
 * age.c - the descriptor churn that ages a machine (see age.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "age.h"
#include "mix.h"
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
	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		struct age_folio *f = realloc(l->f, cap * sizeof(*f));

		if (!f)
			return -1;
		l->f = f;
		l->cap = cap;
	}
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
/* The allocation trace (DESC_AGED): a buddy with per-CPU lists of its own.  */

#define NONE			UINT32_MAX
#define PCP_MAX_ORDER		3	/* PAGE_ALLOC_COSTLY_ORDER: orders the pcp lists keep */
#define PCP_BATCH		63U	/* zone_batchsize() of a zone of 1 GiB and more */
#define PCP_HIGH		(6 * PCP_BATCH)	/* pages a CPU keeps before it frees a batch */

struct flist {
	uint32_t head, tail;
};

/*
 * The zone's free_area[] and one CPU's per_cpu_pages, over pfns: head[pfn]
 * is the order of the free buddy block starting there, -1 for none (a page
 * on a pcp list is no buddy block: __free_one_page() does not merge it).
 */
struct age_buddy {
	unsigned long nr_pfns;
	int8_t *head;
	uint32_t *next, *prev;
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

/* __free_one_page(): merged with free buddies of the same order, onto the list's head. */
static void buddy_free(struct age_buddy *b, uint32_t pfn, unsigned int order)
{
	while (order < MAX_PAGE_ORDER) {
		uint32_t buddy = pfn ^ (1U << order);

		if (buddy >= b->nr_pfns || b->head[buddy] != (int8_t)order)
			break;
		fl_del(b, &b->area[order], buddy);
		b->head[buddy] = -1;
		pfn &= ~(1U << order);
		order++;
	}
	b->head[pfn] = (int8_t)order;
	fl_add_head(b, &b->area[order], pfn);
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
	fl_del(b, &b->area[o], pfn);
	b->head[pfn] = -1;
	while (o > order) {
		o--;
		b->head[pfn + (1U << o)] = (int8_t)o;
		fl_add_head(b, &b->area[o], pfn + (1U << o));
	}
	return pfn;
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
	if (b->pcp_count >= PCP_HIGH)
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
			for (i = 0; l->head == NONE && i < (PCP_BATCH >> order); i++) {
				pfn = buddy_alloc(b, order);
				if (pfn < 0)
					break;
				fl_add_tail(b, l, (uint32_t)pfn);
				b->pcp_count += 1UL << order;
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

static int buddy_init(struct age_buddy *b, unsigned long nr_pfns)
{
	unsigned int o;

	memset(b, 0, sizeof(*b));
	b->nr_pfns = nr_pfns;
	b->head = malloc(nr_pfns ? nr_pfns : 1);
	b->next = malloc((nr_pfns ? nr_pfns : 1) * sizeof(*b->next));
	b->prev = malloc((nr_pfns ? nr_pfns : 1) * sizeof(*b->prev));
	if (!b->head || !b->next || !b->prev)
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
}

struct trace_state {
	struct age_buddy b;
	const struct age_trace_ops *ops;
	struct age_trace *t;
	uint64_t rng, h;
	unsigned long next_id;		/* transient descriptors' ids follow the folios' */
};

/* One folio allocated: pfns from the buddy, then its descriptor; false when the buddy has none. */
static bool trace_alloc(struct trace_state *s, unsigned long id, unsigned int order,
			unsigned int kind, struct age_folio *where)
{
	long pfn = page_alloc(&s->b, order);

	if (pfn < 0)
		return false;
	*where = (struct age_folio){ .pfn = (uint32_t)pfn, .order = (uint8_t)order,
				     .kind = (uint8_t)kind };
	hash_event(&s->h, 'A', (uint32_t)pfn, order);
	if (s->ops->desc_alloc(s->ops->arg, id, order))
		return false;
	return true;
}

static void trace_free(struct trace_state *s, unsigned long id, const struct age_folio *f)
{
	s->ops->desc_free(s->ops->arg, id, f->order);
	hash_event(&s->h, 'F', f->pfn, f->order);
	page_free(&s->b, f->pfn, f->order);
}

/*
 * One round of the trace: k folios freed in random order; k allocated again
 * (the same orders and kinds, wherever the buddy puts them now) among t
 * short-lived ones of the mix's orders, freed at the round's end.  A folio
 * the buddy cannot serve waits for the round's end; if it fails then too
 * it is gone (t->failures).
 */
static int trace_round(struct trace_state *s, const struct age_list *l, uint32_t *idx,
		       uint32_t *late_id, struct age_folio *tr, unsigned long *tr_id, size_t k,
		       size_t t)
{
	struct age_trace *out = s->t;
	size_t n = l->nr, i, rec = 0, made = 0, late = 0;

	for (i = 0; i < k; i++)
		swap_u32(&idx[i], &idx[i + mdb_rng_below(&s->rng, n - i)]);
	for (i = 0; i < k; i++)
		if (out->final[idx[i]].kind != AGE_GONE)
			trace_free(s, idx[i], &out->final[idx[i]]);
	for (i = k; i > 1; i--)
		swap_u32(&idx[i - 1], &idx[mdb_rng_below(&s->rng, i)]);
	while (rec < k || made < t) {
		if (made < t && mdb_rng_below(&s->rng, k - rec + t - made) < t - made) {
			unsigned int order = l->f[mdb_rng_below(&s->rng, n)].order;

			tr_id[made] = s->next_id++;
			if (!trace_alloc(s, tr_id[made], order, PK_ANON, &tr[made]))
				tr[made].kind = AGE_GONE;
			made++;
		} else {
			uint32_t id = idx[rec++];
			struct age_folio *f = &out->final[id];

			if (f->kind == AGE_GONE)
				continue;
			if (!trace_alloc(s, id, f->order, f->kind, f))
				late_id[late++] = id;
		}
	}
	for (i = 0; i < t; i++)
		if (tr[i].kind != AGE_GONE)
			trace_free(s, tr_id[i], &tr[i]);
	for (i = 0; i < late; i++) {
		struct age_folio *f = &out->final[late_id[i]];

		if (!trace_alloc(s, late_id[i], f->order, f->kind, f)) {
			f->kind = AGE_GONE;
			out->failures++;
		}
	}
	return 0;
}

int age_trace_run(const struct age_list *folios, const struct age_list *free_blocks,
		  unsigned long nr_pfns, uint64_t seed, const struct age_trace_ops *ops,
		  struct age_trace *t)
{
	size_t n = folios->nr, k = n / AGE_FRACTION_DEN, tn = k / AGE_TRANSIENT_DEN, i;
	struct trace_state s = { .ops = ops, .t = t, .rng = seed ^ AGE_SALT, .h = FNV_OFFSET };
	uint32_t *idx = malloc((n ? n : 1) * sizeof(*idx)), *late = malloc((k ? k : 1) * sizeof(*late));
	struct age_folio *tr = malloc((tn ? tn : 1) * sizeof(*tr));
	unsigned long *tr_id = malloc((tn ? tn : 1) * sizeof(*tr_id));
	int ret = -1;

	memset(t, 0, sizeof(*t));
	t->final = malloc((n ? n : 1) * sizeof(*t->final));
	if (!idx || !late || !tr || !tr_id || !t->final || buddy_init(&s.b, nr_pfns))
		goto out;
	s.next_id = n;
	/* Boot: the plan's free blocks to the buddy, its folios allocated where it put them. */
	for (i = 0; i < free_blocks->nr; i++)
		buddy_free(&s.b, free_blocks->f[i].pfn, free_blocks->f[i].order);
	for (i = 0; i < n; i++) {
		t->final[i] = folios->f[i];
		idx[i] = (uint32_t)i;
		hash_event(&s.h, 'A', folios->f[i].pfn, folios->f[i].order);
		if (ops->desc_alloc(ops->arg, i, folios->f[i].order))
			goto out;
	}
	for (unsigned int r = 0; r < AGE_ROUNDS && k; r++)
		if (trace_round(&s, folios, idx, late, tr, tr_id, k, tn))
			goto out;
	t->nr_ids = s.next_id;
	/* What the buddy and the pcp lists hold at the end is free memory, in pfn order. */
	pcp_drain(&s.b, s.b.pcp_count);
	for (i = 0; i < nr_pfns; i++)
		if (s.b.head[i] >= 0 && age_list_add(&t->free, i, (unsigned int)s.b.head[i], 0))
			goto out;
	ret = 0;
out:
	t->digest = s.h;
	buddy_release(&s.b);
	free(idx);
	free(late);
	free(tr);
	free(tr_id);
	return ret;
}

void age_trace_release(struct age_trace *t)
{
	free(t->final);
	age_list_release(&t->free);
	memset(t, 0, sizeof(*t));
}
