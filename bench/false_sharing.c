// SPDX-License-Identifier: GPL-2.0
/*
 * false_sharing.c - the false-sharing table (false_sharing.h) from the
 * fields each layout registered and the places its objects take.  Compiled
 * once: what is per layout comes from false_sharing_fields.c.
 */
#include "false_sharing.h"

extern const struct fs_fields *const __start_mdb_fs_fields[] __attribute__((weak));
extern const struct fs_fields *const __stop_mdb_fs_fields[] __attribute__((weak));

static const struct fs_fields *fields_of(const struct layout_ops *ops)
{
	const struct fs_fields *const *f;

	for (f = __start_mdb_fs_fields; f && f < __stop_mdb_fs_fields; f++)
		if ((*f)->layout == ops)
			return *f;
	return NULL;
}

/* Whether [a, a + alen) and [b, b + blen) touch a common line. */
static bool same_line(unsigned int a, unsigned int alen, unsigned int b, unsigned int blen)
{
	return a / FS_LINE <= (b + blen - 1) / FS_LINE && b / FS_LINE <= (a + alen - 1) / FS_LINE;
}

struct fs_table {
	struct fs_row *rows;
	unsigned int n, max;
};

static void add_row(struct fs_table *t, const struct fs_row *r)
{
	if (t->n < t->max)
		t->rows[t->n++] = *r;
}

/*
 * Objects end to end at stride from a line boundary; the pairs (i, i + 1)
 * for i < nr_pairs, by where the first starts in its line.
 */
static void object_rows(struct fs_table *t, const struct layout_ops *ops,
			const struct fs_fields *ff, const char *object, unsigned int stride,
			unsigned long nr_pairs)
{
	unsigned long at[FS_LINE] = { 0 }, i;
	unsigned int o, a, b;

	for (i = 0; i < nr_pairs; i++)
		at[(i * stride) % FS_LINE]++;
	for (o = 0; o < FS_LINE; o++) {
		struct fs_row r = {
			.layout = ops->name, .object = object, .stride = stride, .line_offset = o,
			.pairs = (double)at[o] / (double)nr_pairs,
		};
		bool any = false;

		if (!at[o])
			continue;
		for (a = 0; a < ff->nr; a++)
			for (b = 0; b < ff->nr; b++) {
				const struct fs_field *h = &ff->f[a], *n = &ff->f[b];

				if (!same_line(o + h->off, h->len, o + stride + n->off, n->len))
					continue;
				r.hot_field = h->name;
				r.neighbour_field = n->name;
				r.hot_offset = h->off;
				r.neighbour_offset = stride + n->off;
				r.line = (o + stride + n->off) / FS_LINE;
				add_row(t, &r);
				any = true;
			}
		if (!any)
			add_row(t, &r);
	}
}

/* A cache's objects of obj bytes: as the slab places them, pairs within a slab. */
static void cache_rows(struct fs_table *t, const struct layout_ops *ops, const struct fs_fields *ff,
		       const char *object, size_t obj, enum desc_cache_kind cache)
{
	size_t stride = desc_cache_kind_stride(cache, obj), slab_bytes;
	unsigned int objs, first = t->n;

	desc_slab_geometry(stride, &objs, &slab_bytes);
	if (objs > 1)
		object_rows(t, ops, ff, object, (unsigned int)stride, objs - 1);
	while (first < t->n)
		t->rows[first++].desc_cache = desc_cache_kind_name(cache);
}

int false_sharing_rows(const struct layout_ops *ops, unsigned int folio_desc_bytes,
		       enum desc_cache_kind cache, struct fs_row *rows, unsigned int max)
{
	const struct fs_fields *ff = fields_of(ops);
	struct fs_table t = { .rows = rows, .max = max };
	size_t obj[DESC_NR], acct[DESC_NR];
	struct mdb_err err;

	if (!ff)
		return -1;
	/* At the default --large-desc: the rows are the plan's objects. */
	if (layout_desc_sizes(ops->desc_size, folio_desc_bytes, LARGE_DESC_PLAN, obj, acct, &err))
		layout_desc_sizes(ops->desc_size, 0, LARGE_DESC_PLAN, obj, acct, &err);
	if (!obj[DESC_FOLIO]) {
		/* The folio overlays its head page: neighbours are memmap entries, one period of them. */
		object_rows(&t, ops, ff, "struct page", (unsigned int)ops->page_size, FS_LINE);
		return (int)t.n;
	}
	cache_rows(&t, ops, ff, "folio descriptor", obj[DESC_FOLIO], cache);
	if (obj[DESC_FOLIO_LARGE])
		cache_rows(&t, ops, ff, "large folio descriptor", obj[DESC_FOLIO_LARGE], cache);
	return (int)t.n;
}
