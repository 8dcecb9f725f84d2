// SPDX-License-Identifier: GPL-2.0
/*
 * layouts.c - the layouts by name (the table itself, mdb_layouts[], is
 * generated from layouts.list).  Compiled once.
 */
#include <string.h>

#include "err.h"
#include "layout.h"

const char *const desc_type_name[DESC_NR] = {
	[DESC_FOLIO] = "folio",
	[DESC_FOLIO_LARGE] = "folio_large",
	[DESC_ANON] = "anon",
	[DESC_ANON_LARGE] = "anon_large",
	[DESC_SLAB] = "slab",
	[DESC_PTDESC] = "ptdesc",
	[DESC_ZPDESC] = "zpdesc",
	[DESC_BUMP] = "bump",
};

/* The last memmap number memmap_create() gave: one counter for every layout's builds. */
uint64_t memmap_serial;

const struct layout_ops *layout_by_name(const char *name)
{
	const struct layout_ops *const *ops;

	for (ops = mdb_layouts; *ops; ops++)
		if (!strcmp((*ops)->name, name))
			return *ops;
	return NULL;
}

static const char *const large_desc_names[LARGE_DESC_NR] = {
	[LARGE_DESC_PLAN] = "plan",
	[LARGE_DESC_FULL] = "full",
};

const char *large_desc_name(enum large_desc l)
{
	return (unsigned int)l < LARGE_DESC_NR ? large_desc_names[l] : "?";
}

int large_desc_from_name(const char *name)
{
	for (int l = 0; l < LARGE_DESC_NR; l++)
		if (!strcmp(name, large_desc_names[l]))
			return l;
	return -1;
}

int layout_desc_sizes(const size_t own[DESC_NR], unsigned int folio_desc_bytes,
		      enum large_desc large, size_t obj[DESC_NR], size_t acct[DESC_NR],
		      struct mdb_err *err)
{
	size_t f = folio_desc_bytes;
	int t;

	for (t = 0; t < DESC_NR; t++) {
		obj[t] = acct[t] = own[t];
		/* 6.18's fields after the plan's: the large descriptor grows by them. */
		if (large == LARGE_DESC_FULL && desc_type_is_large(t) && own[t])
			obj[t] = acct[t] = own[t] + FOLIO_LARGE_FULL_BYTES - FOLIO_LARGE_PLAN_BYTES;
	}
	if (!f || !own[DESC_FOLIO])
		return 0;
	if (f % DESC_ALIGN || f > FOLIO_DESC_BYTES_MAX)
		return mdb_errf(err, "a folio descriptor of %zu bytes: a multiple of %d from %d to %d",
				f, DESC_ALIGN, DESC_ALIGN, FOLIO_DESC_BYTES_MAX);
	for (t = 0; t < DESC_NR; t++) {
		size_t fields = obj[t];

		if (!desc_type_is_folio(t) || !own[t])
			continue;
		/* The large ones hold the small folio's fields: they grow or shrink with them. */
		acct[t] = fields + f - own[DESC_FOLIO];
		obj[t] = acct[t] > fields ? acct[t] : fields;
	}
	return 0;
}

void memmap_cache_flags(const struct memmap_opts *opts, enum desc_type t,
			struct desc_cache_opts *co)
{
	static const struct memmap_opts defaults;

	if (!opts)
		opts = &defaults;
	/* Speculative lookups read a freed folio: its caches are made as --desc-cache says. */
	if (desc_type_is_folio(t)) {
		desc_cache_kind_flags(opts->desc_cache, FOLIO_FREEPTR_OFFSET, co);
		return;
	}
	/*
	 * The plan's other memdescs are TYPESAFE_BY_RCU too (desc_cache.h,
	 * enum desc_rcu); it names no field of theirs a lockless reader may find
	 * overwritten, so the free pointer goes after the object.
	 */
	co->typesafe_by_rcu = opts->desc_rcu == DESC_RCU_ALL;
	co->use_freeptr_offset = false;
	co->freeptr_offset = 0;
	co->hwcache_align = false;
}

size_t memmap_cache_stride(const struct memmap_opts *opts, enum desc_type t, size_t size)
{
	struct desc_cache_opts co = { 0 };
	size_t stride, freeptr;

	memmap_cache_flags(opts, t, &co);
	desc_object_layout(&co, size, &stride, &freeptr);
	return stride;
}

int memmap_measure(const struct memmap *mm, struct footprint_measured *out)
{
	const struct vmemmap *v[DESC_NR * DESC_MAX_EXT];
	size_t carved[DESC_NR * DESC_MAX_EXT];
	struct vmemmap_usage u = { 0 };

	memset(out, 0, sizeof(*out));
	if (hvo_map_on(&mm->hvo)) {
		if (hvo_map_held(&mm->hvo, &out->memmap_bytes))
			return -1;
	} else {
		if (vmemmap_usage(&mm->vmap, &u))
			return -1;
		out->memmap_bytes = u.rss;
	}
	memset(&u, 0, sizeof(u));
	if (vmemmap_usage_sum(v, desc_cache_maps(mm->cache, DESC_NR, v, carved), &u))
		return -1;
	out->desc_bytes = u.rss;
	return 0;
}
