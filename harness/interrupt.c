// SPDX-License-Identifier: GPL-2.0
/*
 * interrupt.c - one handler for SIGINT, SIGTERM, SIGHUP and SIGPIPE (see
 * interrupt.h).  The file half written when the signal comes is jsonio.c's
 * mdb_atomic_tmp, in the directory mdb_atomic_tmp_dir.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "interrupt.h"
#include "jsonio.h"

volatile sig_atomic_t mdb_interrupted;

static volatile sig_atomic_t exit_at_once;
static char message[PATH_MAX + 256] = "mdbench: interrupted before the run started\n";

static void on_signal(int sig)
{
	ssize_t ignored;

	mdb_interrupted = sig;
	if (!exit_at_once)
		return;
	if (mdb_atomic_tmp_set)		/* a file half written: only whole ones stay */
		unlinkat(mdb_atomic_tmp_dir, mdb_atomic_tmp, 0);
	ignored = write(STDERR_FILENO, message, strlen(message));
	(void)ignored;
	_exit(128 + sig);
}

/*
 * A closed terminal (SIGHUP) or a reader gone from a pipe (SIGPIPE) ends a
 * run as Ctrl-C does: with its temporary removed and the line saying what
 * is kept, not silently by the default action.
 */
static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

static void caught_set(sigset_t *set)
{
	sigemptyset(set);
	for (unsigned int i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaddset(set, caught[i]);
}

static void set_action(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	caught_set(&sa.sa_mask);	/* one at a time: the message is written once */
	for (unsigned int i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		sigaction(caught[i], &sa, NULL);
}

void mdb_interrupt_catch(bool exit_now)
{
	exit_at_once = exit_now;
	set_action(on_signal);
}

/* The handler reads the message: no signal while it changes. */
static void set_message(const char *fmt, ...)
{
	sigset_t all, old;
	va_list ap;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

void mdb_interrupt_untouched(const char *dir)
{
	if (dir)
		set_message("mdbench: interrupted before the run started; %s is as it was\n", dir);
	else
		set_message("mdbench: interrupted before the run started\n");
}

void mdb_interrupt_kept(const char *path, long nr, const char *what)
{
	if (nr < 0)
		set_message("mdbench: interrupted before any result was written (no %s)\n", path);
	else
		set_message("mdbench: interrupted, %ld %s kept in %s\n", nr, what, path);
}

static sigset_t held, before_hold;

void mdb_interrupt_hold(void)
{
	caught_set(&held);
	sigprocmask(SIG_BLOCK, &held, &before_hold);
}

void mdb_interrupt_resume(void)
{
	sigprocmask(SIG_SETMASK, &before_hold, NULL);
}
