/* SPDX-License-Identifier: GPL-2.0 */
/*
 * layout.h - the one API every memmap layout implements.
 *
 * A layout is one header, layouts/<name>.h, named in layouts/layouts.list,
 * that defines struct page, struct folio, struct slab, struct ptdesc, the
 * static inline functions declared below and these constants: LAYOUT_DESC_SIZES
 * (the descriptors it allocates), LAYOUT_MODEL (what the analytic model reads,
 * struct layout_model), LAYOUT_HVO (how HVO would treat its hugetlb folios,
 * struct layout_hvo in hvo.h) and two optional hooks: LAYOUT_MEMMAP_ALIGN
 * (bytes), if its memmap must start better aligned than a page, and
 * LAYOUT_MAX_PFNS, if it cannot address every pfn (memdesc8's 29-bit free
 * list links), above which memmap_create() refuses the memmap with one
 * error; nothing else.  A translation unit is compiled once
 * per layout with -DMDB_LAYOUT=<name>; this header then pulls in "<name>.h",
 * so a kernel written once against this API becomes one copy of machine code
 * per layout, with every lookup inlined exactly as the kernel would inline it.
 * Symbols that leave such a unit carry the layout's prefix: LAYOUT_SYM(ops)
 * is <name>_ops.  CMake generates the table of every layout (mdb_layouts[])
 * from layouts.list.
 *
 * The declarations below are the contract.  Because they precede the layout's
 * definitions, the compiler rejects a layout whose signatures drift from it.
 *
 * Conventions, as in the kernel:
 *  - a pfn is an index into the modelled RAM, 0 <= pfn < mm->nr_pfns;
 *  - a folio is an anon or file folio of order 0..MAX_FOLIO_ORDER or a
 *    hugetlb folio of order 9 or 18 (page_kind_is_folio()); every
 *    page of it resolves to the same struct folio via page_folio();
 *  - reference and map counts are the logical values (a new folio has
 *    refcount 1 and mapcount 0), whatever bias a layout stores.
 */
#ifndef MDB_LAYOUT_H
#define MDB_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "age.h"
#include "desc_cache.h"
#include "err.h"
#include "hvo.h"
#include "mix.h"
#include "vmemmap.h"

#define MDB_PAGE_SHIFT		(mdb_base.shift)	/* the run's base page (basepage.h) */
#define MDB_PAGE_SIZE		(1UL << MDB_PAGE_SHIFT)

/* Page flags a kernel tests: the subset whose cost differs between layouts. */
enum pageflag {
	PG_locked,
	PG_referenced,
	PG_uptodate,
	PG_dirty,
	PG_lru,
	PG_active,
	PG_swapbacked,
	PG_reserved,
	PG_NR_TESTED
};

/* include/linux/types.h; the layouts link their free lists and LRUs with it. */
struct list_head {
	struct list_head *next, *prev;
};

/*
 * The zone's free memory as the page allocator keeps it (mm/page_alloc.c),
 * with one migratetype and one CPU: free_area[order] lists the free blocks
 * (__free_one_page() merges buddies, __rmqueue_smallest() + expand() split
 * them) and the per-cpu pageset keeps order 0-3 and pageblock-order blocks
 * on LIFO lists refilled and drained in batches (rmqueue_pcplist(),
 * free_pcppages_bulk()).  The lists are linked through the memmap as the
 * kernel links them, so every list_add()/list_del() writes the entries it
 * touches: page->buddy_list/pcp_list in page64 and page32, inline pfn links
 * in memdesc8's buddy memdesc (the layout headers say how).  Which pfns a
 * folio gets is the same in every layout (the same events on the same
 * lists); what the list writes cost is not.  layouts/buddy.h has the code.
 */
struct free_list {
	union {
		struct list_head head;		/* page64, page32: the entries' buddy_list */
		unsigned long end[2];		/* memdesc8: first and last pfn */
	};
	unsigned long nr;			/* blocks on it (free_area.nr_free) */
};

/* pcp_allowed_order(): orders 0..PAGE_ALLOC_COSTLY_ORDER and the pageblock (THP) order. */
#define PAGE_ALLOC_COSTLY_ORDER	3
#define NR_PCP_LISTS		(PAGE_ALLOC_COSTLY_ORDER + 2)

struct per_cpu_pages {
	struct free_list lists[NR_PCP_LISTS];
	int count;				/* pages on the lists */
	int high;				/* drain when count reaches it */
	int batch;				/* refill and drain this many */
};

struct buddy {
	struct free_list free_area[BASE_PAGE_MAX_PAGE_ORDER + 1];	/* 0..MAX_PAGE_ORDER used */
	struct per_cpu_pages pcp;
};

/*
 * The descriptor types that may live outside the memmap, one cache each.
 * File and anonymous folios are distinct memdesc types (tags 2 and 3 of
 * kernelnewbies.org/MatthewWilcox/Memdescs and of its Path page), so each
 * has its own caches; within a type a folio of order 0 has the small
 * descriptor, a larger one the large descriptor (the small folio's fields
 * and the large-folio ones, from its own cache, as
 * kernelnewbies.org/MatthewWilcox/FolioAlloc allocates them).  Hugetlb
 * folios are file folios (memdesc_api.h).  The folio types come first.
 */
enum desc_type {
	DESC_FOLIO,		/* file folio, order 0 */
	DESC_FOLIO_LARGE,	/* file (and hugetlb) folio, order >= 1 */
	DESC_ANON,		/* anonymous folio, order 0 */
	DESC_ANON_LARGE,	/* anonymous folio, order >= 1 */
	DESC_SLAB,
	DESC_PTDESC,
	DESC_ZPDESC,
	DESC_BUMP,		/* page_pool's pages: the plan's "bump" (memdesc.h) */
	DESC_NR
};

static inline bool desc_type_is_folio(int t)
{
	return t <= DESC_ANON_LARGE;
}

static inline bool desc_type_is_large(int t)
{
	return t == DESC_FOLIO_LARGE || t == DESC_ANON_LARGE;
}

/*
 * Where the folio caches keep a free object's free pointer when
 * --desc-cache keeps it inside (freeptr_offset): lru's first word, which
 * RCU readers (folio_try_get() and the checks after it: flags, _refcount,
 * mapping, index) never read; only a holder of the lru lock touches it.
 * memmap.c asserts every layout's struct folio has lru there.
 */
#define FOLIO_FREEPTR_OFFSET	8

/*
 * How large a large folio's descriptor is (--large-desc), in the memdesc
 * layouts (memdesc.h, struct folio_large):
 * plan: the small folio's fields and what kernelnewbies.org/MatthewWilcox/
 *	FolioAlloc initialises for order > 0 (_entire_mapcount,
 *	_nr_pages_mapped, _deferred_split_list): 104 bytes, 112 with the
 *	16-byte alignment; the default, since it is what the plan allocates;
 * full: every field 6.18 keeps in a large folio's tail pages, hugetlb's
 *	included: 160 bytes, the suite's large descriptor before.
 */
enum large_desc {
	LARGE_DESC_PLAN,
	LARGE_DESC_FULL,
	LARGE_DESC_NR
};

#define FOLIO_LARGE_PLAN_BYTES	112
#define FOLIO_LARGE_FULL_BYTES	160

/* "plan", "full"; and back, -1 for anything else. */
const char *large_desc_name(enum large_desc l);
int large_desc_from_name(const char *name);

/* The cache a folio of this kind (anon, file, hugetlb) and order takes its descriptor from. */
static inline enum desc_type folio_desc_type(unsigned int kind, unsigned int order)
{
	return (kind == PK_ANON ? DESC_ANON : DESC_FOLIO) + (order != 0);
}

/*
 * How a machine is built.  All-zero is the realistic default: 2 MiB pages,
 * aged descriptor caches, the layout's own folio size.
 */
struct memmap_opts {
	enum memmap_pages pages;	/* memmap and descriptor caches: 2m (as vmemmap) or 4k */
	enum desc_age age;		/* descriptor caches after the churn (age.h), or fresh */
	const struct age_replay *replay;	/* DESC_TRACE: the recorded trace (age.h) */
	bool no_compaction;		/* the trace without compaction (--compaction=off) */
	/*
	 * Bytes of a small folio descriptor, for what-if sizes (0: the
	 * layout's sizeof(struct folio)); a multiple of DESC_ALIGN.  The large
	 * one moves by as many bytes, since it holds the small one's fields.
	 * At or above the struct's size the objects are that far apart; below
	 * it they still hold the struct (they cannot be smaller than their
	 * fields) and only the footprint counts the asked size.  Layouts
	 * without separate folio descriptors ignore it.
	 */
	unsigned int folio_desc_bytes;
	enum desc_cache_kind desc_cache;	/* how the folio descriptor caches are made (desc_cache.h) */
	enum desc_rcu desc_rcu;		/* which caches are TYPESAFE_BY_RCU: all (default) or the folio ones */
	enum large_desc large_desc;	/* the large folio descriptor: the plan's (default) or 6.18's fields */
	enum desc_slub slub;		/* 7.0's sheaves or 6.18's per-CPU slab, every cache */
	uint64_t seed;			/* placement of the mix and the churn; same seed, same machine */
	/*
	 * HVO_ON: the memmap is a memfd of 4 KiB pages (whatever pages asks
	 * for; the descriptor caches keep it) and every hugetlb folio's
	 * vmemmap is remapped as the layout's LAYOUT_HVO says (hvo.h), at
	 * creation and at each hugetlb allocation, restored before a free.
	 */
	enum hvo_mode hvo;
	/* Called after mmap, before the first touch (NUMA binding); may be NULL. */
	vmemmap_bind_fn *bind;
	void *bind_arg;
};

/* What the kernel gave and how the descriptors lie, measured once a machine is built. */
struct memmap_obtained {
	struct vmemmap_usage memmap;	/* smaps of the memmap: resident bytes, in huge pages */
	struct vmemmap_usage desc;	/* of every descriptor cache's slab pages */
	size_t desc_populated;		/* bytes of slab pages carved */
	/*
	 * Of the folios in pfn order whose descriptor comes from the same cache
	 * as the previous such folio's, the fraction whose descriptor lies
	 * right next to it (address + or - object size: 7.0's sheaves hand out a
	 * refill's objects last first); -1 without separate folio
	 * descriptors.
	 */
	double desc_adjacency;
	unsigned long desc_pairs;	/* pairs that fraction is over */
	/*
	 * Where every folio's descriptor lies: a hash of (cache, index in the
	 * cache) in pfn order; layouts whose caches are built alike hold the
	 * same one.  0 without separate folio descriptors.
	 */
	uint64_t desc_digest;
	uint64_t age_digest;		/* of the churn's or the trace's events; 0 when fresh */
	unsigned long age_failures;	/* aged: folios the trace's buddy could not place again */
	unsigned long age_compactions;	/* aged, trace: pageblocks compaction emptied */
	unsigned long age_migrated;	/* and the folios it moved */
	unsigned long age_pageblocks[AGE_MT_NR];	/* aged, trace: pageblocks of each migratetype */
	/* aged, trace: buddy blocks by order and migratetype at the end (age_trace's free_blocks) */
	unsigned long age_free_blocks[BASE_PAGE_MAX_PAGE_ORDER + 1][AGE_MT_NR];
	unsigned long age_pcp_pages;	/* placed trace: on the per-cpu lists at the end */
	unsigned long age_conflicts;	/* placed trace: allocations over pages it held */
};

/*
 * One modelled machine: nr_pfns memmap entries of the layout's struct page,
 * mapped like the kernel's vmemmap, plus the descriptors they point at.
 * The same struct in every layout; only what map points at differs.
 */
struct memmap {
	void *map;			/* nr_pfns entries of struct page */
	unsigned long nr_pfns;
	size_t map_bytes;		/* length of the mapping behind map */
	struct vmemmap vmap;		/* that mapping */
	struct buddy buddy;
	struct desc_cache cache[DESC_NR];
	struct mix mix;			/* what it was built from */
	uint64_t seed;
	uint64_t serial;		/* this build's number in the process: never reused */
	struct memmap_opts opts;	/* as built (bind cleared) */
	struct memmap_obtained obtained;
	struct hvo_map hvo;		/* HVO's memfd and remapped folios (fd -1: off) */
};

struct page;
struct folio;
struct slab;
struct ptdesc;

/* Only a unit compiled for one layout sees the inline API (and must define it). */
#ifdef MDB_LAYOUT
/* Conversions. */
static inline struct page *pfn_to_page(const struct memmap *mm, unsigned long pfn);
static inline unsigned long page_to_pfn(const struct memmap *mm, const struct page *page);

/* What a page is, and the descriptor that says more. NULL if not of that kind. */
static inline enum page_kind page_kind(const struct memmap *mm, const struct page *page);
static inline struct folio *page_folio(const struct memmap *mm, const struct page *page);
static inline struct slab *page_slab(const struct memmap *mm, const struct page *page);
static inline struct ptdesc *page_ptdesc(const struct memmap *mm, const struct page *page);
static inline bool page_test_flag(const struct memmap *mm, const struct page *page, enum pageflag flag);
/* The reference count a get_page() on this page would move (the folio's for folios). */
static inline int page_ref_count(const struct memmap *mm, const struct page *page);
/* Order of a free buddy block starting at this page; -1 if it heads none. */
static inline int page_buddy_order(const struct memmap *mm, const struct page *page);
/*
 * First pfn of the unit the page belongs to, its order in *order: its folio,
 * slab or netmem block, the free block it heads, or the page itself (page
 * tables, zsmalloc and reserved pages are units of one page).  Not for a
 * free page that heads no block (the generic code searches for its block).
 */
static inline unsigned long page_head_pfn(const struct memmap *mm, const struct page *page,
					  unsigned int *order);

/*
 * compound_order() of a folio's head page as a pfn scanner reads it before
 * it holds a reference (isolate_migratepages_block()'s skip of large
 * folios): page64 the first tail's _flags_1; the memdesc layouts compare
 * the neighbouring memdescs at pfn + 1, + 2, + 4, ... (a descriptor may be
 * freed and reused under a scanner without a reference: only the memmap is
 * safe to read).
 */
static inline unsigned int page_order_unsafe(const struct memmap *mm, const struct page *head);

/* Folio state. */
static inline unsigned long folio_pfn(const struct memmap *mm, const struct folio *folio);
static inline unsigned int folio_order(const struct folio *folio);
static inline unsigned long folio_nr_pages(const struct folio *folio);
static inline enum page_kind folio_kind(const struct folio *folio);
/* folio_test_hugetlb(): PageHuge() of any of its pages. */
static inline bool folio_test_hugetlb(const struct folio *folio);
static inline int folio_ref_count(const struct folio *folio);
static inline void folio_get(struct folio *folio);
/*
 * folio_try_get(): a reference unless the count is already 0 (the folio is
 * being freed): read, then compare-and-exchange until it holds or reads 0.
 * The caller re-checks that the page still belongs to the folio, as
 * GUP-fast and filemap_get_entry() do.
 */
static inline bool folio_try_get(struct folio *folio);
static inline bool folio_put(struct folio *folio);	/* true: dropped the last reference */
/*
 * FOLL_PIN (mm/gup.c): try_grab_folio() on a folio try_get_folio() holds:
 * the pin where the layout counts pins (folio_pincount_ptr()), else
 * GUP_PIN_COUNTING_BIAS - 1 more references; folio_unpin() is
 * gup_put_folio(FOLL_PIN), true when it dropped the last reference.
 * folio_pins() is what folio_maybe_dma_pinned() judges by: the pin count,
 * or the references over the bias where there is none.
 */
static inline void folio_pin(struct folio *folio);
static inline bool folio_unpin(struct folio *folio);
static inline int folio_pins(const struct folio *folio);
static inline int folio_mapcount(const struct folio *folio);
static inline void folio_map(struct folio *folio);	/* one more page-table mapping */
static inline void folio_unmap(struct folio *folio);
static inline bool folio_test_flag(const struct folio *folio, enum pageflag flag);
/* PG_reserved is a kind of page (PK_RESERVED), never set on a folio. */
static inline void folio_set_flag(struct folio *folio, enum pageflag flag);
static inline void folio_clear_flag(struct folio *folio, enum pageflag flag);
/* Clears the flag atomically; whether it was set (folio_test_clear_lru()). */
static inline bool folio_test_clear_flag(struct folio *folio, enum pageflag flag);
/* The memory cgroup the folio is charged to (folio_memcg()): memcg_data without its flag bits. */
static inline uintptr_t folio_memcg(const struct folio *folio);
static inline uintptr_t folio_mapping(const struct folio *folio);
static inline unsigned long folio_index(const struct folio *folio);
/* The anon bit of mapping follows the folio's kind, not the caller. */
static inline void folio_set_mapping(struct folio *folio, uintptr_t mapping, unsigned long index);

/*
 * Life cycle primitives, used by the generic memmap code (memmap.c, compiled
 * per layout).  They write memmap entries and allocate or free descriptors;
 * they never choose pfns, the buddy does.
 */
/*
 * Boot, first pass: write pfn's entry as memmap_init_range() ->
 * __init_single_page() does: allocated (a reference count of 1, or the
 * layout's "reserved, no descriptor" state), given to nobody yet.
 */
static inline void memmap_init_pfn(struct memmap *mm, unsigned long pfn);
/*
 * Boot, second pass: what __free_pages_core() does to every page before the
 * buddy gets it (__ClearPageReserved(), set_page_count(0)): a free page
 * that heads no block.  Every pfn takes both passes before anything else.
 */
static inline void memmap_free_pfn(struct memmap *mm, unsigned long pfn);
/*
 * Hand 2^order pfns from pfn to the buddy.  Writes the head's entry only, as
 * set_buddy_order() does: the other pages are already free (boot or
 * folio_destroy() left them so).
 */
static inline void buddy_set_free(struct memmap *mm, unsigned long pfn, unsigned int order);
/* Make 2^order pfns from pfn one folio (PK_ANON, PK_FILE, PK_HUGETLB): refcount 1, mapcount 0. */
static inline struct folio *folio_create(struct memmap *mm, unsigned long pfn, unsigned int order,
					 enum page_kind kind);
/*
 * Drop the folio's descriptor, if any, and make its pages free pages again
 * (free_pages_prepare()); the caller gives the pfns back to the buddy.
 */
static inline void folio_destroy(struct memmap *mm, struct folio *folio);
/* Copy what migration must carry (flags, mapping, index, counts) from src to dst. */
static inline void folio_copy_meta(struct folio *dst, const struct folio *src);
/* Make 2^order pfns from pfn a page of a non-folio kind (slab, page table, ...). */
static inline int desc_create(struct memmap *mm, unsigned long pfn, unsigned int order,
			      enum page_kind kind);
/*
 * The descriptor bytes one placed block of the mix costs (what
 * memmap_create() checks against MemAvailable before allocating anything).
 * The bytes of one descriptor of each type are the layout's
 * LAYOUT_DESC_SIZES, an initializer of size_t[DESC_NR] (0: it has none).
 */
static inline size_t layout_block_desc_bytes(enum page_kind kind, unsigned int order);
#endif /* MDB_LAYOUT */

/* A layout header pins each offset its comments give. */
#define LAYOUT_OFF(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field " at " #off)

/* Per-layout symbols. */
#define MDB_CAT_(a, b)		a##_##b
#define MDB_CAT(a, b)		MDB_CAT_(a, b)
#define LAYOUT_SYM(name)	MDB_CAT(MDB_LAYOUT, name)
#define MDB_STR_(x)		#x
#define MDB_STR(x)		MDB_STR_(x)

/* ------------------------------------------------------------------------ */
/* Layout-independent view, for tests, the driver and footprint reports.    */

/* What one pfn looks like through the API above. Equal across layouts. */
struct page_info {
	enum page_kind kind;
	unsigned long head_pfn;		/* first pfn of its folio/descriptor/buddy block */
	unsigned int order;		/* of that folio/descriptor/buddy block */
	int refcount;			/* page_ref_count() */
	int mapcount;			/* folio_mapcount(); 0 for other kinds */
	unsigned int flags;		/* bit f set iff page_test_flag(f) */
	uintptr_t mapping;		/* folios only */
	unsigned long index;		/* folios only */
};

struct footprint {
	size_t memmap_bytes;		/* nr_pfns * sizeof(struct page) */
	size_t desc_bytes;		/* live descriptors * the bytes each counts for */
	size_t folio_desc_bytes;	/* what a small folio's descriptor counts for; 0: none */
	size_t desc_count;
	size_t desc_reserved_bytes;	/* chunks the descriptor caches hold */
	size_t desc_held_bytes;		/* and the other CPUs' sheaves: desc_cache_held_bytes() */
	size_t desc_bytes_by_type[DESC_NR];
	/*
	 * With HVO on, what it gives back of the memmap, computed from the
	 * hugetlb folios it optimised (hvo.h; all 0 with HVO off): the memmap
	 * then costs memmap_bytes - hvo.freed_bytes + hvo.shared_bytes, plus
	 * hvo.pgtable_bytes of PTE pages the kernel would split off.
	 */
	struct hvo_footprint hvo;
};

/* The bytes a memmap costs with HVO as it stands: its pages, without page tables. */
static inline size_t footprint_memmap_bytes(const struct footprint *fp)
{
	return fp->memmap_bytes - fp->hvo.freed_bytes + fp->hvo.shared_bytes;
}

/*
 * What the process really holds for a memmap, measured (memmap_measure()):
 * the memmap's pages (HVO off: the Rss smaps gives its mapping; HVO on: the
 * pages of its memfd, each shared page once however often it is mapped),
 * and the pages of the descriptor caches' slabs (their Rss).
 */
struct footprint_measured {
	size_t memmap_bytes;
	size_t desc_bytes;
};

/* 0, or -1 when /proc/self/smaps or the memfd cannot be read. */
int memmap_measure(const struct memmap *mm, struct footprint_measured *out);

/*
 * What the analytic cache model (bench/model.c) must know of a layout beyond
 * sizeof(struct page): which fields of a folio a pfn walk reads, at the
 * offsets of the layout's own structs (MODEL_FIELD takes offsetof, so they
 * cannot drift from the header), and how far apart neighbouring folio
 * descriptors lie.  Each layout header defines LAYOUT_MODEL as one of these.
 */
struct model_field {
	unsigned short off, len;
};

#define MODEL_MAX_FIELDS	6

struct model_reads {
	unsigned int nr;
	struct model_field f[MODEL_MAX_FIELDS];
};

#define MODEL_FIELD(type, member)						\
	{ offsetof(struct type, member), sizeof(((struct type *)0)->member) }
#define MODEL_READS(...)							\
	{ sizeof((struct model_field[]){ __VA_ARGS__ }) / sizeof(struct model_field),	\
	  { __VA_ARGS__ } }

struct layout_model {
	/* Bytes between neighbouring folio descriptors; 0: the folio overlays the memmap. */
	unsigned int desc_stride;
	unsigned int desc_stride_large;	/* the same for large folios' descriptors */
	struct model_reads lookup;	/* page_test_flag() and page_ref_count() of a folio page */
	struct model_reads scan;	/* folio_order() of any folio: compaction skipping it */
	struct model_reads scan_large;	/* what folio_order() reads beyond that of a large one */
	/*
	 * What isolate_migratepages_block() reads of a folio it takes off the
	 * LRU: flags, mapping, _refcount, _mapcount, memcg_data and whatever
	 * folio_nr_pages() needs; and, of a large folio, what it reads beyond
	 * that (page64: _large_mapcount and _nr_pages in the first tail).
	 */
	struct model_reads isolate;
	struct model_reads isolate_large;
};

/*
 * The generic life cycle, one table per layout.  Pfn-based so that a caller
 * holds no layout type; tests and the differential test work through it.
 * Functions returning int give 0 on success, -1 with err filled.
 */
struct layout_ops {
	const char *name;
	size_t page_size;		/* sizeof(struct page) */
	size_t desc_size[DESC_NR];	/* bytes of one descriptor of each type; 0: none */
	struct layout_model model;
	struct layout_hvo hvo;		/* LAYOUT_HVO */
	/*
	 * Bytes the memmap and the mix's descriptors take: the one memory
	 * estimate (opts may be NULL: the defaults).
	 */
	unsigned long long (*memory_need)(unsigned long nr_pfns, const struct mix *mix,
					  const struct memmap_opts *opts);
	int (*memmap_create)(struct memmap **mm, unsigned long nr_pfns, const struct mix *mix,
			     const struct memmap_opts *opts, struct mdb_err *err);
	void (*memmap_destroy)(struct memmap *mm);
	void (*memmap_init)(struct memmap *mm);	/* re-run boot init over every pfn */
	long (*folio_alloc)(struct memmap *mm, unsigned int order, enum page_kind kind);
	void (*folio_free)(struct memmap *mm, unsigned long pfn);
	long (*folio_migrate)(struct memmap *mm, unsigned long pfn);	/* new head pfn or -1 */
	void (*page_info)(const struct memmap *mm, unsigned long pfn, struct page_info *out);
	void (*folio_get)(struct memmap *mm, unsigned long pfn);
	bool (*folio_put)(struct memmap *mm, unsigned long pfn);
	/* try_get_folio() + try_grab_folio(FOLL_PIN); false if the get failed. */
	bool (*folio_pin)(struct memmap *mm, unsigned long pfn);
	bool (*folio_unpin)(struct memmap *mm, unsigned long pfn);
	int (*folio_pins)(const struct memmap *mm, unsigned long pfn);
	void (*folio_map)(struct memmap *mm, unsigned long pfn);
	void (*folio_unmap)(struct memmap *mm, unsigned long pfn);
	void (*folio_set_flag)(struct memmap *mm, unsigned long pfn, enum pageflag flag);
	void (*footprint)(const struct memmap *mm, struct footprint *out);
	/*
	 * What HVO leaves (on) or would leave (off) of the hugetlb folios'
	 * memmap, computed (hvo.h); -1 when out of memory.
	 */
	int (*footprint_hvo)(const struct memmap *mm, struct hvo_footprint *out);
	/*
	 * HVO on: remap the vmemmap of the hugetlb folio holding pfn onto the
	 * shared page (hugetlb_vmemmap_optimize_folio()), or back onto pages of
	 * its own (hugetlb_vmemmap_restore_folio()); nothing for a folio HVO
	 * does not free pages of, or already in that state.  0, or -1 with err.
	 */
	int (*hvo_optimise)(struct memmap *mm, unsigned long pfn, struct mdb_err *err);
	int (*hvo_restore)(struct memmap *mm, unsigned long pfn, struct mdb_err *err);
};

#ifdef MDB_LAYOUT
/* This unit's layout (memmap.c defines it). */
extern const struct layout_ops LAYOUT_SYM(ops);
#endif

/* Every layout of layouts/layouts.list, in its order; NULL-terminated (generated). */
extern const struct layout_ops *const mdb_layouts[];
/* memmap_create()'s count of the memmaps built so far (struct memmap.serial). */
extern uint64_t memmap_serial;
const struct layout_ops *layout_by_name(const char *name);
/* The reference the others are compared against: the first of the list. */
static inline const struct layout_ops *layout_reference(void)
{
	return mdb_layouts[0];
}

/* Whether the layout allocates any descriptor outside the memmap. */
static inline bool layout_has_descriptors(const struct layout_ops *ops)
{
	for (int t = 0; t < DESC_NR; t++)
		if (ops->desc_size[t])
			return true;
	return false;
}

/* Names of enum desc_type, for reports: "folio", "folio_large", "slab", ... */
extern const char *const desc_type_name[DESC_NR];

/* memmap_opts.folio_desc_bytes: DESC_ALIGN .. this, in steps of DESC_ALIGN. */
#define FOLIO_DESC_BYTES_MAX	2048

/*
 * The caches a layout whose descriptors are own[] (its LAYOUT_DESC_SIZES,
 * the large folios' at the plan's size) builds for folio_desc_bytes and
 * large (memmap_opts): bytes between objects in obj[], bytes each counts
 * for in acct[].  Only the folio types differ from own[].  0, or -1 with
 * err for a folio_desc_bytes out of range.
 */
int layout_desc_sizes(const size_t own[DESC_NR], unsigned int folio_desc_bytes,
		      enum large_desc large, size_t obj[DESC_NR], size_t acct[DESC_NR],
		      struct mdb_err *err);

/*
 * The flags of type t's cache in a memmap built with opts (NULL: the
 * defaults): the folio caches as opts->desc_cache says, the others
 * TYPESAFE_BY_RCU with the free pointer after the object under
 * DESC_RCU_ALL (desc_cache.h), plain under DESC_RCU_FOLIO.
 */
void memmap_cache_flags(const struct memmap_opts *opts, enum desc_type t,
			struct desc_cache_opts *co);
/* The bytes between type t's objects of size bytes in such a cache (calculate_sizes()). */
size_t memmap_cache_stride(const struct memmap_opts *opts, enum desc_type t, size_t size);

#ifdef MDB_LAYOUT
#include MDB_STR(MDB_LAYOUT.h)
#endif

#endif /* MDB_LAYOUT_H */
