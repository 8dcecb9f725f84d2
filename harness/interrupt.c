// SPDX-License-Identifier: GPL-2.0
/*
 * interrupt.c - one SIGINT/SIGTERM handler (see interrupt.h).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "interrupt.h"

volatile sig_atomic_t mdb_interrupted;

static volatile sig_atomic_t exit_at_once;
static char tmp_path[PATH_MAX + 32];	/* "" when there is no file */
static char message[PATH_MAX + 128] = "mdbench: interrupted before any result was written\n";

static void on_signal(int sig)
{
	ssize_t ignored;

	mdb_interrupted = sig;
	if (!exit_at_once)
		return;
	if (tmp_path[0])
		unlink(tmp_path);
	ignored = write(STDERR_FILENO, message, strlen(message));
	(void)ignored;
	_exit(128 + sig);
}

static void set_action(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void mdb_interrupt_catch(bool exit_now)
{
	exit_at_once = exit_now;
	set_action(on_signal);
}

void mdb_interrupt_kept(const char *path, long nr, const char *what)
{
	sigset_t all, old;

	/* The handler reads both strings: no signal while they change. */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if (path)
		snprintf(tmp_path, sizeof(tmp_path), "%s.tmp.%ld", path, (long)getpid());
	else
		tmp_path[0] = '\0';
	if (!path || nr < 0)
		snprintf(message, sizeof(message), "mdbench: interrupted before any result was written\n");
	else
		snprintf(message, sizeof(message), "mdbench: interrupted, %ld %s kept in %s\n", nr, what,
			 path);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void mdb_interrupt_release(void)
{
	set_action(SIG_DFL);
}
