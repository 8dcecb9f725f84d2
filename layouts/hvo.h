/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvo.h - HugeTLB Vmemmap Optimisation (HVO): which memmap pages of a
 * hugetlb folio each layout could give back, and the static key behind
 * page64's fake-head check.  Everything HVO-specific is here and in hvo.c,
 * so that mapping it for real (the memmap in a memfd, the freeable vmemmap
 * pages MAP_FIXED onto shared ones; issue 14's phase B) changes this module,
 * not the layouts.  Layout independent: compiled once.
 *
 * Documentation/mm/vmemmap_dedup.rst, mm/hugetlb_vmemmap.c: the 2^order
 * struct pages of a hugetlb folio fill 2^order * sizeof(struct page) /
 * PAGE_SIZE vmemmap pages (8 for 2 MiB, 4096 for 1 GiB at 64 bytes).  HVO
 * keeps HUGETLB_VMEMMAP_RESERVE_SIZE of them (one page since 5.18, "free the
 * 2nd vmemmap page"; two before) and maps the rest, read-only, onto a page
 * with the same bytes; hugetlb_vmemmap_optimizable_size() is what that
 * frees.  What the rest map onto is what the layouts differ in:
 *
 *  HVO_FAKE_HEAD	page64 (6.18): onto the folio's own first vmemmap
 *			page.  A tail at a page-aligned address then reads as
 *			the head (PG_head set): a fake head, which
 *			compound_head() must detect (page_fixed_fake_head()).
 *  HVO_SHARED_TAIL	page64ci (the compound_info series, v6/v7, 2026):
 *			every tail of an order holds the same mask, so the
 *			rest map onto one pre-initialised page of tails per
 *			order, per node (v6) or zone (v7); the head keeps its
 *			own page.  No fake heads.
 *  HVO_SAME_ENTRY	page32, memdesc8: every entry of a folio is the same
 *			bytes (the memdesc of the one folio descriptor; in
 *			page32 also the per-page flags fields, _mapcount -1
 *			and _refcount 0, which hugetlb never sets per page),
 *			so all pages of the folio's entries but the first map
 *			onto the first.  Entries of different folios differ
 *			(the pointer), so nothing is shared between folios.
 *			It frees a page only when the entries fill two or
 *			more: from order 10 in memdesc8 (512 entries a page:
 *			an order-9 folio's fill exactly one) and from order 8
 *			in page32 (128 a page: order 7 fills exactly one).
 *
 * Whatever the scheme, a vmemmap range remapped page by page must be mapped
 * with PTEs: HVO splits each 2 MiB vmemmap PMD it touches (the kernel maps
 * vmemmap with 2 MiB pages where it can; vmemmap_split_pmd()), one 4 KiB
 * page table each.  The footprint counts those apart.
 */
#ifndef MDB_HVO_H
#define MDB_HVO_H

#include <stdbool.h>
#include <stddef.h>

#include "mix.h"

#define HVO_PAGE_SIZE		4096UL
#define HVO_PMD_SIZE		(2UL << 20)	/* what one PTE page maps */

enum hvo_scheme {
	HVO_NONE,		/* nothing to give back */
	HVO_FAKE_HEAD,
	HVO_SHARED_TAIL,
	HVO_SAME_ENTRY,
};

/* A layout's HVO, its LAYOUT_HVO. */
struct layout_hvo {
	enum hvo_scheme scheme;
	unsigned int reserve_pages;	/* vmemmap pages a folio keeps its own */
};

/* vmemmap pages the entries of a 2^order folio fill; 0 when not whole pages. */
static inline unsigned long hvo_vmemmap_pages(size_t entry, unsigned int order)
{
	size_t bytes = entry << order;

	return bytes % HVO_PAGE_SIZE ? 0 : bytes / HVO_PAGE_SIZE;
}

/* What HVO gives back of one folio: hugetlb_vmemmap_optimizable_size() in pages. */
static inline unsigned long hvo_freed_pages(const struct layout_hvo *h, size_t entry,
					    unsigned int order)
{
	unsigned long pages = hvo_vmemmap_pages(entry, order);

	if (h->scheme == HVO_NONE || pages <= h->reserve_pages)
		return 0;
	return pages - h->reserve_pages;
}

/* A memmap's hugetlb folios as HVO would leave them; bytes throughout. */
struct hvo_footprint {
	size_t folios;		/* hugetlb folios */
	size_t optimised;	/* of them, those with pages to give back */
	size_t vmemmap_bytes;	/* their memmap entries, HVO off */
	size_t kept_bytes;	/* of those, the pages the optimised ones keep */
	size_t freed_bytes;	/* the pages given back */
	size_t shared_bytes;	/* pages all folios of an order map (HVO_SHARED_TAIL) */
	size_t pgtable_bytes;	/* PTE pages of the vmemmap PMDs split */
};

/*
 * Accumulates a memmap's hugetlb folios (memmap.c walks them): start, one
 * call per folio, end.  The model is one node and one zone, so
 * HVO_SHARED_TAIL costs one shared page per order in use.
 */
struct hvo_walk {
	const struct layout_hvo *hvo;
	size_t entry;			/* sizeof(struct page) */
	unsigned long *pmd_split;	/* bitmap: the memmap's 2 MiB ranges split */
	unsigned long nr_pmds;
	bool order_shared[MIX_NR_ORDERS];
	struct hvo_footprint fp;
};

/* 0, or -1 when out of memory for the bitmap. */
int hvo_walk_start(struct hvo_walk *w, const struct layout_hvo *h, size_t entry,
		   unsigned long nr_pfns);
void hvo_walk_folio(struct hvo_walk *w, unsigned long head_pfn, unsigned int order);
void hvo_walk_end(struct hvo_walk *w, struct hvo_footprint *out);

/* What HVO leaves of a memmap and descriptors that cost total bytes without it. */
static inline size_t hvo_total_bytes(size_t total, const struct hvo_footprint *fp)
{
	return total - fp->freed_bytes + fp->shared_bytes + fp->pgtable_bytes;
}

/*
 * hugetlb_optimize_vmemmap_key, which page_fixed_fake_head() tests first:
 * the kernel's static_branch_unlikely() is a 5-byte NOP while the key is off
 * (no hugetlb folio optimised) and a jump to out-of-line code once on.
 * hvo_fake_head_key() compiles to the same NOP and the same out-of-line
 * block (asm goto), so page64 pays for the check exactly what the kernel
 * pays with HVO off.  Each site is listed in the section mdb_hvo_key as two
 * self-relative words (site, target), as the kernel's __jump_table, for
 * phase B to patch into jumps when a memmap is built with HVO on.  Other
 * architectures get the key off without the NOP.
 */
#if defined(__x86_64__)
#define HVO_KEY_NOP	".byte 0x0f, 0x1f, 0x44, 0x00, 0x00"	/* nopl 0x0(%rax,%rax,1) */
#elif defined(__aarch64__)
#define HVO_KEY_NOP	"nop"
#endif

#ifdef HVO_KEY_NOP
static inline __attribute__((always_inline)) bool hvo_fake_head_key(void)
{
	asm goto("1:\t" HVO_KEY_NOP "\n\t"
		 ".pushsection mdb_hvo_key, \"aw\"\n\t"
		 ".balign 4\n\t"
		 ".long 1b - ., %l[on] - .\n\t"
		 ".popsection"
		 : : : : on);
	return false;
on:
	return true;
}
#else
static inline bool hvo_fake_head_key(void)
{
	return false;
}
#endif

#endif /* MDB_HVO_H */
