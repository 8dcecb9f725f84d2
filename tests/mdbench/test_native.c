// SPDX-License-Identifier: GPL-2.0
/*
 * test_native.c - native.c without the program: one instance for a fixed
 * count of ops (what --simulate's child and --fixed-ops run), the items it
 * reports, a kernel's error, and --fixed-ops over a plan: its lines, its
 * exit status, and its refusal of 0 ops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_run.h"

static const char *const p64[] = { "page64", NULL };

/* Items of name for ops, or -1 with the error in err. */
static long long fixed(const struct mdb_run *run, const char *name, uint64_t ops, struct mdb_err *err)
{
	const struct mdb_instance *in = test_find(run, name);
	uint64_t items = 0;

	if (!in) {
		CHECK(in, "no instance %s", name);
		return -2;
	}
	err->msg[0] = '\0';
	if (mdb_run_fixed(run, in, ops, NULL, NULL, NULL, &items, err))
		return -1;
	return (long long)items;
}

static void test_fixed(void)
{
	struct mdb_run run;
	struct mdb_err err;
	struct mix mix;
	long long n;

	test_run_mix(&mix, "plain", false);
	test_run_init(&run, "^test/", p64, &mix, 1, TEST_RAM);
	mdb_plan(&run);

	/* Ops are rounded up to the kernel's batch: test/faults takes 64 at a time. */
	n = fixed(&run, "test/faults/bytes:1MiB", 64, &err);
	CHECK(n == 64, "test/faults, 64 ops: %lld items (%s)", n, err.msg);
	n = fixed(&run, "test/faults/bytes:1MiB", 65, &err);
	CHECK(n == 128, "test/faults, 65 ops: %lld items (%s)", n, err.msg);
	/* Two items an op. */
	n = fixed(&run, "test/halves/bytes:1MiB", 128, &err);
	CHECK(n == 256, "test/halves, 128 ops: %lld items (%s)", n, err.msg);
	n = fixed(&run, "test/spin/bytes:1MiB", 3, &err);
	CHECK(n == 3, "test/spin, 3 ops: %lld items (%s)", n, err.msg);
	/* On a memmap built for the run: batches of 16. */
	n = fixed(&run, "test/mark/page64/mix:plain/ram:64MiB", 20, &err);
	CHECK(n == 32, "test/mark, 20 ops: %lld items (%s)", n, err.msg);
	n = fixed(&run, "test/fresh/page64/mix:plain/ram:64MiB", 16, &err);
	CHECK(n == 16, "test/fresh, 16 ops: %lld items (%s)", n, err.msg);
	/* A kernel's error comes back as it said it. */
	n = fixed(&run, "test/error/page64/mix:plain/ram:64MiB", 1, &err);
	CHECK(n == -1, "test/error: %lld items", n);
	CHECK(strstr(err.msg, "test/error: failed on purpose"), "test/error: %s", err.msg);
	test_run_free(&run);
}

/* mdb_run_fixed_all with stdout in a file: its lines, and its return. */
static int fixed_all(const struct mdb_run *run, uint64_t ops, char *buf, size_t len)
{
	FILE *f = tmpfile();
	int saved = dup(1), ret;
	size_t n;

	if (!f || saved < 0) {
		perror("fixed_all");
		exit(1);
	}
	fflush(stdout);
	dup2(fileno(f), 1);
	ret = mdb_run_fixed_all(run, ops);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return ret;
}

static void test_fixed_all(void)
{
	struct mdb_run run;
	struct mix mix;
	char out[4096];
	int ret;

	test_run_mix(&mix, "plain", false);
	test_run_init(&run, "^test/(mark|seen)/", p64, &mix, 1, TEST_RAM);
	mdb_plan(&run);
	ret = fixed_all(&run, 10, out, sizeof(out));
	CHECK(ret == 0, "returned %d", ret);
	CHECK(!strcmp(out, "test/mark/page64/mix:plain/ram:64MiB: 16 items\n"
			   "test/seen/page64/mix:plain/ram:64MiB: 16 items\n"), "printed:\n%s", out);
	test_run_free(&run);

	/* One failed: every line still printed, and 1 returned. */
	test_run_init(&run, "^test/(error|spin)/", p64, &mix, 1, TEST_RAM);
	mdb_plan(&run);
	ret = fixed_all(&run, 2, out, sizeof(out));
	CHECK(ret == 1, "returned %d", ret);
	CHECK(!strcmp(out, "test/error/page64/mix:plain/ram:64MiB: error: test/error: failed on purpose\n"
			   "test/spin/bytes:1MiB: 2 items\n"), "printed:\n%s", out);
	test_run_free(&run);
}

static void fixed_all_zero(void *arg)
{
	mdb_run_fixed_all(arg, 0);
}

static void test_zero_ops(void)
{
	struct mdb_run run;
	struct mix mix;
	char err[1024];
	int status;

	test_run_mix(&mix, "plain", false);
	test_run_init(&run, "^test/mark/", p64, &mix, 1, TEST_RAM);
	mdb_plan(&run);
	status = test_dies(fixed_all_zero, &run, err, sizeof(err));
	CHECK(status == 2, "exit status %d", status);
	CHECK(!strcmp(err, "mdbench: --fixed-ops=0: at least one op\n"), "stderr: %s", err);
	test_run_free(&run);
}

int main(void)
{
	test_fixed();
	test_fixed_all();
	test_zero_ops();
	if (failures) {
		fprintf(stderr, "test_native: %d failures\n", failures);
		return 1;
	}
	printf("test_native: ok\n");
	return 0;
}
