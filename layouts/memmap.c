// SPDX-License-Identifier: GPL-2.0
/*
 * memmap.c - the life cycle of a modelled machine, written once against the
 * layout API and compiled once per layout (LAYOUT_SYM(ops)).
 *
 * The memmap is a mapping like the kernel's vmemmap (vmemmap.c: 2 MiB pages
 * by default); every pfn is initialised as at boot, then the mix is placed:
 * free blocks go to the buddy, folios get folio_create(), the other kinds
 * desc_create(); then, unless fresh descriptors were asked for, the churn
 * of age.c ages the descriptor caches.  Which pfns anything gets is the
 * buddy's (buddy.h: the same events in every layout) and the mix plan's
 * (mix.c), so every layout ends up with the same machine.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "age_memo.h"
#include "grow.h"
#include "buddy.h"
#include "layout.h"
#include "meminfo.h"
#include "units.h"

static const size_t desc_size[DESC_NR] = LAYOUT_DESC_SIZES;

/* Where the layout's memmap must start (page64ci's masks need their heads aligned). */
#ifndef LAYOUT_MEMMAP_ALIGN
#define LAYOUT_MEMMAP_ALIGN	MDB_PAGE_SIZE
#endif

/* ------------------------------------------------------------------------ */
/* The buddy and the pcp lists, in the memmap (buddy.h).                    */

/*
 * A block of the mix's free memory, listed as it lies: no merging, so the
 * free blocks are the mix's (the kernel would have merged two free buddies
 * long ago; a mix that places them says its free memory is that split).
 */
static void place_free_block(struct memmap *mm, unsigned long pfn, unsigned int order)
{
	buddy_add(mm, pfn, order, true);
}

/*
 * is_free_buddy_page(): the free block containing pfn, tried order by
 * order; or the block on a pcp list that holds it.
 */
static bool find_free_block(const struct memmap *mm, unsigned long pfn, unsigned long *head,
			    unsigned int *order)
{
	unsigned int o;

	for (o = 0; o <= MAX_PAGE_ORDER; o++) {
		unsigned long h = pfn & ~((1UL << o) - 1);
		int got = page_buddy_order(mm, pfn_to_page(mm, h));

		if (got >= (int)o) {
			*head = h;
			*order = got;
			return true;
		}
	}
	return pcp_find(mm, pfn, head, order);
}

/* ------------------------------------------------------------------------ */
/* Boot: memmap_init_range(), then memblock_free_all().                     */

/* memmap_init_range(): __init_single_page() on every pfn. */
static void init_pages(struct memmap *mm)
{
	unsigned long pfn;

	for (pfn = 0; pfn < mm->nr_pfns; pfn++)
		memmap_init_pfn(mm, pfn);
}

/*
 * __free_pages_core(): every page of the block freed (refcount 0, not
 * reserved), then the block to the buddy (__free_pages_ok(FPI_TO_TAIL) ->
 * __free_one_page(): set_buddy_order() and the tail of the free list).
 */
static void free_pages_core(struct memmap *mm, unsigned long pfn, unsigned int order)
{
	unsigned long i;

	for (i = 0; i < 1UL << order; i++)
		memmap_free_pfn(mm, pfn + i);
	buddy_free_one(mm, pfn, order, FPI_TO_TAIL);
}

/*
 * memblock_free_all() -> __free_pages_memory(): [start, end) as the largest
 * naturally aligned blocks, up to MAX_PAGE_ORDER.
 */
static void free_range(struct memmap *mm, unsigned long start, unsigned long end)
{
	while (start < end) {
		unsigned int order = MAX_PAGE_ORDER;

		while (order && ((start & ((1UL << order) - 1)) || start + (1UL << order) > end))
			order--;
		free_pages_core(mm, start, order);
		start += 1UL << order;
	}
}

/* ------------------------------------------------------------------------ */
/* Creation.                                                                */

/* Descriptors of each type the mix's blocks need, roughly (the plan rounds per entry). */
static void mix_desc_counts(const struct mix *mix, unsigned long nr_pfns,
			    unsigned long long count[DESC_NR])
{
	unsigned int i;

	memset(count, 0, DESC_NR * sizeof(*count));
	for (i = 0; i < mix->nr; i++) {
		const struct mix_entry *e = &mix->entry[i];
		unsigned long blocks = (unsigned long)(e->fraction * nr_pfns) >> e->order;

		switch (e->kind) {
		case PK_ANON:
		case PK_FILE:
		case PK_HUGETLB: count[folio_desc_type(e->kind, e->order)] += blocks; break;
		case PK_SLAB:	count[DESC_SLAB] += blocks; break;
		case PK_NETMEM:	count[DESC_BUMP] += blocks; break;
		case PK_PGTABLE: count[DESC_PTDESC] += (unsigned long long)blocks << e->order; break;
		case PK_ZSMALLOC: count[DESC_ZPDESC] += (unsigned long long)blocks << e->order; break;
		default:	break;
		}
	}
}

static int cache_sizes(const struct memmap_opts *opts, size_t obj[DESC_NR], size_t acct[DESC_NR],
		       struct mdb_err *err)
{
	return layout_desc_sizes(desc_size, opts ? opts->folio_desc_bytes : 0,
				 opts ? opts->large_desc : LARGE_DESC_PLAN, obj, acct, err);
}

/*
 * The memmap plus the descriptors the mix will allocate, before any of it:
 * the suite's one memory estimate (memmap_create(), mdbench's up-front check
 * and its full profile all ask this).
 */
static unsigned long long op_memory_need(unsigned long nr_pfns, const struct mix *mix,
					 const struct memmap_opts *opts)
{
	unsigned long long bytes = (unsigned long long)nr_pfns * sizeof(struct page);
	unsigned long long count[DESC_NR];
	size_t obj[DESC_NR], acct[DESC_NR];
	struct mdb_err err;
	int t;

	if (cache_sizes(opts, obj, acct, &err))	/* memmap_create() will say why */
		cache_sizes(NULL, obj, acct, &err);
	mix_desc_counts(mix, nr_pfns, count);
	for (t = 0; t < DESC_NR; t++)
		bytes += count[t] * (obj[t] ? memmap_cache_stride(opts, t, obj[t]) : 0);
	return bytes;
}

static int check_memory(unsigned long nr_pfns, const struct mix *mix,
			const struct memmap_opts *opts, struct mdb_err *err)
{
	unsigned long long need = op_memory_need(nr_pfns, mix, opts);
	unsigned long long avail = mdb_mem_available();
	char ram[32];

	if (!avail || need <= avail)
		return 0;
	mdb_format_size((uint64_t)nr_pfns << MDB_PAGE_SHIFT, ram, sizeof(ram));
	return mdb_errf(err, "memmap for %s needs %llu MiB, only %llu MiB available", ram,
			(need + (1ULL << 20) - 1) >> 20, avail >> 20);
}

/*
 * One SLUB-like cache per descriptor type, its slabs mapped as the memmap
 * is; new slabs' freelists are randomised as distribution kernels do
 * (CONFIG_SLAB_FREELIST_RANDOM), but for fresh-ordered, the unreachable
 * best case that hands out objects in address order.
 */
_Static_assert(offsetof(struct folio, lru) == FOLIO_FREEPTR_OFFSET,
	       "the folio caches' free pointer is lru's first word");
static void init_caches(struct memmap *mm, const struct memmap_opts *opts, const size_t obj[DESC_NR],
			const size_t acct[DESC_NR])
{
	unsigned long long count[DESC_NR];
	int t;

	mix_desc_counts(&mm->mix, mm->nr_pfns, count);
	for (t = 0; t < DESC_NR; t++) {
		struct desc_cache_opts co = {
			.obj_size = obj[t], .acct_size = acct[t], .expect = count[t],
			.slub = opts->slub, .random_freelist = opts->age != DESC_FRESH_ORDERED,
			.seed = opts->seed + (uint64_t)t * 0x9e3779b97f4a7c15ULL,
			.pages = opts->pages, .bind = opts->bind, .bind_arg = opts->bind_arg,
		};

		memmap_cache_flags(opts, t, &co);
		desc_cache_init(&mm->cache[t], &co);
	}
}

/*
 * What the aging does with the plan: the folios it churns (folios), and
 * for the trace (traced) the free blocks too, which it places itself once
 * the trace has run, with those folios.
 */
struct age_plan {
	struct age_list folios, free;
	bool traced;
	bool placed;	/* a placed trace is the whole machine: the plan places nothing */
};

static void age_release_plan(struct age_plan *ap)
{
	age_list_release(&ap->folios);
	age_list_release(&ap->free);
}

static int place(struct memmap *mm, const struct mix_block *b, struct age_plan *ap,
		 struct mdb_err *err)
{
	struct age_list *folios = ap ? &ap->folios : NULL;

	if (ap && ap->placed)
		return 0;
	switch (b->kind) {
	case PK_FREE:
		if (ap && ap->traced)
			return age_list_add(&ap->free, b->pfn, b->order, b->kind) ?
			       mdb_errf(err, "out of memory for the list of free blocks to age") : 0;
		place_free_block(mm, b->pfn, b->order);
		return 0;
	case PK_ANON:
	case PK_FILE:
	case PK_HUGETLB:
		if (ap && ap->traced && b->kind != PK_HUGETLB)
			return age_list_add(folios, b->pfn, b->order, b->kind) ?
			       mdb_errf(err, "out of memory for the list of folios to age") : 0;
		if (!folio_create(mm, b->pfn, b->order, b->kind))
			break;
		/* A hugetlb pool is allocated once and kept: its folios stay out of the churn. */
		if (folios && b->kind != PK_HUGETLB && age_list_add(folios, b->pfn, b->order, b->kind))
			return mdb_errf(err, "out of memory for the list of folios to age");
		return 0;
	default:
		/* The trace groups them by mobility: it places them (age_traced()). */
		if (ap && ap->traced)
			return age_list_add(folios, b->pfn, b->order, b->kind) ?
			       mdb_errf(err, "out of memory for the list of blocks to age") : 0;
		if (!desc_create(mm, b->pfn, b->order, b->kind))
			return 0;
		break;
	}
	return mdb_errf(err, "out of memory for %s descriptors at pfn %lu", page_kind_name(b->kind),
			b->pfn);
}

static int place_mix(struct memmap *mm, struct mix_plan *plan, struct age_plan *ap,
		     struct mdb_err *err)
{
	struct mix_block b;

	while (mix_plan_next(plan, &b))
		if (place(mm, &b, ap, err))
			return -1;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Ageing: the churn of age.h on this layout's memmap.                      */

/*
 * Only the descriptor goes: nothing reads the folio's pages before
 * age_recreate() points them at a new one, so they are not rewritten twice.
 * A layout without folio descriptors has nothing to free.
 */
static void age_release(void *arg, const struct age_folio *f)
{
	struct memmap *mm = arg;
	struct desc_cache *c = &mm->cache[folio_desc_type(f->kind, f->order)];

	if (c->obj_size)
		desc_free(c, page_folio(mm, pfn_to_page(mm, f->pfn)));
}

static int age_recreate(void *arg, const struct age_folio *f)
{
	return folio_create(arg, f->pfn, f->order, (enum page_kind)f->kind) ? 0 : -1;
}

static void *age_transient_alloc(void *arg, unsigned int order, unsigned int kind)
{
	struct memmap *mm = arg;

	return desc_alloc(&mm->cache[folio_desc_type(kind, order)]);
}

static void age_transient_free(void *arg, void *desc, unsigned int order, unsigned int kind)
{
	struct memmap *mm = arg;

	desc_free(&mm->cache[folio_desc_type(kind, order)], desc);
}

/* The trace's descriptors by id, as many as it hands out. */
struct trace_descs {
	struct memmap *mm;
	void **desc;
	size_t cap;
};

static int trace_desc_alloc(void *arg, unsigned long id, unsigned int order, unsigned int kind)
{
	struct trace_descs *td = arg;
	struct desc_cache *c = &td->mm->cache[folio_desc_type(kind, order)];
	void **d;

	if (!c->obj_size)
		return 0;
	d = mdb_grow(td->desc, &td->cap, id + 1, sizeof(*d));
	if (!d)
		return -1;
	td->desc = d;
	td->desc[id] = desc_alloc(c);
	return td->desc[id] ? 0 : -1;
}

static void trace_desc_free(void *arg, unsigned long id, unsigned int order, unsigned int kind)
{
	struct trace_descs *td = arg;
	struct desc_cache *c = &td->mm->cache[folio_desc_type(kind, order)];

	if (c->obj_size)
		desc_free(c, td->desc[id]);
}

/*
 * DESC_AGED, DESC_TRACE: the trace (age.h) on the plan's folios and free
 * blocks, its descriptor events on this layout's caches as they come; then
 * the free blocks where the trace left them, in pfn order, and each folio
 * where it ended, with the descriptor the trace allocated for it.
 */
static int age_traced(struct memmap *mm, const struct age_plan *ap, struct mdb_err *err)
{
	struct trace_descs td = { .mm = mm };
	const struct age_trace_ops ops = {
		.desc_alloc = trace_desc_alloc, .desc_free = trace_desc_free, .arg = &td,
	};
	const struct age_trace_how how = {
		.replay = mm->opts.age == DESC_TRACE ? mm->opts.replay : NULL,
		.no_compaction = mm->opts.no_compaction,
	};
	struct age_trace t = { 0 };
	int ret = -1;
	size_t i;

	if (mm->opts.age == DESC_TRACE && !how.replay) {
		mdb_errf(err, "--desc-age=trace without a trace");
		goto out;
	}
	if (how.replay && how.replay->placed && how.replay->end_pfn > mm->nr_pfns) {
		mdb_errf(err, "%s: names pfn %lu, past the %lu of the RAM", how.replay->path,
			 how.replay->end_pfn - 1, mm->nr_pfns);
		goto out;
	}
	if (how.replay && !how.replay->placed && how.replay->peak_pages > mm->nr_pfns) {
		mdb_errf(err, "%s: holds %lu pages at its peak, more than the %lu of the RAM",
			 how.replay->path, how.replay->peak_pages, mm->nr_pfns);
		goto out;
	}
	if (age_trace_memo_run(&ap->folios, &ap->free, mm->nr_pfns, mm->seed, &how, &ops, &t)) {
		mdb_errf(err, "out of memory for folio descriptors while ageing the machine");
		goto out;
	}
	for (i = 0; i < t.free.nr; i++)
		place_free_block(mm, t.free.f[i].pfn, t.free.f[i].order);
	for (i = 0; i < t.nr_final; i++) {
		const struct age_folio *f = &t.final[i];

		if (f->kind == AGE_GONE)
			continue;
		if (!page_kind_is_folio((enum page_kind)f->kind)) {
			if (desc_create(mm, f->pfn, f->order, (enum page_kind)f->kind)) {
				mdb_errf(err, "out of memory for %s descriptors at pfn %u",
					 page_kind_name((enum page_kind)f->kind), f->pfn);
				goto out;
			}
			continue;
		}
		if (td.desc)
			desc_cache_preset(&mm->cache[folio_desc_type(f->kind, f->order)],
					  td.desc[t.final_desc[i]]);
		if (!folio_create(mm, f->pfn, f->order, (enum page_kind)f->kind)) {
			mdb_errf(err, "out of memory for folio descriptors while ageing the machine");
			goto out;
		}
	}
	mm->obtained.age_digest = t.digest;
	mm->obtained.age_failures = t.failures;
	mm->obtained.age_compactions = t.compactions;
	mm->obtained.age_migrated = t.migrated;
	memcpy(mm->obtained.age_pageblocks, t.pageblocks, sizeof(t.pageblocks));
	memcpy(mm->obtained.age_free_blocks, t.free_blocks, sizeof(t.free_blocks));
	mm->obtained.age_pcp_pages = t.pcp_pages;
	mm->obtained.age_conflicts = t.conflicts;
	ret = 0;
out:
	age_trace_release(&t);
	free(td.desc);
	return ret;
}

static int age(struct memmap *mm, const struct age_list *folios, struct mdb_err *err)
{
	const struct age_ops ops = {
		.release = age_release, .recreate = age_recreate,
		.transient_alloc = age_transient_alloc, .transient_free = age_transient_free,
		.arg = mm,
	};

	if (age_churn(folios, mm->seed, &ops, &mm->obtained.age_digest))
		return mdb_errf(err, "out of memory for folio descriptors while ageing the caches");
	return 0;
}

/* ------------------------------------------------------------------------ */
/* What was obtained.                                                       */

/*
 * memmap_obtained.desc_adjacency: folios in pfn order, each against the last
 * of its cache; and desc_digest, FNV-1a over each one's cache and index.
 */
static void measure_adjacency(struct memmap *mm)
{
	const char *last[DESC_NR] = { NULL };
	unsigned long pairs = 0, adjacent = 0, pfn = 0;
	uint64_t h = 0xcbf29ce484222325ULL;

	if (!mm->cache[DESC_FOLIO].obj_size) {
		mm->obtained.desc_adjacency = -1;
		return;
	}
	while (pfn < mm->nr_pfns) {
		const struct folio *folio = page_folio(mm, pfn_to_page(mm, pfn));
		enum desc_type t;

		if (!folio) {
			pfn++;
			continue;
		}
		t = folio_desc_type(folio_kind(folio), folio_order(folio));
		h = (h ^ (uint64_t)t) * 0x100000001b3ULL;
		h = (h ^ (uint64_t)desc_cache_index(&mm->cache[t], folio)) * 0x100000001b3ULL;
		if (last[t]) {
			pairs++;
			/* Either way: 7.0's sheaves hand a refill's objects out last first. */
			adjacent += (const char *)folio == last[t] + mm->cache[t].obj_size ||
				    (const char *)folio + mm->cache[t].obj_size == last[t];
		}
		last[t] = (const char *)folio;
		pfn = folio_pfn(mm, folio) + folio_nr_pages(folio);
	}
	mm->obtained.desc_pairs = pairs;
	mm->obtained.desc_digest = h;
	mm->obtained.desc_adjacency = pairs ? (double)adjacent / pairs : 0;
}

/*
 * Huge pages where the fault path gave small ones, then what smaps says of
 * it all; of an HVO memmap, the pages its memfd holds (smaps would count a
 * shared page once for every place it is mapped), none of them huge.
 */
static void measure_mappings(struct memmap *mm)
{
	const struct vmemmap *v[1 + DESC_NR * DESC_MAX_EXT];
	size_t carved[1 + DESC_NR * DESC_MAX_EXT], n, i;
	struct memmap_obtained *ob = &mm->obtained;

	v[0] = &mm->vmap;
	carved[0] = mm->map_bytes;
	n = 1 + desc_cache_maps(mm->cache, DESC_NR, v + 1, carved + 1);
	vmemmap_settle_each(v, carved, n);
	if (hvo_map_on(&mm->hvo))
		hvo_map_held(&mm->hvo, &ob->memmap.rss);
	else
		vmemmap_usage(&mm->vmap, &ob->memmap);
	vmemmap_usage_sum(v + 1, n - 1, &ob->desc);
	for (i = 1; i < n; i++)
		ob->desc_populated += carved[i];
}

/* ------------------------------------------------------------------------ */
/* HVO: the hugetlb folios' vmemmap remapped (hvo.h).                       */

static const struct layout_hvo layout_hvo = LAYOUT_HVO;

/* The first hugetlb folio heading a pfn at or after pfn; -1 if none. */
static long next_hugetlb(const struct memmap *mm, unsigned long pfn, unsigned int *order)
{
	unsigned long head;

	while (pfn < mm->nr_pfns) {
		const struct page *page = pfn_to_page(mm, pfn);
		enum page_kind kind = page_kind(mm, page);
		int buddy;

		if (kind == PK_FREE) {
			buddy = page_buddy_order(mm, page);
			pfn += buddy > 0 ? 1UL << buddy : 1;
			continue;
		}
		head = page_head_pfn(mm, page, order);
		if (kind == PK_HUGETLB && head == pfn)
			return (long)pfn;
		pfn = head + (1UL << *order);
	}
	return -1;
}

#ifdef LAYOUT_HVO_TAIL_PAGE
/* vmemmap_shared_tail_page(): a page of the layout's tail entries for the order. */
static void fill_tail_page(void *page, unsigned int order)
{
	LAYOUT_HVO_TAIL_PAGE((struct page *)page, order);
}
#endif

/*
 * The vmemmap of the hugetlb folio at head as the remapping sees it: its
 * pages beyond the reserve map onto its first page, or onto the shared tail
 * page of its order.  0, or -1 with err when HVO frees nothing of it.
 */
static int hvo_folio_of(struct memmap *mm, unsigned long head, unsigned int order,
			struct hvo_folio *f, struct mdb_err *err)
{
	if (!hvo_freed_pages(&layout_hvo, sizeof(struct page), order))
		return mdb_errf(err, "HVO frees nothing of a folio of order %u here", order);
	f->vaddr = (char *)pfn_to_page(mm, head);
	f->head_pfn = head;
	f->pages = hvo_vmemmap_pages(sizeof(struct page), order);
	f->reserve = layout_hvo.reserve_pages;
	f->reset_bytes = layout_hvo.scheme == HVO_FAKE_HEAD ?
			 HVO_RESET_STRUCT_PAGES * sizeof(struct page) : 0;
	f->target = f->vaddr - (char *)mm->map;
#ifdef LAYOUT_HVO_TAIL_PAGE
	f->target = hvo_shared_page(&mm->hvo, order, fill_tail_page, err);
	if (f->target < 0)
		return -1;
#endif
	return 0;
}

/* The hugetlb folio holding pfn: its head and order; -1 if pfn holds none. */
static long hugetlb_head(const struct memmap *mm, unsigned long pfn, unsigned int *order)
{
	const struct folio *folio = pfn < mm->nr_pfns ? page_folio(mm, pfn_to_page(mm, pfn)) : NULL;

	if (!folio || !folio_test_hugetlb(folio))
		return -1;
	*order = folio_order(folio);
	return (long)folio_pfn(mm, folio);
}

/*
 * hugetlb_vmemmap_optimize_folio(): with page64's fake heads the key goes
 * on first (static_branch_inc()), so that no compound_head() can meet a
 * fake head unchecked.  Nothing with HVO off, or where it frees nothing.
 */
static int op_hvo_optimise(struct memmap *mm, unsigned long pfn, struct mdb_err *err)
{
	struct hvo_folio f;
	unsigned int order;
	long head = hugetlb_head(mm, pfn, &order);
	bool key = layout_hvo.scheme == HVO_FAKE_HEAD;

	if (!hvo_map_on(&mm->hvo) || head < 0 || hvo_folio_optimised(&mm->hvo, head) ||
	    !hvo_freed_pages(&layout_hvo, sizeof(struct page), order))
		return 0;
	if (hvo_folio_of(mm, head, order, &f, err) || (key && hvo_key_inc(err)))
		return -1;
	if (hvo_optimise(&mm->hvo, &f, err)) {
		if (key)
			hvo_key_dec();
		return -1;
	}
	return 0;
}

/* hugetlb_vmemmap_restore_folio(): the vmemmap back, then the key down. */
static int op_hvo_restore(struct memmap *mm, unsigned long pfn, struct mdb_err *err)
{
	struct hvo_folio f;
	unsigned int order;
	long head = hugetlb_head(mm, pfn, &order);

	if (head < 0 || !hvo_folio_optimised(&mm->hvo, head))
		return 0;
	if (hvo_folio_of(mm, head, order, &f, err) || hvo_restore(&mm->hvo, &f, err))
		return -1;
	if (layout_hvo.scheme == HVO_FAKE_HEAD)
		hvo_key_dec();
	return 0;
}

/* Before a folio's tails are written again (freed, dissolved): nothing else may fail. */
static void hvo_restore_or_die(struct memmap *mm, unsigned long pfn)
{
	struct mdb_err err;

	if (op_hvo_restore(mm, pfn, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
}

/* Every hugetlb folio of a new memmap, as hugetlb_vmemmap_optimize_folios() at boot. */
static int hvo_optimise_all(struct memmap *mm, struct mdb_err *err)
{
	unsigned int order;
	long pfn = 0;

	if (!hvo_map_on(&mm->hvo))
		return 0;
	while ((pfn = next_hugetlb(mm, (unsigned long)pfn, &order)) >= 0) {
		if (op_hvo_optimise(mm, (unsigned long)pfn, err))
			return -1;
		pfn += 1L << order;
	}
	return 0;
}

/* Every remapped folio restored (a boot again, or the memmap going away). */
static void hvo_restore_all(struct memmap *mm)
{
	unsigned long pfn;

	for (pfn = 0; mm->hvo.nr_optimised && pfn < mm->nr_pfns; pfn += 1UL << HUGETLB_ORDER_PMD)
		if (hvo_folio_optimised(&mm->hvo, pfn))
			hvo_restore_or_die(mm, pfn);
}

static void op_memmap_destroy(struct memmap *mm);

static int op_memmap_create(struct memmap **out, unsigned long nr_pfns, const struct mix *mix,
			    const struct memmap_opts *opts, struct mdb_err *err)
{
	static const struct memmap_opts defaults;
	struct age_plan ap = { 0 };
	size_t obj[DESC_NR], acct[DESC_NR];
	struct mix_plan plan;
	struct memmap *mm;
	unsigned long pfn;
	bool aged, hvo;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	if (!nr_pfns)
		return mdb_errf(err, "a memmap needs at least one pfn");
	if (opts->pages >= MEMMAP_PAGES_NR || opts->age >= DESC_AGE_NR || opts->hvo >= HVO_MODE_NR)
		return mdb_errf(err, "memmap options out of range");
	hvo = opts->hvo == HVO_ON;
	if (cache_sizes(opts, obj, acct, err))
		return -1;
	/*
	 * The memory estimate reads the mix's orders and fractions: check them
	 * first; and refuse before the plan allocates anything for nr_pfns.
	 */
	if (mix_validate(mix, err))
		return mdb_err_prefix(err, "mix %s", mix->name);
	if (check_memory(nr_pfns, mix, opts, err))
		return -1;
#ifdef LAYOUT_MAX_PFNS
	if (nr_pfns > LAYOUT_MAX_PFNS)
		return mdb_errf(err, "%s links free lists with pfns of at most %lu: %lu pfns is too many",
				MDB_STR(MDB_LAYOUT), (unsigned long)LAYOUT_MAX_PFNS, nr_pfns);
#endif
	if (mix_plan_init(&plan, mix, nr_pfns, opts->seed, err))
		return mdb_err_prefix(err, "mix %s", mix->name);
	mm = calloc(1, sizeof(*mm));
	if (!mm)
		goto nomem;
	mm->nr_pfns = nr_pfns;
	mm->mix = *mix;
	mm->seed = opts->seed;
	mm->serial = __atomic_add_fetch(&memmap_serial, 1, __ATOMIC_RELAXED);
	mm->opts = *opts;
	mm->opts.bind = NULL;
	mm->opts.bind_arg = NULL;
	mm->hvo.fd = -1;
	init_caches(mm, opts, obj, acct);
	buddy_reset(mm);
	/* With HVO the memmap is a memfd of 4 KiB pages, as split vmemmap PMDs are. */
	if (vmemmap_reserve_aligned(&mm->vmap, nr_pfns * sizeof(struct page),
				    hvo ? MEMMAP_PAGES_4K : opts->pages, LAYOUT_MEMMAP_ALIGN, err) ||
	    (hvo ? hvo_map_init(&mm->hvo, &mm->vmap, nr_pfns, true, opts->bind, opts->bind_arg, err) :
		   (vmemmap_populate(&mm->vmap, opts->bind, opts->bind_arg, err) ||
		    vmemmap_back(&mm->vmap, mm->vmap.bytes, err)))) {
		mdb_err_prefix(err, "the memmap");
		goto fail;
	}
	mm->map = mm->vmap.addr;
	mm->map_bytes = mm->vmap.bytes;
	/* Both boot passes, the buddy left empty: the mix places the free blocks. */
	init_pages(mm);
	for (pfn = 0; pfn < nr_pfns; pfn++)
		memmap_free_pfn(mm, pfn);
	aged = opts->age == DESC_AGED || opts->age == DESC_AGED_PERMUTE || opts->age == DESC_TRACE;
	/* A snapshot's blocks stay where it saw them: its descriptors churn, its pfns do not. */
	ap.traced = (opts->age == DESC_AGED || opts->age == DESC_TRACE) && !mix->placed;
	ap.placed = ap.traced && opts->age == DESC_TRACE && opts->replay && opts->replay->placed;
	if (opts->age == DESC_TRACE && mix->placed) {
		mdb_errf(err, "mix %s: a snapshot keeps its pfns, a recorded trace replays onto a drawn "
			 "mix only", mix->name);
		goto fail;
	}
	if (place_mix(mm, &plan, aged ? &ap : NULL, err))
		goto fail;
	if (ap.traced ? age_traced(mm, &ap, err) : aged && age(mm, &ap.folios, err))
		goto fail;
	age_release_plan(&ap);
	mix_plan_release(&plan);
	if (hvo_optimise_all(mm, err))
		goto fail;
	measure_adjacency(mm);
	measure_mappings(mm);
	*out = mm;
	return 0;

nomem:
	mdb_errf(err, "out of memory for a memmap of %lu pfns", nr_pfns);
fail:
	age_release_plan(&ap);
	mix_plan_release(&plan);
	op_memmap_destroy(mm);
	return -1;
}

static void op_memmap_destroy(struct memmap *mm)
{
	int t;

	if (!mm)
		return;
	/* The key counts remapped folios, whichever memmap holds them. */
	if (layout_hvo.scheme == HVO_FAKE_HEAD)
		while (mm->hvo.nr_optimised--)
			hvo_key_dec();
	hvo_map_release(&mm->hvo);
	vmemmap_unmap(&mm->vmap);
	for (t = 0; t < DESC_NR; t++)
		desc_cache_destroy(&mm->cache[t]);
	free(mm);
}

/*
 * Boot again: every descriptor dropped, every pfn initialised (the first
 * pass, over the whole range as memmap_init() does at boot), then all RAM
 * handed to the buddy in MAX_PAGE_ORDER blocks, each page of a block freed
 * right before its block (the second pass).  The mix is not placed again
 * (memmap_create does that); what this costs is what memmap_init_range()
 * and memblock_free_all() cost.
 */
static void op_memmap_init(struct memmap *mm)
{
	int t;

	hvo_restore_all(mm);
	for (t = 0; t < DESC_NR; t++)
		desc_cache_destroy(&mm->cache[t]);
	buddy_reset(mm);
	init_pages(mm);
	free_range(mm, 0, mm->nr_pfns);
}

/* ------------------------------------------------------------------------ */
/* Folios by pfn.                                                           */

static struct folio *pfn_folio(const struct memmap *mm, unsigned long pfn)
{
	struct folio *folio;

	assert(pfn < mm->nr_pfns);
	folio = page_folio(mm, pfn_to_page(mm, pfn));
	assert(folio);
	return folio;
}

/*
 * Anon and file folios up to PMD order; hugetlb folios at the 2 MiB hstate,
 * from the buddy as alloc_buddy_hugetlb_folio() takes them.  A 1 GiB folio
 * comes from alloc_contig_pages() or boot-time memblock, neither modelled:
 * such folios exist only where the mix placed them.
 */
static bool folio_alloc_ok(unsigned int order, enum page_kind kind)
{
	if (kind == PK_HUGETLB)
		return mix_order_valid(kind, order) && order <= MAX_PAGE_ORDER;
	return page_kind_is_folio(kind) && order <= MAX_FOLIO_ORDER;
}

static long op_folio_alloc(struct memmap *mm, unsigned int order, enum page_kind kind)
{
	long pfn;

	if (!folio_alloc_ok(order, kind))
		return -1;
	pfn = buddy_alloc(mm, order);
	if (pfn < 0)
		return -1;
	if (!folio_create(mm, pfn, order, kind)) {
		buddy_free(mm, (unsigned long)pfn, order);
		return -1;
	}
	return pfn;
}

/*
 * A new hugetlb folio's vmemmap remapped, as alloc_fresh_hugetlb_folio()
 * has it done before the folio enters the pool; a folio that cannot be is
 * given back (the run asked for HVO on every one).
 */
static int hvo_new_folio(struct memmap *mm, unsigned long pfn)
{
	struct mdb_err err;
	struct folio *folio;
	unsigned int order;

	if (!op_hvo_optimise(mm, pfn, &err))
		return 0;
	folio = pfn_folio(mm, pfn);
	order = folio_order(folio);
	folio_destroy(mm, folio);
	buddy_free(mm, pfn, order);
	return -1;
}

static long op_folio_alloc_hvo(struct memmap *mm, unsigned int order, enum page_kind kind)
{
	long pfn = op_folio_alloc(mm, order, kind);

	if (pfn >= 0 && kind == PK_HUGETLB && hvo_new_folio(mm, (unsigned long)pfn))
		return -1;
	return pfn;
}

/* Freed: a hugetlb folio's vmemmap restored first (__update_and_free_hugetlb_folio()). */
static void op_folio_free(struct memmap *mm, unsigned long pfn)
{
	struct folio *folio = pfn_folio(mm, pfn);
	unsigned long head = folio_pfn(mm, folio);
	unsigned int order = folio_order(folio);

	hvo_restore_or_die(mm, head);
	folio_destroy(mm, folio);
	buddy_free(mm, head, order);
}

/* migrate_pages() for one folio: new block, new descriptor, copy, repoint. */
static long op_folio_migrate(struct memmap *mm, unsigned long pfn)
{
	struct folio *src = pfn_folio(mm, pfn), *dst;
	unsigned long old = folio_pfn(mm, src);
	unsigned int order = folio_order(src);
	long new = folio_alloc_ok(order, folio_kind(src)) ? buddy_alloc(mm, order) : -1;

	if (new < 0)
		return -1;
	dst = folio_create(mm, new, order, folio_kind(src));
	if (!dst) {
		buddy_free(mm, (unsigned long)new, order);
		return -1;
	}
	if (folio_kind(dst) == PK_HUGETLB && hvo_new_folio(mm, (unsigned long)new))
		return -1;
	folio_copy_meta(dst, src);
	hvo_restore_or_die(mm, old);
	folio_destroy(mm, src);
	buddy_free(mm, old, order);
	return new;
}

static void op_folio_get(struct memmap *mm, unsigned long pfn)
{
	folio_get(pfn_folio(mm, pfn));
}

static bool op_folio_put(struct memmap *mm, unsigned long pfn)
{
	return folio_put(pfn_folio(mm, pfn));
}

static bool op_folio_pin(struct memmap *mm, unsigned long pfn)
{
	struct folio *folio = pfn_folio(mm, pfn);

	if (!folio_try_get(folio))
		return false;
	folio_pin(folio);
	return true;
}

static bool op_folio_unpin(struct memmap *mm, unsigned long pfn)
{
	return folio_unpin(pfn_folio(mm, pfn));
}

static int op_folio_pins(const struct memmap *mm, unsigned long pfn)
{
	return folio_pins(pfn_folio(mm, pfn));
}

static void op_folio_map(struct memmap *mm, unsigned long pfn)
{
	folio_map(pfn_folio(mm, pfn));
}

static void op_folio_unmap(struct memmap *mm, unsigned long pfn)
{
	folio_unmap(pfn_folio(mm, pfn));
}

static void op_folio_set_flag(struct memmap *mm, unsigned long pfn, enum pageflag flag)
{
	folio_set_flag(pfn_folio(mm, pfn), flag);
}

/* ------------------------------------------------------------------------ */
/* The layout-independent view.                                             */

static void op_page_info(const struct memmap *mm, unsigned long pfn, struct page_info *out)
{
	const struct page *page = pfn_to_page(mm, pfn);
	const struct folio *folio;
	int f;

	memset(out, 0, sizeof(*out));
	out->kind = page_kind(mm, page);
	out->refcount = page_ref_count(mm, page);
	for (f = 0; f < PG_NR_TESTED; f++)
		if (page_test_flag(mm, page, f))
			out->flags |= 1U << f;
	folio = page_folio(mm, page);
	if (folio) {
		out->head_pfn = folio_pfn(mm, folio);
		out->order = folio_order(folio);
		out->mapcount = folio_mapcount(folio);
		out->mapping = folio_mapping(folio);
		out->index = folio_index(folio);
	} else if (out->kind == PK_FREE) {
		if (!find_free_block(mm, pfn, &out->head_pfn, &out->order))
			out->head_pfn = ~0UL;	/* a free page in no block: a bug to show */
	} else {
		out->head_pfn = page_head_pfn(mm, page, &out->order);
	}
}

/*
 * The hugetlb folios into hvo.c's arithmetic: what HVO gives back of this
 * memmap (on), or would (off), computed from the folios, not the mappings.
 */
static int op_footprint_hvo(const struct memmap *mm, struct hvo_footprint *out)
{
	struct hvo_walk w;
	unsigned int order;
	long pfn = 0;

	if (hvo_walk_start(&w, &layout_hvo, sizeof(struct page), mm->nr_pfns))
		return -1;
	while ((pfn = next_hugetlb(mm, (unsigned long)pfn, &order)) >= 0) {
		hvo_walk_folio(&w, (unsigned long)pfn, order);
		pfn += 1L << order;
	}
	hvo_walk_end(&w, out);
	return 0;
}

static void op_footprint(const struct memmap *mm, struct footprint *out)
{
	int t;

	memset(out, 0, sizeof(*out));
	out->memmap_bytes = mm->nr_pfns * sizeof(struct page);
	out->folio_desc_bytes = mm->cache[DESC_FOLIO].obj_size ? mm->cache[DESC_FOLIO].acct_size : 0;
	for (t = 0; t < DESC_NR; t++) {
		const struct desc_cache *c = &mm->cache[t];

		out->desc_bytes_by_type[t] = desc_cache_live_bytes(c);
		out->desc_bytes += out->desc_bytes_by_type[t];
		out->desc_count += desc_cache_nr_live(c);
		out->desc_reserved_bytes += desc_cache_reserved_bytes(c);
		out->desc_held_bytes += desc_cache_held_bytes(c);
	}
	/* Out of memory for the walk's bitmap: HVO's share reads 0 (not its pages). */
	if (hvo_map_on(&mm->hvo) && op_footprint_hvo(mm, &out->hvo))
		memset(&out->hvo, 0, sizeof(out->hvo));
}

const struct layout_ops LAYOUT_SYM(ops) = {
	.name = MDB_STR(MDB_LAYOUT),
	.page_size = sizeof(struct page),
	.desc_size = LAYOUT_DESC_SIZES,
	.model = LAYOUT_MODEL,
	.hvo = LAYOUT_HVO,
	.memory_need = op_memory_need,
	.memmap_create = op_memmap_create,
	.memmap_destroy = op_memmap_destroy,
	.memmap_init = op_memmap_init,
	.folio_alloc = op_folio_alloc_hvo,
	.folio_free = op_folio_free,
	.folio_migrate = op_folio_migrate,
	.page_info = op_page_info,
	.folio_get = op_folio_get,
	.folio_put = op_folio_put,
	.folio_pin = op_folio_pin,
	.folio_unpin = op_folio_unpin,
	.folio_pins = op_folio_pins,
	.folio_map = op_folio_map,
	.folio_unmap = op_folio_unmap,
	.folio_set_flag = op_folio_set_flag,
	.footprint = op_footprint,
	.footprint_hvo = op_footprint_hvo,
	.hvo_optimise = op_hvo_optimise,
	.hvo_restore = op_hvo_restore,
};
