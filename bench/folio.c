// SPDX-License-Identifier: GPL-2.0
/*
 * folio.c - from a page to its folio, and the folio's reference count.
 *
 * folio/tail: page_folio() on a tail page, then one folio field
 * (folio_mapping(), as rmap and the page cache read it next).  page64 reads
 * compound_head from the tail's own struct page and lands on the head; page32
 * and memdesc8 follow the memdesc to a separate descriptor.  Random tails, so
 * each op pays the tail's line and the folio's line.
 *
 * folio/getput: the reference GUP-fast takes and drops on the folio of a
 * random folio page: try_get_folio() (mm/gup.c, what try_grab_folio_fast()
 * does for FOLL_GET), then folio_put() (gup_put_folio()).  Left out: the
 * PTE re-read after the grab (gup_fast_pte_range() compares the PTE with
 * the one it started from: there are no page tables here), FOLL_PIN's
 * pincount, and the pgmap/p2pdma checks.  filemap_get_entry() takes its
 * reference the same way, re-checking the xarray slot instead of the page.
 * folio_try_get() asks page_count_writable() first (page64 with HVO on:
 * the count and the fake-head check).
 *
 * folio/getput-pin: the same walk with FOLL_PIN, as pin_user_pages_fast()
 * grabs a page for DMA (io_uring fixed buffers, O_DIRECT, RDMA, VFIO) and
 * unpin_user_page() drops it: the reference, then the pin, then both off
 * (walk_ops.h getpin_one()).  page64 pins a large folio in its first tail's
 * _pincount (a second line), a small one with GUP_PIN_COUNTING_BIAS more
 * references; page32 and memdesc8 in the descriptor's pincount.
 *
 * Each in three walks (bench/walk.h): throughput, -dep and -cold; folio/getput
 * also warm (-warm: a few folios over and over, what a page fault pays for
 * the folio it has just found).
 */
#include "walk_ops.h"

static const struct walk_kernel tail_walk = {
	.name = "folio/tail", .select = SELECT_FOLIO_TAIL,
	.empty = "the mix has no large folio, so no tail page",
};

static const struct walk_kernel getput_walk = {
	.name = "folio/getput", .select = SELECT_FOLIO_PAGE, .empty = "the mix has no folio",
};

static void folio_tail(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &tail_walk, WALK_THROUGHPUT, tail_one);
}

static void folio_tail_dep(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &tail_walk, WALK_DEPENDENT, tail_one);
}

static void folio_tail_cold(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &tail_walk, WALK_COLD, tail_one);
}

static const struct walk_kernel getpin_walk = {
	.name = "folio/getput-pin", .select = SELECT_FOLIO_PAGE, .empty = "the mix has no folio",
};

static void folio_getput_pin(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &getpin_walk, WALK_THROUGHPUT, getpin_one);
}

static void folio_getput(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &getput_walk, WALK_THROUGHPUT, getput_one);
}

static void folio_getput_dep(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &getput_walk, WALK_DEPENDENT, getput_one);
}

static const struct walk_kernel getput_warm_walk = {
	.name = "folio/getput-warm", .select = SELECT_FOLIO_PAGE, .empty = "the mix has no folio",
};

static void folio_getput_warm(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &getput_warm_walk, WALK_WARM, getput_one);
}

static void folio_getput_cold(struct mdb_state *st, const struct bench_env *env)
{
	bench_walk(st, env, &getput_walk, WALK_COLD, getput_one);
}

MDB_KERNEL(folio_tail,
	   .name = "folio/tail", .class = MDB_DEPENDENT, .unit = "tail page",
	   .run = folio_tail,
	   .ws = MDB_WS_FOLIO_TAILS, .ws_sampled = true, .sim_ops = 1 << 16);

MDB_KERNEL(folio_tail_dep,
	   .name = "folio/tail-dep", .class = MDB_DEPENDENT, .unit = "tail page",
	   .run = folio_tail_dep,
	   .ws = MDB_WS_FOLIO_TAILS, .ws_sampled = true, .sim_ops = 1 << 16);

MDB_KERNEL(folio_tail_cold,
	   .name = "folio/tail-cold", .class = MDB_DEPENDENT, .unit = "tail page",
	   .run = folio_tail_cold,
	   .ws = MDB_WS_FOLIO_TAILS, .ws_sampled = true, .sim_ops = 1 << 10,
	   .min_misses = 1);

MDB_KERNEL(folio_getput,
	   .name = "folio/getput", .class = MDB_DEPENDENT, .unit = "get+put pair",
	   .run = folio_getput,
	   .ws = MDB_WS_FOLIOS, .ws_sampled = true, .sim_ops = 1 << 16);

MDB_KERNEL(folio_getput_warm,
	   .name = "folio/getput-warm", .class = MDB_DEPENDENT, .unit = "get+put pair",
	   .run = folio_getput_warm, .flags = MDB_K_NOT_HEADLINE,
	   .ws = MDB_WS_NONE, .sim_ops = 1 << 16,
	   /*
	    * A fault takes and drops a reference on a folio it has just found
	    * (filemap_map_pages()'s next_uptodate_folio(), wp_page_copy()'s
	    * folio_get(); a first-touch anonymous fault only its allocation's:
	    * an upper bound there), its lines already cached.
	    */
	   .vmstat = MDB_VMSTAT({ "pgfault", 1 }));

MDB_KERNEL(folio_getput_pin,
	   .name = "folio/getput-pin", .class = MDB_DEPENDENT, .unit = "get+pin+unpin",
	   .run = folio_getput_pin,
	   .sim_ops = 1 << 16,
	   /*
	    * A FOLL_PIN grab: try_grab_folio() / try_grab_folio_fast() (mm/gup.c)
	    * add one to NR_FOLL_PIN_ACQUIRED per page pinned, each a pin of the
	    * page's folio, as this op is; unpin_user_page() counts the release.
	    */
	   .vmstat = MDB_VMSTAT({ "nr_foll_pin_acquired", 1 }));

MDB_KERNEL(folio_getput_dep,
	   .name = "folio/getput-dep", .class = MDB_DEPENDENT, .unit = "get+put pair",
	   .run = folio_getput_dep,
	   .ws = MDB_WS_FOLIOS, .ws_sampled = true, .sim_ops = 1 << 16);

MDB_KERNEL(folio_getput_cold,
	   .name = "folio/getput-cold", .class = MDB_DEPENDENT, .unit = "get+put pair",
	   .run = folio_getput_cold,
	   .ws = MDB_WS_FOLIOS, .ws_sampled = true, .sim_ops = 1 << 10,
	   .min_misses = 1);
