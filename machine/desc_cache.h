/* SPDX-License-Identifier: GPL-2.0 */
/*
 * desc_cache.h - the suite's slab allocator for memory descriptors, modelled
 * on SLUB (mm/slub.c) as Linux 7.0 runs it, with per-CPU sheaves and the
 * node's barn (DESC_SLUB_SHEAVES, the default), or as 6.18 runs a cache
 * without sheaves, with struct kmem_cache_cpu (DESC_SLUB_CPU_SLAB, below).
 *
 * Separately allocated descriptors (page32's and memdesc8's folios, slabs,
 * ptdescs, ...) come from one cache per type, as the plan asks: "All structs
 * pointed to from a memdesc must be allocated from a slab which has its
 * alignment set to 16 bytes" (kernelnewbies.org/MatthewWilcox/Memdescs).
 * What decides where an object lands, and so which objects share a line or
 * a page, is modelled after the kernel:
 *
 *  - slabs: order and objects per slab as calculate_order() computes them
 *    (min_objects for desc_slab_cpus() CPUs, nr_cpu_ids: the machine's by
 *    default, --slab-cpus models another's; at most 1/16 of a slab wasted);
 *    their pages come from one mapping per cache like the direct map
 *    (vmemmap.h: 2 MiB pages by default), a discarded slab's pages are the
 *    first reused (the page allocator's per-cpu lists are LIFO);
 *  - per-CPU state (struct kmem_cache_cpu): a CPU slab whose free objects
 *    form the lockless freelist, and a per-CPU partial list;
 *  - allocation: the freelist (the next object's free pointer prefetched for
 *    writing, prefetch_freepointer()), else the slab's own freelist (get_freelist()),
 *    else the next per-CPU partial slab, else get_partial_node(): the first
 *    slab of the node's partial list becomes the CPU slab and up to
 *    cpu_partial_slabs / 2 more move to the per-CPU partial list, else a new
 *    slab;
 *  - free (do_slab_free(), __slab_free()): to the CPU freelist if the object
 *    is in the freeing CPU's own CPU slab, else onto its slab's freelist,
 *    LIFO, in one compare-and-exchange of the slab's freelist and counters
 *    (slab_update_freelist(): cmpxchg_double on freelist + counters there,
 *    one word packing both here); a full slab that gets a free object goes
 *    to the freeing CPU's partial list, which drains to the node's partial
 *    list (tail) once it holds cpu_partial_slabs; a slab on the node list
 *    that becomes empty is discarded when the node keeps min_partial others
 *    (the list_lock taken, as there, only for that case);
 *  - CONFIG_SLAB_FREELIST_RANDOM (on in Debian's, Fedora's and Ubuntu's
 *    kernels): with random_freelist, a new slab's freelist walks the cache's
 *    shuffled sequence from a random start (shuffle_freelist()); without,
 *    objects go out in address order, the best case.
 *
 * Sheaves (7.0: "slab: remove struct kmem_cache_cpu"; sheaves were opt-in
 * in 6.18).  Each CPU holds a main and a spare sheaf: arrays of up to
 * sheaf_capacity free objects (calculate_sheaf_capacity(): 60 for objects
 * under 256 bytes).  alloc_from_pcs() takes the main sheaf's last object,
 * free_to_pcs() puts one after its last, whichever slab or CPU it came
 * from (one node).  An empty main (__pcs_replace_empty_main()) swaps with a
 * spare that has objects, else trades itself for a full sheaf of the barn
 * (barn_replace_empty_sheaf()), else a sheaf (the spare, an empty one of
 * the barn or a new one) is refilled from slabs (refill_sheaf(): the node's
 * partial slabs from the head, their freelists in order, then new slabs, a
 * new slab's leftovers to the head of the partial list) and the old main
 * becomes the spare or goes to the barn.  A full main on free
 * (__pcs_replace_full_main()) swaps with an empty spare; with no spare it
 * takes an empty sheaf and keeps the full one as spare; else it trades
 * itself for an empty sheaf of the barn while the barn holds fewer than
 * MAX_FULL_SHEAVES (10) full ones (barn_replace_full_sheaf()); past that
 * the spare is flushed to its slabs (sheaf_flush_unused(): each object back
 * on its slab's freelist, from the sheaf's last; a full slab that gets one
 * goes to the node's partial list tail, an empty one is discarded when the
 * node keeps min_partial others) and becomes the new main, the full one the
 * spare.  The barn's lists are LIFO (list_add, list_first_entry).  Here the
 * slab side of refills and flushes runs under the node's list_lock (the
 * kernel updates slab freelists with cmpxchg and takes it less often); the
 * sheaves themselves are malloc()ed (kmalloc there) and count for nothing.
 *
 * Object layout (calculate_sizes(), kmem_cache_args): objects are 16-byte
 * aligned as the plan asks; the free pointer of a plain cache sits in the
 * middle of the object (ALIGN_DOWN(size / 2, 8)); a SLAB_TYPESAFE_BY_RCU
 * cache must not put it where RCU readers look, so it either names a field
 * they do not need (freeptr_offset, 6.12) or gets a word after the object;
 * SLAB_HWCACHE_ALIGN aligns objects larger than half a line to the line.
 * enum desc_cache_kind names the four choices the footprint pass compares.
 *
 * Remote frees (6.18).  Each thread stands for one CPU (desc_set_this_cpu(); 0 for
 * a thread that never says, so one thread alone is CPU 0 throughout) and
 * drives that CPU's struct kmem_cache_cpu without a lock, as the kernel does
 * with preemption off; an object allocated on one CPU and freed on another
 * takes __slab_free()'s path above: the compare-and-exchange on the slab,
 * the freeing CPU's partial list, the node's list_lock when the slab empties.
 * The allocating CPU finds those objects when its CPU slab runs dry
 * (get_freelist() takes the slab's freelist in one exchange, or unfreezes a
 * slab with none left, so that the next remote free puts it on a partial
 * list), or through the partial lists.  What is shared sits where the
 * kernel's sits: each CPU's state on lines of its own (per-CPU memory), each
 * slab's state on a line of its own (struct slab is a struct page), the
 * node's list under its list_lock; slab pages come from one LIFO of given-
 * back slabs under a lock (the page allocator's zone lock; its per-CPU lists
 * are not modelled per CPU), then from the mapping.
 *
 * Left out: NUMA nodes (one node), the rcu_free sheaf (kfree_rcu()), the
 * transaction id of the lockless fast path (nothing preempts a thread in the
 * middle of its own CPU's operation here), deactivate_slab() of a CPU slab
 * that still has objects (a CPU slab here is replaced only once it is
 * empty), SLAB_TYPESAFE_BY_RCU's grace period before a discarded slab's
 * pages are reused, the obfuscated free pointer of
 * CONFIG_SLAB_FREELIST_HARDENED (the pointer is stored as is, where
 * calculate_sizes() puts it), debugging and accounting.  Layout independent: compiled once.
 */
#ifndef MDB_DESC_CACHE_H
#define MDB_DESC_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spin.h"
#include "vmemmap.h"

#define DESC_ALIGN		16
#define DESC_MAX_CPUS		1024	/* per-CPU states a cache holds: threads it can serve */
#define DESC_SLAB_CPUS_MAX	8192	/* CONFIG_NR_CPUS of x86-64 MAXSMP: the most --slab-cpus takes */
#define DESC_MAX_OBJ		4096	/* largest object a cache takes */
#define DESC_SLAB_MAX_OBJS	4096	/* 16-byte objects in an order-0 slab of 64 KiB (--base-page=64k): the most any slab holds */
#define DESC_MAX_EXT		40	/* mappings: each as large as all before it */
#define DESC_LINE		64	/* bytes of a cache line: what per-CPU and slab state fill */

#define DESC_SHEAF_MAX		60	/* calculate_sheaf_capacity() for objects under 256 bytes */
#define DESC_MAX_FULL_SHEAVES	10	/* MAX_FULL_SHEAVES of a node's barn */

/* Which SLUB: 7.0's sheaves (the default) or 6.18's per-CPU slab. */
enum desc_slub {
	DESC_SLUB_SHEAVES,
	DESC_SLUB_CPU_SLAB,
	DESC_SLUB_NR
};

/* "7.0", "6.18"; and back, -1 for anything else. */
const char *desc_slub_name(enum desc_slub v);
int desc_slub_from_name(const char *name);

/*
 * How the folio descriptor caches are created (--desc-cache):
 * rcu: SLAB_TYPESAFE_BY_RCU with freeptr_offset at a field RCU readers do
 *	not read (the default: speculative lookups must find the flags and the
 *	refcount of a freed folio intact);
 * align16: a plain cache with the plan's 16-byte alignment, free pointer
 *	in the middle of the object;
 * rcu-tail: SLAB_TYPESAFE_BY_RCU without freeptr_offset: the free pointer
 *	after the object (80 -> 96 bytes, 160 -> 176);
 * hwcache: rcu with SLAB_HWCACHE_ALIGN (80 -> 128 bytes, 160 -> 192).
 */
enum desc_cache_kind {
	DESC_CACHE_RCU,
	DESC_CACHE_ALIGN16,
	DESC_CACHE_RCU_TAIL,
	DESC_CACHE_HWCACHE,
	DESC_CACHE_KIND_NR
};

const char *desc_cache_kind_name(enum desc_cache_kind k);
int desc_cache_kind_from_name(const char *name);

/*
 * Which memdesc caches are SLAB_TYPESAFE_BY_RCU (--desc-rcu):
 * all: every one, as the plan makes them (kernelnewbies.org/MatthewWilcox/
 *	Memdescs/Path: a memdesc is found from the memmap without a reference,
 *	so every type's cache is TYPESAFE_BY_RCU, not only the folio's: a
 *	reader may land on any type's freed object): the folio caches as
 *	--desc-cache says, the others (slab, ptdesc, zpdesc, bump) with the
 *	free pointer after the object, since the plan names no field of theirs
 *	that a lockless reader may find overwritten (64 -> 80 bytes, 48 -> 64);
 *	the default;
 * folio: only the folio caches (as --desc-cache says); the others plain
 *	16-byte aligned caches, free pointer in the middle of the object.
 */
enum desc_rcu {
	DESC_RCU_ALL,
	DESC_RCU_FOLIO,
	DESC_RCU_NR
};

const char *desc_rcu_name(enum desc_rcu r);
int desc_rcu_from_name(const char *name);

/* How a cache is built; copied into it. */
struct desc_cache_opts {
	size_t obj_size;		/* bytes of the object's fields; 0: no cache */
	size_t acct_size;		/* bytes one object counts for (<= obj_size); 0: obj_size */
	enum desc_slub slub;
	bool typesafe_by_rcu;		/* SLAB_TYPESAFE_BY_RCU */
	bool hwcache_align;		/* SLAB_HWCACHE_ALIGN */
	bool use_freeptr_offset;	/* kmem_cache_args.use_freeptr_offset (with RCU) */
	size_t freeptr_offset;		/* kmem_cache_args.freeptr_offset */
	size_t expect;			/* objects expected: sizes the first mapping */
	bool random_freelist;		/* CONFIG_SLAB_FREELIST_RANDOM */
	uint64_t seed;			/* of the freelist shuffles */
	enum memmap_pages pages;	/* how slab pages are mapped */
	vmemmap_bind_fn *bind;
	void *bind_arg;
};

/*
 * The kernel's struct slab, as far as SLUB reads it: one line each.  word
 * packs what slab_update_freelist() changes in one go: the freelist (its
 * first object's index + 1; 0 for none), inuse and frozen (a CPU slab).
 * The list links are the node's (under list_lock) or a CPU's own.
 */
struct desc_slab {
	uint64_t word;			/* atomic: freelist | inuse | frozen */
	char *base;			/* the slab's first object */
	size_t id;			/* in the order slabs were carved */
	struct desc_slab *next, *prev;	/* the list the slab is on */
	unsigned int cpu_partials;	/* head of a per-CPU partial list: its length */
	bool node_partial;		/* on the node's partial list (slab_test_node_partial()) */
	char pad[DESC_LINE - 45];
};

/* struct kmem_cache_cpu, one line each (per-CPU memory). */
struct desc_cpu {
	void *freelist;			/* lockless freelist of the CPU slab */
	struct desc_slab *slab;		/* the CPU slab, or NULL */
	struct desc_slab *partial;	/* head of the per-CPU partial list, or NULL */
	long nr_live;			/* objects this CPU allocated less those it freed */
	struct desc_sheaf *main, *spare;	/* struct slub_percpu_sheaves (7.0) */
	char pad[DESC_LINE - 48];
};

/* struct slab_sheaf: free objects, the last one the next to go. */
struct desc_sheaf {
	struct desc_sheaf *next;	/* on a barn list */
	struct desc_sheaf *all;		/* every sheaf of the cache, to free them */
	unsigned int size;
	void *objects[DESC_SHEAF_MAX];
};

_Static_assert(sizeof(struct desc_slab) == DESC_LINE, "one line of slab state");
_Static_assert(sizeof(struct desc_cpu) == DESC_LINE, "one line of per-CPU state");

/* One mapping of slab pages and the state of the slabs it can hold. */
struct desc_extent {
	struct vmemmap map;
	size_t first_slab;		/* id of its first slab */
	size_t cap;			/* slabs it holds */
	size_t nr_slabs;		/* carved so far */
	struct desc_slab *slab;		/* cap entries, line aligned */
};

struct desc_cache {
	struct desc_cache_opts opts;
	size_t obj_size, acct_size;	/* s->size: the stride; and what one object counts for */
	size_t freeptr;			/* s->offset: where a free object's free pointer lies */
	unsigned int objs_per_slab;
	size_t slab_bytes;
	unsigned int cpu_partial_slabs;	/* s->cpu_partial_slabs */
	unsigned int min_partial;	/* s->min_partial */
	unsigned int sheaf_capacity;	/* s->sheaf_capacity */
	void *preset;			/* desc_cache_preset() */
	bool random;			/* random_seq is in use */
	unsigned short random_seq[DESC_SLAB_MAX_OBJS];	/* s->random_seq: object indices, shuffled */
	/* The node: its partial list under list_lock. */
	struct mdb_spinlock list_lock;
	struct desc_slab *partial_head, *partial_tail;
	unsigned long nr_partial;
	/* Slab pages, under page_lock: given back (LIFO), carved, held. */
	struct mdb_spinlock page_lock;	/* the page allocator's zone lock */
	struct desc_slab *free_slabs;
	/* The node's barn, under barn_lock; and every sheaf made. */
	struct mdb_spinlock barn_lock;
	struct desc_sheaf *barn_full, *barn_empty, *sheaves;
	unsigned int nr_full, nr_empty;
	size_t nr_slabs, nr_slabs_held;
	uint64_t rng;			/* the freelist shuffles' generator */
	unsigned int cpus_used;		/* CPUs whose state is not as reset: 1 + the highest */
	struct desc_extent ext[DESC_MAX_EXT];
	unsigned int nr_ext;		/* published with a release store: readers need no lock */
	/* DESC_MAX_CPUS struct desc_cpu on lines of their own: desc_cache_cpu(). */
	char cpu_area[(DESC_MAX_CPUS + 1) * DESC_LINE];
};

/*
 * calculate_sizes(): the stride of objects of size bytes built with opts'
 * flags, and where a free object's free pointer lies in it.
 */
void desc_object_layout(const struct desc_cache_opts *opts, size_t size, size_t *stride,
			size_t *freeptr);
/* opts' flags for a folio descriptor cache of kind k; freeptr_offset: the field rcu names. */
void desc_cache_kind_flags(enum desc_cache_kind k, size_t freeptr_offset,
			   struct desc_cache_opts *opts);

/* The stride of a folio descriptor cache of kind k for objects of size bytes. */
static inline size_t desc_cache_kind_stride(enum desc_cache_kind k, size_t size)
{
	struct desc_cache_opts o = { 0 };
	size_t stride, freeptr;

	desc_cache_kind_flags(k, 8, &o);
	desc_object_layout(&o, size, &stride, &freeptr);
	return stride;
}

/*
 * nr_cpu_ids as calculate_order() reads it (slub_min_objects 0: min_objects
 * = 4 * (fls(nr_cpu_ids) + 1)), and what the footprint counts per-CPU
 * sheaves for: desc_slab_cpus_set()'s, else the CPUs this machine has
 * (sysconf(_SC_NPROCESSORS_CONF)).  Set it before any cache is built.
 */
unsigned int desc_slab_cpus(void);
/* 0: the machine's again; else 1..DESC_SLAB_CPUS_MAX. */
void desc_slab_cpus_set(unsigned int n);

/* Objects per slab and the slab's bytes for objects of obj_size, as calculate_order(). */
void desc_slab_geometry(size_t obj_size, unsigned int *objs_per_slab, size_t *slab_bytes);

/* obj_size 0 makes a cache that allocates nothing.  Maps nothing yet. */
void desc_cache_init(struct desc_cache *c, const struct desc_cache_opts *opts);
/*
 * A zeroed object from CPU cpu's state, or NULL when memory runs out.  Only
 * the thread standing for cpu may call these with it, any number of threads
 * at once.
 */
void *desc_alloc_cpu(struct desc_cache *c, unsigned int cpu);
void desc_free_cpu(struct desc_cache *c, unsigned int cpu, void *obj);
/*
 * The next allocation hands out obj, an object allocated before and not
 * freed (it stays counted once): the aging trace gives a folio placed after
 * the trace the descriptor the trace allocated for it.  NULL: none.
 */
static inline void desc_cache_preset(struct desc_cache *c, void *obj)
{
	c->preset = obj;
}

/* Frees every object and mapping; the cache is then as desc_cache_init() left it.  No thread may be in it. */
void desc_cache_destroy(struct desc_cache *c);

/* The CPU the calling thread stands for (smp_processor_id()): 0 until it says. */
extern _Thread_local unsigned int desc_this_cpu;

static inline void desc_set_this_cpu(unsigned int cpu)
{
	desc_this_cpu = cpu;
}

/* kmem_cache_alloc() and kmem_cache_free() on the calling thread's CPU. */
static inline void *desc_alloc(struct desc_cache *c)
{
	return desc_alloc_cpu(c, desc_this_cpu);
}

static inline void desc_free(struct desc_cache *c, void *obj)
{
	desc_free_cpu(c, desc_this_cpu, obj);
}

/* CPU cpu's state: the line-aligned cpu-th of cpu_area. */
static inline struct desc_cpu *desc_cache_cpu(const struct desc_cache *c, unsigned int cpu)
{
	uintptr_t base = ((uintptr_t)c->cpu_area + DESC_LINE - 1) & ~(uintptr_t)(DESC_LINE - 1);

	return (struct desc_cpu *)base + cpu;
}

/* Objects allocated and not freed, over every CPU (while no thread is in the cache). */
size_t desc_cache_nr_live(const struct desc_cache *c);

static inline size_t desc_cache_live_bytes(const struct desc_cache *c)
{
	return desc_cache_nr_live(c) * c->acct_size;
}

/* Bytes of the slabs the cache holds (CPU, partial and full ones). */
static inline size_t desc_cache_reserved_bytes(const struct desc_cache *c)
{
	return c->nr_slabs_held * c->slab_bytes;
}

/*
 * Free objects CPU cpu holds for itself (while no thread is in the cache):
 * its main and spare sheaves' (7.0), its CPU slab's lockless freelist
 * (6.18; its per-CPU partial slabs are counted as slabs held).
 */
size_t desc_cache_cpu_free_objects(const struct desc_cache *c, unsigned int cpu);

/*
 * Bytes of slab pages the cache would hold on desc_slab_cpus() CPUs: the
 * slabs it holds, and, for each CPU beyond the one that built it, as many
 * free objects in that CPU's sheaves as CPU 0 holds in its own (each
 * CPU runs the same load), at the stride.  The kernel's SUnreclaim share.
 */
static inline size_t desc_cache_held_bytes(const struct desc_cache *c)
{
	size_t other = desc_slab_cpus() > 1 ? desc_slab_cpus() - 1 : 0;

	return desc_cache_reserved_bytes(c) + other * desc_cache_cpu_free_objects(c, 0) * c->obj_size;
}

/* The object's place in the cache: slab id * objs_per_slab + index; -1 if not the cache's. */
long desc_cache_index(const struct desc_cache *c, const void *obj);
/* The slab an object of the cache lies in; NULL if none. */
struct desc_slab *desc_cache_slab(const struct desc_cache *c, const void *obj);
/* A free object's free pointer (at c->freeptr). */
void *desc_get_freepointer(const struct desc_cache *c, void *obj);
/* The first object of a slab's freelist (its word's), NULL if empty. */
void *desc_slab_freelist(const struct desc_cache *c, const struct desc_slab *s);
/*
 * The mappings of the caches c[0, nr) into v (room for nr * DESC_MAX_EXT)
 * and the bytes carved from each into carved; how many.  For
 * vmemmap_settle_each() and vmemmap_usage_sum(): one read of smaps for all.
 */
size_t desc_cache_maps(const struct desc_cache *c, unsigned int nr, const struct vmemmap **v,
		       size_t *carved);

#endif /* MDB_DESC_CACHE_H */
