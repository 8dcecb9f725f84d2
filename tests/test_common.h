/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_common.h - CHECK, the one check of the C tests.  A failed check
 * prints where, the condition and why, counts in failures and lets the test
 * go on, so one run shows every wrong value; past 50 failures the rest is
 * noise and it stops.  The test's main() returns non-zero when failures is.
 *
 *	CHECK(cond);				file:line: cond
 *	CHECK(cond, "fmt", args...);		file:line: cond: what fmt says
 *
 * fmt is a string literal (pasted after ": "; __VA_OPT__, C2x, in GCC's C17).
 */
#ifndef MDB_TEST_COMMON_H
#define MDB_TEST_COMMON_H

#include <stdio.h>
#include <stdlib.h>

static int failures;

#define CHECK(cond, ...) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "%s:%d: %s", __FILE__, __LINE__, #cond);	\
		__VA_OPT__(fprintf(stderr, ": " __VA_ARGS__);)			\
		fputc('\n', stderr);						\
		if (++failures > 50) {						\
			fprintf(stderr, "too many failures\n");			\
			exit(1);						\
		}								\
	}									\
} while (0)

#endif /* MDB_TEST_COMMON_H */
