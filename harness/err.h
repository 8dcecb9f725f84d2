/* SPDX-License-Identifier: GPL-2.0 */
/*
 * err.h - the one error type of the suite: a one-line reason.
 *
 * Every function that can fail on bad input or a failed system call takes a
 * struct mdb_err * last and returns -1 (or NULL) with the reason in it; the
 * caller adds its own context with mdb_err_prefix() and, at the top, prints
 * it as one line ("mdbench: <reason>") and exits 2.  Control characters in
 * the reason (a file name holding \r or an escape sequence) are escaped when
 * it is formatted, so nothing raw reaches the terminal.
 */
#ifndef MDB_ERR_H
#define MDB_ERR_H

#ifdef __cplusplus
extern "C" {
#endif

#define MDB_ERR_LEN	512

struct mdb_err {
	char msg[MDB_ERR_LEN];
};

/* Formats the reason into err (escaped, truncated to fit); returns -1. */
int mdb_errf(struct mdb_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Puts "<context>: " in front of the reason err already holds; returns -1. */
int mdb_err_prefix(struct mdb_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s with control characters escaped (\n, \r, \t, \xNN), in buf of len bytes. */
const char *mdb_escape(const char *s, char *buf, unsigned long len);

/*
 * The fatal path of the top: prints "mdbench: <reason>" on stderr and exits
 * 2 (bad input, before anything ran).  Only the program calls these; a
 * library function returns its err instead.
 */
void __attribute__((noreturn)) mdb_die(const struct mdb_err *err);
void __attribute__((noreturn, format(printf, 1, 2))) mdb_dief(const char *fmt, ...);

#ifdef __cplusplus
}
#endif

#endif /* MDB_ERR_H */
