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
	/* Ops are rounded up to the kernel's batch; test/halves does two items an op. */
	static const struct { const char *name; uint64_t ops; long long items; } want[] = {
		{ "test/faults/bytes:1MiB", 64, 64 },		/* batches of 64 */
		{ "test/faults/bytes:1MiB", 65, 128 },
		{ "test/halves/bytes:1MiB", 128, 256 },
		{ "test/spin/bytes:1MiB", 3, 3 },		/* batches of 1 */
		/* On a memmap built for the run: batches of 16. */
		{ "test/mark/page64/mix:plain/ram:64MiB", 20, 32 },
		{ "test/fresh/page64/mix:plain/ram:64MiB", 16, 16 },
	};
	struct mdb_run run;
	struct mdb_err err;
	long long n;
	size_t i;

	test_run_plain(&run, "^test/", p64);
	mdb_plan(&run);

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		n = fixed(&run, want[i].name, want[i].ops, &err);
		CHECK(n == want[i].items, "%s, %llu ops: %lld items, want %lld (%s)", want[i].name,
		      (unsigned long long)want[i].ops, n, want[i].items, err.msg);
	}
	/* A kernel's error comes back as it said it. */
	n = fixed(&run, "test/error/page64/mix:plain/ram:64MiB", 1, &err);
	CHECK(n == -1, "test/error: %lld items", n);
	CHECK(strstr(err.msg, "test/error: failed on purpose"), "test/error: %s", err.msg);
	test_run_free(&run);
}

/* mdb_run_fixed_all with stdout in a file: its lines, and its return. */
static int fixed_all(struct mdb_run *run, uint64_t ops, char *buf, size_t len)
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
	/* One failed: every line still printed, and 1 returned. */
	static const struct { const char *filter; uint64_t ops; int ret; const char *out; } want[] = {
		{ "^test/(mark|seen)/", 10, 0, "test/mark/page64/mix:plain/ram:64MiB: 16 items\n"
					       "test/seen/page64/mix:plain/ram:64MiB: 16 items\n" },
		{ "^test/(error|spin)/", 2, 1,
		  "test/error/page64/mix:plain/ram:64MiB: error: test/error: failed on purpose\n"
		  "test/spin/bytes:1MiB: 2 items\n" },
	};
	struct mdb_run run;
	char out[4096];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		test_run_plain(&run, want[i].filter, p64);
		mdb_plan(&run);
		ret = fixed_all(&run, want[i].ops, out, sizeof(out));
		CHECK(ret == want[i].ret && !strcmp(out, want[i].out), "%s: returned %d, printed:\n%s",
		      want[i].filter, ret, out);
		test_run_free(&run);
	}
}

static void fixed_all_zero(void *arg)
{
	mdb_run_fixed_all(arg, 0);
}

static void test_zero_ops(void)
{
	struct mdb_run run;
	char err[1024];
	int status;

	test_run_plain(&run, "^test/mark/", p64);
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
	return test_done("test_native");
}
