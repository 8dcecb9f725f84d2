// SPDX-License-Identifier: GPL-2.0
/*
 * test_desc_cache.c - the descriptor caches place objects as SLUB does
 * (layouts/desc_cache.c): slab geometry as calculate_order() gives it,
 * address order from a fresh slab, LIFO reuse through the CPU freelist, a
 * full slab that gets a free object on the CPU's partial list, empty slabs
 * beyond min_partial given back, shuffled freelists that are a permutation
 * and follow the seed, accounting in bytes and slabs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "desc_cache.h"
#include "test_common.h"

#define SEED	0x5eed

static void make(struct desc_cache *c, size_t size, bool random, uint64_t seed)
{
	struct desc_cache_opts o = { .obj_size = size, .expect = 1000, .random_freelist = random,
				     .seed = seed, .pages = MEMMAP_PAGES_4K };

	desc_cache_init(c, &o);
}

/*
 * calculate_order() for 16 CPUs: min_objects 24, at most 1/16 wasted.  (A
 * 2-CPU kernel sizes for 12: its kmalloc-192 is order 0 with 21 objects.)
 */
static void test_geometry(void)
{
	static const struct { size_t size; unsigned int objs; size_t bytes; } want[] = {
		{ 64, 64, 4096 }, { 80, 51, 4096 }, { 96, 42, 4096 }, { 128, 32, 4096 },
		{ 160, 25, 4096 }, { 192, 42, 8192 }, { 16, 256, 4096 }, { 1040, 31, 32768 },
	};
	unsigned int i, objs;
	size_t bytes;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		desc_slab_geometry(want[i].size, &objs, &bytes);
		CHECK(objs == want[i].objs && bytes == want[i].bytes, "%zu-byte objects: %u in %zu bytes",
		      want[i].size, objs, bytes);
	}
}

static void test_fresh_order_and_lifo(void)
{
	struct desc_cache c;
	char *o[200];
	unsigned int i;

	make(&c, 80, false, SEED);
	for (i = 0; i < 200; i++)
		o[i] = desc_alloc(&c);
	for (i = 1; i < 200; i++)
		if (i % c.objs_per_slab)
			CHECK(o[i] == o[i - 1] + 80, "object %u is not after object %u", i, i - 1);
	CHECK(c.nr_live == 200 && desc_cache_live_bytes(&c) == 200 * 80, "live %zu", c.nr_live);
	CHECK(desc_cache_reserved_bytes(&c) == ((200 + 50) / 51) * 4096UL, "reserved %zu",
	      desc_cache_reserved_bytes(&c));
	/* The CPU slab holds the last ones: frees there come back last in, first out. */
	desc_free(&c, o[199]);
	desc_free(&c, o[198]);
	CHECK(desc_alloc(&c) == o[198] && desc_alloc(&c) == o[199], "CPU freelist LIFO");
	/* A full slab that gets one free object goes to the CPU's partial list. */
	desc_free(&c, o[10]);
	CHECK(c.cpu[0].partial >= 0 && c.slab[c.cpu[0].partial].freelist == o[10], "CPU partial");
	CHECK(desc_cache_index(&c, o[10]) == 10 && desc_cache_index(&c, o[60]) == 60,
	      "index %ld %ld", desc_cache_index(&c, o[10]), desc_cache_index(&c, o[60]));
	desc_cache_destroy(&c);
	CHECK(!c.nr_live && !desc_cache_reserved_bytes(&c) && !c.nr_ext, "destroyed");
}

/* Freeing all of many slabs keeps at most the CPU slab, a CPU list and min_partial empty ones. */
static void test_discard(void)
{
	enum { N = 51 * 40 };
	struct desc_cache c;
	void **o = malloc(N * sizeof(*o));
	unsigned int i;
	size_t held;

	make(&c, 80, true, SEED);
	for (i = 0; i < N; i++)
		o[i] = desc_alloc(&c);
	CHECK(c.nr_slabs_held == 40, "%zu slabs for 40 slabs' objects", c.nr_slabs_held);
	for (i = 0; i < N; i++)
		desc_free(&c, o[(i * 7919) % N]);	/* 7919 is prime to N: each once */
	held = c.nr_slabs_held;
	CHECK(!c.nr_live && held <= 1 + c.cpu_partial_slabs + c.min_partial,
	      "%zu slabs held when empty (CPU partial %u, min_partial %u)", held,
	      c.cpu_partial_slabs, c.min_partial);
	/* Allocating again takes partial slabs before any new one. */
	for (i = 0; i < N; i++)
		o[i] = desc_alloc(&c);
	CHECK(c.nr_slabs == 40, "%zu slabs carved: pages given back were not reused first",
	      c.nr_slabs);
	desc_cache_destroy(&c);
	free(o);
}

/* CONFIG_SLAB_FREELIST_RANDOM: each new slab a permutation, from the seed. */
static void test_random(void)
{
	struct desc_cache a, b, x;
	unsigned int i, n, in_order = 0;
	unsigned char seen[256] = { 0 };
	char *pa[256], *pb, *px;
	bool same_b = true, same_x = true;

	make(&a, 80, true, SEED);
	make(&b, 80, true, SEED);
	make(&x, 80, true, SEED + 1);
	n = a.objs_per_slab;
	for (i = 0; i < n; i++) {
		long idx;

		pa[i] = desc_alloc(&a);
		pb = desc_alloc(&b);
		px = desc_alloc(&x);
		idx = desc_cache_index(&a, pa[i]);
		CHECK(idx >= 0 && idx < (long)n && !seen[idx], "object %ld twice or outside", idx);
		if (idx >= 0 && idx < (long)n)
			seen[idx] = 1;
		in_order += i && pa[i] == pa[i - 1] + 80;
		same_b &= desc_cache_index(&b, pb) == idx;
		same_x &= desc_cache_index(&x, px) == idx;
	}
	CHECK(in_order < n / 4, "%u of %u objects follow their predecessor", in_order, n);
	CHECK(same_b && !same_x, "the order follows the seed");
	desc_cache_destroy(&a);
	desc_cache_destroy(&b);
	desc_cache_destroy(&x);
}

int main(void)
{
	test_geometry();
	test_fresh_order_and_lifo();
	test_discard();
	test_random();
	if (failures) {
		fprintf(stderr, "test_desc_cache: %d failures\n", failures);
		return 1;
	}
	printf("test_desc_cache: ok\n");
	return 0;
}
