#!/usr/bin/python3
"""scripts/run against the fake mdbench: the stage plan from mdbench's
est_seconds, the adaptive rounds within the time the other stages leave,
the ETA from mdbench's progress lines (its arithmetic on a clock of our
own), timing.json, the footprint pass over every mix, the plots,
results/latest and the headline table at the end."""

import json
import os
import unittest

from testlib import FAKE, FIX, PY, Scratch, main, run, script
import mdb_dump as md
import mdb_runner as rn


class RunJob(Scratch):
	def job(self, *args, env=None):
		self.log = os.path.join(self.tmp, "argv.log")
		self.results = os.path.join(self.tmp, "results")
		e = dict(os.environ, MDB_RESULTS=self.results, FAKE_MDBENCH_LOG=self.log, **(env or {}))
		return run([PY, script("run"), "--mdbench", FAKE, "--no-simulate", *args], env=e)

	def argvs(self):
		with open(self.log) as f:
			return f.read().splitlines()

	def timing(self):
		with open(os.path.join(self.results, "latest", "timing.json")) as f:
			return json.load(f)

	def test_plan_adaptive_rounds_footprint_headline(self):
		rc, out, err = self.job("--cpu=1")
		latest = os.path.join(self.results, "latest")
		stamp = os.readlink(latest)
		out_dir = os.path.join(self.results, stamp)
		# the fixture's alloc/order0 of memdesc8 at 4GiB fails: exit 1, said once
		self.assertEqual(rc, 1, out + err)
		self.assertEqual(err.count(f"run: some benchmarks failed (see {out_dir}/run.log); "
					   f"going on\n"), 1)
		self.assertNotIn("mdbench: progress", out + err)	# read, not shown
		# Google Benchmark's line per result goes to run.log, mdbench's own to both
		result = "lookup/seq/page32/mix:desktop/ram:1GiB "
		self.assertNotIn(result, out + err)
		with open(os.path.join(out_dir, "run.log")) as f:
			log = f.read()
		self.assertEqual(log.count("\n" + result), 5)
		self.assertIn("mdbench: 319 benchmarks written to", err)
		self.assertIn("mdbench: 319 benchmarks written to", log)
		# the listing's measured last-level cache, pinned for every stage
		self.assertEqual(out.splitlines()[0], "last-level cache measured: 32MiB, pinned for "
				 "every stage (--llc=33554432)")
		self.assertIn(f"$ {FAKE} --profile=quick --cpu=1 --llc=33554432 --rounds=auto "
			      "--time-budget=808 ", log)
		t = self.timing()
		est = {s["key"]: s["est_seconds"] for s in t["stages"]}
		# the fake's est_seconds: 0.5 s a GiB of RAM, 0.01 s at least; the
		# footprint passes list 9 instances a mix at 256MiB, 1GiB, 4GiB
		# (--cpu: one pass at a time, the two one after the other)
		self.assertEqual(est["footprint"], 5 * 3 * (0.125 + 0.5 + 2) + 3 * (0.125 + 0.5 + 2))
		self.assertEqual(est["plots"], 15)
		budget = 870 - est["footprint"] - 15
		self.assertEqual(est["measure"], budget)
		self.assertEqual(list(est), ["measure", "footprint", "plots"])
		# the cache pinned, the plan, then the ETA, then the work
		lines = out.splitlines()[1:]
		self.assertEqual(lines[0], "stage plan (estimates weighted by RAM size):")
		self.assertRegex(lines[1], r"^  1\. quick suite, adaptive rounds within 808 s "
				 r"\(71 benchmarks\) +~13m28s  \(the time budget left by the other stages\)$")
		self.assertRegex(lines[2], r"^  2\. footprint, 2 passes, 1 at a time +~47 s  "
				 r"\(mdbench est_seconds\)$")
		self.assertRegex(lines[3], r"^  3\. plots and report +~15 s  \(default, no run here yet\)$")
		self.assertRegex(lines[4], r"^  total ~14m30s, ends ~\d\d:\d\d:\d\d UTC$")
		self.assertRegex(lines[5], r"^ETA: +0% done, \d+ s so far, about 14m30s left")
		self.assertIn(f"== quick suite, adaptive rounds within 808 s (71 benchmarks) -> {out_dir}\n",
			      out)
		# every progress line of the three mdbench runs made an ETA: 5 rounds of
		# the 62 timed benchmarks, 1 of the 9 footprint ones (a report kernel)
		self.assertEqual(len(t["eta_history"]), 3 + 5 * 62 + 9 + 45 + 9)
		self.assertEqual(set(t["eta_error"]), {"10%", "50%", "90%"})
		self.assertTrue(all(s["seconds"] is not None for s in t["stages"]))
		self.assertIn("== footprint over every mix (desktop, server, database-256g, desktop-16g, "
			      "server-256g, vm-host-512g)\n", out)
		self.assertIn("lookup/random        4GiB  page32    5/5           0.750  0.721..0.781  faster\n"
			      "lookup/random        4GiB  memdesc8  5/5           0.500  0.480..0.520  faster\n",
			      out)
		self.assertIn("server-256g    16,777,216  14,680,064 (-12.5%)  8,388,608 (-50.0%)\n", out)
		self.assertRegex(out, r"\nstage times: measure \d+ s, footprint \d+ s, "
				 r"plots \d+ s; total \d+ s\n")
		self.assertTrue(out.endswith(f"run: report in {out_dir}/report.md "
					     f"({latest} -> {stamp})\n"), out[-300:])
		self.assertTrue(os.path.exists(os.path.join(out_dir, "summary.png")))
		with open(os.path.join(out_dir, "mdbench.json")) as f:
			doc = json.load(f)
		names = [b["name"] for b in doc["benchmarks"]]
		self.assertEqual(names.count("lookup/seq/page32/mix:desktop/ram:1GiB"), 5)
		self.assertEqual(names.count("lookup/seq/page32/mix:desktop/ram:1GiB_median"), 1)
		self.assertEqual(names.count("footprint/memdesc8/mix:server/ram:4GiB"), 1)
		parts = doc["context"]["memdesc_bench"]["parts"]
		self.assertEqual([p["rounds"] for p in parts], [False, False, False])
		argvs = self.argvs()
		self.assertEqual(argvs[0], "--list=json --profile=quick --cpu=1")
		self.assertTrue(argvs[1].startswith("--list=json --profile=quick --cpu=1 --llc=33554432 "
						    "--mix=desktop,"))
		self.assertIn(" --ram=8GiB,16GiB --benchmark_filter=^(footprint)/", argvs[2])
		self.assertEqual(argvs[3], f"--profile=quick --cpu=1 --llc=33554432 --rounds=auto "
			f"--time-budget=808 "
			f"--out={out_dir}")
		self.assertIn("--rounds=1 --out=", argvs[4])
		self.assertTrue(argvs[4].endswith("--benchmark_filter=^(footprint)/"))
		# the mix with 1 GiB folios apart, at sizes that hold one
		self.assertIn("vm-host-512g.json --ram=8GiB,16GiB --benchmark_filter=^(footprint)/",
			      argvs[5])
		self.assertEqual(len(argvs), 6)

	def test_footprint_passes_side_by_side(self):
		"""-j 2: the five small mixes in two passes and the gigantic one
		apart, two at a time; every pass's rows in the merged dump, the
		stage's estimate their makespan."""
		rc, out, err = self.job("--rounds=1", "-j", "2")
		self.assertEqual(rc, 1, err)
		stage = next(s for s in self.timing()["stages"] if s["key"] == "footprint")
		self.assertEqual(stage["title"], "footprint, 3 passes, 2 at a time")
		one = 3 * (0.125 + 0.5 + 2)	# a mix's 9 footprint instances
		self.assertEqual(stage["est_seconds"], max(3 * one, 2 * one + one))
		passes = sorted(a for a in self.argvs() if "--rounds=1 --out=" in a and "footprint" in a)
		self.assertEqual(len(passes), 3, passes)
		mixes = sorted(",".join(map(os.path.basename, a.split("--mix=")[1].split(" ")[0].split(",")))
			       for a in passes)
		self.assertEqual(mixes,
				 ["desktop,server,database-256g.json", "desktop-16g.json,server-256g.json",
				  "vm-host-512g.json"])
		with open(os.path.join(self.results, "latest", "mdbench.json")) as f:
			names = [b["name"] for b in json.load(f)["benchmarks"]]
		for mix in ("server", "database-256g", "server-256g", "vm-host-512g"):
			self.assertEqual(names.count(f"footprint/memdesc8/mix:{mix}/ram:4GiB"), 1, mix)

	def test_the_settle_command_runs_as_printed(self):
		"""At a margin of 0.1% a headline row is left undecided: the command
		printed for it runs from the clone's root as it stands, its filter
		and margin kept, and writes the settle run beside this one."""
		twin = {"FAKE_MDBENCH_TWIN": "scan/compaction"}
		rc, out, err = self.job("--margin=0.001", env=twin)
		self.assertEqual(rc, 1, err)
		line = out.splitlines()[-2]
		self.assertRegex(line, r"^1 rows undecided: `.*` settles them \(~1 min\), run from ")
		cmd = line.split("`")[1]
		stamp = os.readlink(os.path.join(self.results, "latest"))
		settle = os.path.join(self.results, stamp + "-settle")
		self.assertTrue(cmd.startswith("tests/scripts/fake_mdbench.py --profile=quick "
					       "--llc=33554432 --rounds=10 "
					       "'--benchmark_filter=^(scan/compaction/page64/mix:desktop/"
					       "ram:4GiB|"), cmd)
		self.assertTrue(cmd.endswith(f" && scripts/plot {settle} --headline --margin=0.001"), cmd)
		rc, _, err = run(["sh", "-c", cmd], cwd=rn.TOP,
				 env=dict(os.environ, FAKE_MDBENCH_LOG=self.log, **twin))
		self.assertEqual(rc, 0, err)
		with open(os.path.join(settle, "mdbench.json")) as f:
			names = {b["run_name"] for b in json.load(f)["benchmarks"]}
		# every layout of the row's group, and the reference's twin: its A/A column
		self.assertEqual(names, {f"scan/compaction/{l}/mix:desktop/ram:4GiB"
					 for l in ("page64", "page32", "memdesc8")} |
				 {"scan/compaction/page64/mix:desktop/ram:4GiB/twin:b"})
		self.assertTrue(os.path.exists(os.path.join(settle, "report.md")))

	def test_verbose_shows_the_log(self):
		"""-v: Google Benchmark's line per result on the console as well."""
		rc, out, err = self.job("-v", "--rounds=1")
		self.assertEqual(rc, 1, err)
		self.assertEqual(out.count("\nlookup/seq/page32/mix:desktop/ram:1GiB "), 1)

	def test_fixed_rounds_and_the_last_runs_times(self):
		# -j 1: the footprint passes one after the other, as many as any machine makes
		rc, out, err = self.job("--time-budget=300", "-j", "1")
		self.assertEqual(rc, 1, err)
		first = self.timing()
		self.assertIn("--rounds=auto --time-budget=238 --out=", self.argvs()[3])
		rc, out, err = self.job("--rounds=3", "-j", "1")
		self.assertEqual(rc, 1, err)
		self.assertIn("1. quick suite, 3 rounds (71 benchmarks)", out)
		argv = self.argvs()[-3]
		self.assertIn(" --rounds=3 --out=", argv)
		self.assertNotIn("--time-budget", argv)
		t = self.timing()
		plots = next(s for s in t["stages"] if s["key"] == "plots")
		# the plots' estimate is what they took last time here
		self.assertEqual(plots["source"], "this machine's last run")
		self.assertEqual(plots["est_seconds"],
				 next(s["seconds"] for s in first["stages"] if s["key"] == "plots"))
		# 3 rounds of mdbench's one-round estimate
		measure = next(s for s in t["stages"] if s["key"] == "measure")
		self.assertEqual(measure["source"], "mdbench est_seconds")
		self.assertAlmostEqual(measure["est_seconds"], 3 * FAKE_ONE_ROUND, places=6)


# One round of the fixture's 71 benchmarks by the fake's est_seconds (0.5 s
# a GiB, 0.01 s at least): 6 kernels and footprint x 3 layouts at 256MiB,
# 1GiB and 4GiB, and 8 baselines, which have no RAM.
FAKE_ONE_ROUND = 7 * 3 * (0.125 + 0.5 + 2) + 8 * 0.01


class RunPlan(unittest.TestCase):
	"""mdb_runner's Plan on a clock of our own: the ETA's arithmetic."""

	def test_eta_from_progress_lines(self):
		now = [100.0]
		said = []
		S = rn.Stage
		p = rn.Plan([S("measure", "m", 100, "x"), S("plots", "p", 10, "y")], 100.0,
			    out=said.append, now=lambda: now[0])
		p.begin("measure")
		self.assertEqual(p.eta(), (0.0, 110.0, 0.0))
		now[0] = 110.0			# first line: mdbench says 90 s left
		p.progress(1, 10, 90.0)
		self.assertEqual(p.eta(), (10.0, 100.0, 10 / 110))
		now[0] = 140.0			# 45 s of its estimate went in 30 s: rate 2/3
		p.progress(5, 10, 45.0)
		self.assertEqual(p.eta(), (40.0, 40.0, 0.5))
		p.end("measure")
		now[0] = 150.0
		p.begin("plots")		# not begun stages: their estimate
		self.assertEqual(p.eta(), (50.0, 10.0, 50 / 60))
		now[0] = 170.0			# past its estimate: nothing left, not less
		self.assertEqual(p.eta(), (70.0, 0.0, 1.0))
		p.end("plots")
		self.assertEqual([l.split(",")[0] for l in said],
				 ["ETA:   0% done", "ETA:  50% done", "ETA:  83% done"])	# 9%: no tenth crossed
		rec = p.record()
		self.assertEqual([s["seconds"] for s in rec["stages"]], [40.0, 20.0])
		self.assertEqual(rec["total_seconds"], 70.0)
		# the ETA in force at 10% of the real time (7 s in: the first, 110 s)
		# was 36% too long, at 50% (35 s: the one of 10 s, 110 s) too, at
		# 90% (63 s: the one of 50 s, 60 s) 14% too short
		err = rn.eta_errors(rec)
		self.assertEqual(err, {0.1: (110.0, (70 - 110) / 110), 0.5: (110.0, (70 - 110) / 110),
				       0.9: (60.0, (70 - 60) / 60)})

	def test_time_budget_is_filled(self):
		"""Adaptive rounds: mdbench's est_left counts the rounds planned so
		far; the stage lasts its budget unless that says more."""
		now = [0.0]
		p = rn.Plan([rn.Stage("measure", "m", 600, "x", budget=600)], 0.0, out=lambda t: None,
			    now=lambda: now[0])
		p.begin("measure")
		now[0] = 10.0
		p.progress(1, 100, 90.0)
		self.assertEqual(p.eta()[1], 590.0)
		now[0] = 590.0
		p.progress(98, 100, 2.0)	# the budget's 10 s left
		self.assertEqual(p.eta()[1], 10.0)
		now[0] = 610.0			# past it: est_left by the rate (600/88, kept at 4)
		p.progress(99, 100, 1.0)
		self.assertEqual(p.eta()[1], 4.0)

	def test_rate_is_clamped(self):
		now = [0.0]
		p = rn.Plan([rn.Stage("measure", "m", 100, "x")], 0.0, out=lambda t: None,
			    now=lambda: now[0])
		p.begin("measure")
		p.progress(1, 10, 100.0)
		now[0] = 1000.0			# 10 s of estimate in 1000 s: 100x, kept at 4x
		p.progress(2, 10, 90.0)
		self.assertEqual(p.eta()[1], 360.0)

	def test_progress_lines(self):
		self.assertEqual(rn.parse_progress("mdbench: progress 3/71 est_left=12.5\n"),
				 (3, 71, 12.5))
		self.assertEqual(rn.parse_progress("mdbench: progress 3/71 elapsed=4.25 est_left=12.5 "
						   "lookup/seq/x/mix:desktop/ram:1GiB\n"), (3, 71, 12.5))
		for line in ("mdbench: progress 3/71\n", "progress 3/71 est_left=1\n",
			     "mdbench: progress a/71 est_left=1\n", "mdbench: 71 benchmarks written\n"):
			self.assertIsNone(rn.parse_progress(line), line)

	def test_listing_estimate(self):
		rc, out, err = run([PY, FAKE, "--list=json", "--profile=quick"])
		self.assertEqual(rc, 0, err)
		listing = rn.Listing(out)
		self.assertAlmostEqual(listing.est_seconds(), FAKE_ONE_ROUND, places=6)
		del listing.est[listing.names[0]]	# an mdbench without est_seconds
		self.assertIsNone(listing.est_seconds())
		mates = listing.group_mates(["lookup/seq/page32/mix:desktop/ram:1GiB"])
		self.assertEqual(mates, [f"lookup/seq/{l}/mix:desktop/ram:1GiB"
					 for l in ("page64", "page32", "memdesc8")])

	def test_pace_of_the_measure_stage(self):
		"""What the rounds took over what the listing estimated of them: the
		fixture holds five rounds of every benchmark but alloc/order0 of
		memdesc8 at 4GiB (failed; 2 s estimated)."""
		rc, out, err = run([PY, FAKE, "--list=json", "--profile=quick"])
		self.assertEqual(rc, 0, err)
		listing = rn.Listing(out)
		dump = md.Dump(os.path.join(FIX, "one", "mdbench.json"))
		ran = 5 * (FAKE_ONE_ROUND - 2.0)
		self.assertAlmostEqual(rn.pace(3 * ran, listing, dump), 3.0, places=9)
		self.assertEqual(rn.pace(0, listing, dump), 1.0)	# not measured
		listing.est.clear()				# an mdbench without est_seconds
		self.assertEqual(rn.pace(3 * ran, listing, dump), 1.0)


if __name__ == "__main__":
	main()
