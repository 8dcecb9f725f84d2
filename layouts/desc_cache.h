/* SPDX-License-Identifier: GPL-2.0 */
/*
 * desc_cache.h - the suite's own slab-like allocator for memory descriptors.
 *
 * Separately allocated descriptors (page32's folio/slab/ptdesc, memdesc8's
 * every descriptor) come from one cache per type: fixed-size objects, 16-byte
 * aligned so memdesc8 can keep a type tag in the low 4 bits, carved from
 * chunks and recycled LIFO, as a kmem_cache would.  The cost of this second
 * allocation is one of the things the suite measures, so it is counted in
 * bytes and objects.  Layout independent: compiled once.
 */
#ifndef MDB_DESC_CACHE_H
#define MDB_DESC_CACHE_H

#include <stddef.h>

#define DESC_ALIGN		16
#define DESC_CHUNK_BYTES	(256UL << 10)

struct desc_cache {
	size_t obj_size;	/* rounded up to DESC_ALIGN */
	void *free;		/* LIFO of free objects, linked through their first word */
	void **chunks;
	size_t nr_chunks, cap_chunks;
	char *bump, *bump_end;	/* unused tail of the newest chunk */
	size_t nr_live;
};

void desc_cache_init(struct desc_cache *c, size_t obj_size);
/* Zeroed object, or NULL when memory runs out. */
void *desc_alloc(struct desc_cache *c);
void desc_free(struct desc_cache *c, void *obj);
void desc_cache_destroy(struct desc_cache *c);
static inline size_t desc_cache_live_bytes(const struct desc_cache *c)
{
	return c->nr_live * c->obj_size;
}
static inline size_t desc_cache_reserved_bytes(const struct desc_cache *c)
{
	return c->nr_chunks * DESC_CHUNK_BYTES;
}

#endif /* MDB_DESC_CACHE_H */
