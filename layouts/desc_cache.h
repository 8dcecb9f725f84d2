/* SPDX-License-Identifier: GPL-2.0 */
/*
 * desc_cache.h - the suite's slab allocator for memory descriptors, modelled
 * on SLUB as Linux 6.18 runs it for a cache without sheaves (mm/slub.c).
 *
 * Separately allocated descriptors (page32's and memdesc8's folios, slabs,
 * ptdescs, ...) come from one cache per type, as the plan asks: "All structs
 * pointed to from a memdesc must be allocated from a slab which has its
 * alignment set to 16 bytes" (kernelnewbies.org/MatthewWilcox/Memdescs).
 * What decides where an object lands, and so which objects share a line or
 * a page, is modelled after the kernel:
 *
 *  - slabs: order and objects per slab as calculate_order() computes them
 *    (min_objects for DESC_SLAB_CPUS CPUs, at most 1/16 of a slab wasted);
 *    their pages come from one mapping per cache like the direct map
 *    (vmemmap.h: 2 MiB pages by default), a discarded slab's pages are the
 *    first reused (the page allocator's per-cpu lists are LIFO);
 *  - per-CPU state (struct kmem_cache_cpu): a CPU slab whose free objects
 *    form the lockless freelist, and a per-CPU partial list;
 *  - allocation: the freelist, else the slab's own freelist (get_freelist()),
 *    else the next per-CPU partial slab, else get_partial_node(): the first
 *    slab of the node's partial list becomes the CPU slab and up to
 *    cpu_partial_slabs / 2 more move to the per-CPU partial list, else a new
 *    slab;
 *  - free (do_slab_free(), __slab_free()): to the CPU freelist if the object
 *    is in the CPU slab, else onto its slab's freelist, LIFO; a full slab
 *    that gets a free object goes to the per-CPU partial list, which drains
 *    to the node's partial list (tail) once it holds cpu_partial_slabs; an
 *    empty slab on the node list is discarded when the node keeps
 *    min_partial others;
 *  - CONFIG_SLAB_FREELIST_RANDOM (on in Debian's, Fedora's and Ubuntu's
 *    kernels): with random_freelist, a new slab's freelist walks the cache's
 *    shuffled sequence from a random start (shuffle_freelist()); without,
 *    objects go out in address order, the best case.
 *
 * Left out: NUMA nodes (one node), remote frees from other CPUs (a single
 * CPU allocates and frees until threads come), sheaves (opt-in in 6.18),
 * SLAB_TYPESAFE_BY_RCU's grace period before a discarded slab's pages are
 * reused, the obfuscated free pointer of CONFIG_SLAB_FREELIST_HARDENED (the
 * free pointer here is the object's first word: 6.12's freeptr_offset lets
 * a TYPESAFE_BY_RCU cache keep it inside the object too), debugging and
 * accounting.
 *
 * Per-CPU state is an array so that threads can each drive their own CPU
 * (desc_alloc_cpu()/desc_free_cpu()); what is per node (the partial list,
 * the slab pages) would then need the lock the kernel's list_lock is.
 * Layout independent: compiled once.
 */
#ifndef MDB_DESC_CACHE_H
#define MDB_DESC_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmemmap.h"

#define DESC_ALIGN		16
#define DESC_MAX_CPUS		64	/* per-CPU states a cache holds */
#define DESC_SLAB_CPUS		16	/* the CPU count calculate_order() sizes slabs for */
#define DESC_MAX_OBJ		4096	/* largest object a cache takes */
#define DESC_SLAB_MAX_OBJS	256	/* 16-byte objects in an order-0 slab: the most any slab holds */

/* How a cache is built; copied into it. */
struct desc_cache_opts {
	size_t obj_size;		/* bytes between objects; 0: no cache */
	size_t acct_size;		/* bytes one object counts for (<= obj_size); 0: obj_size */
	size_t expect;			/* objects expected: sizes the first mapping */
	bool random_freelist;		/* CONFIG_SLAB_FREELIST_RANDOM */
	uint64_t seed;			/* of the freelist shuffles */
	enum memmap_pages pages;	/* how slab pages are mapped */
	vmemmap_bind_fn *bind;
	void *bind_arg;
};

/* The kernel's struct slab, as far as SLUB reads it. */
struct desc_slab {
	void *freelist;			/* free objects not on a CPU freelist */
	unsigned int inuse;		/* objects not on freelist (all, while a CPU slab) */
	unsigned int cpu_partials;	/* head of a per-CPU partial list: its length */
	long next, prev;		/* list links (slab ids), -1 at the ends */
	unsigned char state;		/* enum desc_slab_state */
};

/* struct kmem_cache_cpu. */
struct desc_cpu {
	void *freelist;			/* lockless freelist of the CPU slab */
	long slab;			/* the CPU slab, or -1 */
	long partial;			/* head of the per-CPU partial list, or -1 */
};

/* One mapping of slab pages; ids first_slab .. first_slab + nr_slabs - 1. */
struct desc_extent {
	struct vmemmap map;
	size_t first_slab, nr_slabs;
};

struct desc_cache {
	struct desc_cache_opts opts;
	size_t obj_size, acct_size;
	unsigned int objs_per_slab;
	size_t slab_bytes;
	unsigned int cpu_partial_slabs;	/* s->cpu_partial_slabs */
	unsigned int min_partial;	/* s->min_partial */
	struct desc_cpu cpu[DESC_MAX_CPUS];
	long partial_head, partial_tail;	/* the node's partial list */
	unsigned long nr_partial;
	long free_slabs;		/* discarded slabs' pages, LIFO */
	struct desc_slab *slab;		/* by id, in the order slabs were carved */
	size_t nr_slabs, cap_slabs, nr_slabs_held;
	struct desc_extent *ext;
	unsigned int nr_ext, cap_ext;
	bool random;			/* random_seq is in use */
	unsigned short random_seq[DESC_SLAB_MAX_OBJS];	/* s->random_seq: object indices, shuffled */
	uint64_t rng;
	size_t nr_live;
};

/* Objects per slab and the slab's bytes for objects of obj_size, as calculate_order(). */
void desc_slab_geometry(size_t obj_size, unsigned int *objs_per_slab, size_t *slab_bytes);

/* obj_size 0 makes a cache that allocates nothing.  Maps nothing yet. */
void desc_cache_init(struct desc_cache *c, const struct desc_cache_opts *opts);
/* A zeroed object from CPU cpu's state, or NULL when memory runs out. */
void *desc_alloc_cpu(struct desc_cache *c, unsigned int cpu);
void desc_free_cpu(struct desc_cache *c, unsigned int cpu, void *obj);
/* Frees every object and mapping; the cache is then as desc_cache_init() left it. */
void desc_cache_destroy(struct desc_cache *c);

/* The single CPU the suite runs on. */
static inline void *desc_alloc(struct desc_cache *c)
{
	return desc_alloc_cpu(c, 0);
}

static inline void desc_free(struct desc_cache *c, void *obj)
{
	desc_free_cpu(c, 0, obj);
}

static inline size_t desc_cache_live_bytes(const struct desc_cache *c)
{
	return c->nr_live * c->acct_size;
}

/* Bytes of the slabs the cache holds (CPU, partial and full ones). */
static inline size_t desc_cache_reserved_bytes(const struct desc_cache *c)
{
	return c->nr_slabs_held * c->slab_bytes;
}

/* The object's place in the cache: slab id * objs_per_slab + index; -1 if not the cache's. */
long desc_cache_index(const struct desc_cache *c, const void *obj);
/* Adds what smaps says of the cache's mappings; populated bytes in *populated. */
int desc_cache_usage(const struct desc_cache *c, struct vmemmap_usage *u, size_t *populated);
/* vmemmap_settle() on every mapping, up to what is carved. */
void desc_cache_settle(const struct desc_cache *c);

#endif /* MDB_DESC_CACHE_H */
