#!/usr/bin/python3
"""scripts/plot on the fixture dumps: exactly the expected files, each a valid
PNG or SVG, and report.md carrying the fixture's numbers (see
fixtures/dumps/make_fixtures.py for where they come from)."""

import json
import os
import shutil

from test_scripts_util import Scratch, fixture, main, script, PY
import test_scripts_check_plots as check

NA_HW = "n/a (perf_event_open: hardware event not supported (ENOENT))"
TIMED = ["time-lookup-random-desktop", "time-lookup-seq-desktop", "time-folio-tail-desktop"]


class PlotCase(Scratch):
	def plot(self, *dumps, out=True):
		cmd = [PY, script("plot"), *dumps]
		if out:
			cmd += ["--out", self.tmp]
		stdout, err = self.ok(cmd)
		self.assertEqual(err, "")
		self.assertIn("report.md", stdout)
		with open(os.path.join(self.tmp, "report.md")) as f:
			return f.read()

	def assert_files(self, names, where=None):
		where = where or self.tmp
		want = {f"{n}.{e}" for n in names for e in ("png", "svg")} | {"report.md"}
		got = {f for f in os.listdir(where) if f.endswith((".png", ".svg", ".md"))}
		self.assertEqual(got, want)
		problems, checked = check.check(where, names)
		self.assertEqual(problems, [])
		self.assertEqual(checked, 2 * len(names))

	def assert_rows(self, text, rows):
		for r in rows:
			self.assertIn(r + "\n", text)


class PlotOne(PlotCase):
	def test_one_machine(self):
		text = self.plot(fixture("one"))
		self.assert_files(TIMED + ["time-convert-pfn_to_page-desktop",
					   "counter-page_faults-desktop", "footprint"])
		self.assert_rows(text, [
			# ns/op per layout against RAM
			"| RAM | page64 ns/op | page32 ns/op | memdesc8 ns/op |",
			"| 256MiB | 5.5 | 4.5 | 3.25 |",
			"| 1GiB | 20.25 | 12 | 6.5 |",
			"| 4GiB | 80 | 60 | 40 |",
			"| 256MiB | 1 | 1.125 | 1.375 |",
			# latency baseline at each layout's memmap size: RAM = B / sizeof_page * 4KiB
			"| 4MiB | 1.5 | 256MiB | 1.5 | 512MiB | 1.5 | 2GiB | 1.5 |",
			"| 64MiB | 12.5 | 4GiB | 12.5 | 8GiB | 12.5 | 32GiB | 12.5 |",
			# bandwidth baseline: sizeof_page / (GB/s) ns per op
			"| 16MiB | 20 | 1GiB | 3.2 | 2GiB | 1.6 | 8GiB | 0.4 |",
			# counters per op, and the missing ones with their reason
			"| lookup/random | 4GiB | 0.125 | 0.125 | 0.125 |",
			f"| cycles | {NA_HW} |",
			f"| LLC_load_misses | {NA_HW} |",
			"| page_faults | available (page-faults) |",
			# footprint: memmap 8 B/page = 2 MiB per GiB, descriptors 1 MiB per GiB
			"| server | memdesc8 | 1GiB | 2097152 | 1048576 | 16384 | 3145728 | 3145728 "
			"| 0.293 | 2097152 | 1048576 |",
			"| desktop | page64 | 4GiB | 67108864 | 0 | 0 | 67108864 | 16777216 | 1.562 "
			"| 16777216 | 0 |",
		])
		for want in ("Fixture CPU A @ 2.00GHz", "6.18.0-fixture", "| THP | madvise |",
			     "L1d 48KiB, L2u 1MiB, L3u 32MiB", "page32 (page 32 B, folio 80 B)"):
			self.assertIn(want, text)
		self.assertNotIn("| cycles | 0", text)
		self.assertNotIn("baseline/bandwidth (GB/s) |", text.split("folio/tail")[1].split("###")[0])

	def test_failed_benchmark_shows_its_error(self):
		"""mdb_skip_with_error reaches the dump as GB's error_occurred/error_message."""
		with open(fixture("one", "mdbench.json")) as f:
			doc = json.load(f)
		for b in doc["benchmarks"]:
			if b["name"] == "lookup/random/memdesc8/mix:desktop/ram:4GiB":
				b.update(error_occurred=True, error_message="memmap: out of memory")
		d = os.path.join(self.tmp, "run")
		os.makedirs(d)
		with open(os.path.join(d, "mdbench.json"), "w") as f:
			json.dump(doc, f)
		text = self.plot(d)
		self.assertIn("| 4GiB | 80 | 60 | error: memmap: out of memory |\n", text)

	def test_default_out_is_the_dump_dir(self):
		d = os.path.join(self.tmp, "run")
		shutil.copytree(fixture("one"), d)
		self.ok([PY, script("plot"), os.path.join(d, "mdbench.json")])
		self.assertTrue(os.path.exists(os.path.join(d, "report.md")))
		self.assertTrue(os.path.exists(os.path.join(d, "footprint.svg")))


class PlotTwoMachines(PlotCase):
	def test_side_by_side(self):
		text = self.plot(fixture("one"), fixture("two"))
		self.assert_files(TIMED + ["time-convert-pfn_to_page-desktop",
					   "counter-cycles-desktop", "counter-instructions-desktop",
					   "counter-LLC_load_misses-desktop", "counter-page_faults-desktop",
					   "footprint"])
		self.assertIn("|  | labbox-a (Fixture CPU A @ 2.00GHz) | labbox-b (Fixture CPU B @ 3.00GHz) |",
			      text)
		self.assert_rows(text, [
			"**labbox-b (Fixture CPU B @ 3.00GHz)**",
			"| 256MiB | 11 | 9 | 6.5 |",		# machine B: lookup/random x2
			"| 4GiB | 1.5 | 1 | 0.812 |",		# lookup/seq x0.5
			"| lookup/random | 256MiB | 33 | 27 | 19.5 |",	# cycles = 3 x ns
			f"cycles: {NA_HW}",			# machine A has no PMU
			f"| cycles | {NA_HW} | available (cycles) |",
			f"| L1D_load_misses | {NA_HW} | {NA_HW} |",
			"No convert/pfn_to_page in this dump.",
		])


class PlotReps(PlotCase):
	def test_repetitions(self):
		text = self.plot(fixture("reps"))
		self.assert_files(["time-lookup-random-desktop", "counter-page_faults-desktop"])
		self.assert_rows(text, [
			"| 256MiB | 11 (10..12) | 9 (8..10) | 5.5 (5..6) |",
			"| 1GiB | 22 (20..24) | 20 (19..25) | 22 (21..23) |",
		])
		self.assertIn("No `baseline/latency` in this dump: no baseline drawn.", text)


class PlotSim(PlotCase):
	def test_native_and_simulated(self):
		text = self.plot(fixture("sim"))
		self.assert_files(["time-lookup-seq-desktop", "counter-page_faults-desktop",
				   "sim_D1_misses-desktop", "sim_LL_misses-desktop"])
		self.assert_rows(text, [
			"| kernel | RAM | page64 sim_D1_misses/op | page32 sim_D1_misses/op "
			"| memdesc8 sim_D1_misses/op |",
			"| lookup/seq | 256MiB | 1.062 (model 1) | 0.562 (model 0.5) | 0.188 (model 0.125) |",
			"| lookup/random | 1GiB | 4.062 | 2.062 | 0.562 |",	# no model for it
			"| lookup/random | 4GiB | 4 | 2 | 0.5 |",		# sim_LL_misses
		])
		self.assertIn("| simulation | valgrind-3.19.0 callgrind; D1 49152 B, 64 B, 12-way associative; "
			      "LL 33554432 B, 64 B, 16-way associative; 65536..262144 ops per benchmark |",
			      text)

	def test_sim_json_alone(self):
		text = self.plot(fixture("sim", "sim.json"))
		self.assert_files(["sim_D1_misses-desktop", "sim_LL_misses-desktop"])
		self.assertIn("| lookup/seq | 4GiB | 1 | 0.5 | 0.125 |", text)

	def test_sim_beside_a_machine_without(self):
		text = self.plot(fixture("one"), fixture("sim"))
		self.assertIn("sim_D1_misses: n/a (no sim.json: this run had no --simulate)", text)


class CheckPlots(PlotCase):
	"""The checker CI runs on results/ci: passes on real plots, fails on broken ones."""

	def checker(self, *args):
		from test_scripts_util import run
		return run([PY, os.path.join(os.path.dirname(__file__), "test_scripts_check_plots.py"),
			    *args])

	def test_passes_on_plot_output(self):
		self.plot(fixture("sim"))
		rc, out, _ = self.checker(self.tmp, "--dump", fixture("sim"))
		self.assertEqual(rc, 0, out)
		self.assertIn("4 plots expected, 8 PNG/SVG files valid", out)

	def test_fails_on_missing_and_corrupt(self):
		self.plot(fixture("sim"))
		os.remove(os.path.join(self.tmp, "sim_LL_misses-desktop.svg"))
		shutil.copy(fixture("bad", "corrupt.png"), os.path.join(self.tmp, "sim_D1_misses-desktop.png"))
		with open(os.path.join(self.tmp, "time-lookup-seq-desktop.png"), "r+b") as f:
			f.truncate(100)		# a PNG cut short
		shutil.copy(fixture("bad", "corrupt.svg"), os.path.join(self.tmp, "extra.svg"))
		rc, out, _ = self.checker(self.tmp, "--dump", fixture("sim"))
		self.assertEqual(rc, 1)
		for want in ("sim_LL_misses-desktop.svg: missing",
			     "sim_D1_misses-desktop.png: chunk b'IHDX': bad CRC",
			     "time-lookup-seq-desktop.png: chunk b'",	# cut inside some chunk
			     "runs past the end of the file",
			     "extra.svg: not XML"):
			self.assertIn(want, out)

	def test_svg_root_must_be_svg(self):
		with open(os.path.join(self.tmp, "x.svg"), "w") as f:
			f.write("<html/>")
		self.assertEqual(check.svg_problem(os.path.join(self.tmp, "x.svg")),
				 "root element is <html>, not <svg>")


if __name__ == "__main__":
	main(needs_matplotlib=True)
