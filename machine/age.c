// SPDX-License-Identifier: GPL-2.0
/*
 * age.c - the descriptor churn that ages a machine (see age.h).
 */
#include <stdlib.h>
#include <string.h>

#include "age.h"
#include "rng.h"
#include "units.h"

#define AGE_SALT	0x61676564ULL	/* "aged": the churn's draws differ from the plan's */
#define FNV_OFFSET	0xcbf29ce484222325ULL
#define FNV_PRIME	0x100000001b3ULL

static const char *const age_name[DESC_AGE_NR] = {
	[DESC_AGED] = "aged",
	[DESC_FRESH] = "fresh",
	[DESC_FRESH_ORDERED] = "fresh-ordered",
};

const char *desc_age_name(enum desc_age age)
{
	return mdb_name_of(age_name, DESC_AGE_NR, age);
}

int desc_age_from_name(const char *name)
{
	return mdb_parse_name(name, age_name, DESC_AGE_NR);
}

int age_list_add(struct age_list *l, unsigned long pfn, unsigned int order, unsigned int kind)
{
	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		struct age_folio *f = realloc(l->f, cap * sizeof(*f));

		if (!f)
			return -1;
		l->f = f;
		l->cap = cap;
	}
	l->f[l->nr++] = (struct age_folio){ .pfn = (uint32_t)pfn, .order = (uint8_t)order,
					    .kind = (uint8_t)kind };
	return 0;
}

void age_list_release(struct age_list *l)
{
	free(l->f);
	memset(l, 0, sizeof(*l));
}

/* FNV-1a over one event. */
static void hash_event(uint64_t *h, char what, uint32_t pfn, unsigned int order)
{
	uint64_t v[2] = { (uint64_t)(unsigned char)what << 8 | order, pfn };
	const unsigned char *p = (const unsigned char *)v;

	for (size_t i = 0; i < sizeof(v); i++)
		*h = (*h ^ p[i]) * FNV_PRIME;
}

static void swap_u32(uint32_t *a, uint32_t *b)
{
	uint32_t t = *a;

	*a = *b;
	*b = t;
}

struct transient {
	void *desc;
	unsigned int order;
};

/* One round: free k folios' descriptors, allocate them again among t short-lived ones. */
static int age_round(const struct age_list *l, uint32_t *idx, struct transient *tr, size_t k,
		     size_t t, uint64_t *rng, const struct age_ops *ops, uint64_t *h)
{
	size_t n = l->nr, i, rec = 0, made = 0;

	for (i = 0; i < k; i++)		/* k distinct folios, in random order */
		swap_u32(&idx[i], &idx[i + mdb_rng_below(rng, n - i)]);
	for (i = 0; i < k; i++) {
		const struct age_folio *f = &l->f[idx[i]];

		ops->release(ops->arg, f);
		hash_event(h, 'R', f->pfn, f->order);
	}
	for (i = k; i > 1; i--)		/* allocated again in another order */
		swap_u32(&idx[i - 1], &idx[mdb_rng_below(rng, i)]);
	while (rec < k || made < t) {
		if (made < t && mdb_rng_below(rng, k - rec + t - made) < t - made) {
			unsigned int order = l->f[mdb_rng_below(rng, n)].order;

			tr[made++] = (struct transient){ ops->transient_alloc(ops->arg, order), order };
			hash_event(h, 'T', 0, order);
		} else {
			const struct age_folio *f = &l->f[idx[rec++]];

			if (ops->recreate(ops->arg, f))
				return -1;
			hash_event(h, 'C', f->pfn, f->order);
		}
	}
	for (i = t; i > 1; i--) {	/* the short-lived ones go, in random order */
		struct transient x = tr[i - 1];
		size_t j = mdb_rng_below(rng, i);

		tr[i - 1] = tr[j];
		tr[j] = x;
	}
	for (i = 0; i < t; i++) {
		if (tr[i].desc)
			ops->transient_free(ops->arg, tr[i].desc, tr[i].order);
		hash_event(h, 'F', 0, tr[i].order);
	}
	return 0;
}

int age_churn(const struct age_list *l, uint64_t seed, const struct age_ops *ops, uint64_t *digest)
{
	size_t n = l->nr, k = n / AGE_FRACTION_DEN, t = k / AGE_TRANSIENT_DEN, i;
	uint32_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	struct transient *tr = malloc((t ? t : 1) * sizeof(*tr));
	uint64_t rng = seed ^ AGE_SALT, h = FNV_OFFSET;
	int ret = 0;

	if (!idx || !tr) {
		ret = -1;
		goto out;
	}
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	for (unsigned int r = 0; r < AGE_ROUNDS && !ret && k; r++)
		ret = age_round(l, idx, tr, k, t, &rng, ops, &h);
out:
	free(idx);
	free(tr);
	*digest = h;
	return ret;
}
