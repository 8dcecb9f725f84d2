// SPDX-License-Identifier: GPL-2.0
/*
 * mix.c - which kinds of page, at which folio orders, fill the modelled RAM:
 * built-in profiles, JSON files, and the placement that turns a mix into
 * blocks of pfns.  Layout independent.  /proc/kpageflags snapshots and the
 * placement they keep are kpageflags.c's.
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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
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

/* The built-in profiles, each once: its name and its table. */
#define MIX_BUILTINS(X)	X("desktop", desktop) X("server", server) \
			X("all-order0", all_order0) X("free", all_free)

static const struct builtin {
	const char *name;
	const struct mix_entry *entry;
	unsigned int nr;
} builtins[] = {
#define B(n, e)		{ n, e, sizeof(e) / sizeof(e[0]) },
	MIX_BUILTINS(B)
#undef B
};

#define NR_BUILTINS	(sizeof(builtins) / sizeof(builtins[0]))

const char *const mix_builtin_names[] = {
#define N(n, e)		n,
	MIX_BUILTINS(N)
#undef N
	NULL
};

/* For messages, "desktop, server, ...": the names joined, the first ", " skipped. */
#define L(n, e)		", " n
#define BUILTIN_LIST	(MIX_BUILTINS(L) + 2)

int mix_builtin(const char *name, struct mix *mix, struct mdb_err *err)
{
	for (unsigned int i = 0; i < NR_BUILTINS; i++) {
		const struct builtin *b = &builtins[i];

		if (strcmp(name, b->name))
			continue;
		memset(mix, 0, sizeof(*mix));
		snprintf(mix->name, sizeof(mix->name), "%s", b->name);
		mix->nr = b->nr;
		memcpy(mix->entry, b->entry, b->nr * sizeof(*b->entry));
		return 0;
	}
	return mdb_errf(err, "unknown built-in mix '%s' (built-in: %s)", name, BUILTIN_LIST);
}

/* ------------------------------------------------------------------------ */
/* Validation                                                               */

bool mix_name_char_ok(char c)
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
		if (!mix_name_char_ok(name[i]))
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
	if (code && pfn + (1UL << mix_placed_order(code)) <= nr_pfns) {
		*block = (struct mix_block){ pfn, mix_placed_order(code), mix_placed_kind(code) };
	} else {
		unsigned int order = mix_max_order_at(pfn, MAX_PAGE_ORDER);

		if (order > mix_floor_log2(nr_pfns - pfn))
			order = mix_floor_log2(nr_pfns - pfn);
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
