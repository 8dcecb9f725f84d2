// SPDX-License-Identifier: GPL-2.0
/*
 * shim.cc - mdb.h over Google Benchmark (1.7 to 1.9), and the dump.
 *
 * A struct mdb_state is either a benchmark::State (the normal run) or a
 * fixed-count run (mdb_fixed_run, under valgrind).  Hardware counters are
 * started on the first mdb_keep_running_batch(), right before Google
 * Benchmark starts its clock, and read when the loop ends, so they cover what
 * the clock covers, pauses included.
 *
 * The dump is Google Benchmark's own JSON: its JSONReporter writes the
 * context and each benchmark's runs, which we parse (jansson), keep as one
 * document with our memdesc_bench object added to "context", and write
 * whole (temporary file, fsync, rename) after every benchmark, so an
 * interrupted run leaves a valid file of what finished.  Its
 * tools/compare.py reads the file as it reads any of its dumps.
 *
 * Google Benchmark 1.8 replaced Run::error_occurred by Run::skipped and
 * gave --benchmark_min_time a unit suffix; MDB_GB_SKIPPED (set by CMake
 * from a compile test) picks the API.  Google Benchmark 1.9 stopped
 * dividing a threaded run's real time by its threads (its PR #1836): before
 * it (MDB_GB_DIVIDES_THREAD_TIME, set by CMake from the version) the shim
 * multiplies it back, so that a dump means the same whichever built it.
 *
 * Threaded benchmarks: Google Benchmark runs the function on every thread
 * (the calling thread is thread 0); the shim pins each, runs the set-up on
 * thread 0 behind a barrier the others wait at, and the teardown behind
 * another.  The fixed-count backend runs threads of its own the same way.
 */
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <regex.h>
#include <unistd.h>

#include "interrupt.h"
#include "jsonio.h"
#include "shim.h"
#include "topology.h"
#include "units.h"

#ifdef MDB_GB_SKIPPED
extern "C" const char mdb_gb_api[] = "1.8+";
static bool run_failed(const benchmark::BenchmarkReporter::Run &r)
{
	return r.skipped == benchmark::internal::SkippedWithError;
}
#else
extern "C" const char mdb_gb_api[] = "1.7";
static bool run_failed(const benchmark::BenchmarkReporter::Run &r)
{
	return r.error_occurred;
}
#endif

namespace {

struct user_counter {
	std::string name;
	double value;
	unsigned int flags;
};

/* The threads of one fixed-count run: its loop's start and end, together. */
struct fixed_group {
	pthread_barrier_t start_a, start_b, end;
	void (*on_start)(void *);
	void (*on_stop)(void *);
	void *cb_arg;
};

}	// namespace

struct mdb_state {
	benchmark::State *gb = nullptr;
	unsigned int thread_index = 0, threads = 1;

	/* The fixed-count backend; group for one of several threads. */
	struct fixed_group *group = nullptr;
	uint64_t target = 0;
	uint64_t done = 0;
	void (*on_start)(void *) = nullptr;
	void (*on_stop)(void *) = nullptr;
	void *cb_arg = nullptr;
	bool stopped = false;
	bool error = false;
	std::string error_msg;

	bool started = false;
	bool items_set = false;
	uint64_t items = 0;
	std::vector<user_counter> user;

	struct mdb_counters *hw = nullptr;
	bool hw_running = false;
	bool hw_read = false;
	struct mdb_counter_values hw_values;
};

static struct mdb_counters *g_counters;
static pthread_t g_counters_thread;	/* the thread that opened them, the only one they count */

/* ------------------------------------------------------------------ */
/* mdb.h                                                               */

/* on_start before the first op; with threads, on thread 0 once all have arrived, before any op. */
static void fixed_start(struct mdb_state *st)
{
	struct fixed_group *g = st->group;

	st->started = true;
	if (!g) {
		if (st->on_start)
			st->on_start(st->cb_arg);
		return;
	}
	pthread_barrier_wait(&g->start_a);
	if (!st->thread_index && g->on_start)
		g->on_start(g->cb_arg);
	pthread_barrier_wait(&g->start_b);
}

/* on_stop after the last op; with threads, after every thread's last. */
static void fixed_stop(struct mdb_state *st)
{
	struct fixed_group *g = st->group;

	if (st->stopped || !st->started) {
		st->stopped = true;
		return;
	}
	st->stopped = true;
	if (!g) {
		if (st->on_stop)
			st->on_stop(st->cb_arg);
		return;
	}
	pthread_barrier_wait(&g->end);
	if (!st->thread_index && g->on_stop)
		g->on_stop(g->cb_arg);
}

static bool fixed_keep_running(struct mdb_state *st, uint64_t n)
{
	if (!st->started)
		fixed_start(st);
	if (st->error || st->done >= st->target || !n) {
		fixed_stop(st);
		return false;
	}
	st->done += n;
	return true;
}

static void hw_stop(struct mdb_state *st)
{
	if (!st->hw_running)
		return;
	mdb_counters_stop(st->hw, &st->hw_values);
	st->hw_running = false;
	st->hw_read = !st->gb->error_occurred();
}

extern "C" bool mdb_keep_running_batch(struct mdb_state *st, uint64_t n)
{
	bool more;

	if (!st->gb)
		return fixed_keep_running(st, n);
	if (!st->started) {
		st->started = true;
		if (st->hw) {
			mdb_counters_start(st->hw);
			st->hw_running = true;
		}
	}
	more = st->gb->KeepRunningBatch((benchmark::IterationCount)n);
	if (!more)
		hw_stop(st);
	return more;
}

extern "C" uint64_t mdb_iterations(const struct mdb_state *st)
{
	return st->gb ? (uint64_t)st->gb->iterations() : st->done;
}

extern "C" void mdb_set_items_processed(struct mdb_state *st, uint64_t items)
{
	st->items_set = true;
	st->items = items;
	if (st->gb)
		st->gb->SetItemsProcessed((int64_t)items);
}

extern "C" void mdb_set_bytes_processed(struct mdb_state *st, uint64_t bytes)
{
	if (st->gb)
		st->gb->SetBytesProcessed((int64_t)bytes);
}

extern "C" void mdb_pause_timing(struct mdb_state *st)
{
	if (!st->gb)
		return;
	st->gb->PauseTiming();
	if (st->hw_running)
		mdb_counters_pause(st->hw);
}

extern "C" void mdb_resume_timing(struct mdb_state *st)
{
	if (!st->gb)
		return;
	if (st->hw_running)
		mdb_counters_resume(st->hw);
	st->gb->ResumeTiming();
}

extern "C" void mdb_set_iteration_time(struct mdb_state *st, double seconds)
{
	if (st->gb)
		st->gb->SetIterationTime(seconds);
}

extern "C" unsigned int mdb_thread_index(const struct mdb_state *st)
{
	return st->thread_index;
}

extern "C" unsigned int mdb_threads(const struct mdb_state *st)
{
	return st->threads;
}

extern "C" void mdb_skip_with_error(struct mdb_state *st, const char *msg)
{
	if (st->gb) {
		st->gb->SkipWithError(msg);
		return;
	}
	if (!st->error) {
		st->error = true;
		st->error_msg = msg;
	}
}

extern "C" void mdb_counter(struct mdb_state *st, const char *name, double value,
			    enum mdb_counter_flags flags)
{
	st->user.push_back({ name, value, (unsigned int)flags });
}

/* ------------------------------------------------------------------ */
/* Flags                                                               */

namespace {

enum flag_kind { F_REGEX, F_COUNT, F_MIN_TIME, F_SECONDS, F_FORMAT, F_OUT, F_UNIT, F_BOOL,
		 F_COLOR, F_CONTEXT, F_REFUSED };

struct gb_flag {
	const char *name;	/* without "--" */
	enum flag_kind kind;
};

/* Every flag Google Benchmark 1.7 to 1.9 takes; anything else is refused. */
const gb_flag gb_flags[] = {
	{ "benchmark_filter", F_REGEX },
	{ "benchmark_repetitions", F_COUNT },
	{ "benchmark_min_time", F_MIN_TIME },
	{ "benchmark_min_warmup_time", F_SECONDS },
	{ "benchmark_format", F_FORMAT },
	{ "benchmark_out_format", F_FORMAT },
	{ "benchmark_out", F_OUT },
	{ "benchmark_time_unit", F_UNIT },
	{ "benchmark_enable_random_interleaving", F_BOOL },
	{ "benchmark_report_aggregates_only", F_BOOL },
	{ "benchmark_display_aggregates_only", F_BOOL },
	{ "benchmark_counters_tabular", F_BOOL },
	{ "benchmark_list_tests", F_BOOL },
	{ "benchmark_dry_run", F_BOOL },
	{ "benchmark_color", F_COLOR },
	{ "benchmark_context", F_CONTEXT },
	{ "benchmark_perf_counters", F_REFUSED },
	{ "v", F_COUNT },
};

bool one_of(const char *v, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(v, *set))
			return true;
	return false;
}

/* A finite decimal number >= 0 making up the whole of [s, end). */
bool seconds_value(const std::string &s, double *out)
{
	char *end;

	if (s.empty() || !strchr("0123456789.", s[0]))
		return false;
	errno = 0;
	*out = strtod(s.c_str(), &end);
	return !errno && *end == '\0' && std::isfinite(*out) && *out >= 0;
}

int check_min_time(const std::string &name, const std::string &v, char **fixed, struct mdb_err *err)
{
	std::string num = v;
	bool iters = false;
	double d;

	if (!num.empty() && (num.back() == 's' || num.back() == 'x')) {
		iters = num.back() == 'x';
		num.pop_back();
	}
	if (iters) {
		uint64_t n;

		if (mdb_parse_u64(num.c_str(), UINT64_MAX, &n, ("--" + name).c_str(), err) || !n)
			return mdb_errf(err, "--%s=%s: want seconds (0.5, 0.5s) or a count of "
					"iterations (100x)", name.c_str(), v.c_str());
#ifndef MDB_GB_SKIPPED
		return mdb_errf(err, "--%s=%s: this Google Benchmark (%s) takes seconds only",
				name.c_str(), v.c_str(), mdb_gb_api);
#else
		return 0;
#endif
	}
	if (!seconds_value(num, &d) || d <= 0)
		return mdb_errf(err, "--%s=%s: want seconds above 0 (0.5, 0.5s) or iterations (100x)",
				name.c_str(), v.c_str());
#ifdef MDB_GB_SKIPPED
	if (v.back() != 's')
		*fixed = strdup(("--" + name + "=" + num + "s").c_str());
#else
	if (v.back() == 's')
		*fixed = strdup(("--" + name + "=" + num).c_str());
#endif
	return 0;
}

/*
 * A regular file that opens for writing (not truncated), or one that can be
 * created there: tried with O_EXCL and removed again at once, so that no
 * empty file is left by a run refused for another option.
 */
int check_out_file(const std::string &opt, const std::string &v, struct mdb_err *err)
{
	struct stat st;
	bool made = false;
	int fd = open(v.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		fd = open(v.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		made = fd >= 0;
	}
	if (fd < 0 && errno == EISDIR)
		return mdb_errf(err, "%s=%s: not a regular file", opt.c_str(), v.c_str());
	if (fd < 0)
		return mdb_errf(err, "%s=%s: cannot write it: %s", opt.c_str(), v.c_str(),
				strerror(errno));
	if (made)
		unlink(v.c_str());
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return mdb_errf(err, "%s=%s: not a regular file", opt.c_str(), v.c_str());
	}
	close(fd);
	return 0;
}

int check_value(const gb_flag &f, const std::string &v, char **fixed, struct mdb_err *err)
{
	static const char *const formats[] = { "console", "json", "csv", nullptr };
	static const char *const units[] = { "ns", "us", "ms", "s", nullptr };
	static const char *const bools[] = { "true", "false", "yes", "no", "on", "off", "1", "0",
					     nullptr };
	static const char *const colors[] = { "auto", "true", "false", "yes", "no", "on", "off",
					      "1", "0", nullptr };
	std::string opt = std::string("--") + f.name;
	uint64_t n;
	double d;

	switch (f.kind) {
	case F_REGEX: {
		/* POSIX extended, as Google Benchmark's own std::regex::extended; "-" negates. */
		regex_t re;
		char why[256];
		int ret = regcomp(&re, v.c_str() + (v.size() && v[0] == '-'), REG_EXTENDED | REG_NOSUB);

		if (ret) {
			regerror(ret, &re, why, sizeof(why));
			return mdb_errf(err, "%s=%s: not a regular expression (%s)", opt.c_str(),
					v.c_str(), why);
		}
		regfree(&re);
		return 0;
	}
	case F_COUNT:
		/* --v is a level from 0; a count of repetitions starts at 1. */
		if (mdb_parse_u64(v.c_str(), 1000000, &n, opt.c_str(), err) ||
		    (!n && strcmp(f.name, "v")))
			return mdb_errf(err, "%s=%s: not a decimal number from %d to 1000000",
					opt.c_str(), v.c_str(), strcmp(f.name, "v") ? 1 : 0);
		return 0;
	case F_MIN_TIME:
		return check_min_time(f.name, v, fixed, err);
	case F_SECONDS:
		if (!seconds_value(v, &d))
			return mdb_errf(err, "%s=%s: want seconds, 0 or more", opt.c_str(), v.c_str());
		return 0;
	case F_FORMAT:
		if (!one_of(v.c_str(), formats))
			return mdb_errf(err, "%s=%s: console, json or csv", opt.c_str(), v.c_str());
		return 0;
	case F_OUT:
		if (v.empty())
			return mdb_errf(err, "%s= needs a file name", opt.c_str());
		/*
		 * Google Benchmark would only say so at the end, exiting 1.
		 * Checked without creating or truncating it: a run refused
		 * for another option leaves no empty file, an old one stays.
		 */
		return check_out_file(opt, v, err);
	case F_UNIT:
		if (!one_of(v.c_str(), units))
			return mdb_errf(err, "%s=%s: ns, us, ms or s", opt.c_str(), v.c_str());
		return 0;
	case F_BOOL:
		if (!one_of(v.c_str(), bools))
			return mdb_errf(err, "%s=%s: true or false", opt.c_str(), v.c_str());
		return 0;
	case F_COLOR:
		if (!one_of(v.c_str(), colors))
			return mdb_errf(err, "%s=%s: auto, true or false", opt.c_str(), v.c_str());
		return 0;
	case F_CONTEXT:
		if (v.find('=') == std::string::npos || v[0] == '=')
			return mdb_errf(err, "%s=%s: want key=value[,key=value...]", opt.c_str(),
					v.c_str());
		return 0;
	case F_REFUSED:
		return mdb_errf(err, "%s: mdbench counts with its own --counters=", opt.c_str());
	}
	return 0;
}

}	// namespace

extern "C" int mdb_gb_check_flag(const char *arg, char **fixed, struct mdb_err *err)
{
	std::string a = arg, name, value;
	size_t eq = a.find('=');
	bool has_value = eq != std::string::npos;

	*fixed = nullptr;
	if (a.compare(0, 2, "--"))
		return mdb_errf(err, "unknown option '%s'", arg);
	name = a.substr(2, has_value ? eq - 2 : std::string::npos);
	value = has_value ? a.substr(eq + 1) : "";
	for (const gb_flag &f : gb_flags) {
		if (name != f.name)
			continue;
		if (!has_value && f.kind == F_BOOL)
			return 0;
		if (!has_value)
			return mdb_errf(err, "--%s needs a value: --%s=...", f.name, f.name);
		return check_value(f, value, fixed, err);
	}
	return mdb_errf(err, "unknown option '%s' (mdbench --help lists them)", arg);
}

extern "C" char *mdb_gb_min_time(const char *seconds)
{
	std::string s = std::string("--benchmark_min_time=") + seconds;

#ifdef MDB_GB_SKIPPED
	s += "s";
#endif
	return strdup(s.c_str());
}

/* ------------------------------------------------------------------ */
/* Registration and the Google Benchmark run                            */

/*
 * Per item: over the items processed, which Google Benchmark itself only
 * turns into a rate; when items and iterations agree, its own per-iteration
 * average does the same and is what compare.py knows.
 */
static benchmark::Counter make_counter(const struct mdb_state *st, double value, unsigned int flags)
{
	benchmark::Counter::Flags gb_flags = benchmark::Counter::kDefaults;
	uint64_t iters = (uint64_t)st->gb->iterations();

	if (flags & MDB_COUNTER_RATE)
		gb_flags = benchmark::Counter::kIsRate;
	/* Threads: Google Benchmark sums each thread's value; per item is over all their items. */
	if ((flags & MDB_COUNTER_PER_ITEM) && st->threads > 1)
		return benchmark::Counter(value, (benchmark::Counter::Flags)(gb_flags |
					  benchmark::Counter::kAvgIterations));
	if (flags & MDB_COUNTER_PER_ITEM) {
		if (st->items_set && st->items && st->items != iters)
			value /= (double)st->items;
		else
			gb_flags = (benchmark::Counter::Flags)(gb_flags | benchmark::Counter::kAvgIterations);
	}
	return benchmark::Counter(value, gb_flags);
}

static void report_counters(struct mdb_state *st)
{
	benchmark::State &s = *st->gb;
	unsigned int i;

	if (s.error_occurred())
		return;
	/* With threads, only the main thread counts: per op of its own, which the sum leaves alone. */
	if (st->hw_read) {
		for (i = 0; i < st->hw->nr; i++)
			if (st->hw_values.valid[i])
				s.counters[st->hw->c[i].name] = st->threads > 1 ?
					benchmark::Counter(st->hw_values.value[i] /
							   (double)(s.iterations() ? s.iterations() : 1)) :
					make_counter(st, st->hw_values.value[i], MDB_COUNTER_PER_ITEM);
	}
	for (const user_counter &u : st->user)
		s.counters[u.name] = make_counter(st, u.value, u.flags);
}

static bool counts_here(bool manual_time)
{
	return !manual_time && g_counters && mdb_counters_nr_available(g_counters) &&
	       pthread_equal(pthread_self(), g_counters_thread);
}

static void run_gb(benchmark::State &s, mdb_bench_fn fn, void *arg, bool manual_time)
{
	struct mdb_state st;

	st.gb = &s;
	if (counts_here(manual_time))
		st.hw = g_counters;
	fn(&st, arg);
	hw_stop(&st);		/* a kernel that left its loop early */
	report_counters(&st);
}

namespace {

/* One threaded registration: what its threads share for each call. */
struct thread_ctl {
	struct mdb_thread_run t;
	std::vector<int> cpus;
	mdb_bench_fn fn;
	void *arg;
	pthread_barrier_t start, end;
	int setup_failed;
	char why[MDB_ERR_LEN];
};

std::vector<std::unique_ptr<thread_ctl>> thread_ctls;

/* Pins the calling thread as t says; "" or why not. */
std::string pin_thread(const struct mdb_thread_run *t, unsigned int i, bool *pinned)
{
	struct mdb_err err;

	*pinned = false;
	if (!t->cpus)
		return "";
	if (mdb_topology_bind_thread(t->topo, t->cpus[i], &err))
		return err.msg;
	*pinned = true;
	return "";
}

void run_gb_threads(benchmark::State &s, thread_ctl *ctl)
{
	struct mdb_state st;
	struct mdb_err err;
	bool pinned;
	std::string pin_error;

	st.gb = &s;
	st.thread_index = (unsigned int)s.thread_index();
	st.threads = (unsigned int)s.threads();
	pin_error = pin_thread(&ctl->t, st.thread_index, &pinned);
	if (!st.thread_index) {
		err.msg[0] = '\0';
		ctl->setup_failed = ctl->t.setup ? ctl->t.setup(ctl->arg, &err) : 0;
		snprintf(ctl->why, sizeof(ctl->why), "%s", err.msg[0] ? err.msg : "the set-up failed");
	}
	pthread_barrier_wait(&ctl->start);
	if (ctl->setup_failed) {
		mdb_skip_with_error(&st, ctl->why);
	} else if (!pin_error.empty()) {
		mdb_skip_with_error(&st, pin_error.c_str());
	} else {
		if (counts_here(ctl->t.manual_time))
			st.hw = g_counters;
		ctl->fn(&st, ctl->arg);
	}
	hw_stop(&st);
	report_counters(&st);
	pthread_barrier_wait(&ctl->end);
	if (!st.thread_index && !ctl->setup_failed && ctl->t.teardown)
		ctl->t.teardown(ctl->arg);
	if (pinned)
		mdb_topology_unbind_thread(ctl->t.topo);
}

}	// namespace

extern "C" int mdb_benchmark_init(int *argc, char **argv, struct mdb_err *err)
{
	int i;

	benchmark::Initialize(argc, argv);
	for (i = 1; i < *argc; i++)
		return mdb_errf(err, "unknown option '%s'", argv[i]);
	return 0;
}

extern "C" void mdb_register(const char *name, mdb_bench_fn fn, void *arg)
{
	benchmark::RegisterBenchmark(name, [fn, arg](benchmark::State &s) { run_gb(s, fn, arg, false); })
		->Unit(benchmark::kNanosecond);
}

extern "C" void mdb_register_manual_time(const char *name, mdb_bench_fn fn, void *arg)
{
	benchmark::RegisterBenchmark(name, [fn, arg](benchmark::State &s) { run_gb(s, fn, arg, true); })
		->UseManualTime()
		->Unit(benchmark::kNanosecond);
}

extern "C" void mdb_register_threads(const char *name, mdb_bench_fn fn, void *arg,
				     const struct mdb_thread_run *t)
{
	thread_ctl *ctl = new thread_ctl();

	ctl->t = *t;
	if (t->cpus) {
		ctl->cpus.assign(t->cpus, t->cpus + t->nr);
		ctl->t.cpus = ctl->cpus.data();
	}
	ctl->fn = fn;
	ctl->arg = arg;
	pthread_barrier_init(&ctl->start, nullptr, t->nr);
	pthread_barrier_init(&ctl->end, nullptr, t->nr);
	thread_ctls.emplace_back(ctl);
	auto *b = benchmark::RegisterBenchmark(name, [ctl](benchmark::State &s) { run_gb_threads(s, ctl); })
		->Threads((int)t->nr)
		->Unit(benchmark::kNanosecond);
	if (t->manual_time)
		b->UseManualTime();
}

extern "C" void mdb_use_counters(struct mdb_counters *set)
{
	g_counters = set;
	g_counters_thread = pthread_self();
}

extern "C" void mdb_add_custom_context(const char *key, const char *value)
{
	benchmark::AddCustomContext(key, value);
}

/* ------------------------------------------------------------------ */
/* The dump                                                            */

namespace {

double now_seconds()
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * What a JSONReporter writes for a context or for one benchmark's runs, as
 * jansson values.  The reporter streams pieces of one document (the context
 * opens the benchmarks array, runs are its elements), so each piece is
 * framed to stand alone before it is parsed; nothing of the text is kept.
 */
json_t *gb_context_json(const benchmark::BenchmarkReporter::Context &ctx, struct mdb_err *err)
{
	benchmark::JSONReporter rep;
	std::ostringstream os;
	std::string text;

	rep.SetOutputStream(&os);
	rep.SetErrorStream(&std::cerr);
	rep.ReportContext(ctx);
	text = os.str() + "]}";
	return mdb_json_load_gb(text.data(), text.size(), "Google Benchmark's context", err);
}

json_t *gb_runs_json(const std::vector<benchmark::BenchmarkReporter::Run> &runs,
		     struct mdb_err *err)
{
	benchmark::JSONReporter rep;
	std::ostringstream os;
	std::string text;

	rep.SetOutputStream(&os);
	rep.SetErrorStream(&std::cerr);
	rep.ReportRuns(runs);
	text = "[" + os.str() + "]";
	return mdb_json_load_gb(text.data(), text.size(), "Google Benchmark's runs", err);
}

#ifdef MDB_GB_DIVIDES_THREAD_TIME
/*
 * Before 1.9 a threaded run's real (or manual) time is divided by its
 * threads, and a cpu-timed run's rates are per thread: multiplied back, so
 * that time per op is one thread's and rates are over all threads, as 1.9
 * reports them.  A percentage (the cv aggregate) is a ratio: left alone.
 */
std::vector<benchmark::BenchmarkReporter::Run> as_gb19(
	const std::vector<benchmark::BenchmarkReporter::Run> &runs)
{
	std::vector<benchmark::BenchmarkReporter::Run> out(runs);

	for (benchmark::BenchmarkReporter::Run &r : out) {
		bool manual = r.benchmark_name().find("/manual_time") != std::string::npos;

		if (r.threads <= 1 || (r.run_type == benchmark::BenchmarkReporter::Run::RT_Aggregate &&
				       r.aggregate_unit == benchmark::kPercentage))
			continue;
		r.real_accumulated_time *= (double)r.threads;
		for (auto &c : r.counters)
			if ((c.second.flags & benchmark::Counter::kIsRate) && !manual)
				c.second.value *= (double)r.threads;
	}
	return out;
}
#else
const std::vector<benchmark::BenchmarkReporter::Run> &as_gb19(
	const std::vector<benchmark::BenchmarkReporter::Run> &runs)
{
	return runs;
}
#endif

/* Fields of an entry that say which it is, not what it measured: no median of them. */
bool identity_field(const char *key)
{
	static const char *const keys[] = { "family_index", "per_family_instance_index",
		"repetitions", "repetition_index", "threads", "iterations", nullptr };

	return one_of(key, keys);
}

double median_of(std::vector<double> v)
{
	size_t n = v.size();

	std::sort(v.begin(), v.end());
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * One median aggregate per benchmark of several repetitions (mdbench's
 * rounds) that Google Benchmark gave no aggregate of its own, appended.
 */
void add_medians(json_t *benchmarks)
{
	std::vector<std::string> order;
	std::map<std::string, std::vector<json_t *>> reps;
	std::map<std::string, bool> has_agg;
	size_t i;
	json_t *e;

	json_array_foreach(benchmarks, i, e) {
		const char *rn = json_string_value(json_object_get(e, "run_name"));
		const char *rt = json_string_value(json_object_get(e, "run_type"));

		if (!rn)
			continue;
		if (rt && !strcmp(rt, "aggregate")) {
			has_agg[rn] = true;
			continue;
		}
		if (json_is_true(json_object_get(e, "error_occurred")) ||
		    (json_is_string(json_object_get(e, "skipped")) &&
		     strcmp(json_string_value(json_object_get(e, "skipped")), "false")))
			continue;
		if (!reps.count(rn))
			order.push_back(rn);
		reps[rn].push_back(e);
	}
	for (const std::string &rn : order) {
		const std::vector<json_t *> &r = reps[rn];
		json_t *agg, *v;
		const char *key;

		if (r.size() < 2 || has_agg[rn])
			continue;
		agg = json_deep_copy(r[0]);
		json_object_set_new(agg, "name", json_string((rn + "_median").c_str()));
		json_object_set_new(agg, "run_type", json_string("aggregate"));
		json_object_set_new(agg, "aggregate_name", json_string("median"));
		json_object_set_new(agg, "aggregate_unit", json_string("time"));
		json_object_set_new(agg, "repetitions", json_integer((json_int_t)r.size()));
		json_object_set_new(agg, "iterations", json_integer((json_int_t)r.size()));
		json_object_del(agg, "repetition_index");
		json_object_foreach(agg, key, v) {
			std::vector<double> vals;

			if (!json_is_number(v) || identity_field(key))
				continue;
			for (json_t *x : r)
				if (json_is_number(json_object_get(x, key)))
					vals.push_back(json_number_value(json_object_get(x, key)));
			double m = median_of(vals);

			json_object_set_new(agg, key, json_is_integer(v) && m == std::floor(m) ?
					    json_integer((json_int_t)m) : json_real(m));
		}
		json_array_append_new(benchmarks, agg);
	}
}

class DumpReporter : public benchmark::BenchmarkReporter {
public:
	explicit DumpReporter(const struct mdb_report *rep)
		: rep_(rep), display_(benchmark::CreateDefaultDisplayReporter()),
		  doc_(json_object()), benchmarks_(json_array())
	{
		json_object_set_new(doc_, "context", json_object());
		json_object_set(doc_, "benchmarks", benchmarks_);
		start_ = now_seconds();
	}

	~DumpReporter() override
	{
		json_decref(benchmarks_);
		json_decref(doc_);
	}

	bool ReportContext(const Context &context) override
	{
		struct mdb_err err;
		json_t *ctx = gb_context_json(context, &err);

		if (!ctx || !json_is_object(json_object_get(ctx, "context"))) {
			fail(ctx ? "Google Benchmark wrote no context" : err.msg);
		} else {
			json_object_set(doc_, "context", json_object_get(ctx, "context"));
		}
		json_decref(ctx);
		write(false);
		return display_context(context);
	}

	void ReportRuns(const std::vector<Run> &gb_runs) override
	{
		const std::vector<Run> &runs = as_gb19(gb_runs);
		struct mdb_err err;
		json_t *entries = gb_runs_json(runs, &err);

		display_->ReportRuns(runs);
		if (entries && rep_->annotate) {
			size_t i;
			json_t *e;

			json_array_foreach(entries, i, e)
				rep_->annotate(json_string_value(json_object_get(e, "run_name")), e,
					       rep_->arg);
		}
		if (entries)
			json_array_extend(benchmarks_, entries);
		else
			fail(err.msg);
		json_decref(entries);
		for (const Run &r : runs)
			failed_ += run_failed(r);
		done_++;
		progress(runs.empty() ? "" : runs[0].benchmark_name());
		write(false);
	}

	/* The end of one pass; the run's end is finish(). */
	void Finalize() override
	{
	}

	void finish()
	{
		display_->Finalize();
		add_medians(benchmarks_);
		finalized_ = true;
		write(true);
	}

	/* A pass of n more runs, estimated at est seconds, is registered. */
	void expect_more(unsigned long n, double est)
	{
		expected_ += n;
		est_total_ += est;
	}

	double elapsed() const { return now_seconds() - start_; }

	/* Writes the document as it stands; a failure is kept for the next try. */
	void write(bool complete)
	{
		struct mdb_err err;
		json_t *ours;

		if (!rep_->path)
			return;
		ours = rep_->context(complete && !broken_, rep_->arg);
		if (!ours) {
			fail("out of memory for the dump's context");
			return;
		}
		json_object_set_new(json_object_get(doc_, "context"), "memdesc_bench", ours);
		mdb_interrupt_hold();	/* the file and the count in the interrupt message change together */
		if (mdb_json_write(rep_->path, doc_, &err)) {
			mdb_interrupt_resume();
			if (!write_failed_)
				fprintf(stderr, "mdbench: %s (trying again after the next benchmark)\n",
					err.msg);
			write_failed_ = true;
			snprintf(write_error_, sizeof(write_error_), "%s", err.msg);
			return;
		}
		if (write_failed_)
			fprintf(stderr, "mdbench: %s written again\n", rep_->path);
		write_failed_ = false;
		on_disk_ = json_array_size(benchmarks_);
		mdb_interrupt_kept(rep_->path, (long)on_disk_, "benchmark results");
		mdb_interrupt_resume();
	}

	unsigned long failed() const { return failed_; }
	bool finalized() const { return finalized_; }
	bool write_failed() const { return write_failed_ || broken_; }
	size_t on_disk() const { return on_disk_; }
	size_t results() const { return json_array_size(benchmarks_); }
	const char *write_error() const { return broken_ ? broken_msg_ : write_error_; }

private:
	void fail(const char *msg)
	{
		if (!broken_)
			fprintf(stderr, "mdbench: %s\n", msg);
		broken_ = true;
		snprintf(broken_msg_, sizeof(broken_msg_), "%s", msg);
	}

	/*
	 * The estimates left, scaled by what the finished ones took over what
	 * they were estimated at; by count where there are no estimates.
	 */
	void progress(const std::string &name)
	{
		double elapsed = now_seconds() - start_, left;
		unsigned long n = expected_;

		if (rep_->est_seconds)
			est_done_ += rep_->est_seconds(name.c_str(), rep_->arg);
		if (rep_->est_seconds && est_done_ > 0 && est_total_ > est_done_)
			left = (est_total_ - est_done_) * elapsed / est_done_;
		else
			left = n > done_ ? elapsed / (double)done_ * (double)(n - done_) : 0;
		fprintf(stderr, "mdbench: progress %lu/%lu elapsed=%.1f est_left=%.1f %s\n", done_,
			n > done_ ? n : done_, elapsed, left, name.c_str());
	}

	/*
	 * Google Benchmark's console prints the context's custom strings: ours
	 * that hold JSON (layouts, kernels) are for files, not the terminal, so
	 * they are cut to their length; its warning that the library was built
	 * as DEBUG gets a note of whose build that is, once.
	 */
	bool display_context(const Context &context)
	{
		std::ostringstream err;
		std::istringstream lines;
		std::string line;
		bool ret;

		if (context_shown_)
			return true;
		context_shown_ = true;
		display_->SetErrorStream(&err);
		ret = display_->ReportContext(context);
		display_->SetErrorStream(&std::cerr);
		lines.str(err.str());
		while (std::getline(lines, line)) {
			size_t colon = line.find(": ");
			bool json = colon != std::string::npos && colon + 2 < line.size() &&
				    (line[colon + 2] == '[' || line[colon + 2] == '{');

			if (!line.compare(0, 14, "memdesc_bench.") && json)
				line = line.substr(0, colon) + ": (" + std::to_string(line.size() - colon - 2) +
				       " bytes of JSON: context.memdesc_bench of the dump)";
			std::cerr << line << "\n";
			if (line.find("Library was built as DEBUG") != std::string::npos)
				std::cerr << "mdbench: note: the warning above is about Debian's libbenchmark "
					     "(built without NDEBUG: its own asserts stay in), not mdbench, "
					     "which is built " MDB_BUILD_TYPE "; the timed loops are ours\n";
		}
		return ret;
	}

	const struct mdb_report *rep_;
	std::unique_ptr<benchmark::BenchmarkReporter> display_;
	json_t *doc_, *benchmarks_;
	double start_, est_done_ = 0, est_total_ = rep_->est_total;
	unsigned long expected_ = rep_->nr_expected;
	bool context_shown_ = false;
	unsigned long done_ = 0, failed_ = 0;
	size_t on_disk_ = 0;
	bool finalized_ = false, write_failed_ = false, broken_ = false;
	char write_error_[MDB_ERR_LEN] = "", broken_msg_[MDB_ERR_LEN] = "";
};

}	// namespace

extern "C" int mdb_report_start(const struct mdb_report *rep, struct mdb_err *err)
{
	json_t *doc, *ours;
	int ret;

	if (!rep->path)
		return 0;
	ours = rep->context(false, rep->arg);
	doc = json_pack("{s:{s:o}, s:[]}", "context", "memdesc_bench", ours, "benchmarks");
	if (!doc)
		return mdb_errf(err, "out of memory for the dump");
	mdb_interrupt_hold();
	ret = mdb_json_write(rep->path, doc, err);
	json_decref(doc);
	if (!ret)
		mdb_interrupt_kept(rep->path, 0, "benchmark results");
	mdb_interrupt_resume();
	return ret;
}

extern "C" int mdb_benchmark_run(const struct mdb_report *rep)
{
	DumpReporter dump(rep);

	unsigned long more;
	double est;

	mdb_interrupt_catch(true);
	for (;;) {
		benchmark::RunSpecifiedBenchmarks(&dump);
		if (!rep->next_pass)
			break;
		benchmark::ClearRegisteredBenchmarks();
		est = 0;
		more = rep->next_pass(rep->arg, dump.elapsed(), &est);
		if (!more)
			break;
		dump.expect_more(more, est);
	}
	dump.finish();
	/* The handler stays: a signal from here to exit still says what is on disk. */
	if (rep->path && dump.write_failed()) {
		fprintf(stderr, "mdbench: %zu of %zu benchmark results could not be written to %s (%s); "
			"%zu are on disk\n", dump.results() - dump.on_disk(), dump.results(), rep->path,
			dump.write_error(), dump.on_disk());
	} else if (rep->path) {
		fprintf(stderr, "mdbench: %zu benchmark results written to %s\n", dump.on_disk(),
			rep->path);
	}
	if (dump.failed())
		fprintf(stderr, "mdbench: %lu benchmark runs failed\n", dump.failed());
	return dump.failed() || (rep->path && dump.write_failed()) ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* The fixed-count run                                                  */

namespace {

struct fixed_thread {
	mdb_bench_fn fn;
	void *arg;
	const struct mdb_thread_run *t;
	struct mdb_state st;
	std::string pin_error;
	pthread_t tid;
};

void *fixed_thread_run(void *p)
{
	fixed_thread *f = (fixed_thread *)p;
	bool pinned;

	f->pin_error = pin_thread(f->t, f->st.thread_index, &pinned);
	if (!f->pin_error.empty())
		mdb_skip_with_error(&f->st, f->pin_error.c_str());
	else
		f->fn(&f->st, f->arg);
	fixed_keep_running(&f->st, 0);	/* through the start and end its loop missed */
	if (pinned)
		mdb_topology_unbind_thread(f->t->topo);
	return nullptr;
}

}	// namespace

extern "C" int mdb_fixed_run_threads(mdb_bench_fn fn, void *arg, uint64_t ops,
				     const struct mdb_thread_run *t, void (*on_start)(void *),
				     void (*on_stop)(void *), void *cb_arg, uint64_t *items,
				     struct mdb_err *err)
{
	std::vector<fixed_thread> th(t->nr);
	struct fixed_group g;
	unsigned int i, started;
	int ret = 0;

	g.on_start = on_start;
	g.on_stop = on_stop;
	g.cb_arg = cb_arg;
	pthread_barrier_init(&g.start_a, nullptr, t->nr);
	pthread_barrier_init(&g.start_b, nullptr, t->nr);
	pthread_barrier_init(&g.end, nullptr, t->nr);
	for (i = 0; i < t->nr; i++) {
		th[i].fn = fn;
		th[i].arg = arg;
		th[i].t = t;
		th[i].st.group = &g;
		th[i].st.thread_index = i;
		th[i].st.threads = t->nr;
		th[i].st.target = ops;
	}
	/* Thread 0 is this one: pinned first, it makes what they share. */
	bool pinned;
	th[0].pin_error = pin_thread(t, 0, &pinned);
	err->msg[0] = '\0';
	if (t->setup && t->setup(arg, err)) {
		if (!err->msg[0])
			mdb_errf(err, "the set-up failed");
		ret = -1;
		goto out;
	}
	for (started = 1; started < t->nr; started++)
		if (pthread_create(&th[started].tid, nullptr, fixed_thread_run, &th[started])) {
			/* The barriers count every thread: none may be missing. */
			fprintf(stderr, "mdbench: cannot start a thread; exiting\n");
			exit(1);
		}
	if (!th[0].pin_error.empty())
		mdb_skip_with_error(&th[0].st, th[0].pin_error.c_str());
	else
		fn(&th[0].st, arg);
	fixed_keep_running(&th[0].st, 0);
	for (i = 1; i < t->nr; i++)
		pthread_join(th[i].tid, nullptr);
	if (t->teardown)
		t->teardown(arg);
	if (items)
		*items = 0;
	for (i = 0; i < t->nr; i++) {
		if (th[i].st.error && !ret) {
			ret = mdb_errf(err, "%s", th[i].st.error_msg.c_str());
		}
		if (items)
			*items += th[i].st.items;
	}
out:
	if (pinned)
		mdb_topology_unbind_thread(t->topo);
	pthread_barrier_destroy(&g.start_a);
	pthread_barrier_destroy(&g.start_b);
	pthread_barrier_destroy(&g.end);
	return ret;
}

extern "C" int mdb_fixed_run(mdb_bench_fn fn, void *arg, uint64_t ops, void (*on_start)(void *),
			     void (*on_stop)(void *), void *cb_arg, uint64_t *items,
			     struct mdb_err *err)
{
	struct mdb_state st;

	st.target = ops;
	st.on_start = on_start;
	st.on_stop = on_stop;
	st.cb_arg = cb_arg;
	fn(&st, arg);
	fixed_stop(&st);
	if (st.error)
		return mdb_errf(err, "%s", st.error_msg.c_str());
	if (items)
		*items = st.items;
	return 0;
}
