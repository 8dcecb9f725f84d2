// SPDX-License-Identifier: GPL-2.0
/*
 * err.c - formatting struct mdb_err: one escaped line; the fatal path.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

const char *mdb_escape(const char *s, char *buf, unsigned long len)
{
	static const char hex[] = "0123456789abcdef";
	unsigned long n = 0;

	if (!len)
		return buf;
	for (; *s && n + 1 < len; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[5];
		size_t e = 0;

		if (c == '\n' || c == '\r' || c == '\t') {
			esc[e++] = '\\';
			esc[e++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
		} else if (c < 0x20 || c == 0x7f) {
			esc[e++] = '\\';
			esc[e++] = 'x';
			esc[e++] = hex[c >> 4];
			esc[e++] = hex[c & 15];
		} else {
			esc[e++] = (char)c;
		}
		if (n + e >= len)
			break;
		memcpy(buf + n, esc, e);
		n += e;
	}
	buf[n] = '\0';
	return buf;
}

static void verr(struct mdb_err *err, const char *fmt, va_list ap)
{
	char raw[MDB_ERR_LEN * 2];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	mdb_escape(raw, err->msg, sizeof(err->msg));
}

int mdb_errf(struct mdb_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(err, fmt, ap);
	va_end(ap);
	return -1;
}

int mdb_err_prefix(struct mdb_err *err, const char *fmt, ...)
{
	char prefix[MDB_ERR_LEN], rest[MDB_ERR_LEN];
	va_list ap;

	memcpy(rest, err->msg, sizeof(rest));
	va_start(ap, fmt);
	verr(err, fmt, ap);
	va_end(ap);
	memcpy(prefix, err->msg, sizeof(prefix));
	/* Truncation is fine: a reason is one line, cut at MDB_ERR_LEN. */
	if (snprintf(err->msg, sizeof(err->msg), "%.*s: %s", (int)sizeof(prefix) / 2, prefix, rest) < 0)
		err->msg[0] = '\0';
	return -1;
}

void mdb_die(const struct mdb_err *err)
{
	fprintf(stderr, "mdbench: %s\n", err->msg);
	exit(2);
}

void mdb_dief(const char *fmt, ...)
{
	struct mdb_err err;
	char msg[MDB_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mdb_errf(&err, "%s", msg);
	mdb_die(&err);
}
