// SPDX-License-Identifier: GPL-2.0
/*
 * hvo.c - what HVO would leave of a memmap's hugetlb folios (see hvo.h):
 * computed, not mapped.  Compiled once.
 */
#include <stdlib.h>
#include <string.h>

#include "hvo.h"

#define BITS_PER_LONG	(8 * sizeof(unsigned long))

int hvo_walk_start(struct hvo_walk *w, const struct layout_hvo *h, size_t entry,
		   unsigned long nr_pfns)
{
	memset(w, 0, sizeof(*w));
	w->hvo = h;
	w->entry = entry;
	w->nr_pmds = (nr_pfns * entry + HVO_PMD_SIZE - 1) / HVO_PMD_SIZE;
	w->pmd_split = calloc((w->nr_pmds + BITS_PER_LONG - 1) / BITS_PER_LONG + 1,
			      sizeof(*w->pmd_split));
	return w->pmd_split ? 0 : -1;
}

/* Marks the 2 MiB vmemmap ranges [start, end) bytes touch; new ones cost a PTE page. */
static void split_pmds(struct hvo_walk *w, size_t start, size_t end)
{
	unsigned long pmd;

	for (pmd = start / HVO_PMD_SIZE; pmd < (end + HVO_PMD_SIZE - 1) / HVO_PMD_SIZE; pmd++) {
		unsigned long *word = &w->pmd_split[pmd / BITS_PER_LONG];
		unsigned long bit = 1UL << (pmd % BITS_PER_LONG);

		if (!(*word & bit))
			w->fp.pgtable_bytes += HVO_PAGE_SIZE;
		*word |= bit;
	}
}

void hvo_walk_folio(struct hvo_walk *w, unsigned long head_pfn, unsigned int order)
{
	unsigned long freed = hvo_freed_pages(w->hvo, w->entry, order);
	size_t start = head_pfn * w->entry, bytes = w->entry << order;

	w->fp.folios++;
	w->fp.vmemmap_bytes += bytes;
	if (!freed)
		return;
	w->fp.optimised++;
	w->fp.kept_bytes += bytes - freed * HVO_PAGE_SIZE;
	w->fp.freed_bytes += freed * HVO_PAGE_SIZE;
	if (w->hvo->scheme == HVO_SHARED_TAIL && order < MIX_NR_ORDERS && !w->order_shared[order]) {
		w->order_shared[order] = true;
		w->fp.shared_bytes += HVO_PAGE_SIZE;
	}
	split_pmds(w, start, start + bytes);
}

void hvo_walk_end(struct hvo_walk *w, struct hvo_footprint *out)
{
	*out = w->fp;
	free(w->pmd_split);
	memset(w, 0, sizeof(*w));
}
