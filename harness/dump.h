/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dump.h - what mdbench writes beside Google Benchmark's JSON: the
 * memdesc_bench context object, mix.json, topology.xml.
 * Every field is documented in results/SCHEMA.md; change both together.
 */
#ifndef MDB_DUMP_H
#define MDB_DUMP_H

#include <stdbool.h>
#include <stdio.h>

#include "counters.h"
#include "driver.h"
#include "topology.h"

#define MDB_SCHEMA_VERSION	1

struct mdb_dump_ctx {
	const struct mdb_run *run;
	int argc;
	char **argv;			/* as given, ours and Google Benchmark's */
	const struct mdb_counters *counters;
	const struct mdb_topology *topo;	/* NULL: not loaded */
	size_t nr_selected;		/* instances that pass the filter */
	size_t baseline_sizes[MDB_MAX_RAM_SIZES * 4];
	unsigned int nr_baseline_sizes;
};

/* As mdb_report.context_json: arg is a struct mdb_dump_ctx. */
char *mdb_dump_context_json(bool complete, void *arg);
/* DIR/mix.json: a JSON array of the run's mixes. 0, or -1 with err (256 bytes). */
int mdb_dump_write_mixes(const struct mdb_run *run, const char *path, char *err);

/* JSON helpers, shared with the --list output. */
void mdb_json_string(FILE *out, const char *s);
/* Largest binary unit that divides bytes exactly: "64MiB", "4GiB", "1536B". */
void mdb_format_size(size_t bytes, char *buf, size_t len);

#endif /* MDB_DUMP_H */
