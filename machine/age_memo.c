// SPDX-License-Identifier: GPL-2.0
/*
 * age_memo.c - the allocation trace recorded once, replayed to every layout
 * (see age_memo.h).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "age_memo.h"
#include "grow.h"

/* A kept trace: its inputs, compared whole, and what it did. */
struct memo {
	struct age_list folios, free_blocks;
	unsigned long nr_pfns;
	uint64_t seed;
	const struct age_replay *replay;	/* how: the replayed trace, and its sha256 */
	char replay_sha256[65];
	bool no_compaction;
	uint64_t *ev;			/* descriptor events, event_pack()ed, in order */
	size_t nr_ev, cap_ev;
	struct age_trace out;		/* final, free, nr_ids, failures, compactions, digest */
	unsigned long used;		/* for eviction: the least recently used goes */
};

static struct memo memos[AGE_MEMO_ENTRIES];
static unsigned long clock_now, nr_runs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* id << 8 | order << 1 | alloc: orders stop below 128, ids below 2^56. */
/* id, then whether the folio is anon (its caches differ from a file folio's), order, alloc. */
#define EVENT_ANON	0x80
_Static_assert(MIX_MAX_ORDER < 0x40, "an event's order takes bits 1-6");

static inline uint64_t event_pack(unsigned long id, unsigned int order, unsigned int kind, bool alloc)
{
	return (uint64_t)id << 8 | (kind == PK_ANON ? EVENT_ANON : 0) | (uint64_t)order << 1 | alloc;
}

static void memo_release(struct memo *m)
{
	age_list_release(&m->folios);
	age_list_release(&m->free_blocks);
	free(m->ev);
	age_trace_release(&m->out);
	memset(m, 0, sizeof(*m));
}

static bool list_equal(const struct age_list *a, const struct age_list *b)
{
	return a->nr == b->nr && (!a->nr || !memcmp(a->f, b->f, a->nr * sizeof(*a->f)));
}

/* A copy of n folios of src into dst; 0, or -1 out of memory. */
static int list_copy(struct age_list *dst, const struct age_folio *src, size_t n)
{
	dst->f = malloc((n ? n : 1) * sizeof(*src));
	if (!dst->f)
		return -1;
	if (n)
		memcpy(dst->f, src, n * sizeof(*src));
	dst->nr = dst->cap = n;
	return 0;
}

static struct memo *memo_find(const struct age_list *folios, const struct age_list *free_blocks,
			      unsigned long nr_pfns, uint64_t seed, const struct age_trace_how *how)
{
	for (int i = 0; i < AGE_MEMO_ENTRIES; i++) {
		struct memo *m = &memos[i];

		if (m->used && m->nr_pfns == nr_pfns && m->seed == seed &&
		    m->replay == how->replay && m->no_compaction == how->no_compaction &&
		    (!how->replay || !strcmp(m->replay_sha256, how->replay->sha256)) &&
		    list_equal(&m->folios, folios) && list_equal(&m->free_blocks, free_blocks))
			return m;
	}
	return NULL;
}

/* src copied into dst, as age_trace_run() leaves it; 0 or -1. */
static int trace_copy(struct age_trace *dst, const struct age_trace *src)
{
	size_t nr = src->nr_final;

	memset(dst, 0, sizeof(*dst));
	if (list_copy(&dst->free, src->free.f, src->free.nr))
		return -1;
	dst->final = malloc((nr ? nr : 1) * sizeof(*dst->final));
	dst->final_desc = malloc((nr ? nr : 1) * sizeof(*dst->final_desc));
	if (!dst->final || !dst->final_desc)
		return -1;
	if (nr) {
		memcpy(dst->final, src->final, nr * sizeof(*dst->final));
		memcpy(dst->final_desc, src->final_desc, nr * sizeof(*dst->final_desc));
	}
	dst->nr_final = nr;
	dst->nr_ids = src->nr_ids;
	dst->failures = src->failures;
	dst->compactions = src->compactions;
	dst->migrated = src->migrated;
	memcpy(dst->pageblocks, src->pageblocks, sizeof(dst->pageblocks));
	memcpy(dst->free_blocks, src->free_blocks, sizeof(dst->free_blocks));
	dst->pcp_pages = src->pcp_pages;
	dst->conflicts = src->conflicts;
	dst->digest = src->digest;
	return 0;
}

static int replay(const struct memo *m, const struct age_trace_ops *ops, struct age_trace *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < m->nr_ev; i++) {
		unsigned long id = (unsigned long)(m->ev[i] >> 8);
		unsigned int order = (unsigned int)(m->ev[i] >> 1 & 0x3f);
		unsigned int kind = m->ev[i] & EVENT_ANON ? PK_ANON : PK_FILE;

		if (!(m->ev[i] & 1))
			ops->desc_free(ops->arg, id, order, kind);
		else if (ops->desc_alloc(ops->arg, id, order, kind))
			return -1;
	}
	return trace_copy(t, &m->out);
}

/* The events as the trace hands them on: recorded, then passed to the caller's ops. */
struct recorder {
	const struct age_trace_ops *ops;
	struct memo *m;
	bool lost;			/* an event not recorded (out of memory): keep nothing */
};

static void record(struct recorder *r, unsigned long id, unsigned int order, unsigned int kind,
		   bool alloc)
{
	struct memo *m = r->m;
	uint64_t *ev;

	if (r->lost)
		return;
	ev = mdb_grow(m->ev, &m->cap_ev, m->nr_ev + 1, sizeof(*ev));

	if (!ev) {
		r->lost = true;
		return;
	}
	m->ev = ev;
	m->ev[m->nr_ev++] = event_pack(id, order, kind, alloc);
}

static int record_alloc(void *arg, unsigned long id, unsigned int order, unsigned int kind)
{
	struct recorder *r = arg;

	record(r, id, order, kind, true);
	return r->ops->desc_alloc(r->ops->arg, id, order, kind);
}

static void record_free(void *arg, unsigned long id, unsigned int order, unsigned int kind)
{
	struct recorder *r = arg;

	record(r, id, order, kind, false);
	r->ops->desc_free(r->ops->arg, id, order, kind);
}

/* The slot to record into: a free one, else the least recently used, emptied. */
static struct memo *memo_victim(void)
{
	struct memo *v = &memos[0];

	for (int i = 0; i < AGE_MEMO_ENTRIES; i++) {
		if (!memos[i].used)
			return &memos[i];
		if (memos[i].used < v->used)
			v = &memos[i];
	}
	memo_release(v);
	return v;
}

static int run_and_record(const struct age_list *folios, const struct age_list *free_blocks,
			  unsigned long nr_pfns, uint64_t seed, const struct age_trace_how *how,
			  const struct age_trace_ops *ops, struct age_trace *t)
{
	struct memo *m = memo_victim();
	struct recorder r = { .ops = ops, .m = m };
	const struct age_trace_ops rec = { .desc_alloc = record_alloc, .desc_free = record_free, .arg = &r };

	nr_runs++;
	if (age_trace_run(folios, free_blocks, nr_pfns, seed, how, &rec, t)) {
		memo_release(m);
		return -1;
	}
	if (r.lost || list_copy(&m->folios, folios->f, folios->nr) ||
	    list_copy(&m->free_blocks, free_blocks->f, free_blocks->nr) ||
	    trace_copy(&m->out, t)) {
		memo_release(m);	/* the trace ran; it is only not kept */
		return 0;
	}
	m->nr_pfns = nr_pfns;
	m->seed = seed;
	m->replay = how->replay;
	if (how->replay)
		memcpy(m->replay_sha256, how->replay->sha256, sizeof(m->replay_sha256));
	m->no_compaction = how->no_compaction;
	m->used = ++clock_now;
	return 0;
}

int age_trace_memo_run(const struct age_list *folios, const struct age_list *free_blocks,
		       unsigned long nr_pfns, uint64_t seed, const struct age_trace_how *how,
		       const struct age_trace_ops *ops, struct age_trace *t)
{
	static const struct age_trace_how seeded;
	struct memo *m;
	int ret;

	if (!how)
		how = &seeded;
	pthread_mutex_lock(&lock);
	m = memo_find(folios, free_blocks, nr_pfns, seed, how);
	if (m) {
		m->used = ++clock_now;
		ret = replay(m, ops, t);
	} else {
		ret = run_and_record(folios, free_blocks, nr_pfns, seed, how, ops, t);
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

unsigned long age_memo_runs(void)
{
	unsigned long n;

	pthread_mutex_lock(&lock);
	n = nr_runs;
	pthread_mutex_unlock(&lock);
	return n;
}

void age_memo_release(void)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < AGE_MEMO_ENTRIES; i++)
		memo_release(&memos[i]);
	pthread_mutex_unlock(&lock);
}
