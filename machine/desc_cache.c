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
#include <unistd.h>

#include "basepage.h"
#include "desc_cache.h"
#include "err.h"
#include "rng.h"
#include "units.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define desc_poison(p, n)	ASAN_POISON_MEMORY_REGION(p, n)
#define desc_unpoison(p, n)	ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define desc_poison(p, n)	((void)(p), (void)(n))
#define desc_unpoison(p, n)	((void)(p), (void)(n))
#endif

/* PAGE_SIZE: slabs are base pages of the run's size (basepage.h). */
#define PAGE_BYTES		(1UL << mdb_base.shift)
#define SLUB_MAX_ORDER		3	/* PAGE_ALLOC_COSTLY_ORDER */
#define MIN_PARTIAL		5
#define MAX_PARTIAL		10
#define CACHE_LINE		64	/* cache_line_size() */
#define PTR_BYTES		sizeof(void *)

static const char *const slub_name[DESC_SLUB_NR] = {
	[DESC_SLUB_SHEAVES] = "7.0",
	[DESC_SLUB_CPU_SLAB] = "6.18",
};

static const char *const kind_name[DESC_CACHE_KIND_NR] = {
	[DESC_CACHE_RCU] = "rcu",
	[DESC_CACHE_ALIGN16] = "align16",
	[DESC_CACHE_RCU_TAIL] = "rcu-tail",
	[DESC_CACHE_HWCACHE] = "hwcache",
};

static const char *const rcu_name[DESC_RCU_NR] = {
	[DESC_RCU_ALL] = "all",
	[DESC_RCU_FOLIO] = "folio",
};

const char *desc_rcu_name(enum desc_rcu r)
{
	return mdb_name_of(rcu_name, DESC_RCU_NR, r);
}

int desc_rcu_from_name(const char *name)
{
	return mdb_parse_name(name, rcu_name, DESC_RCU_NR);
}

const char *desc_slub_name(enum desc_slub v)
{
	return mdb_name_of(slub_name, DESC_SLUB_NR, v);
}

int desc_slub_from_name(const char *name)
{
	return mdb_parse_name(name, slub_name, DESC_SLUB_NR);
}

const char *desc_cache_kind_name(enum desc_cache_kind k)
{
	return mdb_name_of(kind_name, DESC_CACHE_KIND_NR, k);
}

int desc_cache_kind_from_name(const char *name)
{
	return mdb_parse_name(name, kind_name, DESC_CACHE_KIND_NR);
}

void desc_cache_kind_flags(enum desc_cache_kind k, size_t freeptr_offset,
			   struct desc_cache_opts *opts)
{
	opts->typesafe_by_rcu = k != DESC_CACHE_ALIGN16;
	opts->use_freeptr_offset = k == DESC_CACHE_RCU || k == DESC_CACHE_HWCACHE;
	opts->freeptr_offset = opts->use_freeptr_offset ? freeptr_offset : 0;
	opts->hwcache_align = k == DESC_CACHE_HWCACHE;
}

static size_t align_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

/*
 * calculate_alignment() and calculate_sizes(): SLAB_HWCACHE_ALIGN takes the
 * line, halved while the object fits in half of it; the free pointer goes
 * after the object for an RCU cache without freeptr_offset, at
 * freeptr_offset with it, else in the middle of the object.
 */
void desc_object_layout(const struct desc_cache_opts *opts, size_t size, size_t *stride,
			size_t *freeptr)
{
	size_t align = DESC_ALIGN, bytes = align_up(size, PTR_BYTES);

	if (opts->hwcache_align) {
		size_t ralign = CACHE_LINE;

		while (size <= ralign / 2)
			ralign /= 2;
		if (ralign > align)
			align = ralign;
	}
	if (opts->typesafe_by_rcu && !opts->use_freeptr_offset) {
		*freeptr = bytes;
		bytes += PTR_BYTES;
	} else if (opts->typesafe_by_rcu) {
		*freeptr = opts->freeptr_offset;
	} else {
		*freeptr = size / 2 / PTR_BYTES * PTR_BYTES;
	}
	*stride = align_up(bytes, align);
}

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

static unsigned int slab_cpus;

void desc_slab_cpus_set(unsigned int n)
{
	slab_cpus = n < DESC_SLAB_CPUS_MAX ? n : DESC_SLAB_CPUS_MAX;
}

unsigned int desc_slab_cpus(void)
{
	long n;

	if (slab_cpus)
		return slab_cpus;
	n = sysconf(_SC_NPROCESSORS_CONF);
	return n < 1 ? 1 : n > DESC_SLAB_CPUS_MAX ? DESC_SLAB_CPUS_MAX : (unsigned int)n;
}

static unsigned int calculate_order(size_t size)
{
	unsigned int min_objects = 4 * (fls_u(desc_slab_cpus()) + 1);
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

/*
 * calculate_sheaf_capacity(): half of what 6.18 kept per CPU, rounded up to
 * fill the sheaf's kmalloc bucket (a 32-byte header and 8 bytes a pointer).
 */
static unsigned int sheaf_capacity(size_t size)
{
	unsigned int cap, bytes, bucket = 8;

	if (size >= PAGE_BYTES)
		cap = 4;
	else if (size >= 1024)
		cap = 12;
	else if (size >= 256)
		cap = 26;
	else
		cap = 60;
	bytes = 32 + 8 * cap;
	while (bucket < bytes)
		bucket *= 2;
	cap = (bucket - 32) / 8;
	return cap < DESC_SHEAF_MAX ? cap : DESC_SHEAF_MAX;
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

/* ------------------------------------------------------------------------ */
/* The slab word.                                                           */

/*
 * struct slab's freelist and counters in one word: bits 0-15 the freelist
 * (object index + 1, 0 for none), 16-31 inuse, bit 32 frozen.
 */
#define SW_INUSE_SHIFT		16
#define SW_FROZEN		(1ULL << 32)
#define SW_FREE_MASK		0xffffULL
#define SW_INUSE_MASK		(0xffffULL << SW_INUSE_SHIFT)

_Static_assert(DESC_SLAB_MAX_OBJS < SW_FREE_MASK, "an object index fits the word");

static uint64_t slab_word(const struct desc_slab *s)
{
	return __atomic_load_n(&s->word, __ATOMIC_ACQUIRE);
}

static bool slab_update_freelist(struct desc_slab *s, uint64_t *old, uint64_t new)
{
	return __atomic_compare_exchange_n(&s->word, old, new, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

static unsigned int sw_inuse(uint64_t w)
{
	return (w & SW_INUSE_MASK) >> SW_INUSE_SHIFT;
}

static bool sw_frozen(uint64_t w)
{
	return w & SW_FROZEN;
}

static uint64_t sw_make(const struct desc_cache *c, const struct desc_slab *s, const void *freelist,
			unsigned int inuse, bool frozen)
{
	uint64_t idx = freelist ? (uint64_t)((const char *)freelist - s->base) / c->obj_size + 1 : 0;

	return idx | (uint64_t)inuse << SW_INUSE_SHIFT | (frozen ? SW_FROZEN : 0);
}

static void *sw_freelist(const struct desc_cache *c, const struct desc_slab *s, uint64_t w)
{
	uint64_t idx = w & SW_FREE_MASK;

	return idx ? s->base + (idx - 1) * c->obj_size : NULL;
}

void *desc_slab_freelist(const struct desc_cache *c, const struct desc_slab *s)
{
	return sw_freelist(c, s, slab_word(s));
}

/* ------------------------------------------------------------------------ */

/* Only the CPUs that were used: a boot resets every cache and should pay for one CPU, not 1024. */
static void cache_reset(struct desc_cache *c)
{
	unsigned int cpu;

	for (cpu = 0; cpu < c->cpus_used; cpu++)
		*desc_cache_cpu(c, cpu) = (struct desc_cpu){ 0 };
	c->cpus_used = 0;
	c->list_lock.locked = c->page_lock.locked = 0;
	c->partial_head = c->partial_tail = NULL;
	c->nr_partial = 0;
	c->free_slabs = NULL;
	c->preset = NULL;
	c->barn_lock.locked = 0;
	c->barn_full = c->barn_empty = c->sheaves = NULL;
	c->nr_full = c->nr_empty = 0;
	c->nr_slabs = c->nr_slabs_held = 0;
	memset(c->ext, 0, sizeof(c->ext));
	c->nr_ext = 0;
	c->rng = c->opts.seed ^ (0x736c6162ULL * c->obj_size);	/* "slab" */
}

_Thread_local unsigned int desc_this_cpu;

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

/* A CPU's state is about to leave its reset state (the slow paths see every CPU first). */
static void cpu_used(struct desc_cache *c, unsigned int cpu)
{
	unsigned int used = __atomic_load_n(&c->cpus_used, __ATOMIC_RELAXED);

	while (used <= cpu && !__atomic_compare_exchange_n(&c->cpus_used, &used, cpu + 1, false,
							   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

void desc_cache_init(struct desc_cache *c, const struct desc_cache_opts *opts)
{
	memset(c, 0, sizeof(*c));
	c->opts = *opts;
	cache_reset(c);
	if (!opts->obj_size)
		return;
	desc_object_layout(opts, opts->obj_size, &c->obj_size, &c->freeptr);
	if (opts->acct_size)
		desc_object_layout(opts, opts->acct_size, &c->acct_size, &(size_t){ 0 });
	else
		c->acct_size = c->obj_size;
	if (c->acct_size > c->obj_size)
		c->acct_size = c->obj_size;
	assert(c->obj_size <= DESC_MAX_OBJ && c->freeptr + PTR_BYTES <= c->obj_size);
	c->rng = c->opts.seed ^ (0x736c6162ULL * c->obj_size);	/* "slab" */
	c->sheaf_capacity = sheaf_capacity(c->obj_size);
	desc_slab_geometry(c->obj_size, &c->objs_per_slab, &c->slab_bytes);
	assert(c->objs_per_slab <= DESC_SLAB_MAX_OBJS);
	c->cpu_partial_slabs = cpu_partial_slabs(c->obj_size, c->objs_per_slab);
	c->min_partial = min_partial(c->obj_size);
	if (opts->random_freelist && c->objs_per_slab > 1)
		init_random_seq(c);
}

/* ------------------------------------------------------------------------ */
/* Slab pages: under page_lock, but for the lookups, which need no lock.    */

static unsigned int nr_extents(const struct desc_cache *c)
{
	return __atomic_load_n(&c->nr_ext, __ATOMIC_ACQUIRE);
}

/* virt_to_slab(); NULL for an address no slab of the cache holds. */
struct desc_slab *desc_cache_slab(const struct desc_cache *c, const void *obj)
{
	uintptr_t a = (uintptr_t)obj;
	unsigned int e, n = nr_extents(c);

	for (e = 0; e < n; e++) {
		const struct desc_extent *x = &c->ext[e];
		uintptr_t base = (uintptr_t)x->map.addr;

		if (a - base < x->cap * c->slab_bytes)
			return &x->slab[(a - base) / c->slab_bytes];
	}
	return NULL;
}

/*
 * A new mapping of slab pages and room for the state of every slab it can
 * hold: the first sized for the objects the cache expects (and a quarter
 * more), each later one as large as all before.  Published last, so a
 * lookup that sees it sees it whole.
 */
static int add_extent(struct desc_cache *c)
{
	size_t bytes, total = 0;
	struct desc_extent *x;
	struct mdb_err err;
	unsigned int e;

	if (c->nr_ext == DESC_MAX_EXT)
		return -1;
	for (e = 0; e < c->nr_ext; e++)
		total += c->ext[e].map.bytes;
	bytes = total ? total : (c->opts.expect + c->opts.expect / 4) / c->objs_per_slab * c->slab_bytes;
	if (bytes < VMEMMAP_HUGE)
		bytes = VMEMMAP_HUGE;
	x = &c->ext[c->nr_ext];
	if (vmemmap_map(&x->map, bytes, c->opts.pages, c->opts.bind, c->opts.bind_arg, &err))
		return -1;
	x->cap = x->map.bytes / c->slab_bytes;
	x->slab = aligned_alloc(DESC_LINE, x->cap * sizeof(*x->slab));
	if (!x->slab) {
		vmemmap_unmap(&x->map);
		return -1;
	}
	x->first_slab = c->nr_slabs;
	x->nr_slabs = 0;
	__atomic_store_n(&c->nr_ext, c->nr_ext + 1, __ATOMIC_RELEASE);
	return 0;
}

/* The next slab's pages after the last carved one, mapping more when it is full. */
static struct desc_slab *carve_slab(struct desc_cache *c)
{
	struct desc_extent *x = c->nr_ext ? &c->ext[c->nr_ext - 1] : NULL;
	struct desc_slab *s;
	struct mdb_err err;

	if (!x || x->nr_slabs == x->cap) {
		if (add_extent(c))
			return NULL;
		x = &c->ext[c->nr_ext - 1];
	}
	/* A pooled extent's pages come as its slabs need them, as faults bring them. */
	if (vmemmap_back(&x->map, (x->nr_slabs + 1) * c->slab_bytes, &err))
		return NULL;
	s = &x->slab[x->nr_slabs];
	s->base = (char *)x->map.addr + x->nr_slabs * c->slab_bytes;
	s->id = c->nr_slabs++;
	x->nr_slabs++;
	return s;
}

/* A slab's pages: given back ones first (LIFO), then new ones; the shuffle's start with them. */
static struct desc_slab *get_slab_pages(struct desc_cache *c, unsigned int *pos)
{
	struct desc_slab *s;

	mdb_spin_lock(&c->page_lock);
	s = c->free_slabs;
	if (s)
		c->free_slabs = s->next;
	else
		s = carve_slab(c);
	if (s) {
		c->nr_slabs_held++;
		*pos = c->random ? (unsigned int)mdb_rng_below(&c->rng, c->objs_per_slab) : 0;
	}
	mdb_spin_unlock(&c->page_lock);
	return s;
}

/* The free pointer at s->offset: a field RCU readers do not read, or after the object. */
static void **freeptr_addr(const struct desc_cache *c, void *obj)
{
	return (void **)((char *)obj + c->freeptr);
}

static void set_freepointer(const struct desc_cache *c, void *obj, void *next)
{
	void **fp = freeptr_addr(c, obj);

	desc_unpoison(fp, sizeof(void *));
	*fp = next;
	desc_poison(fp, sizeof(void *));
}

static void *get_freepointer(const struct desc_cache *c, void *obj)
{
	void **fp = freeptr_addr(c, obj);

	desc_unpoison(fp, sizeof(void *));
	return *fp;
}

void *desc_get_freepointer(const struct desc_cache *c, void *obj)
{
	return get_freepointer(c, obj);
}

/*
 * allocate_slab(): pages (a discarded slab's first), then the freelist in
 * address order or, with random_freelist, along the cache's shuffled
 * sequence from a random start (shuffle_freelist(), next_freelist_entry()).
 * No other CPU sees the slab before its objects go out.
 */
static struct desc_slab *new_slab(struct desc_cache *c)
{
	unsigned int n = c->objs_per_slab, i, pos = 0;
	struct desc_slab *s = get_slab_pages(c, &pos);
	char *first = NULL, *prev = NULL;

	if (!s)
		return NULL;
	desc_unpoison(s->base, c->slab_bytes);
	for (i = 0; i < n; i++) {
		unsigned int idx = c->random ? c->random_seq[(pos + i) % n] : i;
		char *obj = s->base + (size_t)idx * c->obj_size;

		if (prev)
			set_freepointer(c, prev, obj);
		else
			first = obj;
		prev = obj;
	}
	set_freepointer(c, prev, NULL);
	desc_poison(s->base, c->slab_bytes);
	s->word = sw_make(c, s, first, 0, false);
	s->next = s->prev = NULL;
	s->cpu_partials = 0;
	s->node_partial = false;
	return s;
}

/* discard_slab(): the pages go back, to be the first a new slab takes. */
static void discard_slab(struct desc_cache *c, struct desc_slab *s)
{
	mdb_spin_lock(&c->page_lock);
	s->next = c->free_slabs;
	c->free_slabs = s;
	c->nr_slabs_held--;
	mdb_spin_unlock(&c->page_lock);
}

/* ------------------------------------------------------------------------ */
/* The node's partial list: under list_lock.                                */

static void add_partial_tail(struct desc_cache *c, struct desc_slab *s)
{
	s->next = NULL;
	s->prev = c->partial_tail;
	if (c->partial_tail)
		c->partial_tail->next = s;
	else
		c->partial_head = s;
	c->partial_tail = s;
	s->node_partial = true;
	c->nr_partial++;
}

static void remove_partial(struct desc_cache *c, struct desc_slab *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		c->partial_head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else
		c->partial_tail = s->prev;
	s->next = s->prev = NULL;
	s->node_partial = false;
	c->nr_partial--;
}

/* __put_partials(): a per-CPU list to the node's tail; empty slabs beyond min_partial go. */
static void put_partials(struct desc_cache *c, struct desc_slab *s)
{
	struct desc_slab *discard = NULL, *next;

	mdb_spin_lock(&c->list_lock);
	for (; s; s = next) {
		next = s->next;
		if (!sw_inuse(slab_word(s)) && c->nr_partial >= c->min_partial) {
			s->next = discard;
			discard = s;
		} else {
			add_partial_tail(c, s);
		}
	}
	mdb_spin_unlock(&c->list_lock);
	for (; discard; discard = next) {
		next = discard->next;
		discard_slab(c, discard);
	}
}

/* put_cpu_partial(): onto the CPU's list; with drain, a full list goes to the node first. */
static void put_cpu_partial(struct desc_cache *c, struct desc_cpu *pc, struct desc_slab *s,
			    bool drain)
{
	struct desc_slab *old = pc->partial, *to_put = NULL;
	unsigned int slabs = 0;

	if (old) {
		if (drain && old->cpu_partials >= c->cpu_partial_slabs) {
			to_put = old;
			old = NULL;
		} else {
			slabs = old->cpu_partials;
		}
	}
	s->cpu_partials = slabs + 1;
	s->next = old;
	pc->partial = s;
	if (to_put)
		put_partials(c, to_put);
}

/*
 * get_partial_node(): under list_lock, the first partial slab, and up to
 * cpu_partial_slabs / 2 more for the CPU's list.
 */
static struct desc_slab *get_partial_node(struct desc_cache *c, struct desc_cpu *pc)
{
	struct desc_slab *s, *first = NULL, *next;
	unsigned int partial_slabs = 0;

	mdb_spin_lock(&c->list_lock);
	for (s = c->partial_head; s; s = next) {
		next = s->next;
		remove_partial(c, s);
		if (!first) {
			first = s;
		} else {
			put_cpu_partial(c, pc, s, false);
			partial_slabs++;
		}
		if (partial_slabs > c->cpu_partial_slabs / 2)
			break;
	}
	mdb_spin_unlock(&c->list_lock);
	return first;
}

/* freeze_slab(): the CPU takes the slab and its whole freelist, in one exchange. */
static void *freeze_slab(struct desc_cache *c, struct desc_cpu *pc, struct desc_slab *s)
{
	uint64_t old = slab_word(s);

	while (!slab_update_freelist(s, &old, sw_make(c, s, NULL, c->objs_per_slab, true)))
		;
	pc->slab = s;
	return sw_freelist(c, s, old);
}

/*
 * get_freelist(): the CPU slab's own freelist (what other CPUs freed into
 * it), or, when it has none, the slab unfrozen in the same exchange: full,
 * on no list, until a free puts it on one.
 */
static void *get_freelist(struct desc_cache *c, struct desc_slab *s)
{
	uint64_t old = slab_word(s), new;

	do {
		new = sw_make(c, s, NULL, c->objs_per_slab, sw_freelist(c, s, old) != NULL);
	} while (!slab_update_freelist(s, &old, new));
	return sw_freelist(c, s, old);
}

/* ___slab_alloc(): a freelist for the CPU, or NULL when memory runs out. */
static void *slab_alloc_slow(struct desc_cache *c, struct desc_cpu *pc)
{
	struct desc_slab *s;
	void *freelist;

	if (pc->slab) {
		freelist = get_freelist(c, pc->slab);
		if (freelist)
			return freelist;
		pc->slab = NULL;
	}
	if (pc->partial) {
		s = pc->partial;
		pc->partial = s->next;
		return freeze_slab(c, pc, s);
	}
	s = get_partial_node(c, pc);
	if (!s)
		s = new_slab(c);
	return s ? freeze_slab(c, pc, s) : NULL;
}

static void *cpu_slab_alloc(struct desc_cache *c, unsigned int cpu)
{
	struct desc_cpu *pc = desc_cache_cpu(c, cpu);
	void *obj = pc->freelist;

	if (!obj) {
		cpu_used(c, cpu);
		obj = slab_alloc_slow(c, pc);
		if (!obj)
			return NULL;
		pc->freelist = get_freepointer(c, obj);
	} else {
		/* slab_alloc_node()'s fast path: prefetch_freepointer() of the next one (prefetchw). */
		pc->freelist = get_freepointer(c, obj);
		if (pc->freelist)
			__builtin_prefetch(pc->freelist, 1);
	}
	return obj;
}

/*
 * __slab_free(): onto the slab's freelist in one exchange.  A frozen slab
 * (another CPU's CPU slab) needs nothing more; a full one goes to this CPU's
 * partial list; one that becomes empty is looked at under list_lock, taken
 * before the exchange as the kernel takes it, and discarded if it is on the
 * node's list and the node keeps min_partial others.
 */
static void slab_free(struct desc_cache *c, struct desc_cpu *pc, struct desc_slab *s, void *obj)
{
	bool locked = false, on_node_partial = false, was_frozen;
	uint64_t old = slab_word(s), new;
	void *prior;

	desc_poison(obj, c->obj_size);
	do {
		if (locked) {
			mdb_spin_unlock(&c->list_lock);
			locked = false;
		}
		prior = sw_freelist(c, s, old);
		set_freepointer(c, obj, prior);
		was_frozen = sw_frozen(old);
		new = sw_make(c, s, obj, sw_inuse(old) - 1, was_frozen);
		if (prior && !sw_inuse(new) && !was_frozen) {
			mdb_spin_lock(&c->list_lock);
			locked = true;
			on_node_partial = s->node_partial;
		}
	} while (!slab_update_freelist(s, &old, new));

	if (!locked) {
		if (!was_frozen && !prior)
			put_cpu_partial(c, pc, s, true);
		return;
	}
	if (on_node_partial && c->nr_partial >= c->min_partial) {
		remove_partial(c, s);
		mdb_spin_unlock(&c->list_lock);
		discard_slab(c, s);
		return;
	}
	mdb_spin_unlock(&c->list_lock);
}

static void cpu_slab_free(struct desc_cache *c, unsigned int cpu, void *obj)
{
	struct desc_cpu *pc = desc_cache_cpu(c, cpu);
	struct desc_slab *s = desc_cache_slab(c, obj);

	assert(s);
	if (s == pc->slab) {			/* do_slab_free()'s fast path */
		set_freepointer(c, obj, pc->freelist);
		pc->freelist = obj;
		desc_poison(obj, c->obj_size);
		return;
	}
	cpu_used(c, cpu);
	slab_free(c, pc, s, obj);
}

/* ------------------------------------------------------------------------ */
/* Sheaves (7.0): per-CPU arrays, the node's barn, refills and flushes.     */

/* alloc_empty_sheaf(): kept on the cache's list until destroy. */
static struct desc_sheaf *alloc_empty_sheaf(struct desc_cache *c)
{
	struct desc_sheaf *sh = calloc(1, sizeof(*sh));

	if (!sh)
		return NULL;
	mdb_spin_lock(&c->barn_lock);
	sh->all = c->sheaves;
	c->sheaves = sh;
	mdb_spin_unlock(&c->barn_lock);
	return sh;
}

/* Pop the head of a barn list (list_first_entry() + list_del()). */
static struct desc_sheaf *barn_pop(struct desc_sheaf **list, unsigned int *nr)
{
	struct desc_sheaf *sh = *list;

	if (sh) {
		*list = sh->next;
		(*nr)--;
	}
	return sh;
}

static void barn_push(struct desc_sheaf **list, unsigned int *nr, struct desc_sheaf *sh)
{
	sh->next = *list;
	*list = sh;
	(*nr)++;
}

static struct desc_sheaf *barn_get_empty_sheaf(struct desc_cache *c)
{
	struct desc_sheaf *sh;

	mdb_spin_lock(&c->barn_lock);
	sh = barn_pop(&c->barn_empty, &c->nr_empty);
	mdb_spin_unlock(&c->barn_lock);
	return sh;
}

static void barn_put(struct desc_cache *c, struct desc_sheaf *sh, bool full)
{
	mdb_spin_lock(&c->barn_lock);
	if (full)
		barn_push(&c->barn_full, &c->nr_full, sh);
	else
		barn_push(&c->barn_empty, &c->nr_empty, sh);
	mdb_spin_unlock(&c->barn_lock);
}

/* barn_replace_empty_sheaf(): a full sheaf for the empty one, if the barn has one. */
static struct desc_sheaf *barn_replace_empty_sheaf(struct desc_cache *c, struct desc_sheaf *empty)
{
	struct desc_sheaf *full;

	mdb_spin_lock(&c->barn_lock);
	full = barn_pop(&c->barn_full, &c->nr_full);
	if (full)
		barn_push(&c->barn_empty, &c->nr_empty, empty);
	mdb_spin_unlock(&c->barn_lock);
	return full;
}

/* barn_replace_full_sheaf(): an empty sheaf for the full one; NULL with *too_many (-E2BIG) or not (-ENOMEM). */
static struct desc_sheaf *barn_replace_full_sheaf(struct desc_cache *c, struct desc_sheaf *full,
						  bool *too_many)
{
	struct desc_sheaf *empty = NULL;

	mdb_spin_lock(&c->barn_lock);
	*too_many = c->nr_full >= DESC_MAX_FULL_SHEAVES;
	if (!*too_many) {
		empty = barn_pop(&c->barn_empty, &c->nr_empty);
		if (empty)
			barn_push(&c->barn_full, &c->nr_full, full);
	}
	mdb_spin_unlock(&c->barn_lock);
	return empty;
}

static void add_partial_head(struct desc_cache *c, struct desc_slab *s)
{
	s->prev = NULL;
	s->next = c->partial_head;
	if (c->partial_head)
		c->partial_head->prev = s;
	else
		c->partial_tail = s;
	c->partial_head = s;
	s->node_partial = true;
	c->nr_partial++;
}

/* Objects off a slab's freelist into p, in freelist order; under list_lock. */
static unsigned int take_objects(struct desc_cache *c, struct desc_slab *s, void **p,
				 unsigned int max)
{
	uint64_t w = slab_word(s);
	void *obj = sw_freelist(c, s, w);
	unsigned int n = 0;

	while (obj && n < max) {
		p[n++] = obj;
		obj = get_freepointer(c, obj);
	}
	__atomic_store_n(&s->word, sw_make(c, s, obj, sw_inuse(w) + n, false), __ATOMIC_RELEASE);
	return n;
}

/*
 * refill_sheaf() through __refill_objects_node(): the node's partial slabs
 * from the head, then new slabs, whose leftovers go to the head of the
 * partial list.  Objects enter the sheaf in freelist order, so the last
 * taken goes out first.  Returns the objects added.
 */
static unsigned int refill_sheaf(struct desc_cache *c, struct desc_sheaf *sh)
{
	unsigned int want = c->sheaf_capacity - sh->size, got = 0;
	struct desc_slab *s;

	mdb_spin_lock(&c->list_lock);
	while (got < want && (s = c->partial_head)) {
		got += take_objects(c, s, &sh->objects[sh->size + got], want - got);
		if (!sw_freelist(c, s, slab_word(s)))
			remove_partial(c, s);
	}
	while (got < want && (s = new_slab(c))) {
		got += take_objects(c, s, &sh->objects[sh->size + got], want - got);
		if (sw_freelist(c, s, slab_word(s)))
			add_partial_head(c, s);
	}
	mdb_spin_unlock(&c->list_lock);
	sh->size += got;
	return got;
}

/*
 * __slab_free() of a flushed object, under list_lock: onto its slab's
 * freelist; a full slab goes to the partial list's tail, an empty one is
 * discarded when the node keeps min_partial others.
 */
static void flush_object(struct desc_cache *c, void *obj)
{
	struct desc_slab *s = desc_cache_slab(c, obj);
	uint64_t w = slab_word(s);
	void *prior = sw_freelist(c, s, w);
	unsigned int inuse = sw_inuse(w) - 1;

	desc_poison(obj, c->obj_size);
	set_freepointer(c, obj, prior);
	__atomic_store_n(&s->word, sw_make(c, s, obj, inuse, false), __ATOMIC_RELEASE);
	if (!inuse && c->nr_partial >= c->min_partial) {
		if (prior)
			remove_partial(c, s);
		discard_slab(c, s);
	} else if (!prior) {
		add_partial_tail(c, s);
	}
}

/* sheaf_flush_unused(): every object back to its slab, the last first. */
static void sheaf_flush(struct desc_cache *c, struct desc_sheaf *sh)
{
	mdb_spin_lock(&c->list_lock);
	while (sh->size)
		flush_object(c, sh->objects[--sh->size]);
	mdb_spin_unlock(&c->list_lock);
}

/* __pcs_replace_empty_main(): 0, or -1 when no object is left to be had. */
static int pcs_replace_empty_main(struct desc_cache *c, struct desc_cpu *pc)
{
	struct desc_sheaf *full, *empty;

	if (pc->spare && pc->spare->size) {
		full = pc->spare;
		pc->spare = pc->main;
		pc->main = full;
		return 0;
	}
	full = barn_replace_empty_sheaf(c, pc->main);
	if (full) {
		pc->main = full;
		return 0;
	}
	if (pc->spare) {
		empty = pc->spare;
		pc->spare = NULL;
	} else {
		empty = barn_get_empty_sheaf(c);
		if (!empty)
			empty = alloc_empty_sheaf(c);
		if (!empty)
			return -1;
	}
	if (!refill_sheaf(c, empty)) {
		barn_put(c, empty, false);
		return -1;
	}
	if (!pc->spare)
		pc->spare = pc->main;
	else
		barn_put(c, pc->main, false);
	pc->main = empty;
	return 0;
}

/* __pcs_replace_full_main(): an empty main, the full one kept or given away. */
static void pcs_replace_full_main(struct desc_cache *c, struct desc_cpu *pc)
{
	struct desc_sheaf *empty;
	bool too_many;

	if (pc->spare && !pc->spare->size) {
		empty = pc->spare;
		pc->spare = pc->main;
		pc->main = empty;
		return;
	}
	if (pc->spare) {
		empty = barn_replace_full_sheaf(c, pc->main, &too_many);
		if (empty) {
			pc->main = empty;
			return;
		}
		if (too_many) {
			/* -E2BIG: the full spare goes back to its slabs and is the new empty one. */
			empty = pc->spare;
			pc->spare = NULL;
			sheaf_flush(c, empty);
		}
	} else {
		empty = barn_get_empty_sheaf(c);
	}
	if (!empty)
		empty = alloc_empty_sheaf(c);
	if (!empty) {
		/* No memory for a sheaf: straight to the slab, as the kernel's fallback. */
		sheaf_flush(c, pc->main);
		return;
	}
	if (!pc->spare)
		pc->spare = pc->main;
	else
		barn_put(c, pc->main, true);
	pc->main = empty;
}

/* alloc_from_pcs(): the main sheaf's last object. */
static void *pcs_alloc(struct desc_cache *c, unsigned int cpu)
{
	struct desc_cpu *pc = desc_cache_cpu(c, cpu);

	if (!pc->main) {
		cpu_used(c, cpu);
		pc->main = alloc_empty_sheaf(c);
		if (!pc->main)
			return NULL;
	}
	if (!pc->main->size && pcs_replace_empty_main(c, pc))
		return NULL;
	return pc->main->objects[--pc->main->size];
}

/* free_to_pcs(): after the main sheaf's last object. */
static void pcs_free(struct desc_cache *c, unsigned int cpu, void *obj)
{
	struct desc_cpu *pc = desc_cache_cpu(c, cpu);

	assert(desc_cache_slab(c, obj));
	desc_poison(obj, c->obj_size);
	if (!pc->main) {
		cpu_used(c, cpu);
		pc->main = alloc_empty_sheaf(c);
		if (!pc->main) {
			mdb_spin_lock(&c->list_lock);
			flush_object(c, obj);
			mdb_spin_unlock(&c->list_lock);
			return;
		}
	}
	if (pc->main->size == c->sheaf_capacity)
		pcs_replace_full_main(c, pc);
	if (pc->main->size == c->sheaf_capacity) {	/* no sheaf to be had */
		mdb_spin_lock(&c->list_lock);
		flush_object(c, obj);
		mdb_spin_unlock(&c->list_lock);
		return;
	}
	pc->main->objects[pc->main->size++] = obj;
}

/* ------------------------------------------------------------------------ */

void *desc_alloc_cpu(struct desc_cache *c, unsigned int cpu)
{
	void *obj;

	assert(cpu < DESC_MAX_CPUS);
	if (!c->obj_size)
		return NULL;
	if (c->preset) {
		obj = c->preset;
		c->preset = NULL;
		desc_unpoison(obj, c->obj_size);
		memset(obj, 0, c->obj_size);
		return obj;
	}
	obj = c->opts.slub == DESC_SLUB_SHEAVES ? pcs_alloc(c, cpu) : cpu_slab_alloc(c, cpu);
	if (!obj)
		return NULL;
	desc_unpoison(obj, c->obj_size);
	memset(obj, 0, c->obj_size);
	desc_cache_cpu(c, cpu)->nr_live++;
	return obj;
}

void desc_free_cpu(struct desc_cache *c, unsigned int cpu, void *obj)
{
	assert(cpu < DESC_MAX_CPUS);
	desc_cache_cpu(c, cpu)->nr_live--;
	if (c->opts.slub == DESC_SLUB_SHEAVES)
		pcs_free(c, cpu, obj);
	else
		cpu_slab_free(c, cpu, obj);
}

size_t desc_cache_nr_live(const struct desc_cache *c)
{
	long n = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < c->cpus_used; cpu++)
		n += desc_cache_cpu(c, cpu)->nr_live;
	assert(n >= 0);
	return (size_t)n;
}

size_t desc_cache_cpu_free_objects(const struct desc_cache *c, unsigned int cpu)
{
	const struct desc_cpu *pc = desc_cache_cpu(c, cpu);
	size_t n = 0;
	void *obj;

	if (cpu >= c->cpus_used)
		return 0;
	if (pc->main)
		n += pc->main->size;
	if (pc->spare)
		n += pc->spare->size;
	for (obj = pc->freelist; obj; obj = desc_get_freepointer(c, obj))
		n++;
	return n;
}

void desc_cache_destroy(struct desc_cache *c)
{
	unsigned int e;

	while (c->sheaves) {
		struct desc_sheaf *sh = c->sheaves;

		c->sheaves = sh->all;
		free(sh);
	}
	for (e = 0; e < c->nr_ext; e++) {
		desc_unpoison(c->ext[e].map.addr, c->ext[e].nr_slabs * c->slab_bytes);
		vmemmap_unmap(&c->ext[e].map);
		free(c->ext[e].slab);
	}
	cache_reset(c);
}

long desc_cache_index(const struct desc_cache *c, const void *obj)
{
	const struct desc_slab *s = desc_cache_slab(c, obj);

	if (!s)
		return -1;
	return (long)s->id * (long)c->objs_per_slab +
	       (long)(((const char *)obj - s->base) / c->obj_size);
}

size_t desc_cache_maps(const struct desc_cache *c, unsigned int nr, const struct vmemmap **v,
		       size_t *carved)
{
	unsigned int i, e;
	size_t n = 0;

	for (i = 0; i < nr; i++)
		for (e = 0; e < c[i].nr_ext; e++) {
			v[n] = &c[i].ext[e].map;
			carved[n++] = c[i].ext[e].nr_slabs * c[i].slab_bytes;
		}
	return n;
}
