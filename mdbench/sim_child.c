// SPDX-License-Identifier: GPL-2.0
/*
 * sim_child.c - the --simulate child: one instance, under valgrind.
 *
 * The parent describes the instance explicitly in a JSON file (kernel,
 * layout, the mix itself, sizes, seed, memmap options: pages, descriptor
 * age, folio descriptor size, HVO; threads, 1 for a threaded kernel; ops, where
 * to put the result), so the child repeats none of the parent's option handling and
 * sees exactly the mix the parent resolved (a kpageflags snapshot taken
 * again would be another mix under the same name; its placement comes in
 * a file beside, "placed").  It brackets exactly
 * the kernel's timed loop with callgrind's client requests
 * (CALLGRIND_ZERO_STATS + TOGGLE_COLLECT before the first op, TOGGLE_COLLECT
 * + DUMP_STATS_AT(name) after the last), so the dump part named for the
 * instance holds its ops and nothing of the set-up, and writes
 * {"items": N} or {"error": reason} to the result file.
 */
#include <stdio.h>
#include <string.h>

#include <valgrind/callgrind.h>

#include "jsonio.h"
#include "mdbench.h"

json_t *mdb_instance_json(const struct mdb_run *run, const struct mdb_instance *in, uint64_t ops)
{
	json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:I, s:I, s:I, s:I, s:s, s:s, s:s, s:s, s:I, s:I, s:s, s:I, s:s}",
			 "name", in->name, "kernel", in->kernel->name,
			 "layout", in->ops ? json_string(in->ops->name) : json_null(),
			 "mix", in->mix ? mix_to_json(in->mix) : json_null(),
			 "ram_bytes", (json_int_t)in->ram_bytes, "buf_bytes", (json_int_t)in->buf_bytes,
			 "seed", (json_int_t)run->opts.seed, "ops", (json_int_t)ops,
			 "memmap_pages", memmap_pages_name(run->opts.pages),
			 "desc_age", desc_age_name(run->opts.age),
			 "desc_cache", desc_cache_kind_name(in->desc_cache),
			 "slub", desc_slub_name(run->opts.slub),
			 "slab_cpus", (json_int_t)desc_slab_cpus(),
			 "folio_desc_bytes", (json_int_t)in->folio_desc_bytes,
			 "hvo", hvo_mode_name(in->hvo), "threads", (json_int_t)in->threads,
			 "base_page", mdb_base.name);

	/* The aging trace's: the replayed file (the child reads it again) and compaction. */
	if (o)
		json_object_update_new(o, json_pack("{s:o, s:b}", "desc_trace",
			run->opts.age == DESC_TRACE ?
			json_pack("{s:s, s:s}", "file", run->replay.path, "sha256", run->replay.sha256) :
			json_null(), "compaction", !run->opts.no_compaction));
	return o;
}

/* The replayed trace the instance names, read again and checked to be the parent's. */
static int read_trace(const char *path, json_t *doc, struct mdb_run *run, struct mdb_err *err)
{
	const char *file, *sha;
	json_t *t = json_object_get(doc, "desc_trace");
	int compaction;

	if (json_unpack(doc, "{s:b}", "compaction", &compaction) || !t)
		return mdb_errf(err, "%s: not an instance description", path);
	run->opts.no_compaction = !compaction;
	if (run->opts.age != DESC_TRACE)
		return json_is_null(t) ? 0 : mdb_errf(err, "%s: not an instance description", path);
	if (json_unpack(t, "{s:s, s:s}", "file", &file, "sha256", &sha))
		return mdb_errf(err, "%s: not an instance description", path);
	if (age_replay_load(file, &run->replay, err))
		return -1;
	if (strcmp(sha, run->replay.sha256))
		return mdb_errf(err, "%s: changed since the run started (sha256 %s, now %s)", file, sha,
				run->replay.sha256);
	run->opts.replay = &run->replay;
	return 0;
}

static void sim_start(void *arg)
{
	(void)arg;
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
}

static void sim_stop(void *arg)
{
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT((const char *)arg);
}

/* The instance the file describes, in *in (its mix in *mix). 0, or -1 with err. */
static int read_instance(const char *path, struct mdb_run *run, struct mdb_instance *in,
			 struct mix *mix, uint64_t *ops, const char **result, json_t **doc,
			 struct mdb_err *err)
{
	const char *name, *kernel, *layout = NULL, *pages, *age, *hvo, *cache, *slub, *base;
	const struct base_page *b;
	json_t *jmix, *jlayout;
	json_int_t ram, buf, seed, n, folio, threads, slab_cpus;

	*doc = mdb_json_load_file(path, 1 << 20, err);
	if (!*doc)
		return -1;
	if (json_unpack(*doc, "{s:s, s:s, s:o, s:o, s:I, s:I, s:I, s:I, s:s, s:s, s:s, s:s, s:I, s:I, "
			"s:s, s:I, s:s, s:s}",
			"name", &name, "kernel", &kernel, "layout", &jlayout, "mix", &jmix,
			"ram_bytes", &ram, "buf_bytes", &buf, "seed", &seed, "ops", &n,
			"memmap_pages", &pages, "desc_age", &age, "desc_cache", &cache, "slub", &slub,
			"slab_cpus", &slab_cpus, "folio_desc_bytes", &folio,
			"hvo", &hvo, "threads", &threads, "base_page", &base, "result", result) ||
	    !(b = base_page_find(base)) ||
	    memmap_pages_from_name(pages) < 0 || desc_age_from_name(age) < 0 ||
	    desc_cache_kind_from_name(cache) < 0 || desc_slub_from_name(slub) < 0 || folio < 0 ||
	    slab_cpus < 1 || slab_cpus > DESC_SLAB_CPUS_MAX ||
	    folio > FOLIO_DESC_BYTES_MAX || hvo_mode_from_name(hvo) < 0 || threads < 0 ||
	    threads > 1)
		return mdb_errf(err, "%s: not an instance description", path);
	/* The parent's base page, before the mix placed at it is read or any memmap built. */
	base_page_set(b);
	if (json_is_string(jlayout))
		layout = json_string_value(jlayout);
	memset(in, 0, sizeof(*in));
	snprintf(in->name, sizeof(in->name), "%s", name);
	if (layout) {
		in->ops = layout_by_name(layout);
		if (!in->ops)
			return mdb_errf(err, "%s: no layout %s in this binary", path, layout);
		if (mix_from_json_at(jmix, &mdb_base, mix, err))
			return mdb_err_prefix(err, "%s", path);
		/* A snapshot's blocks where the parent's snapshot saw them. */
		if (json_is_string(json_object_get(*doc, "placed")) &&
		    mix_placed_load(mix, json_string_value(json_object_get(*doc, "placed")), err))
			return -1;
		in->mix = mix;
	}
	in->kernel = mdb_kernel_find(kernel, in->ops);
	if (!in->kernel)
		return mdb_errf(err, "%s: no kernel %s for layout %s", path, kernel,
				layout ? layout : "(baseline)");
	in->ram_bytes = (uint64_t)ram;
	in->nr_pfns = (unsigned long)((uint64_t)ram >> MDB_PAGE_SHIFT);
	in->buf_bytes = (uint64_t)buf;
	in->folio_desc_bytes = (unsigned int)folio;
	in->hvo = hvo_mode_from_name(hvo);
	in->threads = (unsigned int)threads;	/* a threaded kernel simulates on one thread */
	run->opts.seed = (uint64_t)seed;
	run->opts.pages = memmap_pages_from_name(pages);
	run->opts.age = desc_age_from_name(age);
	in->desc_cache = desc_cache_kind_from_name(cache);
	run->opts.desc_cache = in->desc_cache;
	run->opts.slub = desc_slub_from_name(slub);
	desc_slab_cpus_set((unsigned int)slab_cpus);
	if (read_trace(path, *doc, run, err))
		return -1;
	*ops = (uint64_t)n;
	return *ops ? 0 : mdb_errf(err, "%s: ops is 0", path);
}

/* Exit status: 0 ran; 3 the kernel or its memmap gave an error; 2 a bad description. */
int mdb_simulate_child(struct mdb_run *run, const char *instance_file)
{
	struct mdb_instance in;
	struct mdb_err err;
	const char *result = NULL;
	struct mix mix;
	uint64_t ops = 0, items = 0;
	json_t *doc = NULL, *out;
	int ret;

	if (read_instance(instance_file, run, &in, &mix, &ops, &result, &doc, &err)) {
		json_decref(doc);
		mdb_die(&err);
	}
	ret = mdb_run_fixed(run, &in, ops, sim_start, sim_stop, in.name, &items, &err);
	out = ret ? json_pack("{s:s}", "error", err.msg) : json_pack("{s:I}", "items", (json_int_t)items);
	if (mdb_json_write(result, out, &err)) {
		json_decref(out);
		json_decref(doc);
		mdb_die(&err);
	}
	json_decref(out);
	json_decref(doc);
	return ret ? 3 : 0;
}
