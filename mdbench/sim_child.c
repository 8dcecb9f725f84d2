// SPDX-License-Identifier: GPL-2.0
/*
 * sim_child.c - the --simulate child: one instance, under valgrind.
 *
 * The parent describes the instance explicitly in a JSON file (kernel, its
 * memmap's conditions as mdb_cond_json() writes them and mdb_cond_from_json()
 * reads them, the mix itself among them; threads, 1 for a threaded kernel;
 * ops, where to put the result), so the child repeats none of the parent's
 * option handling and
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
	json_t *o = mdb_cond_json(&in->cond);

	(void)run;
	if (o)
		json_object_update_new(o, json_pack("{s:s, s:s, s:I, s:I, s:I}", "name", in->name,
			"kernel", in->kernel->name, "buf_bytes", (json_int_t)in->buf_bytes,
			"ops", (json_int_t)ops, "threads", (json_int_t)in->threads));
	return o;
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
	const char *name, *kernel;
	json_int_t buf, n, threads;

	*doc = mdb_json_load_file(path, 1 << 20, err);
	if (!*doc)
		return -1;
	if (json_unpack(*doc, "{s:s, s:s, s:I, s:I, s:I, s:s}", "name", &name, "kernel", &kernel,
			"buf_bytes", &buf, "ops", &n, "threads", &threads, "result", result) ||
	    threads < 0 || threads > 1)
		return mdb_errf(err, "%s: not an instance description", path);
	memset(in, 0, sizeof(*in));
	if (mdb_cond_from_json(*doc, path, &in->cond, mix, &run->replay, err))
		return -1;
	/*
	 * The run's conditions, what a kernel that builds its own memmap
	 * reads: the instance's, less what its group varies but its cache
	 * option, as the parent's run has them.
	 */
	run->cond = in->cond;
	run->cond.ops = NULL;
	run->cond.mix = NULL;
	mdb_cond_set_ram(&run->cond, 0);
	run->cond.opts.folio_desc_bytes = 0;
	run->cond.opts.hvo = HVO_OFF;
	snprintf(in->name, sizeof(in->name), "%s", name);
	in->kernel = mdb_kernel_find(kernel, in->cond.ops);
	if (!in->kernel)
		return mdb_errf(err, "%s: no kernel %s for layout %s", path, kernel,
				in->cond.ops ? in->cond.ops->name : "(baseline)");
	in->buf_bytes = (uint64_t)buf;
	in->threads = (unsigned int)threads;	/* a threaded kernel simulates on one thread */
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
