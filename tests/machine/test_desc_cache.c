// SPDX-License-Identifier: GPL-2.0
/*
 * test_desc_cache.c - the descriptor caches place objects as SLUB does
 * (machine/desc_cache.c): slab geometry as calculate_order() gives it,
 * address order from a fresh slab, LIFO reuse through the CPU freelist, a
 * full slab that gets a free object on the CPU's partial list, empty slabs
 * beyond min_partial given back, shuffled freelists that are a permutation
 * and follow the seed, accounting in bytes and slabs.  And remote frees:
 * threads that each stand for a CPU allocate on theirs and free what the
 * other allocated, at once; afterwards every object is free exactly once
 * (on a freelist of its slab or of a CPU, or in a slab given back) and the
 * cache holds no more slabs than its lists may keep.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "desc_cache.h"
#include "test_common.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#define SEED	0x5eed

static void make_slub(struct desc_cache *c, size_t size, bool random, uint64_t seed,
		      enum desc_slub slub)
{
	struct desc_cache_opts o = { .obj_size = size, .expect = 1000, .random_freelist = random,
				     .seed = seed, .pages = MEMMAP_PAGES_4K, .slub = slub };

	desc_cache_init(c, &o);
}

/* 6.18's per-CPU slab: the tests below that name kmem_cache_cpu's lists. */
static void make(struct desc_cache *c, size_t size, bool random, uint64_t seed)
{
	make_slub(c, size, random, seed, DESC_SLUB_CPU_SLAB);
}

/*
 * Every --desc-cache option on the plan's 80-byte folio and 160-byte large
 * folio: stride, free pointer, slab bytes and objects as calculate_sizes()
 * and calculate_order() give them; and the cache built from the option
 * agrees.  The free pointer is never word 0 (flags).
 */
static void test_kinds(void)
{
	static const struct {
		enum desc_cache_kind k;
		size_t size, stride, freeptr, slab_bytes;
		unsigned int objs;
	} want[] = {
		{ DESC_CACHE_RCU, 80, 80, 8, 4096, 51 },
		{ DESC_CACHE_RCU, 160, 160, 8, 4096, 25 },
		{ DESC_CACHE_ALIGN16, 80, 80, 40, 4096, 51 },
		{ DESC_CACHE_ALIGN16, 160, 160, 80, 4096, 25 },
		{ DESC_CACHE_RCU_TAIL, 80, 96, 80, 4096, 42 },
		{ DESC_CACHE_RCU_TAIL, 160, 176, 160, 8192, 46 },
		{ DESC_CACHE_HWCACHE, 80, 128, 8, 4096, 32 },
		{ DESC_CACHE_HWCACHE, 160, 192, 8, 8192, 42 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct desc_cache_opts o = { .obj_size = want[i].size, .expect = 100,
					     .pages = MEMMAP_PAGES_4K, .slub = DESC_SLUB_CPU_SLAB };
		const char *name = desc_cache_kind_name(want[i].k);
		unsigned long *obj;
		static struct desc_cache c;

		desc_cache_kind_flags(want[i].k, 8, &o);
		desc_cache_init(&c, &o);
		CHECK(c.obj_size == want[i].stride && c.freeptr == want[i].freeptr &&
		      c.slab_bytes == want[i].slab_bytes && c.objs_per_slab == want[i].objs &&
		      c.acct_size == want[i].stride,
		      "%s %zu B: stride %zu free pointer @%zu, %u objects in %zu bytes", name,
		      want[i].size, c.obj_size, c.freeptr, c.objs_per_slab, c.slab_bytes);
		CHECK(desc_cache_kind_stride(want[i].k, want[i].size) == want[i].stride,
		      "%s %zu B: desc_cache_kind_stride()", name, want[i].size);
		/* A freed object keeps its flags: RCU readers may still look at them. */
		obj = desc_alloc(&c);
		obj[0] = 0xf1a95UL;
		desc_alloc(&c);			/* the CPU freelist now starts at the third */
		desc_free(&c, obj);
#if defined(__SANITIZE_ADDRESS__)
		ASAN_UNPOISON_MEMORY_REGION(obj, sizeof(*obj));
#endif
		CHECK(obj[0] == 0xf1a95UL && desc_get_freepointer(&c, obj) == (char *)obj + 2 * c.obj_size,
		      "%s: a free object's flags %#lx, free pointer %p", name, obj[0],
		      desc_get_freepointer(&c, obj));
		desc_cache_destroy(&c);
		CHECK(desc_cache_kind_from_name(name) == (int)want[i].k, "%s: name round trip", name);
	}
	CHECK(desc_cache_kind_from_name("rcu-head") < 0 && desc_slub_from_name("6.19") < 0 &&
	      !strcmp(desc_slub_name(DESC_SLUB_SHEAVES), "7.0") &&
	      desc_slub_from_name("6.18") == DESC_SLUB_CPU_SLAB, "names");
}

/* The k-th object of slab sl (in the order slabs were carved) of a cache without random freelists. */
static char *nth(const struct desc_cache *c, unsigned int sl, unsigned int k)
{
	return (char *)c->ext[0].slab[sl].base + (size_t)k * c->obj_size;
}

/*
 * 7.0's sheaves on 80-byte objects (51 a slab, 60 a sheaf), step by step:
 * a refill takes a new slab whole and 9 of the next, whose 42 others wait
 * on the partial list, and hands them out last first; the next refill takes
 * those 42 first.  Then 780 frees: main and spare fill, full sheaves go to
 * the barn until it holds 10, then the spare is flushed to its slabs; the
 * allocations after them come back last in, first out, sheaf by sheaf.
 */
static void test_sheaves(void)
{
	enum { N = 13 * 60 };
	static struct desc_cache c;
	char **o = malloc(N * sizeof(*o));
	struct desc_cpu *pc;
	unsigned int i;

	make_slub(&c, 80, false, SEED, DESC_SLUB_SHEAVES);
	CHECK(c.sheaf_capacity == 60, "sheaf capacity %u", c.sheaf_capacity);
	for (i = 0; i < N; i++)
		o[i] = desc_alloc(&c);
	for (i = 0; i < 9; i++)
		CHECK(o[i] == nth(&c, 1, 8 - i), "allocation %u: slab %zu object %ld", i,
		      desc_cache_slab(&c, o[i])->id, desc_cache_index(&c, o[i]) % 51);
	for (i = 9; i < 60; i++)
		CHECK(o[i] == nth(&c, 0, 59 - i), "allocation %u: index %ld", i, desc_cache_index(&c, o[i]));
	/* The second refill: slab 1's 42 from the partial list, then 18 of slab 2. */
	CHECK(o[60] == nth(&c, 2, 17) && o[77] == nth(&c, 2, 0) && o[78] == nth(&c, 1, 50) &&
	      o[119] == nth(&c, 1, 9), "second refill: %ld %ld %ld %ld", desc_cache_index(&c, o[60]),
	      desc_cache_index(&c, o[77]), desc_cache_index(&c, o[78]), desc_cache_index(&c, o[119]));
	CHECK(c.nr_slabs_held == 16 && !c.nr_full && !c.nr_empty && desc_cache_nr_live(&c) == N,
	      "%zu slabs, barn %u full %u empty, %zu live", c.nr_slabs_held, c.nr_full, c.nr_empty,
	      desc_cache_nr_live(&c));
	for (i = 0; i < N; i++)
		desc_free(&c, o[i]);
	pc = desc_cache_cpu(&c, 0);
	CHECK(c.nr_full == DESC_MAX_FULL_SHEAVES && !c.nr_empty && pc->main->size == 60 &&
	      pc->spare->size == 60, "barn %u full %u empty; main %u spare %u", c.nr_full, c.nr_empty,
	      pc->main->size, pc->spare->size);
	/* The flushed spare held o[0..59]: slab 0 whole, its last flushed first on its freelist. */
	CHECK(c.nr_partial == 3 && desc_slab_freelist(&c, &c.ext[0].slab[0]) == o[9] &&
	      c.nr_slabs_held == 16, "%lu partial slabs, slab 0's freelist at %ld", c.nr_partial,
	      desc_cache_index(&c, desc_slab_freelist(&c, &c.ext[0].slab[0])));
	CHECK(desc_alloc(&c) == o[N - 1], "the last freed comes back first");
	for (i = 1; i < 60; i++)
		desc_alloc(&c);
	CHECK(desc_alloc(&c) == o[N - 61], "then the spare's last");
	for (i = 1; i < 60; i++)
		desc_alloc(&c);
	CHECK(desc_alloc(&c) == o[N - 121] && c.nr_full == DESC_MAX_FULL_SHEAVES - 1,
	      "then the barn's last full sheaf (%u left)", c.nr_full);
	desc_cache_destroy(&c);
	CHECK(!c.sheaves && !c.nr_full && !desc_cache_nr_live(&c), "destroyed");
	free(o);
}


/*
 * calculate_order() for 16 CPUs: min_objects 24, at most 1/16 wasted.  A
 * 2-CPU kernel sizes for 12 (fls(2) = 2): 192-byte objects are order 0 with
 * 21; 32 CPUs for 28: 160-byte ones order 1 with 51.
 */
static void test_geometry_at(unsigned int cpus, size_t size, unsigned int want_objs,
			     size_t want_bytes)
{
	unsigned int objs;
	size_t bytes;

	desc_slab_cpus_set(cpus);
	CHECK(desc_slab_cpus() == cpus, "slab cpus %u", desc_slab_cpus());
	desc_slab_geometry(size, &objs, &bytes);
	CHECK(objs == want_objs && bytes == want_bytes, "%u CPUs, %zu-byte objects: %u in %zu bytes",
	      cpus, size, objs, bytes);
	desc_slab_cpus_set(16);
}

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
	test_geometry_at(2, 192, 21, 4096);
	test_geometry_at(2, 176, 23, 4096);
	test_geometry_at(32, 160, 51, 8192);
	test_geometry_at(7, 176, 23, 4096);
	test_geometry_at(16, 176, 46, 8192);
}

/*
 * Held on 4 CPUs: the slab CPU 0 carved, and 3 more CPUs holding as many
 * free objects as CPU 0 after one allocation: 7.0, a sheaf refilled with
 * 60, one taken: 59; 6.18, the CPU slab's lockless freelist, 51 less 1.
 */
static void test_held(void)
{
	static const struct { enum desc_slub slub; size_t free; } want[] = {
		{ DESC_SLUB_SHEAVES, 59 }, { DESC_SLUB_CPU_SLAB, 50 },
	};
	struct desc_cache c;

	for (unsigned int i = 0; i < 2; i++) {
		desc_slab_cpus_set(4);
		make_slub(&c, 80, false, SEED, want[i].slub);
		CHECK(desc_alloc(&c) && desc_cache_cpu_free_objects(&c, 0) == want[i].free &&
		      desc_cache_held_bytes(&c) == desc_cache_reserved_bytes(&c) + 3 * want[i].free * 80,
		      "%s: free %zu, held %zu, reserved %zu", desc_slub_name(want[i].slub),
		      desc_cache_cpu_free_objects(&c, 0), desc_cache_held_bytes(&c),
		      desc_cache_reserved_bytes(&c));
		desc_slab_cpus_set(1);
		CHECK(desc_cache_held_bytes(&c) == desc_cache_reserved_bytes(&c), "one CPU: held %zu",
		      desc_cache_held_bytes(&c));
		desc_cache_destroy(&c);
	}
	desc_slab_cpus_set(16);
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
	CHECK(desc_cache_nr_live(&c) == 200 && desc_cache_live_bytes(&c) == 200 * 80, "live %zu",
	      desc_cache_nr_live(&c));
	CHECK(desc_cache_reserved_bytes(&c) == ((200 + 50) / 51) * 4096UL, "reserved %zu",
	      desc_cache_reserved_bytes(&c));
	/* The CPU slab holds the last ones: frees there come back last in, first out. */
	desc_free(&c, o[199]);
	desc_free(&c, o[198]);
	CHECK(desc_alloc(&c) == o[198] && desc_alloc(&c) == o[199], "CPU freelist LIFO");
	/* A full slab that gets one free object goes to the CPU's partial list. */
	desc_free(&c, o[10]);
	CHECK(desc_cache_cpu(&c, 0)->partial &&
	      desc_slab_freelist(&c, desc_cache_cpu(&c, 0)->partial) == o[10], "CPU partial");
	CHECK(desc_cache_index(&c, o[10]) == 10 && desc_cache_index(&c, o[60]) == 60,
	      "index %ld %ld", desc_cache_index(&c, o[10]), desc_cache_index(&c, o[60]));
	desc_cache_destroy(&c);
	CHECK(!desc_cache_nr_live(&c) && !desc_cache_reserved_bytes(&c) && !c.nr_ext, "destroyed");
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
	CHECK(!desc_cache_nr_live(&c) && held <= 1 + c.cpu_partial_slabs + c.min_partial,
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

/* ------------------------------------------------------------------ */
/* Remote frees.                                                      */

#define RF_THREADS	2
#define RF_ROUNDS	4000
#define RF_BATCH	37		/* not a divisor of a slab's 51 objects */
#define RF_RING		(4 * RF_BATCH)

/* One direction: the allocating thread puts objects in, the next one frees them. */
struct rf_ring {
	void *obj[RF_RING];
	unsigned long head, tail;	/* head: written by the producer, tail: by the consumer */
};

struct rf {
	struct desc_cache c;
	struct rf_ring ring[RF_THREADS];	/* ring[i]: from thread i to thread i + 1 */
	unsigned char *live;			/* by desc_cache_index(): 1 while allocated */
	size_t nr_index;
	int twice;				/* an object handed out while live */
};

struct rf_thread {
	struct rf *rf;
	unsigned int cpu;
};

static void rf_mark(struct rf *rf, void *obj, unsigned char want, unsigned char set)
{
	long idx = desc_cache_index(&rf->c, obj);

	if (idx < 0 || (size_t)idx >= rf->nr_index ||
	    __atomic_exchange_n(&rf->live[idx], set, __ATOMIC_RELAXED) != want)
		__atomic_fetch_add(&rf->twice, 1, __ATOMIC_RELAXED);
}

static void *rf_run(void *arg)
{
	struct rf_thread *t = arg;
	struct rf *rf = t->rf;
	struct rf_ring *out = &rf->ring[t->cpu], *in = &rf->ring[(t->cpu + RF_THREADS - 1) % RF_THREADS];
	unsigned int r, i;

	desc_set_this_cpu(t->cpu);
	for (r = 0; r < RF_ROUNDS; r++) {
		for (i = 0; i < RF_BATCH; i++) {
			unsigned long head = out->head;
			void *obj = desc_alloc(&rf->c);

			rf_mark(rf, obj, 0, 1);
			*(unsigned long *)obj = head;	/* the object is ours to write */
			while (head - __atomic_load_n(&out->tail, __ATOMIC_ACQUIRE) == RF_RING)
				mdb_cpu_relax();
			out->obj[head % RF_RING] = obj;
			__atomic_store_n(&out->head, head + 1, __ATOMIC_RELEASE);
		}
		for (i = 0; i < RF_BATCH; i++) {
			unsigned long tail = in->tail;
			void *obj;

			while (__atomic_load_n(&in->head, __ATOMIC_ACQUIRE) == tail)
				mdb_cpu_relax();
			obj = in->obj[tail % RF_RING];
			__atomic_store_n(&in->tail, tail + 1, __ATOMIC_RELEASE);
			CHECK(*(unsigned long *)obj == tail, "object %lu came through as %lu", tail,
			      *(unsigned long *)obj);
			rf_mark(rf, obj, 1, 0);
			desc_free(&rf->c, obj);
		}
	}
	return NULL;
}

/* Objects a sheaf of the cache holds (7.0), counted into free[] by slab. */
static void count_sheaves(const struct desc_cache *c, unsigned int *free)
{
	const struct desc_sheaf *sh;
	unsigned int i;

	for (sh = c->sheaves; sh; sh = sh->all)
		for (i = 0; i < sh->size; i++)
			free[desc_cache_slab(c, sh->objects[i])->id]++;
}

/* Every object of every slab held is free exactly once: on its slab's freelist, a CPU's or a sheaf. */
static void rf_check_free(struct desc_cache *c)
{
	unsigned int e, cpu, *in_sheaves = calloc(c->nr_slabs + 1, sizeof(*in_sheaves));
	size_t i, given_back = 0, held = 0;
	struct desc_slab *s;

	count_sheaves(c, in_sheaves);
	for (s = c->free_slabs; s; s = s->next)
		given_back++;
	for (e = 0; e < c->nr_ext; e++) {
		for (i = 0; i < c->ext[e].nr_slabs; i++) {
			unsigned int n;
			void *obj;

			s = &c->ext[e].slab[i];
			n = in_sheaves[s->id];
			for (obj = desc_slab_freelist(c, s); obj && n <= c->objs_per_slab;
			     obj = desc_get_freepointer(c, obj))
				n++;
			for (cpu = 0; cpu < RF_THREADS; cpu++)
				if (desc_cache_cpu(c, cpu)->slab == s)
					for (obj = desc_cache_cpu(c, cpu)->freelist; obj && n <= c->objs_per_slab;
					     obj = desc_get_freepointer(c, obj))
						n++;
			held += n != 0;
			CHECK(n == 0 || n == c->objs_per_slab, "slab %zu: %u of %u objects free", s->id, n,
			      c->objs_per_slab);
		}
	}
	CHECK(held + given_back == c->nr_slabs && held == c->nr_slabs_held,
	      "%zu slabs held, %zu given back, %zu carved, %zu counted held", held, given_back,
	      c->nr_slabs, c->nr_slabs_held);
	if (c->opts.slub == DESC_SLUB_CPU_SLAB)
		CHECK(held <= RF_THREADS * (1 + c->cpu_partial_slabs) + c->min_partial,
		      "%zu slabs held when empty (CPU partial %u, min_partial %u)", held,
		      c->cpu_partial_slabs, c->min_partial);
	else	/* what the sheaves hold spreads over at most as many slabs, plus min_partial */
		CHECK(held <= (RF_THREADS * 2 + DESC_MAX_FULL_SHEAVES) * c->sheaf_capacity + c->min_partial,
		      "%zu slabs held when empty", held);
	free(in_sheaves);
}

static void test_remote_free(enum desc_slub slub)
{
	static struct rf rf;
	struct rf_thread t[RF_THREADS];
	pthread_t tid[RF_THREADS];
	unsigned int i;

	memset(&rf, 0, sizeof(rf));
	make_slub(&rf.c, 80, true, SEED, slub);
	rf.nr_index = 1 << 20;
	rf.live = calloc(rf.nr_index, 1);
	for (i = 0; i < RF_THREADS; i++) {
		t[i] = (struct rf_thread){ .rf = &rf, .cpu = i };
		CHECK(!pthread_create(&tid[i], NULL, rf_run, &t[i]), "pthread_create");
	}
	for (i = 0; i < RF_THREADS; i++)
		pthread_join(tid[i], NULL);
	CHECK(!rf.twice, "%d objects handed out twice or freed while free", rf.twice);
	CHECK(!desc_cache_nr_live(&rf.c), "%zu objects live after every free",
	      desc_cache_nr_live(&rf.c));
	rf_check_free(&rf.c);
	desc_cache_destroy(&rf.c);
	free(rf.live);
}

int main(void)
{
	desc_slab_cpus_set(16);	/* the geometry the checks below count with, on any machine */
	test_geometry();
	test_held();
	test_kinds();
	test_fresh_order_and_lifo();
	test_discard();
	test_random();
	test_sheaves();
	test_remote_free(DESC_SLUB_CPU_SLAB);
	test_remote_free(DESC_SLUB_SHEAVES);
	if (failures) {
		fprintf(stderr, "test_desc_cache: %d failures\n", failures);
		return 1;
	}
	printf("test_desc_cache: ok\n");
	return 0;
}
