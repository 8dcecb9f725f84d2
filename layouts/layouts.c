// SPDX-License-Identifier: GPL-2.0
/*
 * layouts.c - the layouts by name (the table itself, mdb_layouts[], is
 * generated from layouts.list).  Compiled once.
 */
#include <string.h>

#include "layout.h"

const char *const desc_type_name[DESC_NR] = {
	[DESC_FOLIO] = "folio",
	[DESC_SLAB] = "slab",
	[DESC_PTDESC] = "ptdesc",
	[DESC_ZPDESC] = "zpdesc",
	[DESC_NETMEM] = "netmem",
};

const struct layout_ops *layout_by_name(const char *name)
{
	const struct layout_ops *const *ops;

	for (ops = mdb_layouts; *ops; ops++)
		if (!strcmp((*ops)->name, name))
			return *ops;
	return NULL;
}
