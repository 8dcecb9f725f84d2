#!/usr/bin/python3
"""The library under scripts/lib on its own: names, Google Benchmark's own
files, merging rounds, escaping, and the statistics against values worked
out by hand or from tables."""

import json
import math
import os
import random
import subprocess

from testlib import PY, TESTS, Scratch, fixture, load, main
import mdb_runner as rn


class Names(Scratch):
	def test_parse_name(self):
		import mdb_dump as md
		layouts, kernels = {"page64", "memdesc8"}, ["lookup/random", "lookup/random-dep", "footprint"]
		cases = {
			"lookup/random/page64/mix:desktop/ram:4GiB":
				("lookup/random", "page64", {"mix": "desktop", "ram": "4GiB"}),
			"lookup/random-dep/memdesc8/mix:a/ram:1GiB/age:fresh/pages:4k/threads:8/real_time":
				("lookup/random-dep", "memdesc8", {"mix": "a", "ram": "1GiB", "age": "fresh",
								   "pages": "4k"}),
			"footprint/page64/mix:desktop/ram:1GiB/folio:96B/min_time:0.010":
				("footprint", "page64", {"mix": "desktop", "ram": "1GiB", "folio": "96B"}),
			"baseline/latency/bytes:64MiB": ("baseline/latency", None, {"bytes": "64MiB"}),
			# a kernel the dump does not list: the parts before the layout
			"new/kernel/x/page64/mix:m/ram:1GiB": ("new/kernel/x", "page64", {"mix": "m", "ram": "1GiB"}),
		}
		for name, want in cases.items():
			self.assertEqual(md.parse_name(name, layouts, kernels), want, name)

	def test_variants_threads_and_key(self):
		import mdb_dump as md
		d = md.Dump(fixture("lab"))
		b = d.native["folio/getput/page32/mix:desktop/ram:1GiB/threads:4"]
		self.assertEqual((b.kernel, b.layout, b.threads, b.variant, b.kclass),
				 ("folio/getput", "page32", 4, (), "dependent"))
		self.assertEqual(b.key_without_layout(), "folio/getput/mix:desktop/ram:1GiB/threads:4")
		b = d.native["lookup/seq/memdesc8/mix:desktop/ram:1GiB/age:aged"]
		self.assertEqual(b.variant, (("age", "aged"),))
		self.assertEqual(d.real_layouts, ["kernel"])
		self.assertEqual(d.reference, "page64")

	def test_slug_never_merges_two_names(self):
		import mdb_dump as md
		self.assertEqual(md.slug("lookup/random"), "lookup-random")
		a, b = md.slug("поиск/a"), md.slug("поток/a")
		self.assertNotEqual(a, b)
		self.assertRegex(a, r"^[A-Za-z0-9._-]+$")

	def test_escaping(self):
		import mdb_dump as md
		self.assertEqual(md.md_cell("a|b\nc\x1b[31m<x>"), "a\\|b\\nc\\x1b[31m&lt;x>")
		self.assertEqual(md.printable("ok\r"), "ok\\r")


class CommandFrame(Scratch):
	"""mdb_cli.cli(): bad input is one line and exit status 2, a bug its
	traceback and exit status 2, a stop signal N exit status 128 + N."""

	def frame(self, body):
		code = ("import sys\nsys.path.insert(0, %r)\nimport mdb_cli as mc, mdb_dump as md\n"
			"def main(argv):\n\t%s\nmc.cli('prog', main)\n" % (os.path.join(TESTS, "..", "..",
			"scripts", "lib"), body))
		p = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60)
		return p.returncode, p.stderr

	def test_bad_input_is_one_line(self):
		rc, err = self.frame("raise md.DumpError('x.json: bad field')")
		self.assertEqual((rc, err), (2, "prog: x.json: bad field\n"))
		rc, err = self.frame("open('/nonexistent/x')")
		self.assertEqual((rc, err), (2, "prog: /nonexistent/x: No such file or directory\n"))

	def test_bug_shows_its_traceback(self):
		rc, err = self.frame("return {}['missing']")
		self.assertEqual(rc, 2, err)
		self.assertIn("Traceback (most recent call last)", err)
		self.assertTrue(err.endswith("KeyError: 'missing'\n"), err)
		self.assertNotIn("internal error", err)

	def test_stop_signal(self):
		rc, err = self.frame("import os, signal; mc.catch_stop_signals(); "
				     "os.kill(os.getpid(), signal.SIGTERM)")
		self.assertEqual((rc, err), (128 + 15, "prog: interrupted (SIGTERM)\n"))


class CollectGroups(Scratch):
	def test_threaded_kernels_grouped_by_thread_count(self):
		import json
		import mdb_runner as rn
		listing = rn.Listing(json.dumps({
			"schema_version": 2, "reference_layout": "page64",
			"layouts": [{"name": "page64"}, {"name": "page32"}],
			"kernels": [{"name": "lookup/random", "class": "dependent"},
				    {"name": "folio/getput-shared", "class": "dependent", "threaded": True}],
			"benchmarks": [
				{"name": f"{k}/{l}/mix:desktop/ram:1GiB{t}", "kernel": k,
				 "threads": int(t.split(":")[1]) if t else 1}
				for k, ts in (("lookup/random", [""]),
					      ("folio/getput-shared", ["/threads:1", "/threads:8"]))
				for t in ts for l in ("page64", "page32")],
		}))
		self.assertEqual([(t, len(n)) for t, n in listing.by_kernel()],
				 [("lookup/random", 2), ("folio/getput-shared threads:1", 2),
				  ("folio/getput-shared threads:8", 2)])
		self.assertTrue(all(n.endswith("/threads:8") for n in listing.by_kernel()[2][1]))

	def test_auto_estimate_counts_the_headline_minimum(self):
		"""--rounds=auto's least: one round of everything, auto_min_rounds
		of the headline size's timed benchmarks, its report once."""
		import json
		import mdb_runner as rn
		doc = {
			"schema_version": 2, "reference_layout": "page64", "layouts": [{"name": "page64"}],
			"kernels": [{"name": "lookup/random", "class": "dependent"},
				    {"name": "footprint", "class": "report"}],
			"benchmarks": [
				{"name": f"{k}/page64/mix:desktop/ram:{r}", "kernel": k, "ram_bytes": b,
				 "est_seconds": e}
				for k, r, b, e in (("lookup/random", "1GiB", 1 << 30, 2.0),
						   ("lookup/random", "16GiB", 1 << 34, 3.0),
						   ("footprint", "16GiB", 1 << 34, 5.0))],
			"machine": {"headline_ram_bytes": 1 << 34}, "auto_min_rounds": 10}
		self.assertEqual(rn.Listing(json.dumps(doc)).auto_est_seconds(), 10.0 + 9 * 3.0)
		del doc["auto_min_rounds"]		# an mdbench that does not say: one round
		self.assertEqual(rn.Listing(json.dumps(doc)).auto_est_seconds(), 10.0)


class GoogleBenchmarkFiles(Scratch):
	def test_custom_context_rebuilds_memdesc_bench(self):
		import mdb_dump as md
		a, b = md.Dump(fixture("one")), md.Dump(fixture("gbnative", "out.json"))
		self.assertEqual(b.layouts, a.layouts)
		self.assertEqual(b.kernels, a.kernels)
		self.assertEqual(b.reference, "page64")
		self.assertEqual(b.mb["run_id"], a.mb["run_id"])
		self.assertEqual(b.counters_unavailable(), a.counters_unavailable())
		# not listed there: the measurement fields of the timed entries
		self.assertEqual(list(b.counters_available()), ["page_faults", "context_switches"])
		self.assertEqual([x.name for x in b.native.values()], [x.name for x in a.native.values()])


class Merge(Scratch):
	def test_rounds_are_added_new_names_once(self):
		import mdb_dump as md
		one = load(fixture("one", "mdbench.json"))
		extra = load(fixture("one-again", "mdbench.json"))
		extra["benchmarks"] = [e for e in extra["benchmarks"] if e["name"].startswith("lookup/seq/")]
		doc = md.merge_docs([one, one, extra], rounds=[2])
		names = [e["run_name"] for e in doc["benchmarks"]]
		self.assertEqual(names.count("lookup/seq/page64/mix:desktop/ram:1GiB"), 10)
		self.assertEqual(names.count("lookup/random/page64/mix:desktop/ram:1GiB"), 5)
		mb = doc["context"]["memdesc_bench"]
		self.assertEqual([(p["rounds"], p["nr_benchmarks"]) for p in mb["parts"]],
				 [(False, 80), (False, 0), (True, 9)])
		self.assertEqual(mb["parts"][2]["run_id"], "20251203T070000Z-4e5f6a7b")

	def test_extra_rounds_follow_the_rounds_before(self):
		"""Rounds of an extra-rounds part are numbered after the parts'
		before it, so that pairing by round never pairs rounds of two runs;
		a part with new names keeps its own."""
		import mdb_dump as md
		one = load(fixture("one", "mdbench.json"))
		extra = load(fixture("one-again", "mdbench.json"))
		for doc, first in ((one, 1), (extra, 1)):
			seen = {}
			for e in doc["benchmarks"]:
				if e.get("run_type") == "iteration":
					seen[e["run_name"]] = seen.get(e["run_name"], first - 1) + 1
					e["round"] = seen[e["run_name"]]
		doc = md.merge_docs([one, extra], rounds=[1])
		ref = [e["round"] for e in doc["benchmarks"] if e.get("run_type") == "iteration" and
		       e["run_name"] == "lookup/seq/page64/mix:desktop/ram:1GiB"]
		self.assertEqual(ref, list(range(1, 11)))
		self.assertEqual([e["round"] for e in extra["benchmarks"] if e.get("run_type") == "iteration"
				  and e["run_name"] == "lookup/seq/page64/mix:desktop/ram:1GiB"],
				 list(range(1, 6)), "the parts given are left as they were")

	def test_refuses_another_schema(self):
		import mdb_dump as md
		old = load(fixture("bad", "schema1.json"))
		with self.assertRaisesRegex(md.DumpError, "part 2: schema_version 1, this script reads 2"):
			md.merge_docs([load(fixture("one", "mdbench.json")), old])


class Statistics(Scratch):
	def test_hodges_lehmann_and_interval(self):
		import mdb_stats as st
		a = [10, 11, 12, 13, 14]
		b = [x * 2 for x in a]
		c = st.compare(a, b, 0.01)
		self.assertAlmostEqual(c.ratio, 2.0)
		# 99% at 5 vs 5: k = 1, the smallest and largest pairwise ratio
		self.assertAlmostEqual(c.ci[0], 20 / 14)
		self.assertAlmostEqual(c.ci[1], 28 / 10)
		self.assertAlmostEqual(c.p, 2 / 252)
		# 95% at 5 vs 5: the critical U is 2 (tables), so the 3rd and 23rd of 25
		c = st.compare(a, b, 0.05)
		d = sorted(y / x for x in a for y in b)
		self.assertAlmostEqual(c.ci[0], d[2])
		self.assertAlmostEqual(c.ci[1], d[22])
		# 95% at 10 vs 10: critical U 23, so the 24th from each end of 100
		rng = random.Random(3)
		a = [1 + rng.random() for _ in range(10)]
		b = [1.2 + rng.random() for _ in range(10)]
		c = st.compare(a, b, 0.05)
		d = sorted(math.log(y) - math.log(x) for x in a for y in b)
		self.assertAlmostEqual(math.log(c.ci[0]), d[23])
		self.assertAlmostEqual(math.log(c.ci[1]), d[100 - 24])

	def test_interval_agrees_with_the_test(self):
		"""The interval excludes a ratio of 1 exactly when p < alpha."""
		import mdb_stats as st
		rng = random.Random(7)
		for n in (5, 6, 9, 12):
			for _ in range(40):
				a = [rng.lognormvariate(0, 0.1) for _ in range(n)]
				b = [rng.lognormvariate(rng.choice((0, 0.05, 0.2)), 0.1) for _ in range(n)]
				c = st.compare(a, b, 0.01)
				self.assertEqual(c.p < 0.01, not c.ci[0] <= 1 <= c.ci[1], (a, b, c.p, c.ci))

	def test_small_samples_exact_and_differences(self):
		import mdb_stats as st
		c = st.compare([1, 2, 3], [4, 5, 6], 0.01)	# p >= 0.1 at 3 vs 3: no interval at 0.01
		self.assertEqual((c.ci, round(c.p, 3), c.verdict),
				 (None, 0.1, "too few rounds (5 needed): slower in 9 of 9 pairs"))
		c = st.compare([7, 7, 7], [7, 7, 7])
		self.assertEqual((c.ratio, c.verdict), (1.0, "equal"))
		c = st.compare([0.0, 0.0], [0.5, 0.5])
		self.assertEqual((c.kind, c.diff, c.verdict), ("diff", 0.5, "slower (exact)"))
		c = st.compare([2.0], [3.0])
		self.assertEqual((c.ratio, c.p, c.verdict),
				 (1.5, None, "too few rounds (5 needed): slower in 1 of 1 pairs"))

	def test_verdict_words(self):
		"""Each word of st.verdict() on chosen rounds of one run
		(paired: round i of A and of B taken together)."""
		import mdb_stats as st
		base = [1.00, 0.99, 1.01, 0.98, 1.02, 1.00, 0.995, 1.005]
		words = {}
		for name, b in (("faster", [x * 0.8 for x in base]),
				("slower", [x * 1.1 for x in base]),
				("same", [x * y for x, y in zip(base, (1.01, 0.99, 1.0, 1.02, 0.98, 1.0,
									 1.005, 0.995))]),
				("undecided", [x * y for x, y in zip(base, (1.3, 0.8, 1.25, 0.85, 1.2,
									      1.1, 0.9, 1.15))])):
			words[name] = st.compare(base, b, paired=True).verdict
		self.assertEqual(words, {"faster": "faster", "slower": "slower",
					 "same": "same within \u00b15%",
					 "undecided": "undecided: slower in 5 of 8 rounds"})
		# the margin is the caller's: the same rounds are undecided at 1%
		c = st.compare(base, [x * 1.02 for x in base[:5]] + base[5:], margin=0.01, paired=True)
		self.assertTrue(c.verdict.startswith("undecided: slower in 5 of 8 rounds"), c.verdict)
		# paired, one round gives no interval; two do
		c = st.compare(base[:1], [x * 2 for x in base[:1]], paired=True)
		self.assertEqual(c.verdict, "too few rounds (2 needed): slower in 1 of 1 rounds")
		self.assertEqual(st.compare(base[:2], [2.02, 1.98], paired=True).verdict, "slower")
		# between runs (unpaired), 4 a side cannot reach p < 0.01 (least p 2/70): said so,
		# never read as equal
		c = st.compare(base[:4], [x * 2 for x in base[:4]])
		self.assertEqual(c.verdict, "too few rounds (5 needed): slower in 16 of 16 pairs")
		self.assertEqual((st.rounds_needed(0.01), st.rounds_needed(0.05), st.rounds_needed(0.1)),
				 (5, 4, 4))	# least p: 2/252, 2/70, 2/20
		self.assertEqual(c.verdict, st.verdict(c))	# one rule, callable again
		# counters and bytes: lower / higher
		c = st.compare([10, 11, 12, 13, 14], [20, 21, 22, 23, 24], words=st.VALUE_WORDS)
		self.assertEqual(c.verdict, "higher")
		self.assertEqual(st.category("too few rounds (5 needed): slower in 4 of 4 rounds"),
				 "too few rounds")
		self.assertEqual(st.tally_text(["slower", "undecided: x", "slower", "equal"]),
				 "2 slower, 1 equal, 1 undecided")

	def test_a_known_difference_is_found(self):
		"""The verdict on synthetic rounds: 8 rounds of a group, each
		layout's time drawn with 3% log-normal noise, one layout 10% slower
		in every round (a known +10% of work): the verdict finds it in
		at least 90% of 40 seeded trials; an A/A pair (no change) is
		never called faster or slower, and is the same within 10% in most."""
		import mdb_stats as st
		rng = random.Random(28)
		found = aa_decided = aa_same = 0
		for _ in range(40):
			ref = [rng.lognormvariate(0, 0.03) for _ in range(8)]
			slow = [1.10 * rng.lognormvariate(0, 0.03) for _ in range(8)]
			twin = [rng.lognormvariate(0, 0.03) for _ in range(8)]
			found += st.compare(ref, slow, paired=True).verdict == "slower"
			v = st.compare(ref, twin, margin=0.10, paired=True).verdict
			aa_decided += st.decided(v)
			aa_same += v == "same within \u00b110%"
		self.assertGreaterEqual(found, 36)
		self.assertEqual(aa_decided, 0)
		self.assertGreaterEqual(aa_same, 28)

	def test_spread_and_fit(self):
		import mdb_stats as st
		self.assertAlmostEqual(st.relative_spread([0.8, 0.9, 1.0, 1.1, 1.2]), 0.2)
		a, n, r = st.linear_fit([64, 80, 96, 128], [3145728 + 65536 * d for d in (64, 80, 96, 128)])
		self.assertAlmostEqual(a, 3145728)
		self.assertAlmostEqual(n, 65536)
		self.assertAlmostEqual(r, 1.0)

	def test_aa_widths_of_each_round_value(self):
		"""scripts/lib/mdb_estimators.py on fixture one with page64's twin,
		every round 10 short runs at the round's time: the twin's first
		round has one run 3x as long.  min, median and the trimmed mean
		leave it out (their A/A intervals those of the rounds as they
		are); the mean takes a tenth of it (wider)."""
		import mdb_dump as md
		import mdb_estimators as me
		import mdb_stats as st
		doc = load(fixture("one", "mdbench.json"))
		twins = []
		for b in doc["benchmarks"]:
			b["round_rep"] = {"reps": 10, "real_time": [b["real_time"]] * 10,
					  "cpu_time": [b["real_time"]] * 10}
			if b["name"] == "lookup/random/page64/mix:desktop/ram:4GiB":
				t = json.loads(json.dumps(b))
				t["name"] = t["run_name"] = t["name"] + "/twin:b"
				twins.append(t)
		spike = twins[0]["round_rep"]["real_time"]
		spike[9] *= 3
		doc["benchmarks"] += twins
		doc["context"]["memdesc_bench"]["twin"] = "twin:b"
		w = me.aa_widths(md.Dump(self.write_dump(doc)), st.ROUND_ESTIMATORS)
		name = "lookup/random/page64/mix:desktop/ram:4GiB"
		plain = st.compare(*[[b["real_time"] for b in doc["benchmarks"] if b["name"] == n]
				     for n in (name, name + "/twin:b")]).ci
		for e in ("min", "median", "trim20"):	# trim20: a sum of equal values, to rounding
			self.assertAlmostEqual(me.width(w[e][name]), me.width(plain), places=12, msg=e)
		self.assertGreater(me.width(w["mean"][name]), me.width(plain) + 0.01)
		self.assertAlmostEqual(st.round_value(spike, "mean"), spike[0] * 1.2, places=9)
		# paired round by round, the twin's trimmed rounds equal the
		# reference's: every round's ratio 1, an interval of no width
		paired = me.aa_widths(md.Dump(self.write_dump(doc)), (me.PAIRED,))[me.PAIRED][name]
		self.assertAlmostEqual(paired[0], 1.0, places=12)
		self.assertAlmostEqual(paired[1], 1.0, places=12)
		# entries with rounds pair by round: a twin that skipped round 2 (its
		# row decided) still pairs its other rounds with the reference's
		for n in (name, name + "/twin:b"):
			mine = [b for b in doc["benchmarks"] if b["name"] == n]
			for r, b in enumerate(mine, 1):
				b["round"] = r
		doc["benchmarks"].remove([b for b in doc["benchmarks"]
					  if b["name"] == name + "/twin:b" and b["round"] == 2][0])
		paired = me.aa_widths(md.Dump(self.write_dump(doc)), (me.PAIRED,))[me.PAIRED][name]
		self.assertAlmostEqual(paired[0], 1.0, places=12)
		self.assertAlmostEqual(paired[1], 1.0, places=12)

	def test_paired_t(self):
		"""Rounds' ratios 1 and 2: their geometric mean sqrt(2), the 99%
		interval sqrt(2) * exp(+-t(0.995, 1) * sd / sqrt(2)) with sd =
		ln 2 / sqrt(2) and t(0.995, 1) = 63.657; one round: no interval;
		rounds that do not pair: an error."""
		import mdb_stats as st
		r, ci = st.paired_t([10.0, 10.0], [10.0, 20.0])
		self.assertAlmostEqual(r, math.sqrt(2))
		h = 63.65674116287399 * math.log(2) / 2
		self.assertAlmostEqual(ci[0], math.sqrt(2) * math.exp(-h), places=6)
		self.assertAlmostEqual(ci[1] / 1e9, math.sqrt(2) * math.exp(h) / 1e9, places=6)
		self.assertEqual(st.paired_t([4.0], [6.0]), (1.5, None))
		with self.assertRaises(ValueError):
			st.paired_t([1.0, 2.0], [1.0])

	def test_paired_t_trimmed(self):
		"""Ten rounds, two cut at each end: exp of the trimmed mean of the
		log ratios (scipy's trim_mean); the interval's ends the shifts at
		which scipy's Yuen test against a sample of zeros (no variance of
		its own: df h - 1) gives p = 0.01, and compare's p that test's; a
		round 20 times slower on one side moves nothing, where the mean of
		ten would move by log(20) / 10 and Student's interval hold 1."""
		import mdb_stats as st
		from scipy.stats import trim_mean, ttest_1samp, ttest_ind
		a = [10.0, 11.0, 9.5, 10.2, 10.8, 9.9, 10.1, 10.4, 9.7, 10.6]
		f = [1.21, 1.19, 1.24, 1.18, 1.22, 1.20, 1.23, 1.17, 1.25, 1.215]
		b = [x * y for x, y in zip(a, f)]
		d = [math.log(y / x) for x, y in zip(a, b)]
		r, ci = st.paired_t(a, b)
		self.assertAlmostEqual(r, math.exp(trim_mean(d, 0.2)), places=12)
		zeros = [0.0] * 10
		for end in ci:
			p = ttest_ind([x - math.log(end) for x in d], zeros, equal_var=False, trim=0.2).pvalue
			self.assertAlmostEqual(p, 0.01, places=6)
		c = st.compare(a, b, paired=True)
		self.assertAlmostEqual(c.p, ttest_ind(d, zeros, equal_var=False, trim=0.2).pvalue, places=9)
		self.assertEqual(c.verdict, "slower")
		i = f.index(max(f))
		wild = b[:i] + [20 * b[i]] + b[i + 1:]
		self.assertEqual(st.paired_t(a, wild), (r, ci))
		self.assertEqual(st.compare(a, wild, paired=True).verdict, "slower")
		self.assertGreater(ttest_1samp([math.log(y / x) for x, y in zip(a, wild)], 0).pvalue, 0.01)

	def test_yuen_t(self):
		"""Two runs' rounds: exp of the difference of the 20% trimmed means
		of the logs; p scipy's Yuen-Welch t test (ttest_ind, trim=0.2); the
		interval's ends the shifts at which that test gives p = alpha; the
		largest value of ten made 100 times larger moves nothing (it is
		cut, and winsorized to the next); ratios a division rounds apart
		are one ratio; one round a side: no interval."""
		import mdb_stats as st
		from scipy.stats import trim_mean, ttest_ind
		a = [1.0, 1.1, 1.2, 0.9, 1.05, 1.02, 0.97, 1.12, 1.01, 0.95]
		b = [1.3, 1.25, 1.4, 1.2, 1.35, 1.28, 1.31, 1.22, 1.27, 1.33]
		la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
		r, ci, p = st.yuen_t(a, b)
		self.assertAlmostEqual(r, math.exp(trim_mean(lb, 0.2) - trim_mean(la, 0.2)), places=12)
		self.assertAlmostEqual(p, ttest_ind(lb, la, equal_var=False, trim=0.2).pvalue, places=10)
		self.assertLess(p, 0.01)
		for end in ci:
			shifted = [x - math.log(end) for x in lb]
			self.assertAlmostEqual(ttest_ind(shifted, la, equal_var=False, trim=0.2).pvalue,
					       0.01, places=8)
		wild = sorted(b)[:-1] + [100 * max(b)]
		self.assertEqual(st.yuen_t(a, wild), (r, ci, p))
		self.assertEqual(st.trim_cut(10), 2)
		self.assertEqual(st.yuen_t([0.1 * 3, 0.3], [0.3, 0.3]), (1.0, (1.0, 1.0), 1.0))
		self.assertEqual(st.yuen_t([2.0], [3.0, 3.3])[1:], (None, None))
		c = st.compare(a, b, trimmed=True)
		self.assertEqual((c.trimmed, c.verdict), (True, "slower"))
		self.assertEqual(st.compare([2.0], [3.0, 3.3], trimmed=True).verdict,
				 "too few rounds (2 needed): slower in 2 of 2 pairs")


class FootprintPasses(Scratch):
	"""run's footprint passes: the mixes split for the passes side by
	side, how many at once, and the time they take so."""

	def test_split(self):
		self.assertEqual(rn.split(list("abcdefg"), 2), [list("abcd"), list("efg")])
		self.assertEqual(rn.split(list("ab"), 5), [["a"], ["b"]])
		self.assertEqual(rn.split(list("ab"), 0), [["a", "b"]])

	def test_passes(self):
		mixes = [f"m{i}" for i in range(10)]
		# MAX_MIXES (8) a pass, whatever the jobs
		self.assertEqual([len(c) for c, _ in rn.footprint_passes(mixes, [], 1)], [5, 5])
		self.assertEqual([len(c) for c, _ in rn.footprint_passes(mixes, [], 3)], [4, 3, 3])
		self.assertEqual([len(c) for c, _ in rn.footprint_passes(mixes[:2], [], 4)], [1, 1])
		self.assertEqual(rn.footprint_passes([], [], 2), [])

	def test_jobs(self):
		gib = 1 << 30
		need = rn.FOOTPRINT_BYTES_PER_RAM * 16 * gib + rn.FOOTPRINT_BYTES_FIXED
		self.assertEqual(rn.footprint_jobs([], 16 * gib, cpus=2, available=20 * gib), 2)
		self.assertEqual(rn.footprint_jobs([], 16 * gib, cpus=8, available=3 * need), 3)
		self.assertEqual(rn.footprint_jobs([], 16 * gib, cpus=8, available=need - 1), 1)
		self.assertEqual(rn.footprint_jobs([], 16 * gib, cpus=8, available=0), 1)
		self.assertEqual(rn.footprint_jobs(["--cpu=3"], 16 * gib, cpus=8, available=20 * gib), 1)

	def test_makespan(self):
		self.assertEqual(rn.makespan([3, 2, 1], 2), 3)
		self.assertEqual(rn.makespan([1, 2, 3], 2), 4)	# in the order given
		self.assertEqual(rn.makespan([1, 2, 3], 1), 6)
		self.assertEqual(rn.makespan([], 2), 0.0)


class MachineText(Scratch):
	"""What the report says of the cache the headline was sized from and of
	the simulation's regime, from the dump's own fields."""
	def test_llc_and_regime(self):
		import mdb_report as mr

		class Dump:
			mb = {"machine": {"llc_bytes": 8 << 20, "llc_source": "measured",
					  "llc_reason": "the measured last level (8MiB) and hwloc's (300MiB) "
							"differ by more than 2x"}}
		self.assertEqual(mr.llc_text(Dump()), " of 8MiB, measured: the measured last level "
				 "(8MiB) and hwloc's (300MiB) differ by more than 2x")
		Dump.mb = {"machine": {}}
		self.assertEqual(mr.llc_text(Dump()), "")
		sim = {"simulation": {"tool": "callgrind", "ops": {"a": 10}, "native_ram_over_llc": 4096.0,
				      "sim_ram_over_ll": 4096.0}}
		self.assertTrue(mr.sim_text(sim).endswith("; RAM/LL 4096 simulated, 4096 native at the headline"))
		del sim["simulation"]["native_ram_over_llc"]
		self.assertNotIn("RAM/LL", mr.sim_text(sim))


class Digest(Scratch):
	"""The first screen: the footprint under the run's own cache option, a
	kernel in the pivot only where one of its cells is decided or the same
	within the margin, the rest in the undecided lines."""
	def digest(self, name, edit):
		import mdb_dump as md
		import mdb_report as mr
		doc = load(fixture(name, "mdbench.json"))
		edit(doc["benchmarks"])
		os.makedirs(os.path.join(self.tmp, "d"))
		with open(os.path.join(self.tmp, "d", "mdbench.json"), "w") as f:
			json.dump(doc, f)
		d = md.load_dumps([os.path.join(self.tmp, "d")])[0]
		return mr, d, mr.digest(d, 0.01)

	def test_undecided_kernel_only_below(self):
		# alloc/order0-zero: page32 undecided; memdesc8's entries taken out,
		# no cell of the kernel is decided any more.
		drop = lambda bs: bs.__setitem__(slice(None), [b for b in bs if not (
			b["name"].startswith("alloc/order0-zero/memdesc8/"))])
		_, _, (_, header, rows, open_) = self.digest("scale", drop)
		self.assertEqual(header, ["", "page32", "memdesc8"])
		self.assertNotIn("alloc/order0-zero", [r[0] for r in rows])
		self.assertIn("lookup/seq", [r[0] for r in rows])
		# the fixture's entries carry no round: its rows compare as two samples
		self.assertEqual(open_, ["alloc/order0-zero page32: undecided: slower in 24 of 25 pairs"])

	def test_footprint_of_the_runs_cache_option(self):
		# Every footprint entry again under another --desc-cache option.
		def add(bs):
			bs += [dict(b, name=b["name"] + "/cache:hwcache", run_name=b["run_name"] + "/cache:hwcache")
			       for b in bs if b["name"].startswith("footprint/")]
		mr, d, (_, _, rows, _) = self.digest("one", add)
		self.assertEqual([r[0] for r in rows if r[0].startswith("footprint")],
				 ["footprint, desktop", "footprint, server"])
		self.assertIn("desktop cache:hwcache", [r[0] for r in mr.footprint_rows(d)[1]])


class Discovery(Scratch):
	def test_every_test_class_is_found(self):
		files = sorted(f for f in os.listdir(TESTS) if f.startswith("test_") and f.endswith(".py"))
		out = subprocess.run([PY, os.path.join(TESTS, "discover.py"),
				      *[os.path.join(TESTS, f) for f in files]],
				     capture_output=True, text=True, check=True).stdout
		found = [line.split(";") for line in out.splitlines()]
		self.assertIn([os.path.join(TESTS, "test_lib.py"), "Discovery"], found)
		self.assertIn([os.path.join(TESTS, "test_hostile.py"), "HostileDumps"], found)
		self.assertNotIn("Scratch", [c for _, c in found])


if __name__ == "__main__":
	main(needs=("scipy",))
