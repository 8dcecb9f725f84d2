// SPDX-License-Identifier: GPL-2.0
/*
 * mdbench_kmod.c - memdesc-bench's kernels on the running kernel's own memmap.
 *
 * The user-space suite models struct page in three layouts and times the
 * same kernels on each.  This module runs those kernels on the live memmap,
 * through the kernel's own functions (pfn_to_online_page(), page_folio(),
 * folio_try_get(), folio_alloc() ...), so that "how close is the page64
 * model to my kernel?" has a measured answer, and so that the same calls
 * exercise the real descriptors on a kernel carrying memdesc patches.
 *
 * Only the folio/page API of the headers is used: no struct page field is
 * read or written by name except the free-block order (mdb_buddy_order()),
 * which the allocator keeps in page_private() and compaction reads the same
 * way.  Nothing is written to a page the module does not own: the only
 * stores are the reference count moves of folio_try_get()/folio_put() (as
 * any speculative pfn walker makes them) and what folio_alloc()/folio_put()
 * do to the folios the module itself allocates and frees.
 *
 * A request (MDB_KMOD_IOC_RUN) does a bounded amount of work: at most the
 * ops asked for and about budget_ns of batches, cond_resched() between
 * batches, and returns with no reference held and nothing allocated.  User
 * space loops.  The device is root only; the module is never auto-loaded
 * (no alias, no device table): it runs only after an explicit insmod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/memory_hotplug.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/page_ref.h>
#include <linux/pagemap.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <linux/version.h>
#include <linux/vmstat.h>

#include "mdbench_kmod.h"

/* Free memory the alloc kernels leave alone, on top of what a batch takes. */
static unsigned int free_floor_mb = 64;
module_param(free_floor_mb, uint, 0444);
MODULE_PARM_DESC(free_floor_mb, "alloc kernels refuse to run below this much free memory plus one batch (MiB, default 64)");

/* pfns one request copies from user space and walks at most. */
#define MDB_CHUNK		(1U << 16)
/* Ops between two looks at the clock and at need_resched(). */
#define MDB_BATCH		1024U
/* Folios an alloc batch holds before it frees them, newest first. */
#define MDB_ALLOC_BATCH		64U
#define MDB_DEFAULT_BUDGET_NS	(100 * NSEC_PER_MSEC)
#define MDB_MAX_BUDGET_NS	NSEC_PER_SEC

/*
 * The largest order the buddy allocator hands out.  MAX_ORDER_NR_PAGES has
 * meant "pages in the largest block" in every release since 6.1, while
 * MAX_ORDER changed meaning in 6.4 (exclusive -> inclusive) and was renamed
 * MAX_PAGE_ORDER in 6.8, so derive the order from the page count.
 */
#define MDB_MAX_ORDER		ilog2(MAX_ORDER_NR_PAGES)

static const char *const counter_names[] = MDB_KMOD_COUNTER_NAMES;

struct mdb_file {
	struct mutex lock;		/* one request at a time per open file */
	u64 *pfns;			/* MDB_CHUNK pfns copied from user space */
	struct folio *held[MDB_ALLOC_BATCH];
};

/* One request's state, the timed loop's bookkeeping and its results. */
struct mdb_ctx {
	struct mdb_kmod_run *r;
	struct mdb_file *f;
	u64 want;			/* ops still wanted */
	u64 nr;				/* pfns copied into f->pfns */
	u64 deadline;
	u64 paused_ns;			/* inside cond_resched(), not timed */
};

/* --- hardware counters ------------------------------------------------- */

struct mdb_counters {
	struct perf_event *ev[MDB_KMOD_NR_COUNTERS];
	int err[MDB_KMOD_NR_COUNTERS];
	u64 val[MDB_KMOD_NR_COUNTERS];
	u64 enabled[MDB_KMOD_NR_COUNTERS];
	u64 running[MDB_KMOD_NR_COUNTERS];
};

static void counter_attr(struct perf_event_attr *attr, unsigned int i)
{
	static const u64 cache_read_miss =
		(PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_HW_CACHE;
	switch (i) {
	case MDB_KMOD_CYCLES:
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = PERF_COUNT_HW_CPU_CYCLES;
		break;
	case MDB_KMOD_INSTRUCTIONS:
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = PERF_COUNT_HW_INSTRUCTIONS;
		break;
	case MDB_KMOD_L1D_LOAD_MISSES:
		attr->config = PERF_COUNT_HW_CACHE_L1D | cache_read_miss;
		break;
	case MDB_KMOD_LLC_LOAD_MISSES:
		attr->config = PERF_COUNT_HW_CACHE_LL | cache_read_miss;
		break;
	default:
		attr->config = PERF_COUNT_HW_CACHE_DTLB | cache_read_miss;
		break;
	}
	/* The kernels run in the kernel: count only that, only this task. */
	attr->exclude_user = 1;
	attr->exclude_hv = 1;
}

/*
 * Opens every counter for the calling task on any CPU, as KVM opens its
 * guest counters (perf_event_create_kernel_counter(attr, -1, current, ...)):
 * a task counter follows the task across migrations, so the timed loop
 * needs neither pinning nor preemption off.  A counter that cannot be
 * opened keeps its -errno; it is reported, never read as 0.
 */
static void counters_open(struct mdb_counters *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < MDB_KMOD_NR_COUNTERS; i++) {
#ifdef CONFIG_PERF_EVENTS
		struct perf_event_attr attr;
		struct perf_event *ev;

		counter_attr(&attr, i);
		ev = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
		if (IS_ERR(ev))
			c->err[i] = (int)PTR_ERR(ev);
		else
			c->ev[i] = ev;
#else
		c->err[i] = -EOPNOTSUPP;
#endif
	}
}

static void counters_read(struct mdb_counters *c, u64 *val, u64 *enabled, u64 *running)
{
	unsigned int i;

	for (i = 0; i < MDB_KMOD_NR_COUNTERS; i++) {
#ifdef CONFIG_PERF_EVENTS
		if (c->ev[i])
			val[i] = perf_event_read_value(c->ev[i], &enabled[i], &running[i]);
#endif
	}
}

static void counters_close(struct mdb_counters *c)
{
	unsigned int i;

	for (i = 0; i < MDB_KMOD_NR_COUNTERS; i++) {
#ifdef CONFIG_PERF_EVENTS
		if (c->ev[i])
			perf_event_release_kernel(c->ev[i]);
#endif
		c->ev[i] = NULL;
	}
}

/* The difference since the start, scaled where the counter was multiplexed. */
static void counters_result(struct mdb_counters *c, struct mdb_kmod_run *r)
{
	u64 val[MDB_KMOD_NR_COUNTERS], en[MDB_KMOD_NR_COUNTERS], run[MDB_KMOD_NR_COUNTERS];
	unsigned int i;

	counters_read(c, val, en, run);
	for (i = 0; i < MDB_KMOD_NR_COUNTERS; i++) {
		u64 d, de, dr;

		r->counter_errno[i] = c->err[i];
		if (!c->ev[i])
			continue;
		d = val[i] - c->val[i];
		de = en[i] - c->enabled[i];
		dr = run[i] - c->running[i];
		r->counter_enabled_ns[i] = de;
		r->counter_running_ns[i] = dr;
		if (!dr) {
			/* Never reached the PMU: no count, and say so. */
			r->counter_errno[i] = -EBUSY;
			continue;
		}
		if (dr < de) {
			d = mul_u64_u64_div_u64(d, de, dr);
			r->counters_scaled |= 1U << i;
		}
		r->counter[i] = d;
		r->counters_valid |= 1U << i;
	}
}

static const char *counter_reason(int err)
{
	switch (err) {
	case -ENOENT:
		return "no PMU for this event: the CPU or hypervisor exposes no hardware counters";
	case -EOPNOTSUPP:
		return "not supported: no PMU event of this kind, or CONFIG_PERF_EVENTS is off";
	case -EINVAL:
		return "the PMU rejects this event";
	case -EACCES:
	case -EPERM:
		return "refused by a security policy";
	case -EBUSY:
		return "the PMU is busy";
	case -ENODEV:
		return "no such PMU device";
	default:
		return "perf_event_create_kernel_counter() failed";
	}
}

/* --- helpers shared by the kernels ------------------------------------- */

/*
 * The order of a free buddy block, read as compaction reads it with
 * buddy_order_unsafe() (mm/internal.h, not visible to modules): the
 * allocator keeps it in the head's private word, from 6.1 through 7.3.
 * Racy by design: the block may be allocated under us, so callers trust
 * only an order <= MDB_MAX_ORDER and otherwise step one pfn, as compaction
 * does.
 */
static inline unsigned long mdb_buddy_order(const struct page *page)
{
	return data_race(READ_ONCE(page_private(page)));
}

/*
 * The lookup: what the page is, one flag, the reference count, as
 * memory_failure() and stable_page_flags() first look at a pfn (PageBuddy,
 * PageSlab/folio_test_slab, folio_test_anon, PageDirty, page_count()).
 * The answer is folded into one word so that no part of it is dead.  The
 * count is the folio's (page_count()), what page_ref_count() returns on a
 * head and what the suite's page_ref_count() models for a folio's page.
 */
static __always_inline unsigned long lookup_page(struct page *page)
{
	struct folio *folio = page_folio(page);
	unsigned long kind;

	if (PageBuddy(page))
		kind = 1;
	else if (folio_test_slab(folio))
		kind = 2;
	else if (folio_test_anon(folio))
		kind = 3;
	else
		kind = 4;
	return kind | (unsigned long)folio_test_dirty(folio) << 3 |
	       (unsigned long)(unsigned int)folio_ref_count(folio) << 4;
}

/* Between batches: reschedule if asked, and keep that time out of ns. */
static bool batch_end(struct mdb_ctx *c)
{
	u64 now;

	if (need_resched()) {
		u64 t = ktime_get_ns();

		cond_resched();
		c->paused_ns += ktime_get_ns() - t;
	}
	if (fatal_signal_pending(current))
		return false;
	now = ktime_get_ns();
	return now < c->deadline && c->want;
}

static inline u64 batch_len(const struct mdb_ctx *c, u64 batch)
{
	return min_t(u64, c->want, batch);
}

/* --- the kernels -------------------------------------------------------- */

/*
 * lookup/seq: every pfn of [lo_pfn, hi_pfn) in order, wrapping, as
 * kpageflags_read() walks it: pfn_to_online_page(), then lookup_page().
 * An op is a pfn visited; one with no online page (a hole) is also counted
 * in skipped, as in every kernel: ops are entries walked, skipped and
 * failed say how many of them did not do the whole work.
 */
static void k_lookup_seq(struct mdb_ctx *c)
{
	struct mdb_kmod_run *r = c->r;
	unsigned long pfn = r->pos, sink = 0;

	do {
		u64 n = batch_len(c, MDB_BATCH), i;

		for (i = 0; i < n; i++) {
			struct page *page = pfn_to_online_page(pfn);

			if (page)
				sink += lookup_page(page);
			else
				r->skipped++;
			if (++pfn >= r->hi_pfn)
				pfn = r->lo_pfn;
		}
		c->want -= n;
		r->ops_done += n;
	} while (batch_end(c));
	r->next_pos = pfn;
	r->sink = sink;
}

/*
 * lookup/random: the same lookup for each pfn of the user's array in turn,
 * each independent of the last, so the CPU overlaps their misses: a pfn
 * arriving alone, as in memory_failure(pfn).
 */
static void k_lookup_random(struct mdb_ctx *c)
{
	struct mdb_kmod_run *r = c->r;
	const u64 *pfns = c->f->pfns;
	unsigned long sink = 0;
	u64 i = 0;

	do {
		u64 end = i + batch_len(c, c->nr - i);

		end = min_t(u64, end, i + MDB_BATCH);
		c->want -= end - i;
		r->ops_done += end - i;
		for (; i < end; i++) {
			struct page *page = pfn_to_online_page(pfns[i]);

			if (page)
				sink += lookup_page(page);
			else
				r->skipped++;
		}
	} while (i < c->nr && batch_end(c));
	r->next_pos = r->pos + i;
	r->sink = sink;
}

/*
 * lookup/random-dep: the same pfns, latency-bound.  The index of the next
 * pfn is i + 1 + (answer & zero), where answer is what lookup_page() loaded
 * from the memmap and zero is a 0 the compiler cannot see (hidden behind
 * OPTIMIZER_HIDE_VAR()).  The walk is the same as lookup/random's, but the
 * address of the next pfn now depends on the data of the previous lookup,
 * so the CPU cannot issue the next miss before the last one returns: one
 * full memory latency per op.  (An "& 0" would be folded by the compiler,
 * and an index the CPU can compute early is no dependency at all.)
 */
static void k_lookup_random_dep(struct mdb_ctx *c)
{
	struct mdb_kmod_run *r = c->r;
	const u64 *pfns = c->f->pfns;
	unsigned long sink = 0, zero = 0;
	u64 i = 0, done = 0;

	OPTIMIZER_HIDE_VAR(zero);
	do {
		u64 n = min_t(u64, batch_len(c, c->nr - done), MDB_BATCH), k;

		for (k = 0; k < n; k++) {
			struct page *page = pfn_to_online_page(pfns[i]);
			unsigned long v = 0;

			if (page)
				v = lookup_page(page);
			else
				r->skipped++;
			sink += v;
			i += 1 + (v & zero);
			if (i >= c->nr)
				i = 0;
		}
		done += n;
		c->want -= n;
		r->ops_done += n;
	} while (done < c->nr && batch_end(c));
	r->next_pos = r->pos + done;
	r->sink = sink;
}

/*
 * folio/tail: from a tail page to its folio and the folio's first field
 * read by rmap and the page cache: page_folio() then folio_mapping(), as a
 * PTE-mapped large folio is looked up in follow_page_pte(), with a
 * reference held across the lookup (tail_folio_get()), whose atomic get and
 * put are timed with it.  The user's pfns were tails when it picked them;
 * one that is not a tail now (the folio was split or freed) is counted in
 * skipped and not looked up.
 */
/*
 * The folio of a tail page with a reference held, or NULL: without one the
 * folio may be split or freed under folio_mapping().  As
 * page_idle_get_folio() (mm/page_idle.c): folio_try_get(), then check that
 * the page still belongs to that folio.
 */
static struct folio *tail_folio_get(struct page *page)
{
	struct folio *folio = page_folio(page);

	if (!folio_try_get(folio))
		return NULL;
	if (unlikely(page_folio(page) != folio)) {
		folio_put(folio);
		return NULL;
	}
	return folio;
}

static void k_folio_tail(struct mdb_ctx *c)
{
	struct mdb_kmod_run *r = c->r;
	const u64 *pfns = c->f->pfns;
	struct folio *folio;
	unsigned long sink = 0;
	u64 i = 0;

	do {
		u64 end = min_t(u64, i + batch_len(c, c->nr - i), i + MDB_BATCH);

		c->want -= end - i;
		r->ops_done += end - i;
		for (; i < end; i++) {
			struct page *page = pfn_to_online_page(pfns[i]);

			if (!page || !PageTail(page)) {
				r->skipped++;
				continue;
			}
			folio = tail_folio_get(page);
			if (!folio) {
				r->skipped++;
				continue;
			}
			sink += (unsigned long)folio_mapping(folio);
			folio_put(folio);
		}
	} while (i < c->nr && batch_end(c));
	r->next_pos = r->pos + i;
	r->sink = sink;
}

/*
 * folio/getput: take and drop a reference on the folio of a pfn, as a
 * pfn walker does it in page_idle_get_folio() (mm/page_idle.c): only an
 * LRU folio, folio_try_get() (fails on a free or frozen folio), then check
 * that the page still belongs to that folio and it is still on the LRU,
 * as every speculative get must, and folio_put().  A failed get, or a
 * folio that changed, is counted in failed.  Leaves out the page_idle
 * work itself; GUP-fast's try_grab_folio() and filemap_get_entry()'s
 * folio_try_get() move the same count.
 */
static void k_folio_getput(struct mdb_ctx *c)
{
	struct mdb_kmod_run *r = c->r;
	const u64 *pfns = c->f->pfns;
	u64 i = 0;

	do {
		u64 end = min_t(u64, i + batch_len(c, c->nr - i), i + MDB_BATCH);

		c->want -= end - i;
		r->ops_done += end - i;
		for (; i < end; i++) {
			struct page *page = pfn_to_online_page(pfns[i]);
			struct folio *folio;

			if (!page) {
				r->skipped++;
				continue;
			}
			folio = page_folio(page);
			if (!folio_test_lru(folio) || !folio_try_get(folio)) {
				r->failed++;
				continue;
			}
			if (unlikely(page_folio(page) != folio || !folio_test_lru(folio)))
				r->failed++;
			folio_put(folio);
		}
	} while (i < c->nr && batch_end(c));
	r->next_pos = r->pos + i;
}

/*
 * folio_mapcount(): inline since 6.9; before, out of line and not exported
 * to modules.  A small folio's is its _mapcount; an older kernel's large
 * folio reports its reference count less one, so that the pinned-anon
 * check below never refuses it (that check needs the rmap counts).
 */
static __always_inline int mdb_folio_mapcount(struct folio *folio)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	return folio_mapcount(folio);
#else
	if (!folio_test_large(folio))
		return atomic_read(&folio->_mapcount) + 1;
	return folio_ref_count(folio) - 1;
#endif
}

/*
 * isolate_migratepages_block()'s take of a small LRU folio, as the suite's
 * scan/compaction does it (bench/scan.c), then put back as that function's
 * own "became large under us" path puts a folio back: PageLRU,
 * folio_get_nontail_page() (folio_try_get()), folio_mapping() and the
 * pinned-anon check, folio_test_lru(), folio_test_dirty(),
 * folio_test_clear_lru(), folio_lruvec()'s read of the memcg,
 * folio_nr_pages(); then folio_set_lru() and folio_put().  The lru_lock
 * and lruvec_del_folio() are left out here as in the suite's scan: a folio
 * is never off its list, so the live LRU is left as it was.
 */
static __always_inline bool scan_isolate(struct page *page, struct folio *folio)
{
	struct address_space *mapping;
	struct mem_cgroup *memcg;
	bool dirty;

	if (!PageLRU(page) || !folio_try_get(folio))
		return false;
	if (unlikely(page_folio(page) != folio))
		goto put;
	mapping = folio_mapping(folio);
	if (!mapping && folio_ref_count(folio) - 1 > mdb_folio_mapcount(folio))
		goto put;
	if (!folio_test_lru(folio))
		goto put;
	dirty = folio_test_dirty(folio);
	OPTIMIZER_HIDE_VAR(dirty);
	if (!folio_test_clear_lru(folio))
		goto put;
	memcg = folio_memcg(folio);
	OPTIMIZER_HIDE_VAR(memcg);
	folio_set_lru(folio);
	folio_put(folio);
	return true;
put:
	folio_put(folio);
	return false;
}

/*
 * One step of the compaction scan, as isolate_migratepages_block()
 * (mm/compaction.c) takes it: a free buddy block skipped by its order
 * (PageBuddy, buddy_order_unsafe()), a large folio by its size
 * (PageCompound, compound_order()) when it is of the compaction's order
 * (a THP's: pageblock_order) or more, a smaller LRU folio isolated and put
 * back (scan_isolate()), otherwise one pfn.  Leaves out hugetlb
 * dissolution and the pageblock skip bits.  A gigantic folio (more pages
 * than the largest buddy block) is walked page by page, as compaction does;
 * so is a tail landed on, which can only happen if the folio changed.
 * Counts what it found, for the census that the test compares with
 * /proc/kpageflags.
 */
static __always_inline unsigned long scan_step(unsigned long pfn, struct mdb_kmod_scan *s)
{
	struct page *page = pfn_to_online_page(pfn);
	unsigned long order, nr;
	struct folio *folio;
	bool slab;

	if (!page) {
		s->offline++;
		return 1;
	}
	if (PageBuddy(page)) {
		order = mdb_buddy_order(page);
		if (order <= MDB_MAX_ORDER) {
			s->free_blocks++;
			s->free_pages += 1UL << order;
			return 1UL << order;
		}
		/* Allocated under us: the order is gone, step one. */
		s->others++;
		return 1;
	}
	folio = page_folio(page);
	slab = folio_test_slab(folio);
	if (!folio_test_large(folio)) {
		s->others++;
		s->slab_pages += slab;
		s->isolated += !slab && scan_isolate(page, folio);
		return 1;
	}
	if (folio_page(folio, 0) != page) {
		s->tails++;
		s->slab_pages += slab;
		return 1;
	}
	s->heads++;
	nr = folio_nr_pages(folio);
	if (nr > MAX_ORDER_NR_PAGES || !is_power_of_2(nr)) {
		s->slab_pages += slab;
		return 1;
	}
	s->tails += nr - 1;
	s->slab_pages += slab ? nr : 0;
	if (!slab && nr < (1UL << pageblock_order))
		s->isolated += scan_isolate(page, folio);
	return nr;
}

/*
 * scan/compaction: scan_step() from pos over [lo_pfn, hi_pfn), wrapping.
 * An op is a pfn covered, as in the suite; a block that crosses the end of
 * the last batch counts whole.
 */
static void k_scan(struct mdb_ctx *c)
{
	struct mdb_kmod_run *r = c->r;
	unsigned long pfn = r->pos;

	do {
		u64 target = batch_len(c, MDB_BATCH), covered = 0;

		while (covered < target) {
			unsigned long step = scan_step(pfn, &r->scan);

			covered += step;
			pfn += step;
			if (pfn >= r->hi_pfn)
				pfn = r->lo_pfn;
		}
		c->want -= min(c->want, covered);
		r->ops_done += covered;
	} while (batch_end(c));
	r->scan.pfns = r->ops_done;
	r->next_pos = pfn;
}

static unsigned long free_pages_now(void)
{
	return global_zone_page_state(NR_FREE_PAGES);
}

/*
 * alloc/order0, alloc/order9: folio_alloc() then folio_put(), in batches
 * that take up to MDB_ALLOC_BATCH folios and free them newest first, as the
 * suite does (the pcp lists are LIFO).  The kernel's own path: rmqueue(),
 * prep_new_page(), prep_compound_page() for order 9, and on a memdesc
 * kernel the allocation of the folio descriptor too: the real double
 * allocation.  __GFP_NORETRY | __GFP_NOWARN: a failure is counted, never
 * fought with reclaim.  Refuses below free_floor_mb plus one batch of free
 * memory, checked before every batch.
 */
static int k_alloc(struct mdb_ctx *c, unsigned int order)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN;
	unsigned long floor = ((unsigned long)free_floor_mb << (20 - PAGE_SHIFT)) +
			      (MDB_ALLOC_BATCH << order);
	struct mdb_kmod_run *r = c->r;
	struct folio **held = c->f->held;

	do {
		u64 n = batch_len(c, MDB_ALLOC_BATCH), got;
		unsigned long avail = free_pages_now();

		if (avail < floor) {
			if (r->ops_done)
				break;
			snprintf(r->error, sizeof(r->error),
				 "%lu MiB free, below the floor of %lu MiB (free_floor_mb=%u + one batch)",
				 avail >> (20 - PAGE_SHIFT), floor >> (20 - PAGE_SHIFT),
				 free_floor_mb);
			return -ENOMEM;
		}
		for (got = 0; got < n; got++) {
			held[got] = folio_alloc(gfp, order);
			if (!held[got]) {
				r->failed++;
				break;
			}
		}
		c->want -= got;
		r->ops_done += got;
		while (got)
			folio_put(held[--got]);
		if (r->failed)
			break;
	} while (batch_end(c));
	if (r->failed && !r->ops_done) {
		snprintf(r->error, sizeof(r->error),
			 "folio_alloc(order %u) failed: no free block of that order (memory too fragmented)",
			 order);
		return -ENOMEM;
	}
	return 0;
}

/* --- requests ------------------------------------------------------------ */

static bool kernel_takes_pfns(u32 kernel)
{
	switch (kernel) {
	case MDB_KMOD_LOOKUP_RANDOM:
	case MDB_KMOD_LOOKUP_RANDOM_DEP:
	case MDB_KMOD_FOLIO_TAIL:
	case MDB_KMOD_FOLIO_GETPUT:
		return true;
	default:
		return false;
	}
}

static bool kernel_takes_range(u32 kernel)
{
	return kernel == MDB_KMOD_LOOKUP_SEQ || kernel == MDB_KMOD_SCAN_COMPACTION;
}

static int bad_request(struct mdb_kmod_run *r, const char *why)
{
	strscpy(r->error, why, sizeof(r->error));
	return -EINVAL;
}

/* [lo, hi): from the first online node's start pfn to the last one's end. */
static void nodes_span(u64 *lo, u64 *hi)
{
	int nid;

	*lo = U64_MAX;
	*hi = 0;
	for_each_online_node(nid) {
		*lo = min_t(u64, *lo, node_start_pfn(nid));
		*hi = max_t(u64, *hi, node_end_pfn(nid));
	}
}

/* Checks the request and copies the slice of pfns it walks. */
static int prepare(struct mdb_ctx *c)
{
	struct mdb_kmod_run *r = c->r;
	const u64 __user *up;

	if (r->magic != MDB_KMOD_MAGIC || r->abi != MDB_KMOD_ABI) {
		snprintf(r->error, sizeof(r->error),
			 "ABI mismatch: the module speaks abi %u, the client %u; rebuild one of them",
			 MDB_KMOD_ABI, r->abi);
		return -EPROTO;
	}
	if (r->kernel >= MDB_KMOD_NR_KERNELS)
		return bad_request(r, "no such kernel");
	if (!r->ops)
		return bad_request(r, "ops must be at least 1");
	if (r->flags & ~MDB_KMOD_RUN_COUNTERS)
		return bad_request(r, "unknown flags");
	c->want = r->ops;
	if (kernel_takes_range(r->kernel)) {
		u64 lo, hi;

		if (r->lo_pfn >= r->hi_pfn || r->pos < r->lo_pfn || r->pos >= r->hi_pfn)
			return bad_request(r, "need lo_pfn <= pos < hi_pfn");
		if (r->hi_pfn - r->lo_pfn > (1ULL << 40))
			return bad_request(r, "pfn range larger than 4 PiB");
		nodes_span(&lo, &hi);
		if (r->lo_pfn < lo || r->hi_pfn > hi)
			return bad_request(r, "pfn range outside the online nodes' span");
	}
	if (!kernel_takes_pfns(r->kernel))
		return 0;
	if (!r->nr_pfns || !r->pfns || r->pos >= r->nr_pfns)
		return bad_request(r, "need a pfn array and pos < nr_pfns");
	/* up + pos below must not wrap: the whole array lies in the address space. */
	if (r->nr_pfns > (U64_MAX - r->pfns) / sizeof(u64))
		return bad_request(r, "pfn array wraps the address space");
	c->nr = min3((u64)MDB_CHUNK, r->nr_pfns - r->pos, r->ops);
	up = u64_to_user_ptr(r->pfns);
	if (copy_from_user(c->f->pfns, up + r->pos, c->nr * sizeof(u64))) {
		strscpy(r->error, "cannot read the pfn array", sizeof(r->error));
		return -EFAULT;
	}
	return 0;
}

static int run_kernel(struct mdb_ctx *c)
{
	switch (c->r->kernel) {
	case MDB_KMOD_LOOKUP_SEQ:
		k_lookup_seq(c);
		return 0;
	case MDB_KMOD_LOOKUP_RANDOM:
		k_lookup_random(c);
		return 0;
	case MDB_KMOD_LOOKUP_RANDOM_DEP:
		k_lookup_random_dep(c);
		return 0;
	case MDB_KMOD_FOLIO_TAIL:
		k_folio_tail(c);
		return 0;
	case MDB_KMOD_FOLIO_GETPUT:
		k_folio_getput(c);
		return 0;
	case MDB_KMOD_SCAN_COMPACTION:
		k_scan(c);
		return 0;
	case MDB_KMOD_ALLOC_ORDER0:
		return k_alloc(c, 0);
	default:
		return k_alloc(c, 9);
	}
}

static long do_run(struct mdb_file *f, struct mdb_kmod_run __user *arg)
{
	struct mdb_counters *cnt = NULL;
	struct mdb_kmod_run *r;
	struct mdb_ctx c = { .f = f };
	u64 budget, t0;
	int ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	if (copy_from_user(r, arg, sizeof(*r))) {
		kfree(r);
		return -EFAULT;
	}
	/* Outputs start clean whatever user space left in them. */
	memset((u8 *)r + offsetof(struct mdb_kmod_run, next_pos), 0,
	       sizeof(*r) - offsetof(struct mdb_kmod_run, next_pos));
	c.r = r;
	ret = prepare(&c);
	if (ret)
		goto out;

	if (r->flags & MDB_KMOD_RUN_COUNTERS) {
		cnt = kzalloc(sizeof(*cnt), GFP_KERNEL);
		if (!cnt) {
			ret = -ENOMEM;
			goto out;
		}
		counters_open(cnt);
		counters_read(cnt, cnt->val, cnt->enabled, cnt->running);
	}
	budget = r->budget_ns ? min_t(u64, r->budget_ns, MDB_MAX_BUDGET_NS) : MDB_DEFAULT_BUDGET_NS;
	t0 = ktime_get_ns();
	c.deadline = t0 + budget;
	ret = run_kernel(&c);
	r->ns = ktime_get_ns() - t0 - c.paused_ns;
	if (cnt) {
		counters_result(cnt, r);
		counters_close(cnt);
		kfree(cnt);
	}
	if (!ret && fatal_signal_pending(current))
		ret = -EINTR;
out:
	if (copy_to_user(arg, r, sizeof(*r)))
		ret = -EFAULT;
	kfree(r);
	return ret;
}

static void fill_nodes(struct mdb_kmod_info *info)
{
	u64 lo = U64_MAX, hi = 0;
	unsigned int n = 0;
	int nid;

	for_each_online_node(nid) {
		u64 start = node_start_pfn(nid), end = node_end_pfn(nid);

		if (n < MDB_KMOD_MAX_NODES) {
			info->node[n].nid = nid;
			info->node[n].start_pfn = start;
			info->node[n].end_pfn = end;
			info->node[n].present_pages = node_present_pages(nid);
		}
		n++;
		lo = min(lo, start);
		hi = max(hi, end);
	}
	info->nr_nodes = n;
	info->min_pfn = n ? lo : 0;
	info->end_pfn = hi;
}

static u32 config_bits(void)
{
	return (IS_ENABLED(CONFIG_PROVE_LOCKING) ? MDB_KMOD_CFG_LOCKDEP : 0) |
	       (IS_ENABLED(CONFIG_KASAN) ? MDB_KMOD_CFG_KASAN : 0) |
	       (IS_ENABLED(CONFIG_DEBUG_VM) ? MDB_KMOD_CFG_DEBUG_VM : 0) |
	       (IS_ENABLED(CONFIG_PERF_EVENTS) ? MDB_KMOD_CFG_PERF_EVENTS : 0) |
	       (IS_ENABLED(CONFIG_TRANSPARENT_HUGEPAGE) ? MDB_KMOD_CFG_THP : 0) |
	       (IS_ENABLED(CONFIG_KCSAN) ? MDB_KMOD_CFG_KCSAN : 0) |
	       (IS_ENABLED(CONFIG_PREEMPT_RT) ? MDB_KMOD_CFG_PREEMPT_RT : 0) |
	       (want_init_on_alloc(GFP_KERNEL) ? MDB_KMOD_CFG_INIT_ON_ALLOC : 0);
}

static long do_info(struct mdb_kmod_info __user *arg)
{
	struct mdb_counters *cnt;
	struct mdb_kmod_info *info;
	unsigned int i;
	long ret = 0;
	u32 abi;

	if (get_user(abi, &arg->abi))
		return -EFAULT;
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	cnt = kzalloc(sizeof(*cnt), GFP_KERNEL);
	if (!info || !cnt) {
		ret = -ENOMEM;
		goto out;
	}
	info->magic = MDB_KMOD_MAGIC;
	info->abi = MDB_KMOD_ABI;
	strscpy(info->release, init_utsname()->release, sizeof(info->release));
	strscpy(info->version, init_utsname()->version, sizeof(info->version));
	info->linux_version_code = LINUX_VERSION_CODE;
	info->struct_page_size = sizeof(struct page);
	info->page_size = PAGE_SIZE;
	info->max_order = MDB_MAX_ORDER;
	info->config = config_bits();
	fill_nodes(info);
	info->free_floor_bytes = (u64)free_floor_mb << 20;
	info->free_bytes = (u64)free_pages_now() << PAGE_SHIFT;
	info->max_ops_per_request = MDB_CHUNK;
	info->default_budget_ns = MDB_DEFAULT_BUDGET_NS;

	/* Probe by opening each counter for this task, as RUN will. */
	counters_open(cnt);
	for (i = 0; i < MDB_KMOD_NR_COUNTERS; i++) {
		strscpy(info->counter_name[i], counter_names[i], MDB_KMOD_NAME_LEN);
		info->counter_errno[i] = cnt->err[i];
		if (cnt->ev[i])
			info->counters_available |= 1U << i;
		else
			strscpy(info->counter_reason[i], counter_reason(cnt->err[i]),
				MDB_KMOD_REASON_LEN);
	}
	counters_close(cnt);
	/* An old client still gets the module's abi back, to say what is wrong. */
	if (copy_to_user(arg, info, sizeof(*info)))
		ret = -EFAULT;
	else if (abi != MDB_KMOD_ABI)
		ret = -EPROTO;
out:
	kfree(cnt);
	kfree(info);
	return ret;
}

/* --- the device ------------------------------------------------------------ */

static int mdb_open(struct inode *inode, struct file *file)
{
	struct mdb_file *f;

	/* The node is 0600 root; a process with the fd passed still needs this. */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->pfns = kvmalloc_array(MDB_CHUNK, sizeof(u64), GFP_KERNEL);
	if (!f->pfns) {
		kfree(f);
		return -ENOMEM;
	}
	mutex_init(&f->lock);
	file->private_data = f;
	return 0;
}

static int mdb_release(struct inode *inode, struct file *file)
{
	struct mdb_file *f = file->private_data;

	mutex_destroy(&f->lock);
	kvfree(f->pfns);
	kfree(f);
	return 0;
}

static long mdb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct mdb_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	/*
	 * Checked at each call, not only at open: an fd passed over
	 * SCM_RIGHTS, or kept across a drop of privileges, must not keep
	 * reading the memmap and counting kernel-mode events.
	 */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	switch (cmd) {
	case MDB_KMOD_IOC_INFO:
		return do_info(uarg);
	case MDB_KMOD_IOC_RUN:
		/* A signal while waiting: the call is restarted, or EINTR if it may not be. */
		if (mutex_lock_interruptible(&f->lock))
			return -ERESTARTSYS;
		ret = do_run(f, uarg);
		mutex_unlock(&f->lock);
		return ret;
	default:
		return -ENOTTY;
	}
}

static const struct file_operations mdb_fops = {
	.owner		= THIS_MODULE,
	.open		= mdb_open,
	.release	= mdb_release,
	.unlocked_ioctl	= mdb_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice mdb_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "mdbench",
	.fops	= &mdb_fops,
	.mode	= 0600,
};

static int __init mdb_init(void)
{
	/* The ABI is the same bytes on every 64-bit architecture. */
	BUILD_BUG_ON(sizeof(struct mdb_kmod_info) != 1360);
	BUILD_BUG_ON(sizeof(struct mdb_kmod_run) != 504);
	BUILD_BUG_ON(ARRAY_SIZE(counter_names) != MDB_KMOD_NR_COUNTERS);
	return misc_register(&mdb_dev);
}

static void __exit mdb_exit(void)
{
	misc_deregister(&mdb_dev);
}

module_init(mdb_init);
module_exit(mdb_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("memdesc-bench");
MODULE_DESCRIPTION("memdesc-bench kernels on the running kernel's memmap");
