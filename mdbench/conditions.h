/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conditions.h - a memmap's conditions as one value: the layout, mix and
 * RAM it is built for, the base page it is modelled at and the options it
 * is built with (struct memmap_opts: memmap pages, descriptor age and
 * compaction, cache option, SLUB, folio descriptor size, HVO, seed).
 *
 * One value, one place: the plan gives each instance its conditions (the
 * run's, and what its group varies), the native run keeps a memmap while
 * the next instance's conditions are equal, the dump's conditions.memmaps
 * has one entry per distinct value, the --simulate parent writes it as
 * JSON and the child reads it back; names carry the parts that vary
 * within a run (mdb_cond_suffix()).
 */
#ifndef MDB_CONDITIONS_H
#define MDB_CONDITIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "basepage.h"
#include "err.h"
#include "layout.h"

struct mdb_cond {
	const struct layout_ops *ops;	/* NULL: a baseline, or the live kernel */
	const struct mix *mix;		/* NULL: a baseline */
	uint64_t ram_bytes;
	unsigned long nr_pfns;		/* ram_bytes in base pages */
	const struct base_page *base;	/* --base-page */
	struct memmap_opts opts;	/* how it is built (bind: where, not what) */
	bool twin;			/* the reference layout's placebo twin: its own memmap, built alike */
	unsigned int slab_cpus;		/* --slab-cpus: the nr_cpu_ids its caches are sized for; 0: the machine's */
};

/* Whether a and b describe the same memmap: one built for a serves b. */
bool mdb_cond_equal(const struct mdb_cond *a, const struct mdb_cond *b);

/* RAM and its base pages together. */
static inline void mdb_cond_set_ram(struct mdb_cond *c, uint64_t ram_bytes)
{
	c->ram_bytes = ram_bytes;
	c->nr_pfns = (unsigned long)(ram_bytes >> MDB_PAGE_SHIFT);
}

/*
 * The name's part for what varies within a run, in this order: /base:16k
 * (off 4k), /folio:96B (a --folio-desc-bytes size), /large:full (off
 * the default --large-desc: never another's figures under one name), /hvo:on (named:
 * MDB_COND_NAME_HVO, a mix with hugetlb folios), /cache:hwcache
 * (MDB_COND_NAME_CACHE, another option's report group), /twin:b (the
 * placebo twin, MDB_TWIN_NAME).  Appended at
 * buf + *n, as snprintf() counts; false if it did not fit.
 */
/* The name part of the reference layout's placebo twin (mdb_run.twin_headline). */
#define MDB_TWIN_NAME	"twin:b"
#define MDB_COND_NAME_HVO	(1U << 0)
#define MDB_COND_NAME_CACHE	(1U << 1)
bool mdb_cond_suffix(const struct mdb_cond *c, unsigned int named, char *buf, size_t len, int *n);

/*
 * As JSON (the --simulate child's instance file): layout, mix (the mix
 * itself), ram_bytes, base_page, seed, memmap_pages, desc_age, desc_trace
 * (file and sha256 of a replayed trace, or null), compaction, desc_cache, desc_rcu, large_desc, slab_cpus,
 * slub, folio_desc_bytes, hvo.
 */
json_t *mdb_cond_json(const struct mdb_cond *c);
/*
 * Back from mdb_cond_json()'s keys in o: sets the base page (mdb_cond_apply())
 * before the mix is placed, the mix into *mix (its placement from the file
 * o's "placed" names, if any), a replayed trace read again into *replay and
 * checked against its sha256.  0, or -1 with err.
 */
int mdb_cond_from_json(json_t *o, const char *path, struct mdb_cond *c, struct mix *mix,
		       struct age_replay *replay, struct mdb_err *err);

/*
 * The run's conditions in force: the base page every order and size is
 * read in (basepage.h mdb_base, the one place it is set), before any mix is
 * placed or memmap built.
 */
void mdb_cond_apply(const struct mdb_cond *c);

#endif /* MDB_CONDITIONS_H */
