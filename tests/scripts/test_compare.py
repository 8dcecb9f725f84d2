#!/usr/bin/python3
"""scripts/compare on the fixture dumps: the exact ratios, intervals,
p-values and verdicts the chosen numbers imply (fixtures/make_fixtures.py):
5 rounds a side at t x (1, 0.98, 1.02, 0.99, 1.01), so B/A is t_B / t_A, the
99% interval (the U test inverted: k = 1 at 5 vs 5) is B/A x (0.98/1.02)^+-1
when the sides do not overlap, and the p-value of two separated samples of
5 is 2/252 = 0.00794."""


import csv
import io
import json
import math
import statistics

from testlib import PY, Scratch, fixture, load, main, run, script, table_rows

NO_PMU = "unavailable: No such file or directory: no PMU here counts this event (a VM without a virtual PMU?)"


class CompareCase(Scratch):
	def compare(self, *args, every=True, warn=""):
		"""compare's output, every row (--all) unless every is False; its
		stderr must be warn."""
		out, err = self.ok([PY, script("compare"), *args, *(["--all"] if every else [])])
		self.assertEqual(err, warn)
		self.text = out
		return out

	def runs(self, name, factors=(1, 0.98, 1.02, 0.99, 1.01)):
		"""Runs of fixture name, one a factor, each its times scaled by its
		factor: medians t x factors, as the fixture's rounds are t x (1,
		0.98, 1.02, 0.99, 1.01), so that five runs a side give the same
		sample of times as five rounds did."""
		return [self.write_dump(scaled(load(fixture(name, "mdbench.json")), f), f"{name}-{i}")
			for i, f in enumerate(factors)]

	def rows(self, text, width=9):
		"""{(benchmark[, metric]): cells after them}"""
		out = {}
		for cells in table_rows(text):
			if cells[0] == "benchmark":
				continue
			key = (cells[0],) if len(cells) == width else (cells[0], cells[1])
			out[key] = cells[len(key):]
		return out


class CompareDumps(CompareCase):
	def test_identical_numbers_nothing_differs(self):
		"""Two runs of the same code with the same numbers (nothing may be called a difference)."""
		text = self.compare(fixture("one"), fixture("one-again"))
		rows = self.rows(text)
		self.assertFalse([k for k, c in rows.items()
				  if c[-1].split(" ")[0] in ("faster", "slower", "higher", "lower")])
		# one run a side: times have a ratio of the runs' medians, no test
		self.assertEqual(rows[("lookup/random/page64/mix:desktop/ram:4GiB",)],
				 ["1", "80", "1", "80", "1.000", "-", "-",
				  "too few runs (5 needed): no direction: 0 of 1 pairs each way"])
		self.assertEqual(rows[("footprint/memdesc8/mix:server/ram:4GiB", "bytes_per_GiB")],
				 ["5", "4456448", "5", "4456448", "1.000", "-", "-", "equal"])
		self.assertIn("Rows: 250 equal, 1 failed, 61 too few runs", text)

	def test_two_machines(self):
		"""One run a side: the times get a ratio of the runs' medians but no
		test (the run is their unit); counters and bytes pool the rounds."""
		text = self.compare(fixture("one"), fixture("two"))
		rows = self.rows(text)
		few = "too few runs (5 needed): "
		want = {"lookup/random": ["2.000", "-", "-", few + "slower in 1 of 1 pairs"],
			"lookup/seq": ["0.500", "-", "-", few + "faster in 1 of 1 pairs"],
			"scan/compaction": ["1.010", "-", "-", few + "slower in 1 of 1 pairs"],
			"baseline/latency": ["2.000", "-", "-", few + "slower in 1 of 1 pairs"]}
		for (name, *metric), cells in rows.items():
			kernel = next((k for k in want if name.startswith(k + "/")), None)
			if kernel and not metric:
				self.assertEqual(cells[4:], want[kernel], name)
		self.assertEqual(rows[("lookup/random/page64/mix:desktop/ram:1GiB",)][:4],
				 ["1", "20.25", "1", "40.5"])
		# a failed benchmark is failed, never "no change"
		self.assertEqual(rows[("alloc/order0/memdesc8/mix:desktop/ram:4GiB",)],
				 ["0", "failed in 5 of 5 rounds: memmap: out of memory", "1", "18", "-", "-",
				  "-", "failed"])
		# counters both sides counted, compared too; deterministic ones exactly
		self.assertEqual(rows[("lookup/seq/page32/mix:desktop/ram:1GiB", "page_faults")],
				 ["5", "0.125", "5", "0.25", "2.000", "-", "-", "higher (exact)"])
		self.assertIn("Counters only B has: cycles: " + NO_PMU, text)
		# footprint values, same on both machines
		self.assertEqual(rows[("footprint/page32/mix:desktop/ram:1GiB", "total_bytes")],
				 ["5", "14680064", "5", "14680064", "1.000", "-", "-", "equal"])
		self.assertIn("Only in A (9): convert/pfn_to_page/page64/mix:desktop/ram:256MiB,", text)
		self.assertNotIn("Only in B", text)
		self.assertIn("Rows: 144 equal, 2 failed, 44 higher, 52 too few runs", text)

	def test_the_run_is_the_unit_of_absolute_times(self):
		"""Five runs a side: one value a run (the median of its rounds),
		the figures five rounds gave; four runs: too few for a U test at
		1%.  Counters pool every round of every run."""
		a, b = self.runs("one"), self.runs("two")
		rows = self.rows(self.compare(*a, "--", *b))
		self.assertEqual(rows[("lookup/random/page64/mix:desktop/ram:4GiB",)],
				 ["5", "80", "5", "160", "2.000", "1.922..2.082", "0.00794", "slower"])
		self.assertEqual(rows[("scan/compaction/page64/mix:desktop/ram:1GiB",)][4:],
				 ["1.010", "0.970..1.051", "0.463", "undecided: slower in 16 of 25 pairs"])
		self.assertEqual(rows[("lookup/seq/page32/mix:desktop/ram:1GiB", "page_faults")][:4],
				 ["25", "0.125", "25", "0.25"])
		rows = self.rows(self.compare(*a[:4], "--", *b[:4]))
		self.assertEqual(rows[("lookup/random/page64/mix:desktop/ram:4GiB",)][4:],
				 ["2.000", "-", "0.0286", "too few runs (5 needed): slower in 16 of 16 pairs"])

	def test_what_stands_behind_a_round(self):
		"""context round_value: one note per side where the sides differ."""
		docs = []
		for reps in (10, 1):
			doc = load(fixture("one", "mdbench.json"))
			doc["context"]["memdesc_bench"]["round_value"] = {
				"estimator": "trim20" if reps > 1 else "one run", "reps": reps,
				"min_time": 0.05 / reps, "applies": "..."}
			docs.append(self.write_dump(doc, f"reps{reps}"))
		text = self.compare(*docs, "--metric", "real_time")
		self.assertIn("\nA: each round: the trim20 of 10 short runs of 0.005 s at least (one run "
			      "for a kernel that changes its memmap); B: each round: one Google Benchmark "
			      "run of each benchmark.\n", text)
		text = self.compare(docs[0], "--layouts", "page64", "memdesc8", "--metric", "real_time")
		self.assertIn("\neach round: the trim20 of 10 short runs", text)

	def test_alpha(self):
		"""At 0.05 the interval is the 3rd to 23rd of the 25 pairwise ratios."""
		rows = self.rows(self.compare(*self.runs("one"), "--", *self.runs("two"), "--alpha",
					      "0.05", "--metric", "real_time"))
		self.assertEqual(rows[("lookup/random/page64/mix:desktop/ram:4GiB",)][4:],
				 ["2.000", "1.941..2.061", "0.00794", "slower"])
		self.assertIn("faster/slower: the 95% interval excludes 1 (within a run: Yuen's t on the "
			      "20% trimmed mean of the rounds' paired log ratios, a round's layouts "
			      "interleaved; two runs' within-run ratios: Yuen's t on their 20% trimmed "
			      "means; else U test; "
			      "p < 0.05)", self.text)
		self.assertIn("a U test at 0.05 needs 4 a side", self.text)

	def test_metric_of_one_side(self):
		rows = self.rows(self.compare(fixture("one"), fixture("two"), "--metric", "cycles"))
		self.assertEqual(rows[("lookup/random/page64/mix:desktop/ram:256MiB",)],
				 ["0", NO_PMU, "5", "33", "-", "-", "-", "-"])

	def test_google_benchmarks_own_file(self):
		# the same run in Google Benchmark's own file: compared, and said
		text = self.compare(fixture("one"), fixture("gbnative", "out.json"), warn=(
			f"compare: warning: run 20251203T060000Z-0a1b2c3d is on both sides "
			f"({fixture('one')}, {fixture('gbnative', 'out.json')}): A and B share its values\n"))
		self.assertIn("Rows: 250 equal, 1 failed, 61 too few runs", text)

	def test_report_values_of_one_round(self):
		"""A footprint pass runs one round: its bytes are counts, compared exactly."""
		doc = load(fixture("one", "mdbench.json"))
		seen, keep = set(), []
		for b in doc["benchmarks"]:
			if not (b["name"].startswith("footprint/") and b["name"] in seen):
				keep.append(b)
			seen.add(b["name"])
		doc["benchmarks"] = keep
		rows = self.rows(self.compare(fixture("one"), self.write_dump(doc)))
		self.assertEqual(rows[("footprint/page32/mix:server/ram:1GiB", "total_bytes")],
				 ["5", "10747904", "1", "10747904", "1.000", "-", "-", "equal"])
		self.assertEqual(rows[("lookup/seq/page32/mix:desktop/ram:1GiB",)][:4], ["1", "1.75", "1", "1.75"])

	def test_aggregates_only(self):
		"""--benchmark_report_aggregates_only: medians, no test."""
		doc = load(fixture("reps", "mdbench.json"))
		doc["benchmarks"] = [b for b in doc["benchmarks"] if b["run_type"] == "aggregate"]
		d = self.write_dump(doc)
		rows = self.rows(self.compare(d, "--layouts", "page64", "memdesc8", "--metric",
					      "real_time"))
		self.assertEqual(rows[("lookup/random/mix:desktop/ram:256MiB",)],
				 ["1", "11", "1", "5.5", "0.500", "-", "-", "aggregates only: no test"])


class CompareLayouts(CompareCase):
	def test_google_benchmark_repetitions(self):
		"""3 vs 3: the U test cannot go below p = 0.1, so no interval at 0.01."""
		rows = self.rows(self.compare(fixture("reps"), "--layouts", "page64", "memdesc8"))
		self.assertEqual(rows[("lookup/random/mix:desktop/ram:256MiB",)],
				 ["3", "11", "3", "5.5", "0.500", "-", "0.1", "too few rounds (5 needed): faster in 9 of 9 pairs"])
		self.assertEqual(rows[("lookup/random/mix:desktop/ram:1GiB",)],
				 ["3", "22", "3", "22", "1.000", "-", "1", "too few rounds (5 needed): no direction: 4 of 9 pairs each way"])

	def test_rounds(self):
		rows = self.rows(self.compare(fixture("one"), "--layouts", "page64", "memdesc8"))
		self.assertEqual(rows[("lookup/random/mix:desktop/ram:1GiB",)],
				 ["5", "20.25", "5", "6.5", "0.321", "0.308..0.334", "0.00794", "faster"])
		self.assertEqual(rows[("footprint/mix:server/ram:4GiB", "bytes_per_GiB")][4:],
				 ["0.266", "-", "-", "lower (exact)"])
		self.assertFalse(any(n.startswith("baseline/") for n, *_ in rows))	# no layout

	def test_footprint_metric(self):
		rows = self.rows(self.compare(fixture("one"), "--layouts", "page64", "memdesc8",
					      "--metric", "bytes_per_GiB", "--filter", "footprint/"))
		# 16 MiB of memmap against 2 MiB + 6 MiB (desktop) or 2.25 MiB (server) per GiB
		self.assertEqual(rows[("footprint/mix:desktop/ram:1GiB",)][:5],
				 ["5", "16777216", "5", "8388608", "0.500"])
		self.assertEqual(len(rows), 6)

	def test_simulated_metric(self):
		rows = self.rows(self.compare(fixture("sim"), "--layouts", "page64", "memdesc8",
					      "--metric", "sim_D1_misses"))
		self.assertEqual(rows[("lookup/seq/mix:desktop/ram:256MiB",)],
				 ["1", "1.062", "1", "0.188", "0.176", "-", "-", "too few rounds (5 needed): lower in 1 of 1 pairs"])
		self.assertEqual(rows[("lookup/random/mix:desktop/ram:4GiB",)][4], "0.138")
		self.assertEqual(len(rows), 6)

	def test_threads_and_variants_are_kept_apart(self):
		rows = self.rows(self.compare(fixture("lab"), "--layouts", "page64", "page32",
					      "--metric", "real_time"))
		self.assertEqual(rows[("folio/getput/mix:desktop/ram:1GiB/threads:2",)][4:],
				 ["2.250", "2.162..2.342", "0.00794", "slower"])
		self.assertEqual(rows[("lookup/seq/mix:desktop/ram:1GiB/age:aged",)][4], "0.700")
		self.assertIn(("folio/getput/mix:desktop/ram:1GiB",), rows)


def scaled(doc, factor, layouts=None, step=0.0):
	"""doc with every real_time and cpu_time (of layouts, default all)
	times factor, and round r of each benchmark times 1 + r x step: drift
	that hits those layouts alike, and rounds whose ratios differ (the
	fixture's rounds vary every layout alike, so its ratios are equal but
	for rounding, and equal values change the U test's p)."""
	rounds = {}
	for b in doc["benchmarks"]:
		if layouts and not any(f"/{l}/" in b["name"] for l in layouts):
			continue
		r = rounds[b["name"]] = rounds.get(b["name"], -1) + 1
		for k in ("real_time", "cpu_time"):
			if k in b:
				b[k] *= factor * (1 + r * step)
	return doc


def doubled(doc):
	"""doc with its rounds run twice, ten a benchmark: the second five
	copies of the first."""
	extra = []
	for b in doc["benchmarks"]:
		c = dict(b)
		if "repetition_index" in c:
			c["repetition_index"] += 5
		extra.append(c)
	doc["benchmarks"] += extra
	return doc


def disturbed(doc, first, factor, layouts):
	"""doc with the first rounds of each benchmark of layouts (their
	entries in the file's order) times factor: a phase of the machine that
	hit those layouts harder than the reference."""
	seen = {}
	for b in doc["benchmarks"]:
		if not any(f"/{l}/" in b["name"] for l in layouts):
			continue
		seen[b["name"]] = seen.get(b["name"], 0) + 1
		if seen[b["name"]] <= first:
			for k in ("real_time", "cpu_time"):
				if k in b:
					b[k] *= factor
	return doc


def ratio_table(text):
	"""{benchmark: cells} of the within-run ratio table of compare's output."""
	part = text.split("## Within-run ratios", 1)[1].split("\n## ", 1)[0]
	return {c[0]: c[1:] for c in table_rows(part, 9) if c[0] != "benchmark"}


class CompareRuns(CompareCase):
	"""Several runs a side, within-run ratios, rows that are not comparable
	(another size, other conditions), the geometric mean, the formats."""

	def test_drift_that_hits_every_layout_cancels(self):
		"""B: the same run on a machine 30% slower for every layout: every
		absolute time differs, no within-run ratio does."""
		b = self.write_dump(scaled(load(fixture("one", "mdbench.json")), 1.3), "slow")
		text = self.compare(fixture("one"), fixture("one-again"), "--", b)
		ratios = ratio_table(text)
		# 6 timed kernels x 2 layouts besides the reference x 3 sizes
		self.assertEqual(len(ratios), 36)
		# lookup/random page32/page64 at 1GiB: 12/20.25 .. per round, B/A 1
		self.assertEqual(ratios["lookup/random/page32/mix:desktop/ram:1GiB"],
				 ["10", "0.593", "5", "0.593", "1.000", "1.000..1.000", "1",
				  "same within \u00b15%"])
		# the fixture's alloc/order0 of memdesc8 at 4GiB fails
		self.assertEqual(ratios["alloc/order0/memdesc8/mix:desktop/ram:4GiB"][-1], "failed")
		self.assertEqual({c[-1].split(":")[0] for c in ratios.values()},
				 {"same within \u00b15%", "equal", "failed"})
		self.assertIn("Geometric mean of B/A over 35 rows with a ratio: 1.000", text)
		rows = self.rows(text)
		self.assertEqual(rows[("lookup/random/page64/mix:desktop/ram:4GiB",)][4:],
				 ["1.300", "-", "-", "too few runs (5 needed): slower in 2 of 2 pairs"])
		self.assertIn("A1 = labbox-a", text)
		self.assertIn("A2 = labbox-a", text)
		self.assertIn("\nB = labbox-a", text)

	def sides(self):
		"""A: the fixture with memdesc8's rounds apart by 0.1%; B: the same,
		memdesc8 21% slower."""
		one = fixture("one", "mdbench.json")
		a = self.write_dump(scaled(load(one), 1.0, ["memdesc8"], 0.001), "a")
		b = self.write_dump(scaled(load(one), 1.21, ["memdesc8"], 0.001), "b")
		return a, b

	def test_a_layout_that_got_slower(self):
		"""memdesc8 21% slower in B, the others not: its 17 ratio rows that
		did not fail say so (Yuen's t of the rounds' log ratios, five a
		side 0.1% apart, one cut at each end and winsorized: h = 3, df 4,
		p 8.0e-09, the interval 1.21 x (1 +- 0.0053)), the geometric mean
		over the 35 rows is 1.21 ** (17 / 35)."""
		a, b = self.sides()
		text = self.compare(a, "--", b)
		ratios = ratio_table(text)
		self.assertEqual(ratios["lookup/seq/memdesc8/mix:desktop/ram:1GiB"],
				 ["5", "0.601", "5", "0.727", "1.210", "1.204..1.216", "8.0e-09", "slower"])
		self.assertIn("Yuen's t on them", text)
		# page32's ratios are equal but for rounding on both sides
		self.assertEqual(ratios["lookup/seq/page32/mix:desktop/ram:1GiB"][4:],
				 ["1.000", "1.000..1.000", "1", "same within \u00b15%"])
		self.assertEqual(sum(c[-1] == "slower" for c in ratios.values()), 17)
		self.assertIn(f"over 35 rows with a ratio: {1.21 ** (17 / 35):.3f}", text)

	def test_disturbed_rounds(self):
		"""Runs of ten rounds, memdesc8's ratios a ramp of 0.1% a round
		repeated; in A its first two rounds 1.5 times slower (a phase that
		hit it and not page64).  The 20% trimmed means cut both: B/A is
		1.002 / 1.003 over the middle six, same within 5%, where the mean of
		all ten would move by a tenth and its interval reach past 1.2."""
		one = fixture("one", "mdbench.json")
		a = self.write_dump(disturbed(doubled(scaled(load(one), 1.0, ["memdesc8"], 0.001)), 2,
					      1.5, ["memdesc8"]), "disturbed")
		b = self.write_dump(doubled(scaled(load(one), 1.0, ["memdesc8"], 0.001)), "steady")
		row = ratio_table(self.compare(a, "--", b))["lookup/seq/memdesc8/mix:desktop/ram:1GiB"]
		self.assertEqual(row[0], "10")
		self.assertEqual(row[2], "10")
		self.assertEqual(row[4], f"{1.002 / 1.003:.3f}")
		self.assertEqual(row[-1], "same within \u00b15%")

	def test_other_conditions_are_not_compared(self):
		"""Aged against fresh under the same names: every row refused, never
		a ratio."""
		doc = load(fixture("one", "mdbench.json"))
		doc["context"]["memdesc_bench"]["conditions"]["desc_age"] = "fresh"
		text = self.compare(fixture("one"), self.write_dump(doc))
		why = "not comparable: conditions.desc_age: aged (A) vs fresh (B)"
		rows = self.rows(text)
		self.assertEqual(rows[("lookup/random/page64/mix:desktop/ram:4GiB",)],
				 ["5", "-", "5", "-", "-", "-", "-", why])
		self.assertEqual({c[-1] for c in rows.values()}, {why})
		self.assertIn("Not comparable: 80 rows", text)
		self.assertIn("Rows: 312 not comparable", text)
		self.assertNotIn("Geometric mean", text)

	def test_another_mix_under_the_same_name(self):
		"""server redefined in B: its rows refused, desktop's compared."""
		doc = load(fixture("one", "mdbench.json"))
		mix = next(m for m in doc["context"]["memdesc_bench"]["mixes"] if m["name"] == "server")
		mix["entries"][0]["fraction"] = 0.4
		mix["entries"][1]["fraction"] = 0.35
		text = self.compare(fixture("one"), self.write_dump(doc))
		rows = self.rows(text)
		self.assertEqual(rows[("footprint/page32/mix:server/ram:1GiB", "total_bytes")][-1],
				 "not comparable: mix server has other entries in B than in A")
		self.assertEqual(rows[("footprint/page32/mix:desktop/ram:1GiB", "total_bytes")][-1],
				 "equal")
		self.assertIn("Not comparable: 9 rows", text)

	def test_runs_of_one_side_that_differ(self):
		"""2m against 4k among A's own runs: refused as well."""
		doc = load(fixture("one", "mdbench.json"))
		doc["context"]["memdesc_bench"]["conditions"]["memmap_pages"]["requested"] = "4k"
		a2 = self.write_dump(doc)
		rows = self.rows(self.compare(fixture("one"), a2, "--", fixture("one-again")))
		self.assertEqual(rows[("lookup/seq/page32/mix:desktop/ram:1GiB",)][-1],
				 "not comparable: conditions.memmap_pages.requested: 2m (A1) vs 4k (A2)")

	def test_csv_and_json(self):
		a, b = self.sides()
		out = self.compare(a, b, "--format=csv")
		rows = list(csv.DictReader(io.StringIO(out)))
		r = next(r for r in rows if r["table"] == "ratio" and
			 r["benchmark"] == "lookup/seq/memdesc8/mix:desktop/ram:1GiB")
		self.assertEqual((r["n_a"], r["a"], r["n_b"], r["b"], r["verdict"]),
				 ("5", "0.601", "5", "0.727", "slower"))
		self.assertAlmostEqual(float(r["ratio"]), 1.21, places=9)
		self.assertLess(float(r["p"]), 1e-8)
		self.assertEqual(sorted({r["table"] for r in rows}), ["counters", "ratio", "report", "time"])
		doc = json.loads(self.compare(a, b, "--format", "json"))
		t = {x["key"]: x for x in doc["tables"]}
		tally = t["ratio"]["tally"]
		self.assertEqual((tally["slower"], tally["failed"], sum(tally.values())), (17, 1, 36))
		self.assertEqual(t["ratio"]["geomean"]["rows"], 35)
		self.assertAlmostEqual(t["ratio"]["geomean"]["ratio"], 1.21 ** (17 / 35), places=9)
		self.assertEqual([s["path"] for s in doc["sides"]["B"]], [b])
		self.assertNotIn("drift", doc)
		self.assertEqual(doc["only"], {"A": [], "B": []})


class CompareForPeople(CompareCase):
	"""Compare for people: a summary by default, --filter as a regex, a run
	counted once, --fail-on for CI, --margin."""

	def test_summary_leads_with_the_decided_rows(self):
		text = self.compare(*self.runs("one"), "--", *self.runs("two"), "--metric", "real_time",
				    every=False)
		part = text.split("## real_time", 1)[1]
		rows = [c for c in table_rows(part, 9) if c[0] != "benchmark"]
		verdicts = [c[-1].split(":")[0] for c in rows]
		self.assertEqual(verdicts, ["slower"] * 9 + ["faster"] * 9 + ["slower"] * 17 +
				 ["undecided"] * 9 + ["failed"])
		self.assertIn("26 rows equal or the same within the margin, not listed (--all lists them).",
			      part)

	def test_filter_is_a_regex(self):
		rows = self.rows(self.compare(fixture("one"), fixture("two"), "--metric", "real_time",
					      "--filter", "^lookup/(seq|random)/page32/.*1GiB$"))
		self.assertEqual(sorted(k[0] for k in rows),
				 ["lookup/random/page32/mix:desktop/ram:1GiB",
				  "lookup/seq/page32/mix:desktop/ram:1GiB"])
		self.refused([PY, script("compare"), fixture("one"), fixture("two"), "--filter", "(x"],
			     "--filter '(x'")

	def test_a_run_given_twice_counts_once(self):
		"""one one -- one-again: side A is one run, not two copies of it."""
		one, again = fixture("one"), fixture("one-again")
		warn = (f"compare: warning: side A: {one} is run 20251203T060000Z-0a1b2c3d, given "
			f"already as {one}: counted once\n")
		rows = self.rows(self.compare(one, one, "--", again, "--metric", "real_time", warn=warn))
		self.assertEqual(rows[("lookup/random/page64/mix:desktop/ram:4GiB",)][:3],
				 ["1", "80", "1"])

	def test_a_run_on_both_sides(self):
		one = fixture("one")
		self.compare(one, "--", one, "--metric", "real_time", warn=(
			f"compare: warning: run 20251203T060000Z-0a1b2c3d is on both sides ({one}, {one}): "
			f"A and B share its values\n"))

	def test_fail_on(self):
		cmd = [PY, script("compare"), *self.runs("one"), "--", *self.runs("two"), "--metric",
		       "real_time"]
		rc, out, err = run(cmd + ["--fail-on=slower"])
		self.assertEqual(rc, 1)
		# 26 of the times; no ratio: the runs scale every layout alike, so
		# their ratios are equal but for rounding (which 25 rounds a side
		# once read as slower)
		self.assertEqual(err, "compare: 26 rows slower (--fail-on), first "
				 "lookup/random/page64/mix:desktop/ram:256MiB: slower\n")
		rc, out, err = run(cmd + ["--fail-on=faster,slower", "--filter", "alloc/"])
		self.assertEqual((rc, err), (0, ""))
		self.refused(cmd + ["--fail-on=worse"], "--fail-on 'worse'")

	def test_real_and_cpu_time_part(self):
		"""B's CPU time half its real time (it waited): flagged, the verdict kept."""
		b = []
		for i, d in enumerate(self.runs("one")):
			doc = load(d + "/mdbench.json")
			for e in doc["benchmarks"]:
				if e["name"].startswith("lookup/seq/") and "cpu_time" in e:
					e["cpu_time"] = e["real_time"] / 2
			b.append(self.write_dump(doc, f"waited-{i}"))
		rows = self.rows(self.compare(*self.runs("one"), "--", *b, "--metric", "real_time"))
		self.assertEqual(rows[("lookup/seq/page32/mix:desktop/ram:1GiB",)][-1],
				 "same within \u00b15% (CPU time B/A 0.500: real and CPU time part)")
		self.assertEqual(rows[("lookup/random/page32/mix:desktop/ram:1GiB",)][-1],
				 "same within \u00b15%")

	def test_margin(self):
		"""1.010 (0.970..1.051): undecided at 5%, the same within 6%."""
		rows = self.rows(self.compare(*self.runs("one"), "--", *self.runs("two"), "--metric",
					      "real_time", "--margin", "0.06"))
		self.assertEqual(rows[("scan/compaction/page64/mix:desktop/ram:1GiB",)][-1],
				 "same within \u00b16%")
		self.assertIn("same within \u00b16%: the whole interval inside [0.943, 1.060]", self.text)
		self.refused([PY, script("compare"), fixture("one"), fixture("two"), "--margin", "5"],
			     "--margin '5'")


class CompareRefuses(CompareCase):
	def test_nothing_in_common(self):
		self.refused([PY, script("compare"), fixture("sim"), fixture("sweep")],
			     "no benchmark is on both sides")

	def test_bad_sides(self):
		for args, want in (((fixture("one"), "--"), "no run of side B after --"),
				   (("--", fixture("one")), "no run of side A before --"),
				   ((fixture("one"), "--", fixture("two"), "--", fixture("one")),
				    "-- given twice"),
				   ((fixture("one"), fixture("two"), fixture("one")), "give two runs A B"),
				   ((fixture("one"), "--", fixture("two"), "--format=xml"),
				    "argument --format: invalid choice: 'xml'")):
			self.refused([PY, script("compare"), *args], want)

	def test_other_reference_layouts(self):
		doc = load(fixture("one", "mdbench.json"))
		doc["context"]["memdesc_bench"]["reference_layout"] = "page32"
		self.refused([PY, script("compare"), fixture("one"), "--", self.write_dump(doc)],
			     "the runs take ratios against different reference layouts: A page64, B page32")

	def test_only_baselines_in_common(self):
		doc = load(fixture("two", "mdbench.json"))
		doc["benchmarks"] = [b for b in doc["benchmarks"]
				     if b["name"].startswith(("baseline/", "lookup/"))]
		for b in doc["benchmarks"]:
			b["name"] = b["run_name"] = b["name"].replace("lookup/", "other/")
		self.refused([PY, script("compare"), fixture("one"), self.write_dump(doc)],
			     "no benchmark is on both sides but baselines")


if __name__ == "__main__":
	main(needs=("scipy",))
