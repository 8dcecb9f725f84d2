// SPDX-License-Identifier: GPL-2.0
/*
 * basepage.c - the base page sizes and their hstates (basepage.h), and the
 * run's own.
 *
 * The orders (arm64 at 16 and 64 KiB, x86-64 at 4 KiB):
 *  - MAX_PAGE_ORDER: arch/arm64/Kconfig ARCH_FORCE_MAX_ORDER, 13 at 64 KiB,
 *    11 at 16 KiB, 10 otherwise (x86-64's default, 10);
 *  - pageblock_order: include/linux/pageblock-flags.h, with
 *    CONFIG_HUGETLB_PAGE and a fixed huge page size, is
 *    min(HUGETLB_PAGE_ORDER, MAX_PAGE_ORDER), HUGETLB_PAGE_ORDER being
 *    PMD_SHIFT - PAGE_SHIFT on both (9, 11, 13);
 *  - SECTION_SIZE_BITS: arch/arm64/include/asm/sparsemem.h, 29 at 64 KiB,
 *    27 otherwise (x86-64: 27).
 */
#include <string.h>

#include "basepage.h"

const struct base_page base_pages[] = {
	{ "4k", 12, 10, 9, 27, 9, 18, 2, { { 9, "PMD" }, { 18, "PUD" } } },
	{ "16k", 14, 11, 11, 27, 11, 16, 3, { { 7, "CONT_PTE" }, { 11, "PMD" }, { 16, "CONT_PMD" } } },
	{ "64k", 16, 13, 13, 29, 13, 18, 3, { { 5, "CONT_PTE" }, { 13, "PMD" }, { 18, "CONT_PMD" } } },
	{ NULL, 0, 0, 0, 0, 0, 0, 0, { { 0, NULL } } },
};

struct base_page mdb_base = {
	"4k", 12, 10, 9, 27, 9, 18, 2, { { 9, "PMD" }, { 18, "PUD" } }
};

const struct base_page *base_page_find(const char *name)
{
	const struct base_page *b;

	for (b = base_pages; b->name; b++)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

void base_page_set(const struct base_page *b)
{
	mdb_base = *b;
}
