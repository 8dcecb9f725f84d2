// SPDX-License-Identifier: GPL-2.0
/*
 * shim.cc - mdb.h over Google Benchmark (1.7 to 1.9); the dump is
 * dump_reporter.cc's.
 *
 * A struct mdb_state is either a benchmark::State (the normal run) or a
 * fixed-count run (mdb_fixed_run, under valgrind).  Hardware counters are
 * started on the first mdb_keep_running_batch(), right before Google
 * Benchmark starts its clock, and read when the loop ends, so they cover what
 * the clock covers, pauses included.
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

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <regex.h>
#include <unistd.h>

#include "shim.h"
#include "topology.h"
#include "units.h"

#ifdef MDB_GB_SKIPPED
extern "C" const char mdb_gb_api[] = "1.8+";
#else
extern "C" const char mdb_gb_api[] = "1.7";
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
static unsigned int g_round_reps = 1;	/* mdb_set_round() */
static double g_round_min_time;
static pthread_t g_counters_thread;	/* the thread that opened them, the only one they count */
static bool g_interleave_given;		/* --benchmark_enable_random_interleaving on the command line */

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
		if (name == "benchmark_enable_random_interleaving")
			g_interleave_given = true;
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
 * turns into a rate; a kernel that sets no item count counts its
 * iterations, so Google Benchmark's own per-iteration average does it.  The
 * choice rests on whether the kernel counts items, never on whether this
 * run's count happened to equal the iterations: the flags must agree across
 * a round's repetitions (ComputeStats() aborts where they part), and a
 * scanner that resumes where it stopped covers exactly its iterations in
 * some runs and a block more in others.
 */
static benchmark::Counter make_counter(const struct mdb_state *st, double value, unsigned int flags)
{
	benchmark::Counter::Flags gb_flags = benchmark::Counter::kDefaults;

	if (flags & MDB_COUNTER_RATE)
		gb_flags = benchmark::Counter::kIsRate;
	/* Threads: Google Benchmark sums each thread's value; per item is over all their items. */
	if ((flags & MDB_COUNTER_PER_ITEM) && st->threads > 1)
		return benchmark::Counter(value, (benchmark::Counter::Flags)(gb_flags |
					  benchmark::Counter::kAvgIterations));
	if (flags & MDB_COUNTER_PER_ITEM) {
		if (st->items_set && st->items)
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

/*
 * Google Benchmark's flag, defined in its library (BM_DEFINE_bool in
 * benchmark.cc since 1.6) but declared in no public header: read by each
 * RunSpecifiedBenchmarks(), so it can change between passes.
 */
namespace benchmark {
extern bool FLAGS_benchmark_enable_random_interleaving;
}

extern "C" void mdb_set_interleave(bool on)
{
	if (!g_interleave_given)
		benchmark::FLAGS_benchmark_enable_random_interleaving = on;
}

extern "C" void mdb_set_round(unsigned int reps, double min_time)
{
	g_round_reps = reps;
	g_round_min_time = min_time;
}

/*
 * The round mdb_set_round() asked for, on b.  A template because the class is
 * benchmark::internal::Benchmark in 1.7 and ::benchmark::Benchmark in 1.9,
 * where the old name is deprecated (and -Werror).
 */
template <class B> static B *as_round(B *b)
{
	if (g_round_reps > 1 && g_round_min_time > 0)
		b->Repetitions((int)g_round_reps)->MinTime(g_round_min_time);
	return b;
}

extern "C" void mdb_register(const char *name, mdb_bench_fn fn, void *arg)
{
	as_round(benchmark::RegisterBenchmark(name, [fn, arg](benchmark::State &s) { run_gb(s, fn, arg, false); })
		->Unit(benchmark::kNanosecond));
}

extern "C" void mdb_register_manual_time(const char *name, mdb_bench_fn fn, void *arg)
{
	as_round(benchmark::RegisterBenchmark(name, [fn, arg](benchmark::State &s) { run_gb(s, fn, arg, true); })
		->UseManualTime()
		->Unit(benchmark::kNanosecond));
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
	auto *b = as_round(benchmark::RegisterBenchmark(name, [ctl](benchmark::State &s) { run_gb_threads(s, ctl); })
		->Threads((int)t->nr)
		->Unit(benchmark::kNanosecond));
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
