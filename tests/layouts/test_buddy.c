// SPDX-License-Identifier: GPL-2.0
/*
 * test_buddy.c - the free lists in the memmap (layouts/buddy.h) and FOLL_PIN,
 * one layout through its inline API, compiled once per layout: exact list
 * states after allocation and free sequences (split, merge, the pcp's
 * batch, LIFO and drain), which must be the same in every layout, and where
 * each layout keeps a pin.
 */
#include "buddy.h"
#include "test_layout_common.h"

static const struct layout_ops *ops = &LAYOUT_SYM(ops);

#define NR	4096UL		/* four MIX_4K_MAX_PAGE_ORDER blocks */

static struct memmap *all_free(void)
{
	struct mix mix = { .nr = 1, .entry = { { PK_FREE, MIX_4K_MAX_PAGE_ORDER, 1.0 } } };
	struct memmap_opts opts = { .seed = TEST_SEED };
	struct memmap *mm;

	snprintf(mix.name, sizeof(mix.name), "all-free");
	create_or_die(ops, &mm, NR, &mix, &opts);
	return mm;
}

static void check_nr(const struct memmap *mm, const unsigned long want[MIX_4K_MAX_PAGE_ORDER + 1],
		     const char *when)
{
	unsigned int o;

	for (o = 0; o <= MIX_4K_MAX_PAGE_ORDER; o++)
		CHECK(mm->buddy.free_area[o].nr == want[o], "%s: %s: free_area[%u] holds %lu, want %lu",
		      ops->name, when, o, mm->buddy.free_area[o].nr, want[o]);
}

static void check_free(const struct memmap *mm, unsigned long pfn, unsigned long head,
		       unsigned int order)
{
	struct page_info pi;

	ops->page_info(mm, pfn, &pi);
	CHECK(pi.kind == PK_FREE && pi.head_pfn == head && pi.order == order,
	      "%s: pfn %lu: %s head %lu order %u, want free head %lu order %u", ops->name, pfn,
	      page_kind_name(pi.kind), pi.head_pfn, pi.order, head, order);
}

/* A split and its merge: __rmqueue_smallest() + expand(), __free_one_page(). */
static void check_split_merge(void)
{
	struct memmap *mm = all_free();
	unsigned long h = (unsigned long)free_list_first(mm, &mm->buddy.free_area[MIX_4K_MAX_PAGE_ORDER], false);
	unsigned long want[MIX_4K_MAX_PAGE_ORDER + 1] = { [MIX_4K_MAX_PAGE_ORDER] = 4 };
	unsigned int o;
	long pfn;

	check_nr(mm, want, "boot");
	pfn = ops->folio_alloc(mm, 4, PK_ANON);	/* not a pcp order */
	CHECK(pfn == (long)h, "%s: order 4 from the first order-10 block %lu, got %ld", ops->name, h, pfn);
	for (o = 4; o < MIX_4K_MAX_PAGE_ORDER; o++)
		want[o] = 1;
	want[MIX_4K_MAX_PAGE_ORDER] = 3;
	check_nr(mm, want, "after the split");
	for (o = 4; o < MIX_4K_MAX_PAGE_ORDER; o++) {
		CHECK(free_list_first(mm, &mm->buddy.free_area[o], false) == (long)(h + (1UL << o)),
		      "%s: expand() left order %u at %lu", ops->name, o, h + (1UL << o));
		check_free(mm, h + (1UL << o) + 1, h + (1UL << o), o);
	}
	ops->folio_free(mm, h);
	memset(want, 0, sizeof(want));
	want[MIX_4K_MAX_PAGE_ORDER] = 4;
	check_nr(mm, want, "after the merge");
	CHECK(free_list_first(mm, &mm->buddy.free_area[MIX_4K_MAX_PAGE_ORDER], false) == (long)h,
	      "%s: the merged block at the list's head", ops->name);
	check_free(mm, h + 1000, h, MIX_4K_MAX_PAGE_ORDER);
	ops->memmap_destroy(mm);
}

/* rmqueue_pcplist(): a batch of 63 order-0 blocks, LIFO. */
static void check_pcp_order0(void)
{
	struct memmap *mm = all_free();
	unsigned long h = (unsigned long)free_list_first(mm, &mm->buddy.free_area[MIX_4K_MAX_PAGE_ORDER], false);
	long pfn = ops->folio_alloc(mm, 0, PK_ANON);

	CHECK(pfn == (long)h && mm->buddy.pcp.count == 62 && mm->buddy.pcp.lists[0].nr == 62,
	      "%s: order 0: pfn %ld (want %lu), pcp count %d (want 62)", ops->name, pfn, h,
	      mm->buddy.pcp.count);
	CHECK(free_list_first(mm, &mm->buddy.pcp.lists[0], false) == (long)h + 1 &&
	      free_list_first(mm, &mm->buddy.pcp.lists[0], true) == (long)h + 62,
	      "%s: the batch in pfn order, %lu..%lu", ops->name, h + 1, h + 62);
	check_free(mm, h + 62, h + 62, 0);	/* on the pcp list */
	check_free(mm, h + 63, h + 63, 0);	/* expand()'s last half */
	CHECK(mm->buddy.free_area[0].nr == 1 && mm->buddy.free_area[6].nr == 1,
	      "%s: the split's halves left on the buddy", ops->name);
	ops->folio_free(mm, h);
	CHECK(mm->buddy.pcp.count == 63 && free_list_first(mm, &mm->buddy.pcp.lists[0], false) == (long)h,
	      "%s: the freed block first on the pcp list", ops->name);
	CHECK(ops->folio_alloc(mm, 0, PK_FILE) == (long)h, "%s: LIFO: the last freed comes back", ops->name);
	ops->memmap_destroy(mm);
}

/* Order 9: a batch of 2; a free past pcp->high drains the oldest, then merges. */
static void check_pcp_drain(void)
{
	struct memmap *mm = all_free();
	unsigned long h = (unsigned long)free_list_first(mm, &mm->buddy.free_area[MIX_4K_MAX_PAGE_ORDER], false);
	unsigned long want[MIX_4K_MAX_PAGE_ORDER + 1] = { [MIX_4K_MAX_PAGE_ORDER] = 3 };
	long pfn = ops->folio_alloc(mm, 9, PK_ANON);

	CHECK(pfn == (long)h && mm->buddy.pcp.count == 512 && mm->buddy.pcp.lists[4].nr == 1,
	      "%s: order 9: pfn %ld, pcp count %d", ops->name, pfn, mm->buddy.pcp.count);
	check_nr(mm, want, "two order-9 blocks to the pcp");
	ops->folio_free(mm, h);		/* 1024 >= high: the tail (h + 512) to the buddy */
	want[9] = 1;
	check_nr(mm, want, "one drained");
	CHECK(mm->buddy.pcp.count == 512 && free_list_first(mm, &mm->buddy.pcp.lists[4], false) == (long)h,
	      "%s: h stays on the pcp", ops->name);
	check_free(mm, h + 512, h + 512, 9);
	check_free(mm, h + 3, h, 9);
	CHECK(ops->folio_alloc(mm, 9, PK_ANON) == (long)h, "%s: LIFO at order 9", ops->name);
	ops->folio_free(mm, h);		/* drained again: merges with h + 512 */
	memset(want, 0, sizeof(want));
	want[MIX_4K_MAX_PAGE_ORDER] = 4;
	check_nr(mm, want, "drained and merged");
	CHECK(mm->buddy.pcp.count == 0, "%s: pcp empty, count %d", ops->name, mm->buddy.pcp.count);
	check_free(mm, h + 700, h, MIX_4K_MAX_PAGE_ORDER);
	ops->memmap_destroy(mm);
}

/* FOLL_PIN: where the pin goes, and what the counts read, per layout. */
static void check_pin(unsigned int order)
{
	struct memmap *mm = all_free();
	long pfn = ops->folio_alloc(mm, order, PK_ANON);
	struct folio *folio = page_folio(mm, pfn_to_page(mm, (unsigned long)pfn));
	bool descs = layout_has_descriptors(ops);
	const char *pin;
	struct page_info pi;

	CHECK(ops->folio_pin(mm, (unsigned long)pfn), "%s: pin", ops->name);
	ops->page_info(mm, (unsigned long)pfn, &pi);
	pin = (const char *)folio_pincount_ptr(folio);
	if (descs) {	/* the descriptor's pincount, small folios too */
		CHECK(pin == (const char *)folio + 56 && pi.refcount == 2,
		      "%s: order %u: pincount at folio+56, refcount %d want 2", ops->name, order, pi.refcount);
	} else if (order) {	/* the first tail's _pincount */
		CHECK(pin == (const char *)pfn_to_page(mm, (unsigned long)pfn + 1) + 28 && pi.refcount == 2,
		      "%s: order %u: _pincount in the first tail at +28, refcount %d", ops->name, order,
		      pi.refcount);
	} else {	/* no pincount: GUP_PIN_COUNTING_BIAS references */
		CHECK(!pin && pi.refcount == 1 + GUP_PIN_COUNTING_BIAS,
		      "%s: order 0: refcount %d want %d", ops->name, pi.refcount, 1 + GUP_PIN_COUNTING_BIAS);
	}
	CHECK(ops->folio_pins(mm, (unsigned long)pfn) == 1, "%s: order %u: one pin, read %d", ops->name,
	      order, ops->folio_pins(mm, (unsigned long)pfn));
	CHECK(!ops->folio_unpin(mm, (unsigned long)pfn), "%s: unpin keeps the mix's reference", ops->name);
	ops->page_info(mm, (unsigned long)pfn, &pi);
	CHECK(pi.refcount == 1 && ops->folio_pins(mm, (unsigned long)pfn) == 0,
	      "%s: order %u: unpinned, refcount %d", ops->name, order, pi.refcount);
	ops->memmap_destroy(mm);
}

int main(void)
{
	check_split_merge();
	check_pcp_order0();
	check_pcp_drain();
	check_pin(0);
	check_pin(2);
	if (failures)
		return 1;
	printf("%s: ok\n", ops->name);
	return 0;
}
