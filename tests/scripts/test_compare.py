#!/usr/bin/python3
"""scripts/compare on the fixture dumps: the exact ratios and verdicts the
chosen fixture numbers imply (fixtures/dumps/make_fixtures.py)."""

import json
import os

from test_scripts_util import Scratch, fixture, main, script, PY

NA_HW = "n/a (perf_event_open: hardware event not supported (ENOENT))"


class CompareCase(Scratch):
	def compare(self, *args):
		out, err = self.ok([PY, script("compare"), *args])
		self.assertEqual(err, "")
		return out

	def rows(self, text):
		"""{benchmark: [A, A spread, B, B spread, B/A, verdict]}"""
		out = {}
		for line in text.splitlines():
			cells = [c.strip() for c in line.strip().strip("|").split("|")]
			if len(cells) == 7 and cells[0] not in ("benchmark", "---"):
				out[cells[0]] = cells[1:]
		return out


class CompareDumps(CompareCase):
	def test_two_machines(self):
		text = self.compare(fixture("one"), fixture("two"))
		rows = self.rows(text)
		want = {"lookup/random": "2.000", "lookup/seq": "0.500", "folio/tail": "1.500",
			"footprint": "1.000", "baseline/latency": "2.000", "baseline/bandwidth": "2.000"}
		seen = set()
		for name, cells in rows.items():
			kernel = next(k for k in want if name.startswith(k + "/"))
			seen.add(kernel)
			self.assertEqual(cells[4], want[kernel], name)
			self.assertEqual(cells[5], "1 rep", name)
			self.assertEqual(cells[1], "1 rep")
		self.assertEqual(seen, set(want))
		# 3 kernels x 3 layouts x 3 sizes, 2 mixes x 3 layouts x 3 sizes of footprint, 8 baselines
		self.assertEqual(len(rows), 27 + 18 + 8)
		self.assertEqual(rows["lookup/random/page64/mix:desktop/ram:1GiB"][:4],
				 ["20.25", "1 rep", "40.5", "1 rep"])
		self.assertIn("Only in A (9): convert/pfn_to_page/page64/mix:desktop/ram:256MiB,", text)
		self.assertNotIn("Only in B", text)

	def test_counter_metric(self):
		rows = self.rows(self.compare(fixture("one"), fixture("two"), "--metric", "page_faults"))
		measured = {n: c for n, c in rows.items() if not n.startswith(("footprint", "baseline"))}
		self.assertEqual(len(measured), 27)
		self.assertEqual({c[4] for c in measured.values()}, {"2.000"})	# 0.25 / 0.125

	def test_counter_one_side_lacks(self):
		rows = self.rows(self.compare(fixture("one"), fixture("two"), "--metric", "cycles"))
		cells = rows["lookup/random/page64/mix:desktop/ram:256MiB"]
		self.assertEqual(cells, [NA_HW, "-", "33", "-", "n/a", "-"])


class CompareLayouts(CompareCase):
	def test_repetitions_verdicts(self):
		rows = self.rows(self.compare(fixture("reps"), "--layouts", "page64", "memdesc8"))
		self.assertEqual(rows, {
			"lookup/random/mix:desktop/ram:256MiB": ["11", "10..12", "5.5", "5..6", "0.500", "holds"],
			"lookup/random/mix:desktop/ram:1GiB": ["22", "20..24", "22", "21..23", "1.000", "noise"],
		})

	def test_touching_ranges_are_noise(self):
		rows = self.rows(self.compare(fixture("reps"), "--layouts", "page64", "page32"))
		# page64 10..12, page32 8..10: they share 10
		self.assertEqual(rows["lookup/random/mix:desktop/ram:256MiB"],
				 ["11", "10..12", "9", "8..10", "0.818", "noise"])

	def test_single_runs(self):
		rows = self.rows(self.compare(fixture("one"), "--layouts", "page64", "memdesc8"))
		self.assertEqual(rows["lookup/random/mix:desktop/ram:1GiB"],
				 ["20.25", "1 rep", "6.5", "1 rep", "0.321", "1 rep"])
		self.assertEqual(rows["footprint/mix:server/ram:4GiB"][4], "1.000")
		self.assertFalse(any(n.startswith("baseline/") for n in rows))	# no layout

	def test_footprint_metric(self):
		rows = self.rows(self.compare(fixture("one"), "--layouts", "page64", "memdesc8",
					      "--metric", "bytes_per_GiB", "--filter", "footprint/"))
		# 16 MiB vs 2 MiB memmap + 4 MiB (desktop) / 1 MiB (server) of descriptors per GiB
		self.assertEqual(rows["footprint/mix:desktop/ram:1GiB"][:5],
				 ["16777216", "1 rep", "6291456", "1 rep", "0.375"])
		self.assertEqual(rows["footprint/mix:server/ram:1GiB"][4], "0.188")
		self.assertEqual(len(rows), 6)

	def test_simulated_metric(self):
		rows = self.rows(self.compare(fixture("sim"), "--layouts", "page64", "memdesc8",
					      "--metric", "sim_D1_misses"))
		self.assertEqual(rows["lookup/seq/mix:desktop/ram:256MiB"][:5],
				 ["1.062", "1 rep", "0.188", "1 rep", "0.176"])	# 0.1875 / 1.0625
		self.assertEqual(rows["lookup/random/mix:desktop/ram:4GiB"][4], "0.138")	# 0.5625 / 4.0625
		self.assertEqual(len(rows), 6)

	def test_aggregates_only(self):
		"""--benchmark_report_aggregates_only: spread from stddev."""
		with open(fixture("reps", "mdbench.json")) as f:
			doc = json.load(f)
		doc["benchmarks"] = [b for b in doc["benchmarks"] if b["run_type"] == "aggregate"]
		path = os.path.join(self.tmp, "mdbench.json")
		with open(path, "w") as f:
			json.dump(doc, f)
		rows = self.rows(self.compare(path, "--layouts", "page64", "memdesc8"))
		# page64 11 +- 1, memdesc8 5.5 +- 0.5: 10..12 and 5..6 do not overlap
		self.assertEqual(rows["lookup/random/mix:desktop/ram:256MiB"],
				 ["11", "+-1 sd", "5.5", "+-0.5 sd", "0.500", "holds"])


if __name__ == "__main__":
	main()
