// SPDX-License-Identifier: GPL-2.0
/*
 * test_bench_scan.c - the LRU kernels' state on a shared memmap (bench/scan.c),
 * one binary per layout:
 *  - scan/compaction's first call on a build puts every folio on the LRU
 *    (PG_lru) and leaves it there: after a call every folio reads PG_lru; a
 *    folio taken off by hand stays off through the next call on the same
 *    build (the walk ran once), and a new build has every folio on again;
 *  - reclaim/scan leaves every folio on the LRU as well;
 *  - scan_cursor() resumes where its scanner stopped on each of several
 *    builds used in turn (a round's layouts interleaved), starts at pfn 0 on
 *    a new build or past the end; build_slot() gives up the least recently
 *    used build for a new one.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cursor.h"
#include "kernel.h"
#include "layout_run.h"
#include "shim.h"
#include "test_common.h"

#define OPS		4096

static void run_fixed(const char *name, struct memmap *mm, const struct mix *mix)
{
	struct memmap_opts opts = mm->opts;
	struct run r = {
		.k = mdb_kernel_find(name, ops),
		.env = { .ops = ops, .mm = mm, .nr_pfns = mm->nr_pfns, .mix = mix, .opts = &opts,
			 .seed = 1, .threads = 1 },
	};
	struct mdb_err err = { "" };
	uint64_t items = 0;

	CHECK(r.k, "no %s on %s", name, ops->name);
	if (r.k)
		CHECK(!mdb_fixed_run(run_kernel, &r, OPS, NULL, NULL, NULL, &items, &err) &&
		      items >= OPS, "%s on %s: %s (%llu items)", name, ops->name, err.msg,
		      (unsigned long long)items);
}

/* Folio heads without PG_lru; the last folio head in *last. */
static unsigned long off_lru(const struct memmap *mm, unsigned long *last)
{
	struct page_info info;
	unsigned long pfn, n = 0, folios = 0;

	for (pfn = 0; pfn < mm->nr_pfns; pfn++) {
		ops->page_info(mm, pfn, &info);
		if (!page_kind_is_folio(info.kind) || info.head_pfn != pfn)
			continue;
		folios++;
		*last = pfn;
		n += !(info.flags & (1u << PG_lru));
	}
	CHECK(folios > 1000, "%s: %lu folios in the desktop mix", ops->name, folios);
	return n;
}

static void test_lru(const struct mix *mix)
{
	struct memmap *mm = build(mix);
	unsigned long pfn = 0, n;

	n = off_lru(mm, &pfn);
	CHECK(n > 0, "%s: a new build has every folio on the LRU already", ops->name);
	run_fixed("scan/compaction", mm, mix);
	n = off_lru(mm, &pfn);
	CHECK(n == 0, "%s: %lu folios off the LRU after scan/compaction", ops->name, n);
	folio_clear_flag(page_folio(mm, pfn_to_page(mm, pfn)), PG_lru);
	CHECK(off_lru(mm, &pfn) == 1, "%s: cannot take one folio off the LRU", ops->name);
	run_fixed("scan/compaction", mm, mix);
	CHECK(off_lru(mm, &pfn) == 1, "%s: the second call walked the memmap again", ops->name);
	ops->memmap_destroy(mm);

	mm = build(mix);
	run_fixed("reclaim/scan", mm, mix);
	n = off_lru(mm, &pfn);
	CHECK(n == 0, "%s: %lu folios off the LRU after reclaim/scan on a new build", ops->name, n);
	ops->memmap_destroy(mm);
}

static void test_cursor(void)
{
	static struct memmap mm[BUILD_SLOTS + 1];	/* large: not on the stack */
	struct build_slots b = { 0 };
	unsigned long *at;
	unsigned int i;
	bool fresh;

	for (i = 0; i <= BUILD_SLOTS; i++)
		mm[i].serial = 7 + i;
	at = scan_cursor(&b, &mm[0], 100);
	CHECK(*at == 0, "a new build starts at %lu", *at);
	*at = 60;
	*scan_cursor(&b, &mm[1], 100) = 30;
	CHECK(*scan_cursor(&b, &mm[0], 100) == 60 && *scan_cursor(&b, &mm[1], 100) == 30,
	      "two builds in turn: each resumes where it stopped");
	*scan_cursor(&b, &mm[1], 100) = 100;
	CHECK(*scan_cursor(&b, &mm[1], 100) == 0, "past the end: resumes at 0");
	build_slot(&b, &mm[0], &fresh);
	CHECK(!fresh, "a build kept is not fresh");
	for (i = 2; i <= BUILD_SLOTS; i++)	/* mm[0] used last: mm[1] goes */
		build_slot(&b, &mm[i], &fresh);
	build_slot(&b, &mm[0], &fresh);
	CHECK(!fresh, "the most recently used build was given up for a new one");
	build_slot(&b, &mm[1], &fresh);
	CHECK(fresh, "the least recently used build was kept beyond %d", BUILD_SLOTS);
}

int main(void)
{
	struct mix mix;

	resolve_mix("desktop", &mix);
	test_lru(&mix);
	test_cursor();
	return test_done("test_bench_scan");
}
