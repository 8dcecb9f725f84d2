// SPDX-License-Identifier: GPL-2.0
/*
 * client.c - the user-space library over /dev/mdbench; see client.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kernel-page-flags.h>

#include "client.h"
#include "rng.h"

static const char *const kernel_names[] = MDB_KMOD_KERNEL_NAMES;

_Static_assert(sizeof(kernel_names) / sizeof(kernel_names[0]) == MDB_KMOD_NR_KERNELS,
	       "one name per kernel");
_Static_assert(sizeof(struct mdb_kmod_info) == 1360, "the ABI the module checks");
_Static_assert(sizeof(struct mdb_kmod_run) == 504, "the ABI the module checks");

int mdb_kmod_kernel_id(const char *name)
{
	unsigned int i;

	for (i = 0; i < MDB_KMOD_NR_KERNELS; i++)
		if (!strcmp(kernel_names[i], name))
			return (int)i;
	return -1;
}

const char *mdb_kmod_kernel_name(unsigned int id)
{
	return id < MDB_KMOD_NR_KERNELS ? kernel_names[id] : "?";
}

bool mdb_kmod_kernel_takes_pfns(unsigned int id)
{
	return id == MDB_KMOD_LOOKUP_RANDOM || id == MDB_KMOD_LOOKUP_RANDOM_DEP ||
	       id == MDB_KMOD_FOLIO_TAIL || id == MDB_KMOD_FOLIO_GETPUT;
}

bool mdb_kmod_kernel_takes_range(unsigned int id)
{
	return id == MDB_KMOD_LOOKUP_SEQ || id == MDB_KMOD_SCAN_COMPACTION;
}

/* The one line a failed open() deserves: what to do about it. */
static int open_error(const char *path, int e, struct mdb_err *err)
{
	struct stat st;

	if (e == ENOENT) {
		if (stat("/sys/module/mdbench_kmod", &st))
			return mdb_errf(err, "%s: no such device: the mdbench_kmod module is not loaded; "
					"load it with: sudo insmod kmod/mdbench_kmod.ko", path);
		return mdb_errf(err, "%s: no such device, although mdbench_kmod is loaded: without "
				"devtmpfs, create it from /sys/class/misc/mdbench/dev with mknod", path);
	}
	if (e == EACCES || e == EPERM) {
		if (geteuid())
			return mdb_errf(err, "%s: %s: the device is root only: run as root", path,
					strerror(e));
		return mdb_errf(err, "%s: %s: root without CAP_SYS_ADMIN may not use the device",
				path, strerror(e));
	}
	return mdb_errf(err, "%s: %s", path, strerror(e));
}

static int read_info(struct mdb_kmod *k, const char *path, struct mdb_err *err)
{
	memset(&k->info, 0, sizeof(k->info));
	k->info.magic = MDB_KMOD_MAGIC;
	k->info.abi = MDB_KMOD_ABI;
	if (ioctl(k->fd, MDB_KMOD_IOC_INFO, &k->info) == 0 && k->info.magic == MDB_KMOD_MAGIC &&
	    k->info.abi == MDB_KMOD_ABI)
		return 0;
	if (errno == ENOTTY || k->info.magic != MDB_KMOD_MAGIC)
		return mdb_errf(err, "%s: not the mdbench_kmod device (%s)", path, strerror(errno));
	if (errno == EPROTO || k->info.abi != MDB_KMOD_ABI)
		return mdb_errf(err, "%s: ABI mismatch: the module speaks abi %u, this client %u; "
				"rebuild and reload the module from the same tree", path,
				k->info.abi, MDB_KMOD_ABI);
	return mdb_errf(err, "%s: INFO: %s", path, strerror(errno));
}

int mdb_kmod_open(struct mdb_kmod *k, const char *path, struct mdb_err *err)
{
	if (!path)
		path = MDB_KMOD_DEVICE;
	k->fd = open(path, O_RDWR | O_CLOEXEC);
	if (k->fd < 0)
		return open_error(path, errno, err);
	if (read_info(k, path, err)) {
		close(k->fd);
		k->fd = -1;
		return -1;
	}
	return 0;
}

int mdb_kmod_refresh(struct mdb_kmod *k, struct mdb_err *err)
{
	return read_info(k, MDB_KMOD_DEVICE, err);
}

void mdb_kmod_close(struct mdb_kmod *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

static void add_scan(struct mdb_kmod_scan *sum, const struct mdb_kmod_scan *s)
{
	sum->pfns += s->pfns;
	sum->offline += s->offline;
	sum->free_blocks += s->free_blocks;
	sum->free_pages += s->free_pages;
	sum->heads += s->heads;
	sum->tails += s->tails;
	sum->slab_pages += s->slab_pages;
	sum->others += s->others;
	sum->isolated += s->isolated;
}

static void add_counters(struct mdb_kmod_result *res, const struct mdb_kmod_run *r, bool first)
{
	unsigned int i;

	for (i = 0; i < MDB_KMOD_NR_COUNTERS; i++) {
		bool valid = r->counters_valid & (1U << i);

		if (first) {
			res->counter_valid[i] = valid;
			res->counter_errno[i] = r->counter_errno[i];
		} else if (!valid && res->counter_valid[i]) {
			/* One request that could not count spoils the sum. */
			res->counter_valid[i] = false;
			res->counter_errno[i] = r->counter_errno[i];
		}
		if (res->counter_valid[i]) {
			res->counter[i] += (double)r->counter[i];
			if (r->counters_scaled & (1U << i))
				res->counter_scaled[i] = true;
		}
	}
}

static int check_req(const struct mdb_kmod *k, const struct mdb_kmod_req *req,
		     uint64_t *lo, uint64_t *hi, uint64_t *pos, struct mdb_err *err)
{
	const char *name = mdb_kmod_kernel_name(req->kernel);

	if (req->kernel >= MDB_KMOD_NR_KERNELS)
		return mdb_errf(err, "no kernel with id %u", req->kernel);
	if (!req->ops)
		return mdb_errf(err, "%s: ops must be at least 1", name);
	*lo = req->lo_pfn;
	*hi = req->hi_pfn;
	if (!*lo && !*hi) {
		*lo = k->info.min_pfn;
		*hi = k->info.end_pfn;
	}
	*pos = req->start;
	if (mdb_kmod_kernel_takes_range(req->kernel)) {
		if (!*pos)
			*pos = *lo;
		if (*lo >= *hi || *pos < *lo || *pos >= *hi)
			return mdb_errf(err, "%s: need lo_pfn <= start < hi_pfn, have %llu <= %llu < %llu",
					name, (unsigned long long)*lo, (unsigned long long)*pos,
					(unsigned long long)*hi);
	}
	if (mdb_kmod_kernel_takes_pfns(req->kernel)) {
		if (!req->pfns || !req->nr_pfns)
			return mdb_errf(err, "%s: needs a pfn array", name);
		if (*pos >= req->nr_pfns)
			return mdb_errf(err, "%s: start index %llu past the %llu pfns", name,
					(unsigned long long)*pos, (unsigned long long)req->nr_pfns);
	}
	return 0;
}

int mdb_kmod_run(struct mdb_kmod *k, const struct mdb_kmod_req *req,
		 struct mdb_kmod_result *res, struct mdb_err *err)
{
	const char *name = mdb_kmod_kernel_name(req->kernel);
	uint64_t lo = 0, hi = 0, pos = 0, left;
	struct mdb_kmod_run r;

	memset(res, 0, sizeof(*res));
	if (check_req(k, req, &lo, &hi, &pos, err))
		return -1;
	for (left = req->ops; left; ) {
		memset(&r, 0, sizeof(r));
		r.magic = MDB_KMOD_MAGIC;
		r.abi = MDB_KMOD_ABI;
		r.kernel = req->kernel;
		r.flags = req->counters ? MDB_KMOD_RUN_COUNTERS : 0;
		r.ops = left;
		r.budget_ns = req->budget_ns;
		r.lo_pfn = lo;
		r.hi_pfn = hi;
		r.pfns = (uint64_t)(uintptr_t)req->pfns;
		r.nr_pfns = req->nr_pfns;
		r.pos = pos;
		if (ioctl(k->fd, MDB_KMOD_IOC_RUN, &r)) {
			int e = errno;

			r.error[sizeof(r.error) - 1] = '\0';
			if (r.error[0])
				return mdb_errf(err, "%s: %s", name, r.error);
			return mdb_errf(err, "%s: %s", name, strerror(e));
		}
		if (!r.ops_done)
			return mdb_errf(err, "%s: the module made no progress", name);
		add_counters(res, &r, !res->requests);
		res->requests++;
		res->ops += r.ops_done;
		res->ns += r.ns;
		res->skipped += r.skipped;
		res->failed += r.failed;
		res->sink += r.sink;
		add_scan(&res->scan, &r.scan);
		left -= r.ops_done < left ? r.ops_done : left;
		pos = r.next_pos;
		if (mdb_kmod_kernel_takes_pfns(req->kernel) && pos >= req->nr_pfns)
			pos = 0;
	}
	res->next = pos;
	return 0;
}

static const char *errno_name(int e)
{
	switch (e) {
	case ENOENT: return "ENOENT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EINVAL: return "EINVAL";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	default: return "error";
	}
}

const char *mdb_kmod_counter_text(const struct mdb_kmod *k, const struct mdb_kmod_result *res,
				  unsigned int i, char *buf, size_t len)
{
	int e;

	if (i >= MDB_KMOD_NR_COUNTERS) {
		snprintf(buf, len, "unavailable: no such counter");
		return buf;
	}
	if (res->counter_valid[i]) {
		snprintf(buf, len, "%.0f%s", res->counter[i], res->counter_scaled[i] ? " (scaled)" : "");
		return buf;
	}
	e = -res->counter_errno[i];
	if (e == EBUSY)
		snprintf(buf, len, "unavailable: never scheduled on the PMU (%s)", errno_name(e));
	else if (k->info.counter_reason[i][0])
		snprintf(buf, len, "unavailable: %.*s (%s %d)", MDB_KMOD_REASON_LEN,
			 k->info.counter_reason[i], errno_name(e), e);
	else if (e)
		snprintf(buf, len, "unavailable: %s (%s %d)", strerror(e), errno_name(e), e);
	else
		snprintf(buf, len, "unavailable: not requested");
	return buf;
}

/* --- /proc/kpageflags ---------------------------------------------------- */

int mdb_kmod_read_kpage(const char *path, uint64_t start, uint64_t n, uint64_t *out,
			struct mdb_err *err)
{
	size_t want = n * sizeof(uint64_t), got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return mdb_errf(err, "%s: %s", path, strerror(errno));
	while (got < want) {
		ssize_t r = pread(fd, (char *)out + got, want - got,
				  (off_t)(start * sizeof(uint64_t) + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = errno;

			close(fd);
			if (r == 0)
				return mdb_errf(err, "%s: ends before pfn %llu", path,
						(unsigned long long)(start + got / sizeof(uint64_t)));
			return mdb_errf(err, "%s: %s", path, strerror(e));
		}
		got += (size_t)r;
	}
	close(fd);
	return 0;
}

#define KPF(b)	(1ULL << KPF_##b)

bool mdb_kmod_pick_ok(enum mdb_kmod_pick pick, uint64_t f)
{
	switch (pick) {
	case MDB_KMOD_PICK_ANY:
		return !(f & KPF(NOPAGE));
	case MDB_KMOD_PICK_TAIL:
		return (f & KPF(COMPOUND_TAIL)) && (f & (KPF(THP) | KPF(HUGE))) && !(f & KPF(SLAB));
	case MDB_KMOD_PICK_FOLIO:
		/* 6.1 copies LRU only onto the head; a THP's tails say THP. */
		return (f & KPF(LRU)) || ((f & KPF(THP)) && !(f & KPF(ZERO_PAGE)));
	}
	return false;
}

void mdb_kmod_pick_init(struct mdb_kmod_picker *p, enum mdb_kmod_pick pick, uint64_t seed,
			uint64_t *out, size_t max)
{
	memset(p, 0, sizeof(*p));
	p->pick = pick;
	p->out = out;
	p->max = max;
	p->state = seed;
}

void mdb_kmod_pick_feed(struct mdb_kmod_picker *p, const uint64_t *flags, uint64_t start,
			uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (!mdb_kmod_pick_ok(p->pick, flags[i]))
			continue;
		p->seen++;
		if (p->nr < p->max) {
			p->out[p->nr++] = start + i;
		} else if (p->max) {
			uint64_t j = mdb_rng_below(&p->state, p->seen);

			if (j < p->max)
				p->out[j] = start + i;
		}
	}
}

size_t mdb_kmod_pick_done(struct mdb_kmod_picker *p)
{
	size_t i;

	for (i = p->nr; i > 1; i--) {
		uint64_t j = mdb_rng_below(&p->state, i), t = p->out[i - 1];

		p->out[i - 1] = p->out[j];
		p->out[j] = t;
	}
	return p->nr;
}

#define PICK_CHUNK	(1U << 16)

int mdb_kmod_pick_kpageflags(struct mdb_kmod_picker *p, uint64_t lo, uint64_t hi,
			     struct mdb_err *err)
{
	uint64_t *buf = malloc(PICK_CHUNK * sizeof(*buf)), pfn, n;
	int ret = 0;

	if (!buf)
		return mdb_errf(err, "out of memory for kpageflags");
	for (pfn = lo; pfn < hi && !ret; pfn += n) {
		n = hi - pfn < PICK_CHUNK ? hi - pfn : PICK_CHUNK;
		ret = mdb_kmod_read_kpage("/proc/kpageflags", pfn, n, buf, err);
		if (!ret)
			mdb_kmod_pick_feed(p, buf, pfn, n);
	}
	free(buf);
	return ret;
}

/* Free blocks in the free run [pfn, pfn + len), as the buddy allocator merges. */
static uint64_t split_run(uint64_t pfn, uint64_t len, unsigned int max_order)
{
	uint64_t blocks = 0;

	while (len) {
		unsigned int order = 0;

		while (order < max_order && !(pfn & ((2ULL << order) - 1)) &&
		       (2ULL << order) <= len)
			order++;
		blocks++;
		pfn += 1ULL << order;
		len -= 1ULL << order;
	}
	return blocks;
}

void mdb_kmod_census(const uint64_t *flags, uint64_t start, uint64_t n, unsigned int max_order,
		     struct mdb_kmod_scan *s)
{
	uint64_t i, run = 0;

	memset(s, 0, sizeof(*s));
	s->pfns = n;
	for (i = 0; i < n; i++) {
		uint64_t f = flags[i];

		if (f & KPF(BUDDY)) {
			s->free_pages++;
			run++;
			continue;
		}
		if (run) {
			s->free_blocks += split_run(start + i - run, run, max_order);
			run = 0;
		}
		if (f & KPF(NOPAGE))
			s->offline++;
		else if (f & KPF(COMPOUND_HEAD))
			s->heads++;
		else if (f & KPF(COMPOUND_TAIL))
			s->tails++;
		else
			s->others++;
		if (f & KPF(SLAB))
			s->slab_pages++;
	}
	if (run)
		s->free_blocks += split_run(start + n - run, run, max_order);
}
