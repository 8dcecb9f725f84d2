// SPDX-License-Identifier: GPL-2.0
/*
 * registry.c - which kernel list belongs to which layout.  Compiled once.
 */
#include <stddef.h>

#include "kernel.h"

const struct mdb_kernel *const *layout_kernels(const struct layout_ops *ops)
{
	if (ops == &page64_ops)
		return page64_kernels;
	if (ops == &page32_ops)
		return page32_kernels;
	if (ops == &memdesc8_ops)
		return memdesc8_kernels;
	return NULL;
}
