// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - data lines per op of the sequential kernels (see model.h).
 *
 * Notation: E = 64 / sizeof(struct page) memmap entries per line (1, 2, 8),
 * e = log2(E); n[k][o] blocks of kind k and order o; N pfns.  Blocks are
 * naturally aligned, so a block of order >= e covers whole memmap lines,
 * and the lines that no such block covers hold only blocks of order < e.
 * Each formula gives streamed + dependent lines (model.h).
 *
 * lookup/seq	streamed N/E, dependent folios x D_lookup, over N.
 *		Every entry is read.  A folio's flag and count live in its
 *		descriptor in page32 and memdesc8 (page_test_flag(),
 *		page_ref_count() go through the memdesc), read once per folio
 *		since its pages follow each other; page64's tails read the
 *		head, already in L1.  No other kind hops: their flags and
 *		counts are in the entry (page32) or implied by the tag
 *		(memdesc8).
 * scan/compaction
 *		A free block is skipped by its order; a folio below
 *		SCAN_COMPACT_ORDER is isolated (isolate_migratepages_block():
 *		flags, mapping, counts, memcg_data, its page count) and one of
 *		that order or above skipped by folio_order(); anything else is
 *		walked entry by entry.  Memmap lines: M = 1 for a skipped
 *		block or folio of order >= e (its head entry; the walk skips
 *		the rest), 2^o / E otherwise (small blocks share lines).  A
 *		folio's fields beyond its entry (LAYOUT_MODEL .isolate and
 *		.isolate_large, or .scan and .scan_large) are descriptor lines
 *		in page32 and memdesc8, dependent; in page64 the next line of
 *		the memmap (the first tail: _large_mapcount, _nr_pages,
 *		_flags_1), streamed.  A block spanning more memmap lines than
 *		the walk reads of it leaves a gap: the line the walk lands on
 *		after it is dependent (its address comes from the order just
 *		read), one per such block; the rest of the memmap is streamed.
 * compaction/cluster
 *		Per cluster, over the first pass of the scan, with the LRU in
 *		the random order set-up links it in.  The folios isolation
 *		takes are the file folios below SCAN_COMPACT_ORDER (the mix's
 *		anon folios are unmapped with a reference: the pinned-anon
 *		check refuses them); a pass takes each once, in runs of one
 *		order (the plan lays a pageblock out largest first), so a
 *		cluster is 32 >> o folios of order o (one where 2^o > 32) and
 *		the pass's C clusters are the sum of those.  Per cluster:
 *		scan/compaction's lines over the pass / C (isolation reads what
 *		that scan reads); 2 x folios / C dependent lines for
 *		lruvec_del_folio()'s list_del(), which writes the folio's LRU
 *		neighbours' links (random folios; each link is a field of one
 *		line in every layout); and, streamed, the memmap lines of the
 *		old block that the scan did not read, which folio_destroy()
 *		(free_pages_prepare()) writes.  Counted as hits: the folio's
 *		own lines again (unlinking, cc->migratepages, migration), the
 *		new block (the one the previous folio of its order left on the
 *		pcp's or free list's head, entries just written), its
 *		descriptor (the one the previous folio freed: the cache's
 *		LIFO), the lists' heads, folio_putback_lru() at the LRU's head
 *		(the folio put back before).  Left out: the pcp's refill from
 *		the buddy (rmqueue_bulk(), once an order), a merge with a free
 *		buddy of an order the pcp does not keep (the next allocation
 *		then splits a block elsewhere), the ends of the runs, the
 *		pass's wrap, and later passes, whose LRU holds the folios in
 *		the order the first put them back (neighbours the scan meets
 *		next: fewer misses).
 * init/memmap	streamed 2/E, dependent 1/1024 or 0: every entry written by
 *		the first pass (memmap_init_range()), then again by the second
 *		(__free_pages_core(), block by block; the memmap is far larger
 *		than L1 by then), each MAX_PAGE_ORDER block's head rewritten
 *		by set_buddy_order() (a line the second pass wrote just before:
 *		not counted again) and put at the free list's tail
 *		(FPI_TO_TAIL: list_add_tail() writes the previous block's head
 *		entry, reached through the list's prev pointer).  That entry
 *		was written 1024 entries, 1024 / E lines, before: still in a
 *		32 KiB L1 (MODEL_L1_LINES, the simulation's fixed geometry)
 *		only when that is fewer lines than the L1 holds (memdesc8).
 * convert/...	0: pfn_to_page() and page_to_pfn() are arithmetic.
 *
 * D_lookup and the descriptor lines of the scan are lines per descriptor
 * when consecutive folios' descriptors lie next to each other, as fresh
 * descriptor caches hand them out while the mix is placed pfn by pfn within
 * a pageblock: small and large folios each from their own cache, each
 * cache's objects end to end (the few bytes a slab leaves unused at its end
 * are ignored: under 1% of the lines); for a 64-byte descriptor one line;
 * for 80-byte folios the fields of neighbours share lines (computed below
 * from the field offsets).  Aged caches (age.h) scatter descriptors: a hook
 * that needs their stride then has no prediction (model_predict() marks the
 * strides MODEL_DESC_SCATTERED).
 */
#include <math.h>
#include <string.h>

#include "age_memo.h"
#include "model.h"

#define LINE		64
#define MODEL_RUN	4096	/* descriptors in the run lines_per_desc() measures */
#define MODEL_L1_LINES	512	/* 32 KiB: the L1 --simulate's fixed geometry has */

/* Distinct lines of fields read at base, with line 0 excluded when skip0. */
static unsigned int lines_at(const struct model_reads *r, unsigned long base, bool skip0)
{
	unsigned long seen[MODEL_MAX_FIELDS * 2], line;
	unsigned int n = 0, i, k;

	for (i = 0; i < r->nr; i++)
		for (line = (base + r->f[i].off) / LINE;
		     line <= (base + r->f[i].off + r->f[i].len - 1) / LINE; line++) {
			if (skip0 && line == base / LINE)
				continue;
			for (k = 0; k < n && seen[k] != line; k++)
				;
			if (k == n && n < sizeof(seen) / sizeof(seen[0]))
				seen[n++] = line;
		}
	return n;
}

/* The stride of the descriptors of folios of this order: each size has its cache. */
static unsigned int desc_stride(const struct layout_model *m, unsigned int order)
{
	return order ? m->desc_stride_large : m->desc_stride;
}

/*
 * Lines per folio of this order a walk reads beyond the memmap entries it
 * reads anyway: for a folio overlaying its head entry (stride 0), the
 * fields off the entry's line; for separate descriptors laid stride bytes
 * apart from a line boundary (slabs are page aligned), distinct lines over
 * a long run, a line shared with the previous descriptor counted once.
 * NAN for scattered descriptors.
 */
static double lines_per_folio(const struct layout_model *m, const struct model_reads *r,
			      unsigned int order)
{
	unsigned int stride = desc_stride(m, order), i;
	unsigned long last = ~0UL, lines = 0, k, line;

	if (!r->nr)
		return 0;
	if (stride == MODEL_DESC_SCATTERED)
		return NAN;
	if (!stride)
		return lines_at(r, 0, true);
	/* Addresses only grow along the run, so a new line is one above the last. */
	for (k = 0; k < MODEL_RUN; k++)
		for (i = 0; i < r->nr; i++)
			for (line = (k * stride + r->f[i].off) / LINE;
			     line <= (k * stride + r->f[i].off + r->f[i].len - 1) / LINE; line++)
				if (last == ~0UL || line > last) {
					lines++;
					last = line;
				}
	return (double)lines / MODEL_RUN;
}

static int no_desc_alloc(void *arg, unsigned long id, unsigned int order, unsigned int kind)
{
	(void)arg, (void)id, (void)order, (void)kind;
	return 0;
}

static void no_desc_free(void *arg, unsigned long id, unsigned int order, unsigned int kind)
{
	(void)arg, (void)id, (void)order, (void)kind;
}

/* The trace over the plan as memmap_create() runs it: the free blocks and churned folios it leaves. */
static int count_traced(struct model_blocks *b, struct mix_plan *plan, unsigned long nr_pfns,
			uint64_t seed, struct mdb_err *err)
{
	static const struct age_trace_ops ops = { no_desc_alloc, no_desc_free, NULL };
	struct age_list folios = { 0 }, blocks = { 0 };
	struct age_trace t = { 0 };
	struct mix_block m;
	int ret = -1;
	size_t i;

	while (mix_plan_next(plan, &m)) {
		struct age_list *l = m.kind == PK_FREE ? &blocks :
				     m.kind != PK_HUGETLB ? &folios : NULL;

		if (l && age_list_add(l, m.pfn, m.order, m.kind))
			goto out;
		if (!l)
			b->nr[m.kind][m.order]++;
	}
	if (age_trace_memo_run(&folios, &blocks, nr_pfns, seed, NULL, &ops, &t))
		goto out;
	for (i = 0; i < t.nr_final; i++)
		if (t.final[i].kind != AGE_GONE)
			b->nr[t.final[i].kind][t.final[i].order]++;
	for (i = 0; i < t.free.nr; i++)
		b->nr[PK_FREE][t.free.f[i].order]++;
	ret = 0;
out:
	age_trace_release(&t);
	age_list_release(&folios);
	age_list_release(&blocks);
	return ret ? mdb_errf(err, "out of memory for the allocation trace") : 0;
}

int model_count_blocks(struct model_blocks *b, const struct mix *mix, unsigned long nr_pfns,
		       uint64_t seed, enum desc_age age, struct mdb_err *err)
{
	struct mix_plan plan;
	unsigned long covered = 0;
	unsigned int k, o;
	int ret;

	memset(b, 0, sizeof(*b));
	if (mix_plan_init(&plan, mix, nr_pfns, seed, err))
		return mdb_err_prefix(err, "mix %s", mix->name);
	b->nr_pfns = nr_pfns;
	if (age == DESC_AGED && !mix->placed) {	/* a snapshot's pfns stay (memmap_create()) */
		ret = count_traced(b, &plan, nr_pfns, seed, err);
		mix_plan_release(&plan);
		if (ret)
			return ret;
	} else {
		for (k = 0; k < PK_NR; k++)
			for (o = 0; o < MIX_NR_ORDERS; o++)
				b->nr[k][o] = plan.remaining[k][o];
		mix_plan_release(&plan);
	}
	for (k = 0; k < PK_NR; k++)
		for (o = 0; o < MIX_NR_ORDERS; o++)
			covered += b->nr[k][o] << o;
	if (covered < nr_pfns)		/* the plan leaves the rest free, order 0 */
		b->nr[PK_FREE][0] += nr_pfns - covered;
	return 0;
}

static bool is_folio(unsigned int kind)
{
	return page_kind_is_folio(kind);
}

static unsigned long nr_folios(const struct model_blocks *b, unsigned int min_order)
{
	unsigned long n = 0;
	unsigned int o;

	for (o = min_order; o < MIX_NR_ORDERS; o++)
		n += b->nr[PK_ANON][o] + b->nr[PK_FILE][o] + b->nr[PK_HUGETLB][o];
	return n;
}

/* Memmap entries per line; false when the geometry is outside the model. */
static bool entries_per_line(const struct layout_ops *ops, const struct model_blocks *b,
			     unsigned int *per_line)
{
	if (!ops->page_size || LINE % ops->page_size || !b->nr_pfns)
		return false;
	*per_line = LINE / ops->page_size;
	return true;
}

/*
 * Lines a folio's reads cost beyond its memmap entry: the base set, plus
 * the large set for a folio of order > 0 (fields the base set does not
 * reach: page64's first tail).
 */
static double folio_lines(const struct layout_model *m, const struct model_reads *base,
			  const struct model_reads *large, unsigned int order)
{
	return lines_per_folio(m, base, order) + (order ? lines_per_folio(m, large, order) : 0);
}

/* Overlaid fields are memmap lines (streamed); a descriptor's are dependent. */
static void add_folio_lines(const struct layout_model *m, double lines, struct model_lines *out)
{
	if (m->desc_stride)
		out->dependent += lines;
	else
		out->streamed += lines;
}

static void per_pfn(struct model_lines *lines, const struct model_blocks *b)
{
	lines->streamed /= b->nr_pfns;
	lines->dependent /= b->nr_pfns;
}

bool model_none(const struct layout_ops *ops, const struct model_blocks *b,
		struct model_lines *lines)
{
	(void)ops;
	(void)b;
	*lines = (struct model_lines){ 0 };
	return true;
}

bool model_lookup_seq(const struct layout_ops *ops, const struct model_blocks *b,
		      struct model_lines *lines)
{
	const struct layout_model *m = &ops->model;
	unsigned int per_line;

	if (!entries_per_line(ops, b, &per_line))
		return false;
	*lines = (struct model_lines){ .streamed = (double)b->nr_pfns / per_line };
	add_folio_lines(m, (nr_folios(b, 0) - nr_folios(b, 1)) * lines_per_folio(m, &m->lookup, 0) +
			   nr_folios(b, 1) * lines_per_folio(m, &m->lookup, 1), lines);
	per_pfn(lines, b);
	return !isnan(model_lines_total(lines));
}

/* What the scan reads of a folio of this order beyond its entry (see the top). */
static double scan_folio_lines(const struct layout_model *m, unsigned int order)
{
	if (order < SCAN_COMPACT_ORDER)
		return folio_lines(m, &m->isolate, &m->isolate_large, order);
	return folio_lines(m, &m->scan, &m->scan_large, order);
}

/*
 * Memmap lines the scan reads of a block of this extent (in lines) beside
 * overlay overlaid folio lines: the head's line and the overlaid tails, or
 * the whole block where it shares lines with others (extent < 1).
 */
static double scan_block_read(double extent, double overlay)
{
	return extent < 1 ? extent : 1 + overlay;
}

/* scan/compaction's lines over one pass of every pfn (see the top). */
static void scan_pass_lines(const struct layout_model *m, const struct model_blocks *b,
			    unsigned int per_line, struct model_lines *lines)
{
	unsigned int k, o;

	*lines = (struct model_lines){ 0 };
	for (k = 0; k < PK_NR; k++)
		for (o = 0; o < MIX_NR_ORDERS; o++) {
			double n = b->nr[k][o], extent = (double)(1UL << o) / per_line;
			double overlay = 0, read;

			if (!n)
				continue;
			if (is_folio(k)) {
				double f = scan_folio_lines(m, o);

				add_folio_lines(m, n * f, lines);
				overlay = m->desc_stride ? 0 : f;
			}
			if ((k != PK_FREE && !is_folio(k)) || extent < 1) {
				lines->streamed += n * extent;	/* entry by entry, or shared lines */
				continue;
			}
			/* The head's line and its overlaid tails; a gap if the block spans more. */
			read = scan_block_read(extent, overlay);
			lines->streamed += n;
			if (extent > read) {
				lines->streamed -= n;
				lines->dependent += n;
			}
		}
}

bool model_scan_compaction(const struct layout_ops *ops, const struct model_blocks *b,
			   struct model_lines *lines)
{
	unsigned int per_line;

	if (!entries_per_line(ops, b, &per_line))
		return false;
	scan_pass_lines(&ops->model, b, per_line, lines);
	per_pfn(lines, b);
	return !isnan(model_lines_total(lines));
}

/*
 * The folios isolation takes: file folios below SCAN_COMPACT_ORDER.  The
 * mix's anon folios are placed unmapped with one reference, which the
 * pinned-anon check (folio_ref_count() - 1 > folio_mapcount()) reads as
 * pinned; hugetlb folios are of SCAN_COMPACT_ORDER or more.
 */
static unsigned long cluster_candidates(const struct model_blocks *b, unsigned int order)
{
	return order < SCAN_COMPACT_ORDER ? b->nr[PK_FILE][order] : 0;
}

/*
 * Clusters a pass of the scan isolates the candidates of this order in.
 * The plan lays blocks out largest first within a pageblock, so the scan
 * meets the candidates in runs of one order: a cluster is 32 >> order
 * folios of this order, exactly COMPACT_CLUSTER_MAX pages, or one folio
 * where that is larger (orders 6..8).  Runs' ends (a few per pageblock
 * shuffled in) are left out.
 */
static double cluster_count(const struct model_blocks *b, unsigned int order)
{
	double per = (1U << order) < COMPACT_CLUSTER_MAX ? (double)(COMPACT_CLUSTER_MAX >> order) : 1;

	return cluster_candidates(b, order) / per;
}

/*
 * What migration and put-back read beyond the scan, per folio of this
 * order: free_pages_prepare() (folio_destroy()) writes every entry of the
 * old block, so the memmap lines of it the scan skipped, in pfn order
 * (streamed).  The rest hits: the new block is the one the previous folio
 * of the order left on the pcp's LIFO list (its entries just written), its
 * descriptor the one that folio's freed (the cache's LIFO), the lists'
 * heads were touched by the folio before.
 */
static double cluster_migrate_lines(const struct layout_model *m, unsigned int per_line,
				    unsigned int order)
{
	double extent = (double)(1UL << order) / per_line;
	double overlay = m->desc_stride ? 0 : scan_folio_lines(m, order);
	double read = scan_block_read(extent, overlay);

	return extent > read ? extent - read : 0;
}

bool model_compaction_cluster(const struct layout_ops *ops, const struct model_blocks *b,
			      struct model_lines *lines)
{
	const struct layout_model *m = &ops->model;
	double clusters = 0, folios = 0, migrate = 0;
	unsigned int per_line, o;

	if (!entries_per_line(ops, b, &per_line))
		return false;
	for (o = 0; o < SCAN_COMPACT_ORDER; o++) {
		clusters += cluster_count(b, o);
		folios += cluster_candidates(b, o);
		migrate += cluster_candidates(b, o) * cluster_migrate_lines(m, per_line, o);
	}
	if (!clusters)
		return false;
	/* A pass isolates every candidate once, in clusters clusters. */
	scan_pass_lines(m, b, per_line, lines);
	lines->streamed = (lines->streamed + migrate) / clusters;
	/* lruvec_del_folio(): list_del() writes both LRU neighbours' links. */
	lines->dependent = (lines->dependent + 2 * folios) / clusters;
	return !isnan(model_lines_total(lines));
}

bool model_init_memmap(const struct layout_ops *ops, const struct model_blocks *b,
		       struct model_lines *lines)
{
	unsigned int per_line;

	if (!entries_per_line(ops, b, &per_line))
		return false;
	*lines = (struct model_lines){
		.streamed = 2.0 / per_line,
		.dependent = (1UL << MAX_PAGE_ORDER) / per_line >= MODEL_L1_LINES ?
			     1.0 / (1UL << MAX_PAGE_ORDER) : 0,
	};
	return true;
}

/*
 * The layout as built with opts: its folio descriptors as far apart as
 * --folio-desc-bytes puts them, scattered when the caches are aged.
 */
bool model_predict(model_fn *fn, const struct layout_ops *ops, const struct mix *mix,
		   unsigned long nr_pfns, const struct memmap_opts *opts, struct model_lines *lines)
{
	size_t obj[DESC_NR], acct[DESC_NR];
	struct layout_ops built = *ops;
	struct model_blocks b;
	struct mdb_err err;

	if (!fn || model_count_blocks(&b, mix, nr_pfns, opts->seed, opts->age, &err) ||
	    layout_desc_sizes(ops->desc_size, opts->folio_desc_bytes, opts->large_desc, obj, acct, &err))
		return false;
	if (built.model.desc_stride) {
		built.model.desc_stride = (unsigned int)desc_cache_kind_stride(opts->desc_cache,
									      obj[DESC_FOLIO]);
		built.model.desc_stride_large =
			(unsigned int)desc_cache_kind_stride(opts->desc_cache, obj[DESC_FOLIO_LARGE]);
		/* Randomised freelists scatter neighbours over a slab's lines, fresh too. */
		if (opts->age != DESC_FRESH_ORDERED)
			built.model.desc_stride = built.model.desc_stride_large = MODEL_DESC_SCATTERED;
	}
	return fn(&built, &b, lines);
}
