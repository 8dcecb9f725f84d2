// SPDX-License-Identifier: GPL-2.0
/*
 * realkernel.c - the layout "kernel": the suite's kernels run by the
 * mdbench_kmod module on the running kernel's own memmap, beside the
 * modelled layouts.
 *
 * It is not a modelled layout (it is in no layouts.list, has no struct
 * layout_ops, builds no memmap): it is a second source of benchmark
 * instances, asked for with --layout=...,kernel, that drives /dev/mdbench
 * through the client library (kmod/client.h).  mdbench never loads the
 * module; without it, or without root, --layout=kernel is one line and
 * exit 2 before anything runs.
 *
 * What a kernel instance is, so that it sits in one row with the reference:
 *
 *   - its kernels are the suite's kernels the module implements, by name
 *     (mdb_kmod_kernel_id()); a module kernel the suite lacks is not
 *     instantiated, a suite kernel the module lacks neither;
 *   - its mix is the --mix=kpageflags snapshot of this machine, and its RAM
 *     this machine's online memory (pfns /proc/kpageflags does not call
 *     KPF_NOPAGE, the pfns the mix's fractions are of) rounded to the
 *     nearest pageblock (2 MiB, what --ram takes), so that the modelled
 *     layouts run the same mix at the same size with the same seed:
 *     lookup/seq/kernel/mix:kpageflags:HOST/ram:1GiB beside
 *     lookup/seq/page64/mix:kpageflags:HOST/ram:1GiB;
 *   - its time is the module's own (ktime_get_ns() over its batches, less
 *     any time rescheduled), reported through Google Benchmark's manual time,
 *     so the ioctl, the copy of the pfn array and the counters' set-up are
 *     not counted;
 *   - its random walks are pfns picked in user space from /proc/kpageflags
 *     with the suite's generator and the run's seed (the client's picker:
 *     any online pfn, a tail of a THP or hugetlb folio, a page of an LRU
 *     folio; at most REAL_LIST_MAX of them, a uniform subset when more
 *     qualify), right before the benchmark's first call, outside the timing;
 *   - its hardware counters are the module's (kernel work of this task only),
 *     reported per op under the suite's names when every request counted
 *     them, and only those --counters asked for by those names.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "client.h"
#include "mdbench.h"
#include "units.h"

/* Ops per Google Benchmark batch, each one request or more to the module. */
#define REAL_BATCH		4096
#define REAL_BATCH_ALLOC	64	/* the module's own alloc batch */
/* The most pfns the module's random walk holds (allocated whole): a uniform sample beyond. */
#define REAL_LIST_MAX		(1UL << 20)

static const char *const pick_what[] = {
	[MDB_KMOD_PICK_ANY] = "any online pfn",
	[MDB_KMOD_PICK_TAIL] = "a tail page of a THP or hugetlb folio",
	[MDB_KMOD_PICK_FOLIO] = "a page of an LRU folio",
};

struct real_pick {
	bool done;
	uint64_t *pfn;
	size_t nr;
	uint64_t qualifying;	/* pfns that qualified when picked */
	uint64_t seed;
};

struct mdb_real {
	const struct mdb_run *run;
	const char *device;
	struct mdb_kmod k;
	uint64_t online_pfns;
	uint64_t ram_bytes;
	struct real_pick pick[MDB_KMOD_PICK_FOLIO + 1];
	json_t *notes;		/* per kernel: its pfn walk, counters that did not count */
	json_t *snapshot;	/* the kpageflags mix's census beside the module's */
};

static struct mdb_real the_real;

/* --- opening ------------------------------------------------------------ */

/*
 * pfns of [lo, hi) that /proc/kpageflags does not flag KPF_NOPAGE: those the
 * picker of any online pfn finds, told to keep none.
 */
static int count_online(uint64_t lo, uint64_t hi, uint64_t *online, struct mdb_err *err)
{
	struct mdb_kmod_picker p;

	mdb_kmod_pick_init(&p, MDB_KMOD_PICK_ANY, 0, NULL, 0);
	if (mdb_kmod_pick_kpageflags(&p, lo, hi, err))
		return -1;
	*online = p.seen;
	return 0;
}

struct mdb_real *mdb_real_open(const struct mdb_run *run)
{
	struct mdb_real *r = &the_real;
	struct mdb_err err;
	const char *dev = getenv("MDB_KMOD_DEVICE");

	if (r->run)
		return r;
	if (layout_by_name(MDB_REAL_LAYOUT))
		mdb_dief("layouts.list has a layout named '%s', the name of the live kernel here",
			 MDB_REAL_LAYOUT);
	r->device = dev && *dev ? dev : MDB_KMOD_DEVICE;
	if (mdb_kmod_open(&r->k, r->device, &err))
		mdb_dief("--layout=%s: %s", MDB_REAL_LAYOUT, err.msg);
	r->k.info.release[sizeof(r->k.info.release) - 1] = '\0';
	r->k.info.version[sizeof(r->k.info.version) - 1] = '\0';
	if (r->k.info.page_size != MDB_PAGE_SIZE)
		mdb_dief("--layout=%s: the kernel's pages are %u bytes; the suite models %lu",
			 MDB_REAL_LAYOUT, r->k.info.page_size, MDB_PAGE_SIZE);
	if (count_online(r->k.info.min_pfn, r->k.info.end_pfn, &r->online_pfns, &err))
		mdb_dief("--layout=%s: %s", MDB_REAL_LAYOUT, err.msg);
	if (!r->online_pfns)
		mdb_dief("--layout=%s: /proc/kpageflags shows no online pfn in the module's span",
			 MDB_REAL_LAYOUT);
	r->ram_bytes = (r->online_pfns * MDB_PAGE_SIZE + MDB_RAM_STEP / 2) / MDB_RAM_STEP *
		       MDB_RAM_STEP;
	if (!r->ram_bytes)
		r->ram_bytes = MDB_RAM_STEP;
	r->notes = json_object();
	r->run = run;
	return r;
}

void mdb_real_close(struct mdb_real *r)
{
	unsigned int i;

	if (!r)
		return;
	mdb_kmod_close(&r->k);
	for (i = 0; i < sizeof(r->pick) / sizeof(r->pick[0]); i++)
		free(r->pick[i].pfn);
	json_decref(r->notes);
	json_decref(r->snapshot);
	memset(r, 0, sizeof(*r));
}

uint64_t mdb_real_ram_bytes(const struct mdb_real *r)
{
	return r->ram_bytes;
}

const char *mdb_real_release(const struct mdb_real *r)
{
	return r->k.info.release;
}

unsigned int mdb_real_sizeof_page(const struct mdb_real *r)
{
	return r->k.info.struct_page_size;
}

bool mdb_real_has_kernel(const struct mdb_kernel *k)
{
	return k->class != MDB_BASELINE && mdb_kmod_kernel_id(k->name) >= 0;
}

/* --- the snapshot ------------------------------------------------------- */

#define REAL_SNAPSHOT_TRIES	10

/* scan/compaction over the module's whole span once: its census of kinds. */
static int scan_span(struct mdb_real *r, struct mdb_kmod_scan *out, struct mdb_err *err)
{
	struct mdb_kmod_req req = {
		.kernel = MDB_KMOD_SCAN_COMPACTION,
		.ops = r->k.info.end_pfn - r->k.info.min_pfn,
	};
	struct mdb_kmod_result res;

	if (mdb_kmod_run(&r->k, &req, &res, err))
		return -1;
	*out = res.scan;
	out->isolated = 0;	/* what isolation took is no kind */
	return 0;
}

/*
 * The same census of the emulated placement: the mix placed as the modelled
 * layouts place it over their memmap (ram_bytes), counted over the module's
 * span.  Holes are reserved pages there, so a hole counts as an order-0
 * page, which the module's census calls offline.
 */
static int placed_census(const struct mdb_real *r, const struct mix *mix, struct mdb_kmod_scan *s,
			 struct mdb_err *err)
{
	struct mix_plan plan;
	struct mix_block b;

	memset(s, 0, sizeof(*s));
	if (mix_plan_init(&plan, mix, r->ram_bytes >> MDB_PAGE_SHIFT, r->run->cond.opts.seed, err))
		return -1;
	while (mix_plan_next(&plan, &b)) {
		uint64_t n = 1ULL << b.order;

		if (b.pfn < r->k.info.min_pfn || b.pfn >= r->k.info.end_pfn)
			continue;
		s->pfns += n;
		if (b.kind == PK_FREE) {
			s->free_blocks++;
			s->free_pages += n;
		} else if (b.order) {
			s->heads++;
			s->tails += n - 1;
		} else {
			s->others++;
		}
		s->slab_pages += b.kind == PK_SLAB ? n : 0;
	}
	mix_plan_release(&plan);
	return 0;
}

static json_t *census_json(const struct mdb_kmod_scan *s)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "pfns", (json_int_t)s->pfns,
			 "free_blocks", (json_int_t)s->free_blocks,
			 "free_pages", (json_int_t)s->free_pages, "heads", (json_int_t)s->heads,
			 "tails", (json_int_t)s->tails, "slab_pages", (json_int_t)s->slab_pages,
			 "order0_and_holes", (json_int_t)(s->others + s->offline));
}

/*
 * What a kpageflags mix is made of, read raw between the two scans into
 * buffers allocated and touched before the first, so that reading it
 * allocates nothing the scans would see: /proc/kpageflags from pfn 0, and
 * its siblings (mix.c: zoneinfo, buddyinfo, iomem; len SIZE_MAX where one
 * cannot be opened).
 */
#define REAL_PROC_TEXT	(1UL << 20)
static const char *const real_siblings[] = { "zoneinfo", "buddyinfo", "iomem" };
#define REAL_NR_SIBLINGS	(sizeof(real_siblings) / sizeof(real_siblings[0]))

struct real_raw {
	uint64_t *flags, n;
	char *text[REAL_NR_SIBLINGS];
	size_t len[REAL_NR_SIBLINGS];
};

static int read_raw(struct real_raw *raw, struct mdb_err *err)
{
	unsigned int i;

	if (mdb_kmod_read_kpage("/proc/kpageflags", 0, raw->n, raw->flags, err))
		return -1;
	for (i = 0; i < REAL_NR_SIBLINGS; i++) {
		char path[64];
		ssize_t got = 1;
		int fd;

		snprintf(path, sizeof(path), "/proc/%s", real_siblings[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		raw->len[i] = fd < 0 ? SIZE_MAX : 0;
		while (fd >= 0 && got > 0 && raw->len[i] < REAL_PROC_TEXT) {
			got = read(fd, raw->text[i] + raw->len[i], REAL_PROC_TEXT - raw->len[i]);
			raw->len[i] += got > 0 ? (size_t)got : 0;
		}
		if (fd >= 0)
			close(fd);
		if (got < 0 || raw->len[i] == REAL_PROC_TEXT)
			return mdb_errf(err, "%s: %s", path, got < 0 ? strerror(errno) :
					"more than 1 MiB");
	}
	return 0;
}

/* The mix of what read_raw() read: written to a scratch directory, read as the files. */
static int raw_mix(const struct real_raw *raw, struct mix *m, struct mdb_err *err)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], path[PATH_MAX + 16];
	unsigned int i;
	FILE *f;
	int ret = 0;

	snprintf(dir, sizeof(dir), "%s/mdbench-kpf.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return mdb_errf(err, "%s: %s", dir, strerror(errno));
	for (i = 0; i <= REAL_NR_SIBLINGS && !ret; i++) {
		const void *data = i ? raw->text[i - 1] : (const void *)raw->flags;
		size_t len = i ? raw->len[i - 1] : raw->n * sizeof(*raw->flags);

		if (len == SIZE_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, i ? real_siblings[i - 1] : "kpageflags");
		f = fopen(path, "we");
		if (!f || fwrite(data, 1, len, f) != len || fclose(f))
			ret = mdb_errf(err, "%s: cannot write the snapshot", path);
	}
	snprintf(path, sizeof(path), "%s/kpageflags", dir);
	if (!ret)
		ret = mix_from_kpageflags(path, m, err);
	for (i = 0; i <= REAL_NR_SIBLINGS; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, i ? real_siblings[i - 1] : "kpageflags");
		unlink(path);
	}
	rmdir(dir);
	return ret;
}

void mdb_real_snapshot(struct mdb_real *r, struct mix *mix)
{
	struct real_raw raw = { .n = r->k.info.end_pfn };
	struct mdb_kmod_scan a, b, placed;
	bool stable = false;
	struct mdb_err err;
	unsigned int tries, i;
	struct mix m;

	raw.flags = calloc(raw.n, sizeof(*raw.flags));
	for (i = 0; i < REAL_NR_SIBLINGS; i++)
		raw.text[i] = calloc(1, REAL_PROC_TEXT);
	if (!raw.flags || !raw.text[0] || !raw.text[1] || !raw.text[2])
		mdb_dief("--layout=%s: out of memory for the kpageflags snapshot", MDB_REAL_LAYOUT);
	memset(raw.flags, 0xff, raw.n * sizeof(*raw.flags));	/* touched: faulted in now */
	for (i = 0; i < REAL_NR_SIBLINGS; i++)
		memset(raw.text[i], 0xff, REAL_PROC_TEXT);
	for (tries = 1; tries <= REAL_SNAPSHOT_TRIES; tries++) {
		if (scan_span(r, &a, &err) || read_raw(&raw, &err) || scan_span(r, &b, &err))
			mdb_dief("--layout=%s: %s", MDB_REAL_LAYOUT, err.msg);
		stable = !memcmp(&a, &b, sizeof(a));
		if (stable)
			break;
	}
	tries -= tries > REAL_SNAPSHOT_TRIES;
	if (raw_mix(&raw, &m, &err))
		mdb_dief("--mix=kpageflags: %s", err.msg);
	free(raw.flags);
	for (i = 0; i < REAL_NR_SIBLINGS; i++)
		free(raw.text[i]);
	if (placed_census(r, &m, &placed, &err))
		mdb_dief("--mix=kpageflags: %s", err.msg);
	mix_release(mix);
	*mix = m;
	r->snapshot = json_pack("{s:s, s:[I, I], s:I, s:b, s:I, s:o, s:o}",
				"placement", "at the snapshot's pfn positions",
				"span_pfns", (json_int_t)r->k.info.min_pfn,
				(json_int_t)r->k.info.end_pfn,
				"emulated_pfns", (json_int_t)(r->ram_bytes >> MDB_PAGE_SHIFT),
				"stable", stable, "tries", (json_int_t)tries,
				"module", census_json(&a), "placed", census_json(&placed));
}

/* --- the benchmark ------------------------------------------------------ */

static int pick_of(unsigned int id)
{
	switch (id) {
	case MDB_KMOD_LOOKUP_RANDOM:
	case MDB_KMOD_LOOKUP_RANDOM_DEP:
		return MDB_KMOD_PICK_ANY;
	case MDB_KMOD_FOLIO_TAIL:
		return MDB_KMOD_PICK_TAIL;
	case MDB_KMOD_FOLIO_GETPUT:
		return MDB_KMOD_PICK_FOLIO;
	}
	return -1;
}

/* The kernel's notes in the dump: {name: {...}}, made on first use. */
static json_t *kernel_notes(struct mdb_real *r, const char *name)
{
	json_t *o = json_object_get(r->notes, name);

	if (!o) {
		o = json_object();
		json_object_set_new(r->notes, name, o);
	}
	return o;
}

/*
 * The walk of a pick, made once per run (at the first benchmark that needs
 * it, outside its timing).  The seed is the run's, mixed with the pick as
 * bench/pfn_list.c mixes it with its selection.
 */
static const struct real_pick *get_pick(struct mdb_real *r, enum mdb_kmod_pick pick,
					 struct mdb_err *err)
{
	struct real_pick *p = &r->pick[pick];
	struct mdb_kmod_picker picker;

	if (p->done)
		return p;
	p->pfn = malloc(REAL_LIST_MAX * sizeof(*p->pfn));
	if (!p->pfn) {
		mdb_errf(err, "out of memory for the pfn walk");
		return NULL;
	}
	p->seed = r->run->cond.opts.seed ^ (0x6c697374ULL + pick);
	mdb_kmod_pick_init(&picker, pick, p->seed, p->pfn, REAL_LIST_MAX);
	if (mdb_kmod_pick_kpageflags(&picker, r->k.info.min_pfn, r->k.info.end_pfn, err)) {
		free(p->pfn);
		p->pfn = NULL;
		return NULL;
	}
	p->nr = mdb_kmod_pick_done(&picker);
	p->qualifying = picker.seen;
	p->done = true;
	return p;
}

/* Whether the run's --counters asked for module counter i, by its short name. */
static bool counter_wanted(const struct mdb_run *run, unsigned int i)
{
	static const char *const names[] = MDB_KMOD_COUNTER_NAMES;
	unsigned int j;

	for (j = 0; j < run->counters.nr; j++)
		if (!strcmp(run->counters.c[j].name, names[i]))
			return true;
	return false;
}

struct real_sum {
	uint64_t ops, ns, skipped, failed, requests, free_blocks, isolated;
	double counter[MDB_KMOD_NR_COUNTERS];
	bool counter_valid[MDB_KMOD_NR_COUNTERS];
};

static void sum_add(struct real_sum *s, const struct mdb_kmod_result *res, bool first)
{
	unsigned int i;

	s->ops += res->ops;
	s->ns += res->ns;
	s->skipped += res->skipped;
	s->failed += res->failed;
	s->requests += res->requests;
	s->free_blocks += res->scan.free_blocks;
	s->isolated += res->scan.isolated;
	for (i = 0; i < MDB_KMOD_NR_COUNTERS; i++) {
		s->counter_valid[i] = (first || s->counter_valid[i]) && res->counter_valid[i];
		s->counter[i] += res->counter[i];
	}
}

/*
 * A counter the module could open at INFO that did not count in some
 * request (never scheduled on the PMU, multiplexed out): why, in the
 * kernel's notes.  One it could not open at all is in the layout's counters.
 */
static void note_counter(struct mdb_real *r, const char *kernel, const struct mdb_kmod_result *res,
			 unsigned int i)
{
	static const char *const names[] = MDB_KMOD_COUNTER_NAMES;
	json_t *o = kernel_notes(r, kernel), *c = json_object_get(o, "counters_unavailable");
	char text[256];

	if (!c) {
		c = json_object();
		json_object_set_new(o, "counters_unavailable", c);
	}
	if (!json_object_get(c, names[i]))
		json_object_set_new(c, names[i],
				    json_string(mdb_kmod_counter_text(&r->k, res, i, text, sizeof(text))));
}

static void report(struct mdb_state *st, struct mdb_real *r, unsigned int id,
		   const struct real_sum *s)
{
	static const char *const names[] = MDB_KMOD_COUNTER_NAMES;
	unsigned int i;

	mdb_set_items_processed(st, s->ops);
	for (i = 0; i < MDB_KMOD_NR_COUNTERS; i++)
		if (counter_wanted(r->run, i) && s->counter_valid[i])
			mdb_counter(st, names[i], s->counter[i], MDB_COUNTER_PER_ITEM);
	mdb_counter(st, "ops_skipped", (double)s->skipped, MDB_COUNTER_PER_ITEM);
	mdb_counter(st, "ops_failed", (double)s->failed, MDB_COUNTER_PER_ITEM);
	if (id == MDB_KMOD_SCAN_COMPACTION) {
		mdb_counter(st, "free_blocks", (double)s->free_blocks, MDB_COUNTER_PER_ITEM);
		mdb_counter(st, "isolated", (double)s->isolated, MDB_COUNTER_PER_ITEM);
	}
}

/* One Google Benchmark call of a kernel instance (mdb_bench_fn). */
void mdb_real_bench(struct mdb_state *st, void *arg)
{
	const struct mdb_instance *in = arg;
	struct mdb_real *r = &the_real;
	int id = mdb_kmod_kernel_id(in->kernel->name), pick = id < 0 ? -1 : pick_of((unsigned int)id);
	struct mdb_kmod_req req = { .kernel = (unsigned int)id };
	struct mdb_kmod_result res;
	struct real_sum sum = { 0 };
	const struct real_pick *p = NULL;
	struct mdb_err err;
	unsigned int i;
	char msg[MDB_ERR_LEN + 64];
	uint64_t batch;

	if (id < 0 || !r->run) {
		snprintf(msg, sizeof(msg), "%s: not a kernel of mdbench_kmod", in->kernel->name);
		mdb_skip_with_error(st, msg);
		return;
	}
	for (i = 0; i < MDB_KMOD_NR_COUNTERS; i++)
		req.counters |= counter_wanted(r->run, i);
	if (pick >= 0) {
		p = get_pick(r, (enum mdb_kmod_pick)pick, &err);
		if (p) {
			json_object_set_new(kernel_notes(r, in->kernel->name), "pfns",
					    json_pack("{s:s, s:I, s:I, s:I, s:I}", "pick", pick_what[pick],
						      "walked", (json_int_t)p->nr,
						      "qualifying", (json_int_t)p->qualifying,
						      "max", (json_int_t)REAL_LIST_MAX,
						      "seed", (json_int_t)p->seed));
		}
		if (p && !p->nr)
			mdb_errf(&err, "no %s on this machine (/proc/kpageflags)", pick_what[pick]);
		if (!p || !p->nr) {
			snprintf(msg, sizeof(msg), "%s: %s", in->kernel->name, err.msg);
			mdb_skip_with_error(st, msg);
			return;
		}
		req.pfns = p->pfn;
		req.nr_pfns = p->nr;
	}
	batch = id == MDB_KMOD_ALLOC_ORDER0 || id == MDB_KMOD_ALLOC_ORDER9 ? REAL_BATCH_ALLOC :
									      REAL_BATCH;
	while (mdb_keep_running_batch(st, batch)) {
		req.ops = batch;
		if (mdb_kmod_run(&r->k, &req, &res, &err)) {
			mdb_skip_with_error(st, err.msg);
			return;
		}
		mdb_set_iteration_time(st, (double)res.ns * 1e-9);
		for (i = 0; i < MDB_KMOD_NR_COUNTERS; i++)
			if (req.counters && counter_wanted(r->run, i) && !res.counter_valid[i] &&
			    (r->k.info.counters_available & (1U << i)))
				note_counter(r, in->kernel->name, &res, i);
		sum_add(&sum, &res, !sum.requests);
		req.start = res.next;
	}
	report(st, r, (unsigned int)id, &sum);
}

/* --- the dump ----------------------------------------------------------- */

static json_t *config_json(uint32_t cfg)
{
	return json_pack("{s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b}",
			 "lockdep", !!(cfg & MDB_KMOD_CFG_LOCKDEP), "kasan", !!(cfg & MDB_KMOD_CFG_KASAN),
			 "debug_vm", !!(cfg & MDB_KMOD_CFG_DEBUG_VM),
			 "perf_events", !!(cfg & MDB_KMOD_CFG_PERF_EVENTS),
			 "thp", !!(cfg & MDB_KMOD_CFG_THP), "kcsan", !!(cfg & MDB_KMOD_CFG_KCSAN),
			 "preempt_rt", !!(cfg & MDB_KMOD_CFG_PREEMPT_RT),
			 "init_on_alloc", !!(cfg & MDB_KMOD_CFG_INIT_ON_ALLOC));
}

static json_t *nodes_json(const struct mdb_kmod_info *info)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; i < info->nr_nodes && i < MDB_KMOD_MAX_NODES; i++)
		json_array_append_new(a, json_pack("{s:I, s:I, s:I, s:I}",
						   "nid", (json_int_t)info->node[i].nid,
						   "start_pfn", (json_int_t)info->node[i].start_pfn,
						   "end_pfn", (json_int_t)info->node[i].end_pfn,
						   "present_pages",
						   (json_int_t)info->node[i].present_pages));
	return a;
}

/* The module's counters at open: those it could open for this task, and why not the others. */
static json_t *counters_json(const struct mdb_real *r)
{
	static const char *const names[] = MDB_KMOD_COUNTER_NAMES;
	json_t *req = json_array(), *avail = json_array(), *unavail = json_array();
	struct mdb_kmod_result none;
	unsigned int i;
	char text[256];

	memset(&none, 0, sizeof(none));
	for (i = 0; i < MDB_KMOD_NR_COUNTERS; i++) {
		if (counter_wanted(r->run, i))
			json_array_append_new(req, json_string(names[i]));
		if (r->k.info.counters_available & (1U << i)) {
			json_array_append_new(avail, json_string(names[i]));
			continue;
		}
		none.counter_errno[i] = r->k.info.counter_errno[i];
		mdb_kmod_counter_text(&r->k, &none, i, text, sizeof(text));
		json_array_append_new(unavail, json_pack("{s:s, s:s}", "name", names[i], "reason",
							 strncmp(text, "unavailable: ", 13) ? text :
							 text + 13));
	}
	return json_pack("{s:o, s:o, s:o}", "requested", req, "available", avail,
			 "unavailable", unavail);
}

/* The module's kernels the suite has none of: not run, said so. */
static json_t *not_instantiated_json(void)
{
	const struct mdb_kernel *k;
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; i < MDB_KMOD_NR_KERNELS; i++) {
		k = mdb_kernel_find(mdb_kmod_kernel_name(i), layout_reference());
		if (!k)
			json_array_append_new(a, json_string(mdb_kmod_kernel_name(i)));
	}
	return a;
}

json_t *mdb_real_layout_json(const struct mdb_real *r, bool brief)
{
	const struct mdb_kmod_info *info = &r->k.info;
	char ram[32];

	if (brief)
		return json_pack("{s:s, s:b, s:s, s:I, s:n}", "name", MDB_REAL_LAYOUT, "real", 1,
				 "release", info->release,
				 "sizeof_page", (json_int_t)info->struct_page_size, "descriptors");
	mdb_format_size(r->ram_bytes, ram, sizeof(ram));
	return json_pack("{s:s, s:b, s:s, s:s, s:I, s:I, s:n, s:n, s:n, s:I, s:I, s:o, s:s, s:I,"
			 " s:I, s:[I, I], s:o, s:I, s:I, s:I, s:s, s:I, s:I, s:s, s:o, s:O, s:o, s:O}",
			 "name", MDB_REAL_LAYOUT, "real", 1,
			 "release", info->release, "version", info->version,
			 "linux_version_code", (json_int_t)info->linux_version_code,
			 "sizeof_page", (json_int_t)info->struct_page_size,
			 "sizeof_folio", "descriptors", "desc_sizes",
			 "page_size", (json_int_t)info->page_size,
			 "max_order", (json_int_t)info->max_order,
			 "config", config_json(info->config),
			 "device", r->device, "abi", (json_int_t)MDB_KMOD_ABI,
			 "nr_nodes", (json_int_t)info->nr_nodes,
			 "span_pfns", (json_int_t)info->min_pfn, (json_int_t)info->end_pfn,
			 "nodes", nodes_json(info),
			 "online_pfns", (json_int_t)r->online_pfns,
			 "online_bytes", (json_int_t)(r->online_pfns * MDB_PAGE_SIZE),
			 "ram_bytes", (json_int_t)r->ram_bytes, "ram_name", ram,
			 "free_floor_bytes", (json_int_t)info->free_floor_bytes,
			 "free_bytes_at_open", (json_int_t)info->free_bytes,
			 "timing", "the module's own: ktime_get_ns() over its batches less time "
			 "rescheduled, as Google Benchmark manual time; the ioctl, the pfn copy and "
			 "the counters' set-up are not counted",
			 "counters", counters_json(r),
			 "per_kernel", r->notes,
			 "not_instantiated", not_instantiated_json(),
			 "snapshot", r->snapshot ? r->snapshot : json_null());
}
