// SPDX-License-Identifier: GPL-2.0
/*
 * dump_reporter.cc - the dump: Google Benchmark's reporter that writes
 * mdbench.json (shim.h mdb_report_start(), mdb_benchmark_run()).
 *
 * The dump is Google Benchmark's own JSON: its JSONReporter writes the
 * context and each benchmark's runs, which we parse (jansson), keep as one
 * document with our memdesc_bench object added to "context", and write
 * whole (temporary file, fsync, rename) after every benchmark, so an
 * interrupted run leaves a valid file of what finished.  Its
 * tools/compare.py reads the file as it reads any of its dumps.  Before
 * Google Benchmark 1.9 (MDB_GB_DIVIDES_THREAD_TIME) a threaded run's real
 * time is multiplied back by its threads (as_gb19()), so that a dump means
 * the same whichever built it; 1.8 replaced Run::error_occurred by
 * Run::skipped (MDB_GB_SKIPPED).
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

#include <time.h>

#include "interrupt.h"
#include "jsonio.h"
#include "shim.h"
#include "units.h"

#ifdef MDB_GB_SKIPPED
static bool run_failed(const benchmark::BenchmarkReporter::Run &r)
{
	return r.skipped == benchmark::internal::SkippedWithError;
}
#else
static bool run_failed(const benchmark::BenchmarkReporter::Run &r)
{
	return r.error_occurred;
}
#endif

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

typedef benchmark::BenchmarkReporter::Run gb_run;

/* value() of f(r) over the runs reps. */
template <typename F>
double reduce(const std::vector<gb_run> &reps, double (*value)(const double *, size_t), F f)
{
	std::vector<double> v;

	for (const gb_run &r : reps)
		v.push_back(f(r));
	return value(v.data(), v.size());
}

double counter_of(const gb_run &r, const std::string &name)
{
	auto it = r.counters.find(name);

	return it == r.counters.end() ? NAN : it->second.value;
}

double min_of(const double *v, size_t n)
{
	return *std::min_element(v, v + n);
}

/*
 * One round from its repetitions (mdb_set_round()): the first's identity,
 * each time per iteration and each counter the round's value of the
 * repetitions' (they ran one iteration count); a failed repetition stands
 * for the round.  Times are reduced per iteration and rates as their
 * inverse: every estimator of rounds.h commutes with scaling, so real_time
 * is the estimate of the repetitions' real_time and items_per_second goes
 * with cpu_time.
 */
gb_run round_of(const std::vector<gb_run> &reps, double (*value)(const double *, size_t))
{
	gb_run out = reps[0];

	for (const gb_run &r : reps)
		if (run_failed(r))
			out = r;
	out.repetitions = 1;
	out.repetition_index = 0;
	/* The instance's own name: what MinTime() and Repetitions() appended is ours. */
	out.run_name.min_time.clear();
	out.run_name.repetitions.clear();
	if (run_failed(out) || !out.iterations)
		return out;
	out.real_accumulated_time = (double)out.iterations * reduce(reps, value, [](const gb_run &r) {
		return r.real_accumulated_time / (double)r.iterations; });
	out.cpu_accumulated_time = (double)out.iterations * reduce(reps, value, [](const gb_run &r) {
		return r.cpu_accumulated_time / (double)r.iterations; });
	for (auto &c : out.counters) {
		const std::string &name = c.first;
		/* A rate is per second: reduced as seconds per unit, it goes with the times. */
		bool rate = (c.second.flags & benchmark::Counter::kIsRate) &&
			    reduce(reps, min_of, [&name](const gb_run &r) { return counter_of(r, name); }) > 0;

		c.second.value = reduce(reps, value, [&name, rate](const gb_run &r) {
			return rate ? 1 / counter_of(r, name) : counter_of(r, name); });
		if (rate)
			c.second.value = 1 / c.second.value;
	}
	return out;
}

/* round_rep of an entry: the repetitions' times as the dump gives them. */
json_t *round_rep_json(const std::vector<gb_run> &reps)
{
	json_t *o = json_pack("{s:I, s:[], s:[]}", "reps", (json_int_t)reps.size(), "real_time",
			      "cpu_time");

	for (const gb_run &r : reps) {
		json_array_append_new(json_object_get(o, "real_time"), json_real(r.GetAdjustedRealTime()));
		json_array_append_new(json_object_get(o, "cpu_time"), json_real(r.GetAdjustedCPUTime()));
	}
	return o;
}

/* Fields of an entry that say which it is, not what it measured: no median of them. */
bool identity_field(const char *key)
{
	static const char *const keys[] = { "family_index", "per_family_instance_index",
		"repetitions", "repetition_index", "threads", "iterations" };

	for (const char *k : keys)
		if (!strcmp(key, k))
			return true;
	return false;
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
		json_object_del(agg, "round_rep");	/* one round's runs, not the median's */
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

/*
 * The runs as the terminal shows them: without the counters the annotation
 * took out of their entries (counters_not_trusted: an untrusted 0 is no
 * value on the terminal either; the dump says why).  One entry per run, in
 * order, as Google Benchmark's JSON reporter writes them.
 */
static std::vector<benchmark::BenchmarkReporter::Run> without_untrusted(
	const std::vector<benchmark::BenchmarkReporter::Run> &runs, json_t *entries)
{
	std::vector<benchmark::BenchmarkReporter::Run> out(runs);

	for (size_t i = 0; entries && i < out.size() && i < json_array_size(entries); i++) {
		json_t *nt = json_object_get(json_array_get(entries, i), "counters_not_trusted");
		const char *name;
		json_t *why;

		json_object_foreach(nt, name, why)
			out[i].counters.erase(name);
	}
	return out;
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
		const std::vector<Run> &all = as_gb19(gb_runs);
		bool rounds = rep_->round_value && !all.empty() && all[0].repetitions > 1;
		std::vector<Run> runs;
		struct mdb_err err;
		json_t *entries;

		/* Our repetitions are a round: Google Benchmark's aggregates of them are not. */
		if (rounds && all[0].run_type == Run::RT_Aggregate)
			return;
		runs = rounds ? std::vector<Run>{ round_of(all, rep_->round_value) } : all;
		entries = gb_runs_json(runs, &err);
		if (entries && rounds)
			json_object_set_new(json_array_get(entries, 0), "round_rep", round_rep_json(all));

		if (entries && rep_->annotate) {
			size_t i;
			json_t *e;

			json_array_foreach(entries, i, e)
				rep_->annotate(json_string_value(json_object_get(e, "run_name")), e,
					       rep_->arg);
		}
		display_->ReportRuns(without_untrusted(runs, entries));
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

	unsigned long added;
	double est;

	mdb_interrupt_catch(true);
	for (;;) {
		benchmark::RunSpecifiedBenchmarks(&dump);
		if (!rep->next_pass)
			break;
		benchmark::ClearRegisteredBenchmarks();
		added = 0;
		est = 0;
		if (!rep->next_pass(rep->arg, dump.elapsed(), &added, &est))
			break;
		dump.expect_more(added, est);
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
