// SPDX-License-Identifier: GPL-2.0
/*
 * sim.c - --simulate, the parent: every selected benchmark, a fixed number
 * of ops, under valgrind's callgrind with its cache simulator.
 *
 * For each instance the parent writes its description (sim_child.c) and
 * runs
 *	valgrind --tool=callgrind --cache-sim=yes --D1=.. --LL=.. --I1=..
 *		--collect-atstart=no --callgrind-out-file=TMP/cg.N
 *		mdbench --sim-instance=TMP/inst.N.json
 * then reads the dump part named for the instance (callgrind.c) and
 * rewrites OUT/sim.json (atomically) after every instance, so an
 * interrupted run keeps what finished.  The cache geometry is, where the
 * run knows its headline size, the regime's (regime_caches(): fixed L1s,
 * an LL that the simulated RAM is as many times as the native headline's
 * RAM is its last-level cache); --sim-cache=fixed is the same everywhere
 * (D1 32 KiB, LL 8 MiB), --sim-cache=host takes L1d and the last level from
 * hwloc.  Children run in
 * parallel, one per CPU this process may use (MDB_SIM_JOBS=N to choose),
 * each in a process group of its own that the parent kills on a signal,
 * and each dies with the parent (PR_SET_PDEATHSIG) even if the parent is
 * killed outright.  TMP is OUT/.mdbench-sim.XXXXXX: the run holds OUT's
 * lock, so any such directory found there is an earlier run's and goes.
 */
#define _GNU_SOURCE		/* strchrnul, sched_getaffinity */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "callgrind.h"
#include "interrupt.h"
#include "jsonio.h"
#include "mdbench.h"
#include "model.h"
#include "units.h"

/* A fixed, typical geometry: 32 KiB 8-way L1s, an 8 MiB 16-way last level. */
#define SIM_FIXED_L1	"32768,8,64"
#define SIM_FIXED_LL	"8388608,16,64"
#define SIM_TMP_PREFIX	".mdbench-sim."
#define SIM_REGIME_LL_MIN	(64ULL << 10)	/* twice the D1 */
#define SIM_REGIME_LL_MAX	(1ULL << 30)

struct sim_job {
	const struct mdb_instance *in;
	uint64_t ops;			/* asked for */
	pid_t pid;			/* 0: not started; -1: finished */
	struct timespec start;
	double seconds;
	bool done, ran;			/* ran: the kernel's ops were counted */
	uint64_t items;
	struct cg_result cg;
	bool has_model;
	struct model_lines model;
	char error[MDB_ERR_LEN];	/* the kernel's own reason when !ran */
};

struct sim {
	struct mdb_run *run;
	const char *valgrind;
	char exe[PATH_MAX];
	char tmp[PATH_MAX];
	char out[PATH_MAX];
	const char *cache_source;	/* "regime", "fixed" or "host" */
	double native_ratio;		/* the native headline's RAM over its LLC; 0: none */
	char i1[48], d1[48], ll[48];	/* valgrind's option values */
	char tool[64];
	struct sim_job *job;
	size_t nr_job, nr_done, nr_failed;
	bool write_failed;
};

/* ------------------------------------------------------------------ */
/* Set-up                                                               */

static char *find_in_path(const char *prog)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[PATH_MAX];

	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (end == p)
			continue;
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p), p, prog);
		if (!access(buf, X_OK))
			return strdup(buf);
	}
	return NULL;
}

/* "32768,8,64" from hwloc's view of one cache. */
static int cache_arg(char *buf, size_t len, const struct mdb_cache_info *c, const char *what,
		     struct mdb_err *err)
{
	int ways = c->associativity;

	if (!c->size || !c->line_size)
		return mdb_errf(err, "--sim-cache=host: hwloc gives no size or line size for the %s",
				what);
	if (ways < 0)
		ways = (int)(c->size / c->line_size);
	if (!ways)
		return mdb_errf(err, "--sim-cache=host: hwloc does not know the associativity of "
				"the %s", what);
	snprintf(buf, len, "%llu,%d,%u", c->size, ways, c->line_size);
	return 0;
}

static int host_caches(struct sim *s, struct mdb_err *err)
{
	const struct mdb_topology *t = &s->run->topo;
	const struct mdb_cache_info *d1 = NULL, *i1 = NULL, *ll = NULL;
	unsigned int i;

	for (i = 0; i < t->nr_caches; i++) {
		const struct mdb_cache_info *c = &t->cache[i];

		if (c->level == 1 && strcmp(c->type, "instruction"))
			d1 = c;
		else if (c->level == 1)
			i1 = c;
		else if (strcmp(c->type, "instruction") && (!ll || c->level > ll->level))
			ll = c;
	}
	if (!d1 || !ll)
		return mdb_errf(err, "--sim-cache=host: hwloc shows no %s cache",
				d1 ? "L2 or L3" : "L1 data");
	if (cache_arg(s->d1, sizeof(s->d1), d1, "L1 data cache", err) ||
	    cache_arg(s->i1, sizeof(s->i1), i1 ? i1 : d1, "L1 instruction cache", err) ||
	    cache_arg(s->ll, sizeof(s->ll), ll, "last level cache", err))
		return -1;
	return 0;
}

/* The largest RAM of the instances simulated. */
static uint64_t sim_ram(const struct sim *s)
{
	uint64_t ram = 0;
	size_t i;

	for (i = 0; i < s->nr_job; i++)
		ram = s->job[i].in->cond.ram_bytes > ram ? s->job[i].in->cond.ram_bytes : ram;
	return ram;
}

/*
 * --sim-cache=regime: the fixed L1s and a 16-way LL of the power of two
 * nearest RAM x LLC / headline RAM, so that the simulated RAM is over the
 * LL what the native headline's is over the machine's last-level cache:
 * the same regime (whose metadata fits the cache, whose passes it) at a
 * RAM valgrind can build.  No smaller than twice the D1.
 */
static void regime_caches(struct sim *s)
{
	uint64_t ram = sim_ram(s), ll = SIM_REGIME_LL_MIN;
	double want = (double)ram / s->native_ratio;

	if (want > (double)SIM_REGIME_LL_MAX)
		ll = SIM_REGIME_LL_MAX;
	else if (want > (double)SIM_REGIME_LL_MIN)
		ll = 1ULL << lround(log2(want));
	s->cache_source = "regime";
	snprintf(s->d1, sizeof(s->d1), SIM_FIXED_L1);
	snprintf(s->i1, sizeof(s->i1), SIM_FIXED_L1);
	snprintf(s->ll, sizeof(s->ll), "%llu,16,64", (unsigned long long)ll);
}

/* The cache geometry: regime where the headline is known, unless --sim-cache says otherwise. */
static int choose_caches(struct sim *s, struct mdb_err *err)
{
	const struct mdb_machine *mc = &s->run->machine;
	const char *v = NULL;
	int i;

	for (i = 1; i < s->run->argc; i++)
		if (!strncmp(s->run->argv[i], "--sim-cache=", 12))
			v = s->run->argv[i] + 12;
	s->native_ratio = mc->headline_ram && mc->llc_bytes ?
			  (double)mc->headline_ram / (double)mc->llc_bytes : 0;
	if (s->run->sim_regime && (!s->native_ratio || !sim_ram(s)))
		return mdb_errf(err, "--simulate in the headline's regime: %s",
				s->native_ratio ? "no modelled RAM to simulate" :
				"no headline size known to take it from (--sim-cache=fixed)");
	if (s->run->sim_regime) {
		regime_caches(s);
		return 0;
	}
	if (!v || !strcmp(v, "fixed")) {
		s->cache_source = "fixed";
		snprintf(s->d1, sizeof(s->d1), SIM_FIXED_L1);
		snprintf(s->i1, sizeof(s->i1), SIM_FIXED_L1);
		snprintf(s->ll, sizeof(s->ll), SIM_FIXED_LL);
		return 0;
	}
	s->cache_source = "host";
	return host_caches(s, err);
}

static void remove_tree(const char *dir)
{
	char path[PATH_MAX + 256];
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (dp) {
		while ((d = readdir(dp)))
			if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
				snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
				unlink(path);
			}
		closedir(dp);
	}
	rmdir(dir);
}

/* Temporary directories an earlier, killed run left in OUT (we hold its lock). */
static void remove_stale_tmp(const char *out_dir)
{
	char path[PATH_MAX + 256];
	struct dirent *d;
	DIR *dp = opendir(out_dir);

	if (!dp)
		return;
	while ((d = readdir(dp)))
		if (!strncmp(d->d_name, SIM_TMP_PREFIX, strlen(SIM_TMP_PREFIX))) {
			snprintf(path, sizeof(path), "%s/%s", out_dir, d->d_name);
			remove_tree(path);
		}
	closedir(dp);
}

static unsigned int sim_jobs(size_t nr)
{
	const char *env = getenv("MDB_SIM_JOBS");
	struct mdb_err err;
	cpu_set_t set;
	uint64_t n = 1;

	if (env && *env) {
		if (mdb_parse_u64(env, 1024, &n, "MDB_SIM_JOBS", &err) || !n)
			mdb_dief("MDB_SIM_JOBS=%s: want a number of jobs from 1 to 1024", env);
	} else if (!sched_getaffinity(0, sizeof(set), &set)) {
		n = (uint64_t)CPU_COUNT(&set);
	}
	return (unsigned int)(n < nr ? n : nr);
}

static void valgrind_version(struct sim *s)
{
	char cmd[PATH_MAX + 32];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' --version 2>/dev/null", s->valgrind);
	p = popen(cmd, "r");
	if (!p || !fgets(s->tool, sizeof(s->tool), p))
		snprintf(s->tool, sizeof(s->tool), "valgrind");
	if (p)
		pclose(p);
	s->tool[strcspn(s->tool, "\n")] = '\0';
	snprintf(s->tool + strlen(s->tool), sizeof(s->tool) - strlen(s->tool), " callgrind");
}

static int sim_setup(struct sim *s, struct mdb_run *run, struct mdb_err *err)
{
	ssize_t n;
	size_t i;

	s->run = run;
	s->valgrind = find_in_path("valgrind");
	if (!s->valgrind)
		return mdb_errf(err, "--simulate needs valgrind, which is not in PATH (scripts/setup "
				"installs it)");
	n = readlink("/proc/self/exe", s->exe, sizeof(s->exe) - 1);
	if (n <= 0)
		return mdb_errf(err, "--simulate: cannot find this program (/proc/self/exe)");
	s->exe[n] = '\0';
	valgrind_version(s);
	snprintf(s->out, sizeof(s->out), "%s/sim.json", run->out_dir);
	remove_stale_tmp(run->out_dir);
	snprintf(s->tmp, sizeof(s->tmp), "%s/" SIM_TMP_PREFIX "XXXXXX", run->out_dir);
	if (!mkdtemp(s->tmp)) {
		s->tmp[0] = '\0';
		return mdb_errf(err, "--simulate: cannot make a directory in %s: %s", run->out_dir,
				strerror(errno));
	}
	s->job = calloc(run->nr_inst ? run->nr_inst : 1, sizeof(*s->job));
	if (!s->job)
		return mdb_errf(err, "out of memory");
	for (i = 0; i < run->nr_inst; i++) {
		const struct mdb_instance *in = &run->inst[i];

		if (!in->selected)
			continue;
		s->job[s->nr_job].in = in;
		s->job[s->nr_job].ops = in->kernel->sim_ops ? in->kernel->sim_ops : 1 << 16;
		s->nr_job++;
	}
	return choose_caches(s, err);
}

static void sim_release(struct sim *s)
{
	if (s->tmp[0])
		remove_tree(s->tmp);
	free(s->job);
	free((void *)s->valgrind);
}

/* ------------------------------------------------------------------ */
/* Children                                                             */

static void __attribute__((noreturn)) exec_child(const struct sim *s, size_t n, pid_t parent)
{
	char out[PATH_MAX + 64], path[PATH_MAX + 64], inst[PATH_MAX + 64];
	char d1[64], ll[64], i1[64];
	const char *argv[16];
	int a = 0, fd;

	/*
	 * Die with the parent, and be killed as a group (valgrind and its tool).
	 * A parent killed between fork() and prctl() sends nothing: then the
	 * child's parent is another already, and it goes at once.
	 */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	setpgid(0, 0);
	/*
	 * valgrind keeps files of its own in TMPDIR (valgrind_proc_PID_cmdline,
	 * _auxv) and removes them only if it exits: a child killed on an
	 * interrupt would leave them in the user's /tmp.  In TMP they go with it.
	 */
	setenv("TMPDIR", s->tmp, 1);
	snprintf(out, sizeof(out), "--callgrind-out-file=%s/cg.%zu", s->tmp, n);
	snprintf(d1, sizeof(d1), "--D1=%s", s->d1);
	snprintf(i1, sizeof(i1), "--I1=%s", s->i1);
	snprintf(ll, sizeof(ll), "--LL=%s", s->ll);
	snprintf(inst, sizeof(inst), "--sim-instance=%s/inst.%zu.json", s->tmp, n);
	argv[a++] = s->valgrind;
	argv[a++] = "-q";
	argv[a++] = "--vgdb=no";	/* no gdbserver, no pipes of its own in TMPDIR */
	argv[a++] = "--tool=callgrind";
	argv[a++] = "--cache-sim=yes";
	argv[a++] = d1;
	argv[a++] = ll;
	argv[a++] = i1;
	argv[a++] = "--collect-atstart=no";
	argv[a++] = out;
	argv[a++] = s->exe;
	argv[a++] = inst;
	argv[a] = NULL;

	snprintf(path, sizeof(path), "%s/err.%zu", s->tmp, n);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
	}
	execv(s->valgrind, (char *const *)argv);
	fprintf(stderr, "mdbench: cannot run %s: %s\n", s->valgrind, strerror(errno));
	_exit(127);
}

static int start_job(struct sim *s, size_t n, struct mdb_err *err)
{
	struct sim_job *j = &s->job[n];
	char path[PATH_MAX + 64], result[PATH_MAX + 64];
	json_t *inst;
	pid_t pid, parent;
	int ret;

	snprintf(path, sizeof(path), "%s/inst.%zu.json", s->tmp, n);
	snprintf(result, sizeof(result), "%s/result.%zu.json", s->tmp, n);
	inst = mdb_instance_json(s->run, j->in, j->ops);
	json_object_set_new(inst, "result", json_string(result));
	if (j->in->cond.mix && j->in->cond.mix->placed) {	/* a snapshot's placement, beside */
		char placed[PATH_MAX + 64];

		snprintf(placed, sizeof(placed), "%s/placed.%zu", s->tmp, n);
		if (mix_placed_save(j->in->cond.mix, placed, err)) {
			json_decref(inst);
			return -1;
		}
		json_object_set_new(inst, "placed", json_string(placed));
	}
	ret = mdb_json_write(path, inst, err);
	json_decref(inst);
	if (ret)
		return -1;
	fflush(NULL);
	parent = getpid();
	pid = fork();
	if (pid < 0)
		return mdb_errf(err, "cannot fork: %s", strerror(errno));
	if (!pid)
		exec_child(s, n, parent);
	setpgid(pid, pid);	/* as the child does: whichever runs first */
	j->pid = pid;
	clock_gettime(CLOCK_MONOTONIC, &j->start);
	return 0;
}

static void print_log(const struct sim *s, size_t n)
{
	char path[PATH_MAX + 64], line[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/err.%zu", s->tmp, n);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "  | %s", line);
	fclose(f);
}

/* {"items": N} or {"error": reason} from the child; -1 if neither. */
static int read_result(const struct sim *s, size_t n, struct sim_job *j)
{
	char path[PATH_MAX + 64];
	struct mdb_err err;
	json_t *doc, *v;
	int ret = -1;

	snprintf(path, sizeof(path), "%s/result.%zu.json", s->tmp, n);
	doc = mdb_json_load_file(path, 1 << 16, &err);
	if (!doc)
		return -1;
	if ((v = json_object_get(doc, "error")) && json_is_string(v)) {
		snprintf(j->error, sizeof(j->error), "%s", json_string_value(v));
		ret = 0;
	} else if ((v = json_object_get(doc, "items")) && json_is_integer(v) &&
		   json_integer_value(v) > 0) {
		j->items = (uint64_t)json_integer_value(v);
		ret = 1;
	}
	json_decref(doc);
	return ret;
}

/* 0 if the job counts as done (ran, or the kernel said why not); -1 failed. */
static int finish_job(struct sim *s, size_t n, int status)
{
	struct sim_job *j = &s->job[n];
	struct timespec now;
	struct mdb_err err;
	char base[32];
	int got;

	clock_gettime(CLOCK_MONOTONIC, &now);
	j->seconds = (double)(now.tv_sec - j->start.tv_sec) + (now.tv_nsec - j->start.tv_nsec) / 1e9;
	j->pid = -1;
	j->done = true;
	got = read_result(s, n, j);
	if (!WIFEXITED(status) || got < 0 || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3)) {
		if (WIFSIGNALED(status))
			snprintf(j->error, sizeof(j->error), "valgrind killed by signal %d",
				 WTERMSIG(status));
		else
			snprintf(j->error, sizeof(j->error), "valgrind exited with status %d and no result",
				 WEXITSTATUS(status));
		fprintf(stderr, "mdbench: %s: %s; its output:\n", j->in->name, j->error);
		print_log(s, n);
		return -1;
	}
	if (!got)
		return 0;	/* the kernel's own error, in j->error */
	snprintf(base, sizeof(base), "cg.%zu", n);
	if (cg_parse_dump(s->tmp, base, j->in->name, &j->cg, &err) != 1) {
		snprintf(j->error, sizeof(j->error), "no callgrind dump part for the kernel");
		fprintf(stderr, "mdbench: %s: %s\n", j->in->name, j->error);
		return -1;
	}
	j->ran = true;
	j->has_model = j->in->cond.ops && model_predict(j->in->kernel->model, j->in->cond.ops,
							 j->in->cond.mix, j->in->cond.nr_pfns,
							 &j->in->cond.opts, &j->model);
	return 0;
}

/* ------------------------------------------------------------------ */
/* sim.json                                                             */

static double per_op(const struct sim_job *j, uint64_t v)
{
	return (double)v / (double)j->items;
}

static json_t *job_json(const struct sim_job *j)
{
	const struct mdb_instance *in = j->in;
	const uint64_t *ev = j->cg.ev;
	json_t *o, *totals;
	int e;

	o = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:o, s:o, s:I}", "name", in->name,
		      "run_name", in->name, "run_type", "simulation", "repetitions", 1,
		      "repetition_index", 0, "threads", 1, "kernel", in->kernel->name,
		      "layout", in->cond.ops ? json_string(in->cond.ops->name) : json_null(),
		      "mix", in->cond.mix ? json_string(in->cond.mix->name) : json_null(),
		      "sim_ops", (json_int_t)j->ops);
	json_object_set_new(o, in->cond.ops ? "ram_bytes" : "buf_bytes",
			    json_integer((json_int_t)(in->cond.ops ? in->cond.ram_bytes : in->buf_bytes)));
	if (!j->ran) {
		json_object_set_new(o, "error_occurred", json_true());
		json_object_set_new(o, "error_message", json_string(j->error));
		return o;
	}
	json_object_set_new(o, "iterations", json_integer((json_int_t)j->items));
	json_object_set_new(o, "sim_instructions", json_real(per_op(j, ev[CG_Ir])));
	json_object_set_new(o, "sim_data_reads", json_real(per_op(j, ev[CG_Dr])));
	json_object_set_new(o, "sim_data_writes", json_real(per_op(j, ev[CG_Dw])));
	json_object_set_new(o, "sim_D1_misses", json_real(per_op(j, ev[CG_D1mr] + ev[CG_D1mw])));
	json_object_set_new(o, "sim_D1_read_misses", json_real(per_op(j, ev[CG_D1mr])));
	json_object_set_new(o, "sim_D1_write_misses", json_real(per_op(j, ev[CG_D1mw])));
	json_object_set_new(o, "sim_LL_misses", json_real(per_op(j, ev[CG_DLmr] + ev[CG_DLmw])));
	json_object_set_new(o, "sim_I1_misses", json_real(per_op(j, ev[CG_I1mr])));
	if (j->has_model) {
		json_object_set_new(o, "model_D1_misses", json_real(model_lines_total(&j->model)));
		json_object_set_new(o, "model_D1_streamed", json_real(j->model.streamed));
		json_object_set_new(o, "model_D1_dependent", json_real(j->model.dependent));
	}
	totals = json_object();
	for (e = 0; e < CG_NR; e++)
		json_object_set_new(totals, cg_event_name[e], json_integer((json_int_t)ev[e]));
	json_object_set_new(o, "sim_totals", totals);
	return o;
}

/* What callgrind said it simulated: the first finished job's description. */
static json_t *simulated(const struct sim *s, size_t offset)
{
	size_t i;

	for (i = 0; i < s->nr_job; i++)
		if (s->job[i].ran)
			return json_string((const char *)&s->job[i].cg + offset);
	return json_null();
}

static json_t *simulation_json(const struct sim *s)
{
	json_t *ops = json_object();
	size_t i;

	for (i = 0; i < s->nr_job; i++)
		if (!json_object_get(ops, s->job[i].in->kernel->name))
			json_object_set_new(ops, s->job[i].in->kernel->name,
					    json_integer((json_int_t)s->job[i].ops));
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:s, s:I, s:I, s:o}",
			 "tool", s->tool, "cache", s->cache_source, "D1", s->d1, "LL", s->ll,
			 "I1", s->i1,
			 "D1_simulated", simulated(s, offsetof(struct cg_result, desc_d1)),
			 "LL_simulated", simulated(s, offsetof(struct cg_result, desc_ll)),
			 "I1_simulated", simulated(s, offsetof(struct cg_result, desc_i1)),
			 "per_op", "items", "selected", (json_int_t)s->nr_job,
			 "finished", (json_int_t)s->nr_done, "ops", ops);
	/* The regime: RAM over the last-level cache, natively at the headline and here. */
	if (o)
		json_object_update_new(o, json_pack("{s:o, s:o}",
			"native_ram_over_llc", s->native_ratio ? json_real(s->native_ratio) : json_null(),
			"sim_ram_over_ll", sim_ram(s) && strtoull(s->ll, NULL, 10) ?
				json_real((double)sim_ram(s) / (double)strtoull(s->ll, NULL, 10)) :
				json_null()));
	return o;
}

static int write_json(struct sim *s, bool complete)
{
	char host[256] = "", date[64] = "";
	time_t now = time(NULL);
	json_t *mb, *benches = json_array(), *doc;
	struct mdb_err err;
	size_t i, kept = 0;
	struct tm tm;
	int ret;

	gethostname(host, sizeof(host) - 1);
	localtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S%z", &tm);
	mb = mdb_context(s->run, complete);
	json_object_set_new(mb, "simulation", simulation_json(s));
	for (i = 0; i < s->nr_job; i++)
		if (s->job[i].done && (s->job[i].ran || s->job[i].error[0])) {
			json_array_append_new(benches, job_json(&s->job[i]));
			kept++;
		}
	doc = json_pack("{s:{s:s, s:s, s:s, s:I, s:o}, s:o}", "context", "date", date,
			"host_name", host, "executable", s->exe,
			"num_cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN), "memdesc_bench", mb,
			"benchmarks", benches);
	mdb_interrupt_hold();
	ret = doc ? mdb_json_write(s->out, doc, &err) : mdb_errf(&err, "out of memory");
	json_decref(doc);
	if (!ret)
		mdb_interrupt_kept(s->out, (long)kept, "simulations");
	mdb_interrupt_resume();
	if (ret) {
		if (!s->write_failed)
			fprintf(stderr, "mdbench: %s (trying again after the next one)\n", err.msg);
		s->write_failed = true;
		return -1;
	}
	s->write_failed = false;
	return 0;
}

static void progress(const struct sim *s, const struct sim_job *j)
{
	fprintf(stderr, "[%zu/%zu] %s: ", s->nr_done, s->nr_job, j->in->name);
	if (!j->ran) {
		fprintf(stderr, "%s (%.1f s)\n", j->error, j->seconds);
		return;
	}
	fprintf(stderr, "%.3f D1, %.3f LL misses/op", per_op(j, j->cg.ev[CG_D1mr] + j->cg.ev[CG_D1mw]),
		per_op(j, j->cg.ev[CG_DLmr] + j->cg.ev[CG_DLmw]));
	if (j->has_model)
		fprintf(stderr, " (model %.3f)", model_lines_total(&j->model));
	fprintf(stderr, ", %.0f instr/op (%.1f s)\n", per_op(j, j->cg.ev[CG_Ir]), j->seconds);
}

/* ------------------------------------------------------------------ */

static void kill_running(struct sim *s)
{
	size_t i;

	for (i = 0; i < s->nr_job; i++)
		if (s->job[i].pid > 0) {
			kill(-s->job[i].pid, SIGKILL);
			waitpid(s->job[i].pid, NULL, 0);
			s->job[i].pid = -1;
		}
}

static size_t job_of(const struct sim *s, pid_t pid)
{
	size_t i;

	for (i = 0; i < s->nr_job && s->job[i].pid != pid; i++)
		;
	return i;
}

int mdb_simulate(struct mdb_run *run)
{
	struct sim s = { 0 };
	size_t next = 0, running = 0, i;
	struct mdb_err err;
	unsigned int jobs;
	int ret = 0, status;
	pid_t pid;

	if (sim_setup(&s, run, &err)) {
		sim_release(&s);
		mdb_die(&err);
	}
	if (write_json(&s, false)) {	/* from here on sim.json is this run's */
		sim_release(&s);
		return 1;
	}
	jobs = sim_jobs(s.nr_job);
	fprintf(stderr, "mdbench: simulating %zu benchmarks under %s (D1 %s, LL %s, %s), %u at a time\n",
		s.nr_job, s.tool, s.d1, s.ll, s.cache_source, jobs);
	mdb_interrupt_catch(false);
	while (!mdb_interrupted && (next < s.nr_job || running)) {
		while (!mdb_interrupted && running < jobs && next < s.nr_job) {
			if (start_job(&s, next, &err)) {
				fprintf(stderr, "mdbench: %s\n", err.msg);
				s.nr_failed++;
				s.job[next].done = true;
				snprintf(s.job[next].error, sizeof(s.job[next].error), "%s", err.msg);
				next++;
				continue;
			}
			next++;
			running++;
		}
		if (!running)
			break;
		pid = waitpid(-1, &status, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		i = job_of(&s, pid);
		if (i == s.nr_job)
			continue;
		running--;
		if (mdb_interrupted) {	/* it may have got the signal too: not a result */
			s.job[i].pid = -1;
			continue;
		}
		s.nr_done++;
		if (finish_job(&s, i, status))
			s.nr_failed++;
		progress(&s, &s.job[i]);
		write_json(&s, s.nr_done == s.nr_job && !s.nr_failed);
	}
	mdb_interrupt_catch(true);	/* from here a signal leaves at once, saying what is kept */
	kill_running(&s);
	if (s.write_failed && write_json(&s, !mdb_interrupted && !s.nr_failed))
		fprintf(stderr, "mdbench: %s could not be written: the simulations are lost\n", s.out);
	if (mdb_interrupted) {
		fprintf(stderr, "mdbench: interrupted, %zu of %zu simulations kept in %s\n", s.nr_done,
			s.nr_job, s.out);
		ret = 128 + mdb_interrupted;
	} else if (s.nr_failed || s.write_failed) {
		fprintf(stderr, "mdbench: %zu of %zu simulations failed\n", s.nr_failed, s.nr_job);
		ret = 1;
	} else {
		fprintf(stderr, "mdbench: %zu simulations written to %s\n", s.nr_job, s.out);
	}
	sim_release(&s);
	return ret;
}
