#!/usr/bin/python3
"""Our dumps keep working with Google Benchmark's own tools/compare.py: its
U test runs on two fixture runs of 5 repetitions each, and its p-values are
scripts/compare's.  compare.py comes from the Google Benchmark 1.9.5 source
in ../shared/vendor/ beside the clone (or MDB_GBENCH_TARBALL); without it
the test is skipped (77) with the reason.  The command is docs/scripts.md's."""

import json
import os
import subprocess
import sys
import tarfile

from testlib import PY, TOP, Scratch, fixture, main, run

TARBALL = "google-benchmark-1.9.5.tar.gz"


def tarball():
	"""The path of the Google Benchmark source, or None."""
	cands = [os.environ.get("MDB_GBENCH_TARBALL"),
		 os.path.join(os.path.dirname(TOP), "shared", "vendor", TARBALL)]
	try:		# a git worktree: beside the main clone
		common = subprocess.run(["git", "-C", TOP, "rev-parse", "--path-format=absolute",
					 "--git-common-dir"], capture_output=True, text=True).stdout.strip()
		if common:
			cands.append(os.path.join(os.path.dirname(os.path.dirname(common)), "shared",
						  "vendor", TARBALL))
	except OSError:
		pass
	return next((c for c in cands if c and os.path.isfile(c)), None)


class GoogleBenchmarkCompare(Scratch):
	def tools(self):
		with tarfile.open(tarball()) as t:
			members = [m for m in t.getmembers() if "/tools/" in m.name and m.isfile()]
			t.extractall(self.tmp, members=members)
		return os.path.join(self.tmp, members[0].name.split("/tools/")[0], "tools")

	def gb_compare(self, a, b):
		"""{name: U test p-value of real_time} from compare.py's JSON report."""
		out = os.path.join(self.tmp, "diff.json")
		rc, stdout, err = run([PY, os.path.join(self.tools(), "compare.py"), "--no-color",
				       "--alpha", "0.01", "-d", out, "benchmarks", a, b])
		self.assertEqual(rc, 0, err)
		self.assertIn("_pvalue", stdout)
		with open(out) as f:
			report = json.load(f)
		return {r["name"]: r["utest"]["time_pvalue"] for r in report if r.get("utest")}

	def ours(self, a, b):
		import mdb_dump as md
		import mdb_report as mr
		da, db = md.Dump(a), md.Dump(b)
		rows = [(n, x, db.native[n]) for n, x in da.native.items() if n in db.native]
		cells = mr.compare_rows([(da, x, db, y, "real_time") for _, x, y in rows], 0.01)
		return {n: c for (n, _, _), c in zip(rows, cells)}

	def test_u_test_on_our_dumps(self):
		a, b = fixture("one", "mdbench.json"), fixture("two", "mdbench.json")
		gb, ours = self.gb_compare(a, b), self.ours(a, b)
		self.assertEqual(len(gb), 71)		# every benchmark both ran, 5 times each
		checked = 0
		for name, p in gb.items():
			c = ours[name]
			if c.verdict == "failed":	# compare.py reads a failed run's time 0
				continue
			if c.cmp.p is not None:
				self.assertAlmostEqual(p, c.cmp.p, places=12, msg=name)
				checked += 1
		self.assertEqual(checked, 70)		# all but the one that failed
		self.assertAlmostEqual(gb["lookup/random/page64/mix:desktop/ram:4GiB"], 2 / 252, places=12)

	def test_identical_runs(self):
		gb = self.gb_compare(fixture("one", "mdbench.json"), fixture("one-again", "mdbench.json"))
		self.assertEqual([n for n, p in gb.items() if p < 0.01], [])


if __name__ == "__main__":
	if not tarball():
		print(f"skip: no {TARBALL} in ../shared/vendor/ beside the clone "
		      "(set MDB_GBENCH_TARBALL to its path)")
		sys.exit(77)
	main(needs=("scipy", "numpy"))
