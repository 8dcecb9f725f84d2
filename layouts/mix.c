// SPDX-License-Identifier: GPL-2.0
/*
 * mix.c - which kinds of page, at which folio orders, fill the modelled RAM:
 * built-in profiles, JSON files, /proc/kpageflags snapshots, and the
 * placement that turns a mix into blocks of pfns.  Layout independent.
 *
 * Mix file format (also in results/mixes/README.md):
 *
 *	{
 *	  "name": "desktop",
 *	  "entries": [
 *	    {"kind": "file", "order": 0, "fraction": 0.17},
 *	    {"kind": "anon", "order": 9, "fraction": 0.1},
 *	    ...
 *	  ]
 *	}
 *
 *  - name: 1..63 characters from [A-Za-z0-9._:+-]; it ends up in benchmark
 *    names ("mix:desktop"), so nothing that would need quoting there.
 *  - kind: free, anon, file, slab, pgtable, zsmalloc, netmem, reserved.
 *  - order: integer 0..9; a block of order k covers 2^k pfns (order 9 is a
 *    2 MiB PMD folio on x86-64).
 *  - fraction: of all pfns (not of blocks) covered by blocks of that kind and
 *    order, in [0, 1]; the fractions sum to 1 within 1e-6.
 *  - each (kind, order) at most once; at most MIX_MAX_ENTRIES entries; no
 *    other keys.  The JSON itself is strict (see json.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "mix.h"
#include "rng.h"

#define NR_ORDERS		(MAX_FOLIO_ORDER + 1)
#define MIX_SUM_TOLERANCE	1e-6
#define MIX_FILE_MAX		(1UL << 20)	/* a mix file is a few KiB */

static int __attribute__((format(printf, 2, 3))) mix_err(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, MIX_ERR_LEN, fmt, ap);
	va_end(ap);
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Kinds                                                                    */

static const char *const kind_name[PK_NR] = {
	[PK_FREE] = "free",
	[PK_ANON] = "anon",
	[PK_FILE] = "file",
	[PK_SLAB] = "slab",
	[PK_PGTABLE] = "pgtable",
	[PK_ZSMALLOC] = "zsmalloc",
	[PK_NETMEM] = "netmem",
	[PK_RESERVED] = "reserved",
};

const char *page_kind_name(enum page_kind kind)
{
	return (unsigned int)kind < PK_NR ? kind_name[kind] : "?";
}

int page_kind_from_name(const char *name)
{
	for (int k = 0; k < PK_NR; k++)
		if (!strcmp(name, kind_name[k]))
			return k;
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Built-in profiles                                                        */

#define E(k, o, f)	{ .kind = PK_##k, .order = (o), .fraction = (f) }

/*
 * A 16 GiB desktop some days into a session (browser with many tabs, an IDE,
 * a compiler now and then), as /proc/meminfo and /proc/buddyinfo show one:
 *  - free 12%, most of it at high order: buddyinfo's order-10 column (counted
 *    here as pairs of order-9 blocks) holds two thirds of the free pages, the
 *    rest is spread thinly over orders 0..8;
 *  - page cache 36%: xfs (since 5.18) and ext4 (since 6.16) create large
 *    folios on readahead, whose window (128 KiB by default) bounds them near
 *    order 5; small and mmap'd files stay order 0;
 *  - anon 40%: order 0 for most, 10% as PMD THP (THP "madvise" on most
 *    distributions, used by browsers' and JITs' heaps);
 *  - slab 4%: SLUB puts the big caches (inodes, dentries' kmalloc neighbours,
 *    radix tree nodes) in order-3 slabs, small ones in order 0..2;
 *  - page tables 1% (many browser processes); the PGD is order 1 with PTI;
 *  - zsmalloc 1%: zram swap, on by default on Fedora and others;
 *  - netmem 0.2%: one NIC's page pool, order 0;
 *  - reserved 5.8%: kernel image, the memmap itself (64/4096 = 1.6%),
 *    firmware tables, crashkernel (counted as order-9 runs), vmalloc, stacks
 *    and driver pages, none of which kpageflags calls anything else.
 */
static const struct mix_entry desktop[] = {
	E(FREE, 9, 0.08), E(FREE, 8, 0.002), E(FREE, 7, 0.002), E(FREE, 6, 0.003),
	E(FREE, 5, 0.004), E(FREE, 4, 0.005), E(FREE, 3, 0.007), E(FREE, 2, 0.007),
	E(FREE, 1, 0.006), E(FREE, 0, 0.004),
	E(FILE, 0, 0.17), E(FILE, 1, 0.02), E(FILE, 2, 0.05), E(FILE, 3, 0.04),
	E(FILE, 4, 0.04), E(FILE, 5, 0.04),
	E(ANON, 0, 0.30), E(ANON, 9, 0.10),
	E(SLAB, 0, 0.01), E(SLAB, 1, 0.005), E(SLAB, 2, 0.005), E(SLAB, 3, 0.02),
	E(PGTABLE, 0, 0.0095), E(PGTABLE, 1, 0.0005),
	E(ZSMALLOC, 0, 0.01),
	E(NETMEM, 0, 0.002),
	E(RESERVED, 0, 0.038), E(RESERVED, 9, 0.02),
};

/*
 * A 256 GiB database and file server under steady load:
 *  - page cache 50% on XFS, which has used large folios since 5.18: the
 *    readahead window grows them up to PMD size on sequential scans, so the
 *    orders spread from 0 to 9;
 *  - anon 30%, 24% of it a buffer pool or JVM heap backed by PMD THP;
 *  - free 8%: reclaim keeps free near the watermarks, mostly order 9;
 *  - slab 4% as on the desktop; page tables 0.5% (THP maps at PMD level);
 *  - netmem 2%: a 100 Gb/s NIC's page pools, one per RX queue, order 0;
 *  - zsmalloc 2%: zram holding cold anon;
 *  - reserved 3.5%: memmap (1.6%), crashkernel and firmware as order-9 runs.
 */
static const struct mix_entry server[] = {
	E(FILE, 0, 0.12), E(FILE, 2, 0.06), E(FILE, 4, 0.08), E(FILE, 5, 0.06),
	E(FILE, 6, 0.05), E(FILE, 7, 0.04), E(FILE, 8, 0.03), E(FILE, 9, 0.06),
	E(ANON, 0, 0.06), E(ANON, 9, 0.24),
	E(FREE, 0, 0.01), E(FREE, 1, 0.01), E(FREE, 3, 0.01), E(FREE, 9, 0.05),
	E(SLAB, 0, 0.01), E(SLAB, 1, 0.005), E(SLAB, 2, 0.005), E(SLAB, 3, 0.02),
	E(PGTABLE, 0, 0.005),
	E(NETMEM, 0, 0.02),
	E(ZSMALLOC, 0, 0.02),
	E(RESERVED, 0, 0.015), E(RESERVED, 9, 0.02),
};

/* Every pfn its own order-0 folio: no tail pages, the clean case for cache models. */
static const struct mix_entry all_order0[] = {
	E(ANON, 0, 1.0),
};

/* A machine just booted with nothing running: all free, in pageblock-sized blocks. */
static const struct mix_entry all_free[] = {
	E(FREE, 9, 1.0),
};

#undef E

/* The names, in the order of builtins[]. */
const char *const mix_builtin_names[] = { "desktop", "server", "all-order0", "free", NULL };

static const struct builtin {
	const struct mix_entry *entry;
	unsigned int nr;
} builtins[] = {
#define B(e)		{ e, sizeof(e) / sizeof(e[0]) }
	B(desktop), B(server), B(all_order0), B(all_free),
#undef B
};

#define NR_BUILTINS	(sizeof(builtins) / sizeof(builtins[0]))

_Static_assert(sizeof(mix_builtin_names) / sizeof(mix_builtin_names[0]) == NR_BUILTINS + 1,
	       "one name per built-in profile");

/* For messages; test_mix checks it against mix_builtin_names[]. */
#define BUILTIN_LIST	"desktop, server, all-order0, free"

int mix_builtin(const char *name, struct mix *mix, char *err)
{
	for (unsigned int i = 0; i < NR_BUILTINS; i++) {
		const struct builtin *b = &builtins[i];

		if (strcmp(name, mix_builtin_names[i]))
			continue;
		memset(mix, 0, sizeof(*mix));
		snprintf(mix->name, sizeof(mix->name), "%s", mix_builtin_names[i]);
		mix->nr = b->nr;
		memcpy(mix->entry, b->entry, b->nr * sizeof(*b->entry));
		return 0;
	}
	return mix_err(err, "unknown built-in mix '%s' (built-in: %s)", name, BUILTIN_LIST);
}

/* ------------------------------------------------------------------------ */
/* Validation                                                               */

static bool name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("._:+-", c);
}

static int name_validate(const char *name, size_t len, char *err)
{
	if (!len)
		return mix_err(err, "empty mix name");
	if (len >= MIX_NAME_LEN)
		return mix_err(err, "mix name longer than %d characters", MIX_NAME_LEN - 1);
	for (size_t i = 0; i < len; i++)
		if (!name_char_ok(name[i]))
			return mix_err(err, "mix name \"%.*s\" may hold only letters, digits and . _ : + -",
				       (int)len, name);
	return 0;
}

int mix_validate(const struct mix *mix, char *err)
{
	unsigned int seen[PK_NR][NR_ORDERS] = { { 0 } };	/* index + 1 */
	const char *end = memchr(mix->name, '\0', sizeof(mix->name));
	double sum = 0;

	if (!end)
		return mix_err(err, "mix name is not NUL-terminated");
	if (name_validate(mix->name, (size_t)(end - mix->name), err))
		return -1;
	if (!mix->nr)
		return mix_err(err, "mix '%s' has no entries", mix->name);
	if (mix->nr > MIX_MAX_ENTRIES)
		return mix_err(err, "too many entries: %u (at most %d)", mix->nr, MIX_MAX_ENTRIES);
	for (unsigned int i = 0; i < mix->nr; i++) {
		const struct mix_entry *e = &mix->entry[i];

		if ((unsigned int)e->kind >= PK_NR)
			return mix_err(err, "entries[%u]: kind %d out of range", i, (int)e->kind);
		if (e->order > MAX_FOLIO_ORDER)
			return mix_err(err, "entries[%u]: order %u out of range 0..%d", i, e->order,
				       MAX_FOLIO_ORDER);
		if (!(e->fraction >= 0 && e->fraction <= 1))
			return mix_err(err, "entries[%u]: fraction %g outside [0, 1]", i, e->fraction);
		if (seen[e->kind][e->order])
			return mix_err(err, "entries[%u]: duplicate (%s, %u), first at entries[%u]", i,
				       kind_name[e->kind], e->order, seen[e->kind][e->order] - 1);
		seen[e->kind][e->order] = i + 1;
		sum += e->fraction;
	}
	if (fabs(sum - 1) > MIX_SUM_TOLERANCE)
		return mix_err(err, "fractions sum to %.9g, not 1 (tolerance %g)", sum,
			       MIX_SUM_TOLERANCE);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */

/* For messages; test_mix checks it against the kind names. */
#define KIND_LIST	"free, anon, file, slab, pgtable, zsmalloc, netmem, reserved"

/* Refuses keys outside allowed[] (NULL-terminated); what names where we are. */
static int only_keys(const struct json_value *obj, const char *const allowed[], const char *what,
		     char *err)
{
	for (size_t i = 0; i < obj->object.nr; i++) {
		const char *key = obj->object.member[i].key;
		unsigned int a;

		for (a = 0; allowed[a] && strcmp(key, allowed[a]); a++)
			;
		if (!allowed[a])
			return mix_err(err, "%sunknown key \"%s\"", what, key);
	}
	return 0;
}

static const struct json_value *need(const struct json_value *obj, const char *key,
				     enum json_type type, const char *what, char *err)
{
	const struct json_value *v = json_get(obj, key);

	if (!v) {
		mix_err(err, "%smissing \"%s\"", what, key);
		return NULL;
	}
	if (v->type != type) {
		mix_err(err, "%s\"%s\" must be %s %s, not %s", what, key,
			type == JSON_ARRAY || type == JSON_OBJECT ? "an" : "a",
			json_type_name(type), json_type_name(v->type));
		return NULL;
	}
	return v;
}

static int entry_from_json(const struct json_value *v, unsigned int i, struct mix_entry *e,
			   char *err)
{
	static const char *const keys[] = { "kind", "order", "fraction", NULL };
	const struct json_value *kind, *order, *fraction;
	char what[32];
	int k;

	snprintf(what, sizeof(what), "entries[%u]: ", i);
	if (v->type != JSON_OBJECT)
		return mix_err(err, "%smust be an object, not %s", what, json_type_name(v->type));
	if (only_keys(v, keys, what, err))
		return -1;
	kind = need(v, "kind", JSON_STRING, what, err);
	if (!kind)
		return -1;
	k = page_kind_from_name(kind->string.str);
	if (k < 0)
		return mix_err(err, "%sunknown kind \"%s\" (kinds: %s)", what, kind->string.str,
			       KIND_LIST);
	order = need(v, "order", JSON_NUMBER, what, err);
	if (!order)
		return -1;
	if (!order->number.integer)
		return mix_err(err, "%s\"order\" must be an integer", what);
	if (order->number.value < 0 || order->number.value > MAX_FOLIO_ORDER)
		return mix_err(err, "%sorder %.0f out of range 0..%d", what, order->number.value,
			       MAX_FOLIO_ORDER);
	fraction = need(v, "fraction", JSON_NUMBER, what, err);
	if (!fraction)
		return -1;
	if (!(fraction->number.value >= 0 && fraction->number.value <= 1))
		return mix_err(err, "%sfraction %g outside [0, 1]", what, fraction->number.value);
	e->kind = (enum page_kind)k;
	e->order = (unsigned int)order->number.value;
	e->fraction = fraction->number.value;
	return 0;
}

static int mix_from_json(const struct json_value *root, struct mix *mix, char *err)
{
	static const char *const keys[] = { "name", "entries", NULL };
	const struct json_value *name, *entries;

	if (root->type != JSON_OBJECT)
		return mix_err(err, "top level must be an object, not %s", json_type_name(root->type));
	if (only_keys(root, keys, "", err))
		return -1;
	name = need(root, "name", JSON_STRING, "", err);
	if (!name || name_validate(name->string.str, name->string.len, err))
		return -1;
	entries = need(root, "entries", JSON_ARRAY, "", err);
	if (!entries)
		return -1;
	if (entries->array.nr > MIX_MAX_ENTRIES)
		return mix_err(err, "too many entries: %zu (at most %d)", entries->array.nr,
			       MIX_MAX_ENTRIES);
	memset(mix, 0, sizeof(*mix));
	memcpy(mix->name, name->string.str, name->string.len);
	mix->nr = (unsigned int)entries->array.nr;
	for (unsigned int i = 0; i < mix->nr; i++)
		if (entry_from_json(&entries->array.item[i], i, &mix->entry[i], err))
			return -1;
	return mix_validate(mix, err);
}

static int parse_json(const char *text, size_t len, struct mix *mix, char *err)
{
	struct json_value root;
	struct mix m;
	int ret;

	if (json_parse(text, len, &root, err))
		return -1;
	ret = mix_from_json(&root, &m, err);
	json_free(&root);
	if (!ret)
		*mix = m;
	return ret;
}

int mix_parse_json(const char *text, struct mix *mix, char *err)
{
	return parse_json(text, strlen(text), mix, err);
}

static int read_error(char *err, const char *path, int error)
{
	return mix_err(err, "cannot read %s: %s%s", path, strerror(error),
		       error == EACCES || error == EPERM ? " (needs root)" : "");
}

/* Reads all of a small file; NUL-terminated for the caller's convenience. */
static char *slurp(const char *path, size_t max, size_t *len, char *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	struct stat st;
	char *buf;

	if (fd < 0) {
		read_error(err, path, errno);
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		read_error(err, path, EISDIR);
		return NULL;
	}
	buf = malloc(max + 1);
	if (!buf) {
		close(fd);
		mix_err(err, "%s: out of memory", path);
		return NULL;
	}
	for (;;) {
		ssize_t r = read(fd, buf + n, max + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			read_error(err, path, errno);
			goto err;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			mix_err(err, "%s: larger than %zu KiB, not a mix file", path, max >> 10);
			goto err;
		}
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
err:
	close(fd);
	free(buf);
	return NULL;
}

int mix_load_file(const char *path, struct mix *mix, char *err)
{
	char why[MIX_ERR_LEN];
	size_t len;
	char *text = slurp(path, MIX_FILE_MAX, &len, err);
	int ret;

	if (!text)
		return -1;
	ret = parse_json(text, len, mix, why);
	free(text);
	if (ret) {
		int n = snprintf(err, MIX_ERR_LEN, "%s: ", path);

		if (n < MIX_ERR_LEN)
			snprintf(err + n, MIX_ERR_LEN - (size_t)n, "%s", why);
	}
	return ret;
}

/* The shortest decimal form that reads back as the same double. */
static void format_double(char *buf, size_t size, double x)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
}

int mix_write_json(const struct mix *mix, FILE *out)
{
	char err[MIX_ERR_LEN], num[32];

	/* A valid mix needs no escaping in its name and reads back unchanged. */
	if (mix_validate(mix, err)) {
		errno = EINVAL;
		return -1;
	}
	fprintf(out, "{\n  \"name\": \"%s\",\n  \"entries\": [\n", mix->name);
	for (unsigned int i = 0; i < mix->nr; i++) {
		const struct mix_entry *e = &mix->entry[i];

		format_double(num, sizeof(num), e->fraction);
		fprintf(out, "    {\"kind\": \"%s\", \"order\": %u, \"fraction\": %s}%s\n",
			kind_name[e->kind], e->order, num, i + 1 < mix->nr ? "," : "");
	}
	fprintf(out, "  ]\n}\n");
	return ferror(out) ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* /proc/kpageflags                                                         */

/*
 * Bits from include/uapi/linux/kernel-page-flags.h; KPF_RESERVED is one of
 * the "kernel hacking assistance" bits of include/linux/kernel-page-flags.h,
 * exported all the same by fs/proc/page.c:stable_page_flags().
 */
#define KPF_LRU			5
#define KPF_SLAB		7
#define KPF_BUDDY		10
#define KPF_MMAP		11
#define KPF_ANON		12
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_HUGE		17
#define KPF_NOPAGE		20
#define KPF_THP			22
#define KPF_OFFLINE		23
#define KPF_ZERO_PAGE		24
#define KPF_IDLE		25
#define KPF_PGTABLE		26
#define KPF_RESERVED		32

#define KPF(bit)		(1ULL << KPF_##bit)

#define KPF_CHUNK_ENTRIES	8192	/* 64 KiB per read(): memory stays bounded */

/*
 * A run is the block being assembled while pfns stream by: a compound page
 * (head, then tails), or free pages.  Free pages come in two dialects:
 * current kernels flag every pfn of a free block KPF_BUDDY (stable_page_flags()
 * adds is_free_buddy_page() for pages with no references), older ones only its
 * first, leaving the rest without flags.  The second pfn of a free run says
 * which one this kernel speaks.
 */
enum kpf_run {
	RUN_NONE,
	RUN_COMPOUND,
	RUN_FREE,		/* only the first free pfn so far */
	RUN_FREE_FLAGGED,	/* every pfn KPF_BUDDY: exact */
	RUN_FREE_UNFLAGGED,	/* head, then unflagged pfns: order inferred */
};

struct kpf_scan {
	unsigned long long pages[PK_NR][NR_ORDERS];
	unsigned long long total;	/* pfns that are memory: not holes */
	enum kpf_run run;
	enum page_kind kind;
	uint64_t start, len;
};

static enum page_kind kpf_kind(uint64_t flags)
{
	if (flags & KPF(SLAB))
		return PK_SLAB;
	if (flags & KPF(PGTABLE))
		return PK_PGTABLE;
	if (flags & (KPF(RESERVED) | KPF(ZERO_PAGE) | KPF(OFFLINE)))
		return PK_RESERVED;
	if (flags & KPF(ANON))
		return PK_ANON;
	/* Not anon, so page cache: on an LRU, mapped, or a huge folio (hugetlbfs). */
	if (flags & (KPF(LRU) | KPF(MMAP) | KPF(THP) | KPF(HUGE)))
		return PK_FILE;
	/*
	 * Kernel allocations kpageflags does not name (vmalloc, stacks, page
	 * pools, zsmalloc, per-cpu free lists) and present but unmanaged memory.
	 */
	return PK_RESERVED;
}

static unsigned int floor_log2(uint64_t x)
{
	return 63 - (unsigned int)__builtin_clzll(x);
}

/* Largest order a block starting at pfn may have. */
static unsigned int max_order_at(uint64_t pfn)
{
	if (!pfn || (unsigned int)__builtin_ctzll(pfn) > MAX_FOLIO_ORDER)
		return MAX_FOLIO_ORDER;
	return (unsigned int)__builtin_ctzll(pfn);
}

/*
 * Cuts [start, start + len) into naturally aligned blocks, largest first, at
 * most order 9: an order-18 hugetlb page counts as 512 order-9 blocks.
 */
static void count_aligned(struct kpf_scan *s, enum page_kind kind, uint64_t start, uint64_t len)
{
	while (len) {
		unsigned int order = max_order_at(start);

		if (order > floor_log2(len))
			order = floor_log2(len);
		s->pages[kind][order] += 1ULL << order;
		start += 1ULL << order;
		len -= 1ULL << order;
	}
}

static void run_close(struct kpf_scan *s)
{
	unsigned int order;

	switch (s->run) {
	case RUN_NONE:
		break;
	case RUN_COMPOUND:
		count_aligned(s, s->kind, s->start, s->len);
		break;
	case RUN_FREE:
	case RUN_FREE_FLAGGED:
		count_aligned(s, PK_FREE, s->start, s->len);
		break;
	case RUN_FREE_UNFLAGGED:
		/* The block is the largest power of two; what follows it is unknown. */
		order = floor_log2(s->len);
		s->pages[PK_FREE][order] += 1ULL << order;
		s->pages[PK_RESERVED][0] += s->len - (1ULL << order);
		break;
	}
	s->run = RUN_NONE;
}

static bool kpf_unflagged(uint64_t flags)
{
	return !(flags & ~KPF(IDLE));
}

static bool kpf_free(uint64_t flags)
{
	return (flags & (KPF(BUDDY) | KPF(NOPAGE) | KPF(COMPOUND_HEAD) | KPF(COMPOUND_TAIL))) ==
	       KPF(BUDDY);
}

/* Whether the pfn after the run belongs to it; may settle a free run's dialect. */
static bool run_extends(struct kpf_scan *s, uint64_t flags)
{
	switch (s->run) {
	case RUN_COMPOUND:
		return (flags & (KPF(COMPOUND_TAIL) | KPF(NOPAGE))) == KPF(COMPOUND_TAIL);
	case RUN_FREE:
		if (kpf_free(flags)) {
			s->run = RUN_FREE_FLAGGED;
			return true;
		}
		if (kpf_unflagged(flags) && max_order_at(s->start) > 0) {
			s->run = RUN_FREE_UNFLAGGED;
			return true;
		}
		return false;
	case RUN_FREE_FLAGGED:
		return kpf_free(flags);
	case RUN_FREE_UNFLAGGED:
		return kpf_unflagged(flags) && s->len < 1ULL << max_order_at(s->start);
	case RUN_NONE:
		break;
	}
	return false;
}

static void run_open(struct kpf_scan *s, enum kpf_run run, enum page_kind kind, uint64_t pfn)
{
	s->run = run;
	s->kind = kind;
	s->start = pfn;
	s->len = 1;
}

static void kpf_pfn(struct kpf_scan *s, uint64_t pfn, uint64_t flags)
{
	if (s->run != RUN_NONE && run_extends(s, flags)) {
		s->len++;
		s->total++;
		return;
	}
	run_close(s);
	if (flags & KPF(NOPAGE))
		return;
	s->total++;
	if (flags & KPF(COMPOUND_HEAD))
		run_open(s, RUN_COMPOUND, kpf_kind(flags), pfn);
	else if (flags & KPF(BUDDY))
		run_open(s, RUN_FREE, PK_FREE, pfn);
	else
		s->pages[kpf_kind(flags)][0]++;	/* order 0, or a tail without its head */
}

static void kpf_mix_name(char *name)
{
	static const char prefix[] = "kpageflags:";
	char host[MIX_NAME_LEN - sizeof(prefix) + 1];

	if (gethostname(host, sizeof(host)) || !host[0])
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	snprintf(name, MIX_NAME_LEN, "%s%s", prefix, host);
	for (char *c = name; *c; c++)
		if (!name_char_ok(*c))
			*c = '_';
}

static int kpf_to_mix(const struct kpf_scan *s, const char *path, struct mix *mix, char *err)
{
	unsigned long long sum = 0;
	struct mix m;

	memset(&m, 0, sizeof(m));
	kpf_mix_name(m.name);
	for (int k = 0; k < PK_NR; k++) {
		for (unsigned int o = 0; o < NR_ORDERS; o++) {
			if (!s->pages[k][o])
				continue;
			m.entry[m.nr].kind = (enum page_kind)k;
			m.entry[m.nr].order = o;
			m.entry[m.nr].fraction = (double)s->pages[k][o] / (double)s->total;
			m.nr++;
			sum += s->pages[k][o];
		}
	}
	if (sum != s->total)
		return mix_err(err, "%s: classified %llu of %llu pfns (bug)", path, sum, s->total);
	if (mix_validate(&m, err))
		return -1;
	*mix = m;
	return 0;
}

int mix_from_kpageflags(const char *path, struct mix *mix, char *err)
{
	const size_t chunk = KPF_CHUNK_ENTRIES * sizeof(uint64_t);
	struct kpf_scan *s = calloc(1, sizeof(*s));
	uint64_t *buf = malloc(chunk), pfn = 0;
	size_t have = 0;	/* bytes in buf, less than one entry between reads */
	int fd = -1, ret = -1;

	if (!s || !buf) {
		mix_err(err, "%s: out of memory", path);
		goto out;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		read_error(err, path, errno);
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, (char *)buf + have, chunk - have);
		size_t nr;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			read_error(err, path, errno);
			goto out;
		}
		if (r == 0)
			break;
		have += (size_t)r;
		nr = have / sizeof(uint64_t);
		for (size_t i = 0; i < nr; i++)
			kpf_pfn(s, pfn++, buf[i]);
		have -= nr * sizeof(uint64_t);
		memmove(buf, buf + nr, have);
	}
	run_close(s);
	if (have)
		mix_err(err, "%s: ends in a partial entry (%zu bytes; entries are 8)", path, have);
	else if (!s->total)
		mix_err(err, "%s: no memory in it (empty, or only holes)", path);
	else
		ret = kpf_to_mix(s, path, mix, err);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(s);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* --mix=ARG                                                                */

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int mix_resolve(const char *arg, struct mix *mix, char *err)
{
	if (!arg || !*arg)
		return mix_err(err, "empty mix name (built-in: %s; or kpageflags, or a .json file)",
			       BUILTIN_LIST);
	if (!strcmp(arg, "kpageflags"))
		return mix_from_kpageflags("/proc/kpageflags", mix, err);
	if (strchr(arg, '/') || ends_with(arg, ".json"))
		return mix_load_file(arg, mix, err);
	if (!mix_builtin(arg, mix, err))
		return 0;
	return mix_err(err, "unknown mix '%s' (built-in: %s; or kpageflags, or a .json file)", arg,
		       BUILTIN_LIST);
}

/* ------------------------------------------------------------------------ */
/* Placement                                                                */

#define PAGEBLOCK_NR_PAGES	(1UL << PAGEBLOCK_ORDER)

/* Remainders compare at this resolution, so last-bit noise cannot reorder ties. */
#define REMAINDER_SCALE		1e9

/*
 * Whole blocks per (kind, order) covering exactly nr pfns: each gets the
 * floor of its share, then, by largest remainder (ties: lower kind, then lower
 * order), one more block each while it still fits.  What no block fills is
 * free order 0.
 */
static void count_blocks(const struct mix *mix, unsigned long nr,
			 unsigned long count[PK_NR][NR_ORDERS])
{
	long long rem[PK_NR][NR_ORDERS];
	unsigned long pages = 0;
	double sum = 0;

	for (int k = 0; k < PK_NR; k++)
		for (unsigned int o = 0; o < NR_ORDERS; o++)
			rem[k][o] = -1;
	for (unsigned int i = 0; i < mix->nr; i++)
		sum += mix->entry[i].fraction;
	for (unsigned int i = 0; i < mix->nr; i++) {
		const struct mix_entry *e = &mix->entry[i];
		double ideal = e->fraction / sum * (double)nr / (double)(1UL << e->order);
		double whole = floor(ideal + 1 / REMAINDER_SCALE);

		count[e->kind][e->order] = (unsigned long)whole;
		rem[e->kind][e->order] = llround(fmax(ideal - whole, 0) * REMAINDER_SCALE);
		pages += (unsigned long)whole << e->order;
	}
	/* Rounding error can only overshoot by a hair: give back the smallest blocks. */
	for (unsigned int o = 0; pages > nr && o < NR_ORDERS; o++)
		for (int k = 0; pages > nr && k < PK_NR; k++)
			while (pages > nr && count[k][o]) {
				count[k][o]--;
				pages -= 1UL << o;
			}
	for (;;) {
		int best_k = -1;
		unsigned int best_o = 0;

		for (int k = 0; k < PK_NR; k++)
			for (unsigned int o = 0; o < NR_ORDERS; o++)
				if (rem[k][o] > 0 && (best_k < 0 || rem[k][o] > rem[best_k][best_o])) {
					best_k = k;
					best_o = o;
				}
		if (best_k < 0)
			break;
		rem[best_k][best_o] = -1;
		if (pages + (1UL << best_o) <= nr) {
			count[best_k][best_o]++;
			pages += 1UL << best_o;
		}
	}
	count[PK_FREE][0] += nr - pages;
}

int mix_plan_init(struct mix_plan *plan, const struct mix *mix, unsigned long nr_pfns,
		  uint64_t seed, char *err)
{
	unsigned long *perm = NULL, n;

	memset(plan, 0, sizeof(*plan));
	if (mix_validate(mix, err))
		return -1;
	if (!nr_pfns)
		return mix_err(err, "cannot place mix '%s' on 0 pfns", mix->name);
	/*
	 * Only whole pageblocks take the mix and get shuffled; a partial one at
	 * the end stays in place, free order 0, so no block can straddle it.
	 */
	n = nr_pfns >> PAGEBLOCK_ORDER;
	if (n) {
		perm = malloc(n * sizeof(*perm));
		if (!perm)
			return mix_err(err, "out of memory for %lu pageblocks", n);
	}
	count_blocks(mix, n << PAGEBLOCK_ORDER, plan->remaining);
	plan->remaining[PK_FREE][0] += nr_pfns - (n << PAGEBLOCK_ORDER);
	plan->rng = seed;
	for (unsigned long i = 0; i < n; i++)
		perm[i] = i;
	for (unsigned long i = n; i > 1; i--) {
		unsigned long j = (unsigned long)mdb_rng_below(&plan->rng, i), t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	plan->nr_pfns = nr_pfns;
	plan->pageblock_perm = perm;
	plan->nr_pageblocks = n;
	plan->order = MAX_FOLIO_ORDER;
	return 0;
}

/* Blocks of this order still to place in the whole pageblocks, per kind. */
static unsigned long order_weights(const struct mix_plan *plan, unsigned int order,
				   unsigned long weight[PK_NR])
{
	unsigned long tail = plan->nr_pfns - (plan->nr_pageblocks << PAGEBLOCK_ORDER), total = 0;

	for (int k = 0; k < PK_NR; k++) {
		weight[k] = plan->remaining[k][order];
		if (k == PK_FREE && order == 0)
			weight[k] -= tail;
		total += weight[k];
	}
	return total;
}

bool mix_plan_next(struct mix_plan *plan, struct mix_block *block)
{
	unsigned long main_end = plan->nr_pageblocks << PAGEBLOCK_ORDER;
	unsigned long weight[PK_NR], total, r, v = plan->vpfn;
	int k;

	if (v >= plan->nr_pfns)
		return false;
	if (v >= main_end) {
		block->pfn = v;
		block->order = 0;
		block->kind = PK_FREE;
		plan->remaining[PK_FREE][0]--;
		plan->vpfn++;
		return true;
	}
	/*
	 * Largest order first keeps every block naturally aligned in virtual pfn
	 * space without gaps; the pageblock shuffle keeps that alignment.
	 */
	while (!(total = order_weights(plan, plan->order, weight)))
		plan->order--;
	r = (unsigned long)mdb_rng_below(&plan->rng, total);
	for (k = 0; r >= weight[k]; k++)
		r -= weight[k];
	plan->remaining[k][plan->order]--;
	block->pfn = (plan->pageblock_perm[v >> PAGEBLOCK_ORDER] << PAGEBLOCK_ORDER) |
		     (v & (PAGEBLOCK_NR_PAGES - 1));
	block->order = plan->order;
	block->kind = (enum page_kind)k;
	plan->vpfn = v + (1UL << plan->order);
	return true;
}

void mix_plan_release(struct mix_plan *plan)
{
	free(plan->pageblock_perm);
	memset(plan, 0, sizeof(*plan));
}
