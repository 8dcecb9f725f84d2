// SPDX-License-Identifier: GPL-2.0
/*
 * test_basepage.c - the base page sizes (machine/basepage.h) and HVO at
 * each (hvo_freed_pages_at()) against hand counts.
 *
 * The hstates are the sizes arm64 offers (2 MiB contiguous PTEs, the PMD,
 * contiguous PMDs) and x86-64's at 4 KiB; a GiB's memmap of 64-byte entries
 * is 16, 4 and 1 MiB.  HVO keeps one base page of a folio's entries and
 * gives back the rest when they fill whole pages: a 512 MiB folio at 64 KiB
 * has 8192 entries, 512 KiB, 8 pages, 7 given back; a 2 MiB folio's 32
 * entries fill 2 KiB, not a page, and give back nothing.  The orders of each
 * base page, and mix_translate() of a small mix at 64k, what each entry
 * became and how the entries that meet add up.
 */
#include <string.h>

#include "basepage.h"
#include "err.h"
#include "hvo.h"
#include "mix.h"
#include "test_common.h"

static const struct {
	const char *base;
	unsigned long long sizes[BASE_PAGE_MAX_HSTATES];
} sizes[] = {
	{ "4k", { 2ULL << 20, 1ULL << 30 } },
	{ "16k", { 2ULL << 20, 32ULL << 20, 1ULL << 30 } },
	{ "64k", { 2ULL << 20, 512ULL << 20, 16ULL << 30 } },
};

static const struct {
	const char *base;
	size_t entry;
	enum hvo_scheme scheme;
	unsigned int order;
	unsigned long pages, freed;
} at[] = {
	{ "4k", 64, HVO_FAKE_HEAD, 9, 8, 7 },		/* the 4 KiB figures of test_hvo */
	{ "4k", 64, HVO_FAKE_HEAD, 18, 4096, 4095 },
	{ "16k", 64, HVO_FAKE_HEAD, 7, 0, 0 },		/* 2 MiB: 8 KiB of entries */
	{ "16k", 64, HVO_FAKE_HEAD, 11, 8, 7 },		/* 32 MiB: 128 KiB */
	{ "16k", 64, HVO_SHARED_TAIL, 16, 256, 255 },	/* 1 GiB: 4 MiB */
	{ "16k", 32, HVO_SAME_ENTRY, 11, 4, 3 },
	{ "16k", 8, HVO_SAME_ENTRY, 11, 1, 0 },		/* 16 KiB: one page, kept */
	{ "16k", 8, HVO_SAME_ENTRY, 16, 32, 31 },
	{ "64k", 64, HVO_FAKE_HEAD, 5, 0, 0 },		/* 2 MiB: 2 KiB */
	{ "64k", 64, HVO_FAKE_HEAD, 13, 8, 7 },		/* 512 MiB: 512 KiB */
	{ "64k", 64, HVO_FAKE_HEAD, 18, 256, 255 },	/* 16 GiB: 16 MiB */
	{ "64k", 64, HVO_NONE, 18, 256, 0 },
	{ "64k", 32, HVO_SAME_ENTRY, 13, 4, 3 },
	{ "64k", 32, HVO_SAME_ENTRY, 18, 128, 127 },
	{ "64k", 8, HVO_SAME_ENTRY, 13, 1, 0 },		/* 64 KiB: one page */
	{ "64k", 8, HVO_SAME_ENTRY, 18, 32, 31 },	/* 2 MiB of memdescs -> 64 KiB */
};

static const struct {
	const char *base;
	unsigned int max, pageblock, section, pmd, top;
} orders[] = {
	{ "4k", 10, 9, 27, 9, 18 },
	{ "16k", 11, 11, 27, 11, 16 },
	{ "64k", 13, 13, 29, 13, 18 },
};

/*
 * A mix of 4 KiB orders at 64k: order 9 -> 5, orders 0..4 -> 0 (their
 * fractions added), the 2 MiB hstate -> 512 MiB (order 13), the 1 GiB one
 * -> 16 GiB (18); what each entry became, in its order.
 */
static void check_translate(void)
{
	struct mix in = { .name = "t", .nr = 6, .entry = {
		{ PK_ANON, 9, 0.2 }, { PK_ANON, 0, 0.1 }, { PK_ANON, 4, 0.15 },
		{ PK_HUGETLB, 9, 0.25 }, { PK_HUGETLB, 18, 0.2 }, { PK_FREE, 10, 0.1 } } };
	static const struct mix_translation want[] = {
		{ PK_ANON, 9, 5, 0.2 }, { PK_ANON, 0, 0, 0.1 }, { PK_ANON, 4, 0, 0.15 },
		{ PK_HUGETLB, 9, 13, 0.25 }, { PK_HUGETLB, 18, 18, 0.2 }, { PK_FREE, 10, 6, 0.1 } };
	struct mix_translation how[MIX_MAX_ENTRIES];
	struct mix out;
	struct mdb_err err;
	unsigned int i;

	CHECK(!mix_translate(&in, base_page_find("64k"), &out, how, &err), "translate: %s", err.msg);
	for (i = 0; i < 6; i++)
		CHECK(how[i].kind == want[i].kind && how[i].from == want[i].from &&
		      how[i].to == want[i].to && how[i].fraction == want[i].fraction,
		      "entry %u: (%d, %u -> %u)", i, (int)how[i].kind, how[i].from, how[i].to);
	CHECK(out.nr == 5 && out.entry[1].kind == PK_ANON && out.entry[1].order == 0 &&
	      out.entry[1].fraction == 0.1 + 0.15 && out.entry[2].order == 13 && out.entry[3].order == 18,
	      "merged: %u entries", out.nr);
	/* A placed mix is no 4 KiB one: order 13 hugetlb is no x86-64 hstate. */
	CHECK(mix_validate_4k(&out, &err) == -1 && strstr(err.msg, "hugetlb order 13"), "%s", err.msg);
	/* At 4k a mix is itself. */
	CHECK(!mix_translate(&in, base_page_find("4k"), &out, NULL, &err) && out.nr == 6 &&
	      !memcmp(out.entry, in.entry, sizeof(in.entry[0]) * 6), "4k: unchanged");
}

int main(void)
{
	unsigned int i, h, n = 0;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const struct base_page *b = base_page_find(sizes[i].base);

		CHECK(b, "%s: no such base page", sizes[i].base);
		if (!b)
			continue;
		n++;
		/* 64-byte entries: 16 MiB a GiB at 4 KiB, 4 at 16, 1 at 64 */
		CHECK((64ULL << (30 - b->shift)) == 16ULL << 20 >> 2 * i, "%s: memmap per GiB", b->name);
		for (h = 0; h < BASE_PAGE_MAX_HSTATES; h++) {
			unsigned long long got = h < b->nr_hstates ? 1ULL << (b->hstate[h].order + b->shift) : 0;

			CHECK(got == sizes[i].sizes[h], "%s hstate %u: %llu bytes, want %llu",
			      b->name, h, got, sizes[i].sizes[h]);
		}
	}
	CHECK(n == 3 && !base_pages[3].name, "want 4k, 16k and 64k only");
	CHECK(!base_page_find("8k"), "8k is no base page");
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		const struct base_page *b = base_page_find(at[i].base);
		struct layout_hvo hvo = { .scheme = at[i].scheme, .reserve_pages = 1 };
		unsigned long pages = hvo_vmemmap_pages_at(at[i].entry, at[i].order, b->shift);
		unsigned long freed = hvo_freed_pages_at(&hvo, at[i].entry, at[i].order, b->shift);

		CHECK(pages == at[i].pages && freed == at[i].freed,
		      "%s, %zu-byte entries, order %u: %lu pages, %lu freed; want %lu, %lu",
		      at[i].base, at[i].entry, at[i].order, pages, freed, at[i].pages, at[i].freed);
	}
	/*
	 * The orders each kernel runs at: MAX_PAGE_ORDER (arm64 Kconfig
	 * ARCH_FORCE_MAX_ORDER), pageblock_order = min(PMD order,
	 * MAX_PAGE_ORDER), SECTION_SIZE_BITS, the PMD and largest hstates.
	 */
	for (i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		const struct base_page *b = base_page_find(orders[i].base);

		CHECK(b && b->max_page_order == orders[i].max && b->pageblock_order == orders[i].pageblock &&
		      b->section_bits == orders[i].section && b->pmd_order == orders[i].pmd &&
		      b->top_order == orders[i].top &&
		      b->hstate[b->nr_hstates - 1].order == b->top_order,
		      "%s: orders", orders[i].base);
	}
	check_translate();
	/* at 4 KiB the _at() forms are the plain ones */
	CHECK(hvo_vmemmap_pages(64, 9) == hvo_vmemmap_pages_at(64, 9, 12), "4 KiB");
	return failures ? 1 : 0;
}
