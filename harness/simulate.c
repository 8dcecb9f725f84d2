// SPDX-License-Identifier: GPL-2.0
/*
 * simulate.c - --simulate: every selected benchmark, a fixed number of ops,
 * under valgrind's callgrind with its cache simulator.
 *
 * The parent re-runs this binary once per instance, as
 *	valgrind --tool=callgrind --cache-sim=yes --D1=.. --LL=.. --I1=..
 *		--collect-atstart=no --callgrind-out-file=TMP/cg.N
 *		mdbench <the same options> --sim-child=NAME --sim-ops=OPS
 * and the child brackets exactly the kernel's timed loop with client
 * requests (CALLGRIND_ZERO_STATS + TOGGLE_COLLECT before the first op,
 * TOGGLE_COLLECT + DUMP_STATS_AT(NAME) after the last), so the dump part
 * named for the kernel holds its ops and nothing of the set-up.  The cache
 * geometry is fixed by default, so the figures are the same on any machine;
 * --sim-cache=host takes L1d and the last level from hwloc instead.  The
 * parent parses each dump and rewrites OUT/sim.json (temporary name, then
 * rename) after every instance, so an interrupted run keeps what finished.
 * Children run in parallel, one per CPU this process may use.
 */
#define _GNU_SOURCE		/* strchrnul, sched_getaffinity */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include <valgrind/callgrind.h>

#include "bench.h"
#include "driver.h"
#include "dump.h"
#include "model.h"
#include "topology.h"

/* A fixed, typical geometry: 32 KiB 8-way L1s, an 8 MiB 16-way last level. */
#define SIM_FIXED_L1	"32768,8,64"
#define SIM_FIXED_LL	"8388608,16,64"

enum sim_event { EV_Ir, EV_Dr, EV_Dw, EV_I1mr, EV_D1mr, EV_D1mw, EV_ILmr, EV_DLmr, EV_DLmw, EV_NR };
static const char *const sim_event_name[EV_NR] = {
	"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw",
};

struct sim_job {
	const struct mdb_instance *in;
	uint64_t ops;			/* asked for */
	pid_t pid;			/* 0: not started; -1: finished */
	struct timespec start;
	double seconds;
	bool done, ran;			/* ran: the kernel's ops were counted */
	uint64_t items;
	uint64_t ev[EV_NR];
	bool has_model;
	double model;
	char error[512];		/* the kernel's own reason when !ran */
};

struct sim {
	const struct mdb_dump_ctx *ctx;	/* the driver's: argv, topology, baseline sizes */
	const struct mdb_run *run;
	const char *valgrind;
	char exe[PATH_MAX];
	char tmp[PATH_MAX];
	char out[PATH_MAX];
	char *mix_arg;			/* --mix=TMP/mix.0.json,...: the parent's mixes */
	const char *cache_source;	/* "fixed" or "host" */
	char i1[48], d1[48], ll[48];	/* valgrind's option values */
	char desc_i1[96], desc_d1[96], desc_ll[96];	/* as callgrind reports them */
	char tool[64];
	struct sim_job *job;
	size_t nr_job, nr_done, nr_failed;
};

static volatile sig_atomic_t sim_stop;

static void sim_on_signal(int sig)
{
	sim_stop = sig;
}

/* ------------------------------------------------------------------ */
/* The child: one instance, under valgrind                              */

static void sim_start(void *arg)
{
	(void)arg;
	CALLGRIND_ZERO_STATS;
	CALLGRIND_TOGGLE_COLLECT;
}

static void sim_stop_collect(void *arg)
{
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT((const char *)arg);
}

/*
 * Exit status: 0 ran, with "mdb-sim items=N" on stdout; 3 the kernel or its
 * memmap gave an error (the reason on stderr); 2 no such instance.
 */
int mdb_simulate_child(const struct mdb_run *run, const char *name, uint64_t ops)
{
	const struct mdb_instance *in = NULL;
	struct mdb_err err = { "" };
	uint64_t items = 0;
	size_t i;

	for (i = 0; i < run->nr_inst && !in; i++)
		if (!strcmp(run->inst[i].name, name))
			in = &run->inst[i];
	if (!in) {
		fprintf(stderr, "mdbench: --sim-child=%s: no such benchmark in this run\n", name);
		return 2;
	}
	if (!ops) {
		fprintf(stderr, "mdbench: --sim-ops=0: at least one op is needed\n");
		return 2;
	}
	if (mdb_run_fixed(run, in, ops, sim_start, sim_stop_collect, (void *)in->name, &items, &err)) {
		fprintf(stderr, "mdbench: %s: %s\n", name, err.msg[0] ? err.msg : "failed");
		return 3;
	}
	printf("mdb-sim items=%llu\n", (unsigned long long)items);
	return fflush(stdout) ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* Set-up                                                               */

static const char *find_in_path(const char *prog, char *buf, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;

	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (end == p)
			continue;
		snprintf(buf, len, "%.*s/%s", (int)(end - p), p, prog);
		if (!access(buf, X_OK))
			return buf;
	}
	return NULL;
}

static bool is_option(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(arg, name, n) && (arg[n] == '\0' || arg[n] == '=');
}

/* "32768,8,64" from hwloc's view of one cache. */
static int cache_arg(char *buf, size_t len, const struct mdb_cache_info *c, const char *what,
		     char *err)
{
	int ways = c->associativity;

	if (!c->size || !c->line_size) {
		snprintf(err, 256, "--sim-cache=host: hwloc gives no size or line size for the %s", what);
		return -1;
	}
	if (ways < 0)
		ways = (int)(c->size / c->line_size);
	if (!ways) {
		snprintf(err, 256, "--sim-cache=host: hwloc does not know the associativity of the %s",
			 what);
		return -1;
	}
	snprintf(buf, len, "%llu,%d,%u", c->size, ways, c->line_size);
	return 0;
}

static int host_caches(struct sim *s, char *err)
{
	const struct mdb_topology *t = s->ctx->topo;
	const struct mdb_cache_info *d1 = NULL, *i1 = NULL, *ll = NULL;
	unsigned int i;

	if (!t) {
		snprintf(err, 256, "--sim-cache=host: hwloc could not load the topology");
		return -1;
	}
	for (i = 0; i < t->nr_caches; i++) {
		const struct mdb_cache_info *c = &t->cache[i];

		if (c->level == 1 && strcmp(c->type, "instruction"))
			d1 = c;
		else if (c->level == 1)
			i1 = c;
		else if (strcmp(c->type, "instruction") && (!ll || c->level > ll->level))
			ll = c;
	}
	if (!d1 || !ll) {
		snprintf(err, 256, "--sim-cache=host: hwloc shows no %s cache", d1 ? "L2 or L3" : "L1 data");
		return -1;
	}
	if (cache_arg(s->d1, sizeof(s->d1), d1, "L1 data cache", err) ||
	    cache_arg(s->i1, sizeof(s->i1), i1 ? i1 : d1, "L1 instruction cache", err) ||
	    cache_arg(s->ll, sizeof(s->ll), ll, "last level cache", err))
		return -1;
	return 0;
}

/*
 * The cache geometry: fixed unless --sim-cache=host (taken from our own
 * command line, like every other option the child repeats).
 */
static int choose_caches(struct sim *s, char *err)
{
	const char *v = NULL;
	int i;

	for (i = 1; i < s->ctx->argc; i++)
		if (!strncmp(s->ctx->argv[i], "--sim-cache=", 12))
			v = s->ctx->argv[i] + 12;
	if (!v || !strcmp(v, "fixed")) {
		s->cache_source = "fixed";
		snprintf(s->d1, sizeof(s->d1), SIM_FIXED_L1);
		snprintf(s->i1, sizeof(s->i1), SIM_FIXED_L1);
		snprintf(s->ll, sizeof(s->ll), SIM_FIXED_LL);
		return 0;
	}
	if (strcmp(v, "host")) {
		snprintf(err, 256, "--sim-cache=%s: fixed or host", v);
		return -1;
	}
	s->cache_source = "host";
	return host_caches(s, err);
}

static void remove_tmp(const struct sim *s)
{
	char path[PATH_MAX + 256];
	struct dirent *d;
	DIR *dir;

	if (!s->tmp[0])
		return;
	dir = opendir(s->tmp);
	if (dir) {
		while ((d = readdir(dir)))
			if (d->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", s->tmp, d->d_name);
				unlink(path);
			}
		closedir(dir);
	}
	rmdir(s->tmp);
}

static unsigned int sim_jobs(size_t nr)
{
	const char *env = getenv("MDB_SIM_JOBS");
	cpu_set_t set;
	long n = 1;

	if (env && *env)
		n = strtol(env, NULL, 10);
	else if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	if (n < 1)
		n = 1;
	return (unsigned int)((size_t)n < nr ? (size_t)n : nr);
}

/* ------------------------------------------------------------------ */
/* Children                                                             */

/*
 * The child gets the mixes the parent resolved, as JSON: a kpageflags
 * snapshot taken again, or a file edited meanwhile, would be another mix
 * under the same name.
 */
static int write_mixes(struct sim *s, char *err)
{
	size_t len = 16, i;
	char path[PATH_MAX + 32];
	FILE *f;

	for (i = 0; i < s->run->nr_mixes; i++)
		len += strlen(s->tmp) + 32;
	s->mix_arg = malloc(len);
	if (!s->mix_arg) {
		snprintf(err, 256, "out of memory");
		return -1;
	}
	strcpy(s->mix_arg, "--mix=");
	for (i = 0; i < s->run->nr_mixes; i++) {
		snprintf(path, sizeof(path), "%s/mix.%zu.json", s->tmp, i);
		f = fopen(path, "w");
		if (!f || mix_write_json(&s->run->mixes[i], f) | fclose(f)) {
			snprintf(err, 256, "cannot write %.200s", path);
			return -1;
		}
		sprintf(s->mix_arg + strlen(s->mix_arg), "%s%s", i ? "," : "", path);
	}
	return 0;
}

static bool child_drops(const char *arg)
{
	return is_option(arg, "--simulate") || is_option(arg, "--sim-cache") ||
	       is_option(arg, "--mix") ||
	       is_option(arg, "--sim-child") || is_option(arg, "--sim-ops") ||
	       is_option(arg, "--out") || is_option(arg, "--list") ||
	       !strncmp(arg, "--benchmark_", 12);
}

static void __attribute__((noreturn)) exec_child(const struct sim *s, size_t n)
{
	const struct sim_job *j = &s->job[n];
	char out[PATH_MAX + 64], log[PATH_MAX + 64], name[MDB_NAME_LEN + 32], ops[64];
	char d1[64], ll[64], i1[64];
	const char **argv = calloc((size_t)s->ctx->argc + 16, sizeof(*argv));
	int a = 0, i, fd;

	if (!argv)
		_exit(127);
	snprintf(out, sizeof(out), "--callgrind-out-file=%s/cg.%zu", s->tmp, n);
	snprintf(d1, sizeof(d1), "--D1=%s", s->d1);
	snprintf(i1, sizeof(i1), "--I1=%s", s->i1);
	snprintf(ll, sizeof(ll), "--LL=%s", s->ll);
	snprintf(name, sizeof(name), "--sim-child=%s", j->in->name);
	snprintf(ops, sizeof(ops), "--sim-ops=%llu", (unsigned long long)j->ops);
	argv[a++] = s->valgrind;
	argv[a++] = "-q";
	argv[a++] = "--tool=callgrind";
	argv[a++] = "--cache-sim=yes";
	argv[a++] = d1;
	argv[a++] = ll;
	argv[a++] = i1;
	argv[a++] = "--collect-atstart=no";
	argv[a++] = out;
	argv[a++] = s->exe;
	for (i = 1; i < s->ctx->argc; i++)
		if (!child_drops(s->ctx->argv[i]))
			argv[a++] = s->ctx->argv[i];
	if (s->run->nr_mixes)
		argv[a++] = s->mix_arg;
	argv[a++] = name;
	argv[a++] = ops;
	argv[a] = NULL;

	snprintf(log, sizeof(log), "%s/out.%zu", s->tmp, n);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
		dup2(fd, STDOUT_FILENO);
	snprintf(log, sizeof(log), "%s/err.%zu", s->tmp, n);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
		dup2(fd, STDERR_FILENO);
	execv(s->valgrind, (char *const *)argv);
	fprintf(stderr, "mdbench: cannot run %s: %s\n", s->valgrind, strerror(errno));
	_exit(127);
}

static int start_job(struct sim *s, size_t n)
{
	struct sim_job *j = &s->job[n];
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		exec_child(s, n);
	j->pid = pid;
	clock_gettime(CLOCK_MONOTONIC, &j->start);
	return 0;
}

/* The last line of a child's file that starts with prefix, without it. */
static bool last_line(const char *path, const char *prefix, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, len, "%s", line + strlen(prefix));
		found = true;
	}
	fclose(f);
	return found;
}

static void print_tail(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "  | %s", line);
	fclose(f);
}

/* "desc: D1 cache: 32768 B, 64 B, 8-way associative" -> the part after "cache: ". */
static void parse_desc(struct sim *s, const char *line)
{
	static const struct {
		const char *prefix;
		size_t offset;
	} descs[] = {
		{ "desc: I1 cache: ", offsetof(struct sim, desc_i1) },
		{ "desc: D1 cache: ", offsetof(struct sim, desc_d1) },
		{ "desc: LL cache: ", offsetof(struct sim, desc_ll) },
	};
	unsigned int i;

	for (i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		if (!strncmp(line, descs[i].prefix, strlen(descs[i].prefix)))
			snprintf((char *)s + descs[i].offset, sizeof(s->desc_d1), "%.*s",
				 (int)strcspn(line + strlen(descs[i].prefix), "\n"),
				 line + strlen(descs[i].prefix));
}

/*
 * One dump part: its trigger must name the kernel, then "events:" gives
 * the column order of "summary:".  0, or -1 if this part is not it.
 */
static int parse_part(struct sim *s, struct sim_job *j, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096], trigger[MDB_NAME_LEN + 64], *p, *end;
	int col[32], nr_col = 0, c, e, found = -1;
	bool ours = false;

	if (!f)
		return -1;
	snprintf(trigger, sizeof(trigger), "desc: Trigger: Client Request: %s\n", j->in->name);
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, trigger))
			ours = true;
		else if (!strncmp(line, "desc: ", 6))
			parse_desc(s, line);
		else if (!strncmp(line, "events:", 7)) {
			nr_col = 0;
			for (p = strtok(line + 7, " \n"); p && nr_col < 32; p = strtok(NULL, " \n")) {
				col[nr_col] = -1;
				for (e = 0; e < EV_NR; e++)
					if (!strcmp(p, sim_event_name[e]))
						col[nr_col] = e;
				nr_col++;
			}
		} else if (ours && !strncmp(line, "summary:", 8)) {
			memset(j->ev, 0, sizeof(j->ev));
			p = line + 8;
			for (c = 0; c < nr_col; c++) {
				unsigned long long v = strtoull(p, &end, 10);

				if (end == p)
					break;	/* trailing zero columns may be left out */
				if (col[c] >= 0)
					j->ev[col[c]] = v;
				p = end;
			}
			found = 0;
			break;
		}
	}
	fclose(f);
	return found;
}

static int parse_dump(struct sim *s, struct sim_job *j, size_t n)
{
	char prefix[32], path[PATH_MAX + 256];
	struct dirent *d;
	int ret = -1;
	DIR *dir;

	snprintf(prefix, sizeof(prefix), "cg.%zu", n);
	dir = opendir(s->tmp);
	if (!dir)
		return -1;
	while (ret && (d = readdir(dir))) {
		size_t len = strlen(prefix);

		if (strncmp(d->d_name, prefix, len) || (d->d_name[len] && d->d_name[len] != '.'))
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->tmp, d->d_name);
		ret = parse_part(s, j, path);
	}
	closedir(dir);
	return ret;
}

static void model_job(const struct sim *s, struct sim_job *j)
{
	const struct mdb_instance *in = j->in;

	j->has_model = in->ops && (in->kernel->flags & MDB_K_SEQUENTIAL) &&
		       model_d1_misses(in->kernel->name, in->ops, in->mix, in->nr_pfns,
				       s->run->opts.seed, &j->model);
}

/* 0 if the job counts as done (ran, or the kernel said why not); -1 failed. */
static int finish_job(struct sim *s, size_t n, int status)
{
	struct sim_job *j = &s->job[n];
	char path[PATH_MAX + 64], buf[64];
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	j->seconds = (double)(now.tv_sec - j->start.tv_sec) + (now.tv_nsec - j->start.tv_nsec) / 1e9;
	j->pid = -1;
	j->done = true;
	snprintf(path, sizeof(path), "%s/err.%zu", s->tmp, n);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
		if (!last_line(path, "mdbench: ", j->error, sizeof(j->error)))
			snprintf(j->error, sizeof(j->error), "the kernel failed without a reason");
		return 0;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (WIFSIGNALED(status))
			snprintf(j->error, sizeof(j->error), "valgrind killed by signal %d", WTERMSIG(status));
		else
			snprintf(j->error, sizeof(j->error), "valgrind exited with status %d",
				 WEXITSTATUS(status));
		fprintf(stderr, "mdbench: %s: %s; its stderr:\n", j->in->name, j->error);
		print_tail(path);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/out.%zu", s->tmp, n);
	if (!last_line(path, "mdb-sim items=", buf, sizeof(buf)) ||
	    !(j->items = strtoull(buf, NULL, 10))) {
		snprintf(j->error, sizeof(j->error), "the child reported no items processed");
		fprintf(stderr, "mdbench: %s: %s\n", j->in->name, j->error);
		return -1;
	}
	if (parse_dump(s, j, n)) {
		snprintf(j->error, sizeof(j->error), "no callgrind dump part for the kernel");
		fprintf(stderr, "mdbench: %s: %s\n", j->in->name, j->error);
		return -1;
	}
	j->ran = true;
	model_job(s, j);
	return 0;
}

/* ------------------------------------------------------------------ */
/* sim.json                                                             */

static double per_op(const struct sim_job *j, uint64_t v)
{
	return (double)v / (double)j->items;
}

/* What the name carries beyond kernel and layout: "mix:desktop ram:1GiB". */
static void name_rest(const struct mdb_instance *in, char *buf, size_t len)
{
	const char *rest = in->name + strlen(in->kernel->name);
	char *p;

	if (*rest == '/')
		rest++;
	if (in->ops && !strncmp(rest, in->ops->name, strlen(in->ops->name)))
		rest += strlen(in->ops->name) + (rest[strlen(in->ops->name)] == '/');
	snprintf(buf, len, "%s", rest);
	for (p = buf; *p; p++)
		if (*p == '/')
			*p = ' ';
}

static void write_job(FILE *f, const struct sim_job *j)
{
	const struct mdb_instance *in = j->in;

	fputs("    {\n      \"name\": ", f);
	mdb_json_string(f, in->name);
	fputs(",\n      \"run_name\": ", f);
	mdb_json_string(f, in->name);
	fputs(",\n      \"run_type\": \"simulation\",\n      \"repetitions\": 1,"
	      "\n      \"repetition_index\": 0,\n      \"threads\": 1,\n      \"kernel\": ", f);
	mdb_json_string(f, in->kernel->name);
	fputs(",\n      \"layout\": ", f);
	mdb_json_string(f, in->ops ? in->ops->name : NULL);
	fputs(",\n      \"mix\": ", f);
	mdb_json_string(f, in->mix ? in->mix->name : NULL);
	if (in->ops)
		fprintf(f, ",\n      \"ram_bytes\": %zu", in->ram_bytes);
	else
		fprintf(f, ",\n      \"buf_bytes\": %zu", in->buf_bytes);
	fprintf(f, ",\n      \"sim_ops\": %llu", (unsigned long long)j->ops);
	if (!j->ran) {
		fputs(",\n      \"error_occurred\": true,\n      \"error_message\": ", f);
		mdb_json_string(f, j->error);
		fputs("\n    }", f);
		return;
	}
	fprintf(f, ",\n      \"iterations\": %llu", (unsigned long long)j->items);
	fprintf(f, ",\n      \"sim_instructions\": %.6f", per_op(j, j->ev[EV_Ir]));
	fprintf(f, ",\n      \"sim_data_reads\": %.6f", per_op(j, j->ev[EV_Dr]));
	fprintf(f, ",\n      \"sim_data_writes\": %.6f", per_op(j, j->ev[EV_Dw]));
	fprintf(f, ",\n      \"sim_D1_misses\": %.6f", per_op(j, j->ev[EV_D1mr] + j->ev[EV_D1mw]));
	fprintf(f, ",\n      \"sim_D1_read_misses\": %.6f", per_op(j, j->ev[EV_D1mr]));
	fprintf(f, ",\n      \"sim_D1_write_misses\": %.6f", per_op(j, j->ev[EV_D1mw]));
	fprintf(f, ",\n      \"sim_LL_misses\": %.6f", per_op(j, j->ev[EV_DLmr] + j->ev[EV_DLmw]));
	fprintf(f, ",\n      \"sim_I1_misses\": %.6f", per_op(j, j->ev[EV_I1mr]));
	if (j->has_model)
		fprintf(f, ",\n      \"model_D1_misses\": %.6f", j->model);
	fputs(",\n      \"sim_totals\": {", f);
	for (int e = 0; e < EV_NR; e++)
		fprintf(f, "%s \"%s\": %llu", e ? "," : "", sim_event_name[e],
			(unsigned long long)j->ev[e]);
	fputs(" }\n    }", f);
}

/* Distinct kernels in order, with the ops each runs. */
static void write_ops(FILE *f, const struct sim *s)
{
	size_t i, k;
	bool first = true;

	fputs("{", f);
	for (i = 0; i < s->nr_job; i++) {
		for (k = 0; k < i && strcmp(s->job[k].in->kernel->name, s->job[i].in->kernel->name); k++)
			;
		if (k < i)
			continue;
		fprintf(f, "%s\n          ", first ? "" : ",");
		mdb_json_string(f, s->job[i].in->kernel->name);
		fprintf(f, ": %llu", (unsigned long long)s->job[i].ops);
		first = false;
	}
	fputs("\n        }", f);
}

static void write_simulation(FILE *f, const struct sim *s)
{
	fputs("{\n        \"tool\": ", f);
	mdb_json_string(f, s->tool);
	fputs(",\n        \"cache\": ", f);
	mdb_json_string(f, s->cache_source);
	fprintf(f, ",\n        \"D1\": \"%s\",\n        \"LL\": \"%s\",\n        \"I1\": \"%s\"", s->d1,
		s->ll, s->i1);
	fputs(",\n        \"D1_simulated\": ", f);
	mdb_json_string(f, s->desc_d1[0] ? s->desc_d1 : NULL);
	fputs(",\n        \"LL_simulated\": ", f);
	mdb_json_string(f, s->desc_ll[0] ? s->desc_ll : NULL);
	fputs(",\n        \"I1_simulated\": ", f);
	mdb_json_string(f, s->desc_i1[0] ? s->desc_i1 : NULL);
	fprintf(f, ",\n        \"per_op\": \"items\",\n        \"selected\": %zu,\n        \"finished\": %zu",
		s->nr_job, s->nr_done);
	fputs(",\n        \"ops\": ", f);
	write_ops(f, s);
	fputs("\n      }", f);
}

/* The harness's memdesc_bench object, with "simulation" added as its last member. */
static int write_context(FILE *f, const struct sim *s, bool complete)
{
	char host[256] = "", date[64] = "";
	time_t now = time(NULL);
	size_t len;
	char *obj;

	obj = mdb_dump_context_json(complete, (void *)s->ctx);
	if (!obj)
		return -1;
	/* Cut at the closing brace and the white space before it. */
	len = strlen(obj);
	while (len && obj[len - 1] != '}')
		len--;
	if (!len) {
		free(obj);
		return -1;
	}
	len--;
	while (len && (obj[len - 1] == ' ' || obj[len - 1] == '\n'))
		len--;
	gethostname(host, sizeof(host) - 1);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S%z", localtime(&now));
	fputs("{\n  \"context\": {\n    \"date\": ", f);
	mdb_json_string(f, date);
	fputs(",\n    \"host_name\": ", f);
	mdb_json_string(f, host);
	fputs(",\n    \"executable\": ", f);
	mdb_json_string(f, s->exe);
	fprintf(f, ",\n    \"num_cpus\": %ld,\n    \"memdesc_bench\": %.*s,\n      \"simulation\": ",
		sysconf(_SC_NPROCESSORS_ONLN), (int)len, obj);
	write_simulation(f, s);
	fputs("\n    }\n  },\n", f);
	free(obj);
	return 0;
}

static int write_json(const struct sim *s, bool complete)
{
	char tmp[PATH_MAX + 16];
	bool first = true;
	size_t i;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", s->out);
	f = fopen(tmp, "w");
	if (!f)
		goto fail;
	if (write_context(f, s, complete)) {
		fclose(f);
		goto fail;
	}
	fputs("  \"benchmarks\": [", f);
	for (i = 0; i < s->nr_job; i++) {
		if (!s->job[i].done || (!s->job[i].ran && !s->job[i].error[0]))
			continue;
		fputs(first ? "\n" : ",\n", f);
		write_job(f, &s->job[i]);
		first = false;
	}
	fputs(first ? "]\n}\n" : "\n  ]\n}\n", f);
	if (ferror(f) | fclose(f))
		goto fail;
	if (rename(tmp, s->out))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "mdbench: cannot write %s: %s\n", s->out, strerror(errno));
	unlink(tmp);
	return -1;
}

static void progress(const struct sim *s, const struct sim_job *j)
{
	char rest[MDB_NAME_LEN];

	name_rest(j->in, rest, sizeof(rest));
	fprintf(stderr, "[%zu/%zu] %s %s%s%s: ", s->nr_done, s->nr_job, j->in->kernel->name,
		j->in->ops ? j->in->ops->name : "", j->in->ops ? " " : "", rest);
	if (!j->ran) {
		fprintf(stderr, "%s (%.1f s)\n", j->error, j->seconds);
		return;
	}
	fprintf(stderr, "%.3f D1, %.3f LL misses/op", per_op(j, j->ev[EV_D1mr] + j->ev[EV_D1mw]),
		per_op(j, j->ev[EV_DLmr] + j->ev[EV_DLmw]));
	if (j->has_model)
		fprintf(stderr, " (model %.3f)", j->model);
	fprintf(stderr, ", %.0f instr/op (%.1f s)\n", per_op(j, j->ev[EV_Ir]), j->seconds);
}

/* ------------------------------------------------------------------ */

static int sim_setup(struct sim *s, const struct mdb_dump_ctx *ctx)
{
	const struct mdb_run *run = ctx->run;
	char err[256], vg[PATH_MAX], cmd[PATH_MAX + 32];
	const char *tmpdir = getenv("TMPDIR");
	ssize_t n;
	size_t i;
	FILE *p;

	s->ctx = ctx;
	s->run = run;
	if (!run->out_dir) {
		fprintf(stderr, "mdbench: --simulate needs --out=DIR for its sim.json\n");
		return 2;
	}
	s->valgrind = find_in_path("valgrind", vg, sizeof(vg));
	if (!s->valgrind) {
		fprintf(stderr, "mdbench: --simulate needs valgrind, which is not in PATH "
			"(Debian: apt-get install valgrind)\n");
		return 2;
	}
	s->valgrind = strdup(vg);
	n = readlink("/proc/self/exe", s->exe, sizeof(s->exe) - 1);
	if (n > 0)
		s->exe[n] = '\0';
	else
		snprintf(s->exe, sizeof(s->exe), "%s", ctx->argv[0]);
	if (!s->valgrind) {
		fprintf(stderr, "mdbench: out of memory\n");
		return 2;
	}
	if (choose_caches(s, err) || mdb_make_out_dir(run->out_dir, err, sizeof(err))) {
		fprintf(stderr, "mdbench: %s\n", err);
		return 2;
	}
	snprintf(cmd, sizeof(cmd), "'%s' --version 2>/dev/null", s->valgrind);
	p = popen(cmd, "r");
	if (!p || !fgets(s->tool, sizeof(s->tool), p))
		snprintf(s->tool, sizeof(s->tool), "valgrind");
	if (p)
		pclose(p);
	s->tool[strcspn(s->tool, "\n")] = '\0';
	snprintf(s->tool + strlen(s->tool), sizeof(s->tool) - strlen(s->tool), " callgrind");
	snprintf(s->out, sizeof(s->out), "%s/sim.json", run->out_dir);
	snprintf(s->tmp, sizeof(s->tmp), "%s/mdbench-sim.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(s->tmp)) {
		fprintf(stderr, "mdbench: --simulate: cannot make a directory %s: %s\n", s->tmp,
			strerror(errno));
		s->tmp[0] = '\0';
		return 2;
	}
	if (write_mixes(s, err)) {
		fprintf(stderr, "mdbench: --simulate: %s\n", err);
		return 2;
	}

	s->job = calloc(run->nr_inst ? run->nr_inst : 1, sizeof(*s->job));
	if (!s->job) {
		fprintf(stderr, "mdbench: out of memory\n");
		return 2;
	}
	for (i = 0; i < run->nr_inst; i++) {
		const struct mdb_instance *in = &run->inst[i];

		if (!mdb_filter_match(run->filter, in->name))
			continue;
		s->job[s->nr_job].in = in;
		s->job[s->nr_job].ops = in->kernel->sim_ops ? in->kernel->sim_ops : 1 << 16;
		s->nr_job++;
	}
	return 0;
}

static void sim_release(struct sim *s)
{
	remove_tmp(s);
	free(s->job);
	free(s->mix_arg);
	free((void *)s->valgrind);
}

static void catch_signals(bool on)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? sim_on_signal : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void kill_running(struct sim *s)
{
	size_t i;

	for (i = 0; i < s->nr_job; i++)
		if (s->job[i].pid > 0) {
			kill(s->job[i].pid, SIGTERM);
			waitpid(s->job[i].pid, NULL, 0);
			s->job[i].pid = -1;
		}
}

int mdb_simulate(const struct mdb_dump_ctx *ctx)
{
	struct sim s = { 0 };
	size_t next = 0, running = 0, i;
	unsigned int jobs;
	int ret, status;
	pid_t pid;

	ret = sim_setup(&s, ctx);
	if (ret) {
		sim_release(&s);
		return ret;
	}
	jobs = sim_jobs(s.nr_job);
	fprintf(stderr, "mdbench: simulating %zu benchmarks under %s (D1 %s, LL %s, %s), %u at a time\n",
		s.nr_job, s.tool, s.d1, s.ll, s.cache_source, jobs);
	catch_signals(true);
	while (!sim_stop && (next < s.nr_job || running)) {
		while (!sim_stop && running < jobs && next < s.nr_job) {
			if (start_job(&s, next)) {
				fprintf(stderr, "mdbench: cannot fork: %s\n", strerror(errno));
				sim_stop = -1;
				break;
			}
			next++;
			running++;
		}
		if (!running)
			break;
		pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < s.nr_job && s.job[i].pid != pid; i++)
			;
		if (i == s.nr_job)
			continue;
		running--;
		if (sim_stop) {		/* it got the signal too: not a result */
			s.job[i].pid = -1;
			continue;
		}
		s.nr_done++;
		if (finish_job(&s, i, status))
			s.nr_failed++;
		progress(&s, &s.job[i]);
		if (write_json(&s, s.nr_done == s.nr_job))
			s.nr_failed++;
	}
	catch_signals(false);
	if (sim_stop > 0) {
		kill_running(&s);
		fprintf(stderr, "mdbench: interrupted, %zu of %zu simulations kept in %s\n", s.nr_done,
			s.nr_job, s.out);
		ret = 128 + sim_stop;
	} else if (sim_stop) {
		kill_running(&s);
		ret = 1;
	} else if (s.nr_failed) {
		fprintf(stderr, "mdbench: %zu of %zu simulations failed\n", s.nr_failed, s.nr_job);
		ret = 1;
	} else {
		fprintf(stderr, "mdbench: %zu simulations written to %s\n", s.nr_job, s.out);
	}
	if (!s.nr_done && !sim_stop)
		write_json(&s, true);
	sim_release(&s);
	return ret;
}
