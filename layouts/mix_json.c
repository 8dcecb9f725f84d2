// SPDX-License-Identifier: GPL-2.0
/*
 * mix_json.c - a mix as a jansson value (interim: moves into mix.c with the
 * jansson reader).
 */
#include <stdlib.h>

#include <jansson.h>

#include "err.h"
#include "mix.h"

json_t *mix_to_json(const struct mix *mix)
{
	struct mdb_err err;
	json_t *doc, *entries;

	if (mix_validate(mix, &err))
		return NULL;
	entries = json_array();
	doc = json_pack("{s:s, s:o}", "name", mix->name, "entries", entries);
	for (unsigned int i = 0; doc && i < mix->nr; i++) {
		const struct mix_entry *e = &mix->entry[i];

		json_array_append_new(entries, json_pack("{s:s, s:I, s:f}", "kind",
							 page_kind_name(e->kind), "order", (json_int_t)e->order,
							 "fraction", e->fraction));
	}
	return doc;
}


int mix_from_json(const json_t *doc, struct mix *mix, struct mdb_err *err)
{
	char *text = json_dumps(doc, JSON_REAL_PRECISION(17));
	int ret;

	if (!text)
		return mdb_errf(err, "out of memory");
	ret = mix_parse_json(text, mix, err);
	free(text);
	return ret;
}
