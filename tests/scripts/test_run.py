#!/usr/bin/python3
"""scripts/run against the fake mdbench: the rounds, the re-run of the
benchmarks whose rounds spread wide (merged as extra rounds, and said so),
the footprint pass over every mix, the plots, results/latest and the
headline table at the end."""

import json
import os

from testlib import FAKE, PY, Scratch, main, run, script


class RunJob(Scratch):
	def job(self, *args, env=None):
		self.log = os.path.join(self.tmp, "argv.log")
		self.results = os.path.join(self.tmp, "results")
		e = dict(os.environ, MDB_RESULTS=self.results, FAKE_MDBENCH_LOG=self.log, **(env or {}))
		return run([PY, script("run"), "--mdbench", FAKE, "--no-simulate", *args], env=e)

	def argvs(self):
		with open(self.log) as f:
			return f.read().splitlines()

	def test_rounds_rerun_footprint_headline(self):
		rc, out, err = self.job("--cpu=1", env={"FAKE_MDBENCH_WIDE": "^lookup/seq/page32/"})
		# the fixture's alloc/order0 of memdesc8 at 4GiB fails: exit 1, said once
		self.assertEqual(rc, 1, out + err)
		self.assertEqual(err.count("run: some benchmarks failed (see above); going on\n"), 1)
		latest = os.path.join(self.results, "latest")
		stamp = os.readlink(latest)
		out_dir = os.path.join(self.results, stamp)
		self.assertIn(f"== quick suite, 5 rounds -> {out_dir}\n", out)
		self.assertIn("== 3 benchmarks spread wider than 0.05 over their rounds (widest "
			      "lookup/seq/page32/mix:desktop/ram:256MiB: 0.40); 10 more rounds of them -> "
			      f"{out_dir}/rounds\n", out)
		self.assertIn("== footprint over every mix (desktop, server, database-256g, desktop-16g, "
			      "server-256g, vm-host-512g)\n", out)
		self.assertIn("lookup/random        4GiB  0.750 (0.721..0.781)  0.500 (0.480..0.520)\n",
			      out)
		self.assertIn("server-256g    16777216  14680064 (-12.5%)  8388608 (-50.0%)\n", out)
		self.assertTrue(out.endswith(f"run: report in {out_dir}/report.md "
					     f"({latest} -> {stamp})\n"), out[-300:])
		self.assertTrue(os.path.exists(os.path.join(out_dir, "summary.png")))
		with open(os.path.join(out_dir, "mdbench.json")) as f:
			doc = json.load(f)
		names = [b["run_name"] for b in doc["benchmarks"]]
		self.assertEqual(names.count("lookup/seq/page32/mix:desktop/ram:1GiB"), 5 + 10)
		self.assertEqual(names.count("lookup/seq/page64/mix:desktop/ram:1GiB"), 5)
		self.assertEqual(names.count("footprint/memdesc8/mix:server/ram:4GiB"), 1)
		self.assertEqual(names.count("footprint/memdesc8/mix:desktop/ram:4GiB"), 5)
		parts = doc["context"]["memdesc_bench"]["parts"]
		self.assertEqual([p["rounds"] for p in parts], [False, False, True])
		argvs = self.argvs()
		self.assertEqual(argvs[0], "--list=json --profile=quick --cpu=1")
		self.assertEqual(argvs[1], f"--profile=quick --cpu=1 --rounds=5 --out={out_dir}")
		self.assertEqual(argvs[2], f"--profile=quick --cpu=1 --rounds=10 --out={out_dir}/rounds "
			"--benchmark_filter=^(lookup/seq/page32/mix:desktop/ram:256MiB|"
			"lookup/seq/page32/mix:desktop/ram:1GiB|lookup/seq/page32/mix:desktop/ram:4GiB)$")
		self.assertIn("--rounds=1 --mix=desktop,server,", argvs[3])
		self.assertTrue(argvs[3].endswith("--benchmark_filter=^(footprint)/"))

	def test_no_rerun(self):
		rc, out, err = self.job("--rounds=3", "--rerun-spread=0",
					env={"FAKE_MDBENCH_WIDE": "^lookup/seq/page32/"})
		self.assertEqual(rc, 1, err)
		self.assertNotIn("spread wider", out)
		self.assertEqual(len(self.argvs()), 3)		# list, quick suite, footprint


if __name__ == "__main__":
	main()
