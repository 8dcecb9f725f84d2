// SPDX-License-Identifier: GPL-2.0
/*
 * layouts.c - the layouts one binary holds, by name.  Compiled once.
 */
#include <string.h>

#include "layout.h"

const struct layout_ops *const mdb_layouts[] = {
	&page64_ops,
	&page32_ops,
	&memdesc8_ops,
	NULL,
};

const struct layout_ops *layout_by_name(const char *name)
{
	const struct layout_ops *const *ops;

	for (ops = mdb_layouts; *ops; ops++)
		if (!strcmp((*ops)->name, name))
			return *ops;
	return NULL;
}
