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
 *  - kind: free, anon, file, slab, pgtable, zsmalloc, netmem, reserved,
 *    hugetlb.
 *  - order: an integer written without fraction or exponent (not 9.0); a
 *    block of order k covers 2^k 4 KiB pages, whatever --base-page the run
 *    models (mix_translate()).  0..9 (9 is a 2 MiB PMD folio on
 *    x86-64), 0..10 for free blocks (MAX_PAGE_ORDER), 9 or 18 (the 2 MiB
 *    and 1 GiB hstates) for hugetlb.
 *  - fraction: of all pfns (not of blocks) covered by blocks of that kind and
 *    order, in [0, 1] (-0 reads as 0); the fractions sum to 1 within 1e-6.
 *  - each (kind, order) at most once; at most MIX_MAX_ENTRIES entries; no
 *    other keys.  The JSON itself is read by jansson (harness/jsonio.h):
 *    RFC 8259, no duplicate keys, no number that overflows or underflows a
 *    double.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "grow.h"
#include "jsonio.h"
#include "mix.h"
#include "rng.h"
#include "units.h"

#define MIX_SUM_TOLERANCE	1e-6
#define MIX_FILE_MAX		(1UL << 20)	/* a mix file is a few KiB */

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
	[PK_HUGETLB] = "hugetlb",
};

const char *page_kind_name(enum page_kind kind)
{
	return mdb_name_of(kind_name, PK_NR, kind);
}

int page_kind_from_name(const char *name)
{
	return mdb_parse_name(name, kind_name, PK_NR);
}

bool mix_order_valid_at(const struct base_page *b, enum page_kind kind, unsigned int order)
{
	switch (kind) {
	case PK_FREE:
		return order <= b->max_page_order;
	case PK_HUGETLB:
		return order == b->pmd_order || order == b->top_order;
	default:
		return (unsigned int)kind < PK_NR && order <= b->pmd_order;
	}
}

bool mix_has_hugetlb(const struct mix *mix, unsigned int order)
{
	for (unsigned int i = 0; i < mix->nr; i++)
		if (mix->entry[i].kind == PK_HUGETLB && mix->entry[i].fraction > 0 &&
		    (!order || mix->entry[i].order == order))
			return true;
	return false;
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

int mix_builtin(const char *name, struct mix *mix, struct mdb_err *err)
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
	return mdb_errf(err, "unknown built-in mix '%s' (built-in: %s)", name, BUILTIN_LIST);
}

/* ------------------------------------------------------------------------ */
/* Validation                                                               */

static bool name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("._:+-", c);
}

static int name_validate(const char *name, size_t len, struct mdb_err *err)
{
	if (!len)
		return mdb_errf(err, "empty mix name");
	if (len >= MIX_NAME_LEN)
		return mdb_errf(err, "mix name longer than %d characters", MIX_NAME_LEN - 1);
	for (size_t i = 0; i < len; i++)
		if (!name_char_ok(name[i]))
			return mdb_errf(err, "mix name \"%.*s\" may hold only letters, digits and . _ : + -",
					(int)len, name);
	return 0;
}

/* A JSON order can be any integer, a struct's any unsigned: one message for both. */
static int bad_order(const struct base_page *b, unsigned int i, enum page_kind kind,
		     long long order, struct mdb_err *err)
{
	unsigned int pmd = b->pmd_order + b->shift, top = b->top_order + b->shift;

	/* Both at least 2 MiB: in MiB below a GiB, else in GiB. */
	if (kind == PK_HUGETLB)
		return mdb_errf(err, "entries[%u]: hugetlb order %lld: the hstates are order %u "
				"(%llu %s) and %u (%llu %s)", i, order, b->pmd_order,
				1ULL << (pmd - (pmd < 30 ? 20 : 30)), pmd < 30 ? "MiB" : "GiB",
				b->top_order, 1ULL << (top - (top < 30 ? 20 : 30)),
				top < 30 ? "MiB" : "GiB");
	return mdb_errf(err, "entries[%u]: order %lld out of range 0..%u", i, order,
			kind == PK_FREE ? b->max_page_order : b->pmd_order);
}

static int validate_at(const struct base_page *b, const struct mix *mix, struct mdb_err *err)
{
	unsigned int seen[PK_NR][MIX_NR_ORDERS] = { { 0 } };	/* index + 1 */
	const char *end = memchr(mix->name, '\0', sizeof(mix->name));
	double sum = 0;

	if (!end)
		return mdb_errf(err, "mix name is not NUL-terminated");
	if (name_validate(mix->name, (size_t)(end - mix->name), err))
		return -1;
	if (!mix->nr)
		return mdb_errf(err, "mix '%s' has no entries", mix->name);
	if (mix->nr > MIX_MAX_ENTRIES)
		return mdb_errf(err, "too many entries: %u (at most %d)", mix->nr, MIX_MAX_ENTRIES);
	for (unsigned int i = 0; i < mix->nr; i++) {
		const struct mix_entry *e = &mix->entry[i];

		if ((unsigned int)e->kind >= PK_NR)
			return mdb_errf(err, "entries[%u]: kind %d out of range", i, (int)e->kind);
		if (!mix_order_valid_at(b, e->kind, e->order))
			return bad_order(b, i, e->kind, e->order, err);
		/* 17 digits: 1.0000001 must not read "1 outside [0, 1]". */
		if (!(e->fraction >= 0 && e->fraction <= 1))
			return mdb_errf(err, "entries[%u]: fraction %.17g outside [0, 1]", i,
					e->fraction);
		if (seen[e->kind][e->order])
			return mdb_errf(err, "entries[%u]: duplicate (%s, %u), first at entries[%u]", i,
					kind_name[e->kind], e->order, seen[e->kind][e->order] - 1);
		seen[e->kind][e->order] = i + 1;
		sum += e->fraction;
	}
	if (fabs(sum - 1) > MIX_SUM_TOLERANCE)
		return mdb_errf(err, "fractions sum to %.17g, not 1 (tolerance %g)", sum,
				MIX_SUM_TOLERANCE);
	return 0;
}

int mix_validate(const struct mix *mix, struct mdb_err *err)
{
	return validate_at(&mdb_base, mix, err);
}

int mix_validate_4k(const struct mix *mix, struct mdb_err *err)
{
	return validate_at(&base_pages[0], mix, err);
}

/* An order of 4 KiB pages in b's pages (mix.h says why). */
static unsigned int order_at(const struct base_page *b, enum page_kind kind, unsigned int order)
{
	unsigned int d = b->shift - BASE_PAGE_MIN_SHIFT;

	if (kind == PK_HUGETLB)
		return order == MIX_4K_HUGETLB_PUD ? b->top_order : b->pmd_order;
	return order > d ? order - d : 0;
}

int mix_translate(const struct mix *in, const struct base_page *b, struct mix *out,
		  struct mix_translation how[MIX_MAX_ENTRIES], struct mdb_err *err)
{
	int at[PK_NR][MIX_NR_ORDERS];	/* index in m + 1 */
	struct mix m;

	if (mix_validate_4k(in, err))
		return -1;
	memset(at, 0, sizeof(at));
	memset(&m, 0, sizeof(m));
	memcpy(m.name, in->name, sizeof(m.name));
	memcpy(m.classified, in->classified, sizeof(m.classified));
	/* A snapshot's pfn-for-pfn placement is of 4 KiB pfns: elsewhere its fractions are placed. */
	m.placed = b->shift == BASE_PAGE_MIN_SHIFT ? in->placed : NULL;
	for (unsigned int i = 0; i < in->nr; i++) {
		const struct mix_entry *e = &in->entry[i];
		unsigned int o = order_at(b, e->kind, e->order);

		if (how)
			how[i] = (struct mix_translation){ e->kind, e->order, o, e->fraction };
		if (!at[e->kind][o]) {
			m.entry[m.nr] = (struct mix_entry){ e->kind, o, 0 };
			at[e->kind][o] = (int)++m.nr;
		}
		m.entry[at[e->kind][o] - 1].fraction += e->fraction;
	}
	if (validate_at(b, &m, err))
		return -1;
	*out = m;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */

/* For messages; test_mix checks it against the kind names. */
#define KIND_LIST	"free, anon, file, slab, pgtable, zsmalloc, netmem, reserved, hugetlb"

/* v's type as a mix file's reader thinks of it: JSON has numbers, not integers and reals. */
static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "object";
	case JSON_ARRAY:
		return "array";
	case JSON_STRING:
		return "string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "boolean";
	case JSON_NULL:
		break;
	}
	return "null";
}

/* "<what>must be an object, not array"; 0 if v is of type want. */
static int check_type(const json_t *v, const char *want, const char *what, struct mdb_err *err)
{
	if (!strcmp(type_name(v), want))
		return 0;
	return mdb_errf(err, "%smust be %s %s, not %s", what,
			want[0] == 'a' || want[0] == 'o' ? "an" : "a", want, type_name(v));
}

/* Refuses keys outside allowed[] (NULL-terminated); where says where we are. */
static int only_keys(const json_t *obj, const char *const allowed[], const char *where,
		     struct mdb_err *err)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)obj, key, v) {
		unsigned int a;

		for (a = 0; allowed[a] && strcmp(key, allowed[a]); a++)
			;
		if (!allowed[a])
			return mdb_errf(err, "%sunknown key \"%s\"", where, key);
	}
	return 0;
}

/* obj's member key, of type want ("string", "number", ...); NULL with err. */
static const json_t *member(const json_t *obj, const char *key, const char *want,
			    const char *where, struct mdb_err *err)
{
	const json_t *v = json_object_get(obj, key);
	char what[32];

	if (!v) {
		mdb_errf(err, "%smissing \"%s\"", where, key);
		return NULL;
	}
	snprintf(what, sizeof(what), "%s\"%s\" ", where, key);
	return check_type(v, want, what, err) ? NULL : v;
}

/*
 * One entry, as far as its own keys go; the range of its fraction, and
 * whether its (kind, order) comes twice, are mix_validate()'s.
 */
static int entry_from_json(const struct base_page *b, const json_t *v, unsigned int i,
			   struct mix_entry *e, struct mdb_err *err)
{
	static const char *const keys[] = { "kind", "order", "fraction", NULL };
	const json_t *kind, *order, *fraction;
	json_int_t o;
	char where[32];
	int k;

	snprintf(where, sizeof(where), "entries[%u]: ", i);
	if (check_type(v, "object", where, err) || only_keys(v, keys, where, err))
		return -1;
	kind = member(v, "kind", "string", where, err);
	if (!kind)
		return -1;
	k = page_kind_from_name(json_string_value(kind));
	if (k < 0)
		return mdb_errf(err, "%sunknown kind \"%s\" (kinds: %s)", where,
				json_string_value(kind), KIND_LIST);
	order = member(v, "order", "number", where, err);
	if (!order)
		return -1;
	/* jansson reads a number as an integer exactly when it has no fraction or exponent. */
	if (!json_is_integer(order))
		return mdb_errf(err, "%s\"order\" must be an integer", where);
	o = json_integer_value(order);
	if (o < 0 || o > MIX_MAX_ORDER || !mix_order_valid_at(b, (enum page_kind)k, (unsigned int)o))
		return bad_order(b, i, (enum page_kind)k, o, err);
	fraction = member(v, "fraction", "number", where, err);
	if (!fraction)
		return -1;
	e->kind = (enum page_kind)k;
	e->order = (unsigned int)o;
	e->fraction = json_number_value(fraction);
	if (e->fraction == 0)
		e->fraction = 0;	/* -0 too: it is written back as 0 */
	return 0;
}

int mix_from_json_at(const json_t *doc, const struct base_page *b, struct mix *mix,
		     struct mdb_err *err)
{
	static const char *const keys[] = { "name", "entries", "classified", NULL };
	const json_t *name, *entries, *classified;
	struct mix m;

	if (check_type(doc, "object", "top level ", err) || only_keys(doc, keys, "", err))
		return -1;
	name = member(doc, "name", "string", "", err);
	if (!name || name_validate(json_string_value(name), json_string_length(name), err))
		return -1;
	entries = member(doc, "entries", "array", "", err);
	if (!entries)
		return -1;
	if (json_array_size(entries) > MIX_MAX_ENTRIES)
		return mdb_errf(err, "too many entries: %zu (at most %d)", json_array_size(entries),
				MIX_MAX_ENTRIES);
	memset(&m, 0, sizeof(m));
	memcpy(m.name, json_string_value(name), json_string_length(name));
	classified = json_object_get(doc, "classified");
	if (classified) {
		if (!json_is_string(classified) || json_string_length(classified) >= MIX_CLASSIFIED_LEN)
			return mdb_errf(err, "classified: want a string of at most %d bytes",
					MIX_CLASSIFIED_LEN - 1);
		memcpy(m.classified, json_string_value(classified), json_string_length(classified));
	}
	m.nr = (unsigned int)json_array_size(entries);
	for (unsigned int i = 0; i < m.nr; i++)
		if (entry_from_json(b, json_array_get(entries, i), i, &m.entry[i], err))
			return -1;
	if (validate_at(b, &m, err))
		return -1;
	*mix = m;
	return 0;
}

int mix_from_json(const json_t *doc, struct mix *mix, struct mdb_err *err)
{
	return mix_from_json_at(doc, &base_pages[0], mix, err);
}

int mix_parse_json(const char *text, struct mix *mix, struct mdb_err *err)
{
	json_t *doc = mdb_json_load_text(text, strlen(text), "mix JSON", err);
	int ret;

	if (!doc)
		return -1;
	ret = mix_from_json(doc, mix, err);
	json_decref(doc);
	return ret;
}

int mix_load_file(const char *path, struct mix *mix, struct mdb_err *err)
{
	json_t *doc = mdb_json_load_file(path, MIX_FILE_MAX, err);	/* errors name path */
	int ret;

	if (!doc)
		return -1;
	ret = mix_from_json(doc, mix, err);
	json_decref(doc);
	if (ret)
		mdb_err_prefix(err, "%s", path);
	return ret;
}

/* 0 and 1 as integers: -0 is written 0, and no fraction reads "1.0". */
static json_t *fraction_to_json(double fraction)
{
	if (fraction == 0 || fraction == 1)
		return json_integer((json_int_t)fraction);
	return json_real(fraction);
}

json_t *mix_to_json(const struct mix *mix)
{
	struct mdb_err err;
	json_t *doc, *entries;

	/* A valid mix (as given, or placed) needs no escaping in its name and reads back unchanged. */
	if (mix_validate_4k(mix, &err) && mix_validate(mix, &err))
		return NULL;
	entries = json_array();
	doc = json_pack("{s:s, s:o}", "name", mix->name, "entries", entries);
	if (!doc)
		return NULL;
	if (mix->classified[0])
		json_object_set_new(doc, "classified", json_string(mix->classified));
	for (unsigned int i = 0; i < mix->nr; i++) {
		const struct mix_entry *e = &mix->entry[i];
		json_t *entry = json_pack("{s:s, s:i, s:o}", "kind", kind_name[e->kind],
					  "order", (int)e->order,
					  "fraction", fraction_to_json(e->fraction));

		if (json_array_append_new(entries, entry)) {
			json_decref(doc);
			return NULL;
		}
	}
	return doc;
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
	RUN_UNFLAGGED,		/* pfns without any flag, in one zone: decided at the end */
};

/*
 * A pfn with no flag at all is free memory on some kernels (a free block's
 * pages past its head; free pages of a VM's memory the kernel reports
 * unflagged) and reserved memory on others (present but never managed:
 * memblock reservations, a balloon), or not memory at all (a hole in the
 * physical map that has a memmap).  kpageflags alone cannot tell; beside it
 * in the same directory:
 *  - /proc/iomem: an unflagged pfn outside every "System RAM" range is a
 *    hole, left out of the mix like KPF_NOPAGE;
 *  - /proc/zoneinfo: each zone's span (start_pfn, spanned), and present -
 *    managed, the pages the buddy allocator never got (reported);
 *  - /proc/buddyinfo: each zone's free pages (the free_area counts the
 *    buddy keeps, mm/vmstat.c frag_show_print()).  Free pages the scan did
 *    not find flagged KPF_BUDDY in a zone are taken from its unflagged
 *    pfns, largest aligned blocks first; the rest of them is reserved.
 * Without zoneinfo and buddyinfo every unflagged pfn is reserved, and the
 * mix says so (mix->classified).
 */
#define KPF_MAX_ZONES		32	/* (node, zone) pairs; one more: pfns in none */

struct kpf_zone {
	int node;
	char name[16];
	uint64_t start, end;		/* [start_pfn, start_pfn + spanned) */
	unsigned long long spanned, present, managed;
	unsigned long long buddy_free;	/* /proc/buddyinfo */
	unsigned long long flagged_free;	/* free pfns the scan found flagged */
	unsigned long long unflagged[MIX_4K_MAX_PAGE_ORDER + 1];	/* aligned blocks, in pages */
	unsigned long long take[MIX_4K_MAX_PAGE_ORDER + 1];	/* of them, blocks counted free */
};

struct kpf_ram {
	uint64_t start, end;		/* pfns of a System RAM range: [start, end) */
};

struct kpf_scan {
	unsigned long long pages[PK_NR][MIX_NR_ORDERS];
	unsigned long long total;	/* pfns that are memory: not holes */
	enum kpf_run run;
	enum page_kind kind;
	uint64_t start, len;
	unsigned int zone;		/* RUN_UNFLAGGED's */
	/* The evidence for unflagged pfns; nr_zones 0 or nr_ram 0: none. */
	struct kpf_zone zones[KPF_MAX_ZONES + 1];
	unsigned int nr_zones;
	struct kpf_ram *ram;
	unsigned int nr_ram, ram_at;
	unsigned long long holes;	/* unflagged pfns outside System RAM */
	bool have_buddy;		/* buddyinfo read for the zones */
	/* Where each block lies (struct mix_placed), the unflagged blocks decided last. */
	uint8_t *code;
	uint64_t nr_code;
	size_t cap_code;
	struct kpf_undecided {
		uint64_t pfn;
		unsigned int order, zone;
	} *und;
	uint64_t nr_und;
	size_t cap_und;
	bool oom;
};

/* A mix_placed code: 0 inside a block, else its kind and order at its head. */
static uint8_t placed_code(enum page_kind kind, unsigned int order)
{
	return (uint8_t)(1 + kind * MIX_NR_ORDERS + order);
}

_Static_assert(1 + PK_NR * MIX_NR_ORDERS <= 255, "a placed block's code fits a byte");

/* Grows *buf (of *cap elements of size) to hold want, the new room zeroed; false when out of memory. */
static bool kpf_grow(void **buf, size_t *cap, size_t want, size_t size)
{
	size_t old = *cap;
	void *p = mdb_grow(*buf, cap, want, size);

	if (!p)
		return false;
	memset((char *)p + old * size, 0, (*cap - old) * size);
	*buf = p;
	return true;
}

/* Where the snapshot saw a block: its head's code (tails stay 0). */
static void kpf_place(struct kpf_scan *s, enum page_kind kind, uint64_t pfn, unsigned int order)
{
	if (!kpf_grow((void **)&s->code, &s->cap_code, pfn + (1ULL << order), 1)) {
		s->oom = true;
		return;
	}
	s->code[pfn] = placed_code(kind, order);
	if (s->nr_code < pfn + (1ULL << order))
		s->nr_code = pfn + (1ULL << order);
}

/* A block of the mix, counted and placed where it lies. */
static void kpf_block(struct kpf_scan *s, enum page_kind kind, uint64_t pfn, unsigned int order)
{
	s->pages[kind][order] += 1ULL << order;
	kpf_place(s, kind, pfn, order);
}

static int read_error(struct mdb_err *err, const char *path, int error)
{
	return mdb_errf(err, "cannot read %s: %s%s", path, strerror(error),
			error == EACCES || error == EPERM ? " (needs root)" : "");
}

/*
 * stable_page_flags() sets KPF_HUGE on every page of a hugetlb folio
 * (folio_test_hugetlb() of page_folio()), whether hugetlbfs, SHM_HUGETLB or
 * MAP_HUGETLB|MAP_ANONYMOUS, in use or free in the pool: a kind of its own,
 * before anon.
 */
static enum page_kind kpf_kind(uint64_t flags)
{
	if (flags & KPF(HUGE))
		return PK_HUGETLB;
	if (flags & KPF(SLAB))
		return PK_SLAB;
	if (flags & KPF(PGTABLE))
		return PK_PGTABLE;
	if (flags & (KPF(RESERVED) | KPF(ZERO_PAGE) | KPF(OFFLINE)))
		return PK_RESERVED;
	if (flags & KPF(ANON))
		return PK_ANON;
	/* Not anon, so page cache: on an LRU, mapped, or a THP. */
	if (flags & (KPF(LRU) | KPF(MMAP) | KPF(THP)))
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

/* Largest order a block starting at pfn may have: its alignment, at most cap. */
static unsigned int max_order_at(uint64_t pfn, unsigned int cap)
{
	if (!pfn || (unsigned int)__builtin_ctzll(pfn) > cap)
		return cap;
	return (unsigned int)__builtin_ctzll(pfn);
}

/* The largest order a kind takes in a snapshot's blocks (hugetlb: count_hugetlb()). */
static unsigned int kpf_max_order(enum page_kind kind)
{
	return kind == PK_FREE ? MIX_4K_MAX_PAGE_ORDER : MIX_4K_MAX_FOLIO_ORDER;
}

/*
 * Cuts [start, start + len) into naturally aligned blocks, largest first, at
 * most the kind's largest order: a free run of 2048 pages counts as two
 * order-10 blocks, an order-10 slab (none exists on x86-64) as two order-9.
 */
static void count_aligned(struct kpf_scan *s, enum page_kind kind, uint64_t start, uint64_t len)
{
	while (len) {
		unsigned int order = max_order_at(start, kpf_max_order(kind));

		if (order > floor_log2(len))
			order = floor_log2(len);
		kpf_block(s, kind, start, order);
		start += 1ULL << order;
		len -= 1ULL << order;
	}
}

/*
 * A hugetlb folio keeps its true order when it is one of the x86-64
 * hstates (2 MiB, 1 GiB).  Another size (another architecture's hstate,
 * arm64's 64 KiB or 32 MiB, or a run cut short) is cut into aligned pieces
 * of those orders, largest first; what is left under 2 MiB counts as file
 * blocks, as every hugetlb page did before hugetlb was a kind.
 */
static void count_hugetlb(struct kpf_scan *s, uint64_t start, uint64_t len)
{
	while (len >= 1ULL << MIX_4K_HUGETLB_PMD) {
		unsigned int order = max_order_at(start, MIX_MAX_ORDER);

		if (order > floor_log2(len))
			order = floor_log2(len);
		if (order >= MIX_4K_HUGETLB_PUD)
			order = MIX_4K_HUGETLB_PUD;
		else if (order >= MIX_4K_HUGETLB_PMD)
			order = MIX_4K_HUGETLB_PMD;
		else
			break;		/* not 2 MiB aligned */
		kpf_block(s, PK_HUGETLB, start, order);
		start += 1ULL << order;
		len -= 1ULL << order;
	}
	count_aligned(s, PK_FILE, start, len);
}

/* The zone whose span holds pfn; nr_zones (no zone) if none does. */
static unsigned int kpf_zone_of(const struct kpf_scan *s, uint64_t pfn)
{
	unsigned int z;

	for (z = 0; z < s->nr_zones; z++)
		if (pfn >= s->zones[z].start && pfn < s->zones[z].end)
			return z;
	return s->nr_zones;
}

/* Whether pfn lies in a System RAM range of /proc/iomem (pfns come in ascending order). */
static bool kpf_in_ram(struct kpf_scan *s, uint64_t pfn)
{
	if (!s->nr_ram)
		return true;
	while (s->ram_at < s->nr_ram && s->ram[s->ram_at].end <= pfn)
		s->ram_at++;
	return s->ram_at < s->nr_ram && pfn >= s->ram[s->ram_at].start;
}

/* Unflagged pfns [start, start + len) of zone z: aligned blocks, decided at the end. */
static void add_unflagged(struct kpf_scan *s, unsigned int z, uint64_t start, uint64_t len)
{
	while (len) {
		unsigned int order = max_order_at(start, MIX_4K_MAX_PAGE_ORDER);

		if (order > floor_log2(len))
			order = floor_log2(len);
		s->zones[z].unflagged[order] += 1ULL << order;
		if (kpf_grow((void **)&s->und, &s->cap_und, s->nr_und + 1, sizeof(*s->und)))
			s->und[s->nr_und++] = (struct kpf_undecided){ start, order, z };
		else
			s->oom = true;
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
		if (s->kind == PK_HUGETLB)
			count_hugetlb(s, s->start, s->len);
		else
			count_aligned(s, s->kind, s->start, s->len);
		break;
	case RUN_FREE:
	case RUN_FREE_FLAGGED:
		count_aligned(s, PK_FREE, s->start, s->len);
		s->zones[kpf_zone_of(s, s->start)].flagged_free += s->len;
		break;
	case RUN_FREE_UNFLAGGED:
		/* The block is the largest power of two; what follows it is unknown. */
		order = floor_log2(s->len);
		kpf_block(s, PK_FREE, s->start, order);
		s->zones[kpf_zone_of(s, s->start)].flagged_free += 1ULL << order;
		add_unflagged(s, kpf_zone_of(s, s->start), s->start + (1ULL << order),
			      s->len - (1ULL << order));
		break;
	case RUN_UNFLAGGED:
		add_unflagged(s, s->zone, s->start, s->len);
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
static bool run_extends(struct kpf_scan *s, uint64_t pfn, uint64_t flags)
{
	switch (s->run) {
	case RUN_UNFLAGGED:
		return kpf_unflagged(flags) && kpf_zone_of(s, pfn) == s->zone && kpf_in_ram(s, pfn);
	case RUN_COMPOUND:
		return (flags & (KPF(COMPOUND_TAIL) | KPF(NOPAGE))) == KPF(COMPOUND_TAIL);
	case RUN_FREE:
		if (kpf_free(flags)) {
			s->run = RUN_FREE_FLAGGED;
			return true;
		}
		if (kpf_unflagged(flags) && max_order_at(s->start, MIX_4K_MAX_PAGE_ORDER) > 0) {
			s->run = RUN_FREE_UNFLAGGED;
			return true;
		}
		return false;
	case RUN_FREE_FLAGGED:
		return kpf_free(flags);
	case RUN_FREE_UNFLAGGED:
		return kpf_unflagged(flags) && s->len < 1ULL << max_order_at(s->start, MIX_4K_MAX_PAGE_ORDER);
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
	if (s->run != RUN_NONE && run_extends(s, pfn, flags)) {
		s->len++;
		s->total++;
		return;
	}
	run_close(s);
	/* Holes stay where they are: placed as reserved pages, outside the fractions. */
	if (flags & KPF(NOPAGE)) {
		kpf_place(s, PK_RESERVED, pfn, 0);
		return;
	}
	if (kpf_unflagged(flags) && !kpf_in_ram(s, pfn)) {
		s->holes++;		/* a memmap over no RAM: not memory */
		kpf_place(s, PK_RESERVED, pfn, 0);
		return;
	}
	s->total++;
	if (kpf_unflagged(flags)) {
		run_open(s, RUN_UNFLAGGED, PK_RESERVED, pfn);
		s->zone = kpf_zone_of(s, pfn);
	} else if (flags & KPF(COMPOUND_HEAD))
		run_open(s, RUN_COMPOUND, kpf_kind(flags), pfn);
	else if (flags & KPF(BUDDY))
		run_open(s, RUN_FREE, PK_FREE, pfn);
	else if (kpf_kind(flags) == PK_HUGETLB)
		count_hugetlb(s, pfn, 1);	/* a tail without its head: a file page */
	else
		kpf_block(s, kpf_kind(flags), pfn, 0);	/* order 0, or a tail without its head */
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

/*
 * What the snapshot's text siblings may be: /proc/zoneinfo of a large NUMA
 * machine (its per-CPU pagesets) runs to a few MiB; the rest is smaller.
 * The pfns the snapshot may hold past the end its zones and System RAM
 * span: kpageflags runs to get_max_dump_pfn(), max_pfn rounded up to a
 * memory section (128 MiB on x86-64 and arm64), here to 1 GiB.  Without
 * either, a 46-bit physical address space (x86-64's MAX_PHYSMEM_BITS
 * with 4-level paging).  Anything more is not /proc.
 */
#define KPF_TEXT_MAX		(64UL << 20)
#define KPF_SECTION_PFNS	(1ULL << 18)
#define KPF_MAX_PFNS		(1ULL << (46 - 12))

/* A text sibling of the snapshot, read line by line with a bound on its bytes. */
struct kpf_text {
	FILE *f;
	char path[4096];
	unsigned long bytes;
};

/*
 * path's sibling name (/proc/kpageflags -> /proc/zoneinfo) opened into t:
 * 1, 0 if absent, or -1 with err when it is not a regular file (a FIFO
 * would block the open, /dev/zero never end).
 */
static int kpf_sibling(const char *path, const char *name, struct kpf_text *t,
		       struct mdb_err *err)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	int fd;

	t->f = NULL;
	t->bytes = 0;
	if (snprintf(t->path, sizeof(t->path), "%.*s%s", slash ? (int)(slash - path + 1) : 0, path,
		     name) >= (int)sizeof(t->path))
		return 0;
	fd = open(t->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return mdb_errf(err, "%s: not a regular file (a FIFO, a device or a socket)", t->path);
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) || !(t->f = fdopen(fd, "r"))) {
		close(fd);
		return 0;
	}
	return 1;
}

/* The next line of t into line: 1, 0 at its end, -1 with err past KPF_TEXT_MAX bytes. */
static int kpf_line(struct kpf_text *t, char *line, int size, struct mdb_err *err)
{
	if (!fgets(line, size, t->f))
		return 0;
	t->bytes += strlen(line);
	if (t->bytes > KPF_TEXT_MAX)
		return mdb_errf(err, "%s: longer than %lu bytes", t->path, KPF_TEXT_MAX);
	return 1;
}

/* A count of a /proc text file: an unsigned decimal (no sign: "-1" is not 2^64 - 1). */
static bool kpf_count(const char *s, unsigned long long *v, int *used)
{
	const char *p = s;
	char *end;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return false;
	errno = 0;
	*v = strtoull(p, &end, 10);
	*used = (int)(end - s);
	return !errno;
}

/* The zone named on a "Node N, zone NAME" line, made if new (zoneinfo) or found (buddyinfo). */
static struct kpf_zone *kpf_zone_line(struct kpf_scan *s, const char *line, bool make, int *used)
{
	struct kpf_zone *z;
	char name[16];
	int node;

	if (sscanf(line, "Node %d, zone %15s%n", &node, name, used) != 2)
		return NULL;
	for (unsigned int i = 0; i < s->nr_zones; i++)
		if (s->zones[i].node == node && !strcmp(s->zones[i].name, name))
			return &s->zones[i];
	if (!make || s->nr_zones == KPF_MAX_ZONES)
		return NULL;
	z = &s->zones[s->nr_zones++];
	z->node = node;
	snprintf(z->name, sizeof(z->name), "%s", name);
	return z;
}

/*
 * A zone of zoneinfo, its end set: 0, or -1 with err for one no machine
 * has (a span past the physical address space, more pages present than
 * spanned, more managed than present).
 */
static int kpf_zone_check(const struct kpf_text *t, struct kpf_zone *z, struct mdb_err *err)
{
	if (z->start > KPF_MAX_PFNS || z->spanned > KPF_MAX_PFNS - z->start)
		return mdb_errf(err, "%s: node %d, zone %s: spans %llu pfns from pfn %llu, past the "
				"%llu a machine has", t->path, z->node, z->name, z->spanned,
				(unsigned long long)z->start, KPF_MAX_PFNS);
	if (z->present > z->spanned || z->managed > z->present)
		return mdb_errf(err, "%s: node %d, zone %s: %llu pages present, %llu managed in a span "
				"of %llu", t->path, z->node, z->name, z->present, z->managed, z->spanned);
	z->end = z->start + z->spanned;
	return 0;
}

/* /proc/zoneinfo: spans, present and managed pages, each checked against the zone. */
static int kpf_read_zoneinfo(struct kpf_scan *s, const char *path, struct mdb_err *err)
{
	struct kpf_zone *z = NULL;
	struct kpf_text t;
	unsigned long long v;
	char line[512];
	int used, r;

	r = kpf_sibling(path, "zoneinfo", &t, err);
	if (r <= 0)
		return r;
	while ((r = kpf_line(&t, line, sizeof(line), err)) > 0) {
		struct kpf_zone *n = kpf_zone_line(s, line, true, &used);

		if (n) {
			if (z && kpf_zone_check(&t, z, err))
				break;
			z = n;
		} else if (z && sscanf(line, " spanned %llu", &v) == 1) {
			z->spanned = v;
		} else if (z && sscanf(line, " present %llu", &v) == 1) {
			z->present = v;
		} else if (z && sscanf(line, " managed %llu", &v) == 1) {
			z->managed = v;
		} else if (z && sscanf(line, " start_pfn: %llu", &v) == 1) {
			z->start = v;
		}
	}
	if (!r && z)
		r = kpf_zone_check(&t, z, err);
	else if (r > 0)		/* broke out on a zone that failed its check */
		r = -1;
	fclose(t.f);
	return r < 0 ? -1 : 0;
}

/*
 * A zone's line of /proc/buddyinfo: its free blocks of each order, each
 * count and their sum of pages checked against the pages the zone manages
 * (free pages are managed pages).  0, or -1 with err.
 */
static int kpf_buddy_line(const struct kpf_text *t, struct kpf_zone *z, const char *p,
			  struct mdb_err *err)
{
	unsigned long long v, sum = 0;
	unsigned int order = 0;
	int n;

	for (; kpf_count(p, &v, &n); p += n, order++) {
		if (order >= 64 || v > (z->managed - sum) >> order)
			return mdb_errf(err, "%s: node %d, zone %s: %llu free blocks at order %u, more "
					"than the %llu pages the zone manages (/proc/zoneinfo) hold",
					t->path, z->node, z->name, v, order, z->managed);
		sum += v << order;
	}
	if (*p && strspn(p, " \t\n") != strlen(p))
		return mdb_errf(err, "%s: node %d, zone %s: not a count at order %u", t->path,
				z->node, z->name, order);
	z->buddy_free = sum;
	return 0;
}

/* /proc/zoneinfo's zones, then /proc/buddyinfo's free pages of each; 0, or -1 with err. */
static int kpf_read_zones(struct kpf_scan *s, const char *path, struct mdb_err *err)
{
	struct kpf_text t;
	char line[512];
	int used, r;

	if (kpf_read_zoneinfo(s, path, err))
		return -1;
	r = kpf_sibling(path, "buddyinfo", &t, err);
	if (r < 0)
		return -1;
	if (!r) {
		s->nr_zones = 0;	/* spans alone tell nothing */
		return 0;
	}
	while ((r = kpf_line(&t, line, sizeof(line), err)) > 0) {
		struct kpf_zone *z = kpf_zone_line(s, line, false, &used);

		if (!z)
			continue;
		if (kpf_buddy_line(&t, z, line + used, err)) {
			r = -1;
			break;
		}
		s->have_buddy = true;
	}
	fclose(t.f);
	if (!s->have_buddy)
		s->nr_zones = 0;
	return r < 0 ? -1 : 0;
}

static int ram_cmp(const void *a, const void *b)
{
	const struct kpf_ram *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * /proc/iomem's "System RAM" ranges, as pfns in ascending order (root sees
 * the addresses, others 0): [a >> 12, (b >> 12) + 1), b the range's last
 * byte, which never wraps (0-ffffffffffffffff is pfns 0 to 2^52).
 */
static int kpf_read_ram(struct kpf_scan *s, const char *path, struct mdb_err *err)
{
	unsigned long long a, b;
	struct kpf_text t;
	bool any = false;
	char line[512];
	int n, r;

	r = kpf_sibling(path, "iomem", &t, err);
	if (r <= 0)
		return r;
	while ((r = kpf_line(&t, line, sizeof(line), err)) > 0) {
		struct kpf_ram *ram;

		if (sscanf(line, "%llx-%llx : %n", &a, &b, &n) != 2 || strncmp(line + n, "System RAM", 10))
			continue;
		if (a > b) {
			r = mdb_errf(err, "%s: System RAM %llx-%llx ends before it starts", t.path, a, b);
			break;
		}
		ram = realloc(s->ram, (s->nr_ram + 1) * sizeof(*s->ram));
		if (!ram) {
			r = mdb_errf(err, "%s: out of memory", t.path);
			break;
		}
		s->ram = ram;
		ram[s->nr_ram].start = a >> 12;
		ram[s->nr_ram++].end = (b >> 12) + 1;
		any |= b != 0;
	}
	fclose(t.f);
	if (!any)
		s->nr_ram = 0;		/* addresses hidden: no evidence */
	if (s->nr_ram)
		qsort(s->ram, s->nr_ram, sizeof(*s->ram), ram_cmp);
	return r < 0 ? -1 : 0;
}

/*
 * The most pfns the snapshot may hold: the end of its zones and System RAM
 * rounded up to KPF_SECTION_PFNS, or KPF_MAX_PFNS without them.
 */
static uint64_t kpf_pfn_limit(const struct kpf_scan *s)
{
	uint64_t end = 0;

	for (unsigned int z = 0; z < s->nr_zones; z++)
		if (s->zones[z].end > end)
			end = s->zones[z].end;
	for (unsigned int i = 0; i < s->nr_ram; i++)
		if (s->ram[i].end > end)
			end = s->ram[i].end;
	if (!end)
		return KPF_MAX_PFNS;
	end = (end + KPF_SECTION_PFNS - 1) & ~(KPF_SECTION_PFNS - 1);
	return end < KPF_MAX_PFNS ? end : KPF_MAX_PFNS;
}

/*
 * The unflagged blocks where they lie, as kpf_decide() counted them: of each
 * zone's blocks of an order, the first take (in pfn order) free, the rest
 * reserved pages.
 */
static void kpf_place_decided(struct kpf_scan *s)
{
	for (uint64_t i = 0; i < s->nr_und; i++) {
		const struct kpf_undecided *u = &s->und[i];
		unsigned long long *take = &s->zones[u->zone].take[u->order];

		if (*take) {
			(*take)--;
			kpf_place(s, PK_FREE, u->pfn, u->order);
			continue;
		}
		for (uint64_t pfn = u->pfn; pfn < u->pfn + (1ULL << u->order); pfn++)
			kpf_place(s, PK_RESERVED, pfn, 0);
	}
}

/*
 * The unflagged pfns, decided (see struct kpf_zone): free up to what each
 * zone's buddyinfo has beyond the free pfns flagged in it, largest blocks
 * first; reserved the rest.  how says on what evidence.
 */
static void kpf_decide(struct kpf_scan *s, char *how, size_t len)
{
	unsigned long long to_free = 0, to_reserved = 0, unmanaged = 0, flagged = 0, buddy = 0;
	char holes[160];

	for (unsigned int z = 0; z <= s->nr_zones; z++) {
		struct kpf_zone *zn = &s->zones[z];
		unsigned long long want = zn->buddy_free > zn->flagged_free ?
					  zn->buddy_free - zn->flagged_free : 0;

		for (int o = MIX_4K_MAX_PAGE_ORDER; o >= 0; o--) {
			unsigned long long take = zn->unflagged[o] >> o;

			if (take > want >> o)
				take = want >> o;
			zn->take[o] = take;
			s->pages[PK_FREE][o] += take << o;
			to_free += take << o;
			want -= take << o;
			s->pages[PK_RESERVED][0] += zn->unflagged[o] - (take << o);
			to_reserved += zn->unflagged[o] - (take << o);
		}
		if (z < s->nr_zones) {
			unmanaged += zn->present > zn->managed ? zn->present - zn->managed : 0;
			flagged += zn->flagged_free;
			buddy += zn->buddy_free;
		}
	}
	kpf_place_decided(s);
	if (s->nr_ram)
		snprintf(holes, sizeof(holes), "%llu outside System RAM in /proc/iomem left out as "
			 "holes", s->holes);
	else
		snprintf(holes, sizeof(holes), "none left out as holes (no /proc/iomem with addresses)");
	if (!s->nr_zones)
		snprintf(how, len, "pfns without any kpageflags bit: %llu counted reserved (no "
			 "/proc/zoneinfo and /proc/buddyinfo to tell free from reserved); %s",
			 to_reserved, holes);
	else
		snprintf(how, len, "pfns without any kpageflags bit: %llu counted free (/proc/buddyinfo's "
			 "%llu free pages per zone beyond the %llu found flagged KPF_BUDDY), %llu "
			 "counted reserved (the rest; /proc/zoneinfo present - managed: %llu); %s",
			 to_free, buddy, flagged, to_reserved, unmanaged, holes);
}

/* Every snapshot's placement read, kept while the process lives: mixes are copied by value. */
static struct mix_placed *placed_kept;

static unsigned int placed_order(uint8_t code)
{
	return (code - 1U) % MIX_NR_ORDERS;
}

static enum page_kind placed_kind(uint8_t code)
{
	return (enum page_kind)((code - 1U) / MIX_NR_ORDERS);
}

void mix_release(struct mix *mix)
{
	struct mix_placed **p;

	for (p = &placed_kept; *p; p = &(*p)->next)
		if (*p == mix->placed) {
			struct mix_placed *gone = *p;

			*p = gone->next;
			free(gone->code);
			free(gone);
			break;
		}
	mix->placed = NULL;
}

/*
 * code[0, n) as a placement handed to m (taking code), once checked: every
 * pfn in one block, each a kind at an order it may have, naturally aligned.
 */
static int keep_placed(uint8_t *code, uint64_t n, const char *path, const char *bug,
		       struct mix *m, struct mdb_err *err)
{
	struct mix_placed *p;
	uint64_t pfn = 0;

	while (pfn < n && code[pfn] && code[pfn] <= placed_code(PK_NR - 1, MIX_NR_ORDERS - 1) &&
	       (pfn & ((1ULL << placed_order(code[pfn])) - 1)) == 0 &&
	       mix_order_valid(placed_kind(code[pfn]), placed_order(code[pfn])))
		pfn += 1ULL << placed_order(code[pfn]);
	if (pfn != n)
		return mdb_errf(err, "%s: no block placed at pfn %llu%s", path,
				(unsigned long long)pfn, bug);
	p = malloc(sizeof(*p));
	if (!p)
		return mdb_errf(err, "%s: out of memory for the snapshot's placement", path);
	*p = (struct mix_placed){ .nr_pfns = n, .code = code, .next = placed_kept };
	placed_kept = p;
	m->placed = p;
	return 0;
}

/* The scan's placement, handed to m. */
static int kpf_keep_placed(struct kpf_scan *s, const char *path, struct mix *m,
			   struct mdb_err *err)
{
	if (s->oom)
		return mdb_errf(err, "%s: out of memory for the snapshot's placement", path);
	if (keep_placed(s->code, s->nr_code, path, " (bug)", m, err))
		return -1;
	s->code = NULL;
	return 0;
}

int mix_placed_save(const struct mix *mix, const char *path, struct mdb_err *err)
{
	FILE *f = fopen(path, "wbe");
	const struct mix_placed *p = mix->placed;
	int ok;

	if (!f)
		return mdb_errf(err, "%s: %s", path, strerror(errno));
	ok = fwrite(&p->nr_pfns, sizeof(p->nr_pfns), 1, f) == 1 &&
	     fwrite(p->code, 1, p->nr_pfns, f) == p->nr_pfns;
	if (fclose(f) || !ok)
		return mdb_errf(err, "%s: cannot write the placement", path);
	return 0;
}

int mix_placed_load(struct mix *mix, const char *path, struct mdb_err *err)
{
	FILE *f = fopen(path, "rbe");
	uint64_t n = 0;
	uint8_t *code = NULL;
	int ok;

	if (!f)
		return mdb_errf(err, "%s: %s", path, strerror(errno));
	ok = fread(&n, sizeof(n), 1, f) == 1 && n && n <= 1ULL << 40 &&
	     (code = malloc(n)) && fread(code, 1, n, f) == n && fgetc(f) == EOF;
	fclose(f);
	if (!ok || keep_placed(code, n, path, " (not a placement)", mix, err)) {
		free(code);
		return ok ? -1 : mdb_errf(err, "%s: not a placement", path);
	}
	return 0;
}

static int kpf_to_mix(struct kpf_scan *s, const char *path, const char *how,
		      struct mix *mix, struct mdb_err *err)
{
	unsigned long long sum = 0;
	struct mix m;

	memset(&m, 0, sizeof(m));
	kpf_mix_name(m.name);
	for (int k = 0; k < PK_NR; k++) {
		for (unsigned int o = 0; o < MIX_NR_ORDERS; o++) {
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
		return mdb_errf(err, "%s: classified %llu of %llu pfns (bug)", path, sum, s->total);
	snprintf(m.classified, sizeof(m.classified), "%s", how);
	if (mix_validate_4k(&m, err))
		return -1;
	if (kpf_keep_placed(s, path, &m, err))
		return -1;
	*mix = m;
	return 0;
}

/*
 * /proc/kpageflags is a regular file (of size 0) in procfs: a FIFO or a
 * device in its place is not a snapshot.  fd in blocking mode again.
 */
static int kpf_snapshot_ok(int fd, const char *path, struct mdb_err *err)
{
	struct stat st;

	if (fstat(fd, &st))
		return read_error(err, path, errno);
	if (S_ISDIR(st.st_mode))
		return read_error(err, path, EISDIR);
	if (!S_ISREG(st.st_mode))
		return mdb_errf(err, "%s: not a regular file (a FIFO, a device or a socket)", path);
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		return read_error(err, path, errno);
	return 0;
}

int mix_from_kpageflags(const char *path, struct mix *mix, struct mdb_err *err)
{
	const size_t chunk = KPF_CHUNK_ENTRIES * sizeof(uint64_t);
	char how[MIX_CLASSIFIED_LEN];
	struct kpf_scan *s = calloc(1, sizeof(*s));
	uint64_t *buf = malloc(chunk), pfn = 0, limit;
	size_t have = 0;	/* bytes in buf, less than one entry between reads */
	int fd = -1, ret = -1;

	if (!s || !buf) {
		mdb_errf(err, "%s: out of memory", path);
		goto out;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		read_error(err, path, errno);
		goto out;
	}
	if (kpf_snapshot_ok(fd, path, err) || kpf_read_zones(s, path, err) || kpf_read_ram(s, path, err))
		goto out;
	limit = kpf_pfn_limit(s);
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
		if (pfn + nr > limit) {
			mdb_errf(err, "%s: more than %llu pfns, past the end of the zones and System RAM "
				 "beside it (or of a 46-bit physical address space)", path,
				 (unsigned long long)limit);
			goto out;
		}
		for (size_t i = 0; i < nr; i++)
			kpf_pfn(s, pfn++, buf[i]);
		have -= nr * sizeof(uint64_t);
		memmove(buf, buf + nr, have);
	}
	run_close(s);
	if (have)
		mdb_errf(err, "%s: ends in a partial entry (%zu bytes; entries are 8)", path, have);
	else if (!s->total)
		mdb_errf(err, "%s: no memory in it (empty, or only holes)", path);
	else {
		kpf_decide(s, how, sizeof(how));
		ret = kpf_to_mix(s, path, how, mix, err);
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	if (s) {
		free(s->ram);
		free(s->code);
		free(s->und);
	}
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

int mix_resolve(const char *arg, struct mix *mix, struct mdb_err *err)
{
	if (!arg || !*arg)
		return mdb_errf(err, "empty mix name (built-in: %s; or kpageflags, or a .json file)",
				BUILTIN_LIST);
	if (!strcmp(arg, "kpageflags"))
		return mix_from_kpageflags("/proc/kpageflags", mix, err);
	if (strchr(arg, '/') || ends_with(arg, ".json"))
		return mix_load_file(arg, mix, err);
	if (!mix_builtin(arg, mix, err))
		return 0;
	return mdb_errf(err, "unknown mix '%s' (built-in: %s; or kpageflags, or a .json file)", arg,
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
			 unsigned long count[PK_NR][MIX_NR_ORDERS])
{
	long long rem[PK_NR][MIX_NR_ORDERS];
	unsigned long pages = 0;
	double sum = 0;

	for (int k = 0; k < PK_NR; k++)
		for (unsigned int o = 0; o < MIX_NR_ORDERS; o++)
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
	for (unsigned int o = 0; pages > nr && o < MIX_NR_ORDERS; o++)
		for (int k = 0; pages > nr && k < PK_NR; k++)
			while (pages > nr && count[k][o]) {
				count[k][o]--;
				pages -= 1UL << o;
			}
	for (;;) {
		int best_k = -1;
		unsigned int best_o = 0;

		for (int k = 0; k < PK_NR; k++)
			for (unsigned int o = 0; o < MIX_NR_ORDERS; o++)
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

/*
 * A hugetlb entry above a pageblock that gets no block asks for 1 GiB
 * folios the modelled RAM cannot hold: refuse rather than place a machine
 * without them under the mix's name.
 */
/* The pages at which entry e's share holds one whole folio: 2^order / fraction, in whole pageblocks. */
static uint64_t big_hugetlb_ram(const struct mix_entry *e)
{
	double pages = ceil((double)(1ULL << e->order) / e->fraction);

	return ((uint64_t)pages + PAGEBLOCK_NR_PAGES - 1) & ~(uint64_t)(PAGEBLOCK_NR_PAGES - 1);
}

static int check_big_hugetlb(const struct mix *mix, unsigned long nr,
			     unsigned long count[PK_NR][MIX_NR_ORDERS], struct mdb_err *err)
{
	for (unsigned int i = 0; i < mix->nr; i++) {
		const struct mix_entry *e = &mix->entry[i];

		if (e->kind != PK_HUGETLB || e->order <= PAGEBLOCK_ORDER || e->fraction <= 0 ||
		    count[e->kind][e->order])
			continue;
		char ram[32], folio[32], need[32];

		mdb_format_size((uint64_t)nr << mdb_base.shift, ram, sizeof(ram));
		mdb_format_size(1ULL << (e->order + mdb_base.shift), folio, sizeof(folio));
		mdb_format_size(big_hugetlb_ram(e) << mdb_base.shift, need, sizeof(need));
		/* Callers name the mix (memmap_create(), model_count_blocks(): "mix NAME: ..."). */
		return mdb_errf(err, "(hugetlb, %u) asks %.3g of %s in whole pageblocks, less than "
				"one %s folio: at that share a whole folio needs %s of RAM",
				e->order, e->fraction, ram, folio, need);
	}
	return 0;
}

/*
 * The blocks above a pageblock, largest order first: each on an aligned run
 * of 2^(order - PAGEBLOCK_ORDER) whole pageblocks no larger block took,
 * drawn at random; its kind drawn weighted by how many of that order each
 * kind still has.  Runs of a smaller order never straddle a larger block,
 * both being naturally aligned, so whether a run is free is whether its
 * first pageblock is.  Marks the pageblocks taken.
 */
static int place_big(struct mix_plan *plan, bool *taken, struct mdb_err *err)
{
	unsigned long n = plan->nr_pageblocks, nr = 0, *slot;
	unsigned long left[PK_NR];

	for (int k = 0; k < PK_NR; k++)
		for (unsigned int o = PAGEBLOCK_ORDER + 1; o < MIX_NR_ORDERS; o++)
			nr += plan->remaining[k][o];
	plan->big = malloc(nr * sizeof(*plan->big) + 1);
	slot = malloc(n * sizeof(*slot) + 1);
	if (!plan->big || !slot) {
		free(slot);
		return mdb_errf(err, "out of memory for %lu blocks above a pageblock", nr);
	}
	for (unsigned int o = MIX_MAX_ORDER; o > PAGEBLOCK_ORDER; o--) {
		unsigned long per = 1UL << (o - PAGEBLOCK_ORDER), free_slots = 0, total = 0;

		for (int k = 0; k < PK_NR; k++)
			total += left[k] = plan->remaining[k][o];
		for (unsigned long s = 0; total && s + 1 <= n / per; s++)
			if (!taken[s * per])
				slot[free_slots++] = s;
		if (free_slots < total) {
			free(slot);
			return mdb_errf(err, "%lu order-%u blocks do not fit in %lu pageblocks (bug)",
					total, o, n);
		}
		for (unsigned long i = 0; i < total; i++) {
			unsigned long j = i + (unsigned long)mdb_rng_below(&plan->rng, free_slots - i);
			unsigned long s = slot[j], r = (unsigned long)mdb_rng_below(&plan->rng, total - i);
			int k;

			slot[j] = slot[i];
			for (k = 0; r >= left[k]; k++)
				r -= left[k];
			left[k]--;
			memset(&taken[s * per], 1, per * sizeof(*taken));
			plan->big[plan->nr_big++] = (struct mix_block){
				.pfn = s * per << PAGEBLOCK_ORDER, .order = o, .kind = (enum page_kind)k,
			};
		}
	}
	free(slot);
	return 0;
}

/*
 * A placed mix's next block from pfn *at: the snapshot's block there; free
 * blocks, naturally aligned, from where a block would cross nr_pfns or the
 * snapshot ends (a cut block's pieces, the pfns past the snapshot).
 */
static bool placed_next(const struct mix_placed *p, unsigned long nr_pfns, unsigned long *at,
			struct mix_block *block)
{
	unsigned long pfn = *at;
	uint8_t code = pfn < p->nr_pfns ? p->code[pfn] : 0;

	if (pfn >= nr_pfns)
		return false;
	if (code && pfn + (1UL << placed_order(code)) <= nr_pfns) {
		*block = (struct mix_block){ pfn, placed_order(code), placed_kind(code) };
	} else {
		unsigned int order = max_order_at(pfn, MAX_PAGE_ORDER);

		if (order > floor_log2(nr_pfns - pfn))
			order = floor_log2(nr_pfns - pfn);
		*block = (struct mix_block){ pfn, order, PK_FREE };
	}
	*at = pfn + (1UL << block->order);
	return true;
}

int mix_plan_init(struct mix_plan *plan, const struct mix *mix, unsigned long nr_pfns,
		  uint64_t seed, struct mdb_err *err)
{
	unsigned long *perm = NULL, n, m = 0, big = 0;
	bool *taken = NULL;
	struct mix_block b;

	memset(plan, 0, sizeof(*plan));
	if (mix_validate(mix, err))
		return -1;
	if (!nr_pfns)
		return mdb_errf(err, "cannot place mix '%s' on 0 pfns", mix->name);
	if (mix->placed) {
		plan->placed = mix->placed;
		plan->nr_pfns = nr_pfns;
		while (placed_next(plan->placed, nr_pfns, &plan->vpfn, &b))
			plan->remaining[b.kind][b.order]++;
		plan->vpfn = 0;
		return 0;
	}
	/*
	 * Only whole pageblocks take the mix and get shuffled; a partial one at
	 * the end stays in place, free order 0, so no block can straddle it.
	 */
	n = nr_pfns >> PAGEBLOCK_ORDER;
	count_blocks(mix, n << PAGEBLOCK_ORDER, plan->remaining);
	if (check_big_hugetlb(mix, n << PAGEBLOCK_ORDER, plan->remaining, err))
		return -1;
	plan->remaining[PK_FREE][0] += nr_pfns - (n << PAGEBLOCK_ORDER);
	plan->rng = seed;
	plan->nr_pfns = nr_pfns;
	plan->nr_pageblocks = n;
	for (int k = 0; k < PK_NR; k++)
		for (unsigned int o = PAGEBLOCK_ORDER + 1; o < MIX_NR_ORDERS; o++)
			big += plan->remaining[k][o];
	if (n) {
		perm = malloc(n * sizeof(*perm));
		taken = calloc(n, sizeof(*taken));
		if (!perm || !taken) {
			free(perm);
			free(taken);
			return mdb_errf(err, "out of memory for %lu pageblocks", n);
		}
	}
	if (big && place_big(plan, taken, err)) {
		free(perm);
		free(taken);
		mix_plan_release(plan);
		return -1;
	}
	for (unsigned long i = 0; i < n; i++)
		if (!taken[i])
			perm[m++] = i;
	free(taken);
	for (unsigned long i = m; i > 1; i--) {
		unsigned long j = (unsigned long)mdb_rng_below(&plan->rng, i), t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	plan->pageblock_perm = perm;
	plan->nr_small = m;
	plan->order = PAGEBLOCK_ORDER;
	return 0;
}

/* Blocks of this order still to place in the shuffled pageblocks, per kind. */
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
	unsigned long small_end = plan->nr_small << PAGEBLOCK_ORDER;
	unsigned long weight[PK_NR], total, r, v = plan->vpfn;
	int k;

	if (plan->placed) {
		if (!placed_next(plan->placed, plan->nr_pfns, &plan->vpfn, block))
			return false;
		plan->remaining[block->kind][block->order]--;
		return true;
	}
	if (plan->next_big < plan->nr_big) {
		*block = plan->big[plan->next_big++];
		plan->remaining[block->kind][block->order]--;
		return true;
	}
	/* Virtual pfns: the shuffled pageblocks, then the partial one. */
	if (v >= small_end + (plan->nr_pfns - main_end))
		return false;
	if (v >= small_end) {
		block->pfn = main_end + (v - small_end);
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
	free(plan->big);
	memset(plan, 0, sizeof(*plan));
}
