// SPDX-License-Identifier: GPL-2.0
/*
 * test_context.c - context.c without the program: what the dump says of a
 * run (context.memdesc_bench): the plan's layouts, kernels, sizes and seed,
 * conditions.memmaps counting the memmaps built, one layout's and one
 * kernel's entries, and the false-sharing table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "false_sharing.h"
#include "test_run.h"

static const char *const two[] = { "page64", "memdesc8", NULL };

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "(none)";
}

static long long num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

static void test_layout_and_kernel(void)
{
	const struct layout_ops *md8 = layout_by_name("memdesc8");
	const struct mdb_kernel *const *k, *fresh = NULL;
	json_t *o = mdb_layout_json(md8), *sizes;
	struct mdb_err err;
	unsigned int nr, i, t;

	CHECK(!strcmp(str(o, "name"), "memdesc8"), "name");
	CHECK(num(o, "sizeof_page") == (long long)md8->page_size, "sizeof_page %lld", num(o, "sizeof_page"));
	CHECK(num(o, "sizeof_folio") == (long long)md8->desc_size[DESC_FOLIO], "sizeof_folio");
	CHECK(json_is_true(json_object_get(o, "descriptors")) == layout_has_descriptors(md8),
	      "descriptors");
	sizes = json_object_get(o, "desc_sizes");
	CHECK(json_object_size(sizes) == DESC_NR, "%zu desc_sizes", json_object_size(sizes));
	for (t = 0; t < DESC_NR; t++)
		CHECK(num(sizes, desc_type_name[t]) == (long long)md8->desc_size[t], "desc_sizes.%s",
		      desc_type_name[t]);
	json_decref(o);

	CHECK(!mdb_kernels(&k, &nr, &err), "mdb_kernels: %s", err.msg);
	for (i = 0; i < nr; i++)
		if (!strcmp(k[i]->name, "test/fresh"))
			fresh = k[i];
	CHECK(fresh, "test/fresh registered");
	if (!fresh)
		return;
	o = mdb_kernel_json(fresh);
	CHECK(!strcmp(str(o, "class"), "mutating") && !strcmp(str(o, "unit"), "nothing") &&
	      json_is_true(json_object_get(o, "mutates")) &&
	      json_is_false(json_object_get(o, "threaded")) &&
	      json_is_false(json_object_get(o, "model")) && num(o, "sim_ops") == 16 &&
	      !strcmp(str(o, "hvo"), "off"), "test/fresh's entry");
	json_decref(o);
}

/* The names of an array of objects, ','-joined. */
static void names(const json_t *a, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < json_array_size(a); i++)
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", i ? "," : "",
				      str(json_array_get(a, i), "name"));
}

static void test_context(void)
{
	const struct layout_ops *md8 = layout_by_name("memdesc8");
	struct fs_row rows[FS_MAX_ROWS];
	json_t *o, *c, *m, *a;
	struct mdb_run run;
	struct mdb_err err;
	struct mix mix;
	uint64_t items;
	char buf[1024];
	size_t i;
	int nr_rows;

	test_run_mix(&mix, "plain", false);
	test_run_init(&run, "^test/(seen|spin)/", two, &mix, 1, TEST_RAM);
	mdb_plan(&run);
	/* Three memmaps built: page64's twice, memdesc8's once. */
	for (i = 0; i < 2; i++)
		CHECK(!mdb_run_fixed(&run, test_find(&run, "test/seen/page64/mix:plain/ram:64MiB"), 16,
				     NULL, NULL, NULL, &items, &err), "test/seen on page64: %s", err.msg);
	CHECK(!mdb_run_fixed(&run, test_find(&run, "test/seen/memdesc8/mix:plain/ram:64MiB"), 16,
			     NULL, NULL, NULL, &items, &err), "test/seen on memdesc8: %s", err.msg);

	o = mdb_context(&run, true);
	CHECK(num(o, "schema_version") == MDB_SCHEMA_VERSION, "schema_version");
	CHECK(!strcmp(str(o, "run_id"), run.run_id), "run_id %s", str(o, "run_id"));
	CHECK(json_is_true(json_object_get(o, "complete")), "complete");
	CHECK(!strcmp(str(o, "profile"), "quick") && !strcmp(str(o, "filter"), "^test/(seen|spin)/"),
	      "profile and filter");
	CHECK(num(o, "nr_selected") == 4 && num(o, "rounds") == 1 && num(o, "seed") == 1,
	      "nr_selected %lld", num(o, "nr_selected"));
	a = json_object_get(o, "argv");
	CHECK(json_array_size(a) == 2 && !strcmp(json_string_value(json_array_get(a, 1)), "--seed=1"),
	      "argv");
	CHECK(!strcmp(str(o, "reference_layout"), mdb_layouts[0]->name), "reference_layout");
	names(json_object_get(o, "layouts"), buf, sizeof(buf));
	CHECK(!strcmp(buf, "page64,memdesc8"), "layouts %s", buf);
	names(json_object_get(o, "kernels"), buf, sizeof(buf));
	CHECK(!strcmp(buf, "test/seen,test/spin"), "kernels %s", buf);
	names(json_object_get(o, "mixes"), buf, sizeof(buf));
	CHECK(!strcmp(buf, "plain"), "mixes %s", buf);
	a = json_object_get(o, "ram_sizes");
	CHECK(json_array_size(a) == 1 && json_integer_value(json_array_get(a, 0)) == (json_int_t)TEST_RAM,
	      "ram_sizes");
	a = json_object_get(o, "ram_names");
	CHECK(json_array_size(a) == 1 && !strcmp(json_string_value(json_array_get(a, 0)), "64MiB"),
	      "ram_names");
	a = json_object_get(o, "baseline_sizes");
	CHECK(json_array_size(a) == 2 && json_integer_value(json_array_get(a, 0)) == 128 << 10 &&
	      json_integer_value(json_array_get(a, 1)) == 1 << 20, "baseline_sizes");
	CHECK(json_is_null(json_object_get(o, "cpu")) && json_is_null(json_object_get(o, "node")) &&
	      json_is_null(json_object_get(o, "hwloc")), "cpu, node, hwloc");
	a = json_object_get(o, "counters");
	CHECK(json_array_size(json_object_get(a, "available")) == 0 &&
	      json_array_size(json_object_get(a, "unavailable")) == 0, "no counters");

	c = json_object_get(o, "conditions");
	CHECK(!strcmp(str(c, "memmap_pages"), "4k") && !strcmp(str(c, "desc_age"), "aged") &&
	      json_is_true(json_object_get(c, "slab_freelist_random")) &&
	      json_is_object(json_object_get(c, "desc_churn")) &&
	      json_is_null(json_object_get(c, "folio_desc_bytes")) &&
	      json_is_false(json_object_get(c, "memmaps_short")), "conditions");
	a = json_object_get(c, "memmaps");
	CHECK(json_array_size(a) == 2, "%zu memmaps", json_array_size(a));
	m = json_array_get(a, 0);
	CHECK(!strcmp(str(m, "layout"), "page64") && !strcmp(str(m, "mix"), "plain") &&
	      num(m, "ram_bytes") == (long long)TEST_RAM && num(m, "builds") == 2 &&
	      num(m, "folio_desc_bytes") == 0 && num(m, "memmap_bytes") == 16384 * 64,
	      "page64's memmap: builds %lld, %lld bytes", num(m, "builds"), num(m, "memmap_bytes"));
	m = json_array_get(a, 1);
	CHECK(!strcmp(str(m, "layout"), "memdesc8") && num(m, "builds") == 1 &&
	      num(m, "folio_desc_bytes") == (long long)md8->desc_size[DESC_FOLIO] &&
	      num(m, "memmap_bytes") == 16384 * 8,
	      "memdesc8's memmap: builds %lld, folio %lld, %lld bytes", num(m, "builds"),
	      num(m, "folio_desc_bytes"), num(m, "memmap_bytes"));
	a = json_object_get(json_object_get(c, "hvo"), "modes");
	CHECK(json_array_size(a) == 2 && json_is_false(json_object_get(json_object_get(c, "hvo"), "given")),
	      "hvo modes");
	a = json_object_get(json_object_get(c, "threads"), "counts");
	CHECK(json_array_size(a) == 2 && json_integer_value(json_array_get(a, 1)) == 2, "thread counts");

	/* One row set per layout at its own folio size. */
	nr_rows = false_sharing_rows(layout_by_name("page64"), 0, rows, FS_MAX_ROWS) +
		  false_sharing_rows(md8, 0, rows, FS_MAX_ROWS);
	a = json_object_get(o, "false_sharing");
	CHECK(json_array_size(a) == (size_t)nr_rows, "%zu false-sharing rows, want %d",
	      json_array_size(a), nr_rows);
	json_decref(o);

	o = mdb_context(&run, false);
	CHECK(json_is_false(json_object_get(o, "complete")), "not complete");
	json_decref(o);
	test_run_free(&run);
}

int main(void)
{
	test_layout_and_kernel();
	test_context();
	if (failures) {
		fprintf(stderr, "test_context: %d failures\n", failures);
		return 1;
	}
	printf("test_context: ok\n");
	return 0;
}
