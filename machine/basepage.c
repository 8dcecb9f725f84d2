// SPDX-License-Identifier: GPL-2.0
/*
 * basepage.c - the base page sizes and their hstates (basepage.h).
 */
#include <string.h>

#include "basepage.h"
#include "mix.h"

const struct base_page base_pages[] = {
	{ "4k", 12, 2, { { HUGETLB_ORDER_PMD, "PMD" }, { HUGETLB_ORDER_PUD, "PUD" } } },
	{ "16k", 14, 3, { { 7, "CONT_PTE" }, { 11, "PMD" }, { 16, "CONT_PMD" } } },
	{ "64k", 16, 3, { { 5, "CONT_PTE" }, { 13, "PMD" }, { 18, "CONT_PMD" } } },
	{ NULL, 0, 0, { { 0, NULL } } },
};

const struct base_page *base_page_find(const char *name)
{
	const struct base_page *b;

	for (b = base_pages; b->name; b++)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}
