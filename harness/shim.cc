// SPDX-License-Identifier: GPL-2.0
/*
 * shim.cc - mdb.h over Google Benchmark 1.7, and the dump.
 *
 * A struct mdb_state is either a benchmark::State (the normal run) or a
 * fixed-count run (mdb_run_fixed, under valgrind).  Hardware counters are
 * started on the first mdb_keep_running_batch(), right before Google
 * Benchmark starts its clock, and read when the loop ends, so they cover what
 * the clock covers, pauses included.
 *
 * The dump is Google Benchmark's own JSON, produced by its JSONReporter into
 * a string, with our memdesc_bench object added to "context": its
 * tools/compare.py reads it as it reads any of its dumps.  The whole file is
 * rewritten (temporary name, then rename) after every benchmark, so a run
 * that is interrupted leaves a valid file with what finished.
 */
#include <benchmark/benchmark.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "shim.h"

namespace {

struct user_counter {
	std::string name;
	double value;
	unsigned int flags;
};

}	// namespace

struct mdb_state {
	benchmark::State *gb = nullptr;

	/* The fixed-count backend. */
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

/* ------------------------------------------------------------------ */
/* mdb.h                                                               */

static void fixed_stop(struct mdb_state *st)
{
	if (st->started && !st->stopped && st->on_stop)
		st->on_stop(st->cb_arg);
	st->stopped = true;
}

static bool fixed_keep_running(struct mdb_state *st, uint64_t n)
{
	if (!st->started) {
		st->started = true;
		if (st->on_start)
			st->on_start(st->cb_arg);
	}
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
	if (st->hw_read) {
		for (i = 0; i < st->hw->nr; i++)
			if (st->hw_values.valid[i])
				s.counters[st->hw->c[i].name] =
					make_counter(st, st->hw_values.value[i], MDB_COUNTER_PER_ITEM);
	}
	for (const user_counter &u : st->user)
		s.counters[u.name] = make_counter(st, u.value, u.flags);
}

static void run_gb(benchmark::State &s, mdb_bench_fn fn, void *arg)
{
	struct mdb_state st;

	st.gb = &s;
	if (g_counters && mdb_counters_nr_available(g_counters))
		st.hw = g_counters;
	fn(&st, arg);
	hw_stop(&st);		/* a kernel that left its loop early */
	report_counters(&st);
}

extern "C" int mdb_benchmark_init(int *argc, char **argv)
{
	benchmark::Initialize(argc, argv);
	return benchmark::ReportUnrecognizedArguments(*argc, argv) ? -1 : 0;
}

extern "C" void mdb_register(const char *name, mdb_bench_fn fn, void *arg)
{
	benchmark::RegisterBenchmark(name, [fn, arg](benchmark::State &s) { run_gb(s, fn, arg); })
		->Unit(benchmark::kNanosecond);
}

extern "C" void mdb_use_counters(struct mdb_counters *set)
{
	g_counters = set;
}

/* ------------------------------------------------------------------ */
/* Interruption: the last rename is the dump; say so and leave.         */

static char sig_tmp_path[4096];
static char sig_msg_head[64] = "mdbench: interrupted, ";
static char sig_msg_tail[4200];
static volatile sig_atomic_t sig_nr_done;

static void on_signal(int sig)
{
	char digits[24];
	int n = sig_nr_done, i = sizeof(digits);
	ssize_t ignored;

	if (sig_tmp_path[0])
		unlink(sig_tmp_path);	/* a rewrite it cut short */
	do {
		digits[--i] = (char)('0' + n % 10);
		n /= 10;
	} while (n && i);
	ignored = write(STDERR_FILENO, sig_msg_head, strlen(sig_msg_head));
	ignored = write(STDERR_FILENO, digits + i, sizeof(digits) - (size_t)i);
	ignored = write(STDERR_FILENO, sig_msg_tail, strlen(sig_msg_tail));
	(void)ignored;
	_exit(128 + sig);
}

/* ------------------------------------------------------------------ */
/* The dump                                                            */

namespace {

class TeeReporter : public benchmark::BenchmarkReporter {
public:
	explicit TeeReporter(const struct mdb_report *rep)
		: rep_(rep), display_(benchmark::CreateDefaultDisplayReporter())
	{
		json_.SetOutputStream(&text_);
		json_.SetErrorStream(&std::cerr);
		if (rep->out_dir) {
			path_ = std::string(rep->out_dir) + "/mdbench.json";
			tmp_ = std::string(rep->out_dir) + "/.mdbench.json.tmp";
		}
	}

	bool ReportContext(const Context &context) override
	{
		bool ok = display_->ReportContext(context);

		json_.ReportContext(context);
		write(false);
		return ok;
	}

	void ReportRuns(const std::vector<Run> &runs) override
	{
		display_->ReportRuns(runs);
		json_.ReportRuns(runs);
		for (const Run &r : runs)
			failed_ += r.error_occurred;
		sig_nr_done = ++done_;
		write(false);
	}

	void Finalize() override
	{
		display_->Finalize();
		json_.Finalize();
		finalized_ = true;
		write(true);
	}

	unsigned long done() const { return done_; }
	unsigned long failed() const { return failed_; }
	bool write_failed() const { return write_failed_; }
	const std::string &path() const { return path_; }
	const std::string &tmp_path() const { return tmp_; }

private:
	/* GB's text so far, our object spliced in at the end of its context, closed if need be. */
	std::string render(bool complete)
	{
		static const char context_end[] = "\n  },\n  \"benchmarks\": [";
		std::string gb = text_.str(), out;
		size_t at = gb.find(context_end);
		char *ours = rep_->context_json(complete, rep_->arg);

		if (at == std::string::npos || !ours) {
			free(ours);
			return std::string();
		}
		out.reserve(gb.size() + strlen(ours) + 64);
		out.append(gb, 0, at);
		out += ",\n    \"memdesc_bench\": ";
		out += ours;
		out.append(gb, at, std::string::npos);
		if (!finalized_)
			out += "\n  ]\n}\n";
		free(ours);
		return out;
	}

	void write(bool complete)
	{
		std::string text;
		FILE *f;
		bool ok;

		if (path_.empty() || write_failed_)
			return;
		text = render(complete);
		if (text.empty()) {
			fprintf(stderr, "mdbench: cannot place memdesc_bench in Google Benchmark's JSON\n");
			write_failed_ = true;
			return;
		}
		f = fopen(tmp_.c_str(), "w");
		ok = f && fwrite(text.data(), 1, text.size(), f) == text.size();
		ok = f && !fclose(f) && ok;
		if (!ok || rename(tmp_.c_str(), path_.c_str())) {
			fprintf(stderr, "mdbench: cannot write %s: %s\n", path_.c_str(), strerror(errno));
			unlink(tmp_.c_str());
			write_failed_ = true;
		}
	}

	const struct mdb_report *rep_;
	std::unique_ptr<benchmark::BenchmarkReporter> display_;
	benchmark::JSONReporter json_;
	std::ostringstream text_;
	std::string path_, tmp_;
	unsigned long done_ = 0, failed_ = 0;
	bool finalized_ = false, write_failed_ = false;
};

}	// namespace

static void catch_signals(const TeeReporter &tee, bool on)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? on_signal : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	if (on) {
		snprintf(sig_tmp_path, sizeof(sig_tmp_path), "%s", tee.tmp_path().c_str());
		if (tee.path().empty())
			snprintf(sig_msg_tail, sizeof(sig_msg_tail), " benchmarks finished, no --out\n");
		else
			snprintf(sig_msg_tail, sizeof(sig_msg_tail), " benchmarks kept in %s\n",
				 tee.path().c_str());
		sig_nr_done = 0;
	}
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);
}

extern "C" int mdb_benchmark_run(const struct mdb_report *rep)
{
	TeeReporter tee(rep);

	catch_signals(tee, true);
	benchmark::RunSpecifiedBenchmarks(&tee);
	catch_signals(tee, false);
	if (!tee.path().empty() && !tee.write_failed())
		fprintf(stderr, "mdbench: %lu benchmarks written to %s\n", tee.done(), tee.path().c_str());
	if (tee.failed())
		fprintf(stderr, "mdbench: %lu benchmark runs failed\n", tee.failed());
	return tee.failed() || tee.write_failed() ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* The fixed-count run                                                  */

extern "C" int mdb_fixed_run(mdb_bench_fn fn, void *arg, uint64_t ops, void (*on_start)(void *),
			     void (*on_stop)(void *), void *cb_arg, uint64_t *items, char *err,
			     size_t err_len)
{
	struct mdb_state st;

	st.target = ops;
	st.on_start = on_start;
	st.on_stop = on_stop;
	st.cb_arg = cb_arg;
	fn(&st, arg);
	fixed_stop(&st);
	if (st.error) {
		snprintf(err, err_len, "%s", st.error_msg.c_str());
		return -1;
	}
	if (items)
		*items = st.items;
	return 0;
}
