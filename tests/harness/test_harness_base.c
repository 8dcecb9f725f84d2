// SPDX-License-Identifier: GPL-2.0
/*
 * test_harness_base.c - the base library: the one error type (escaped, one
 * line) and the fatal path (mdb_die: that line, exit 2), decimal numbers and sizes (whole string, decimal only), JSON files
 * (strict reading, Google Benchmark's non-finite numbers, atomic writing).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonio.h"
#include "rng.h"
#include "test_common.h"
#include "units.h"

static void test_err(void)
{
	struct mdb_err err;

	CHECK(mdb_errf(&err, "file %s: bad", "a\rb\x1b[2Jc\nd") == -1, "returns -1");
	CHECK(!strcmp(err.msg, "file a\\rb\\x1b[2Jc\\nd: bad"), "escaped: %s", err.msg);
	mdb_err_prefix(&err, "--mix=%s", "x");
	CHECK(!strcmp(err.msg, "--mix=x: file a\\rb\\x1b[2Jc\\nd: bad"), "prefixed: %s", err.msg);
	mdb_errf(&err, "%0600d", 7);
	CHECK(strlen(err.msg) == MDB_ERR_LEN - 1, "cut to fit: %zu", strlen(err.msg));
}

static void die_mix(void *arg)
{
	mdb_dief("--mix=%s: unknown mix", (const char *)arg);
}

static void die_err(void *arg)
{
	struct mdb_err err;

	mdb_errf(&err, "%s", (const char *)arg);
	mdb_die(&err);
}

/* The fatal path: "mdbench: <reason>", escaped, one line, exit 2. */
static void test_die(void)
{
	char buf[2048], longer[900];
	int status;

	status = test_dies(die_mix, "a\nb\x1b[2J", buf, sizeof(buf));
	CHECK(status == 2, "mdb_dief: exit status %d", status);
	CHECK(!strcmp(buf, "mdbench: --mix=a\\nb\\x1b[2J: unknown mix\n"), "mdb_dief said: %s", buf);
	status = test_dies(die_err, "out of memory", buf, sizeof(buf));
	CHECK(status == 2, "mdb_die: exit status %d", status);
	CHECK(!strcmp(buf, "mdbench: out of memory\n"), "mdb_die said: %s", buf);
	/* A reason longer than MDB_ERR_LEN is cut, still one line. */
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	status = test_dies(die_err, longer, buf, sizeof(buf));
	CHECK(status == 2 && strlen(buf) == strlen("mdbench: \n") + MDB_ERR_LEN - 1 &&
	      strchr(buf, '\n') == buf + strlen(buf) - 1, "long reason: %zu bytes", strlen(buf));
}

/* Enumerated names both ways: a gap in the table and a value out of range are "?". */
static void test_names(void)
{
	static const char *const names[3] = { [0] = "off", [2] = "on" };

	CHECK(mdb_parse_name("on", names, 3) == 2 && mdb_parse_name("of", names, 3) == -1, "parse");
	CHECK(!strcmp(mdb_name_of(names, 3, 0), "off") && !strcmp(mdb_name_of(names, 3, 2), "on"),
	      "names");
	CHECK(!strcmp(mdb_name_of(names, 3, 1), "?") && !strcmp(mdb_name_of(names, 3, 3), "?") &&
	      !strcmp(mdb_name_of(names, 3, -1), "?"), "gaps and outside are ?");
}

static void test_numbers(void)
{
	static const char *const bad[] = { "", "0x1", " 1", "1 ", "-1", "+1", "1e3", "1.0",
					   "18446744073709551616", "99999999999999999999999", NULL };
	struct mdb_err err;
	uint64_t v;
	unsigned int i;

	CHECK(!mdb_parse_u64("010", 100, &v, "--cpu", &err) && v == 10, "010 is ten: %llu",
	      (unsigned long long)v);
	CHECK(!mdb_parse_u64("18446744073709551615", UINT64_MAX, &v, "--seed", &err) &&
	      v == UINT64_MAX, "the largest");
	CHECK(mdb_parse_u64("101", 100, &v, "--cpu", &err) == -1 &&
	      !strcmp(err.msg, "--cpu=101: not a decimal number from 0 to 100"), "%s", err.msg);
	for (i = 0; bad[i]; i++)
		CHECK(mdb_parse_u64(bad[i], UINT64_MAX, &v, "--seed", &err) == -1, "'%s' taken",
		      bad[i]);
}

static void test_sizes(void)
{
	static const struct { const char *in; uint64_t bytes; } good[] = {
		{ "4096", 4096 }, { "4096B", 4096 }, { "256MiB", 256ULL << 20 }, { "4GiB", 4ULL << 30 },
		{ "1TiB", 1ULL << 40 }, { "010KiB", 10240 },
	};
	static const char *const bad[] = { "", "GiB", "4 GiB", "4gib", "4GB", "-4GiB", "0x10MiB",
					   "4.5GiB", "2048TiB", NULL };
	struct mdb_err err;
	uint64_t v;
	unsigned int i;
	char buf[32];

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(!mdb_parse_size(good[i].in, 1024 * MDB_TiB, &v, "--ram", &err) &&
		      v == good[i].bytes, "%s: %s", good[i].in, err.msg);
	for (i = 0; bad[i]; i++)
		CHECK(mdb_parse_size(bad[i], 1024 * MDB_TiB, &v, "--ram", &err) == -1 &&
		      !strchr(err.msg, '\n'), "'%s' taken", bad[i]);
	mdb_format_size(1536ULL << 10, buf, sizeof(buf));
	CHECK(!strcmp(buf, "1536KiB"), "%s", buf);
	mdb_format_size(4ULL << 30, buf, sizeof(buf));
	CHECK(!strcmp(buf, "4GiB"), "%s", buf);
	mdb_format_size(0, buf, sizeof(buf));
	CHECK(!strcmp(buf, "0B"), "%s", buf);
}

static void test_rng(void)
{
	uint64_t s = 1, hits[3] = { 0 };
	unsigned int i;

	/* splitmix64 from 1: the reference sequence's first value. */
	CHECK(mdb_rng_next(&s) == 0x910a2dec89025cc1ULL, "splitmix64");
	for (i = 0; i < 3000; i++)
		hits[mdb_rng_below(&s, 3)]++;
	CHECK(hits[0] > 900 && hits[1] > 900 && hits[2] > 900, "uniform below 3: %llu %llu %llu",
	      (unsigned long long)hits[0], (unsigned long long)hits[1], (unsigned long long)hits[2]);
}

/* Files in dir other than . and .. */
static int nr_files(const char *dir)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0;

	while (dp && (d = readdir(dp)))
		n += strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
	if (dp)
		closedir(dp);
	return n;
}

static void test_json(const char *dir)
{
	static const char gb[] = "{\"a\": NaN, \"b\": -Infinity, \"c\": \"NaN Infinity\", \"d\": [Infinity]}";
	char path[4096];
	struct mdb_err err;
	json_t *doc;

	doc = mdb_json_load_text("{\"a\": 1, \"a\": 2}", 16, "dup.json", &err);
	CHECK(!doc && strstr(err.msg, "dup.json: line 1 column") && strstr(err.msg, "duplicate"),
	      "duplicate keys: %s", err.msg);
	doc = mdb_json_load_gb(gb, sizeof(gb) - 1, "gb", &err);
	CHECK(doc && json_is_null(json_object_get(doc, "a")) && json_is_null(json_object_get(doc, "b")) &&
	      !strcmp(json_string_value(json_object_get(doc, "c")), "NaN Infinity") &&
	      json_is_null(json_array_get(json_object_get(doc, "d"), 0)), "GB's non-finite numbers");
	snprintf(path, sizeof(path), "%s/out.json", dir);
	CHECK(!mdb_json_write(path, doc, &err), "%s", err.msg);
	json_decref(doc);
	doc = mdb_json_load_file(path, 1 << 20, &err);
	CHECK(doc && json_is_null(json_object_get(doc, "a")), "read back: %s", err.msg);
	json_decref(doc);
	CHECK(nr_files(dir) == 1, "no temporary left: %d files", nr_files(dir));
	snprintf(path, sizeof(path), "%s/no/such/dir/out.json", dir);
	CHECK(mdb_write_atomic(path, "x", 1, 0644, &err) == -1 && strstr(err.msg, "No such file"),
	      "%s", err.msg);
	CHECK(!mdb_json_load_file(dir, 100, &err) && strstr(err.msg, "Is a directory"), "%s", err.msg);
}

int main(void)
{
	char dir[] = "/tmp/test_harness_base.XXXXXX";
	char path[64];

	if (!mkdtemp(dir))
		return 1;
	test_err();
	test_die();
	test_names();
	test_numbers();
	test_sizes();
	test_rng();
	test_json(dir);
	snprintf(path, sizeof(path), "%s/out.json", dir);
	unlink(path);
	rmdir(dir);
	if (failures) {
		fprintf(stderr, "test_harness_base: %d failures\n", failures);
		return 1;
	}
	printf("test_harness_base: all checks passed\n");
	return 0;
}
