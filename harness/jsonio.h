/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jsonio.h - JSON in and out through jansson, the way every file of the
 * suite is read and written.
 *
 * Reading is strict (jansson's RFC 8259 parser with JSON_REJECT_DUPLICATES,
 * whose duplicate check is a hash lookup, linear in the keys); an error is
 * one line naming the file, line, column and the problem.  Writing goes to a
 * temporary file in the same directory (created with O_EXCL | O_NOFOLLOW,
 * through a descriptor of the directory), is fsync()ed, renamed over the
 * target and the directory fsync()ed: at any moment the target is either the
 * old file or the whole new one, also after a crash or a full disk.
 */
#ifndef MDB_JSONIO_H
#define MDB_JSONIO_H

#include <signal.h>
#include <stddef.h>

#include <jansson.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Output flags: two-space indent, every double exact (17 digits). */
#define MDB_JSON_DUMP_FLAGS	(JSON_INDENT(2) | JSON_REAL_PRECISION(17))

/* The whole file as one JSON value, at most max_bytes long; NULL with err. */
json_t *mdb_json_load_file(const char *path, size_t max_bytes, struct mdb_err *err);
/* text[0, len) as one JSON value; what names it in err ("mdbench.json"). */
json_t *mdb_json_load_text(const char *text, size_t len, const char *what, struct mdb_err *err);
/*
 * As mdb_json_load_text, for Google Benchmark's JSON: its bare NaN,
 * Infinity and -Infinity tokens (a _cv aggregate of a counter whose mean is
 * 0) are not JSON, so they are read as null.
 */
json_t *mdb_json_load_gb(const char *text, size_t len, const char *what, struct mdb_err *err);

/* Writes data to path atomically (see above); mode as for open(2).  0 or -1 with err. */
int mdb_write_atomic(const char *path, const void *data, size_t len, unsigned int mode,
		     struct mdb_err *err);
/*
 * The temporary mdb_write_atomic() is writing: its name in the directory
 * mdb_atomic_tmp_dir, while mdb_atomic_tmp_set (interrupt.c).
 */
extern char mdb_atomic_tmp[];
extern int mdb_atomic_tmp_dir;
extern volatile sig_atomic_t mdb_atomic_tmp_set;
/*
 * Files written to dir/NAME from now on go through fd, a descriptor of dir
 * (--out's, held for the run): dir renamed or replaced by a symlink cannot
 * send them elsewhere.
 */
void mdb_json_pin_dir(const char *dir, int fd);

/* doc, dumped with MDB_JSON_DUMP_FLAGS and a final newline, atomically. */
int mdb_json_write(const char *path, const json_t *doc, struct mdb_err *err);

/* The object member key, created as an empty object if it is absent. */
json_t *mdb_json_object_member(json_t *obj, const char *key);

#ifdef __cplusplus
}
#endif

#endif /* MDB_JSONIO_H */
