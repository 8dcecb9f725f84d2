// SPDX-License-Identifier: GPL-2.0
/*
 * conditions.c - a memmap's conditions as one value (conditions.h): its
 * equality, its part of a benchmark's name, and its JSON both ways.
 */
#include <stdio.h>
#include <string.h>

#include "conditions.h"
#include "jsonio.h"

bool mdb_cond_equal(const struct mdb_cond *a, const struct mdb_cond *b)
{
	const struct memmap_opts *x = &a->opts, *y = &b->opts;

	return a->ops == b->ops && a->mix == b->mix && a->nr_pfns == b->nr_pfns &&
	       a->base == b->base && x->pages == y->pages && x->age == y->age &&
	       x->replay == y->replay && x->no_compaction == y->no_compaction &&
	       x->folio_desc_bytes == y->folio_desc_bytes && x->desc_cache == y->desc_cache &&
	       x->desc_rcu == y->desc_rcu && x->large_desc == y->large_desc &&
	       x->slub == y->slub && x->seed == y->seed && x->hvo == y->hvo && a->twin == b->twin &&
	       a->slab_cpus == b->slab_cpus;
}

/* Appends to buf at *n as snprintf() would; false once it does not fit. */
static bool append(char *buf, size_t len, int *n, const char *fmt, const char *s, unsigned int u)
{
	if (*n < 0 || (size_t)*n >= len)
		return false;
	*n += s ? snprintf(buf + *n, len - (size_t)*n, fmt, s) :
		  snprintf(buf + *n, len - (size_t)*n, fmt, u);
	return *n >= 0 && (size_t)*n < len;
}

bool mdb_cond_suffix(const struct mdb_cond *c, unsigned int named, char *buf, size_t len, int *n)
{
	/* Not at 4k: the base page's results are never another's under one name. */
	if (c->base && c->base->shift != BASE_PAGE_MIN_SHIFT &&
	    !append(buf, len, n, "/base:%s", c->base->name, 0))
		return false;
	if (c->opts.folio_desc_bytes && !append(buf, len, n, "/folio:%uB", NULL, c->opts.folio_desc_bytes))
		return false;
	/* Not the default: a run of another large descriptor is another machine's. */
	if (c->opts.large_desc != LARGE_DESC_PLAN &&
	    !append(buf, len, n, "/large:%s", large_desc_name(c->opts.large_desc), 0))
		return false;
	if ((named & MDB_COND_NAME_HVO) && !append(buf, len, n, "/hvo:%s", hvo_mode_name(c->opts.hvo), 0))
		return false;
	if ((named & MDB_COND_NAME_CACHE) &&
	    !append(buf, len, n, "/cache:%s", desc_cache_kind_name(c->opts.desc_cache), 0))
		return false;
	if (c->twin && !append(buf, len, n, "/%s", MDB_TWIN_NAME, 0))
		return false;
	return *n >= 0 && (size_t)*n < len;
}

json_t *mdb_cond_json(const struct mdb_cond *c)
{
	const struct memmap_opts *o = &c->opts;

	return json_pack("{s:o, s:o, s:I, s:s, s:I, s:s, s:s, s:o, s:b, s:s, s:s, s:s, s:s, s:I, s:I, s:s}",
		"layout", c->ops ? json_string(c->ops->name) : json_null(),
		"mix", c->mix ? mix_to_json(c->mix) : json_null(),
		"ram_bytes", (json_int_t)c->ram_bytes, "base_page", c->base ? c->base->name : mdb_base.name,
		"seed", (json_int_t)o->seed, "memmap_pages", memmap_pages_name(o->pages),
		"desc_age", desc_age_name(o->age),
		/* The replayed file: the child reads it again. */
		"desc_trace", o->age == DESC_TRACE ?
			json_pack("{s:s, s:s}", "file", o->replay->path, "sha256", o->replay->sha256) :
			json_null(),
		"compaction", !o->no_compaction,
		"desc_cache", desc_cache_kind_name(o->desc_cache), "desc_rcu", desc_rcu_name(o->desc_rcu),
		"large_desc", large_desc_name(o->large_desc), "slub", desc_slub_name(o->slub),
		"slab_cpus", (json_int_t)c->slab_cpus, "folio_desc_bytes", (json_int_t)o->folio_desc_bytes, "hvo", hvo_mode_name(o->hvo));
}

/* The replayed trace t names, read again and checked to be the parent's. */
static int trace_from_json(json_t *t, const char *path, struct age_replay *replay,
			   struct mdb_err *err)
{
	const char *file, *sha;

	if (json_unpack(t, "{s:s, s:s}", "file", &file, "sha256", &sha))
		return mdb_errf(err, "%s: not an instance description", path);
	if (age_replay_load(file, replay, err))
		return -1;
	if (strcmp(sha, replay->sha256))
		return mdb_errf(err, "%s: changed since the run started (sha256 %s, now %s)", file, sha,
				replay->sha256);
	return 0;
}

int mdb_cond_from_json(json_t *o, const char *path, struct mdb_cond *c, struct mix *mix,
		       struct age_replay *replay, struct mdb_err *err)
{
	const char *base, *pages, *age, *cache, *rcu, *large, *slub, *hvo;
	json_int_t ram, seed, folio, slab_cpus;
	json_t *jlayout, *jmix, *trace;
	int compaction;

	memset(c, 0, sizeof(*c));
	if (json_unpack(o, "{s:o, s:o, s:I, s:s, s:I, s:s, s:s, s:o, s:b, s:s, s:s, s:s, s:s, s:I, s:I, s:s}",
			"layout", &jlayout, "mix", &jmix, "ram_bytes", &ram, "base_page", &base,
			"seed", &seed, "memmap_pages", &pages, "desc_age", &age, "desc_trace", &trace,
			"compaction", &compaction, "desc_cache", &cache, "desc_rcu", &rcu,
			"large_desc", &large, "slub", &slub,
			"slab_cpus", &slab_cpus, "folio_desc_bytes", &folio, "hvo", &hvo) ||
	    !(c->base = base_page_find(base)) || memmap_pages_from_name(pages) < 0 ||
	    desc_age_from_name(age) < 0 || desc_cache_kind_from_name(cache) < 0 ||
	    desc_rcu_from_name(rcu) < 0 || large_desc_from_name(large) < 0 ||
	    desc_slub_from_name(slub) < 0 || slab_cpus < 0 || slab_cpus > DESC_SLAB_CPUS_MAX || folio < 0 || folio > FOLIO_DESC_BYTES_MAX ||
	    hvo_mode_from_name(hvo) < 0 || ram < 0 ||
	    (desc_age_from_name(age) == DESC_TRACE) == json_is_null(trace))
		return mdb_errf(err, "%s: not an instance description", path);
	/* The parent's base page and CPUs, before the mix placed at it is read or any cache built. */
	c->slab_cpus = (unsigned int)slab_cpus;
	mdb_cond_apply(c);
	mdb_cond_set_ram(c, (uint64_t)ram);
	c->opts.seed = (uint64_t)seed;
	c->opts.pages = memmap_pages_from_name(pages);
	c->opts.age = desc_age_from_name(age);
	c->opts.no_compaction = !compaction;
	c->opts.desc_cache = desc_cache_kind_from_name(cache);
	c->opts.desc_rcu = desc_rcu_from_name(rcu);
	c->opts.large_desc = large_desc_from_name(large);
	c->opts.slub = desc_slub_from_name(slub);
	c->opts.folio_desc_bytes = (unsigned int)folio;
	c->opts.hvo = hvo_mode_from_name(hvo);
	if (c->opts.age == DESC_TRACE) {
		if (trace_from_json(trace, path, replay, err))
			return -1;
		c->opts.replay = replay;
	}
	if (!json_is_string(jlayout))
		return 0;
	c->ops = layout_by_name(json_string_value(jlayout));
	if (!c->ops)
		return mdb_errf(err, "%s: no layout %s in this binary", path, json_string_value(jlayout));
	if (mix_from_json_at(jmix, c->base, mix, err))
		return mdb_err_prefix(err, "%s", path);
	/* A snapshot's blocks where the parent's snapshot saw them. */
	if (json_is_string(json_object_get(o, "placed")) &&
	    mix_placed_load(mix, json_string_value(json_object_get(o, "placed")), err))
		return -1;
	c->mix = mix;
	return 0;
}

void mdb_cond_apply(const struct mdb_cond *c)
{
	base_page_set(c->base);
	desc_slab_cpus_set(c->slab_cpus);
}
