// SPDX-License-Identifier: GPL-2.0
/*
 * dump.c - the memdesc_bench object in mdbench.json's context, and mix.json.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "dump.h"
#include "git_commit.h"

void mdb_json_string(FILE *out, const char *s)
{
	const unsigned char *p;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

void mdb_format_size(size_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	unsigned int u = 0;

	while (bytes && !(bytes & 1023) && u < sizeof(units) / sizeof(units[0]) - 1) {
		bytes >>= 10;
		u++;
	}
	snprintf(buf, len, "%zu%s", bytes, units[u]);
}

/* First line of a small file, without its newline; NULL if unreadable. */
static char *read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *ret = NULL;

	if (!f)
		return NULL;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = buf;
	}
	fclose(f);
	return ret;
}

/* "always [madvise] never" -> "madvise". */
static const char *thp_mode(char *buf, size_t len)
{
	char *open, *close;

	if (!read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, len))
		return NULL;
	open = strchr(buf, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close)
		return buf;
	*close = '\0';
	return open + 1;
}

static void write_int_or_null(FILE *out, long v, bool present)
{
	if (present)
		fprintf(out, "%ld", v);
	else
		fputs("null", out);
}

static void write_layouts(FILE *out, const struct mdb_run *run)
{
	unsigned int i;

	fputs("[", out);
	for (i = 0; run->layouts[i]; i++)
		fprintf(out, "%s\n        { \"name\": \"%s\", \"sizeof_page\": %zu, \"sizeof_folio\": %zu }",
			i ? "," : "", run->layouts[i]->name, run->layouts[i]->page_size,
			run->layouts[i]->folio_size);
	fputs("\n      ]", out);
}

/* mix_write_json's text, indented to sit inside the context object. */
static void write_indented_mix(FILE *out, const struct mix *mix, const char *indent)
{
	char *text = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	mix_write_json(mix, f);
	if (fclose(f)) {
		free(text);
		return;
	}
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	fputs(indent, out);
	for (p = text; *p; p++) {
		fputc(*p, out);
		if (*p == '\n')
			fputs(indent, out);
	}
	free(text);
}

static void write_mixes(FILE *out, const struct mdb_run *run)
{
	unsigned int i;

	fputs("[", out);
	for (i = 0; i < run->nr_mixes; i++) {
		fputs(i ? ",\n" : "\n", out);
		write_indented_mix(out, &run->mixes[i], "        ");
	}
	fputs("\n      ]", out);
}

static void write_sizes(FILE *out, const size_t *sizes, unsigned int n, bool names)
{
	char buf[32];
	unsigned int i;

	fputs("[", out);
	for (i = 0; i < n; i++) {
		fputs(i ? ", " : "", out);
		if (names) {
			mdb_format_size(sizes[i], buf, sizeof(buf));
			fprintf(out, "\"%s\"", buf);
		} else {
			fprintf(out, "%zu", sizes[i]);
		}
	}
	fputs("]", out);
}

static void write_counters(FILE *out, const struct mdb_counters *set)
{
	unsigned int i, n;
	int pass;

	fputs("{", out);
	for (pass = 0; pass < 2; pass++) {
		fprintf(out, "%s\n        \"%s\": [", pass ? "," : "", pass ? "unavailable" : "available");
		for (i = n = 0; set && i < set->nr; i++) {
			const struct mdb_counter *c = &set->c[i];

			if (c->available == (pass == 1))
				continue;
			fprintf(out, "%s\n          { \"name\": ", n++ ? "," : "");
			mdb_json_string(out, c->name);
			fputs(", \"event\": ", out);
			mdb_json_string(out, c->event);
			if (pass) {
				fputs(", \"reason\": ", out);
				mdb_json_string(out, c->reason);
			} else {
				fprintf(out, ", \"unscheduled_runs\": %lu", c->unscheduled);
			}
			fputs(" }", out);
		}
		fputs(n ? "\n        ]" : "]", out);
	}
	fputs("\n      }", out);
}

static void write_hwloc(FILE *out, const struct mdb_topology *t)
{
	unsigned int i;

	if (!t) {
		fputs("null", out);
		return;
	}
	fputs("{\n        \"caches\": [", out);
	for (i = 0; i < t->nr_caches; i++) {
		const struct mdb_cache_info *c = &t->cache[i];

		fprintf(out, "%s\n          { \"level\": %u, \"type\": \"%s\", \"size\": %llu, "
			"\"line_size\": %u, \"associativity\": %d, \"count\": %u }",
			i ? "," : "", c->level, c->type, c->size, c->line_size, c->associativity,
			c->count);
	}
	fprintf(out, "%s],\n        \"packages\": %u,\n        \"cores\": %u,\n        \"pus\": %u,\n"
		"        \"numa_nodes\": %u\n      }", t->nr_caches ? "\n        " : "",
		t->packages, t->cores, t->pus, t->numa_nodes);
}

static void write_kernel(FILE *out)
{
	struct utsname u;

	if (uname(&u)) {
		fputs("null", out);
		return;
	}
	fputs("{ \"release\": ", out);
	mdb_json_string(out, u.release);
	fputs(", \"version\": ", out);
	mdb_json_string(out, u.version);
	fputs(", \"machine\": ", out);
	mdb_json_string(out, u.machine);
	fputs(" }", out);
}

static void write_context(FILE *out, const struct mdb_dump_ctx *d, bool complete)
{
	const struct mdb_run *run = d->run;
	char buf[256];
	const char *s;
	int i;

	fprintf(out, "{\n      \"schema_version\": %d,\n      \"complete\": %s,\n",
		MDB_SCHEMA_VERSION, complete ? "true" : "false");
	fputs("      \"git_commit\": ", out);
	mdb_json_string(out, MDB_GIT_COMMIT);
	fprintf(out, ",\n      \"git_dirty\": %s,\n      \"argv\": [", MDB_GIT_DIRTY);
	for (i = 0; i < d->argc; i++) {
		fputs(i ? ", " : "", out);
		mdb_json_string(out, d->argv[i]);
	}
	fputs("],\n      \"profile\": ", out);
	mdb_json_string(out, run->profile);
	fputs(",\n      \"filter\": ", out);
	mdb_json_string(out, run->filter);
	fprintf(out, ",\n      \"nr_selected\": %zu,\n      \"layouts\": ", d->nr_selected);
	write_layouts(out, run);
	fputs(",\n      \"mixes\": ", out);
	write_mixes(out, run);
	fputs(",\n      \"ram_sizes\": ", out);
	write_sizes(out, run->ram_sizes, run->nr_ram_sizes, false);
	fputs(",\n      \"ram_names\": ", out);
	write_sizes(out, run->ram_sizes, run->nr_ram_sizes, true);
	fputs(",\n      \"baseline_sizes\": ", out);
	write_sizes(out, d->baseline_sizes, d->nr_baseline_sizes, false);
	fputs(",\n      \"counters\": ", out);
	write_counters(out, d->counters);
	fputs(",\n      \"kernel\": ", out);
	write_kernel(out);
	fputs(",\n      \"cpu_model\": ", out);
	mdb_json_string(out, d->topo ? d->topo->cpu_model : NULL);
	s = read_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));
	fprintf(out, ",\n      \"perf_event_paranoid\": %s", s ? s : "null");
	fputs(",\n      \"thp\": ", out);
	mdb_json_string(out, thp_mode(buf, sizeof(buf)));
	fputs(",\n      \"hwloc\": ", out);
	write_hwloc(out, d->topo);
	fputs(",\n      \"cpu\": ", out);
	write_int_or_null(out, run->cpu, run->cpu >= 0);
	fputs(",\n      \"node\": ", out);
	write_int_or_null(out, run->node, run->node >= 0);
	fprintf(out, ",\n      \"hugepage\": %s,\n      \"seed\": %llu\n    }",
		run->opts.hugepage ? "true" : "false", (unsigned long long)run->opts.seed);
}

char *mdb_dump_context_json(bool complete, void *arg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return NULL;
	write_context(out, arg, complete);
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	return text;
}

int mdb_dump_write_mixes(const struct mdb_run *run, const char *path, char *err)
{
	FILE *out = fopen(path, "w");
	unsigned int i;
	int ret;

	if (!out) {
		snprintf(err, 256, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	fputs("[\n", out);
	for (i = 0; i < run->nr_mixes; i++) {
		mix_write_json(&run->mixes[i], out);
		fputs(i + 1 < run->nr_mixes ? ",\n" : "\n", out);
	}
	fputs("]\n", out);
	ret = ferror(out) | fclose(out);
	if (ret) {
		snprintf(err, 256, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
