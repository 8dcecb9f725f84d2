// SPDX-License-Identifier: GPL-2.0
/*
 * model.c - data lines per op of the sequential kernels (see model.h).
 *
 * Notation: E = 64 / sizeof(struct page) memmap entries per line (1, 2, 8),
 * e = log2(E); n[k][o] blocks of kind k and order o; N pfns.  Blocks are
 * naturally aligned, so a block of order >= e covers whole memmap lines,
 * and the lines that no such block covers hold only blocks of order < e.
 *
 * lookup/seq	(N/E + sum over folios of D_lookup) / N
 *		Every entry is read.  A folio's flag and count live in its
 *		descriptor in page32 and memdesc8 (page_test_flag(),
 *		page_ref_count() go through the memdesc), read once per folio
 *		since its pages follow each other; page64's tails read the
 *		head, already in L1.  No other kind hops: their flags and
 *		counts are in the entry (page32) or implied by the tag
 *		(memdesc8).
 * scan/compaction
 *		(sum over blocks of M(k, o) + sum over folios of D_scan
 *		 + page64: one line per large folio) / N,
 *		M = 1 for a free block or a folio of order >= e (only its head
 *		entry is read; the walk skips the rest), 2^o / E otherwise
 *		(every entry of the other kinds is read, and small blocks
 *		share lines).  folio_nr_pages() needs the order: from the
 *		descriptor in page32 and memdesc8, from _nr_pages in page64's
 *		first tail (offset 120: the next line).  A free block's order
 *		is in its head entry in every layout.
 * init/memmap	1/E + 1/512 + 1/4096: every entry written once, then
 *		memblock_free_all()'s pageblock heads written again (the
 *		memmap is far larger than L1 by then) and their pfns pushed on
 *		the buddy's order-9 stack, 8 bytes each.
 * convert/...	0: pfn_to_page() and page_to_pfn() are arithmetic.
 *
 * D_lookup and D_scan are lines per descriptor when consecutive folios'
 * descriptors lie next to each other, as the descriptor cache hands them
 * out while the mix is placed pfn by pfn within a pageblock: for a 64-byte
 * descriptor one line; for page32's 80-byte folio the fields of neighbours
 * share lines (computed below from the field offsets).
 */
#include <string.h>

#include "model.h"

#define LINE		64
#define MODEL_RUN	4096	/* descriptors in the run lines_per_desc() measures */

struct desc_fields {
	unsigned int size;		/* bytes apart in the cache; 0: no descriptor read */
	unsigned int nr;
	struct {
		unsigned int off, len;
	} f[4];
};

/* What each layout reads beyond the memmap; offsets from the layout headers. */
struct layout_model {
	const char *name;
	struct desc_fields lookup;	/* per folio: page_test_flag() + page_ref_count() */
	struct desc_fields scan;	/* per folio: folio_nr_pages() */
	unsigned int scan_large_tail;	/* lines per large folio outside desc and head */
};

static const struct layout_model layout_models[] = {
	{
		/* struct folio overlays the head page: flags @0, _refcount @52. */
		.name = "page64",
		.scan_large_tail = 1,	/* folio->_nr_pages @120, in page[1] */
	},
	{
		/* struct folio of 80: flags @0, _refcount @48, order @60. */
		.name = "page32",
		.lookup = { 80, 2, { { 0, 8 }, { 48, 4 } } },
		.scan = { 80, 1, { { 60, 1 } } },
	},
	{
		/* struct folio of 64: flags @0 (order in its top bits), _refcount @48. */
		.name = "memdesc8",
		.lookup = { 64, 2, { { 0, 8 }, { 48, 4 } } },
		.scan = { 64, 1, { { 0, 8 } } },
	},
};

static const struct layout_model *find_model(const struct layout_ops *ops)
{
	unsigned int i;

	for (i = 0; i < sizeof(layout_models) / sizeof(layout_models[0]); i++)
		if (!strcmp(layout_models[i].name, ops->name))
			return &layout_models[i];
	return NULL;
}

/*
 * Distinct lines per descriptor when a walk reads these fields of
 * descriptors laid size bytes apart from a line boundary (the cache's
 * chunks are page aligned), over a long run.
 */
static double lines_per_desc(const struct desc_fields *d)
{
	unsigned long last = ~0UL, lines = 0, k, line;
	unsigned int i;

	if (!d->size)
		return 0;
	/* Addresses only grow along the run, so a new line is one above the last. */
	for (k = 0; k < MODEL_RUN; k++)
		for (i = 0; i < d->nr; i++)
			for (line = (k * d->size + d->f[i].off) / LINE;
			     line <= (k * d->size + d->f[i].off + d->f[i].len - 1) / LINE; line++)
				if (last == ~0UL || line > last) {
					lines++;
					last = line;
				}
	return (double)lines / MODEL_RUN;
}

int model_count_blocks(struct model_blocks *b, const struct mix *mix, unsigned long nr_pfns,
		       uint64_t seed, char *err)
{
	struct mix_plan plan;
	unsigned long covered = 0;
	unsigned int k, o;

	memset(b, 0, sizeof(*b));
	if (mix_plan_init(&plan, mix, nr_pfns, seed, err))
		return -1;
	b->nr_pfns = nr_pfns;
	for (k = 0; k < PK_NR; k++)
		for (o = 0; o <= MAX_FOLIO_ORDER; o++) {
			b->nr[k][o] = plan.remaining[k][o];
			covered += plan.remaining[k][o] << o;
		}
	mix_plan_release(&plan);
	if (covered < nr_pfns)		/* the plan leaves the rest free, order 0 */
		b->nr[PK_FREE][0] += nr_pfns - covered;
	return 0;
}

static bool is_folio(unsigned int kind)
{
	return kind == PK_ANON || kind == PK_FILE;
}

static unsigned long nr_folios(const struct model_blocks *b, unsigned int min_order)
{
	unsigned long n = 0;
	unsigned int o;

	for (o = min_order; o <= MAX_FOLIO_ORDER; o++)
		n += b->nr[PK_ANON][o] + b->nr[PK_FILE][o];
	return n;
}

static double lookup_seq_lines(const struct layout_model *lm, double per_line,
			       const struct model_blocks *b)
{
	return (double)b->nr_pfns / per_line + nr_folios(b, 0) * lines_per_desc(&lm->lookup);
}

static double scan_lines(const struct layout_model *lm, unsigned int per_line,
			 const struct model_blocks *b)
{
	double lines = 0;
	unsigned int k, o;

	for (k = 0; k < PK_NR; k++)
		for (o = 0; o <= MAX_FOLIO_ORDER; o++) {
			bool skipped = k == PK_FREE || is_folio(k);

			if (skipped && (1UL << o) >= per_line)
				lines += b->nr[k][o];
			else
				lines += (double)b->nr[k][o] * (1UL << o) / per_line;
		}
	lines += nr_folios(b, 0) * lines_per_desc(&lm->scan);
	lines += (double)nr_folios(b, 1) * lm->scan_large_tail;
	return lines;
}

bool model_d1_lines(const char *kernel, const struct layout_ops *ops, const struct model_blocks *b,
		    double *lines)
{
	const struct layout_model *lm = find_model(ops);
	unsigned int per_line;
	double n = (double)b->nr_pfns;

	if (!lm || !ops->page_size || LINE % ops->page_size || !b->nr_pfns)
		return false;
	per_line = LINE / ops->page_size;
	if (!strcmp(kernel, "convert/pfn_to_page") || !strcmp(kernel, "convert/page_to_pfn"))
		*lines = 0;
	else if (!strcmp(kernel, "lookup/seq"))
		*lines = lookup_seq_lines(lm, per_line, b) / n;
	else if (!strcmp(kernel, "scan/compaction"))
		*lines = scan_lines(lm, per_line, b) / n;
	else if (!strcmp(kernel, "init/memmap"))
		*lines = 1.0 / per_line + 1.0 / (1UL << PAGEBLOCK_ORDER) +
			 1.0 / (1UL << PAGEBLOCK_ORDER) * sizeof(unsigned long) / LINE;
	else
		return false;
	return true;
}

bool model_d1_misses(const char *kernel, const struct layout_ops *ops, const struct mix *mix,
		     unsigned long nr_pfns, uint64_t seed, double *misses)
{
	struct model_blocks b;
	char err[MIX_ERR_LEN];

	if (model_count_blocks(&b, mix, nr_pfns, seed, err))
		return false;
	return model_d1_lines(kernel, ops, &b, misses);
}
