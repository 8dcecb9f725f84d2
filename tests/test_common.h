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
 * test_done() ends main(); test_dies() sees what a fatal path says.
 */
#ifndef MDB_TEST_COMMON_H
#define MDB_TEST_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* main()'s return: "NAME: ok", or the count of failures and 1. */
static inline int test_done(const char *name)
{
	if (failures) {
		fprintf(stderr, "%s: %d failures\n", name, failures);
		return 1;
	}
	printf("%s: ok\n", name);
	return 0;
}

/*
 * Runs fn(arg) in a child; returns its exit status (-1: killed, 0: fn
 * returned) and what it wrote on stderr in buf (len bytes, NUL-terminated):
 * what mdb_die() says, for one.
 */
static inline int test_dies(void (*fn)(void *), void *arg, char *buf, size_t len)
{
	int fd[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	fflush(NULL);
	if (pipe(fd) || (pid = fork()) < 0) {
		perror("test_dies");
		exit(1);
	}
	if (!pid) {
		close(fd[0]);
		dup2(fd[1], 2);
		fn(arg);
		_exit(0);
	}
	close(fd[1]);
	while (got + 1 < (ssize_t)len && (n = read(fd[0], buf + got, len - 1 - got)) > 0)
		got += n;
	buf[got] = '\0';
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif /* MDB_TEST_COMMON_H */
