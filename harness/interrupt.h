/* SPDX-License-Identifier: GPL-2.0 */
/*
 * interrupt.h - SIGINT, SIGTERM, SIGHUP and SIGPIPE for a run that keeps what
 * finished.
 *
 * One handler for the whole program.  It removes the temporary of the file
 * being written (mdb_write_atomic()'s PATH.tmp.PID, whichever file), so that
 * only whole files stay, and either leaves at once, saying how many results are on
 * disk (a Google Benchmark run, whose loop cannot look at a flag), or only
 * records the signal for a loop that can (the --simulate scheduler).
 * Async-signal-safe throughout: every message is formatted beforehand.
 */
#ifndef MDB_INTERRUPT_H
#define MDB_INTERRUPT_H

#include <signal.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The signal that arrived, 0 until one does. */
extern volatile sig_atomic_t mdb_interrupted;

/* Catches SIGINT and SIGTERM from now on; exit_now as above.  Safe to call again. */
void mdb_interrupt_catch(bool exit_now);
/* Until a run touches its output: what an interrupt leaves is as it was (dir may be NULL). */
void mdb_interrupt_untouched(const char *dir);
/* The file results go to, and how many of what are in it (-1: it does not exist yet). */
void mdb_interrupt_kept(const char *path, long nr, const char *what);
/*
 * Holds SIGINT and SIGTERM back while the disk and the message change
 * together (a file written and the count that describes it): a signal that
 * comes meanwhile is handled at mdb_interrupt_resume(), so the message always
 * matches what is on disk.
 */
void mdb_interrupt_hold(void);
void mdb_interrupt_resume(void);

#ifdef __cplusplus
}
#endif

#endif /* MDB_INTERRUPT_H */
