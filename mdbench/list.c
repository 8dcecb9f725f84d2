// SPDX-License-Identifier: GPL-2.0
/*
 * list.c - --list (for people) and --list=json (for scripts/collect): the
 * benchmarks the options select, the layouts, kernels and counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "jsonio.h"
#include "mdbench.h"
#include "units.h"

static const char *layout_name(const struct mdb_instance *in)
{
	return in->real ? MDB_REAL_LAYOUT : in->cond.ops ? in->cond.ops->name : NULL;
}

static json_t *instance_json(const struct mdb_run *run, const struct mdb_instance *in)
{
	json_t *o;
	json_t *params = json_object();
	const char *layout = layout_name(in);
	char size[32];

	if (layout) {
		mdb_format_size(in->cond.ram_bytes, size, sizeof(size));
		json_object_set_new(params, "mix", json_string(in->cond.mix->name));
		json_object_set_new(params, "ram", json_string(size));
		if (in->cond.opts.folio_desc_bytes)
			json_object_set_new(params, "folio", json_sprintf("%uB", in->cond.opts.folio_desc_bytes));
		if ((in->named & MDB_COND_NAME_HVO))
			json_object_set_new(params, "hvo", json_string(hvo_mode_name(in->cond.opts.hvo)));
		if ((in->named & MDB_COND_NAME_CACHE))
			json_object_set_new(params, "cache",
					    json_string(desc_cache_kind_name(in->cond.opts.desc_cache)));
	} else {
		mdb_format_size(in->buf_bytes, size, sizeof(size));
		json_object_set_new(params, "bytes", json_string(size));
	}
	if (in->threads)
		json_object_set_new(params, "threads", json_integer(in->threads));
	o = json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:f}", "name", in->name,
			 "kernel", in->kernel->name, "threads", (json_int_t)(in->threads ? in->threads : 1),
			 "layout", layout ? json_string(layout) : json_null(),
			 "mix", in->cond.mix ? json_string(in->cond.mix->name) : json_null(),
			 "ram_bytes", layout ? json_integer((json_int_t)in->cond.ram_bytes) : json_null(),
			 "buf_bytes", layout ? json_null() : json_integer((json_int_t)in->buf_bytes),
			 "params", params, "est_seconds", in->est_seconds);
	mdb_instance_ws_json(run, in, o);
	return o;
}

static int list_json(const struct mdb_run *run)
{
	json_t *ctx = mdb_context(run, false), *out, *benches = json_array(), *builtin = json_array();
	size_t i;
	int ret;

	for (i = 0; i < run->nr_inst; i++)
		if (run->inst[i].selected)
			json_array_append_new(benches, instance_json(run, &run->inst[i]));
	for (i = 0; mix_builtin_names[i]; i++)
		json_array_append_new(builtin, json_string(mix_builtin_names[i]));
	out = json_pack("{s:O, s:O, s:O, s:O, s:o, s:O, s:o, s:O, s:O, s:i}",
			"schema_version", json_object_get(ctx, "schema_version"),
			"reference_layout", json_object_get(ctx, "reference_layout"),
			"layouts", json_object_get(ctx, "layouts"),
			"kernels", json_object_get(ctx, "kernels"),
			"benchmarks", benches,
			"counters", json_object_get(ctx, "counters"),
			"mixes_builtin", builtin,
			"machine", json_object_get(ctx, "machine"),
			"ram_sizes", json_object_get(ctx, "ram_sizes"),
			"auto_min_rounds", MDB_AUTO_MIN_ROUNDS);
	json_decref(ctx);
	ret = out ? json_dumpf(out, stdout, MDB_JSON_DUMP_FLAGS) : -1;
	json_decref(out);
	if (ret || puts("") < 0 || fflush(stdout))
		return 1;
	return 0;
}

static int list_text(const struct mdb_run *run)
{
	const struct mdb_kernel **k = mdb_run_kernels(run);
	unsigned int i;
	size_t n;
	int t;

	printf("benchmarks (%zu):\n", run->nr_selected);
	for (n = 0; n < run->nr_inst; n++)
		if (run->inst[n].selected)
			printf("  %s\n", run->inst[n].name);
	printf("layouts (reference: %s):\n", mdb_run_reference(run));
	for (i = 0; mdb_layouts[i]; i++) {
		const struct layout_ops *ops = mdb_layouts[i];

		printf("  %-10s sizeof(struct page) %zu", ops->name, ops->page_size);
		if (!layout_has_descriptors(ops))
			printf(", no descriptors: struct folio overlays the memmap");
		for (t = 0; t < DESC_NR; t++)
			if (ops->desc_size[t])
				printf(", %s %zu", desc_type_name[t], ops->desc_size[t]);
		printf("\n");
	}
	if (run->real) {
		printf("  %-10s sizeof(struct page) %u, the running kernel %s through mdbench_kmod "
		       "(descriptors unknown; timed by the module)\n", MDB_REAL_LAYOUT,
		       mdb_real_sizeof_page(run->real), mdb_real_release(run->real));
	} else if (!access("/sys/module/mdbench_kmod", F_OK)) {
		printf("  (mdbench_kmod is loaded: --layout=...,%s also measures this kernel's own "
		       "memmap)\n", MDB_REAL_LAYOUT);
	}
	printf("kernels:\n");
	for (i = 0; k && k[i]; i++)
		printf("  %-22s %-10s one op: %s%s%s\n", k[i]->name, mdb_kernel_class_name(k[i]->class),
		       k[i]->unit, k[i]->model ? " (analytic model)" : "",
		       k[i]->flags & MDB_K_THREADED ? " (threaded)" : "");
	free(k);
	mdb_counters_print_list(stdout, &run->counters);
	printf("mixes built in:");
	for (i = 0; mix_builtin_names[i]; i++)
		printf(" %s", mix_builtin_names[i]);
	printf("\n");
	return fflush(stdout) ? 1 : 0;
}

int mdb_list(const struct mdb_run *run, bool json)
{
	return json ? list_json(run) : list_text(run);
}
