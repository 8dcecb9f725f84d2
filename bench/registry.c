// SPDX-License-Identifier: GPL-2.0
/*
 * registry.c - the kernels the linker collected (MDB_KERNEL, kernel.h):
 * checked once and sorted by name.  Compiled once.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

bool bench_known_on;	/* kernel.h: in a known-difference build, the instance running is the one slowed */

static const char *const class_name[MDB_NR_CLASSES] = {
	[MDB_SEQUENTIAL] = "sequential",
	[MDB_DEPENDENT] = "dependent",
	[MDB_MUTATING] = "mutating",
	[MDB_BASELINE] = "baseline",
	[MDB_REPORT] = "report",
};

const char *mdb_kernel_class_name(enum mdb_kernel_class class)
{
	return (unsigned int)class < MDB_NR_CLASSES ? class_name[class] : "?";
}

static int by_name(const void *a, const void *b)
{
	const struct mdb_kernel *x = *(const struct mdb_kernel *const *)a;
	const struct mdb_kernel *y = *(const struct mdb_kernel *const *)b;

	return strcmp(x->name, y->name);
}

/* The copies of one name: one for any layout, or exactly one per layout. */
static int check_copies(const struct mdb_kernel *const *k, unsigned int n, struct mdb_err *err)
{
	unsigned int i, l, nr_layouts = 0;

	for (l = 0; mdb_layouts[l]; l++)
		nr_layouts++;
	if (n == 1 && (!k[0]->layout || nr_layouts == 1))
		return 0;
	for (i = 0; i < n; i++)
		if (!k[i]->layout || k[i]->class == MDB_BASELINE)
			return mdb_errf(err, "kernel %s is registered %u times", k[0]->name, n);
	for (l = 0; mdb_layouts[l]; l++) {
		unsigned int found = 0;

		for (i = 0; i < n; i++)
			found += k[i]->layout == mdb_layouts[l];
		if (found != 1)
			return mdb_errf(err, "kernel %s has %u copies for layout %s (want 1: is its "
					"file compiled per layout?)", k[0]->name, found,
					mdb_layouts[l]->name);
	}
	return 0;
}

static int check_one(const struct mdb_kernel *k, struct mdb_err *err)
{
	if (!k->name || !*k->name || !k->run || !k->unit || (unsigned int)k->class >= MDB_NR_CLASSES)
		return mdb_errf(err, "kernel %s: incomplete registration (name, class, unit, run)",
				k->name ? k->name : "(unnamed)");
	if (k->class == MDB_BASELINE && k->layout)
		return mdb_errf(err, "kernel %s: a baseline cannot be bound to a layout", k->name);
	if ((k->flags & MDB_K_THREADED) && (k->class == MDB_BASELINE || k->class == MDB_REPORT ||
					    (k->flags & MDB_K_NO_MEMMAP)))
		return mdb_errf(err, "kernel %s: only a timed kernel on a memmap runs on threads",
				k->name);
	if ((k->setup || k->teardown) && !(k->flags & MDB_K_THREADED))
		return mdb_errf(err, "kernel %s: set-up and teardown are for threaded kernels", k->name);
	return 0;
}

int mdb_kernels(const struct mdb_kernel *const **list, unsigned int *nr, struct mdb_err *err)
{
	static const struct mdb_kernel **sorted;
	static unsigned int nr_sorted;
	unsigned int n, i, j;

	if (sorted) {
		*list = sorted;
		*nr = nr_sorted;
		return 0;
	}
	n = __start_mdb_kernels ? (unsigned int)(__stop_mdb_kernels - __start_mdb_kernels) : 0;
	sorted = malloc((n + 1) * sizeof(*sorted));
	if (!sorted)
		return mdb_errf(err, "out of memory");
	for (i = 0; i < n; i++) {
		sorted[i] = __start_mdb_kernels[i];
		if (check_one(sorted[i], err))
			goto fail;
	}
	qsort(sorted, n, sizeof(*sorted), by_name);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(sorted[i]->name, sorted[j]->name); j++)
			;
		if (check_copies(sorted + i, j - i, err))
			goto fail;
	}
	sorted[n] = NULL;
	nr_sorted = n;
	*list = sorted;
	*nr = n;
	return 0;
fail:
	free(sorted);
	sorted = NULL;
	return -1;
}

const struct mdb_kernel *mdb_kernel_find(const char *name, const struct layout_ops *ops)
{
	const struct mdb_kernel *const *k;
	struct mdb_err err;
	unsigned int n, i;

	if (mdb_kernels(&k, &n, &err))
		return NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(k[i]->name, name) &&
		    (ops ? mdb_kernel_runs_on(k[i], ops) : k[i]->class == MDB_BASELINE))
			return k[i];
	return NULL;
}
