// SPDX-License-Identifier: GPL-2.0
/*
 * test_replay.c - what a careless or hostile trace file does to the loader
 * (machine/replay.c, included here for its ID table): a FIFO, /dev/zero, a
 * sparse file without a newline are refused at once in one line; IDs that
 * differ only in high bits (multiples of 2^40) spread over the table as
 * 1, 2, 3 do.  A loader that blocked or read on would hang: the checks run
 * in a child that alarm() ends, so a hang is a failure, not a stuck test.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include "../../machine/replay.c"
#include "test_common.h"

static char dir[] = "/tmp/test_replay.XXXXXX";

static const char *tmp(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}

/* age_replay_load(path) fails with a message holding want. */
static void refused(const char *path, const char *want)
{
	struct age_replay r;
	struct mdb_err err;

	CHECK(age_replay_load(path, &r, &err) == -1 && strstr(err.msg, want),
	      "%s: got \"%s\", want \"%s\"", path, err.msg, want);
}

/* Files that never end or never come: refused before a byte is waited for. */
static void test_endless(void)
{
	char path[512];
	int fd;

	refused("/dev/zero", "/dev/zero: not a regular file (a FIFO, a device or a socket)");
	CHECK(mkfifo(tmp(path, sizeof(path), "fifo"), 0600) == 0, "mkfifo: %s", strerror(errno));
	refused(path, "fifo: not a regular file (a FIFO, a device or a socket)");
	/* 2 GiB of NUL bytes without a newline: the first 257 bytes say it. */
	fd = open(tmp(path, sizeof(path), "sparse"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 2LL << 30) == 0, "sparse file: %s", strerror(errno));
	close(fd);
	refused(path, "sparse:1: longer than 256 bytes");
	unlink(path);
	refused(tmp(path, sizeof(path), ""), ": is a directory");
}

/* A line of 256 bytes is read, one of 257 refused, at its own line number. */
static void test_line_length(void)
{
	char path[512], text[600];
	struct age_replay r;
	struct mdb_err err;
	FILE *f;

	snprintf(text, sizeof(text), "a 1 0 anon%*s\n", 246, "");	/* 256 bytes */
	CHECK(strlen(text) == 257, "%zu", strlen(text));
	f = fopen(tmp(path, sizeof(path), "long"), "w");
	fputs(text, f);
	fclose(f);
	CHECK(age_replay_load(path, &r, &err) == 0 && r.nr_alloc == 1, "%s", err.msg);
	age_replay_release(&r);
	f = fopen(path, "w");
	fprintf(f, "%s# %*s\n", text, 255, "");
	fclose(f);
	refused(path, "long:2: longer than 256 bytes");
	unlink(path);
}

/*
 * IDs i << 40: a multiply alone left their low 40 bits 0 and put all in
 * slot 0 (200k of them took 24 s to load).  Counted on the table itself: at
 * least half the slots of a table twice their number are hit, as for 1..n.
 */
static void test_spread(void)
{
	enum { N = 1 << 16 };
	struct id_map m = { .cap = 2 * N };
	static bool hit[2 * N];
	unsigned int distinct[2] = { 0 };

	for (int shift = 0; shift < 2; shift++) {
		memset(hit, 0, sizeof(hit));
		for (uint64_t i = 1; i <= N; i++) {
			size_t s = id_slot(&m, shift ? i << 40 : i);

			distinct[shift] += !hit[s];
			hit[s] = true;
		}
	}
	CHECK(distinct[0] >= N / 2 && distinct[1] >= N / 2,
	      "%u IDs 1..n hit %u slots of %u; IDs i << 40 hit %u", N, distinct[0], 2 * N,
	      distinct[1]);
}

/* And through the loader: every ID i << 40 allocated, then freed. */
static void test_high_ids(void)
{
	char path[512];
	struct age_replay r;
	struct mdb_err err;
	FILE *f = fopen(tmp(path, sizeof(path), "high"), "w");

	for (uint64_t i = 1; i <= 20000; i++)
		fprintf(f, "a 0x%llx 0 anon\n", (unsigned long long)(i << 40));
	for (uint64_t i = 1; i <= 20000; i++)
		fprintf(f, "f %llu\n", (unsigned long long)(i << 40));
	fclose(f);
	CHECK(age_replay_load(path, &r, &err) == 0 && r.nr_alloc == 20000 && r.nr_free == 20000 &&
	      r.peak_pages == 20000 && r.live_pages == 0, "%s", err.msg);
	age_replay_release(&r);
	unlink(path);
}

int main(void)
{
	int status;
	pid_t pid;

	if (!mkdtemp(dir))
		return fprintf(stderr, "mkdtemp: %s\n", strerror(errno)), 1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		alarm(120);	/* a loader that waits on a FIFO or reads /dev/zero on */
		test_endless();
		test_line_length();
		test_spread();
		test_high_ids();
		_exit(failures ? 1 : 0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s %d",
	      WIFSIGNALED(status) ? "killed by signal" : "exit status",
	      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	{
		char path[512];

		unlink(tmp(path, sizeof(path), "fifo"));
		unlink(tmp(path, sizeof(path), "sparse"));
		unlink(tmp(path, sizeof(path), "long"));
		unlink(tmp(path, sizeof(path), "high"));
	}
	rmdir(dir);
	return test_done("test_replay");
}
