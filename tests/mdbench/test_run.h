/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_run.h - what the unit tests of mdbench's parts share: a struct
 * mdb_run as main.c's options would set it up, without main.c.  The runs use the test/ kernels of
 * test_mdbench_kernels.c beside the real ones; a filter on "^test/" makes
 * the selected instances those alone, whatever kernels bench/ registers.
 * What mdb_die() says: test_dies() (test_common.h).
 */
#ifndef MDB_TEST_RUN_H
#define MDB_TEST_RUN_H

#include <string.h>

#include "mdbench.h"
#include "test_common.h"

#define TEST_RAM	(64ULL << 20)	/* 64 MiB: 16384 pfns */

/* A mix of anon and file folios, and one with hugetlb folios as well. */
static inline void test_run_mix(struct mix *mix, const char *name, bool hugetlb)
{
	memset(mix, 0, sizeof(*mix));
	snprintf(mix->name, sizeof(mix->name), "%s", name);
	mix->entry[mix->nr++] = (struct mix_entry){ PK_ANON, 0, hugetlb ? 0.25 : 0.5 };
	mix->entry[mix->nr++] = (struct mix_entry){ PK_FILE, 2, 0.25 };
	mix->entry[mix->nr++] = (struct mix_entry){ hugetlb ? PK_HUGETLB : PK_FREE, 9,
						    hugetlb ? 0.5 : 0.25 };
}

/*
 * A run over the layouts named (NULL-terminated; none: every layout), the
 * mixes given, one RAM size, thread counts 1 and 2 on CPUs 0 and 1 (the
 * topology not loaded), 4 KiB memmap pages, aged descriptors, seed 1.  Not
 * planned yet.  Free with test_run_free().
 */
static inline void test_run_init(struct mdb_run *run, const char *filter, const char *const *names,
				 const struct mix *mixes, unsigned int nr_mixes, uint64_t ram)
{
	static char *argv[] = { "mdbench", "--seed=1", NULL };
	unsigned int i, n = 0;

	memset(run, 0, sizeof(*run));
	run->profile = "quick";
	run->filter = filter;
	run->rounds = 1;
	run->cpu = run->node = -1;
	run->kpageflags_mix = -1;
	run->argc = 2;
	run->argv = argv;
	snprintf(run->run_id, sizeof(run->run_id), "20261203T000000Z-00000001");
	run->cond.opts.pages = MEMMAP_PAGES_4K;
	run->cond.opts.age = DESC_AGED;
	run->cond.opts.seed = 1;
	run->layouts = calloc(32, sizeof(*run->layouts));
	for (i = 0; mdb_layouts[i] && i < 31; i++)
		if (!names || !names[0])
			run->layouts[n++] = mdb_layouts[i];
	for (i = 0; names && names[i]; i++)
		run->layouts[n++] = layout_by_name(names[i]);
	run->layouts[n] = NULL;
	run->nr_layouts = n;
	for (i = 0; i < n; i++)
		if (!run->layouts[i]) {
			fprintf(stderr, "test_run_init: no layout %s\n", names[i]);
			exit(1);
		}
	run->mixes = calloc(nr_mixes, sizeof(*run->mixes));
	memcpy(run->mixes, mixes, nr_mixes * sizeof(*mixes));
	run->nr_mixes = nr_mixes;
	run->ram_sizes = calloc(1, sizeof(*run->ram_sizes));
	run->ram_sizes[0] = ram;
	run->nr_ram_sizes = 1;
	run->thread_counts = calloc(2, sizeof(*run->thread_counts));
	run->thread_counts[0] = 1;
	run->thread_counts[1] = 2;
	run->nr_thread_counts = 2;
	run->cpus = calloc(2, sizeof(*run->cpus));
	run->cpus[1] = 1;
	run->nr_cpus = 2;
}

/* test_run_init() on one mix, "plain" (no hugetlb folios), at TEST_RAM. */
static inline void test_run_plain(struct mdb_run *run, const char *filter, const char *const *names)
{
	struct mix mix;

	test_run_mix(&mix, "plain", false);
	test_run_init(run, filter, names, &mix, 1, TEST_RAM);
}

static inline void test_run_free(struct mdb_run *run)
{
	free(run->inst);
	free(run->layouts);
	free(run->mixes);
	free(run->ram_sizes);
	free(run->baseline_sizes);
	free(run->folio_sizes);
	free(run->thread_counts);
	free(run->cpus);
	memset(run, 0, sizeof(*run));
}

/* The instance of that name, or NULL. */
static inline const struct mdb_instance *test_find(const struct mdb_run *run, const char *name)
{
	size_t i;

	for (i = 0; i < run->nr_inst; i++)
		if (!strcmp(run->inst[i].name, name))
			return &run->inst[i];
	return NULL;
}

#endif /* MDB_TEST_RUN_H */
