/* SPDX-License-Identifier: GPL-2.0 */
/*
 * callgrind.h - reading callgrind's output files (format version 1, as
 * valgrind 3.x writes them with --dump-instr=no): the totals of the dump
 * part a client request named, and the cache geometry it simulated.
 */
#ifndef MDB_CALLGRIND_H
#define MDB_CALLGRIND_H

#include <stdint.h>

#include "err.h"

enum cg_event { CG_Ir, CG_Dr, CG_Dw, CG_I1mr, CG_D1mr, CG_D1mw, CG_ILmr, CG_DLmr, CG_DLmw, CG_NR };

extern const char *const cg_event_name[CG_NR];

struct cg_result {
	uint64_t ev[CG_NR];		/* events the file does not count stay 0 */
	char desc_i1[96], desc_d1[96], desc_ll[96];	/* "32768 B, 64 B, 8-way associative" */
};

/*
 * The part of one file whose trigger is "Client Request: <trigger>" (what
 * CALLGRIND_DUMP_STATS_AT(trigger) writes).  1 with *out filled, 0 if the
 * file holds no such part, -1 with err if it cannot be read or is not
 * callgrind output.
 */
int cg_parse_file(const char *path, const char *trigger, struct cg_result *out,
		  struct mdb_err *err);
/* As cg_parse_file over <dir>/<base> and its numbered parts <base>.1, <base>.2, ... */
int cg_parse_dump(const char *dir, const char *base, const char *trigger, struct cg_result *out,
		  struct mdb_err *err);

#endif /* MDB_CALLGRIND_H */
