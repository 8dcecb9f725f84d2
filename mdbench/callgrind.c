// SPDX-License-Identifier: GPL-2.0
/*
 * callgrind.c - the totals of one named dump part (see callgrind.h).
 *
 * A callgrind output file is a header of "key: value" lines ("desc: ...",
 * "events: Ir Dr ...", "desc: Trigger: ..."), cost lines, and a closing
 * "summary:" (or "totals:") line with one number per event, in the order
 * "events:" gave; trailing zero columns may be left out.  Each
 * CALLGRIND_DUMP_STATS_AT() writes a new file, <base>.<n>.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgrind.h"

const char *const cg_event_name[CG_NR] = {
	"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw",
};

#define CG_MAX_COLUMNS	64

/* "desc: D1 cache: 32768 B, 64 B, 8-way associative" -> the part after "cache: ". */
static void parse_desc(struct cg_result *out, const char *line)
{
	static const struct {
		const char *prefix;
		size_t offset;
	} descs[] = {
		{ "desc: I1 cache: ", offsetof(struct cg_result, desc_i1) },
		{ "desc: D1 cache: ", offsetof(struct cg_result, desc_d1) },
		{ "desc: LL cache: ", offsetof(struct cg_result, desc_ll) },
	};
	unsigned int i;

	for (i = 0; i < sizeof(descs) / sizeof(descs[0]); i++) {
		size_t n = strlen(descs[i].prefix);

		if (!strncmp(line, descs[i].prefix, n))
			snprintf((char *)out + descs[i].offset, sizeof(out->desc_d1), "%.*s",
				 (int)strcspn(line + n, "\n"), line + n);
	}
}

/* "events: Ir Dr ..." -> col[i] = the event of column i, or -1. */
static int parse_events(char *list, int *col)
{
	int n = 0, e;
	char *p, *save = NULL;

	for (p = strtok_r(list, " \t\n", &save); p; p = strtok_r(NULL, " \t\n", &save)) {
		if (n == CG_MAX_COLUMNS)
			return -1;
		col[n] = -1;
		for (e = 0; e < CG_NR; e++)
			if (!strcmp(p, cg_event_name[e]))
				col[n] = e;
		n++;
	}
	return n;
}

static int parse_totals(const char *p, const int *col, int nr_col, struct cg_result *out)
{
	int c;

	memset(out->ev, 0, sizeof(out->ev));
	for (c = 0; c < nr_col; c++) {
		char *end;
		unsigned long long v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n' || !*p)
			break;		/* trailing zero columns may be left out */
		errno = 0;
		v = strtoull(p, &end, 10);
		if (end == p || errno)
			return -1;
		if (col[c] >= 0)
			out->ev[col[c]] = v;
		p = end;
	}
	return 0;
}

int cg_parse_file(const char *path, const char *trigger, struct cg_result *out,
		  struct mdb_err *err)
{
	FILE *f = fopen(path, "r");
	char line[4096], want[1024];
	int col[CG_MAX_COLUMNS], nr_col = -1, found = 0;
	bool ours = false, header = false;

	if (!f)
		return mdb_errf(err, "cannot read %s: %s", path, strerror(errno));
	snprintf(want, sizeof(want), "desc: Trigger: Client Request: %s\n", trigger);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "version: ", 9) || !strncmp(line, "creator: ", 9))
			header = true;
		if (!strcmp(line, want))
			ours = true;
		else if (!strncmp(line, "desc: ", 6))
			parse_desc(out, line);
		else if (!strncmp(line, "events:", 7))
			nr_col = parse_events(line + 7, col);
		else if (ours && (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7))) {
			if (nr_col < 0 || parse_totals(strchr(line, ':') + 1, col, nr_col, out)) {
				fclose(f);
				return mdb_errf(err, "%s: a summary line without events, or not numbers",
						path);
			}
			found = 1;
			break;
		}
	}
	fclose(f);
	if (!header && !found)
		return mdb_errf(err, "%s: not callgrind output", path);
	return found;
}

int cg_parse_dump(const char *dir, const char *base, const char *trigger, struct cg_result *out,
		  struct mdb_err *err)
{
	char path[PATH_MAX + 256];
	size_t len = strlen(base);
	struct dirent *d;
	int ret = 0;
	DIR *dp = opendir(dir);

	if (!dp)
		return mdb_errf(err, "cannot read %s: %s", dir, strerror(errno));
	while (!ret && (d = readdir(dp))) {
		if (strncmp(d->d_name, base, len) || (d->d_name[len] && d->d_name[len] != '.'))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		ret = cg_parse_file(path, trigger, out, err);
	}
	closedir(dp);
	return ret;
}
