// SPDX-License-Identifier: GPL-2.0
/*
 * desc_cache.c - fixed-size, 16-byte aligned descriptor objects carved from
 * DESC_CHUNK_BYTES chunks, recycled LIFO, as a kmem_cache would.
 *
 * Chunks are page aligned, like a slab's pages, so a 64-byte descriptor never
 * straddles two cache lines.  Under AddressSanitizer free objects and the
 * uncarved tail of a chunk are poisoned, so a layout that reads a descriptor
 * after folio_destroy() is caught even though the chunk stays allocated.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "desc_cache.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define desc_poison(p, n)	ASAN_POISON_MEMORY_REGION(p, n)
#define desc_unpoison(p, n)	ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define desc_poison(p, n)	((void)(p), (void)(n))
#define desc_unpoison(p, n)	((void)(p), (void)(n))
#endif

#define DESC_CHUNK_ALIGN	4096

void desc_cache_init(struct desc_cache *c, size_t obj_size)
{
	memset(c, 0, sizeof(*c));
	c->obj_size = (obj_size + DESC_ALIGN - 1) & ~(size_t)(DESC_ALIGN - 1);
	assert(c->obj_size <= DESC_CHUNK_BYTES);
}

static int desc_cache_grow(struct desc_cache *c)
{
	char *chunk;

	if (c->nr_chunks == c->cap_chunks) {
		size_t cap = c->cap_chunks ? 2 * c->cap_chunks : 16;
		void **chunks = realloc(c->chunks, cap * sizeof(*chunks));

		if (!chunks)
			return -1;
		c->chunks = chunks;
		c->cap_chunks = cap;
	}
	chunk = aligned_alloc(DESC_CHUNK_ALIGN, DESC_CHUNK_BYTES);
	if (!chunk)
		return -1;
	desc_poison(chunk, DESC_CHUNK_BYTES);
	c->chunks[c->nr_chunks++] = chunk;
	c->bump = chunk;
	c->bump_end = chunk + DESC_CHUNK_BYTES;
	return 0;
}

void *desc_alloc(struct desc_cache *c)
{
	void *obj;

	assert(c->obj_size);
	if (c->free) {
		obj = c->free;
		desc_unpoison(obj, sizeof(void *));
		c->free = *(void **)obj;
	} else {
		if ((size_t)(c->bump_end - c->bump) < c->obj_size && desc_cache_grow(c))
			return NULL;
		obj = c->bump;
		c->bump += c->obj_size;
	}
	desc_unpoison(obj, c->obj_size);
	memset(obj, 0, c->obj_size);
	c->nr_live++;
	return obj;
}

void desc_free(struct desc_cache *c, void *obj)
{
	assert(c->nr_live);
	*(void **)obj = c->free;
	c->free = obj;
	c->nr_live--;
	desc_poison(obj, c->obj_size);
}

void desc_cache_destroy(struct desc_cache *c)
{
	size_t i;

	for (i = 0; i < c->nr_chunks; i++) {
		desc_unpoison(c->chunks[i], DESC_CHUNK_BYTES);
		free(c->chunks[i]);
	}
	free(c->chunks);
	desc_cache_init(c, c->obj_size);
}
