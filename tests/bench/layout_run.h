/* SPDX-License-Identifier: GPL-2.0 */
/*
 * layout_run.h - for the tests compiled once per layout (MDB_LAYOUT): the
 * layout's ops, a kernel with the env it runs on (struct run, run_kernel()
 * for the fixed-count backend) and a 64 MiB memmap of a mix built with
 * seed 1, the test ending where it cannot be built; a built-in mix by name.
 */
#ifndef MDB_TEST_LAYOUT_RUN_H
#define MDB_TEST_LAYOUT_RUN_H

#include <stdio.h>
#include <stdlib.h>

#include "kernel.h"
#include "shim.h"

#define NR_PFNS		(64UL << 20 >> MDB_PAGE_SHIFT)	/* 64 MiB */

static const struct layout_ops *const ops = &LAYOUT_SYM(ops);

struct run {
	const struct mdb_kernel *k;
	struct bench_env env;
};

static void run_kernel(struct mdb_state *st, void *arg)
{
	struct run *r = arg;

	r->k->run(st, &r->env);
}

static struct memmap *build(const struct mix *mix)
{
	struct memmap_opts o = { .seed = 1 };
	struct memmap *mm;
	struct mdb_err err;

	if (ops->memmap_create(&mm, NR_PFNS, mix, &o, &err)) {
		fprintf(stderr, "%s: %s\n", ops->name, err.msg);
		exit(1);
	}
	return mm;
}

/* The built-in mix name into mix, the test ending where there is none. */
static void resolve_mix(const char *name, struct mix *mix)
{
	struct mdb_err err;

	if (mix_resolve(name, mix, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
}

#endif /* MDB_TEST_LAYOUT_RUN_H */
