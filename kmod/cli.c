// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - mdbench-kmod, which drives the mdbench_kmod module from the command line.
 *
 * Until mdbench records the module's results as a layout of its own, this
 * is how a lab user runs the kernels on a live kernel, and it is what the
 * qemu test runs in its guest (linked statically, it needs only the
 * initramfs).  Output is one record per line: a type word, then key=value
 * pairs; a value with spaces is the last, in double quotes.
 *
 *   info       the kernel, its pfn span, the counters the module can open
 *   run        the kernels for --ops ops each, the random ones on pfns
 *              picked from /proc/kpageflags with --seed
 *   census     scan/compaction over the whole span beside /proc/kpageflags
 *              and /proc/buddyinfo, read between two scans that agree
 *   refcheck   folio/getput and folio/tail on this process's own pages,
 *              then unmap them: none may stay in use (no reference leaked)
 *   deny       open the device as uid 65534, and as root without
 *              CAP_SYS_ADMIN: both must be refused
 *
 * Exit status: 0 done, 1 a kernel or a check failed, 2 bad usage or no
 * module (one line on stderr).
 */
#define _GNU_SOURCE		/* sched_setaffinity, sched_getcpu */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/kernel-page-flags.h>

#include "client.h"

#define PROG		"mdbench-kmod"
#define KPF(b)		(1ULL << KPF_##b)

static const char usage_text[] =
	"usage: " PROG " [--device=PATH] COMMAND [OPTIONS]\n"
	"  info\n"
	"  run [--kernel=NAME]... [--ops=N] [--reps=N] [--seed=N] [--pfns=N]\n"
	"      [--budget-ms=N] [--counters] [--make-thp]\n"
	"  census [--tries=N]\n"
	"  refcheck [--ops=N]\n"
	"  deny\n"
	"kernels: lookup/seq lookup/random lookup/random-dep folio/tail folio/getput\n"
	"         scan/compaction alloc/order0 alloc/order9\n";

struct opts {
	const char *device;
	unsigned int kernels[MDB_KMOD_NR_KERNELS];
	unsigned int nr_kernels;
	uint64_t ops, reps, seed, pfns, budget_ms, tries;
	int ops_set;
	int counters, make_thp;
};

static void fail(const struct mdb_err *err)
{
	fprintf(stderr, PROG ": %s\n", err->msg);
	exit(2);
}

static void bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (try --help)\n");
	exit(2);
}

/* Decimal digits only, the whole string, min..max; else one line and exit 2. */
static void parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, const char *what)
{
	uint64_t v = 0;
	const char *p;

	for (p = s; *p; p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			break;
		v = v * 10 + d;
	}
	if (!*s || *p)
		bad_usage("%s wants a decimal number", what);
	if (v < min || v > max) {
		fprintf(stderr, PROG ": %s must be %llu..%llu, not %s\n", what,
			(unsigned long long)min, (unsigned long long)max, s);
		exit(2);
	}
	*out = v;
}

static void open_dev(struct mdb_kmod *k, const struct opts *o)
{
	struct mdb_err err;

	if (mdb_kmod_open(k, o->device, &err))
		fail(&err);
}

/* --- info ------------------------------------------------------------------ */

static void print_config(unsigned int cfg)
{
	static const char *const names[] = {
		"lockdep", "kasan", "debug_vm", "perf_events", "thp", "kcsan", "preempt_rt",
		"init_on_alloc",
	};
	unsigned int i, n = 0;

	printf(" config=");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (cfg & (1U << i))
			printf("%s%s", n++ ? "," : "", names[i]);
	if (!n)
		printf("none");
}

static int cmd_info(const struct opts *o)
{
	struct mdb_kmod k;
	const struct mdb_kmod_info *in = &k.info;
	unsigned int i;

	open_dev(&k, o);
	printf("info release=%.*s abi=%u version_code=%u struct_page=%u page_size=%u max_order=%u",
	       MDB_KMOD_RELEASE_LEN, in->release, in->abi, in->linux_version_code,
	       in->struct_page_size, in->page_size, in->max_order);
	printf(" nodes=%u min_pfn=%llu end_pfn=%llu free_mib=%llu floor_mib=%llu",
	       in->nr_nodes, (unsigned long long)in->min_pfn, (unsigned long long)in->end_pfn,
	       (unsigned long long)(in->free_bytes >> 20),
	       (unsigned long long)(in->free_floor_bytes >> 20));
	print_config(in->config);
	printf("\n");
	for (i = 0; i < in->nr_nodes && i < MDB_KMOD_MAX_NODES; i++)
		printf("node nid=%u start_pfn=%llu end_pfn=%llu present_pages=%llu\n",
		       in->node[i].nid, (unsigned long long)in->node[i].start_pfn,
		       (unsigned long long)in->node[i].end_pfn,
		       (unsigned long long)in->node[i].present_pages);
	for (i = 0; i < MDB_KMOD_NR_COUNTERS; i++) {
		if (in->counters_available & (1U << i))
			printf("counter name=%.*s available=1\n", MDB_KMOD_NAME_LEN, in->counter_name[i]);
		else
			printf("counter name=%.*s available=0 errno=%d reason=\"%.*s\"\n",
			       MDB_KMOD_NAME_LEN, in->counter_name[i], in->counter_errno[i],
			       MDB_KMOD_REASON_LEN, in->counter_reason[i]);
	}
	mdb_kmod_close(&k);
	return 0;
}

/* --- run ------------------------------------------------------------------- */

/*
 * Anonymous memory with MADV_HUGEPAGE, touched: THPs whose tails folio/tail
 * can walk where the machine has no large folio of its own yet.  Kept until
 * the process exits.  Returns the pages' count, 0 if mmap failed.
 */
static char *thp_region(size_t *len)
{
	size_t size = 8UL << 20, align = 2UL << 20, i;
	char *p = mmap(NULL, size + align, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	madvise(p, size / 2, MADV_HUGEPAGE);
	madvise(p + size / 2, size / 2, MADV_NOHUGEPAGE);
	for (i = 0; i < size; i += 4096)
		p[i] = 1;
	/* Drains this CPU's LRU batch, so that every page is on the LRU now. */
	madvise(p, size, MADV_COLD);
	*len = size;
	return p;
}

struct pick_lists {
	uint64_t *pfns[3];
	size_t nr[3];
	uint64_t *buf;		/* kept until the runs end: see pick_all() */
};

static enum mdb_kmod_pick kernel_pick(unsigned int id)
{
	if (id == MDB_KMOD_FOLIO_TAIL)
		return MDB_KMOD_PICK_TAIL;
	if (id == MDB_KMOD_FOLIO_GETPUT)
		return MDB_KMOD_PICK_FOLIO;
	return MDB_KMOD_PICK_ANY;
}

/*
 * One pass over kpageflags feeds the three pickers.  The chunk buffer is
 * freed only after the runs: freeing it now would free its pages, LRU
 * pages that folio/getput may have picked.
 */
static void pick_all(const struct mdb_kmod *k, const struct opts *o, struct pick_lists *pl)
{
	uint64_t chunk = 1 << 16, pfn, n, *buf = malloc(chunk * sizeof(*buf));
	struct mdb_kmod_picker p[3];
	struct mdb_err err;
	unsigned int i;

	if (!buf) {
		mdb_errf(&err, "out of memory for kpageflags");
		fail(&err);
	}
	for (i = 0; i < 3; i++) {
		pl->pfns[i] = calloc(o->pfns, sizeof(uint64_t));
		if (!pl->pfns[i]) {
			mdb_errf(&err, "out of memory for %llu pfns", (unsigned long long)o->pfns);
			fail(&err);
		}
		mdb_kmod_pick_init(&p[i], (enum mdb_kmod_pick)i, o->seed + i, pl->pfns[i], o->pfns);
	}
	for (pfn = k->info.min_pfn; pfn < k->info.end_pfn; pfn += n) {
		n = k->info.end_pfn - pfn < chunk ? k->info.end_pfn - pfn : chunk;
		if (mdb_kmod_read_kpage("/proc/kpageflags", pfn, n, buf, &err))
			fail(&err);
		for (i = 0; i < 3; i++)
			mdb_kmod_pick_feed(&p[i], buf, pfn, n);
	}
	for (i = 0; i < 3; i++)
		pl->nr[i] = mdb_kmod_pick_done(&p[i]);
	pl->buf = buf;
}

static void print_result(const struct mdb_kmod *k, unsigned int id, uint64_t rep,
			 const struct mdb_kmod_result *res, uint64_t nr_pfns)
{
	unsigned int i;

	printf("run kernel=%s rep=%llu ops=%llu ns=%llu ns_per_op=%.3f skipped=%llu failed=%llu "
	       "requests=%llu", mdb_kmod_kernel_name(id), (unsigned long long)rep,
	       (unsigned long long)res->ops, (unsigned long long)res->ns,
	       res->ops ? (double)res->ns / (double)res->ops : 0.0,
	       (unsigned long long)res->skipped, (unsigned long long)res->failed,
	       (unsigned long long)res->requests);
	if (mdb_kmod_kernel_takes_pfns(id))
		printf(" pfns=%llu", (unsigned long long)nr_pfns);
	if (id == MDB_KMOD_SCAN_COMPACTION)
		printf(" offline=%llu free_blocks=%llu free_pages=%llu heads=%llu tails=%llu "
		       "slab_pages=%llu others=%llu", (unsigned long long)res->scan.offline,
		       (unsigned long long)res->scan.free_blocks,
		       (unsigned long long)res->scan.free_pages,
		       (unsigned long long)res->scan.heads, (unsigned long long)res->scan.tails,
		       (unsigned long long)res->scan.slab_pages,
		       (unsigned long long)res->scan.others);
	for (i = 0; i < MDB_KMOD_NR_COUNTERS; i++) {
		if (res->counter_valid[i])
			printf(" %.*s=%.0f", MDB_KMOD_NAME_LEN, k->info.counter_name[i], res->counter[i]);
		else
			printf(" %.*s=unavailable", MDB_KMOD_NAME_LEN, k->info.counter_name[i]);
	}
	printf("\n");
}

static int run_one(struct mdb_kmod *k, const struct opts *o, unsigned int id,
		   const struct pick_lists *pl)
{
	struct mdb_kmod_req req = {
		.kernel = id,
		.ops = o->ops,
		.budget_ns = o->budget_ms * 1000000ULL,
		.counters = o->counters,
	};
	struct mdb_kmod_result res;
	struct mdb_err err;
	uint64_t rep;

	if (mdb_kmod_kernel_takes_pfns(id)) {
		enum mdb_kmod_pick pick = kernel_pick(id);

		req.pfns = pl->pfns[pick];
		req.nr_pfns = pl->nr[pick];
		if (!req.nr_pfns) {
			printf("run kernel=%s error=\"%s\"\n", mdb_kmod_kernel_name(id),
			       id == MDB_KMOD_FOLIO_TAIL ?
			       "no large folio on this machine, so no tail page (try --make-thp)" :
			       "no pfn qualifies in /proc/kpageflags");
			return 1;
		}
	}
	for (rep = 1; rep <= o->reps; rep++) {
		if (mdb_kmod_run(k, &req, &res, &err)) {
			printf("run kernel=%s error=\"%s\"\n", mdb_kmod_kernel_name(id), err.msg);
			return 1;
		}
		print_result(k, id, rep, &res, req.nr_pfns);
		/* The next repetition goes on where this one stopped. */
		req.start = res.next;
	}
	fflush(stdout);
	return 0;
}

static int cmd_run(struct opts *o)
{
	struct pick_lists pl = { 0 };
	struct mdb_kmod k;
	size_t thp_len = 0;
	unsigned int i;
	int failed = 0;

	if (o->make_thp && !thp_region(&thp_len))
		fprintf(stderr, PROG ": --make-thp: mmap: %s\n", strerror(errno));
	open_dev(&k, o);
	if (!o->nr_kernels)
		for (i = 0; i < MDB_KMOD_NR_KERNELS; i++)
			o->kernels[o->nr_kernels++] = i;
	for (i = 0; i < o->nr_kernels; i++)
		if (mdb_kmod_kernel_takes_pfns(o->kernels[i])) {
			pick_all(&k, o, &pl);
			break;
		}
	for (i = 0; i < o->nr_kernels; i++)
		failed |= run_one(&k, o, o->kernels[i], &pl);
	for (i = 0; i < 3; i++)
		free(pl.pfns[i]);
	free(pl.buf);
	mdb_kmod_close(&k);
	return failed;
}

/* --- census ---------------------------------------------------------------- */

/* Free blocks and pages of every zone, from the allocator's own counts. */
static int read_buddyinfo(int fd, uint64_t *blocks, uint64_t *pages, struct mdb_err *err)
{
	char buf[8192], *line, *save = NULL;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return mdb_errf(err, "/proc/buddyinfo: %s", n ? strerror(errno) : "empty");
	buf[n] = '\0';
	*blocks = *pages = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *p = strstr(line, "zone");
		unsigned int order = 0;

		if (!p)
			continue;
		p += 4;
		while (*p == ' ')
			p++;
		while (*p && *p != ' ')		/* the zone's name */
			p++;
		for (;;) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			*blocks += v;
			*pages += v << order++;
			p = end;
		}
	}
	return 0;
}

static int scan_all(struct mdb_kmod *k, struct mdb_kmod_scan *out, struct mdb_err *err)
{
	struct mdb_kmod_req req = {
		.kernel = MDB_KMOD_SCAN_COMPACTION,
		.ops = k->info.end_pfn - k->info.min_pfn,
	};
	struct mdb_kmod_result res;

	if (mdb_kmod_run(k, &req, &res, err))
		return -1;
	*out = res.scan;
	return 0;
}

static void print_census(const char *source, const struct mdb_kmod_scan *s)
{
	printf("census source=%s pfns=%llu offline=%llu free_blocks=%llu free_pages=%llu heads=%llu "
	       "tails=%llu slab_pages=%llu others=%llu\n", source,
	       (unsigned long long)s->pfns, (unsigned long long)s->offline,
	       (unsigned long long)s->free_blocks, (unsigned long long)s->free_pages,
	       (unsigned long long)s->heads, (unsigned long long)s->tails,
	       (unsigned long long)s->slab_pages, (unsigned long long)s->others);
}

/*
 * The scan's counts against kpageflags' for the same pfns.  The machine
 * lives on while they are read, so kpageflags and buddyinfo are read
 * between two scans, with every buffer allocated and touched before the
 * first: if the two scans agree, nothing the census counts changed in
 * between (or it changed and changed back), and the three must agree
 * exactly.  If they do not, try again: no tolerance.
 */
static int cmd_census(const struct opts *o)
{
	struct mdb_kmod_scan a = { 0 }, b = { 0 }, kpf;
	uint64_t n, blocks = 0, pages = 0, t, *flags;
	struct mdb_kmod k;
	struct mdb_err err;
	int bfd, stable = 0, match;

	open_dev(&k, o);
	n = k.info.end_pfn - k.info.min_pfn;
	flags = malloc(n * sizeof(*flags));
	if (!flags) {
		mdb_errf(&err, "out of memory for %llu kpageflags", (unsigned long long)n);
		fail(&err);
	}
	memset(flags, 0, n * sizeof(*flags));
	bfd = open("/proc/buddyinfo", O_RDONLY | O_CLOEXEC);
	if (bfd < 0 || read_buddyinfo(bfd, &blocks, &pages, &err)) {
		if (bfd < 0)
			mdb_errf(&err, "/proc/buddyinfo: %s", strerror(errno));
		fail(&err);
	}
	for (t = 1; t <= o->tries && !stable; t++) {
		if (scan_all(&k, &a, &err) ||
		    mdb_kmod_read_kpage("/proc/kpageflags", k.info.min_pfn, n, flags, &err) ||
		    read_buddyinfo(bfd, &blocks, &pages, &err) || scan_all(&k, &b, &err))
			fail(&err);
		stable = !memcmp(&a, &b, sizeof(a));
	}
	close(bfd);
	mdb_kmod_census(flags, k.info.min_pfn, n, k.info.max_order, &kpf);
	print_census("module", &a);
	print_census("kpageflags", &kpf);
	printf("census source=buddyinfo free_blocks=%llu free_pages=%llu\n",
	       (unsigned long long)blocks, (unsigned long long)pages);
	match = stable && !memcmp(&a, &kpf, sizeof(a)) && a.free_blocks == blocks &&
		a.free_pages == pages;
	printf("census tries=%llu stable=%d sum_ok=%d match=%d\n", (unsigned long long)(t - 1),
	       stable, a.pfns == a.offline + a.free_pages + a.heads + a.tails + a.others, match);
	free(flags);
	mdb_kmod_close(&k);
	return match ? 0 : 1;
}

/* --- refcheck -------------------------------------------------------------- */

#define PM_PFN_MASK	((1ULL << 55) - 1)
#define PM_PRESENT	(1ULL << 63)

static int own_pfns(const char *p, size_t len, uint64_t *pfns, struct mdb_err *err)
{
	size_t i, n = len / 4096;

	if (mdb_kmod_read_kpage("/proc/self/pagemap", (uintptr_t)p / 4096, n, pfns, err))
		return -1;
	for (i = 0; i < n; i++) {
		if (!(pfns[i] & PM_PRESENT) || !(pfns[i] & PM_PFN_MASK))
			return mdb_errf(err, "/proc/self/pagemap: page %zu has no pfn (not root?)", i);
		pfns[i] &= PM_PFN_MASK;
	}
	return 0;
}

static int flags_of(const uint64_t *pfns, size_t n, uint64_t *flags, struct mdb_err *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (mdb_kmod_read_kpage("/proc/kpageflags", pfns[i], 1, &flags[i], err))
			return -1;
	return 0;
}

/*
 * Takes and drops references on folios this process owns, then unmaps them.
 * Unmapping drops the last mapping reference, so each folio is freed then,
 * unless someone still holds one: a page that is still anonymous or on the
 * LRU after munmap() is one the module leaked.  Pinned to one CPU, and the
 * LRU batch drained by MADV_COLD, so that no per-CPU batch keeps a page.
 */
static int cmd_refcheck(const struct opts *o)
{
	uint64_t *pfns, *flags, *tails, thp = 0, busy = 0;
	struct mdb_kmod_result gp, tl = { 0 };
	struct mdb_kmod_req req = { 0 };
	size_t len, n, i, nt = 0;
	struct mdb_kmod k;
	struct mdb_err err;
	cpu_set_t cpus;
	char *p;
	int ok;

	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	open_dev(&k, o);
	p = thp_region(&len);
	if (!p) {
		mdb_errf(&err, "mmap: %s", strerror(errno));
		fail(&err);
	}
	n = len / 4096;
	pfns = calloc(n, sizeof(*pfns));
	flags = calloc(n, sizeof(*flags));
	tails = calloc(n, sizeof(*tails));
	if (!pfns || !flags || !tails) {
		mdb_errf(&err, "out of memory");
		fail(&err);
	}
	if (own_pfns(p, len, pfns, &err) || flags_of(pfns, n, flags, &err))
		fail(&err);
	for (i = 0; i < n; i++) {
		thp += !!(flags[i] & KPF(THP));
		if (mdb_kmod_pick_ok(MDB_KMOD_PICK_TAIL, flags[i]))
			tails[nt++] = pfns[i];
	}
	req.kernel = MDB_KMOD_FOLIO_GETPUT;
	req.ops = o->ops_set ? o->ops : 64 * n;
	req.pfns = pfns;
	req.nr_pfns = n;
	if (mdb_kmod_run(&k, &req, &gp, &err))
		fail(&err);
	if (nt) {
		req.kernel = MDB_KMOD_FOLIO_TAIL;
		req.pfns = tails;
		req.nr_pfns = nt;
		if (mdb_kmod_run(&k, &req, &tl, &err))
			fail(&err);
	}
	munmap(p, len);
	if (flags_of(pfns, n, flags, &err))
		fail(&err);
	for (i = 0; i < n; i++)
		busy += !!(flags[i] & (KPF(ANON) | KPF(LRU)));
	ok = !busy && !gp.failed && !gp.skipped && !tl.skipped;
	printf("refcheck pages=%zu thp_pages=%llu getput_ops=%llu getput_failed=%llu "
	       "tail_ops=%llu tail_skipped=%llu in_use_after_unmap=%llu ok=%d\n", n,
	       (unsigned long long)thp, (unsigned long long)gp.ops, (unsigned long long)gp.failed,
	       (unsigned long long)tl.ops, (unsigned long long)tl.skipped,
	       (unsigned long long)busy, ok);
	free(pfns);
	free(flags);
	free(tails);
	mdb_kmod_close(&k);
	return ok ? 0 : 1;
}

/* --- deny ------------------------------------------------------------------ */

static int drop_cap_sys_admin(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_SYS_ADMIN / 32].effective &= ~(1U << (CAP_SYS_ADMIN % 32));
	data[CAP_SYS_ADMIN / 32].permitted &= ~(1U << (CAP_SYS_ADMIN % 32));
	data[CAP_SYS_ADMIN / 32].inheritable &= ~(1U << (CAP_SYS_ADMIN % 32));
	return (int)syscall(SYS_capset, &hdr, data);
}

/* In a child: become who, try to open; 0 if refused, as it must be. */
static int try_as(const struct opts *o, const char *who)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		struct mdb_kmod k;
		struct mdb_err err;
		int r;

		if (!strcmp(who, "uid65534"))
			r = setgroups(0, NULL) || setgid(65534) || setuid(65534);
		else
			r = drop_cap_sys_admin();
		if (r) {
			printf("deny as=%s refused=0 error=\"cannot drop privileges: %s\"\n", who,
			       strerror(errno));
			_exit(1);
		}
		if (!mdb_kmod_open(&k, o->device, &err)) {
			printf("deny as=%s refused=0\n", who);
			_exit(1);
		}
		printf("deny as=%s refused=1 reason=\"%s\"\n", who, err.msg);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}

static int cmd_deny(const struct opts *o)
{
	int a = try_as(o, "uid65534"), b = try_as(o, "root-without-cap_sys_admin");

	return a || b;
}

/* --- main ------------------------------------------------------------------ */

static void parse(int argc, char **argv, struct opts *o, const char **cmd)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "ops", required_argument, NULL, 'o' },
		{ "reps", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "pfns", required_argument, NULL, 'p' },
		{ "budget-ms", required_argument, NULL, 'b' },
		{ "tries", required_argument, NULL, 't' },
		{ "counters", no_argument, NULL, 'c' },
		{ "make-thp", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, id;

	opterr = 0;
	/* Options may come before or after the command. */
	while (optind < argc) {
		c = getopt_long(argc, argv, "+", longopts, NULL);
		if (c == -1) {
			if (optind >= argc)
				break;
			if (*cmd)
				bad_usage("unexpected argument '%s'", argv[optind]);
			*cmd = argv[optind++];
			continue;
		}
		switch (c) {
		case 'd':
			o->device = optarg;
			break;
		case 'k':
			id = mdb_kmod_kernel_id(optarg);
			if (id < 0)
				bad_usage("no kernel named '%s'", optarg);
			if (o->nr_kernels == MDB_KMOD_NR_KERNELS)
				bad_usage("too many --kernel options%s", "");
			o->kernels[o->nr_kernels++] = (unsigned int)id;
			break;
		case 'o':
			parse_u64(optarg, 1, 1ULL << 40, &o->ops, "--ops");
			o->ops_set = 1;
			break;
		case 'r':
			parse_u64(optarg, 1, 1000, &o->reps, "--reps");
			break;
		case 's':
			parse_u64(optarg, 0, UINT64_MAX, &o->seed, "--seed");
			break;
		case 'p':
			parse_u64(optarg, 1, 1ULL << 24, &o->pfns, "--pfns");
			break;
		case 'b':
			parse_u64(optarg, 1, 1000, &o->budget_ms, "--budget-ms");
			break;
		case 't':
			parse_u64(optarg, 1, 1000, &o->tries, "--tries");
			break;
		case 'c':
			o->counters = 1;
			break;
		case 'm':
			o->make_thp = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		default:
			bad_usage("unknown option or missing value: '%s'", argv[optind - 1]);
		}
	}
	if (!*cmd)
		bad_usage("no command%s", "");
}

int main(int argc, char **argv)
{
	struct opts o = { .ops = 65536, .reps = 1, .seed = 1, .pfns = 65536, .budget_ms = 0,
			  .tries = 10 };
	const char *cmd = NULL;

	parse(argc, argv, &o, &cmd);
	if (!strcmp(cmd, "info"))
		return cmd_info(&o);
	if (!strcmp(cmd, "run"))
		return cmd_run(&o);
	if (!strcmp(cmd, "census"))
		return cmd_census(&o);
	if (!strcmp(cmd, "refcheck"))
		return cmd_refcheck(&o);
	if (!strcmp(cmd, "deny"))
		return cmd_deny(&o);
	bad_usage("unknown command '%s'", cmd);
	return 2;
}
