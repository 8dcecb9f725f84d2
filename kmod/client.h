/* SPDX-License-Identifier: GPL-2.0 */
/*
 * client.h - user space's side of the mdbench_kmod module (/dev/mdbench).
 *
 * Open the device, read what the kernel is, run a kernel for N ops (the
 * library loops over the module's bounded requests and sums them), close.
 * Plus what a caller needs to give the module the same pfns the model
 * walks: /proc/kpageflags read into an array, pfns picked from it by kind
 * and shuffled with the suite's generator, and the census of the same
 * array that scan/compaction's counts must equal.
 *
 * Every function that can fail takes a struct mdb_err * last and returns
 * -1 with a one-line reason.  Only libc is used, so a static binary that
 * links this library runs in a bare initramfs.
 */
#ifndef MDB_KMOD_CLIENT_H
#define MDB_KMOD_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "mdbench_kmod.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mdb_kmod {
	int fd;
	struct mdb_kmod_info info;	/* as read at open */
};

/*
 * Opens path (NULL: /dev/mdbench) and reads INFO.  The reason on failure
 * says what to do: load the module, run as root, rebuild the client.
 */
int mdb_kmod_open(struct mdb_kmod *k, const char *path, struct mdb_err *err);
void mdb_kmod_close(struct mdb_kmod *k);
/* Reads INFO again (free memory, counters) into k->info. */
int mdb_kmod_refresh(struct mdb_kmod *k, struct mdb_err *err);

/* "lookup/seq" -> MDB_KMOD_LOOKUP_SEQ; -1 for a name the module lacks. */
int mdb_kmod_kernel_id(const char *name);
/* The name of a kernel id; "?" out of range. */
const char *mdb_kmod_kernel_name(unsigned int id);
/* True for the kernels that walk a pfn array (lookup/random, folio/tail, folio/getput). */
bool mdb_kmod_kernel_takes_pfns(unsigned int id);
/* True for the kernels that walk a range (lookup/seq, scan/compaction). */
bool mdb_kmod_kernel_takes_range(unsigned int id);

struct mdb_kmod_req {
	unsigned int kernel;		/* enum mdb_kmod_kernel */
	uint64_t ops;			/* ops wanted in all (scan: pfns to cover) */
	const uint64_t *pfns;		/* random kernels: the walk, cycled */
	uint64_t nr_pfns;
	uint64_t lo_pfn, hi_pfn;	/* seq, scan; both 0: the module's whole span */
	uint64_t start;			/* first pfn (range) or index (pfns); 0: lo_pfn or 0 */
	uint64_t budget_ns;		/* per request; 0: the module's default */
	bool counters;			/* open and read the hardware counters */
};

struct mdb_kmod_result {
	uint64_t ops, ns, skipped, failed, requests;
	uint64_t next;			/* where a following run continues */
	uint64_t sink;
	struct mdb_kmod_scan scan;
	/* Summed over the requests; valid only if every request counted it. */
	double counter[MDB_KMOD_NR_COUNTERS];
	bool counter_valid[MDB_KMOD_NR_COUNTERS];
	bool counter_scaled[MDB_KMOD_NR_COUNTERS];
	int counter_errno[MDB_KMOD_NR_COUNTERS];	/* -errno of the first failure */
};

/* Runs req->ops ops in as many requests as it takes; sums them into res. */
int mdb_kmod_run(struct mdb_kmod *k, const struct mdb_kmod_req *req,
		 struct mdb_kmod_result *res, struct mdb_err *err);

/*
 * Counter i of a result as text: the value, or "unavailable: <reason>"
 * with the reason the module gave (from INFO) or the errno it returned.
 */
const char *mdb_kmod_counter_text(const struct mdb_kmod *k, const struct mdb_kmod_result *res,
				  unsigned int i, char *buf, size_t len);

/* --- /proc/kpageflags ---------------------------------------------------- */

/* Reads n 64-bit entries of a /proc/kpage* file (path) from pfn start. */
int mdb_kmod_read_kpage(const char *path, uint64_t start, uint64_t n, uint64_t *out,
			struct mdb_err *err);

enum mdb_kmod_pick {
	MDB_KMOD_PICK_ANY,		/* any online pfn: lookup/random */
	MDB_KMOD_PICK_TAIL,		/* a tail of a THP or hugetlb folio: folio/tail */
	MDB_KMOD_PICK_FOLIO,		/* a page of an LRU folio: folio/getput */
};

/* Does one kpageflags entry qualify? */
bool mdb_kmod_pick_ok(enum mdb_kmod_pick pick, uint64_t flags);
/*
 * Picks the pfns whose kpageflags qualify, streaming: feed it the flags in
 * chunks, then done() shuffles (Fisher-Yates with the suite's generator)
 * and says how many.  Keeps a uniform random subset of at most max when
 * more qualify (reservoir sampling), so a TiB machine needs no big array.
 * The same seed and flags give the same walk.
 */
struct mdb_kmod_picker {
	enum mdb_kmod_pick pick;
	uint64_t *out;
	size_t max, nr;
	uint64_t seen, state;
};

void mdb_kmod_pick_init(struct mdb_kmod_picker *p, enum mdb_kmod_pick pick, uint64_t seed,
			uint64_t *out, size_t max);
void mdb_kmod_pick_feed(struct mdb_kmod_picker *p, const uint64_t *flags, uint64_t start,
			uint64_t n);
size_t mdb_kmod_pick_done(struct mdb_kmod_picker *p);
/* Feeds /proc/kpageflags over [lo, hi), a chunk at a time. */
int mdb_kmod_pick_kpageflags(struct mdb_kmod_picker *p, uint64_t lo, uint64_t hi,
			     struct mdb_err *err);

/*
 * The census of kpageflags entries, in scan/compaction's terms: offline
 * (KPF_NOPAGE), free_pages (KPF_BUDDY: every page of a free block),
 * free_blocks (the free runs split into naturally aligned blocks of at most
 * 2^max_order pages, as the buddy allocator merges them), heads
 * (KPF_COMPOUND_HEAD), tails (KPF_COMPOUND_TAIL), slab_pages (KPF_SLAB),
 * others (the rest).
 */
void mdb_kmod_census(const uint64_t *flags, uint64_t start, uint64_t n, unsigned int max_order,
		     struct mdb_kmod_scan *out);

#ifdef __cplusplus
}
#endif

#endif /* MDB_KMOD_CLIENT_H */
