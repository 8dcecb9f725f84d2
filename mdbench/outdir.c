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

/* The lock lives until exit: the descriptor is never closed. */
static int lock_dir(const char *dir, struct mdb_err *err)
{
	char path[PATH_MAX], pid[32] = "";
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/.mdbench.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return mdb_errf(err, "--out=%s: cannot write there: %s", dir, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		n = read(fd, pid, sizeof(pid) - 1);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		close(fd);
		return mdb_errf(err, "--out=%s: another mdbench run%s%s is writing there", dir,
				pid[0] ? " (pid " : "", pid[0] ? strcat(pid, ")") : "");
	}
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, strlen(pid), 0) < 0)
		return mdb_errf(err, "--out=%s: cannot write its lock: %s", dir, strerror(errno));
	return 0;
}

int mdb_outdir_open(const char *dir, bool force, bool simulate, struct mdb_err *err)
{
	static const char *const native[] = { "mdbench.json", "sim.json", "mix.json", "topology.xml",
					      NULL };
	static const char *const sim[] = { "sim.json", NULL };
	const char *const *f;
	char path[PATH_MAX];

	if (make_dirs(dir, err) || lock_dir(dir, err))
		return -1;
	/* The files go and the interrupt message changes with them, as one. */
	mdb_interrupt_hold();
	for (f = simulate ? sim : native; *f; f++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *f);
		if (access(path, F_OK))
			continue;
		if (!force) {
			mdb_interrupt_resume();
			return mdb_errf(err, "--out=%s holds %s of an earlier run: give another --out, "
					"or --force to replace it", dir, *f);
		}
		if (unlink(path)) {
			mdb_interrupt_resume();
			return mdb_errf(err, "--force: cannot remove %s: %s", path, strerror(errno));
		}
	}
	/* From here on an interrupt leaves no earlier run's file: say so if it comes. */
	snprintf(path, sizeof(path), "%s/%s", dir, simulate ? "sim.json" : "mdbench.json");
	mdb_interrupt_kept(path, -1, NULL);
	mdb_interrupt_resume();
	return 0;
}
