/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mix.h - which kinds of page, at which folio orders, fill the modelled RAM.
 *
 * A mix is a list of (kind, order, fraction): fraction of all pfns that are
 * covered by blocks of that kind and order.  Fractions sum to 1.  It comes
 * from a built-in profile, a JSON file, or /proc/kpageflags.  Layout
 * independent: compiled once.
 *
 * Orders are what the kernel allows each kind: anon and file folios up to
 * MAX_FOLIO_ORDER (PMD size), free blocks up to the buddy's MAX_PAGE_ORDER,
 * hugetlb folios at two hstates (2 MiB and 1 GiB at 4 KiB), the other kinds
 * up to MAX_FOLIO_ORDER as before (mix_order_valid()).  A mix is given in
 * 4 KiB pages (x86-64's orders, mix_validate_4k()); a run at another base
 * page places its translation (mix_translate()).
 */
#ifndef MDB_MIX_H
#define MDB_MIX_H

#include <stdbool.h>
#include <stdint.h>

#include "basepage.h"

/*
 * A mix as given (built-in, file, kpageflags) counts in 4 KiB pages, the
 * orders x86-64 allows: these.  mix_translate() turns it into the run's
 * base pages, whose orders are the run-time ones below.
 */
#define MIX_4K_MAX_FOLIO_ORDER	9	/* PMD_ORDER on x86-64: 2 MiB */
#define MIX_4K_MAX_PAGE_ORDER	10
#define MIX_4K_HUGETLB_PMD	9	/* hugepagesz=2M */
#define MIX_4K_HUGETLB_PUD	18	/* hugepagesz=1G */

/*
 * The run's orders, in its base pages (basepage.h mdb_base): at 4 KiB what
 * they always were (9, 9, 10, 9, 18).  Anon and file folios go up to the
 * PMD order; hugetlb folios are the mix's PMD-level ones at the base page's
 * PMD hstate and its PUD-level ones at the base page's largest hstate
 * (mix_translate() says why).
 */
#define MAX_FOLIO_ORDER		(mdb_base.pmd_order)
#define PAGEBLOCK_ORDER		(mdb_base.pageblock_order)
/* The buddy's largest free block: include/linux/mmzone.h MAX_PAGE_ORDER (4 MiB at 4k). */
#define MAX_PAGE_ORDER		(mdb_base.max_page_order)
#define HUGETLB_ORDER_PMD	(mdb_base.pmd_order)
#define HUGETLB_ORDER_PUD	(mdb_base.top_order)
/* The largest block a mix places: 1 GiB hugetlb at 4k, 16 GiB at 64k. */
#define MIX_MAX_ORDER		18
#define MIX_NR_ORDERS		(MIX_MAX_ORDER + 1)
_Static_assert(BASE_PAGE_MAX_PAGE_ORDER <= MIX_MAX_ORDER, "free blocks fit the orders");

enum page_kind {
	PK_FREE,	/* buddy */
	PK_ANON,	/* anon folio */
	PK_FILE,	/* page-cache folio */
	PK_SLAB,
	PK_PGTABLE,
	PK_ZSMALLOC,
	PK_NETMEM,
	PK_RESERVED,
	PK_HUGETLB,	/* hugetlb folio (hugetlbfs, SHM_HUGETLB, MAP_HUGETLB) */
	PK_NR
};

/*
 * Every (kind, order) a mix can name in 4 KiB pages, each once: free 0..10,
 * hugetlb 9 and 18, the other seven kinds 0..9.  A translated mix has no
 * more: mix_translate() maps each of those onto one (kind, order).
 */
#define MIX_MAX_ENTRIES		((PK_NR - 2) * (MIX_4K_MAX_FOLIO_ORDER + 1) + \
				 MIX_4K_MAX_PAGE_ORDER + 1 + 2)
#define MIX_NAME_LEN		64
#define MIX_CLASSIFIED_LEN	512

struct mix_entry {
	enum page_kind kind;
	unsigned int order;
	double fraction;	/* of all pfns */
};

struct mix {
	char name[MIX_NAME_LEN];
	unsigned int nr;
	struct mix_entry entry[MIX_MAX_ENTRIES];
	/*
	 * A kpageflags snapshot's: how its pfns without any flag were told
	 * apart (free, reserved, holes) and on what evidence; "" otherwise.
	 */
	char classified[MIX_CLASSIFIED_LEN];
	/*
	 * A kpageflags snapshot's blocks at the pfns where it saw them, which
	 * placement keeps (mix_plan_init()); NULL for every other mix.
	 */
	const struct mix_placed *placed;
};

/*
 * A snapshot's placement, pfn for pfn from pfn 0: code[pfn] is 0 inside a
 * block, else 1 + kind * MIX_NR_ORDERS + order at the block's head, every
 * block naturally aligned; holes (KPF_NOPAGE, outside System RAM) are
 * reserved pages there.  Kept while the process lives (mixes are copied by
 * value).
 */
struct mix_placed {
	uint64_t nr_pfns;
	uint8_t *code;
	struct mix_placed *next;
};

/* A mix_placed code: 0 inside a block, else its kind and order at its head. */
static inline uint8_t mix_placed_code(enum page_kind kind, unsigned int order)
{
	return (uint8_t)(1 + kind * MIX_NR_ORDERS + order);
}

_Static_assert(1 + PK_NR * MIX_NR_ORDERS <= 255, "a placed block's code fits a byte");

static inline unsigned int mix_placed_order(uint8_t code)
{
	return (code - 1U) % MIX_NR_ORDERS;
}

static inline enum page_kind mix_placed_kind(uint8_t code)
{
	return (enum page_kind)((code - 1U) / MIX_NR_ORDERS);
}

/* Block arithmetic shared by a snapshot's scan (kpageflags.c) and placement (mix.c). */
static inline unsigned int mix_floor_log2(uint64_t x)
{
	return 63 - (unsigned int)__builtin_clzll(x);
}

/* Largest order a block starting at pfn may have: its alignment, at most cap. */
static inline unsigned int mix_max_order_at(uint64_t pfn, unsigned int cap)
{
	if (!pfn || (unsigned int)__builtin_ctzll(pfn) > cap)
		return cap;
	return (unsigned int)__builtin_ctzll(pfn);
}

/* "free", "anon", ... and back; -1 for an unknown name. */
const char *page_kind_name(enum page_kind kind);
int page_kind_from_name(const char *name);
/* Whether a mix may place blocks of this kind at this order, at base page b (see above). */
bool mix_order_valid_at(const struct base_page *b, enum page_kind kind, unsigned int order);
/*
 * An order of 4 KiB pages (not hugetlb) in the run's base pages, as
 * mix_translate() places it: 9 (2 MiB) is 7 at 16k, 5 at 64k; 0 is 0.
 */
static inline unsigned int mix_order_from_4k(unsigned int order)
{
	unsigned int d = mdb_base.shift - BASE_PAGE_MIN_SHIFT;

	return order > d ? order - d : 0;
}

/* The same at the run's base page. */
static inline bool mix_order_valid(enum page_kind kind, unsigned int order)
{
	return mix_order_valid_at(&mdb_base, kind, order);
}

/* Whether a mix's name may hold c: [A-Za-z0-9._:+-], nothing to quote in a benchmark name. */
bool mix_name_char_ok(char c);

/* Whether the mix places hugetlb folios of this order (0: of any order). */
bool mix_has_hugetlb(const struct mix *mix, unsigned int order);

/* The kinds whose pages page_folio() resolves: anon, file and hugetlb folios. */
static inline bool page_kind_is_folio(enum page_kind kind)
{
	return kind == PK_ANON || kind == PK_FILE || kind == PK_HUGETLB;
}

struct mdb_err;			/* harness/err.h */
typedef struct json_t json_t;	/* <jansson.h> */

/*
 * Each returns 0, or -1 with a one-line reason in err, never a partial mix.
 * Files are read through harness/jsonio.h (jansson, duplicate keys refused,
 * numbers too large or too small for a double refused, at most 1 MiB);
 * their errors start "PATH: ".  mix_from_json() checks a parsed document:
 * no other keys, every entry well formed, then mix_validate().
 */
int mix_builtin(const char *name, struct mix *mix, struct mdb_err *err);
int mix_from_json(const json_t *doc, struct mix *mix, struct mdb_err *err);
/* The same for a mix placed at base page b (a --simulate child's, mix_translate()'s). */
int mix_from_json_at(const json_t *doc, const struct base_page *b, struct mix *mix,
		     struct mdb_err *err);
int mix_parse_json(const char *text, struct mix *mix, struct mdb_err *err);
int mix_load_file(const char *path, struct mix *mix, struct mdb_err *err);
/* Snapshot of the running machine; path is normally /proc/kpageflags (kpageflags.c). */
int mix_from_kpageflags(const char *path, struct mix *mix, struct mdb_err *err);
/*
 * Frees what a mix holds beyond itself (a snapshot's placement) and clears
 * it; copies of the mix must not be placed after.  Optional: a placement is
 * otherwise kept while the process lives.
 */
void mix_release(struct mix *mix);
/*
 * A placed mix's placement to a file and back onto a mix (--simulate's
 * children place what the parent read).  0, or -1 with err.
 */
int mix_placed_save(const struct mix *mix, const char *path, struct mdb_err *err);
int mix_placed_load(struct mix *mix, const char *path, struct mdb_err *err);
/* --mix=ARG: a built-in name, "kpageflags", or a path to a JSON file. */
int mix_resolve(const char *arg, struct mix *mix, struct mdb_err *err);
/* At the run's base page (a mix to place), and at 4 KiB (a mix as given). */
int mix_validate(const struct mix *mix, struct mdb_err *err);
int mix_validate_4k(const struct mix *mix, struct mdb_err *err);
/*
 * A mix given in 4 KiB pages as base page b places it: each fraction of RAM
 * kept, each order in b's pages.  An anon, file, slab, ... or free block of
 * 2^order 4 KiB pages is order - (b->shift - 12), and one base page where
 * that is below 0 (an order-0 anon folio at 64 KiB is one 64 KiB folio:
 * the same share of RAM in folios of the smallest size that kernel has).
 * Hugetlb keeps its level, not its size: the 2 MiB (PMD) hstate becomes
 * b's PMD hstate (32 MiB at 16k, 512 MiB at 64k), what hugepagesz= a
 * PMD-mapped workload asks for there; the 1 GiB (PUD) one b's largest
 * (1 GiB at 16k, 16 GiB at 64k).  Entries that meet on one (kind, order)
 * add up.  At 4k out is in.  how, when not NULL, gets one (from, to) pair
 * per entry of in, in its order: what each became.  0, or -1 with err.
 */
struct mix_translation {
	enum page_kind kind;
	unsigned int from, to;		/* orders: in 4 KiB pages, in base pages */
	double fraction;
};
int mix_translate(const struct mix *in, const struct base_page *b, struct mix *out,
		  struct mix_translation how[MIX_MAX_ENTRIES], struct mdb_err *err);
/*
 * The mix as a new JSON document, {"name": .., "entries": [..]}, which
 * mix_from_json() reads back unchanged (write it with mdb_json_write() or
 * MDB_JSON_DUMP_FLAGS); NULL if the mix is invalid or out of memory.
 */
json_t *mix_to_json(const struct mix *mix);
/* NULL-terminated names of the built-in profiles. */
extern const char *const mix_builtin_names[];

/*
 * Placement: cuts [0, nr_pfns) into naturally aligned blocks whose kinds and
 * orders follow the mix, deterministically from seed, the same for every
 * layout.  Pageblocks (2^PAGEBLOCK_ORDER pfns) are shuffled so that kinds
 * interleave across the range; within a pageblock blocks go largest first.
 * Blocks larger than a pageblock (free order 10, 1 GiB hugetlb) are placed
 * before the shuffle, each on a naturally aligned run of whole pageblocks
 * drawn at random, largest order first; the shuffle then moves only the
 * pageblocks they left.  A mix without such blocks draws nothing for them,
 * so its placement is what it was before they existed.  Whatever the mix
 * leaves over is free, order 0.  A placed mix (a kpageflags snapshot's)
 * puts the snapshot's blocks at its pfns instead, seed unused: pfn p of
 * the memmap is the snapshot's pfn p; a block that would cross nr_pfns and
 * the pfns past the snapshot are free, in naturally aligned blocks.
 *
 *	struct mix_plan plan;
 *	struct mix_block b;
 *	if (mix_plan_init(&plan, mix, nr_pfns, seed, err))
 *		return -1;
 *	while (mix_plan_next(&plan, &b))
 *		place(b.pfn, b.order, b.kind);
 *	mix_plan_release(&plan);
 */
struct mix_block {
	unsigned long pfn;
	unsigned int order;
	enum page_kind kind;
};

struct mix_plan {
	unsigned long nr_pfns;
	unsigned long remaining[PK_NR][MIX_NR_ORDERS];	/* blocks still to place */
	unsigned long *pageblock_perm;	/* virtual -> physical pageblock */
	unsigned long nr_pageblocks;	/* whole pageblocks */
	unsigned long nr_small;		/* of them, left to blocks of a pageblock or less */
	struct mix_block *big;		/* the blocks above a pageblock, placed first */
	unsigned long nr_big, next_big;
	unsigned long vpfn;		/* next virtual pfn of the small blocks */
	unsigned int order;		/* being laid out: largest first */
	uint64_t rng;
	const struct mix_placed *placed;	/* the mix's; vpfn is then the next pfn */
};

int mix_plan_init(struct mix_plan *plan, const struct mix *mix, unsigned long nr_pfns,
		  uint64_t seed, struct mdb_err *err);
bool mix_plan_next(struct mix_plan *plan, struct mix_block *block);
void mix_plan_release(struct mix_plan *plan);

#endif /* MDB_MIX_H */
