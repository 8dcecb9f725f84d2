// SPDX-License-Identifier: GPL-2.0
/*
 * outdir.c - --out=DIR: made if missing, locked for the run, and never left
 * holding an earlier run's results beside this one's.
 *
 * A run takes an exclusive lock on DIR/.mdbench.lock for as long as it
 * lives (flock: released by the kernel however the process ends), so a
 * second run on the same DIR is refused at once.  A native run writes
 * mdbench.json, mix.json and topology.xml and must not leave an older
 * sim.json looking like its own; a --simulate run writes sim.json beside a
 * native run's files (scripts/run does both in one DIR).  Files of an
 * earlier run that this run would replace or disown are refused, or with
 * --force removed before anything else happens.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interrupt.h"
#include "jsonio.h"
#include "mdbench.h"

static int make_dirs(const char *dir, struct mdb_err *err)
{
	char path[PATH_MAX], *p, c;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return mdb_errf(err, "--out: path too long");
	for (p = path + 1;; p++) {
		if (*p && *p != '/')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(path, 0777) && errno != EEXIST)
			return mdb_errf(err, "--out=%s: cannot create %s: %s", dir, path, strerror(errno));
		*p = c;
		if (!c)
			return 0;
	}
}

/*
 * DIR, opened once: the lock, the removals and every file of the run go
 * through this descriptor (mdb_json_pin_dir()), so DIR renamed or replaced
 * by a symlink mid-run sends nothing into another run's directory.
 */
static int out_fd = -1;
static bool out_simulate;

/*
 * The lock lives until exit: the descriptor is never closed.  O_NOFOLLOW
 * and a regular file only: a symlink planted as the lock would have its
 * target truncated.  The pid in it is only for the message of a second
 * run: on a full disk the lock holds without it.
 */
static int lock_dir(const char *dir, struct mdb_err *err)
{
	char pid[32] = "";
	struct stat st;
	int fd;
	ssize_t n;

	fd = openat(out_fd, ".mdbench.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		    0644);
	if (fd < 0 && errno == ELOOP)
		return mdb_errf(err, "--out=%s: .mdbench.lock is a symlink, not mdbench's lock: "
				"remove it", dir);
	if (fd < 0)
		return mdb_errf(err, "--out=%s: cannot write there: %s", dir, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return mdb_errf(err, "--out=%s: .mdbench.lock is not a regular file, not mdbench's "
				"lock: remove it", dir);
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		n = read(fd, pid, sizeof(pid) - 1);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		close(fd);
		return mdb_errf(err, "--out=%s: another mdbench run%s%s is writing there", dir,
				pid[0] ? " (pid " : "", pid[0] ? strcat(pid, ")") : "");
	}
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (!ftruncate(fd, 0) && pwrite(fd, pid, strlen(pid), 0) < 0)
		pid[0] = '\0';		/* a full disk: an empty lock still locks */
	return 0;
}

/* The files a run writes into DIR (simulate: sim.json alone). */
static const char *const *run_files(bool simulate)
{
	static const char *const native[] = { "mdbench.json", "sim.json", "mix.json", "topology.xml",
					      NULL };
	static const char *const sim[] = { "sim.json", NULL };

	return simulate ? sim : native;
}

int mdb_outdir_open(const char *dir, bool force, bool simulate, struct mdb_err *err)
{
	const char *const *f;
	char path[PATH_MAX];

	if (make_dirs(dir, err))
		return -1;
	out_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (out_fd < 0)
		return mdb_errf(err, "--out=%s: cannot open it: %s", dir, strerror(errno));
	out_simulate = simulate;
	if (lock_dir(dir, err))
		return -1;
	mdb_json_pin_dir(dir, out_fd);
	/* The files go and the interrupt message changes with them, as one. */
	mdb_interrupt_hold();
	for (f = run_files(simulate); *f; f++) {
		if (faccessat(out_fd, *f, F_OK, AT_SYMLINK_NOFOLLOW))
			continue;
		if (!force) {
			mdb_interrupt_resume();
			return mdb_errf(err, "--out=%s holds %s of an earlier run: give another --out, "
					"or --force to replace it", dir, *f);
		}
		if (unlinkat(out_fd, *f, 0)) {
			mdb_interrupt_resume();
			return mdb_errf(err, "--force: cannot remove %s/%s: %s", dir, *f,
					strerror(errno));
		}
	}
	/* From here on an interrupt leaves no earlier run's file: say so if it comes. */
	snprintf(path, sizeof(path), "%s/%s", dir, simulate ? "sim.json" : "mdbench.json");
	mdb_interrupt_kept(path, -1, NULL);
	mdb_interrupt_resume();
	return 0;
}

/*
 * The run could not start (a full disk, no inodes): what it wrote so far
 * goes again, so that the next run on DIR is not refused for holding an
 * earlier run's files that hold no result.
 */
void mdb_outdir_abandon(void)
{
	const char *const *f;

	if (out_fd < 0)
		return;
	mdb_interrupt_hold();
	for (f = run_files(out_simulate); *f; f++)
		unlinkat(out_fd, *f, 0);
	mdb_interrupt_resume();
}
