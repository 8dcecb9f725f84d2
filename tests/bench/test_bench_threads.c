// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_threads.c - the threaded kernels of one layout (compiled once
 * per layout of layouts.list), run on real threads for a fixed count of ops
 * (mdb_fixed_run_threads(), the path --fixed-ops and --simulate take), and
 * the false-sharing table against the layout's own structs.
 *
 *  - after concurrent get/put, lock/unlock and lookups, every pfn reads back
 *    as it did before (page_info: kind, unit, counts, flags, mapping);
 *  - after remote frees, the memmap's folios and descriptors are the ones
 *    it had (live descriptors counted, every non-free pfn unchanged);
 *  - the parallel boot leaves the memmap as the serial boot does, pfn for pfn;
 *  - the table: two real objects placed as the layout places neighbours (a
 *    fresh descriptor cache hands its objects out in address order; the
 *    memmap's entries are consecutive), their fields' line numbers compared
 *    through real pointers, must give the table's rows, and nothing else.
 * Run with 1, 2 and 4 threads, unpinned (more threads than CPUs is fine for
 * correctness); under the Tsan build with no race reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "false_sharing.h"
#include "kernel.h"
#include "layout_run.h"
#include "shim.h"
#include "test_common.h"

#define OPS		2048

static int run_setup(void *arg, struct mdb_err *err)
{
	struct run *r = arg;

	return r->k->setup ? r->k->setup(&r->env, err) : 0;
}

static void run_teardown(void *arg)
{
	struct run *r = arg;

	if (r->k->teardown)
		r->k->teardown(&r->env);
}

/* k on threads threads for OPS ops each; its items, 0 if it failed. */
static uint64_t run_threads(const struct mdb_kernel *k, struct memmap *mm, const struct mix *mix,
			    unsigned int threads, uint64_t ops_each)
{
	struct memmap_opts opts = mm->opts;
	struct run r = {
		.k = k,
		.env = { .ops = ops, .mm = mm, .nr_pfns = mm->nr_pfns, .mix = mix, .opts = &opts,
			 .seed = 1, .threads = threads },
	};
	struct mdb_thread_run t = { .nr = threads, .setup = run_setup, .teardown = run_teardown };
	struct mdb_err err = { "" };
	uint64_t items = 0;

	CHECK(!mdb_fixed_run_threads(run_kernel, &r, ops_each, &t, NULL, NULL, NULL, &items, &err),
	      "%s on %s, %u threads: %s", k->name, ops->name, threads, err.msg);
	return items;
}

static struct page_info *snapshot(const struct memmap *mm)
{
	struct page_info *p = calloc(mm->nr_pfns, sizeof(*p));
	unsigned long pfn;

	for (pfn = 0; p && pfn < mm->nr_pfns; pfn++)
		ops->page_info(mm, pfn, &p[pfn]);
	return p;
}

/* pfns whose page_info differs from before; with free_too false, free pfns on both sides are skipped. */
static unsigned long changed(const struct memmap *mm, const struct page_info *before, bool free_too)
{
	struct page_info now;
	unsigned long pfn, n = 0;

	for (pfn = 0; pfn < mm->nr_pfns; pfn++) {
		ops->page_info(mm, pfn, &now);
		if (!free_too && now.kind == PK_FREE && before[pfn].kind == PK_FREE)
			continue;
		n += memcmp(&now, &before[pfn], sizeof(now)) != 0;
	}
	return n;
}

static size_t live_descs(const struct memmap *mm)
{
	struct footprint fp;

	ops->footprint(mm, &fp);
	return fp.desc_count;
}

/* Non-mutating kernels share one memmap: every pfn as it was, after each. */
static void test_shared_memmap(const struct mix *mix)
{
	const struct mdb_kernel *const *k;
	struct memmap *mm = build(mix);
	struct page_info *before = snapshot(mm);
	static const unsigned int threads[] = { 1, 2, 4 };
	unsigned int i, t, nr, ran = 0;
	struct mdb_err err;
	uint64_t items;

	CHECK(!mdb_kernels(&k, &nr, &err), "%s", err.msg);
	for (i = 0; i < nr; i++) {
		if (k[i]->layout != ops || !(k[i]->flags & MDB_K_THREADED) ||
		    (k[i]->flags & MDB_K_MUTATES))
			continue;
		for (t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
			items = run_threads(k[i], mm, mix, threads[t], OPS);
			CHECK(items == (uint64_t)threads[t] * OPS, "%s on %s, %u threads: %lu items",
			      k[i]->name, ops->name, threads[t], items);
			CHECK(!changed(mm, before, true), "%s on %s, %u threads: %lu pfns read back "
			      "otherwise", k[i]->name, ops->name, threads[t], changed(mm, before, true));
		}
		ran++;
	}
	CHECK(ran >= 3, "%s: %u threaded kernels on a shared memmap", ops->name, ran);
	free(before);
	ops->memmap_destroy(mm);
}

/* Remote frees: every folio and descriptor the memmap had, it has; the pool's pfns free again. */
static void test_remote_free(const struct mix *mix)
{
	const struct mdb_kernel *k = mdb_kernel_find("alloc/order0-remote", ops);
	unsigned int t;

	CHECK(k != NULL, "%s: no alloc/order0-remote", ops->name);
	for (t = 1; k && t <= 4; t *= 2) {
		struct memmap *mm = build(mix);
		struct page_info *before = snapshot(mm);
		size_t live = live_descs(mm);
		uint64_t items = run_threads(k, mm, mix, t, OPS);

		CHECK(items == (uint64_t)t * OPS, "%s, %u threads: %lu items", ops->name, t, items);
		CHECK(!changed(mm, before, false), "%s, %u threads: %lu pfns changed", ops->name, t,
		      changed(mm, before, false));
		CHECK(live_descs(mm) == live, "%s, %u threads: %zu descriptors live, %zu before",
		      ops->name, t, live_descs(mm), live);
		free(before);
		ops->memmap_destroy(mm);
	}
}

/* The parallel boot against the serial one: the same memmap, pfn for pfn. */
static void test_deferred_init(const struct mix *mix)
{
	const struct mdb_kernel *k = mdb_kernel_find("init/memmap-deferred", ops);
	struct memmap *serial = build(mix);
	struct page_info *want;
	unsigned int t;

	CHECK(k != NULL, "%s: no init/memmap-deferred", ops->name);
	ops->memmap_init(serial);
	want = snapshot(serial);
	for (t = 1; k && t <= 4; t *= 2) {
		struct memmap *mm = build(mix);
		uint64_t items = run_threads(k, mm, mix, t, 1);

		CHECK(items == NR_PFNS, "%s, %u threads: %lu items for one boot of %lu pfns", ops->name,
		      t, items, NR_PFNS);
		CHECK(!changed(mm, want, true), "%s, %u threads: %lu pfns unlike the serial boot's",
		      ops->name, t, changed(mm, want, true));
		CHECK(!live_descs(mm), "%s, %u threads: descriptors after boot", ops->name, t);
		ops->memmap_destroy(mm);
	}
	free(want);
	ops->memmap_destroy(serial);
}

/* ------------------------------------------------------------------ */
/* The false-sharing table against real objects.                      */

struct fs_fact {
	unsigned int line_offset;
	const char *hot, *neighbour;
	unsigned long pairs;
};

#define FIELD_LINE(p, member)	((uintptr_t)&(p)->member / FS_LINE)

/* Each written field of a and of b, by name, and whether their lines meet. */
static void facts(const struct folio *a, const struct folio *b, struct fs_fact *f, unsigned int *nr,
		  unsigned long pairs)
{
	const struct { const char *name; uintptr_t la, lb; } w[] = {
		{ "_refcount", FIELD_LINE(a, _refcount), FIELD_LINE(b, _refcount) },
		{ "flags", FIELD_LINE(a, flags), FIELD_LINE(b, flags) },
		{ "_mapcount", FIELD_LINE(a, _mapcount), FIELD_LINE(b, _mapcount) },
	};
	unsigned int off = (uintptr_t)a % FS_LINE, i, j, n = 0;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			if (w[i].la == w[j].lb)
				f[n++] = (struct fs_fact){ off, w[i].name, w[j].name, pairs };
	if (!n)
		f[n++] = (struct fs_fact){ off, NULL, NULL, pairs };
	*nr = n;
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/*
 * Pairs of real neighbours (a, b), nr_pairs of them, against the rows of
 * object: every fact is a row, every row a fact, the fractions alike.
 */
static void check_object(const char *object, const struct fs_row *rows, int nr_rows,
			 struct folio *(*pair)(unsigned long i, struct folio **b, void *arg),
			 void *arg, unsigned long nr_pairs)
{
	static struct fs_fact seen[FS_MAX_ROWS];
	unsigned int nr_seen = 0, n, j, matched = 0;
	struct fs_fact f[9];
	unsigned long i;
	int r;

	for (i = 0; i < nr_pairs; i++) {
		struct folio *b, *a = pair(i, &b, arg);

		facts(a, b, f, &n, 1);
		for (j = 0; j < n; j++) {
			unsigned int s;

			for (s = 0; s < nr_seen; s++)
				if (seen[s].line_offset == f[j].line_offset && same_name(seen[s].hot, f[j].hot) &&
				    same_name(seen[s].neighbour, f[j].neighbour))
					break;
			if (s == nr_seen && nr_seen < FS_MAX_ROWS)
				seen[nr_seen++] = f[j];
			else if (s < nr_seen)
				seen[s].pairs++;
		}
	}
	for (r = 0; r < nr_rows; r++) {
		const struct fs_row *row = &rows[r];
		unsigned int s;

		if (strcmp(row->object, object))
			continue;
		for (s = 0; s < nr_seen; s++)
			if (seen[s].line_offset == row->line_offset && same_name(seen[s].hot, row->hot_field) &&
			    same_name(seen[s].neighbour, row->neighbour_field))
				break;
		CHECK(s < nr_seen, "%s %s: row at offset %u (%s, %s) that no real pair shows", ops->name,
		      object, row->line_offset, row->hot_field, row->neighbour_field);
		if (s < nr_seen) {
			CHECK(row->pairs > (double)seen[s].pairs / nr_pairs - 1e-9 &&
			      row->pairs < (double)seen[s].pairs / nr_pairs + 1e-9,
			      "%s %s: offset %u: the table has %.4f of the pairs, the objects %.4f",
			      ops->name, object, row->line_offset, row->pairs,
			      (double)seen[s].pairs / nr_pairs);
			matched++;
		}
	}
	CHECK(matched == nr_seen, "%s %s: %u of %u sharings the objects show are in the table",
	      ops->name, object, matched, nr_seen);
}

struct cache_pairs {
	char *obj[DESC_SLAB_MAX_OBJS];
};

static struct folio *cache_pair(unsigned long i, struct folio **b, void *arg)
{
	struct cache_pairs *c = arg;

	*b = (struct folio *)c->obj[i + 1];
	return (struct folio *)c->obj[i];
}

/* A fresh cache's first slab, as it hands it out: neighbours are consecutive allocations. */
static void check_cache(const char *object, size_t size, const struct fs_row *rows, int nr_rows)
{
	/* 6.18's CPU slab hands a fresh slab out in address order, as the rows pair objects. */
	struct desc_cache_opts o = { .obj_size = size, .expect = 1, .pages = MEMMAP_PAGES_4K,
				     .slub = DESC_SLUB_CPU_SLAB };
	static struct desc_cache c;
	struct cache_pairs p;
	unsigned int i;

	desc_cache_init(&c, &o);
	for (i = 0; i < c.objs_per_slab; i++) {
		p.obj[i] = desc_alloc(&c);
		CHECK(!i || p.obj[i] == p.obj[i - 1] + c.obj_size, "%s: a fresh slab out of order", object);
	}
	check_object(object, rows, nr_rows, cache_pair, &p, c.objs_per_slab - 1);
	desc_cache_destroy(&c);
}

static struct folio *memmap_pair(unsigned long i, struct folio **b, void *arg)
{
	const struct memmap *mm = arg;

	*b = (struct folio *)pfn_to_page(mm, i + 1);
	return (struct folio *)pfn_to_page(mm, i);
}

static void test_false_sharing(const struct mix *mix)
{
	static struct fs_row rows[FS_MAX_ROWS];
	int n = false_sharing_rows(ops, 0, DESC_CACHE_RCU, rows, FS_MAX_ROWS);
	struct memmap *mm;

	CHECK(n > 0, "%s: no false-sharing rows", ops->name);
	if (ops->desc_size[DESC_FOLIO]) {
		check_cache("folio descriptor", ops->desc_size[DESC_FOLIO], rows, n);
		if (ops->desc_size[DESC_FOLIO_LARGE])
			check_cache("large folio descriptor", ops->desc_size[DESC_FOLIO_LARGE], rows, n);
		return;
	}
	/* The folio overlays its page: neighbouring struct pages of a real memmap. */
	mm = build(mix);
	check_object("struct page", rows, n, memmap_pair, mm, FS_LINE);
	ops->memmap_destroy(mm);
}

int main(void)
{
	struct mix mix;

	resolve_mix("desktop", &mix);
	test_shared_memmap(&mix);
	test_remote_free(&mix);
	test_deferred_init(&mix);
	test_false_sharing(&mix);
	if (failures) {
		fprintf(stderr, "test_bench_threads %s: %d failures\n", ops->name, failures);
		return 1;
	}
	printf("test_bench_threads %s: ok\n", ops->name);
	return 0;
}
