// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - a recorded allocation trace read from its file (age.h's
 * format), checked line by line: the first bad line is the error.
 */
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "age.h"
#include "grow.h"

#define LINE_MAX_BYTES	256
/*
 * The largest trace read: 2^32 allocations is the most a trace may hold
 * (struct age_event's rec), and a line is a few dozen bytes; a larger file,
 * a FIFO (which would wait for a writer) or a device (/dev/zero never ends)
 * is refused before anything is read.
 */
#define TRACE_MAX_BYTES	(64ULL << 30)
#define NO_REC		UINT32_MAX

/* The live folios by their ID in the file: open addressing, linear probes, tombstones. */
struct id_map {
	uint64_t *key;
	uint32_t *rec;		/* NO_REC: empty; NO_REC - 1: a tombstone */
	size_t cap, used, live;	/* used counts tombstones too */
};

#define TOMB	(NO_REC - 1)

/*
 * MurmurHash3's 64-bit finaliser: every bit of the key moves every bit of
 * the slot, so IDs that differ only in high bits (pfns of 1 GiB folios,
 * multiples of 2^40) spread as well as 1, 2, 3 do.  A multiply alone
 * leaves a key's low zero bits zero.
 */
static uint64_t id_mix(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ULL;
	return key ^ (key >> 33);
}

static size_t id_slot(const struct id_map *m, uint64_t key)
{
	return (size_t)id_mix(key) & (m->cap - 1);
}

/* The slot holding key, or the empty slot that ends its probe. */
static size_t id_find(const struct id_map *m, uint64_t key)
{
	size_t i = id_slot(m, key);

	while (m->rec[i] != NO_REC && (m->rec[i] == TOMB || m->key[i] != key))
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* Rebuilt without tombstones, at least four slots a live ID. */
static int id_rebuild(struct id_map *m)
{
	struct id_map n = { .cap = 1024, .live = m->live };

	while (n.cap < 4 * (m->live + 1))
		n.cap *= 2;

	n.key = malloc(n.cap * sizeof(*n.key));
	n.rec = malloc(n.cap * sizeof(*n.rec));
	if (!n.key || !n.rec) {
		free(n.key);
		free(n.rec);
		return -1;
	}
	memset(n.rec, 0xff, n.cap * sizeof(*n.rec));
	for (size_t i = 0; i < m->cap; i++)
		if (m->rec[i] < TOMB) {
			size_t j = id_find(&n, m->key[i]);

			n.key[j] = m->key[i];
			n.rec[j] = m->rec[i];
			n.used++;
		}
	free(m->key);
	free(m->rec);
	*m = n;
	return 0;
}

/* An unsigned decimal, or hex after 0x (ftrace prints pfns so); false for anything else. */
static bool parse_u64(const char *s, uint64_t *v)
{
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!((*s >= '0' && *s <= '9') || (base == 16 && strchr("abcdefABCDEF", *s) && *s)))
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	return !errno && !*end;
}

struct loader {
	struct age_replay *r;
	struct id_map ids;
	size_t cap;
	uint8_t *order;		/* of each allocation, to count a free's pages */
	unsigned long live;
};

static int add_event(struct loader *l, struct age_event e)
{
	struct age_replay *r = l->r;

	struct age_event *ev = mdb_grow(r->ev, &l->cap, r->nr_events + 1, sizeof(*ev));

	if (!ev)
		return -1;
	r->ev = ev;
	r->ev[r->nr_events++] = e;
	return 0;
}

/* One line's fields, split at spaces and tabs: how many (at most max + 1). */
static int split(char *s, char **f, int max)
{
	int n = 0;

	for (char *tok = strtok(s, " \t"); tok; tok = strtok(NULL, " \t")) {
		if (n <= max)
			f[n] = tok;
		n++;
	}
	return n > max ? max + 1 : n;
}

/* Room for allocation nr_alloc's order; false when out of memory. */
static bool order_room(struct loader *l)
{
	unsigned long n = l->r->nr_alloc;

	if (!(n & (n + 1))) {	/* 0, 1, 3, 7, ...: room for twice as many */
		uint8_t *o = realloc(l->order, 2 * (n + 1));

		if (!o)
			return false;
		l->order = o;
	}
	return true;
}

/* Allocation nr_alloc, of order, counted: per order, and the pages live and at the peak. */
static void count_alloc(struct loader *l, unsigned int order)
{
	struct age_replay *r = l->r;

	r->alloc_by_order[order]++;
	r->nr_alloc++;
	l->live += 1UL << order;
	if (l->live > r->peak_pages)
		r->peak_pages = l->live;
}

/* A pfn that a placed event names: below 2^32 (struct age_event), and the end it reaches. */
static int placed_pfn(struct loader *l, const char *s, unsigned int order, uint64_t *pfn,
		      char *why, size_t len)
{
	if (!parse_u64(s, pfn) || *pfn >> 32 || (*pfn & ((1ULL << order) - 1)))
		return snprintf(why, len, "PFN '%s': want a pfn below 2^32, aligned to its order", s), -1;
	if (*pfn + (1ULL << order) > l->r->end_pfn)
		l->r->end_pfn = (unsigned long)(*pfn + (1ULL << order));
	return 0;
}

/*
 * A placed line (the kernel's page events): the pages' state is the
 * replay's (age.c), so no ID need be live; a live head's free of its own
 * order is what live_pages and peak_pages follow.
 */
static int parse_placed(struct loader *l, char **f, int n, char *why, size_t len)
{
	static const char verbs[] = "afdrm";
	static const uint8_t kinds[] = { 0, AGE_FREE_EVENT, AGE_DRAIN_EVENT, AGE_REFILL_EVENT,
					 AGE_MT_EVENT };
	struct age_replay *r = l->r;
	const char *v = strchr(verbs, f[0][0]);
	struct age_event e = { 0 };
	uint64_t pfn, order = 0, mt;
	size_t slot;

	if (f[0][1] || !v)
		return snprintf(why, len, "'%s': want a, f, d, r or m", f[0]), -1;
	if (n != (*v == 'a' ? 5 : 3))
		return snprintf(why, len, "'%s' takes %s", f[0], *v == 'a' ? "PFN ORDER KIND MT" :
				*v == 'm' ? "PFN MT" : "PFN ORDER"), -1;
	e.kind = kinds[v - verbs];
	if (*v == 'm') {
		if (placed_pfn(l, f[1], 0, &pfn, why, len))
			return -1;
		if (!parse_u64(f[2], &mt) || mt >= AGE_MT_NR)
			return snprintf(why, len, "MT '%s': want 0, 1 or 2", f[2]), -1;
		e.pfn = (uint32_t)pfn;
		e.mt = (uint8_t)mt;
		return add_event(l, e) ? (why[0] = 0, -1) : 0;
	}
	if (!parse_u64(f[2], &order) || order > MAX_PAGE_ORDER)
		return snprintf(why, len, "ORDER '%s': want 0 to %d", f[2], MAX_PAGE_ORDER), -1;
	if (placed_pfn(l, f[1], (unsigned int)order, &pfn, why, len))
		return -1;
	e.pfn = (uint32_t)pfn;
	e.order = (uint8_t)order;
	if (l->ids.used + 1 > l->ids.cap / 2 && id_rebuild(&l->ids))
		return why[0] = 0, -1;
	slot = id_find(&l->ids, pfn);
	if (*v == 'f' && l->ids.rec[slot] != NO_REC && l->order[l->ids.rec[slot]] == order) {
		l->ids.rec[slot] = TOMB;
		l->ids.live--;
		l->live -= 1UL << order;
	}
	if (*v == 'f')
		r->nr_free++;
	if (*v != 'a')
		return add_event(l, e) ? (why[0] = 0, -1) : 0;
	if (!strcmp(f[3], "anon") || !strcmp(f[3], "file"))
		e.kind = f[3][0] == 'a' ? PK_ANON : PK_FILE;
	else if (!strcmp(f[3], "kernel"))
		e.kind = PK_RESERVED;
	else
		return snprintf(why, len, "KIND '%s': want anon, file or kernel", f[3]), -1;
	if (e.kind != PK_RESERVED && order > MAX_FOLIO_ORDER)
		return snprintf(why, len, "an %s folio of order %llu: at most %d", f[3],
				(unsigned long long)order, MAX_FOLIO_ORDER), -1;
	if (!parse_u64(f[4], &mt) || mt >= AGE_MT_NR)
		return snprintf(why, len, "MT '%s': want 0, 1 or 2", f[4]), -1;
	e.mt = (uint8_t)mt;
	if (r->nr_alloc >= TOMB - 1)
		return snprintf(why, len, "more than %u allocations", TOMB - 1), -1;
	if (!order_room(l))
		return why[0] = 0, -1;
	if (l->ids.rec[slot] == NO_REC || l->ids.rec[slot] == TOMB) {
		l->ids.key[slot] = pfn;
		l->ids.used += l->ids.rec[slot] == NO_REC;
		l->ids.live++;
	} else {	/* its pages went back in pieces the head's free did not name */
		l->live -= 1UL << l->order[l->ids.rec[slot]];
	}
	l->ids.rec[slot] = (uint32_t)r->nr_alloc;
	l->order[r->nr_alloc] = (uint8_t)order;
	e.rec = (uint32_t)r->nr_alloc;
	if (add_event(l, e))
		return why[0] = 0, -1;
	count_alloc(l, (unsigned int)order);
	return 0;
}

/* Whether a line's verb and field count say it is a placed event. */
static bool is_placed(char **f, int n)
{
	return (f[0][0] == 'a' && n == 5) || (f[0][0] == 'f' && n == 3) ||
	       ((f[0][0] == 'd' || f[0][0] == 'r' || f[0][0] == 'm') && !f[0][1]);
}

/* One line: 0, or -1 with its problem in why (or out of memory: why empty). */
static int parse_line(struct loader *l, char *line, char *why, size_t len)
{
	struct age_replay *r = l->r;
	uint64_t id, order;
	char *f[6];
	size_t slot;
	int n;

	for (const char *c = line; *c; c++)
		if ((unsigned char)*c < 0x20 && *c != '\t')
			return snprintf(why, len, "a control character (0x%02x)", (unsigned char)*c), -1;
	n = split(line, f, 5);
	if (!n || f[0][0] == '#')
		return 0;
	if (!r->nr_events)
		r->placed = is_placed(f, n);
	else if (is_placed(f, n) != r->placed)
		return snprintf(why, len, "a %s event in a trace of %s events",
				r->placed ? "folio" : "placed", r->placed ? "placed" : "folio"), -1;
	if (r->placed)
		return parse_placed(l, f, n, why, len);
	if (strcmp(f[0], "a") && strcmp(f[0], "f"))
		return snprintf(why, len, "'%s': want 'a ID ORDER KIND' or 'f ID'", f[0]), -1;
	if (n != (f[0][0] == 'a' ? 4 : 2))
		return snprintf(why, len, "'%s' takes %s", f[0],
				f[0][0] == 'a' ? "ID ORDER KIND" : "one ID"), -1;
	if (!parse_u64(f[1], &id))
		return snprintf(why, len, "ID '%s': not a number below 2^64", f[1]), -1;
	if (l->ids.used + 1 > l->ids.cap / 2 && id_rebuild(&l->ids))
		return why[0] = 0, -1;
	slot = id_find(&l->ids, id);
	if (f[0][0] == 'f') {
		uint32_t rec = l->ids.rec[slot];

		if (rec == NO_REC)
			return snprintf(why, len, "frees %s, which is not allocated", f[1]), -1;
		l->ids.rec[slot] = TOMB;
		l->ids.live--;
		l->live -= 1UL << l->order[rec];
		r->nr_free++;
		return add_event(l, (struct age_event){ .rec = rec, .order = 0,
							.kind = AGE_FREE_EVENT }) ? (why[0] = 0, -1) : 0;
	}
	if (l->ids.rec[slot] != NO_REC)
		return snprintf(why, len, "allocates %s, which is already allocated", f[1]), -1;
	if (!parse_u64(f[2], &order) || order > MAX_FOLIO_ORDER)
		return snprintf(why, len, "ORDER '%s': want 0 to %d", f[2], MAX_FOLIO_ORDER), -1;
	if (strcmp(f[3], "anon") && strcmp(f[3], "file"))
		return snprintf(why, len, "KIND '%s': want anon or file", f[3]), -1;
	if (r->nr_alloc >= TOMB - 1)
		return snprintf(why, len, "more than %u allocations", TOMB - 1), -1;
	if (!order_room(l))
		return why[0] = 0, -1;
	l->order[r->nr_alloc] = (uint8_t)order;
	l->ids.key[slot] = id;
	l->ids.rec[slot] = (uint32_t)r->nr_alloc;
	l->ids.used++;
	l->ids.live++;
	/* The event's own index is its record: allocation number nr_alloc. */
	if (add_event(l, (struct age_event){ .rec = (uint32_t)r->nr_alloc, .order = (uint8_t)order,
					     .kind = f[3][0] == 'a' ? PK_ANON : PK_FILE }))
		return why[0] = 0, -1;
	count_alloc(l, (unsigned int)order);
	return 0;
}

/* The SHA-256 so far as 64 lowercase hex digits and a NUL; -1 if libcrypto fails. */
static int digest_hex(EVP_MD_CTX *sha, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0, i;

	if (!EVP_DigestFinal_ex(sha, md, &len) || len != 32)
		return -1;
	for (i = 0; i < len; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

/* 0 when fd is a regular file of at most TRACE_MAX_BYTES; else -1 with err. */
static int trace_file_ok(int fd, const char *path, struct mdb_err *err)
{
	struct stat st;

	if (fstat(fd, &st))
		return mdb_errf(err, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return mdb_errf(err, "%s: is a directory", path);
	if (!S_ISREG(st.st_mode))
		return mdb_errf(err, "%s: not a regular file (a FIFO, a device or a socket)", path);
	if ((unsigned long long)st.st_size > TRACE_MAX_BYTES)
		return mdb_errf(err, "%s: larger than %llu bytes", path, TRACE_MAX_BYTES);
	return 0;
}

/*
 * path opened for reading if it is a regular file of at most TRACE_MAX_BYTES;
 * NULL with err otherwise.  O_NONBLOCK only for the open: a FIFO would
 * block there until a writer came.
 */
static FILE *open_trace(const char *path, struct mdb_err *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	FILE *f = NULL;

	if (fd < 0)
		return mdb_errf(err, "%s: %s", path, strerror(errno)), NULL;
	if (trace_file_ok(fd, path, err))
		goto fail;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) || !(f = fdopen(fd, "r"))) {
		mdb_errf(err, "%s: %s", path, strerror(errno));
		goto fail;
	}
	return f;
fail:
	close(fd);
	return NULL;
}

/*
 * One line of f into buf (size LINE_MAX_BYTES + 2), its newline kept: its
 * length, 0 at the end of the file, -1 on a read error, or -2 as soon as
 * the line has more than LINE_MAX_BYTES bytes before its newline (never
 * read further: /dev/zero or a sparse file has no newline to wait for).
 */
static ssize_t read_line(FILE *f, char *buf)
{
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(f)) != EOF) {
		buf[n++] = (char)c;
		if (c == '\n')
			break;
		if (n > LINE_MAX_BYTES)
			return -2;
	}
	if (c == EOF && ferror(f))
		return -1;
	buf[n] = 0;
	return (ssize_t)n;
}

int age_replay_load(const char *path, struct age_replay *r, struct mdb_err *err)
{
	struct loader l = { .r = r };
	unsigned long lineno = 0;
	unsigned long long bytes = 0;
	char line[LINE_MAX_BYTES + 2], why[160];
	EVP_MD_CTX *sha = NULL;
	ssize_t n;
	FILE *f;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	f = open_trace(path, err);
	if (!f)
		return -1;
	r->path = strdup(path);
	sha = EVP_MD_CTX_new();
	if (!r->path || !sha || !EVP_DigestInit_ex(sha, EVP_sha256(), NULL))
		goto nomem;
	while ((n = read_line(f, line)) > 0) {
		lineno++;
		if ((bytes += (size_t)n) > TRACE_MAX_BYTES) {	/* grew while read */
			mdb_errf(err, "%s: larger than %llu bytes", path, TRACE_MAX_BYTES);
			goto out;
		}
		if (!EVP_DigestUpdate(sha, line, (size_t)n))
			goto nomem;
		if (line[n - 1] == '\n')
			line[--n] = 0;
		if (memchr(line, 0, (size_t)n)) {
			mdb_errf(err, "%s:%lu: a NUL byte", path, lineno);
			goto out;
		}
		if (parse_line(&l, line, why, sizeof(why))) {
			if (!why[0])
				goto nomem;
			mdb_errf(err, "%s:%lu: %s", path, lineno, why);
			goto out;
		}
	}
	if (n == -2) {
		mdb_errf(err, "%s:%lu: longer than %d bytes", path, lineno + 1, LINE_MAX_BYTES);
		goto out;
	}
	if (n < 0) {
		mdb_errf(err, "%s: %s", path, strerror(errno ? errno : EIO));
		goto out;
	}
	if (!r->nr_events) {
		mdb_errf(err, "%s: no events", path);
		goto out;
	}
	if (digest_hex(sha, r->sha256))
		goto nomem;
	r->live_pages = l.live;
	ret = 0;
	goto out;
nomem:
	mdb_errf(err, "%s: out of memory", path);
out:
	EVP_MD_CTX_free(sha);
	free(l.order);
	free(l.ids.key);
	free(l.ids.rec);
	fclose(f);
	if (ret)
		age_replay_release(r);
	return ret;
}

void age_replay_release(struct age_replay *r)
{
	free(r->path);
	free(r->ev);
	memset(r, 0, sizeof(*r));
}
