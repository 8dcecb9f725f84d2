// SPDX-License-Identifier: GPL-2.0
/*
 * test_callgrind.c - the callgrind-output parser (mdbench/callgrind.c) on
 * stored files: lookup.0 and lookup.0.1 are what valgrind 3.19's callgrind
 * wrote for a --simulate child (lookup/seq, 4096 ops), the termination dump
 * and the client request's part; short.0 leaves trailing zero columns out;
 * notcg.0 and bad.0 are not valid callgrind output.
 *
 * usage: test_callgrind DIR
 */
#include <string.h>

#include "callgrind.h"
#include "test_common.h"

int main(int argc, char **argv)
{
	static const char trigger[] = "lookup/seq/page64/mix:free/ram:2MiB";
	static const uint64_t want[CG_NR] = { 178139, 37433, 328, 7, 647, 1, 7, 0, 0 };
	struct cg_result r;
	struct mdb_err err;
	char path[4096];
	int e;

	if (argc != 2) {
		fprintf(stderr, "usage: test_callgrind DIR\n");
		return 2;
	}
	memset(&r, 0, sizeof(r));
	CHECK(cg_parse_dump(argv[1], "lookup.0", trigger, &r, &err) == 1, "lookup: %s", err.msg);
	for (e = 0; e < CG_NR; e++)
		CHECK(r.ev[e] == want[e], "%s: %llu, want %llu", cg_event_name[e],
		      (unsigned long long)r.ev[e], (unsigned long long)want[e]);
	CHECK(!strcmp(r.desc_d1, "32768 B, 64 B, 8-way associative"), "D1: %s", r.desc_d1);
	CHECK(!strcmp(r.desc_ll, "8388608 B, 64 B, 16-way associative"), "LL: %s", r.desc_ll);

	snprintf(path, sizeof(path), "%s/lookup.0", argv[1]);
	CHECK(cg_parse_file(path, trigger, &r, &err) == 0, "the termination dump is not it");
	CHECK(cg_parse_dump(argv[1], "lookup.0", "other/kernel", &r, &err) == 0,
	      "another trigger: not found");

	CHECK(cg_parse_dump(argv[1], "short.0", "short", &r, &err) == 1, "short: %s", err.msg);
	CHECK(r.ev[CG_Ir] == 100 && r.ev[CG_D1mr] == 7 && r.ev[CG_D1mw] == 0 && r.ev[CG_DLmw] == 0,
	      "trailing columns left out are 0: Ir %llu D1mr %llu",
	      (unsigned long long)r.ev[CG_Ir], (unsigned long long)r.ev[CG_D1mr]);

	snprintf(path, sizeof(path), "%s/notcg.0", argv[1]);
	CHECK(cg_parse_file(path, "x", &r, &err) == -1 && strstr(err.msg, "not callgrind output"),
	      "notcg: %s", err.msg);
	snprintf(path, sizeof(path), "%s/bad.0", argv[1]);
	CHECK(cg_parse_file(path, "bad", &r, &err) == -1 && strstr(err.msg, "not numbers"),
	      "bad: %s", err.msg);
	snprintf(path, sizeof(path), "%s/missing.0", argv[1]);
	CHECK(cg_parse_file(path, "x", &r, &err) == -1 && strstr(err.msg, "No such file"),
	      "missing: %s", err.msg);
	if (failures)
		return 1;
	printf("test_callgrind: all checks passed\n");
	return 0;
}
