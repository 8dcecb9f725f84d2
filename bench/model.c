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

/*
 * Lines per folio a walk reads beyond the memmap entries it reads anyway:
 * for a folio overlaying its head entry, the fields off the entry's line;
 * for separate descriptors laid desc_stride bytes apart from a line boundary
 * (the cache's chunks are page aligned), distinct lines over a long run, a
 * line shared with the previous descriptor counted once.
 */
static double lines_per_folio(const struct layout_model *m, const struct model_reads *r)
{
	unsigned long last = ~0UL, lines = 0, k, line;
	unsigned int i;

	if (!r->nr)
		return 0;
	if (!m->desc_stride)
		return lines_at(r, 0, true);
	/* Addresses only grow along the run, so a new line is one above the last. */
	for (k = 0; k < MODEL_RUN; k++)
		for (i = 0; i < r->nr; i++)
			for (line = (k * m->desc_stride + r->f[i].off) / LINE;
			     line <= (k * m->desc_stride + r->f[i].off + r->f[i].len - 1) / LINE; line++)
				if (last == ~0UL || line > last) {
					lines++;
					last = line;
				}
	return (double)lines / MODEL_RUN;
}

int model_count_blocks(struct model_blocks *b, const struct mix *mix, unsigned long nr_pfns,
		       uint64_t seed, struct mdb_err *err)
{
	struct mix_plan plan;
	unsigned long covered = 0;
	unsigned int k, o;

	memset(b, 0, sizeof(*b));
	if (mix_plan_init(&plan, mix, nr_pfns, seed, err))
		return -1;
	b->nr_pfns = nr_pfns;
	for (k = 0; k < PK_NR; k++)
		for (o = 0; o < MIX_NR_ORDERS; o++) {
			b->nr[k][o] = plan.remaining[k][o];
			covered += plan.remaining[k][o] << o;
		}
	mix_plan_release(&plan);
	if (covered < nr_pfns)		/* the plan leaves the rest free, order 0 */
		b->nr[PK_FREE][0] += nr_pfns - covered;
	return 0;
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

bool model_none(const struct layout_ops *ops, const struct model_blocks *b, double *lines)
{
	(void)ops;
	(void)b;
	*lines = 0;
	return true;
}

bool model_lookup_seq(const struct layout_ops *ops, const struct model_blocks *b, double *lines)
{
	unsigned int per_line;

	if (!entries_per_line(ops, b, &per_line))
		return false;
	*lines = ((double)b->nr_pfns / per_line +
		  nr_folios(b, 0) * lines_per_folio(&ops->model, &ops->model.lookup)) / b->nr_pfns;
	return true;
}

bool model_scan_compaction(const struct layout_ops *ops, const struct model_blocks *b,
			   double *lines)
{
	const struct layout_model *m = &ops->model;
	unsigned int per_line, k, o;
	double n = 0;

	if (!entries_per_line(ops, b, &per_line))
		return false;
	for (k = 0; k < PK_NR; k++)
		for (o = 0; o < MIX_NR_ORDERS; o++) {
			bool skipped = k == PK_FREE || page_kind_is_folio(k);

			if (skipped && (1UL << o) >= per_line)
				n += b->nr[k][o];
			else
				n += (double)b->nr[k][o] * (1UL << o) / per_line;
		}
	n += nr_folios(b, 0) * lines_per_folio(m, &m->scan);
	n += nr_folios(b, 1) * lines_per_folio(m, &m->scan_large);
	*lines = n / b->nr_pfns;
	return true;
}

bool model_init_memmap(const struct layout_ops *ops, const struct model_blocks *b, double *lines)
{
	unsigned int per_line;

	if (!entries_per_line(ops, b, &per_line))
		return false;
	*lines = 1.0 / per_line + 1.0 / (1UL << PAGEBLOCK_ORDER) +
		 1.0 / (1UL << PAGEBLOCK_ORDER) * sizeof(unsigned long) / LINE;
	return true;
}

bool model_predict(model_fn *fn, const struct layout_ops *ops, const struct mix *mix,
		   unsigned long nr_pfns, uint64_t seed, double *lines)
{
	struct model_blocks b;
	struct mdb_err err;

	if (!fn || model_count_blocks(&b, mix, nr_pfns, seed, &err))
		return false;
	return fn(ops, &b, lines);
}
