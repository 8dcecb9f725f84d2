// SPDX-License-Identifier: GPL-2.0
/*
 * desc_cache.c - SLUB's object placement for descriptor caches (see
 * desc_cache.h for what is modelled and what is left out).  Function names
 * follow mm/slub.c where they do what its functions do.
 *
 * Under AddressSanitizer every free object is poisoned, so a layout that
 * reads a descriptor after folio_destroy() is caught even though its slab
 * stays mapped.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "desc_cache.h"
#include "err.h"
#include "rng.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define desc_poison(p, n)	ASAN_POISON_MEMORY_REGION(p, n)
#define desc_unpoison(p, n)	ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define desc_poison(p, n)	((void)(p), (void)(n))
#define desc_unpoison(p, n)	((void)(p), (void)(n))
#endif

#define PAGE_BYTES		4096UL
#define SLUB_MAX_ORDER		3	/* PAGE_ALLOC_COSTLY_ORDER */
#define MIN_PARTIAL		5
#define MAX_PARTIAL		10

enum desc_slab_state {
	SLAB_UNUSED,		/* pages given back (discard_slab()) */
	SLAB_CPU,		/* a CPU slab: frozen */
	SLAB_CPU_PARTIAL,	/* on a per-CPU partial list */
	SLAB_NODE_PARTIAL,	/* on the node's partial list */
	SLAB_FULL,		/* on no list */
};

/* ------------------------------------------------------------------------ */
/* Sizes: calculate_order(), set_cpu_partial(), kmem_cache_open().          */

static unsigned int fls_u(unsigned int x)
{
	return x ? 32 - (unsigned int)__builtin_clz(x) : 0;
}

static unsigned int get_order(size_t bytes)
{
	unsigned int order = 0;

	while ((PAGE_BYTES << order) < bytes)
		order++;
	return order;
}

static unsigned int calc_slab_order(size_t size, unsigned int min_order, unsigned int fract)
{
	unsigned int order;

	for (order = min_order; order <= SLUB_MAX_ORDER; order++) {
		size_t slab = PAGE_BYTES << order;

		if (slab % size <= slab / fract)
			break;
	}
	return order;
}

static unsigned int calculate_order(size_t size)
{
	unsigned int min_objects = 4 * (fls_u(DESC_SLAB_CPUS) + 1);
	size_t max_objects = (PAGE_BYTES << SLUB_MAX_ORDER) / size;
	unsigned int min_order, order, fract;

	if (max_objects < 1)
		max_objects = 1;
	if (min_objects > max_objects)
		min_objects = (unsigned int)max_objects;
	min_order = get_order(min_objects * size);
	for (fract = 16; fract > 1; fract /= 2) {
		order = calc_slab_order(size, min_order, fract);
		if (order <= SLUB_MAX_ORDER)
			return order;
	}
	return get_order(size);
}

void desc_slab_geometry(size_t obj_size, unsigned int *objs_per_slab, size_t *slab_bytes)
{
	*slab_bytes = PAGE_BYTES << calculate_order(obj_size);
	*objs_per_slab = (unsigned int)(*slab_bytes / obj_size);
}

/* set_cpu_partial() + slub_set_cpu_partial(): objects kept per CPU, as slabs. */
static unsigned int cpu_partial_slabs(size_t size, unsigned int objs_per_slab)
{
	unsigned int nr_objects;

	if (size >= PAGE_BYTES)
		nr_objects = 6;
	else if (size >= 1024)
		nr_objects = 24;
	else if (size >= 256)
		nr_objects = 52;
	else
		nr_objects = 120;
	return (nr_objects * 2 + objs_per_slab - 1) / objs_per_slab;
}

static unsigned int min_partial(size_t size)
{
	unsigned int half_log = (fls_u((unsigned int)size) - 1) / 2;

	if (half_log > MAX_PARTIAL)
		half_log = MAX_PARTIAL;
	return half_log < MIN_PARTIAL ? MIN_PARTIAL : half_log;
}

static void cache_reset(struct desc_cache *c)
{
	unsigned int cpu;

	for (cpu = 0; cpu < DESC_MAX_CPUS; cpu++)
		c->cpu[cpu] = (struct desc_cpu){ .slab = -1, .partial = -1 };
	c->partial_head = c->partial_tail = -1;
	c->nr_partial = 0;
	c->free_slabs = -1;
	c->slab = NULL;
	c->nr_slabs = c->cap_slabs = c->nr_slabs_held = 0;
	c->ext = NULL;
	c->nr_ext = c->cap_ext = 0;
	c->nr_live = 0;
	c->rng = c->opts.seed ^ (0x736c6162ULL * c->obj_size);	/* "slab" */
}

/* init_cache_random_seq(): the object indices of a slab, shuffled once per cache. */
static void init_random_seq(struct desc_cache *c)
{
	unsigned int i, j;
	unsigned short t;

	c->random = true;
	for (i = 0; i < c->objs_per_slab; i++)
		c->random_seq[i] = i;
	for (i = c->objs_per_slab; i > 1; i--) {
		j = (unsigned int)mdb_rng_below(&c->rng, i);
		t = c->random_seq[i - 1];
		c->random_seq[i - 1] = c->random_seq[j];
		c->random_seq[j] = t;
	}
}

void desc_cache_init(struct desc_cache *c, const struct desc_cache_opts *opts)
{
	memset(c, 0, sizeof(*c));
	c->opts = *opts;
	c->obj_size = (opts->obj_size + DESC_ALIGN - 1) & ~(size_t)(DESC_ALIGN - 1);
	c->acct_size = opts->acct_size ? opts->acct_size : c->obj_size;
	assert(c->obj_size <= DESC_MAX_OBJ && c->acct_size <= c->obj_size);
	cache_reset(c);
	if (!c->obj_size)
		return;
	desc_slab_geometry(c->obj_size, &c->objs_per_slab, &c->slab_bytes);
	assert(c->objs_per_slab <= DESC_SLAB_MAX_OBJS);
	c->cpu_partial_slabs = cpu_partial_slabs(c->obj_size, c->objs_per_slab);
	c->min_partial = min_partial(c->obj_size);
	if (opts->random_freelist && c->objs_per_slab > 1)
		init_random_seq(c);
}

/* ------------------------------------------------------------------------ */
/* Slab pages.                                                              */

static struct desc_extent *slab_extent(const struct desc_cache *c, size_t id)
{
	unsigned int e;

	for (e = 0; e < c->nr_ext; e++)
		if (id - c->ext[e].first_slab < c->ext[e].nr_slabs)
			return &c->ext[e];
	return NULL;
}

static char *slab_address(const struct desc_cache *c, size_t id)
{
	const struct desc_extent *x = slab_extent(c, id);

	return (char *)x->map.addr + (id - x->first_slab) * c->slab_bytes;
}

/* virt_to_slab(); -1 for an address no slab of the cache holds. */
static long virt_to_slab(const struct desc_cache *c, const void *obj)
{
	uintptr_t a = (uintptr_t)obj;
	unsigned int e;

	for (e = 0; e < c->nr_ext; e++) {
		const struct desc_extent *x = &c->ext[e];
		uintptr_t base = (uintptr_t)x->map.addr;

		if (a - base < x->nr_slabs * c->slab_bytes)
			return (long)(x->first_slab + (a - base) / c->slab_bytes);
	}
	return -1;
}

/*
 * A new mapping of slab pages: the first sized for the objects the cache
 * expects (and a quarter more), each later one as large as all before.
 */
static int add_extent(struct desc_cache *c)
{
	size_t bytes, total = 0;
	struct desc_extent *x;
	struct mdb_err err;
	unsigned int e;

	if (c->nr_ext == c->cap_ext) {
		unsigned int cap = c->cap_ext ? 2 * c->cap_ext : 4;

		x = realloc(c->ext, cap * sizeof(*x));
		if (!x)
			return -1;
		c->ext = x;
		c->cap_ext = cap;
	}
	for (e = 0; e < c->nr_ext; e++)
		total += c->ext[e].map.bytes;
	bytes = total ? total : (c->opts.expect + c->opts.expect / 4) / c->objs_per_slab * c->slab_bytes;
	if (bytes < VMEMMAP_HUGE)
		bytes = VMEMMAP_HUGE;
	x = &c->ext[c->nr_ext];
	if (vmemmap_map(&x->map, bytes, c->opts.pages, c->opts.bind, c->opts.bind_arg, &err))
		return -1;
	x->first_slab = c->nr_slabs;
	x->nr_slabs = 0;
	c->nr_ext++;
	return 0;
}

/* The next slab's pages after the last carved one, mapping more when it is full. */
static long carve_slab(struct desc_cache *c)
{
	struct desc_extent *x = c->nr_ext ? &c->ext[c->nr_ext - 1] : NULL;

	if (c->nr_slabs == c->cap_slabs) {
		size_t cap = c->cap_slabs ? 2 * c->cap_slabs : 256;
		struct desc_slab *s = realloc(c->slab, cap * sizeof(*s));

		if (!s)
			return -1;
		c->slab = s;
		c->cap_slabs = cap;
	}
	if (!x || (x->nr_slabs + 1) * c->slab_bytes > x->map.bytes) {
		if (add_extent(c))
			return -1;
		x = &c->ext[c->nr_ext - 1];
	}
	x->nr_slabs++;
	return (long)c->nr_slabs++;
}

static void set_freepointer(void *obj, void *next)
{
	*(void **)obj = next;
}

static void *get_freepointer(void *obj)
{
	desc_unpoison(obj, sizeof(void *));
	return *(void **)obj;
}

/*
 * allocate_slab(): pages (a discarded slab's first), then the freelist in
 * address order or, with random_freelist, along the cache's shuffled
 * sequence from a random start (shuffle_freelist(), next_freelist_entry()).
 */
static long new_slab(struct desc_cache *c)
{
	unsigned int n = c->objs_per_slab, i, pos = 0;
	struct desc_slab *s;
	char *base, *prev = NULL;
	long id;

	if (c->free_slabs >= 0) {
		id = c->free_slabs;
		c->free_slabs = c->slab[id].next;
	} else {
		id = carve_slab(c);
		if (id < 0)
			return -1;
	}
	s = &c->slab[id];
	base = slab_address(c, (size_t)id);
	desc_unpoison(base, c->slab_bytes);
	if (c->random)
		pos = (unsigned int)mdb_rng_below(&c->rng, n);
	for (i = 0; i < n; i++) {
		unsigned int idx = c->random ? c->random_seq[(pos + i) % n] : i;
		char *obj = base + (size_t)idx * c->obj_size;

		if (prev)
			set_freepointer(prev, obj);
		else
			s->freelist = obj;
		prev = obj;
	}
	set_freepointer(prev, NULL);
	desc_poison(base, c->slab_bytes);
	s->inuse = 0;
	s->next = s->prev = -1;
	c->nr_slabs_held++;
	return id;
}

/* discard_slab(): the pages go back, to be the first a new slab takes. */
static void discard_slab(struct desc_cache *c, long id)
{
	struct desc_slab *s = &c->slab[id];

	s->state = SLAB_UNUSED;
	s->freelist = NULL;
	s->next = c->free_slabs;
	c->free_slabs = id;
	c->nr_slabs_held--;
}

/* ------------------------------------------------------------------------ */
/* Lists.                                                                   */

static void add_partial_tail(struct desc_cache *c, long id)
{
	struct desc_slab *s = &c->slab[id];

	s->next = -1;
	s->prev = c->partial_tail;
	if (c->partial_tail >= 0)
		c->slab[c->partial_tail].next = id;
	else
		c->partial_head = id;
	c->partial_tail = id;
	s->state = SLAB_NODE_PARTIAL;
	c->nr_partial++;
}

static void remove_partial(struct desc_cache *c, long id)
{
	struct desc_slab *s = &c->slab[id];

	if (s->prev >= 0)
		c->slab[s->prev].next = s->next;
	else
		c->partial_head = s->next;
	if (s->next >= 0)
		c->slab[s->next].prev = s->prev;
	else
		c->partial_tail = s->prev;
	s->next = s->prev = -1;
	c->nr_partial--;
}

/* __put_partials(): a per-CPU list to the node's tail; empty slabs beyond min_partial go. */
static void put_partials(struct desc_cache *c, long id)
{
	long discard = -1, next;

	for (; id >= 0; id = next) {
		struct desc_slab *s = &c->slab[id];

		next = s->next;
		if (!s->inuse && c->nr_partial >= c->min_partial) {
			s->next = discard;
			discard = id;
		} else {
			add_partial_tail(c, id);
		}
	}
	for (; discard >= 0; discard = next) {
		next = c->slab[discard].next;
		discard_slab(c, discard);
	}
}

/* put_cpu_partial(): onto the CPU's list; with drain, a full list goes to the node first. */
static void put_cpu_partial(struct desc_cache *c, struct desc_cpu *pc, long id, bool drain)
{
	long old = pc->partial, to_put = -1;
	unsigned int slabs = 0;

	if (old >= 0) {
		if (drain && c->slab[old].cpu_partials >= c->cpu_partial_slabs) {
			to_put = old;
			old = -1;
		} else {
			slabs = c->slab[old].cpu_partials;
		}
	}
	c->slab[id].cpu_partials = slabs + 1;
	c->slab[id].next = old;
	c->slab[id].state = SLAB_CPU_PARTIAL;
	pc->partial = id;
	if (to_put >= 0)
		put_partials(c, to_put);
}

/* get_partial_node(): the first partial slab, and up to cpu_partial_slabs / 2 for the CPU. */
static long get_partial_node(struct desc_cache *c, struct desc_cpu *pc)
{
	long id = c->partial_head, first = -1, next;
	unsigned int partial_slabs = 0;

	for (; id >= 0; id = next) {
		next = c->slab[id].next;
		remove_partial(c, id);
		if (first < 0) {
			first = id;
		} else {
			put_cpu_partial(c, pc, id, false);
			partial_slabs++;
		}
		if (partial_slabs > c->cpu_partial_slabs / 2)
			break;
	}
	return first;
}

/* freeze_slab(): the CPU takes the slab and its whole freelist. */
static void *freeze_slab(struct desc_cache *c, struct desc_cpu *pc, long id)
{
	struct desc_slab *s = &c->slab[id];
	void *freelist = s->freelist;

	s->freelist = NULL;
	s->inuse = c->objs_per_slab;
	s->state = SLAB_CPU;
	pc->slab = id;
	return freelist;
}

/* ___slab_alloc(): a freelist for the CPU, or NULL when memory runs out. */
static void *slab_alloc_slow(struct desc_cache *c, struct desc_cpu *pc)
{
	long id;

	if (pc->slab >= 0) {
		struct desc_slab *s = &c->slab[pc->slab];

		if (s->freelist)		/* get_freelist() */
			return freeze_slab(c, pc, pc->slab);
		s->state = SLAB_FULL;		/* unfrozen, on no list */
		pc->slab = -1;
	}
	if (pc->partial >= 0) {
		id = pc->partial;
		pc->partial = c->slab[id].next;
		return freeze_slab(c, pc, id);
	}
	id = get_partial_node(c, pc);
	if (id < 0)
		id = new_slab(c);
	return id < 0 ? NULL : freeze_slab(c, pc, id);
}

void *desc_alloc_cpu(struct desc_cache *c, unsigned int cpu)
{
	struct desc_cpu *pc = &c->cpu[cpu];
	void *obj;

	assert(cpu < DESC_MAX_CPUS);
	if (!c->obj_size)
		return NULL;
	obj = pc->freelist;
	if (!obj) {
		obj = slab_alloc_slow(c, pc);
		if (!obj)
			return NULL;
	}
	pc->freelist = get_freepointer(obj);
	desc_unpoison(obj, c->obj_size);
	memset(obj, 0, c->obj_size);
	c->nr_live++;
	return obj;
}

void desc_free_cpu(struct desc_cache *c, unsigned int cpu, void *obj)
{
	struct desc_cpu *pc = &c->cpu[cpu];
	long id = virt_to_slab(c, obj);
	struct desc_slab *s;
	void *prior;

	assert(id >= 0 && c->nr_live && cpu < DESC_MAX_CPUS);
	c->nr_live--;
	if (id == pc->slab) {			/* do_slab_free()'s fast path */
		set_freepointer(obj, pc->freelist);
		pc->freelist = obj;
		desc_poison(obj, c->obj_size);
		return;
	}
	s = &c->slab[id];			/* __slab_free() */
	prior = s->freelist;
	set_freepointer(obj, prior);
	s->freelist = obj;
	s->inuse--;
	desc_poison(obj, c->obj_size);
	if (s->state == SLAB_CPU)		/* another CPU's slab */
		return;
	if (!prior) {				/* was full */
		put_cpu_partial(c, pc, id, true);
		return;
	}
	if (s->state != SLAB_NODE_PARTIAL)	/* on a per-CPU list: it stays */
		return;
	if (!s->inuse && c->nr_partial >= c->min_partial) {
		remove_partial(c, id);
		discard_slab(c, id);
	}
}

void desc_cache_destroy(struct desc_cache *c)
{
	unsigned int e;

	for (e = 0; e < c->nr_ext; e++) {
		desc_unpoison(c->ext[e].map.addr, c->ext[e].nr_slabs * c->slab_bytes);
		vmemmap_unmap(&c->ext[e].map);
	}
	free(c->ext);
	free(c->slab);
	cache_reset(c);
}

long desc_cache_index(const struct desc_cache *c, const void *obj)
{
	long id = virt_to_slab(c, obj);

	if (id < 0)
		return -1;
	return id * (long)c->objs_per_slab +
	       (long)(((const char *)obj - slab_address(c, (size_t)id)) / c->obj_size);
}

int desc_cache_usage(const struct desc_cache *c, struct vmemmap_usage *u, size_t *populated)
{
	unsigned int e;

	*populated = 0;
	for (e = 0; e < c->nr_ext; e++) {
		if (vmemmap_usage(&c->ext[e].map, u))
			return -1;
		*populated += c->ext[e].nr_slabs * c->slab_bytes;
	}
	return 0;
}

void desc_cache_settle(const struct desc_cache *c)
{
	unsigned int e;

	for (e = 0; e < c->nr_ext; e++)
		vmemmap_settle(&c->ext[e].map, c->ext[e].nr_slabs * c->slab_bytes);
}
