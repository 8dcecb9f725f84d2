/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mdbench_kmod.h - the ABI between the mdbench_kmod module and user space.
 *
 * One misc device, /dev/mdbench (root only), two ioctls:
 *
 *   MDB_KMOD_IOC_INFO  what the running kernel is: release, sizeof(struct
 *                      page), the online pfn span of each node, which
 *                      hardware counters the module can open (and why not).
 *   MDB_KMOD_IOC_RUN   one bounded request: run one kernel for at most
 *                      req.ops ops or req.budget_ns of work, whichever ends
 *                      first, and say how many ops it did in how many ns.
 *                      User space loops until it has the ops it wants.
 *
 * Both structures start with magic and abi; the module refuses a request
 * whose abi differs from its own (EPROTO, with the reason in .error) and
 * user space refuses an INFO whose abi differs, so a stale module and a new
 * client never misread each other.  Bump MDB_KMOD_ABI on any layout change.
 *
 * Usable from the kernel and from user space: only __u32/__u64/char, every
 * structure padded by hand to a multiple of 8 bytes (no implicit padding,
 * the same layout on every 64-bit ABI).
 */
#ifndef MDBENCH_KMOD_H
#define MDBENCH_KMOD_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/ioctl.h>
#else
#include <linux/types.h>
#include <sys/ioctl.h>
#endif

#define MDB_KMOD_MAGIC		0x6d64626bU	/* "mdbk" */
#define MDB_KMOD_ABI		2U
#define MDB_KMOD_DEVICE		"/dev/mdbench"

#define MDB_KMOD_RELEASE_LEN	72	/* __NEW_UTS_LEN + 1 = 65, rounded up */
#define MDB_KMOD_NAME_LEN	24
#define MDB_KMOD_REASON_LEN	96
#define MDB_KMOD_ERROR_LEN	160
#define MDB_KMOD_MAX_NODES	16

/*
 * The kernels, by the names the user-space suite gives them, so that a
 * result of the module and one of page64 sit in the same row.
 */
enum mdb_kmod_kernel {
	MDB_KMOD_LOOKUP_SEQ,		/* "lookup/seq" */
	MDB_KMOD_LOOKUP_RANDOM,		/* "lookup/random" */
	MDB_KMOD_LOOKUP_RANDOM_DEP,	/* "lookup/random-dep" */
	MDB_KMOD_FOLIO_TAIL,		/* "folio/tail" */
	MDB_KMOD_FOLIO_GETPUT,		/* "folio/getput" */
	MDB_KMOD_SCAN_COMPACTION,	/* "scan/compaction" */
	MDB_KMOD_ALLOC_ORDER0,		/* "alloc/order0" */
	MDB_KMOD_ALLOC_ORDER9,		/* "alloc/order9" */
	MDB_KMOD_NR_KERNELS
};

#define MDB_KMOD_KERNEL_NAMES {						\
	"lookup/seq", "lookup/random", "lookup/random-dep", "folio/tail",	\
	"folio/getput", "scan/compaction", "alloc/order0", "alloc/order9",	\
}

/* Hardware counters, named as the suite's harness/counters.c names them. */
enum mdb_kmod_counter {
	MDB_KMOD_CYCLES,
	MDB_KMOD_INSTRUCTIONS,
	MDB_KMOD_L1D_LOAD_MISSES,
	MDB_KMOD_LLC_LOAD_MISSES,
	MDB_KMOD_DTLB_LOAD_MISSES,
	MDB_KMOD_NR_COUNTERS
};

#define MDB_KMOD_COUNTER_NAMES {					\
	"cycles", "instructions", "L1D_load_misses", "LLC_load_misses",	\
	"dTLB_load_misses",						\
}

struct mdb_kmod_node {
	__u32 nid;
	__u32 pad;
	__u64 start_pfn;		/* node_start_pfn() */
	__u64 end_pfn;			/* node_end_pfn(), exclusive */
	__u64 present_pages;		/* node_present_pages() */
};

/* Config options that change what the numbers mean (IS_ENABLED at build). */
#define MDB_KMOD_CFG_LOCKDEP		(1U << 0)	/* CONFIG_PROVE_LOCKING */
#define MDB_KMOD_CFG_KASAN		(1U << 1)	/* CONFIG_KASAN */
#define MDB_KMOD_CFG_DEBUG_VM		(1U << 2)	/* CONFIG_DEBUG_VM */
#define MDB_KMOD_CFG_PERF_EVENTS	(1U << 3)	/* CONFIG_PERF_EVENTS */
#define MDB_KMOD_CFG_THP		(1U << 4)	/* CONFIG_TRANSPARENT_HUGEPAGE */
#define MDB_KMOD_CFG_KCSAN		(1U << 5)	/* CONFIG_KCSAN */
#define MDB_KMOD_CFG_PREEMPT_RT		(1U << 6)	/* CONFIG_PREEMPT_RT */
/* Not config but boot state: folio_alloc() zeroes what it hands out. */
#define MDB_KMOD_CFG_INIT_ON_ALLOC	(1U << 7)	/* want_init_on_alloc(GFP_KERNEL) */

struct mdb_kmod_info {
	__u32 magic;			/* in and out: MDB_KMOD_MAGIC */
	__u32 abi;			/* in: the client's; out: the module's */
	char release[MDB_KMOD_RELEASE_LEN];	/* utsname()->release */
	char version[MDB_KMOD_RELEASE_LEN];	/* first bytes of utsname()->version */
	__u32 linux_version_code;	/* LINUX_VERSION_CODE built against */
	__u32 struct_page_size;		/* sizeof(struct page) */
	__u32 page_size;		/* PAGE_SIZE */
	__u32 max_order;		/* largest buddy order (MAX_PAGE_ORDER) */
	__u32 config;			/* MDB_KMOD_CFG_*, as built and booted */
	__u32 nr_nodes;			/* online nodes; at most MDB_KMOD_MAX_NODES listed */
	__u64 min_pfn;			/* lowest node_start_pfn */
	__u64 end_pfn;			/* highest node_end_pfn, exclusive */
	__u64 free_floor_bytes;		/* alloc kernels refuse below this + their batch */
	__u64 free_bytes;		/* NR_FREE_PAGES now */
	__u64 max_ops_per_request;	/* pfns one request copies at most */
	__u64 default_budget_ns;	/* work per request when budget_ns is 0 */
	struct mdb_kmod_node node[MDB_KMOD_MAX_NODES];
	/* Counters the module could open for the calling task just now. */
	__u32 counters_available;	/* bit i: counter i opened */
	__s32 counter_errno[MDB_KMOD_NR_COUNTERS];	/* -errno where not, else 0 */
	char counter_name[MDB_KMOD_NR_COUNTERS][MDB_KMOD_NAME_LEN];
	char counter_reason[MDB_KMOD_NR_COUNTERS][MDB_KMOD_REASON_LEN];
};

/* req.flags */
#define MDB_KMOD_RUN_COUNTERS	(1U << 0)	/* open and read the counters */

/*
 * What scan/compaction found, per pfn it covered (one pass over a range
 * gives the range's census).  pfns = offline + free_pages + heads + tails +
 * others; slab_pages overlaps heads, tails and others.
 */
struct mdb_kmod_scan {
	__u64 pfns;			/* pfns covered */
	__u64 offline;			/* no online struct page (holes) */
	__u64 free_blocks;		/* PageBuddy heads */
	__u64 free_pages;		/* pages in them: sum of 2^order */
	__u64 heads;			/* large folio (compound) heads */
	__u64 tails;			/* pages in large folios after the head */
	__u64 slab_pages;		/* pages of slab folios, heads and tails too */
	__u64 others;			/* order-0 pages that are not free buddy pages */
	__u64 isolated;			/* LRU folios taken as isolation takes them, put back */
};

struct mdb_kmod_run {
	__u32 magic;			/* MDB_KMOD_MAGIC */
	__u32 abi;			/* MDB_KMOD_ABI */
	__u32 kernel;			/* enum mdb_kmod_kernel */
	__u32 flags;			/* MDB_KMOD_RUN_* */
	/* in */
	__u64 ops;			/* at most this many ops (>= 1) */
	__u64 budget_ns;		/* at most about this much work; 0: default */
	__u64 lo_pfn, hi_pfn;		/* seq, scan: the range, wrapping at hi */
	__u64 pfns;			/* random kernels: user pointer to __u64[nr_pfns] */
	__u64 nr_pfns;
	__u64 pos;			/* in: pfn (seq, scan) or index (random) to start at */
	/* out */
	__u64 next_pos;			/* where the next request continues */
	__u64 ops_done;			/* ops done (scan: pfns covered) */
	__u64 ns;			/* ktime_get_ns() over the timed batches only */
	__u64 skipped;			/* entries not done: offline pfn, not a tail any more */
	__u64 failed;			/* getput: no reference taken; alloc: folio_alloc failed */
	__u64 sink;			/* folded from what was read, so no work is dead */
	struct mdb_kmod_scan scan;	/* scan/compaction only */
	__u64 counter[MDB_KMOD_NR_COUNTERS];	/* valid where counters_valid has bit i */
	__u64 counter_enabled_ns[MDB_KMOD_NR_COUNTERS];
	__u64 counter_running_ns[MDB_KMOD_NR_COUNTERS];
	__u32 counters_valid;		/* bit i: counter[i] counted */
	__u32 counters_scaled;		/* bit i: multiplexed, scaled to enabled time */
	__s32 counter_errno[MDB_KMOD_NR_COUNTERS];	/* -errno where not valid */
	__u32 pad;
	char error[MDB_KMOD_ERROR_LEN];	/* set when the ioctl fails */
};

#define MDB_KMOD_IOC_MAGIC	0xd6
#define MDB_KMOD_IOC_INFO	_IOWR(MDB_KMOD_IOC_MAGIC, 1, struct mdb_kmod_info)
#define MDB_KMOD_IOC_RUN	_IOWR(MDB_KMOD_IOC_MAGIC, 2, struct mdb_kmod_run)

#endif /* MDBENCH_KMOD_H */
