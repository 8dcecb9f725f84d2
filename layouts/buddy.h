/* SPDX-License-Identifier: GPL-2.0 */
/*
 * buddy.h - the layout-independent free-pfn allocator (struct buddy in
 * layout.h): per-order LIFO stacks of free block heads.  Compiled once; the
 * per-layout life cycle (memmap.c) pairs each push with buddy_set_free(),
 * which writes the memmap, and splits what a pop returns.
 */
#ifndef MDB_BUDDY_H
#define MDB_BUDDY_H

#include "layout.h"

/* Room for every block a range of nr_pfns can hold; 0 or -1 (no memory). */
int buddy_init(struct buddy *b, unsigned long nr_pfns);
void buddy_destroy(struct buddy *b);
/* Forget every free block; the stacks stay allocated. */
void buddy_reset(struct buddy *b);
void buddy_push(struct buddy *b, unsigned long pfn, unsigned int order);
/*
 * Pops the most recently freed block of the smallest order >= order; its
 * order goes to *got and the caller splits what it does not need.  -1 when
 * no block is large enough.
 */
long buddy_pop(struct buddy *b, unsigned int order, unsigned int *got);

#endif /* MDB_BUDDY_H */
