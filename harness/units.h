/* SPDX-License-Identifier: GPL-2.0 */
/*
 * units.h - the one parser and formatter of numbers and sizes on command
 * lines and in names: decimal only, the whole string, no sign, no spaces
 * ("010" is ten, "0x1" and " 1" are refused).
 */
#ifndef MDB_UNITS_H
#define MDB_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MDB_KiB		(1ULL << 10)
#define MDB_MiB		(1ULL << 20)
#define MDB_GiB		(1ULL << 30)
#define MDB_TiB		(1ULL << 40)

/* A decimal integer 0..max, digits only.  0, or -1 with err naming what. */
int mdb_parse_u64(const char *s, uint64_t max, uint64_t *out, const char *what,
		  struct mdb_err *err);
/* "256MiB", "4GiB", "4096" or "4096B": digits then B, KiB, MiB, GiB, TiB; at most max. */
int mdb_parse_size(const char *s, uint64_t max, uint64_t *out, const char *what,
		   struct mdb_err *err);
/* The index of s, the whole string, in names[0..nr); -1 if none: an enumerated value. */
int mdb_parse_name(const char *s, const char *const *names, int nr);
/* names[v], or "?" for a value outside names[0..nr) or without a name: its inverse. */
const char *mdb_name_of(const char *const *names, int nr, int v);
/* Largest binary unit that divides bytes exactly: "64MiB", "4GiB", "1536B". */
void mdb_format_size(uint64_t bytes, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* MDB_UNITS_H */
