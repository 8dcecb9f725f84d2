// SPDX-License-Identifier: GPL-2.0
/*
 * context.c - what a dump says of its run: the memdesc_bench object in
 * mdbench.json's (and sim.json's) context, the short form of it in Google
 * Benchmark's own context, mix.json and topology.xml.  Every field is in
 * results/SCHEMA.md; change both together.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "git_commit.h"
#include "jsonio.h"
#include "mdbench.h"
#include "shim.h"
#include "units.h"

/* First line of a small file, without its newline; NULL if unreadable. */
static char *read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *ret = NULL;

	if (!f)
		return NULL;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = buf;
	}
	fclose(f);
	return ret;
}

/* "always [madvise] never" -> "madvise". */
static json_t *thp_mode(void)
{
	char buf[256], *open, *close;

	if (!read_line("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)))
		return json_null();
	open = strchr(buf, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close)
		return json_string(buf);
	*close = '\0';
	return json_string(open + 1);
}

static json_t *paranoid(void)
{
	char buf[32];
	long v;
	char *end;

	if (!read_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)))
		return json_null();
	v = strtol(buf, &end, 10);
	return end != buf && !*end ? json_integer(v) : json_null();
}

static json_t *int_or_null(long v, bool present)
{
	return present ? json_integer(v) : json_null();
}

static json_t *git_dirty(void)
{
	if (!strcmp(MDB_GIT_DIRTY, "true"))
		return json_true();
	if (!strcmp(MDB_GIT_DIRTY, "false"))
		return json_false();
	return json_null();
}

json_t *mdb_layout_json(const struct layout_ops *ops)
{
	json_t *sizes = json_object();
	int t;

	for (t = 0; t < DESC_NR; t++)
		json_object_set_new(sizes, desc_type_name[t], json_integer((json_int_t)ops->desc_size[t]));
	return json_pack("{s:s, s:I, s:I, s:b, s:o}", "name", ops->name,
			 "sizeof_page", (json_int_t)ops->page_size,
			 "sizeof_folio", (json_int_t)ops->desc_size[DESC_FOLIO],
			 "descriptors", layout_has_descriptors(ops), "desc_sizes", sizes);
}

json_t *mdb_kernel_json(const struct mdb_kernel *k)
{
	return json_pack("{s:s, s:s, s:s, s:b, s:b, s:I}", "name", k->name,
			 "class", mdb_kernel_class_name(k->class), "unit", k->unit,
			 "mutates", !!(k->flags & MDB_K_MUTATES), "model", k->model != NULL,
			 "sim_ops", (json_int_t)k->sim_ops);
}

/* The modelled layouts, then the live kernel if asked for (brief: for Google Benchmark's context). */
static json_t *layouts_json(const struct mdb_run *run, bool brief)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; i < run->nr_layouts; i++)
		json_array_append_new(a, mdb_layout_json(run->layouts[i]));
	if (run->real)
		json_array_append_new(a, mdb_real_layout_json(run->real, brief));
	return a;
}

static json_t *kernels_json(const struct mdb_run *run)
{
	const struct mdb_kernel **k = mdb_run_kernels(run);
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; k && k[i]; i++)
		json_array_append_new(a, mdb_kernel_json(k[i]));
	free(k);
	return a;
}

static json_t *sizes_json(const uint64_t *sizes, unsigned int n, bool names)
{
	json_t *a = json_array();
	char buf[32];
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (names) {
			mdb_format_size(sizes[i], buf, sizeof(buf));
			json_array_append_new(a, json_string(buf));
		} else {
			json_array_append_new(a, json_integer((json_int_t)sizes[i]));
		}
	}
	return a;
}

static json_t *counters_json(const struct mdb_counters *set)
{
	json_t *avail = json_array(), *unavail = json_array();
	unsigned int i;

	for (i = 0; i < set->nr; i++) {
		const struct mdb_counter *c = &set->c[i];

		char config[24];
		json_t *o;

		/* Hex, as perf prints it; a 64-bit config may not fit a JSON integer. */
		snprintf(config, sizeof(config), "0x%llx", (unsigned long long)c->config);
		o = json_pack("{s:s, s:s, s:I, s:s, s:s}", "name", c->name, "event", c->event,
			      "type", (json_int_t)c->type, "config", config, "pfm", c->pfm);

		if (c->available) {
			json_object_set_new(o, "unscheduled_runs", json_integer((json_int_t)c->unscheduled));
			json_array_append_new(avail, o);
		} else {
			json_object_set_new(o, "reason", json_string(c->reason));
			json_array_append_new(unavail, o);
		}
	}
	return json_pack("{s:o, s:o}", "available", avail, "unavailable", unavail);
}

static json_t *hwloc_json(const struct mdb_run *run)
{
	const struct mdb_topology *t = &run->topo;
	json_t *caches;
	unsigned int i;

	if (!run->topo_loaded)
		return json_null();
	caches = json_array();
	for (i = 0; i < t->nr_caches; i++) {
		const struct mdb_cache_info *c = &t->cache[i];

		json_array_append_new(caches, json_pack("{s:I, s:s, s:I, s:I, s:I, s:I}",
							"level", (json_int_t)c->level, "type", c->type,
							"size", (json_int_t)c->size,
							"line_size", (json_int_t)c->line_size,
							"associativity", (json_int_t)c->associativity,
							"count", (json_int_t)c->count));
	}
	return json_pack("{s:o, s:I, s:I, s:I, s:I}", "caches", caches,
			 "packages", (json_int_t)t->packages, "cores", (json_int_t)t->cores,
			 "pus", (json_int_t)t->pus, "numa_nodes", (json_int_t)t->numa_nodes);
}

static json_t *uname_json(void)
{
	struct utsname u;

	if (uname(&u))
		return json_null();
	return json_pack("{s:s, s:s, s:s}", "release", u.release, "version", u.version,
			 "machine", u.machine);
}

static json_t *strings_json(int argc, char **argv)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < argc; i++) {
		json_t *s = json_string(argv[i]);	/* NULL: not UTF-8 */

		json_array_append_new(a, s ? s : json_string("(not UTF-8)"));
	}
	return a;
}

static json_t *mixes_json(const struct mdb_run *run)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; i < run->nr_mixes; i++)
		json_array_append_new(a, mix_to_json(&run->mixes[i]));
	return a;
}

/*
 * The conditions the run asked for and obtained (issues add to this).
 * hvo: "off": no memmap is remapped for HugeTLB Vmemmap Optimisation (and
 * page64's fake-head static key stays off); footprint/hvo computes what it
 * would save.
 */
static json_t *conditions_json(const struct mdb_run *run)
{
	return json_pack("{s:b, s:s}", "hugepage", run->opts.hugepage, "hvo", "off");
}

json_t *mdb_context(const struct mdb_run *run, bool complete)
{
	json_t *o = json_object();

	json_object_set_new(o, "schema_version", json_integer(MDB_SCHEMA_VERSION));
	json_object_set_new(o, "run_id", json_string(run->run_id));
	json_object_set_new(o, "complete", json_boolean(complete));
	json_object_set_new(o, "git_commit", json_string(MDB_GIT_COMMIT));
	json_object_set_new(o, "git_dirty", git_dirty());
	json_object_set_new(o, "argv", strings_json(run->argc, run->argv));
	json_object_set_new(o, "profile", json_string(run->profile));
	json_object_set_new(o, "filter", json_string(run->filter));
	json_object_set_new(o, "nr_selected", json_integer((json_int_t)run->nr_selected));
	json_object_set_new(o, "rounds", json_integer(run->rounds));
	json_object_set_new(o, "reference_layout", json_string(layout_reference()->name));
	json_object_set_new(o, "layouts", layouts_json(run, false));
	json_object_set_new(o, "kernels", kernels_json(run));
	json_object_set_new(o, "mixes", mixes_json(run));
	json_object_set_new(o, "ram_sizes", sizes_json(run->ram_sizes, run->nr_ram_sizes, false));
	json_object_set_new(o, "ram_names", sizes_json(run->ram_sizes, run->nr_ram_sizes, true));
	json_object_set_new(o, "baseline_sizes",
			    sizes_json(run->baseline_sizes, run->nr_baseline_sizes, false));
	json_object_set_new(o, "counters", counters_json(&run->counters));
	json_object_set_new(o, "kernel", uname_json());
	json_object_set_new(o, "cpu_model", run->topo_loaded ? json_string(run->topo.cpu_model) :
				json_null());
	json_object_set_new(o, "perf_event_paranoid", paranoid());
	json_object_set_new(o, "thp", thp_mode());
	json_object_set_new(o, "hwloc", hwloc_json(run));
	json_object_set_new(o, "cpu", int_or_null(run->cpu, run->cpu >= 0));
	json_object_set_new(o, "node", int_or_null(run->node, run->node >= 0));
	json_object_set_new(o, "seed", json_integer((json_int_t)run->opts.seed));
	json_object_set_new(o, "conditions", conditions_json(run));
	return o;
}

json_t *mdb_context_cb(bool complete, void *run)
{
	return mdb_context(run, complete);
}

/* Compact JSON text of value (stolen), for a Google Benchmark context string. */
static void add_gb_json(const char *key, json_t *value)
{
	char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);

	if (text)
		mdb_add_custom_context(key, text);
	free(text);
	json_decref(value);
}

/*
 * Google Benchmark's own --benchmark_out and --benchmark_format=json files
 * carry none of our object; these strings let the scripts read them all the
 * same.  Short on purpose: its console reporter prints each one.
 */
void mdb_add_gb_context(const struct mdb_run *run)
{
	json_t *names = json_array(), *unavailable = json_object();
	char version[16];
	unsigned int i;

	snprintf(version, sizeof(version), "%d", MDB_SCHEMA_VERSION);
	mdb_add_custom_context("memdesc_bench.schema_version", version);
	mdb_add_custom_context("memdesc_bench.run_id", run->run_id);
	mdb_add_custom_context("memdesc_bench.git_commit", MDB_GIT_COMMIT);
	mdb_add_custom_context("memdesc_bench.git_dirty", MDB_GIT_DIRTY);
	mdb_add_custom_context("memdesc_bench.reference_layout", layout_reference()->name);
	add_gb_json("memdesc_bench.layouts", layouts_json(run, true));
	add_gb_json("memdesc_bench.kernels", kernels_json(run));
	for (i = 0; i < run->nr_mixes; i++)
		json_array_append_new(names, json_string(run->mixes[i].name));
	add_gb_json("memdesc_bench.mixes", names);
	for (i = 0; i < run->counters.nr; i++)
		if (!run->counters.c[i].available)
			json_object_set_new(unavailable, run->counters.c[i].name,
					    json_string(run->counters.c[i].reason));
	add_gb_json("memdesc_bench.counters_unavailable", unavailable);
}

int mdb_write_side_files(const struct mdb_run *run, struct mdb_err *err)
{
	char path[PATH_MAX];
	json_t *mixes = mixes_json(run);
	int ret;

	snprintf(path, sizeof(path), "%s/mix.json", run->out_dir);
	ret = mdb_json_write(path, mixes, err);
	json_decref(mixes);
	if (ret)
		return -1;
	snprintf(path, sizeof(path), "%s/topology.xml", run->out_dir);
	return run->topo_loaded ? mdb_topology_export_xml(&run->topo, path, err) : 0;
}
