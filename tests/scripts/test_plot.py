#!/usr/bin/python3
"""scripts/plot on the fixture dumps: exactly the expected files, each a
valid PNG or SVG, nothing on stderr, and report.md carrying the numbers the
fixtures' chosen values imply (fixtures/make_fixtures.py): every ratio is
t_layout / t_reference, every interval t ratio x (0.98/1.02)^+-1."""

import json
import os
import shutil

import check_plots as check
from testlib import PY, Scratch, fixture, load, main, run, script, table_rows, TESTS
from figures import FIGURES, figure, heatmap  # noqa: E402 (testlib puts scripts/lib first)

NO_PMU = "unavailable: No such file or directory: no PMU here counts this event (a VM without a virtual PMU?)"
TIMES = ["time-convert-pfn_to_page", "time-lookup-random", "time-lookup-seq", "time-folio-tail",
	 "time-scan-compaction", "time-alloc-order0"]


class PlotCase(Scratch):
	def plot(self, *dumps, out=True, extra=()):
		cmd = [PY, script("plot"), *dumps, *extra] + (["--out", self.tmp] if out else [])
		stdout, err = self.ok(cmd)
		self.assertEqual(err, "")		# no warnings from matplotlib or numpy
		self.assertIn("report.md", stdout)
		self.stdout = stdout
		with open(os.path.join(self.tmp, "report.md")) as f:
			return f.read()

	def assert_files(self, names, where=None, png_only=()):
		where = where or self.tmp
		want = {f"{n}.png" for n in names} | {f"{n}.svg" for n in names if n not in png_only}
		got = {f for f in os.listdir(where) if f.endswith((".png", ".svg"))}
		self.assertEqual(got, want)
		problems, checked = check.check(where, [(n, ("png",) if n in png_only else ("png", "svg"))
							for n in names])
		self.assertEqual(problems, [])
		self.assertEqual(checked, len(want))

	def assert_rows(self, text, rows):
		have = table_rows(text)
		for r in rows:
			self.assertIn(r, have)



def with_twin(doc, factor=1.0):
	"""doc with page64's timed benchmarks at 4GiB run a second time as the
	placebo twin (.../twin:b), each round's time times factor."""
	twins = []
	for b in doc["benchmarks"]:
		if "/page64/" in b["name"] and "ram:4GiB" in b["name"] and \
				not b["name"].startswith("footprint/"):
			t = dict(b)
			for k in ("name", "run_name"):
				if k in t:
					t[k] = t[k].replace("ram:4GiB", "ram:4GiB/twin:b")
			for k in ("real_time", "cpu_time"):
				if k in t:
					t[k] *= factor
			twins.append(t)
	doc["benchmarks"] += twins
	doc["context"]["memdesc_bench"]["twin"] = "twin:b"
	return doc


class Twin(Scratch):
	"""The reference layout's placebo twin gives each
	headline row the run's A/A interval; it is no row of its own."""

	def test_headline_has_the_aa_interval(self):
		d = self.write_dump(with_twin(load(fixture("one", "mdbench.json"))))
		out, err = self.ok([PY, script("plot"), d, "--headline", "--out", self.tmp])
		lines = out.splitlines()
		self.assertIn("  A/A interval: page64 against its placebo twin (a second page64 built "
			      "alike, same rounds): the smallest change this run could have shown", lines)
		row = next(l for l in lines if l.startswith("lookup/random ") and "page32" in l)
		self.assertEqual(row.split()[-1], "0.961..1.041")
		self.assertIn("  12 rows: 5 faster, 5 slower, 1 failed, 1 same within \u00b15%", lines)
		self.assertFalse([l for l in lines if "twin" in l and l.startswith("lookup")])
		with open(os.path.join(self.tmp, "report.md")) as f:
			text = f.read()
		self.assertIn("| interval | verdict | A/A interval |", text)

	def test_what_stands_behind_a_round(self):
		"""context round_value: the terminal's headline and report.md say
		how many short runs make a round, and by which estimator."""
		doc = load(fixture("one", "mdbench.json"))
		doc["context"]["memdesc_bench"]["round_value"] = {
			"estimator": "median", "reps": 10, "min_time": 0.005, "applies": "..."}
		out, err = self.ok([PY, script("plot"), self.write_dump(doc), "--headline", "--out",
				    self.tmp])
		line = ("n: rounds; each round: the median of 10 short runs of 0.005 s at least (one "
			"run for a kernel that changes its memmap)")
		self.assertIn("  " + line, out.splitlines())
		with open(os.path.join(self.tmp, "report.md")) as f:
			self.assertIn(line + ".\n", f.read())

	def test_compare_carries_it(self):
		"""B's twin 10% slower than its page64: the within-run A/A row says so."""
		a = self.write_dump(with_twin(load(fixture("one", "mdbench.json"))), "a")
		b = self.write_dump(with_twin(load(fixture("one", "mdbench.json")), 1.1), "b")
		out, err = self.ok([PY, script("compare"), a, b, "--all", "--format=csv"])
		import csv
		import io
		rows = {(r["table"], r["benchmark"]): r for r in csv.DictReader(io.StringIO(out))}
		r = rows[("ratio", "lookup/random/page64/mix:desktop/ram:4GiB/twin:b")]
		self.assertEqual((r["a"], r["b"], r["verdict"]), ("1", "1.1", "slower (exact)"))	# rounds taken together: no spread

class PlotOne(PlotCase):
	def test_one_machine(self):
		text = self.plot(fixture("one"))
		self.assert_files(["summary", *TIMES, "counter-page_faults", "footprint"])
		# The summary comes first: heading, figure, table.
		heads = [l for l in text.splitlines() if l.startswith("## ")]
		self.assertEqual(heads[0], "## Summary: each layout against page64")
		self.assertLess(text.index("summary.png"), text.index("## Runs"))
		self.assert_rows(text, [
			["kernel", "RAM", "page32/page64", "memdesc8/page64"],
			["lookup/random", "256MiB", "0.818 (0.786..0.852)", "0.591 (0.568..0.615)"],
			["lookup/random", "4GiB", "0.750 (0.721..0.781)", "0.500 (0.480..0.520)"],
			["scan/compaction", "4GiB", "1.000 (0.961..1.041)", "0.600 (0.576..0.624)"],
			["alloc/order0", "4GiB", "1.333 (1.281..1.388)", "failed"],
			# ns/op per layout against RAM: median (min..max over 5 rounds)
			["variant", "RAM", "page64 ns/op", "page32 ns/op", "memdesc8 ns/op"],
			["-", "1GiB", "20.25 (19.84..20.66)", "12 (11.76..12.24)", "6.5 (6.37..6.63)"],
			["-", "4GiB", "12 (11.76..12.24)", "16 (15.68..16.32)",
			 "failed in 5 of 5 rounds: memmap: out of memory"],
			# baselines once: ns per load, and GB/s
			["baseline/latency", "64MiB", "12.5 (12.25..12.75)", "-"],
			["baseline/bandwidth", "16MiB", "3.2 (3.136..3.264)", "20"],
			# counters: encodings, and the reason for the missing ones
			["page_faults", "available (page-faults, perf::PAGE-FAULTS)"],
			["cycles", NO_PMU],
			["lookup/random", "4GiB", "0.125", "0.125", "0.125"],
			# conditions, flattened
			["memmap_pages.obtained_bytes", "71303168"],
			["desc_adjacency", "0.03"],
			["run id", "20251203T060000Z-0a1b2c3d"],
			["repetitions", "5"],
			# footprint: memmap 8 B/page = 2 MiB per GiB, descriptors 6 MiB per GiB;
			# memmap, descriptors, total, per GiB, %, then count, reserved, folio size
			["desktop", "-", "memdesc8", "1GiB", "2097152", "6291456", "8388608", "8388608",
			 "0.781", "81920", "6291456", "80"],
			["server", "-", "page64", "4GiB", "67108864", "0", "67108864", "16777216", "1.562",
			 "0", "0", "0"],
		])
		self.assertIn("- `context_switches` was counted and is 0 in every benchmark: no figure.",
			      text)
		self.assertNotIn("counter-context_switches", text)
		self.assertIn("- `mdbench --profile=quick --rounds=5 --out=results/fixture`", text)
		for want in ("Fixture CPU A @ 2.00GHz", "6.18.0-fixture", "| THP | madvise |",
			     "L1d 48KiB, L2u 1MiB, L3u 32MiB", "page32 (page 32 B, descriptors)"):
			self.assertIn(want, text)

	def test_headline_on_stdout(self):
		self.plot(fixture("one"), extra=["--headline"])
		lines = self.stdout.splitlines()
		self.assertIn("labbox-a (Fixture CPU A @ 2.00GHz): time per op against page64 "
			      "(ratio and its 99% interval)", lines)
		# a verdict column, n per side, a failed side with n 0
		self.assertIn("lookup/random        4GiB  page32    5/5           0.750  0.721..0.781  "
			      "faster", lines)
		self.assertIn("scan/compaction      4GiB  page32    5/5           1.000  0.961..1.041  "
			      "same within \u00b15%", lines)
		self.assertIn("alloc/order0         4GiB  memdesc8  5/0           -      -             "
			      "failed", lines)
		# no machine.headline_ram_bytes: the largest size, said so
		self.assertIn("  sizes: no headline size in this dump (no machine.headline_ram_bytes): "
			      "the largest size run, 4GiB, stands in, and may be a cache effect", lines)
		# thousands separators
		self.assertIn("server   16,777,216  10,747,904 (-35.9%)  4,456,448 (-73.4%)", lines)

	def test_default_out_is_the_dump_dir(self):
		d = os.path.join(self.tmp, "run")
		shutil.copytree(fixture("one"), d)
		self.ok([PY, script("plot"), os.path.join(d, "mdbench.json"), "--jobs", "1"])
		self.assertTrue(os.path.exists(os.path.join(d, "report.md")))
		self.assertTrue(os.path.exists(os.path.join(d, "footprint.svg")))

	def test_google_benchmarks_own_file(self):
		"""--benchmark_out=F: memdesc_bench rebuilt from AddCustomContext strings."""
		text = self.plot(fixture("gbnative", "out.json"))
		self.assert_rows(text, [
			["source", "Google Benchmark's own output"],
			["lookup/random", "4GiB", "0.750 (0.721..0.781)", "0.500 (0.480..0.520)"],
			["cycles", NO_PMU],
			["page_faults", "available"],
		])


class PlotTwoMachines(PlotCase):
	def test_side_by_side(self):
		text = self.plot(fixture("one"), fixture("two"))
		self.assert_files(["summary", *TIMES, "counter-page_faults", "counter-cycles",
				   "counter-instructions", "counter-LLC_load_misses", "footprint"])
		self.assertIn("|  | labbox-a (Fixture CPU A @ 2.00GHz) | labbox-b (Fixture CPU B @ 3.00GHz) |",
			      text)
		self.assert_rows(text, [
			["-", "256MiB", "11 (10.78..11.22)", "9 (8.82..9.18)", "6.5 (6.37..6.63)"],
			["lookup/random", "256MiB", "33", "27", "19.5"],	# cycles = 3 x ns
			["cycles", NO_PMU, "available (cycles, perf::CYCLES)"],
			["L1D_load_misses", NO_PMU, NO_PMU],
		])
		self.assertIn("**labbox-b (Fixture CPU B @ 3.00GHz)**", text)
		self.assertIn("labbox-a (Fixture CPU A @ 2.00GHz): cycles: " + NO_PMU, text)

	def test_two_runs_of_one_machine_get_two_labels(self):
		text = self.plot(fixture("one"), fixture("one-again"))
		self.assertIn("| labbox-a (Fixture CPU A @ 2.00GHz) [one] | "
			      "labbox-a (Fixture CPU A @ 2.00GHz) [one-again] |", text)


class PlotReps(PlotCase):
	def test_google_benchmark_repetitions(self):
		text = self.plot(fixture("reps"))
		self.assert_files(["summary", "time-lookup-random"])
		self.assert_rows(text, [
			["-", "256MiB", "11 (10..12)", "9 (8..10)", "5.5 (5..6)"],
			["-", "1GiB", "22 (20..24)", "20 (19..25)", "22 (21..23)"],
			# 3 vs 3 cannot reject at 0.01: a ratio (median of pairwise ratios), no interval
			["lookup/random", "1GiB", "0.950", "1.000"],
		])
		self.assertIn("- `page_faults` was counted and is 0 in every benchmark: no figure.", text)


class PlotSim(PlotCase):
	def test_native_and_simulated(self):
		text = self.plot(fixture("sim"))
		self.assert_files(["summary", "time-lookup-seq", "sim_D1_misses-desktop",
				   "sim_LL_misses-desktop"])
		self.assert_rows(text, [
			["kernel", "variant", "RAM", "page64 sim_D1_misses/op", "page32 sim_D1_misses/op",
			 "memdesc8 sim_D1_misses/op"],
			["lookup/seq", "-", "256MiB", "1.062 (model 1)", "0.562 (model 0.5)",
			 "0.188 (model 0.125)"],
			["lookup/random", "-", "1GiB", "4.062", "2.062", "0.562"],	# no model for it
			["lookup/random", "-", "4GiB", "4", "2", "0.5"],		# sim_LL_misses
		])
		self.assertIn("| simulation | valgrind-3.19.0 callgrind; D1 49152 B, 64 B, 12-way "
			      "associative; LL 33554432 B, 64 B, 16-way associative; 65536..262144 ops "
			      "per benchmark |", text)

	def test_sim_json_alone(self):
		text = self.plot(fixture("sim", "sim.json"))
		self.assert_files(["sim_D1_misses-desktop", "sim_LL_misses-desktop"])
		self.assert_rows(text, [["lookup/seq", "-", "4GiB", "1", "0.5", "0.125"]])

	def test_sim_beside_a_machine_without(self):
		text = self.plot(fixture("one"), fixture("sim"))
		self.assertIn("sim_D1_misses: n/a (no sim.json: this run had no --simulate)", text)


class PlotSweep(PlotCase):
	def test_break_even_and_hvo(self):
		text = self.plot(fixture("sweep"))
		self.assert_files(["footprint", "breakeven-desktop", "breakeven-server"])
		self.assert_rows(text, [
			# bytes(d) = memmap + other descriptors + 65536 small folios x d per GiB
			["1GiB", "-", "page32", "64: 13631488, 80: 14680064, 96: 15728640, 128: 17825792",
			 "9437184 + 65536 x d", "16777216", "112.0 B"],
			["1GiB", "-", "memdesc8", "64: 7340032, 80: 8388608, 96: 9437184, 128: 11534336",
			 "3145728 + 65536 x d", "16777216", "208.0 B (extrapolated)"],
			["4GiB", "-", "page32", "64: 54525952, 80: 58720256, 96: 62914560, 128: 71303168",
			 "37748736 + 262144 x d", "67108864", "112.0 B"],
			["1GiB", "-", "memdesc8", "64: 4194304, 80: 4456448, 96: 4718592, 128: 5242880",
			 "3145728 + 16384 x d", "16777216", "832.0 B (extrapolated)"],
			# footprint with and without HVO
			["mix", "layout", "RAM", "other variant", "hvo:off", "hvo:on",
			 "hvo:on against hvo:off"],
			["vmhost", "page64", "1GiB", "-", "16777216", "4390912", "-73.8%"],
			["vmhost", "memdesc8", "4GiB", "-", "7340032", "5791744", "-21.1%"],
		])
		self.assertNotIn("## Summary", text)		# no timed benchmark


class PlotLab(PlotCase):
	def test_threads_false_sharing_fidelity(self):
		text = self.plot(fixture("lab"))
		self.assert_files(["summary", "time-folio-getput", "threads-folio-getput",
				   "time-lookup-seq", "time-lookup-random"])
		self.assert_rows(text, [
			["layout", "object", "hot_field", "neighbour_field", "line_offset", "stride",
			 "shares_line"],
			["page32", "struct folio", "_refcount", "flags", "48", "80", "true"],
			["kernel", "mix", "RAM", "page64 ns/op", "live kernel", "its ns/op",
			 "kernel/reference", "p"],
			["lookup/random", "kpageflags", "4GiB", "80 (78.4..81.6)", "kernel",
			 "88 (86.24..89.76)", "1.100 (1.057..1.145)", "0.00794"],
			["variant", "threads", "page64 ns/op", "page32 ns/op", "memdesc8 ns/op"],
			["-", "2", "20 (19.6..20.4)", "45 (44.1..45.9)", "21 (20.58..21.42)"],
			["age:aged", "1GiB", "5 (4.9..5.1)", "3.5 (3.43..3.57)", "3 (2.94..3.06)"],
			["lookup/seq age:fresh", "1GiB", "0.700 (0.673..0.729)",
			 "0.600 (0.576..0.624)"],
		])
		# the live kernel is in the fidelity table, not in the summary
		self.assertNotIn("kernel/page64", text)


class PlotLarge(PlotCase):
	"""A dump whose counter heat maps have more cells than can carry text:
	those are PNG alone, and check_plots knows it."""

	def test_colour_only_heat_maps(self):
		d = os.path.join(self.tmp, "big")
		self.ok([PY, os.path.join(TESTS, "make_big_dump.py"), d, "--benchmarks", "1500",
			 "--rounds", "2"])
		self.ok([PY, script("plot"), d, "--jobs", "2"])
		rc, out, _ = run([PY, os.path.join(TESTS, "check_plots.py"), d, "--dump", d])
		self.assertEqual(rc, 0, out)
		files = os.listdir(d)
		self.assertIn("counter-cycles.png", files)
		self.assertNotIn("counter-cycles.svg", files)
		self.assertIn("time-k00-seq0.svg", files)
		with open(os.path.join(d, "report.md")) as f:
			self.assertIn("(counter-cycles.png) (PNG only: colour, no text)", f.read())


class CheckPlots(PlotCase):
	"""The checker CI runs on results/ci: passes on real plots, fails on broken ones."""

	def checker(self, *args):
		return run([PY, os.path.join(TESTS, "check_plots.py"), *args])

	def test_passes_on_plot_output(self):
		self.plot(fixture("sim"))
		rc, out, _ = self.checker(self.tmp, "--dump", fixture("sim"))
		self.assertEqual(rc, 0, out)
		self.assertIn("4 plots expected, 8 PNG/SVG files valid", out)

	def test_fails_on_missing_and_corrupt(self):
		self.plot(fixture("sim"))
		os.remove(os.path.join(self.tmp, "sim_LL_misses-desktop.svg"))
		shutil.copy(fixture("bad", "corrupt.png"), os.path.join(self.tmp, "sim_D1_misses-desktop.png"))
		with open(os.path.join(self.tmp, "time-lookup-seq.png"), "r+b") as f:
			f.truncate(100)		# a PNG cut short
		shutil.copy(fixture("bad", "corrupt.svg"), os.path.join(self.tmp, "extra.svg"))
		rc, out, _ = self.checker(self.tmp, "--dump", fixture("sim"))
		self.assertEqual(rc, 1)
		for want in ("sim_LL_misses-desktop.svg: missing",
			     "sim_D1_misses-desktop.png: chunk b'IHDX': bad CRC",
			     "time-lookup-seq.png: chunk b'",	# cut inside some chunk
			     "runs past the end of the file",
			     "extra.svg: not XML"):
			self.assertIn(want, out)

	def test_svg_root_must_be_svg(self):
		with open(os.path.join(self.tmp, "x.svg"), "w") as f:
			f.write("<html/>")
		self.assertEqual(check.svg_problem(os.path.join(self.tmp, "x.svg")),
				 "root element is <html>, not <svg>")


class Figures(PlotCase):
	"""Figures drawn by the Plotter itself, kept instead of saved, to look
	at what they hold."""

	def plotter(self, *dumps):
		import mdb_dump as md
		from figures.plotter import Plotter
		p = Plotter(md.load_dumps([fixture(x) for x in dumps]), self.tmp, 0.01)
		self.figs = {}

		def keep(fig, name, title):
			self.figs[name] = fig
		p.save = keep
		return p

	def test_doubtful_cells_grey_at_any_size(self):
		"""A cell whose interval holds 1 is hatched grey, whether or not
		the map is small enough to carry text."""
		p = self.plotter("scale")
		rows = [("k", "", (), 1)] * 1
		for n in (4, figure.ANNOTATE_CELLS + 100):
			cols = [(f"l{i}", 1) for i in range(n)]
			cells = {(rows[0], c): (1.0, "1.000", i % 2 == 0) for i, c in enumerate(cols)}
			fig = heatmap.heatmaps(p, [("t", rows, cols, cells)], "what")
			ax = fig.axes[0]
			self.assertEqual(len(ax.patches), (n + 1) // 2)
			self.assertTrue(all(x.get_hatch() == "///" for x in ax.patches))

	def test_summary_has_a_footprint_panel(self):
		p = self.plotter("scale")
		FIGURES["summary"].draw(p, "summary")
		fig = self.figs["summary"]
		titles = [ax.get_title() for ax in fig.axes]
		# the CPU's name trimmed in a figure (report.md's runs table has it whole)
		self.assertIn("labbox-s (Fixture S): footprint (memmap + descriptors)", titles)
		bars = next(ax for ax in fig.axes if "footprint" in ax.get_title()).patches
		self.assertEqual(sorted(round(b.get_height(), 3) for b in bars), [8.0, 14.0, 16.0])
		# the heat map: the headline sizes only (1GiB and 4GiB of 256MiB..4GiB)
		heat = fig.axes[0]
		self.assertEqual([t.get_text() for t in heat.get_xticklabels()],
				 ["page32\n1GiB", "page32\n4GiB", "memdesc8\n1GiB", "memdesc8\n4GiB"])
		# getput-neighbours' 8, lookup/random-cold memdesc8 4GiB, lookup/seq page32
		# 4GiB and alloc/order0-zero page32's two hold 1
		self.assertEqual(len(heat.patches), 12)

	def test_time_axes(self):
		p = self.plotter("scale")
		FIGURES["time"].draw(p, "t", "lookup/random-cold")
		ax = self.figs["t"].axes[0]
		# the kernel's unit, in microseconds where the times are large
		self.assertEqual(ax.get_ylabel(), "\u00b5s per lookup\n(median; bar: Q1..Q3; dots: min, max)")
		lines = {l.get_label(): l for l in ax.get_lines()}
		# layouts side by side: no two share an x
		xs = [tuple(lines[n].get_xdata()) for n in ("page64", "page32", "memdesc8")]
		self.assertEqual(len({x[0] for x in xs}), 3)
		self.assertEqual(list(lines["page64"].get_ydata()), [9, 20, 40])
		# where the working set passes the LLC (32MiB): page64's memmap is
		# 16MiB at 1GiB, 64MiB at 4GiB: 2GiB; page32's reaches it at 4GiB
		self.assertEqual([round(x) for x in lines["page64 working set = LLC"].get_xdata()],
				 [2 << 30] * 2)
		self.assertEqual([round(x) for x in lines["page32 working set = LLC"].get_xdata()],
				 [4 << 30] * 2)
		self.assertNotIn("memdesc8 working set = LLC", lines)
		self.assertEqual([t.get_text() for t in ax.get_xticklabels()],
				 ["256MiB\n8x LLC", "1GiB\n32x LLC", "4GiB\n128x LLC"])
		# quartile bars, min and max as faint dots
		self.assertEqual(len(ax.collections), 2)
		self.assertEqual(ax.collections[1].get_alpha(), 0.35)
		FIGURES["time"].draw(p, "r", "lookup/random")
		ax = self.figs["r"].axes[0]
		self.assertEqual(ax.get_ylabel().split("\n")[0], "ns per lookup")
		self.assertIn("baseline/latency @ page64 memmap", [l.get_label() for l in ax.get_lines()])

	def test_baseline_only_where_it_bounds(self):
		p = self.plotter("scale")
		FIGURES["time"].draw(p, "t", "folio/getput-neighbours")
		labels = [l.get_label() for l in self.figs["t"].axes[0].get_lines()]
		self.assertFalse([x for x in labels if x.startswith("baseline")], labels)
		self.assertIn("baseline/latency left off for page64, page32, memdesc8 on mix desktop: "
			      "above folio/getput-neighbours's time, it bounds nothing here.\n", p.text.report)

	def test_sim_at_one_size_is_a_dot_plot(self):
		"""A simulation at one RAM size: a dot per layout, the layouts on
		the x axis, not lines of one point on a RAM axis."""
		d = self.write_dump(load(fixture("sim", "mdbench.json")), "one-size", same_run=True)
		doc = load(fixture("sim", "sim.json"))
		doc["benchmarks"] = [b for b in doc["benchmarks"] if b["ram_bytes"] == 1 << 30]
		with open(os.path.join(d, "sim.json"), "w") as f:
			json.dump(doc, f)
		import mdb_dump as md
		from figures.plotter import Plotter
		p = Plotter(md.load_dumps([d]), self.tmp, 0.01)
		figs = {}
		p.save = lambda fig, name, title: figs.setdefault(name, fig)
		FIGURES["sim"].draw(p, "s", "sim_D1_misses", "desktop", ["lookup/seq", "lookup/random"])
		ax = figs["s"].axes[0]
		self.assertEqual([t.get_text() for t in ax.get_xticklabels()],
				 ["page64", "page32", "memdesc8"])
		self.assertEqual(ax.get_xlabel(), "layout, modelled RAM 1GiB")
		dots = {l.get_label(): l for l in ax.get_lines()}
		self.assertEqual(sorted(dots), ["memdesc8", "page32", "page64"])
		for i, name in enumerate(["page64", "page32", "memdesc8"]):
			self.assertEqual(dots[name].get_linestyle(), "None")
			self.assertEqual(list(dots[name].get_xdata()), [i])
		# lookup/seq's model at the layout's dot
		self.assertEqual(len(ax.collections), 3)

	def test_titles_do_not_overlap(self):
		p = self.plotter("sim")
		FIGURES["sim"].draw(p, "s", "sim_D1_misses", "desktop", ["lookup/seq", "lookup/random"])
		fig = self.figs["s"]
		fig.canvas.draw()
		r = fig.canvas.get_renderer()
		top = fig._suptitle.get_window_extent(r)
		for ax in fig.axes:
			if ax.get_visible():
				self.assertGreater(top.y0, ax.title.get_window_extent(r).y1)


class PlotScale(PlotCase):
	"""A dump with the machine's last-level cache and headline size, working
	sets, kernels of every class and their own counters, a noisy benchmark,
	every memmap in its conditions, and a sim.json."""

	def test_headline(self):
		text = self.plot(fixture("scale"))
		self.assertIn("Headline: modelled RAM at or above the headline size 1GiB (32x the "
			      "last-level cache of 32MiB): 1GiB, 4GiB.  Conditions: `memmap_pages` 2m; `desc_age` "
			      "aged; `desc_cache` slub; `slab_freelist_random` true; `hvo.modes` off.", text)
		head = text[:text.index("## Runs")]
		rows = table_rows(head, 7)
		self.assertEqual(rows[0], ["kernel", "RAM", "layout", "n ref/layout", "ratio",
					   "interval", "verdict"])
		# dependent kernels lead, throughput walks follow; headline sizes only
		kernels = [r[0] for r in rows[1:]]
		self.assertEqual(md_first_seen(kernels), ["lookup/random", "lookup/random-cold",
							  "folio/getput-neighbours threads:2",
							  "lookup/seq", "alloc/order0-zero"])
		self.assertEqual({r[1] for r in rows[1:]}, {"1GiB", "4GiB"})
		self.assertIn(["lookup/random-cold", "4GiB", "memdesc8", "5/5", "1.000",
			       "0.961..1.041", "same within \u00b15%"], rows)
		self.assertIn(["alloc/order0-zero", "4GiB", "memdesc8", "5/5", "1.080",
			       "1.038..1.124", "slower"], rows)
		self.assert_rows(head, [["desktop", "16,777,216", "14,680,064 (-12.5%)",
					 "8,388,608 (-50.0%)"]])

	def test_report_order_and_sections(self):
		text = self.plot(fixture("scale"))
		heads = [l for l in text.splitlines() if l.startswith("## ")]
		self.assertEqual(heads, [
			"## Summary: each layout against page64", "## Runs",
			"## Conditions the runs obtained", "## Counters", "## Noisy benchmarks",
			"## Set-up parameters",
			"## Time per op: dependent kernels", "## Simulated misses per op (callgrind)",
			"## Time per op: sequential kernels",
			"## Time per op: mutating kernels", "## Time per op against threads",
			"## The kernels' own counters", "## Footprint", "## Appendix"])
		# the tables behind the figures are the appendix's, in the figures' order
		main, appendix = text.split("\n## Appendix\n")
		self.assertNotIn("### Numbers:", main)
		self.assertEqual([l for l in appendix.splitlines() if l.startswith("### ")], [
			"### Numbers: every size, each layout against the reference",
			"### Numbers: lookup/random: ns/op", "### Numbers: lookup/random-cold: ns/op",
			"### Numbers: folio/getput-neighbours: ns/op",
			"### Numbers: sim_D1_misses per op, mix desktop (model_D1_misses as x)",
			"### Numbers: sim_LL_misses per op, mix desktop",
			"### Numbers: lookup/seq: ns/op", "### Numbers: alloc/order0-zero: ns/op",
			"### Numbers: folio/getput-neighbours: ns/op against threads",
			"### Numbers: sharing_pairs", "### Numbers: metadata_share",
			"### Numbers: footprint per GiB of RAM"])
		self.assertNotIn("| variant | RAM | RAM/LLC |", main)
		self.assert_files(["summary", "time-lookup-random", "time-lookup-random-cold",
				   "time-folio-getput-neighbours", "sim_D1_misses-desktop",
				   "sim_LL_misses-desktop", "time-lookup-seq", "time-alloc-order0-zero",
				   "threads-folio-getput-neighbours", "kcounter-sharing_pairs",
				   "kcounter-metadata_share", "footprint"])

	def test_kernel_counters_working_sets_noise(self):
		text = self.plot(fixture("scale"))
		self.assert_rows(text, [
			["kernel", "RAM", "page64 sharing_pairs", "page32 sharing_pairs",
			 "memdesc8 sharing_pairs"],
			["folio/getput-neighbours threads:2", "4GiB", "0", "0.5", "0.25"],
			["alloc/order0-zero", "1GiB", "0.125", "0.25", "0.375"],
			["variant", "RAM", "RAM/LLC", "page64 ns/op", "page32 ns/op", "memdesc8 ns/op"],
			["-", "4GiB", "128", "40000 (39200..40800)", "36000 (35280..36720)",
			 "40000 (39200..40800)"],
			# noisy: (Q3 - Q1) / median of 1.0, 0.7, 1.4, 0.8, 1.25 x 1.5 ns
			["benchmark", "n", "spread", "ns/op"],
			["lookup/seq/page32/mix:desktop/ram:256MiB", "5", "45.0%", "1.5 (1.05..2.1)"],
		])
		self.assertIn("Working set (`working_set_bytes`) passes the last-level cache (32MiB) "
			      "at: page64 2GiB, page32 4GiB, memdesc8 no size run (below it throughout).",
			      text)
		self.assertNotIn("working_set_bytes per op", text)	# a size, not a counter

	def test_setup_parameters_a_table(self):
		"""batch is what alloc/order0-zero chose, not what it measured: a
		table of its values, no kcounter figure (test_report_order_and_sections)."""
		text = self.plot(fixture("scale"))
		part = text[text.index("## Set-up parameters"):text.index("## Time per op")]
		self.assertEqual(table_rows(part), [
			["parameter", "kernel", "variant", "page64", "page32", "memdesc8"],
			["batch", "alloc/order0-zero", "-", "16", "16", "16"]])

	def test_conditions_summarised(self):
		text = self.plot(fixture("scale"))
		part = text[text.index("## Conditions"):text.index("## Counters")]
		rows = table_rows(part)
		self.assertEqual(len(rows), 1 + 5 + 1 + 8 + 4)	# header, scalars, memmaps, fields, hvo
		for r in (["memmaps", "9 entries"],
			  ["memmaps[].layout", "page64, page32, memdesc8"],
			  ["memmaps[].ram_bytes", "268435456..4294967296"],
			  ["memmaps[].desc_adjacency", "0.03..0.09 (3 null)"],
			  ["hvo.modes", "off"]):
			self.assertIn(r, rows)

	def test_bad_machine_refused(self):
		doc = load(fixture("scale", "mdbench.json"))
		doc["context"]["memdesc_bench"]["machine"]["llc_bytes"] = "32MiB"
		d = self.write_dump(doc)
		self.refused([PY, script("plot"), d], 'machine.llc_bytes "32MiB" is not an integer')

	def test_sim_without_phantoms(self):
		text = self.plot(fixture("scale"))
		part = text[text.index("## Simulated"):text.index("## Time per op: sequential")]
		self.assertIn("### sim_D1_misses per op, mix desktop (model_D1_misses as x)", part)
		self.assertIn("### sim_LL_misses per op, mix desktop\n", part)
		self.assertNotIn("model_LL_misses", text)
		self.assertIn("lookup/random-cold: sim_LL_misses is 0 at every size and layout: no panel "
			      "(in the appendix's table).", part)
		self.assert_rows(text[text.index("## Appendix"):],
				 [["lookup/random-cold", "-", "4GiB", "0", "0", "0"]])


def md_first_seen(items):
	return list(dict.fromkeys(items))


if __name__ == "__main__":
	main()
