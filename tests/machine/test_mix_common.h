/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_mix_common.h - what test_mix.c and test_kpageflags.c share: paths
 * into the fixtures, a scratch directory, a mix read back from its JSON, and
 * the one-subcommand-per-CTest-test main:
 *
 *	test_mix <test> <tests/machine/fixtures> <results/mixes>
 *	test_kpageflags <test> <tests/machine/fixtures> <results/mixes>
 */
#ifndef MDB_TEST_MIX_COMMON_H
#define MDB_TEST_MIX_COMMON_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "jsonio.h"
#include "mix.h"
#include "test_common.h"

#define SKIP		77
#define NR_ORDERS	MIX_NR_ORDERS

static const char *fixtures, *mixes;	/* argv[2], argv[3] */

static bool mix_equal(const struct mix *a, const struct mix *b)
{
	if (strcmp(a->name, b->name) || a->nr != b->nr)
		return false;
	for (unsigned int i = 0; i < a->nr; i++)
		if (a->entry[i].kind != b->entry[i].kind || a->entry[i].order != b->entry[i].order ||
		    a->entry[i].fraction != b->entry[i].fraction)
			return false;
	return true;
}

static char *path_join(char *buf, size_t size, const char *dir, const char *name)
{
	if ((size_t)snprintf(buf, size, "%s/%s", dir, name) >= size) {
		fprintf(stderr, "mdbench: path %s/%s too long\n", dir, name);
		exit(2);
	}
	return buf;
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ret = f && fwrite(data, 1, len, f) == len ? 0 : -1;

	if (f && fclose(f))
		ret = -1;
	CHECK(ret == 0, "writing %s: %s", path, strerror(errno));
	return ret;
}

static char tmpdir[] = "/tmp/test_mix.XXXXXX";

static const char *tmp_path(char *buf, size_t size, const char *name)
{
	return path_join(buf, size, tmpdir, name);
}


/* m as the suite writes it: mix_to_json(), dumped with the suite's flags. */
static char *mix_text(const struct mix *m)
{
	json_t *doc = mix_to_json(m);
	char *text = doc ? json_dumps(doc, MDB_JSON_DUMP_FLAGS) : NULL;

	json_decref(doc);
	return text;
}

static void roundtrip(const struct mix *m, const char *what)
{
	char *text = mix_text(m);
	json_t *doc = mix_to_json(m);
	struct mdb_err err;
	struct mix back;

	CHECK(text && doc, "%s: mix_to_json", what);
	if (!text || !doc)
		return;
	CHECK(mix_parse_json(text, &back, &err) == 0, "%s: reading back: %s\n%s", what, err.msg, text);
	CHECK(mix_equal(m, &back), "%s: parse(write(m)) == m\n%s", what, text);
	/* Fractions are never negative: a '-' after a key would be a -0. */
	CHECK(!strstr(text, ": -"), "%s: a -0 is written\n%s", what, text);
	CHECK(mix_from_json(doc, &back, &err) == 0 && mix_equal(m, &back),
	      "%s: mix_from_json(mix_to_json(m)) == m: %s", what, err.msg);
	json_decref(doc);
	free(text);
}


struct mix_test {
	const char *name;
	int (*fn)(void);
};

/* Runs the test argv[1] names of tests[nr]: its failures, 77 to skip, 2 for a bad command line. */
static int mix_test_main(int argc, char **argv, const struct mix_test *tests, unsigned int nr)
{
	int ret;

	if (argc != 4) {
		fprintf(stderr, "usage: %s <test> <tests/machine/fixtures> <results/mixes>\n", argv[0]);
		return 2;
	}
	fixtures = argv[2];
	mixes = argv[3];
	for (unsigned int i = 0; i < nr; i++) {
		if (strcmp(argv[1], tests[i].name))
			continue;
		ret = tests[i].fn();
		if (failures)
			fprintf(stderr, "%s: %d failures\n", argv[1], failures);
		return failures ? 1 : ret;
	}
	fprintf(stderr, "mdbench: unknown test '%s'\n", argv[1]);
	return 2;
}

#endif /* MDB_TEST_MIX_COMMON_H */
