// SPDX-License-Identifier: GPL-2.0
/*
 * test_mix.c - the mix module (machine/mix.c): built-ins, JSON files,
 * placement.  One binary, one CTest test per subcommand (mix_<test>); the
 * kpageflags snapshots are test_kpageflags.c's.
 *
 *	test_mix <test> <tests/machine/fixtures> <results/mixes>
 */
#include "test_mix_common.h"

/* ------------------------------------------------------------------------ */

static int test_kinds(void)
{
	static const char *const names[PK_NR] = {
		"free", "anon", "file", "slab", "pgtable", "zsmalloc", "netmem", "reserved", "hugetlb",
	};

	for (int k = 0; k < PK_NR; k++) {
		CHECK(!strcmp(page_kind_name((enum page_kind)k), names[k]), "page_kind_name(%d) = %s",
		      k, page_kind_name((enum page_kind)k));
		CHECK(page_kind_from_name(names[k]) == k, "page_kind_from_name(%s)", names[k]);
	}
	CHECK(page_kind_from_name("thp") == -1, "thp is no kind (it is an anon or file order)");
	CHECK(page_kind_from_name("") == -1, "empty is no kind");
	CHECK(page_kind_from_name("FREE") == -1, "kinds are lower case");
	CHECK(!strcmp(page_kind_name(PK_NR), "?"), "PK_NR has no name");
	return 0;
}

static void expect_builtin(const struct mix *m, const char *name)
{
	double sum = 0;
	struct mdb_err err;

	CHECK(!strcmp(m->name, name), "built-in %s is named %s", name, m->name);
	CHECK(mix_validate(m, &err) == 0, "built-in %s validates: %s", name, err.msg);
	for (unsigned int i = 0; i < m->nr; i++)
		sum += m->entry[i].fraction;
	CHECK(fabs(sum - 1) < 1e-9, "built-in %s sums to %.12g", name, sum);
}

static int test_builtins(void)
{
	struct mix m, r;
	struct mdb_err err;
	unsigned int n = 0;

	for (const char *const *name = mix_builtin_names; *name; name++, n++) {
		CHECK(mix_builtin(*name, &m, &err) == 0, "mix_builtin(%s): %s", *name, err.msg);
		expect_builtin(&m, *name);
		CHECK(mix_resolve(*name, &r, &err) == 0 && mix_equal(&m, &r), "mix_resolve(%s)", *name);
	}
	CHECK(n == 4, "%u built-ins, expected desktop, server, all-order0, free", n);

	/* The clean cases are what their names say. */
	mix_builtin("all-order0", &m, &err);
	CHECK(m.nr == 1 && m.entry[0].kind == PK_ANON && m.entry[0].order == 0 &&
	      m.entry[0].fraction == 1, "all-order0 is one order-0 anon entry");
	mix_builtin("free", &m, &err);
	CHECK(m.nr == 1 && m.entry[0].kind == PK_FREE && m.entry[0].order == 9 &&
	      m.entry[0].fraction == 1, "free is one order-9 free entry");
	/* The realistic ones use every kind the brief asks of them. */
	mix_builtin("server", &m, &err);
	{
		bool has[PK_NR] = { false };

		for (unsigned int i = 0; i < m.nr; i++)
			has[m.entry[i].kind] = true;
		CHECK(has[PK_NETMEM] && has[PK_ZSMALLOC] && has[PK_FILE] && has[PK_ANON],
		      "server has file, anon, netmem and zsmalloc");
	}

	CHECK(mix_builtin("laptop", &m, &err) == -1 &&
	      !strcmp(err.msg, "unknown built-in mix 'laptop' (built-in: desktop, server, all-order0, free)"),
	      "unknown built-in: %s", err.msg);

	/* Messages list every built-in and every kind, however many there are. */
	{
		char list[200] = "", want[256];

		for (const char *const *name = mix_builtin_names; *name; name++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 name == mix_builtin_names ? "" : ", ", *name);
		snprintf(want, sizeof(want), "(built-in: %s)", list);
		CHECK(strstr(err.msg, want) != NULL, "\"%s\" lists %s", err.msg, want);
		list[0] = '\0';
		for (int k = 0; k < PK_NR; k++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 k ? ", " : "", page_kind_name((enum page_kind)k));
		snprintf(want, sizeof(want), "(kinds: %s)", list);
		CHECK(mix_parse_json("{\"name\": \"x\", \"entries\": [{\"kind\": \"x\"}]}", &m,
				     &err) == -1 && strstr(err.msg, want), "\"%s\" lists %s", err.msg, want);
	}
	return 0;
}

/* mix_validate on structs no JSON file can express. */
static int test_validate(void)
{
	struct mix good, m;
	struct mdb_err err;

	mix_builtin("desktop", &good, &err);

	m = good;
	m.entry[3].kind = PK_NR;
	CHECK(mix_validate(&m, &err) == -1 && strstr(err.msg, "entries[3]: kind 9 out of range"), "%s", err.msg);
	/* Each kind its own orders: free to MAX_PAGE_ORDER, hugetlb its hstates. */
	m = good;
	m.entry[0].order = 10;
	CHECK(m.entry[0].kind == PK_FREE && mix_validate(&m, &err) == 0, "free order 10: %s", err.msg);
	m.entry[0].order = 11;
	CHECK(mix_validate(&m, &err) == -1 && strstr(err.msg, "entries[0]: order 11 out of range 0..10"),
	      "%s", err.msg);
	m = good;
	m.entry[10].order = 10;
	CHECK(m.entry[10].kind == PK_FILE && mix_validate(&m, &err) == -1 &&
	      strstr(err.msg, "entries[10]: order 10 out of range 0..9"), "%s", err.msg);
	m = good;
	m.entry[10].kind = PK_HUGETLB;
	m.entry[10].order = 18;
	CHECK(mix_validate(&m, &err) == 0, "hugetlb order 18: %s", err.msg);
	m.entry[10].order = 9;
	CHECK(mix_validate(&m, &err) == 0, "hugetlb order 9: %s", err.msg);
	for (unsigned int o = 0; o <= MIX_MAX_ORDER + 1; o++) {
		m.entry[10].order = o;
		if (o == MIX_4K_HUGETLB_PMD || o == MIX_4K_HUGETLB_PUD)
			continue;
		CHECK(mix_validate(&m, &err) == -1 && strstr(err.msg, "entries[10]: hugetlb order") &&
		      strstr(err.msg, "the hstates are order 9 (2 MiB) and 18 (1 GiB)"), "%u: %s", o,
		      err.msg);
	}
	m = good;
	m.entry[1].fraction = NAN;
	CHECK(mix_validate(&m, &err) == -1 && strstr(err.msg, "entries[1]: fraction nan outside [0, 1]"),
	      "%s", err.msg);
	m = good;
	m.entry[2] = m.entry[1];
	CHECK(mix_validate(&m, &err) == -1 && strstr(err.msg, "entries[2]: duplicate (free, 8), first at entries[1]"),
	      "%s", err.msg);
	m = good;
	m.entry[0].fraction += 0.01;
	CHECK(mix_validate(&m, &err) == -1 && strstr(err.msg, "fractions sum to 1.01, not 1"), "%s", err.msg);
	m = good;
	m.entry[0].fraction += 5e-7;
	CHECK(mix_validate(&m, &err) == 0, "within tolerance: %s", err.msg);
	m = good;
	m.nr = 0;
	CHECK(mix_validate(&m, &err) == -1 && strstr(err.msg, "has no entries"), "%s", err.msg);
	m = good;
	m.nr = MIX_MAX_ENTRIES + 1;
	CHECK(mix_validate(&m, &err) == -1 && strstr(err.msg, "too many entries: 84 (at most 83)"), "%s", err.msg);
	m = good;
	strcpy(m.name, "a/b");
	CHECK(mix_validate(&m, &err) == -1 && strstr(err.msg, "mix name \"a/b\" may hold only"), "%s", err.msg);
	m = good;
	memset(m.name, 'x', sizeof(m.name));
	CHECK(mix_validate(&m, &err) == -1 && strstr(err.msg, "not NUL-terminated"), "%s", err.msg);
	CHECK(mix_to_json(&m) == NULL, "an invalid mix is not written");
	return 0;
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */

/* The reference files hold the built-ins' entries, under their own names. */
static void reference_file(const char *file, const char *name, const char *builtin)
{
	char path[4096];
	struct mdb_err err;
	struct mix f, b;

	path_join(path, sizeof(path), mixes, file);
	CHECK(mix_load_file(path, &f, &err) == 0, "%s", err.msg);
	CHECK(!strcmp(f.name, name), "%s is named %s", path, f.name);
	mix_builtin(builtin, &b, &err);
	snprintf(b.name, sizeof(b.name), "%s", name);
	CHECK(mix_equal(&f, &b), "%s has the entries of built-in %s", path, builtin);
	roundtrip(&f, path);
}

struct plan_result {
	unsigned long count[PK_NR][NR_ORDERS];
	uint64_t signature;	/* of the sequence of blocks */
};

static void run_plan(const struct mix *mix, unsigned long nr_pfns, uint64_t seed,
		     struct plan_result *res);

/*
 * The hugetlb reference mixes (no built-in twin): they read back, most of
 * their memory is hugetlb of the size they are about, and 8 GiB of RAM
 * takes their hugetlb share in whole folios (placed: blocks folios).
 */
static void reference_hugetlb(const char *file, unsigned int order, double most,
			      unsigned long blocks)
{
	struct plan_result res;
	char path[4096];
	struct mdb_err err;
	double share = 0, free0 = 0;
	struct mix f;

	path_join(path, sizeof(path), mixes, file);
	CHECK(mix_load_file(path, &f, &err) == 0, "%s", err.msg);
	for (unsigned int i = 0; i < f.nr; i++) {
		if (f.entry[i].kind == PK_HUGETLB)
			share += f.entry[i].fraction;
		if (f.entry[i].kind == PK_FREE && !f.entry[i].order)
			free0 = f.entry[i].fraction * (8UL << 18);
	}
	CHECK(share >= most, "%s: hugetlb is %g of it", path, share);
	roundtrip(&f, path);
	/* Nothing left over beyond rounding (under a pageblock): every entry got its share. */
	run_plan(&f, 8UL << 18, 1, &res);
	CHECK(res.count[PK_HUGETLB][order] == blocks && res.count[PK_FREE][0] < free0 + 512,
	      "%s at 8 GiB: %lu order-%u hugetlb folios (want %lu), %lu free pfns for %.0f",
	      path, res.count[PK_HUGETLB][order], order, blocks, res.count[PK_FREE][0], free0);
}

static int test_roundtrip(void)
{
	char path[4096], *text;
	struct mdb_err err;
	struct mix m;

	for (const char *const *name = mix_builtin_names; *name; name++) {
		mix_builtin(*name, &m, &err);
		roundtrip(&m, *name);
	}
	reference_file("desktop-16g.json", "desktop-16g", "desktop");
	reference_file("server-256g.json", "server-256g", "server");
	reference_hugetlb("vm-host-512g.json", MIX_4K_HUGETLB_PUD, 0.8, 7);
	reference_hugetlb("database-256g.json", MIX_4K_HUGETLB_PMD, 0.5, 2560);

	/* Good fixtures: unusual but legal spelling reads as expected. */
	CHECK(mix_load_file(path_join(path, sizeof(path), fixtures, "good/minimal.json"), &m, &err) == 0,
	      "%s", err.msg);
	CHECK(!strcmp(m.name, "minimal") && m.nr == 1 && m.entry[0].kind == PK_ANON, "minimal.json");
	roundtrip(&m, path);
	CHECK(mix_load_file(path_join(path, sizeof(path), fixtures, "good/spacing.json"), &m, &err) == 0,
	      "%s", err.msg);
	CHECK(!strcmp(m.name, "a-b") && m.nr == 3 && m.entry[0].kind == PK_FILE &&
	      m.entry[0].fraction == 0.5 && m.entry[1].kind == PK_FREE && m.entry[1].order == 9 &&
	      m.entry[1].fraction == 0.5 && m.entry[2].kind == PK_SLAB && m.entry[2].fraction == 0,
	      "spacing.json: keys in any order, CRLF, \\u escape, exponents, a zero fraction");
	roundtrip(&m, path);
	CHECK(mix_load_file(path_join(path, sizeof(path), fixtures, "good/sum-within-tolerance.json"),
			    &m, &err) == 0, "%s", err.msg);
	roundtrip(&m, path);

	/* A valid number of 600 characters: no length limit but the file's. */
	CHECK(mix_load_file(path_join(path, sizeof(path), fixtures, "good/long-number.json"), &m,
			    &err) == 0 && m.entry[0].fraction == 0.5, "%s", err.msg);
	/* -0, -0.0 and -0e-5 read as 0 (an order too), and are written back as 0. */
	CHECK(mix_load_file(path_join(path, sizeof(path), fixtures, "good/negative-zero.json"), &m,
			    &err) == 0, "%s", err.msg);
	CHECK(m.nr == 4 && m.entry[0].order == 0, "negative-zero.json: 4 entries, order -0 is 0");
	for (unsigned int i = 1; i < m.nr; i++)
		CHECK(m.entry[i].fraction == 0 && !signbit(m.entry[i].fraction),
		      "negative-zero.json: entries[%u] fraction %g", i, m.entry[i].fraction);
	roundtrip(&m, path);
	/* However a -0 got into the struct, and with 0 and 1 as integers. */
	m.entry[1].fraction = -0.0;
	text = mix_text(&m);
	CHECK(text && strstr(text, "\"fraction\": 0\n") && strstr(text, "\"fraction\": 1\n") &&
	      !strstr(text, ": -"), "-0 and 1 are written 0 and 1:\n%s", text);
	free(text);
	/* A subnormal is not 0: it is kept, not refused as an underflow. */
	CHECK(mix_parse_json("{\"name\": \"x\", \"entries\": [{\"kind\": \"free\", \"order\": 0, "
			     "\"fraction\": 1}, {\"kind\": \"anon\", \"order\": 0, "
			     "\"fraction\": 4.9e-324}]}", &m, &err) == 0 &&
	      m.entry[1].fraction == 4.9e-324 && m.entry[1].fraction > 0, "subnormal: %s", err.msg);
	roundtrip(&m, "subnormal");
	/* Numbers inside strings are not numbers: no underflow there, escaped quote or not. */
	CHECK(mix_parse_json("{\"name\": \"1e-400\", \"entries\": [{\"kind\": \"free\", "
			     "\"order\": 0, \"fraction\": 1}]}", &m, &err) == 0 &&
	      !strcmp(m.name, "1e-400"), "a mix named 1e-400: %s", err.msg);
	CHECK(mix_parse_json("{\"name\": \"\\\"1e-400\", \"entries\": []}", &m, &err) == -1 &&
	      !strcmp(err.msg, "mix name \"\"1e-400\" may hold only letters, digits and . _ : + -"),
	      "a mix named \"1e-400: %s", err.msg);

	/* Fractions that need all 17 digits survive too. */
	m.nr = 2;
	m.entry[0] = (struct mix_entry){ PK_ANON, 0, 1.0 / 3 };
	m.entry[1] = (struct mix_entry){ PK_FILE, 9, 2.0 / 3 };
	roundtrip(&m, "thirds");
	return 0;
}

static const struct {
	const char *file;
	const char *message;	/* after "<path>: " */
} bad_files[] = {
	{ "malformed-trailing-comma.json", "line 1 column 74: unexpected token near ']'" },
	{ "malformed-unterminated-string.json", "line 1 column 27: '}' expected near 'entries'" },
	{ "malformed-trailing-garbage.json", "line 1 column 75: end of file expected near '}'" },
	{ "malformed-empty.json", "line 1 column 0: '[' or '{' expected near end of file" },
	{ "malformed-leading-zero.json", "line 1 column 56: invalid token near '0'" },
	{ "malformed-comment.json", "line 1 column 1: '[' or '{' expected near '/'" },
	{ "malformed-bad-escape.json", "line 1 column 14: invalid escape near '\"de\\x'" },
	{ "malformed-control-char.json", "line 1 column 14: control character 0x9 near '\"desk'" },
	{ "malformed-deep.json", "line 1 column 2070: maximum parsing depth reached near '['" },
	{ "malformed-duplicate-key.json", "line 1 column 65: duplicate object key near '\"order\"'" },
	{ "malformed-nul.json", "line 1 column 12: control character 0x0 near '\"te'" },
	{ "malformed-missing-colon.json", "line 1 column 14: ':' expected near '\"test\"'" },
	{ "malformed-bad-utf8.json", "line 1 column 11: unable to decode byte 0xff near '\"t'" },
	{ "unknown-kind.json", "entries[1]: unknown kind \"thp\" (kinds: free, anon, file, slab, pgtable, zsmalloc, netmem, reserved, hugetlb)" },
	{ "order-too-big.json", "entries[0]: order 10 out of range 0..9" },
	{ "order-negative.json", "entries[0]: order -1 out of range 0..9" },
	{ "order-not-integer.json", "entries[0]: \"order\" must be an integer" },
	{ "order-string.json", "entries[0]: \"order\" must be a number, not string" },
	{ "fraction-above-one.json", "entries[0]: fraction 1.5 outside [0, 1]" },
	{ "fraction-negative.json", "entries[0]: fraction -0.25 outside [0, 1]" },
	{ "sum-below-one.json", "fractions sum to 0.90000000000000002, not 1 (tolerance 1e-06)" },
	{ "sum-above-one.json", "fractions sum to 1.0000019999999998, not 1 (tolerance 1e-06)" },
	{ "duplicate-entry.json", "entries[2]: duplicate (file, 0), first at entries[0]" },
	{ "missing-kind.json", "entries[1]: missing \"kind\"" },
	{ "missing-order.json", "entries[0]: missing \"order\"" },
	{ "missing-fraction.json", "entries[0]: missing \"fraction\"" },
	{ "missing-entries.json", "missing \"entries\"" },
	{ "missing-name.json", "missing \"name\"" },
	{ "too-many-entries.json", "too many entries: 84 (at most 83)" },
	{ "unknown-key-entry.json", "entries[0]: unknown key \"weight\"" },
	{ "unknown-key-top.json", "unknown key \"comment\"" },
	{ "entries-not-array.json", "\"entries\" must be an array, not object" },
	{ "top-not-object.json", "top level must be an object, not array" },
	{ "bad-name.json", "mix name \"my mix\" may hold only letters, digits and . _ : + -" },
	{ "name-too-long.json", "mix name longer than 63 characters" },
	{ "empty-entries.json", "mix 'test' has no entries" },
	{ "entry-not-object.json", "entries[0]: must be an object, not number" },
	{ "name-not-string.json", "\"name\" must be a string, not number" },
	/* Numbers jansson reads that a mix must not, and text that is not UTF-8. */
	{ "number-underflow.json", "line 1 column 121: real number underflow near '1e-400'" },
	{ "number-underflow-long.json", "line 1 column 518: real number underflow near "
	  "'0.00000000000000000000000000000000000000000000000000000000000000...'" },
	{ "number-overflow.json", "line 1 column 120: real number overflow near '1e400'" },
	{ "order-exponent.json", "entries[0]: \"order\" must be an integer" },
	{ "order-real-integral.json", "entries[0]: \"order\" must be an integer" },
	{ "order-too-big-int64.json", "line 1 column 75: too big integer near '99999999999999999999'" },
	{ "order-too-big-negative-int64.json", "line 1 column 76: too big negative integer" },
	{ "fraction-just-above-one.json", "entries[0]: fraction 1.0000001000000001 outside [0, 1]" },
	{ "name-control-char.json",
	  "mix name \"te\\x1b[31mst\\r\" may hold only letters, digits and . _ : + -" },
	{ "not-utf8-latin1.json", "line 1 column 13: unable to decode byte 0xe9 near '\"caf'" },
	{ "not-utf8-utf16.json", "line 1 column 0: unable to decode byte 0xff" },
	{ "utf8-bom.json", "line 1 column 1: '[' or '{' expected near '\xef\xbb\xbf'" },
};

#define NR_BAD_FILES	(sizeof(bad_files) / sizeof(bad_files[0]))

static void expect_refused(const char *path, const char *want)
{
	struct mdb_err err = { "(none)" };
	struct mix m;

	memset(&m, 0x5a, sizeof(m));
	CHECK(mix_load_file(path, &m, &err) == -1, "%s is accepted", path);
	CHECK(!strcmp(err.msg, want), "%s:\n  got  %s\n  want %s", path, err.msg, want);
	for (const char *c = err.msg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			CHECK(false, "%s: a control character in the message", path);
			break;
		}
	CHECK(((unsigned char *)&m)[0] == 0x5a, "%s: no partial mix", path);
	/* mix_resolve takes a path the same way, with the same message. */
	CHECK(mix_resolve(path, &m, &err) == -1 && !strcmp(err.msg, want), "mix_resolve(%s)", path);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/*
 * An object of 111,844 keys in just under 1 MiB, the last one a duplicate
 * of the first: jansson finds it by a hash lookup per key, where a pairwise
 * check took 14.7 s.  The time is printed, not checked: machines differ.
 */
static void many_keys(void)
{
	static const char digit[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	const unsigned int nr_keys = 111844;
	char path[4096], want[4096 + 128], *text = malloc(1 << 20);
	struct timespec t0;
	struct mdb_err err;
	size_t len = 0;
	struct mix m;
	double ms;

	if (!text) {
		CHECK(false, "out of memory");
		return;
	}
	text[len++] = '{';
	for (unsigned int i = 0; i < nr_keys - 1; i++)
		len += (size_t)sprintf(text + len, "\"%c%c%c%c\":0,", digit[i / (62 * 62 * 62)],
				       digit[i / (62 * 62) % 62], digit[i / 62 % 62], digit[i % 62]);
	len += (size_t)sprintf(text + len, "\"0000\":0}");
	tmp_path(path, sizeof(path), "many-keys.json");
	write_file(path, text, len);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(mix_load_file(path, &m, &err) == -1, "%s is accepted", path);
	ms = ms_since(&t0);
	/* The column is the duplicate key's closing quote. */
	snprintf(want, sizeof(want), "%s: line 1 column %zu: duplicate object key near '\"0000\"'",
		 path, len - 3);
	expect_refused(path, want);
	printf("many-keys.json: %u keys, %zu bytes, refused in %.1f ms\n", nr_keys, len, ms);
	unlink(path);
	free(text);
}

/* Files too big for the repository, or with names no repository should hold. */
static int generated_files(void)
{
	static const char syntax[] = "syntax\r\x1b[2J.json", semantic[] = "semantic\r\x1b[2J.json";
	char path[4096], want[4096 + 128], *big;

	if (!mkdtemp(tmpdir))
		return fprintf(stderr, "mkdtemp: %s\n", strerror(errno)), 1;
	many_keys();

	/* One byte over the 1 MiB a mix file may have. */
	tmp_path(path, sizeof(path), "too-big.json");
	big = malloc((1 << 20) + 1);
	if (big) {
		memset(big, ' ', (1 << 20) + 1);
		write_file(path, big, (1 << 20) + 1);
		free(big);
	}
	snprintf(want, sizeof(want), "%s: larger than 1048576 bytes", path);
	expect_refused(path, want);
	unlink(path);

	/* \r and an escape sequence in the name reach no terminal, from jansson or from us. */
	write_file(tmp_path(path, sizeof(path), syntax), "{,}", 3);
	snprintf(want, sizeof(want), "%s/syntax\\r\\x1b[2J.json: line 1 column 2: "
		 "string or '}' expected near ','", tmpdir);
	expect_refused(path, want);
	unlink(path);
	write_file(tmp_path(path, sizeof(path), semantic), "{\"name\": \"x\"}", 13);
	snprintf(want, sizeof(want), "%s/semantic\\r\\x1b[2J.json: missing \"entries\"", tmpdir);
	expect_refused(path, want);
	unlink(path);
	rmdir(tmpdir);
	return 0;
}

static int test_bad_files(void)
{
	char dir[4096], path[4096], want[4096 + MDB_ERR_LEN];
	unsigned int listed = 0;
	struct mdb_err err;
	struct dirent *d;
	struct mix m;
	DIR *dp;

	path_join(dir, sizeof(dir), fixtures, "bad");
	for (unsigned int i = 0; i < NR_BAD_FILES; i++) {
		path_join(path, sizeof(path), dir, bad_files[i].file);
		snprintf(want, sizeof(want), "%s: %s", path, bad_files[i].message);
		expect_refused(path, want);
	}
	/* Every fixture is in the table: none is silently left untested. */
	dp = opendir(dir);
	CHECK(dp != NULL, "opendir %s: %s", dir, strerror(errno));
	while (dp && (d = readdir(dp))) {
		unsigned int i;

		if (d->d_name[0] == '.')
			continue;
		listed++;
		for (i = 0; i < NR_BAD_FILES && strcmp(d->d_name, bad_files[i].file); i++)
			;
		CHECK(i < NR_BAD_FILES, "%s/%s has no expected message", dir, d->d_name);
	}
	if (dp)
		closedir(dp);
	CHECK(listed == NR_BAD_FILES, "%u files in %s, %zu expected", listed, dir, NR_BAD_FILES);

	/* The same rules for a string, where there is no file to name. */
	CHECK(mix_parse_json("{\"name\": \"x\", \"entries\": [{\"kind\": \"free\", \"order\": 0, "
			     "\"fraction\": 1}]} x", &m, &err) == -1 &&
	      !strcmp(err.msg, "mix JSON: line 1 column 73: end of file expected near 'x'"), "%s", err.msg);
	CHECK(mix_parse_json("{\"name\": \"x\", \"entries\": [{\"kind\": \"free\", \"order\": 0, "
			     "\"fraction\": 1e999}]}", &m, &err) == -1 &&
	      !strcmp(err.msg, "mix JSON: line 1 column 72: real number overflow near '1e999'"), "%s",
	      err.msg);
	CHECK(mix_parse_json("{\"name\": \"\\ud800\"}", &m, &err) == -1 &&
	      strstr(err.msg, "invalid Unicode '\\uD800'"), "%s", err.msg);
	CHECK(mix_parse_json("{\"name\": \"\\u0000\"}", &m, &err) == -1 &&
	      strstr(err.msg, "\\u0000 is not allowed"), "%s", err.msg);
	CHECK(mix_parse_json("{\"name\": \"\\ud83d\\ude00\", \"entries\": []}", &m, &err) == -1 &&
	      !strcmp(err.msg, "mix name \"\xf0\x9f\x98\x80\" may hold only letters, digits and . _ : + -"),
	      "surrogate pair: %s", err.msg);

	/* Files that cannot be read at all. */
	CHECK(mix_load_file("/nonexistent/mix.json", &m, &err) == -1 &&
	      !strcmp(err.msg, "cannot read /nonexistent/mix.json: No such file or directory"), "%s",
	      err.msg);
	CHECK(mix_load_file(dir, &m, &err) == -1 && strstr(err.msg, ": Is a directory"), "%s", err.msg);
	return generated_files();
}

static int test_resolve(void)
{
	char path[4096];
	struct mdb_err err;
	struct mix m;

	CHECK(mix_resolve("server", &m, &err) == 0 && !strcmp(m.name, "server"), "server: %s", err.msg);
	CHECK(mix_resolve("nope", &m, &err) == -1 &&
	      !strcmp(err.msg, "unknown mix 'nope' (built-in: desktop, server, all-order0, free; "
			   "or kpageflags, or a .json file)"), "%s", err.msg);
	CHECK(mix_resolve("", &m, &err) == -1 && strstr(err.msg, "empty mix name"), "%s", err.msg);
	/* A path is anything with a '/' or a .json suffix; no built-in is tried for it. */
	path_join(path, sizeof(path), fixtures, "good/minimal.json");
	CHECK(mix_resolve(path, &m, &err) == 0 && !strcmp(m.name, "minimal"), "%s: %s", path, err.msg);
	CHECK(mix_resolve("desktop.json", &m, &err) == -1 &&
	      !strcmp(err.msg, "cannot read desktop.json: No such file or directory"), "%s", err.msg);
	CHECK(mix_resolve("./desktop", &m, &err) == -1 &&
	      !strcmp(err.msg, "cannot read ./desktop: No such file or directory"), "%s", err.msg);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Placement                                                                */


/*
 * Runs a whole plan and checks the contract: every pfn exactly once, blocks
 * aligned, inside one pageblock (or, above a pageblock, on whole aligned
 * pageblocks), the partial tail free order 0, and the blocks yielded are the
 * counts init promised.
 */
static void run_plan(const struct mix *mix, unsigned long nr_pfns, uint64_t seed,
		     struct plan_result *res)
{
	unsigned long main_end = nr_pfns & ~((1UL << PAGEBLOCK_ORDER) - 1), pages = 0;
	unsigned long promised[PK_NR][NR_ORDERS];
	unsigned char *seen = calloc((nr_pfns + 7) / 8, 1);
	unsigned long bad_align = 0, bad_range = 0, overlap = 0, straddle = 0, bad_tail = 0;
	struct mix_plan plan;
	struct mix_block b;
	struct mdb_err err;

	memset(res, 0, sizeof(*res));
	res->signature = 0xcbf29ce484222325ULL;
	CHECK(mix_plan_init(&plan, mix, nr_pfns, seed, &err) == 0, "mix_plan_init: %s", err.msg);
	memcpy(promised, plan.remaining, sizeof(promised));
	while (mix_plan_next(&plan, &b)) {
		unsigned long n = 1UL << b.order;

		res->signature = (res->signature ^ (b.pfn * 31 + b.order * 7 + b.kind)) *
				 0x100000001b3ULL;
		if (!mix_order_valid(b.kind, b.order) || b.pfn >= nr_pfns || b.pfn + n > nr_pfns) {
			bad_range++;
			continue;
		}
		res->count[b.kind][b.order]++;
		pages += n;
		bad_align += (b.pfn & (n - 1)) != 0;
		straddle += b.order <= PAGEBLOCK_ORDER &&
			    (b.pfn >> PAGEBLOCK_ORDER) != ((b.pfn + n - 1) >> PAGEBLOCK_ORDER);
		bad_tail += b.pfn >= main_end && (b.order || b.kind != PK_FREE);
		for (unsigned long p = b.pfn; p < b.pfn + n; p++) {
			overlap += (seen[p / 8] >> (p % 8)) & 1;
			seen[p / 8] |= 1 << (p % 8);
		}
	}
	CHECK(!bad_range && !bad_align && !overlap && !straddle && !bad_tail,
	      "%s/%lu/seed %llu: %lu out of range, %lu misaligned, %lu pfns twice, "
	      "%lu across pageblocks, %lu wrong in the tail", mix->name, nr_pfns,
	      (unsigned long long)seed, bad_range, bad_align, overlap, straddle, bad_tail);
	CHECK(pages == nr_pfns, "%s/%lu: blocks cover %lu pfns", mix->name, nr_pfns, pages);
	CHECK(!memcmp(promised, res->count, sizeof(promised)),
	      "%s/%lu: blocks yielded differ from the counts at init", mix->name, nr_pfns);
	for (int k = 0; k < PK_NR; k++)
		for (unsigned int o = 0; o < NR_ORDERS; o++)
			CHECK(!plan.remaining[k][o], "%s/%lu: %lu (%s, %u) left unplaced", mix->name,
			      nr_pfns, plan.remaining[k][o], page_kind_name((enum page_kind)k), o);
	CHECK(!mix_plan_next(&plan, &b), "the plan stays finished");
	mix_plan_release(&plan);
	CHECK(!mix_plan_next(&plan, &b), "a released plan yields nothing");
	free(seen);
}

/*
 * Each entry gets the floor or the ceiling of its share of the whole
 * pageblocks; free order 0 takes what is left plus the partial tail.
 */
static void check_rounding(const struct mix *mix, unsigned long nr_pfns,
			   const struct plan_result *res)
{
	unsigned long main = nr_pfns & ~((1UL << PAGEBLOCK_ORDER) - 1);

	for (unsigned int i = 0; i < mix->nr; i++) {
		const struct mix_entry *e = &mix->entry[i];
		double ideal = e->fraction * (double)main / (double)(1UL << e->order);
		double got = (double)res->count[e->kind][e->order];

		if (e->kind == PK_FREE && e->order == 0)
			continue;
		CHECK(fabs(got - ideal) < 1 + 1e-6, "%s/%lu: (%s, %u) has %.0f blocks for %.3f",
		      mix->name, nr_pfns, page_kind_name(e->kind), e->order, got, ideal);
	}
}

struct expect_count {
	enum page_kind kind;
	unsigned int order;
	unsigned long blocks;
};

static void expect_counts(const struct plan_result *res, const char *what,
			  const struct expect_count *want, unsigned int nr)
{
	unsigned long total = 0;

	for (unsigned int i = 0; i < nr; i++) {
		unsigned long got = res->count[want[i].kind][want[i].order];

		CHECK(got == want[i].blocks, "%s: (%s, %u) %lu blocks, want %lu", what,
		      page_kind_name(want[i].kind), want[i].order, got, want[i].blocks);
		total += got;
	}
	for (int k = 0; k < PK_NR; k++)
		for (unsigned int o = 0; o < NR_ORDERS; o++)
			total -= res->count[k][o];
	CHECK(total == 0, "%s: blocks of kinds or orders not in the mix", what);
}

/*
 * The block sequences the suite's footprints and simulated misses rest on,
 * recorded before the move to mdb_rng_below(): placement must not move, for
 * any mix, size or seed, or every published number moves with it.
 */
static void check_pinned(const struct mix *designed)
{
	static const struct {
		const char *mix;
		unsigned long nr_pfns;
		uint64_t seed, signature;
	} pinned[] = {
		{ "desktop", 513, 1, 0xa4f980f147290b18ULL },
		{ "desktop", 70001, 1, 0x9ea9ccda1e671ecbULL },
		{ "desktop", 70001, 42, 0x0bc7725b71e206f1ULL },
		{ "desktop", 1UL << 22, 42, 0x583031177ee81211ULL },
		{ "server", 513, 42, 0x94ca00380b9b91bbULL },
		{ "server", 70001, 1, 0x282488e8d71730dfULL },
		{ "server", 70001, 42, 0xde157a7128a971a9ULL },
		{ "server", 1UL << 22, 1, 0x0f6af6d0818f965bULL },
		{ "all-order0", 70001, 1, 0xe5c81baa6ef28befULL },
		{ "all-order0", 70001, 42, 0xf6f72c9e46e49befULL },
		{ "free", 513, 1, 0x08032607b4baaf2aULL },
		{ "free", 70001, 42, 0x306c9ce43ba23d77ULL },
		{ "designed", 65536, 1, 0xe907cb93046077e1ULL },
		{ "designed", 70001, 1, 0x5e9c8b353edc4f52ULL },
	};
	struct mdb_err err;
	struct plan_result res;
	struct mix m;

	for (unsigned int i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++) {
		if (!strcmp(pinned[i].mix, designed->name))
			m = *designed;
		else
			mix_builtin(pinned[i].mix, &m, &err);
		run_plan(&m, pinned[i].nr_pfns, pinned[i].seed, &res);
		CHECK(res.signature == pinned[i].signature,
		      "%s/%lu/seed %llu: blocks moved (signature %#llx, pinned %#llx)", pinned[i].mix,
		      pinned[i].nr_pfns, (unsigned long long)pinned[i].seed,
		      (unsigned long long)res.signature, (unsigned long long)pinned[i].signature);
	}
}

/*
 * Blocks above a pageblock (1 GiB hugetlb, order-10 free) on whole, aligned
 * runs of pageblocks; a mix without any places exactly as before.
 */
static void test_plan_big(void)
{
	struct mix big = {
		.name = "big", .nr = 5,
		.entry = { { PK_HUGETLB, 18, 0.45 }, { PK_FREE, 10, 0.1 }, { PK_HUGETLB, 9, 0.2 },
			   { PK_ANON, 0, 0.15 }, { PK_FILE, 9, 0.1 } },
	};
	static const unsigned long sizes[] = {
		4UL << 18, (4UL << 18) + 3 * 512 + 100, (5UL << 17) + 512 + 1, 9UL << 18,
	};
	struct mix designed = {
		.name = "designed", .nr = 5,
		.entry = { { PK_ANON, 9, 0.3 }, { PK_FILE, 0, 0.3 }, { PK_SLAB, 3, 0.2 },
			   { PK_FREE, 9, 0.2 }, { PK_HUGETLB, 18, 0 } },
	};
	struct plan_result a, b;
	struct mix_plan plan;
	struct mdb_err err;
	struct mix m;

	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		run_plan(&big, sizes[i], 3, &a);
		check_rounding(&big, sizes[i], &a);
		CHECK(a.count[PK_HUGETLB][18] >= 1, "big/%lu: %lu 1 GiB folios", sizes[i],
		      a.count[PK_HUGETLB][18]);
		run_plan(&big, sizes[i], 3, &b);
		CHECK(a.signature == b.signature, "big/%lu: same seed, same blocks", sizes[i]);
		run_plan(&big, sizes[i], 4, &b);
		CHECK(a.signature != b.signature && !memcmp(a.count, b.count, sizeof(a.count)),
		      "big/%lu: another seed moves blocks, never their counts", sizes[i]);
	}
	/* Of 8 slots, each 1 GiB folio lands anywhere: over seeds every slot is used. */
	{
		unsigned int used = 0;

		for (uint64_t seed = 1; seed <= 64; seed++) {
			struct mix_block blk;

			CHECK(mix_plan_init(&plan, &big, 8UL << 18, seed, &err) == 0, "%s", err.msg);
			while (mix_plan_next(&plan, &blk))
				if (blk.order == MIX_4K_HUGETLB_PUD)
					used |= 1U << (blk.pfn >> MIX_4K_HUGETLB_PUD);
			mix_plan_release(&plan);
		}
		CHECK(used == 0xff, "1 GiB folios only ever at slots %#x of 0xff", used);
	}
	/* A zero fraction above a pageblock draws nothing: the placement is unchanged. */
	run_plan(&designed, 65536, 1, &a);
	CHECK(a.signature == 0xe907cb93046077e1ULL, "designed + (hugetlb, 18, 0): %#llx",
	      (unsigned long long)a.signature);
	/* Less than one 1 GiB folio's worth of RAM: refused, not placed without it. */
	CHECK(mix_plan_init(&plan, &big, 1UL << 17, 1, &err) == -1 &&
	      !strcmp(err.msg, "(hugetlb, 18) asks 0.45 of 512MiB in whole pageblocks, less than one "
		      "1GiB folio: at that share a whole folio needs 2276MiB of RAM"), "%s", err.msg);
	m = big;
	m.entry[0].fraction = 0.7;	/* 1.05 GiB of 1.5 GiB: one folio */
	m.entry[1].fraction = 0.05;
	m.entry[2].fraction = 0.1;
	m.entry[3].fraction = 0.1;
	m.entry[4].fraction = 0.05;
	run_plan(&m, 3UL << 17, 1, &a);
	CHECK(a.count[PK_HUGETLB][18] == 1, "1.5 GiB: %lu 1 GiB folios", a.count[PK_HUGETLB][18]);
}

static int test_plan(void)
{
	/*
	 * Remainders worked out by hand.  65536 pfns: anon9 38.4, file0 19660.8,
	 * slab3 1638.4, free9 25.6 blocks; floors fill 65020 pfns; by remainder
	 * file0 (+1) and free9 (+512) fit, anon9 and slab3 no longer do; 3 pfns
	 * are left, free order 0.  70001 pfns: 136 whole pageblocks (69632), a
	 * 369-pfn tail; anon9 40.8 and slab3 1740.8 tie (anon is the lower kind:
	 * +1 fits, slab's then does not), file0 20889.6 (+1), free9 27.2; 6 left.
	 */
	static const struct expect_count want_65536[] = {
		{ PK_ANON, 9, 38 }, { PK_FILE, 0, 19661 }, { PK_SLAB, 3, 1638 },
		{ PK_FREE, 9, 26 }, { PK_FREE, 0, 3 },
	}, want_70001[] = {
		{ PK_ANON, 9, 41 }, { PK_FILE, 0, 20890 }, { PK_SLAB, 3, 1740 },
		{ PK_FREE, 9, 27 }, { PK_FREE, 0, 6 + 369 },
	}, want_small[] = {
		{ PK_FREE, 0, 511 },
	};
	struct mix designed = {
		.name = "designed", .nr = 4,
		.entry = { { PK_ANON, 9, 0.3 }, { PK_FILE, 0, 0.3 }, { PK_SLAB, 3, 0.2 },
			   { PK_FREE, 9, 0.2 } },
	};
	static const unsigned long sizes[] = { 65536, 70001, 512, 513, 1 };
	struct plan_result a, b;
	struct mix_plan plan;
	struct mdb_err err;
	struct mix m;

	run_plan(&designed, 65536, 1, &a);
	expect_counts(&a, "designed/65536", want_65536, 5);
	run_plan(&designed, 70001, 1, &a);
	expect_counts(&a, "designed/70001", want_70001, 5);
	run_plan(&designed, 511, 1, &a);
	expect_counts(&a, "designed/511", want_small, 1);
	check_pinned(&designed);

	for (const char *const *name = mix_builtin_names; *name; name++) {
		mix_builtin(*name, &m, &err);
		for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			run_plan(&m, sizes[i], 42, &a);
			check_rounding(&m, sizes[i], &a);
			run_plan(&m, sizes[i], 42, &b);
			CHECK(a.signature == b.signature, "%s/%lu: same seed, same blocks", *name,
			      sizes[i]);
		}
	}
	/* Another seed moves blocks, never their counts. */
	for (unsigned long nr = 65536; nr <= 70001; nr += 70001 - 65536) {
		mix_builtin("desktop", &m, &err);
		run_plan(&m, nr, 1, &a);
		run_plan(&m, nr, 2, &b);
		CHECK(a.signature != b.signature, "desktop/%lu: seeds 1 and 2 give the same blocks", nr);
		CHECK(!memcmp(a.count, b.count, sizeof(a.count)), "desktop/%lu: counts depend on the seed",
		      nr);
		run_plan(&designed, nr, 1, &a);
		run_plan(&designed, nr, 2, &b);
		CHECK(a.signature != b.signature, "designed/%lu: seeds 1 and 2 give the same blocks", nr);
	}
	/* 16 GiB of pfns, the size the desktop profile describes. */
	mix_builtin("desktop", &m, &err);
	run_plan(&m, 1UL << 22, 7, &a);
	check_rounding(&m, 1UL << 22, &a);
	test_plan_big();

	CHECK(mix_plan_init(&plan, &m, 0, 1, &err) == -1 && strstr(err.msg, "0 pfns"), "%s", err.msg);
	m.entry[0].fraction = 2;
	CHECK(mix_plan_init(&plan, &m, 4096, 1, &err) == -1 && strstr(err.msg, "outside [0, 1]"), "%s",
	      err.msg);
	mix_plan_release(&plan);
	return 0;
}

/* ------------------------------------------------------------------------ */

static const struct mix_test tests[] = {
	{ "kinds", test_kinds },
	{ "builtins", test_builtins },
	{ "validate", test_validate },
	{ "roundtrip", test_roundtrip },
	{ "bad_files", test_bad_files },
	{ "resolve", test_resolve },
	{ "plan", test_plan },
};

int main(int argc, char **argv)
{
	return mix_test_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
