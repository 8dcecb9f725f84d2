// SPDX-License-Identifier: GPL-2.0
/*
 * units.c - decimal numbers and binary sizes (see units.h).
 */
#include <stdio.h>
#include <string.h>

#include "units.h"

static const struct {
	const char *suffix;
	uint64_t unit;
} units[] = {
	{ "", 1 }, { "B", 1 }, { "KiB", MDB_KiB }, { "MiB", MDB_MiB }, { "GiB", MDB_GiB },
	{ "TiB", MDB_TiB },
};

/* Leading digits of s as a number; *end after them.  -1 on overflow or no digit. */
static int digits(const char *s, uint64_t *out, const char **end)
{
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	*end = s;
	return 0;
}

int mdb_parse_u64(const char *s, uint64_t max, uint64_t *out, const char *what,
		  struct mdb_err *err)
{
	const char *end;
	uint64_t v;

	if (digits(s, &v, &end) || *end || v > max)
		return mdb_errf(err, "%s=%s: not a decimal number from 0 to %llu", what, s,
				(unsigned long long)max);
	*out = v;
	return 0;
}

int mdb_parse_size(const char *s, uint64_t max, uint64_t *out, const char *what,
		   struct mdb_err *err)
{
	const char *end;
	unsigned int i;
	uint64_t v;
	char lim[32];

	if (digits(s, &v, &end))
		return mdb_errf(err, "%s: '%s' is not a size (e.g. 256MiB, 4GiB)", what, s);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix))
			break;
	if (i == sizeof(units) / sizeof(units[0]))
		return mdb_errf(err, "%s: '%s' has an unknown unit (B, KiB, MiB, GiB or TiB)", what, s);
	if (v > max / units[i].unit) {
		mdb_format_size(max, lim, sizeof(lim));
		return mdb_errf(err, "%s: '%s' is too large (at most %s)", what, s, lim);
	}
	*out = v * units[i].unit;
	return 0;
}

void mdb_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned int u = 0;

	while (bytes && !(bytes & 1023) && u < sizeof(names) / sizeof(names[0]) - 1) {
		bytes >>= 10;
		u++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)bytes, names[u]);
}

int mdb_parse_name(const char *s, const char *const *names, int nr)
{
	for (int i = 0; i < nr; i++)
		if (names[i] && !strcmp(s, names[i]))
			return i;
	return -1;
}

const char *mdb_name_of(const char *const *names, int nr, int v)
{
	return v >= 0 && v < nr && names[v] ? names[v] : "?";
}
