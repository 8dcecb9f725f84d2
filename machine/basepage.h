/* SPDX-License-Identifier: GPL-2.0 */
/*
 * basepage.h - the base page sizes a kernel is built with, and the hugetlb
 * page sizes (hstates) each offers: what the memmap and HVO scale with.
 *
 * One struct page per base page: at 16 and 64 KiB the memmap of a GiB
 * holds 4x and 16x fewer entries.  HVO works in base pages too: the
 * vmemmap is mapped with them and HUGETLB_VMEMMAP_RESERVE_SIZE is
 * PAGE_SIZE (mm/hugetlb_vmemmap.h), so a folio gives back
 * hugetlb_vmemmap_optimizable_size() = its entries' bytes less one base
 * page, when they fill whole pages (hvo_freed_pages_at()).
 *
 * The hstates: x86-64 has 4 KiB pages only, with PMD (2 MiB) and PUD
 * (1 GiB) hugetlb pages, which the suite's mixes place (mix.h
 * HUGETLB_ORDER_PMD, _PUD).  arm64 (arch/arm64/mm/hugetlbpage.c,
 * arch_hugetlb_valid_size()) offers CONT_PTE, PMD and CONT_PMD sizes, and
 * PUD at 4 KiB: at 16 KiB 2 MiB (128 contiguous PTEs), 32 MiB (PMD) and
 * 1 GiB (32 contiguous PMDs); at 64 KiB 2 MiB (32 contiguous PTEs), 512 MiB
 * (PMD) and 16 GiB (32 contiguous PMDs).  Its 4 KiB contiguous sizes (64 KiB,
 * 32 MiB) are left out: the 4 KiB row is the suite's x86-64.
 *
 * A run models one of them (--base-page, mdb_base): the memmap has one
 * entry per base page, the buddy, pageblocks and sections are sized as that
 * kernel sizes them, and the mixes, which give their orders in 4 KiB pages
 * (mix.h), are translated into base pages (mix_translate()).  Until
 * base_page_set() the run's base page is 4k, what the suite always modelled.
 */
#ifndef MDB_BASEPAGE_H
#define MDB_BASEPAGE_H

#define BASE_PAGE_MAX_HSTATES	3

struct base_hstate {
	unsigned int order;	/* in base pages */
	const char *level;	/* the page-table entry that maps it: "PMD", "CONT_PTE", ... */
};

struct base_page {
	const char *name;	/* "4k", "16k", "64k" */
	unsigned int shift;	/* PAGE_SHIFT */
	unsigned int max_page_order;	/* MAX_PAGE_ORDER (ARCH_FORCE_MAX_ORDER on arm64) */
	unsigned int pageblock_order;	/* min(HUGETLB_PAGE_ORDER, MAX_PAGE_ORDER) */
	unsigned int section_bits;	/* SECTION_SIZE_BITS */
	unsigned int pmd_order;		/* PMD_SHIFT - PAGE_SHIFT: the PMD THP and hstate */
	unsigned int top_order;		/* the largest hstate (PUD at 4k, CONT_PMD on arm64) */
	unsigned int nr_hstates;
	struct base_hstate hstate[BASE_PAGE_MAX_HSTATES];
};

/* 4k, 16k, 64k; ended by a NULL name. */
extern const struct base_page base_pages[];

/* The base page named name; NULL if none. */
const struct base_page *base_page_find(const char *name);

/*
 * The run's base page (a copy: the kernels read its orders on their hot
 * paths, one load rather than two).  4k until base_page_set(), which a run
 * calls once, before it builds any memmap or places any mix.
 */
extern struct base_page mdb_base;
void base_page_set(const struct base_page *b);

/* The largest MAX_PAGE_ORDER of any base page: what arrays of free lists hold. */
#define BASE_PAGE_MAX_PAGE_ORDER	13
/* The smallest shift: 4 KiB, the unit mixes and kpageflags count in. */
#define BASE_PAGE_MIN_SHIFT		12

#endif /* MDB_BASEPAGE_H */
