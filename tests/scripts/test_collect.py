#!/usr/bin/python3
"""scripts/collect against the fake mdbench (fake_mdbench.py): the steps of
a dry run, the bundle of a whole run (rounds, the re-run of wide spreads,
MANIFEST, SHA256SUMS, tarball, merged dump, report, headline), the bundle
an interrupt leaves, and a run as another user from a copy of the tree
(nothing depends on where this clone lives or its permissions)."""

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tarfile
import tempfile
import time

from testlib import FAKE, PY, TOP, Scratch, main, run, script

# The fixture machine "one" on its default mix: 6 kernels x 3 layouts x 3
# sizes, footprint x 3 layouts x 3 sizes, 2 baselines x 4 sizes.
KERNELS = ["convert/pfn_to_page", "lookup/random", "lookup/seq", "folio/tail",
	   "scan/compaction", "alloc/order0", "footprint", "baseline/latency",
	   "baseline/bandwidth"]
GROUPS = len(KERNELS)
BENCHMARKS = 71
ROUNDS = 5


class CollectCase(Scratch):
	def collect(self, *args, env=None):
		cmd = [PY, script("collect"), "--mdbench", FAKE, "--results", self.tmp, *args]
		return run(cmd, env=dict(os.environ, **(env or {})))

	def bundle(self, where=None):
		where = where or self.tmp
		tars = [f for f in os.listdir(where) if f.endswith(".tar.gz")]
		self.assertEqual(len(tars), 1, os.listdir(where))
		self.assertRegex(tars[0], r"^[\w.-]+-\d{8}T\d{6}Z\.tar\.gz$")
		name = tars[0][:-len(".tar.gz")]
		x = os.path.join(self.tmp, "x")
		with tarfile.open(os.path.join(where, tars[0])) as t:
			for m in t.getmembers():	# all under one folder, plain files and dirs
				self.assertTrue(m.name == name or m.name.startswith(name + "/"), m.name)
				self.assertTrue(m.isfile() or m.isdir(), m.name)
				self.assertNotIn("..", m.name.split("/"))
			t.extractall(x)
		self.assertEqual(os.listdir(x), [name])
		return os.path.join(x, name)

	def manifest(self, d):
		with open(os.path.join(d, "MANIFEST")) as f:
			text = f.read()
		files = re.findall(r"^  (\S+)\t", text, re.M)
		for rel in files:
			self.assertTrue(os.path.exists(os.path.join(d, rel)), rel)
		return text, files

	def assert_sums(self, d):
		"""SHA256SUMS covers every file but itself, and each sum is right."""
		with open(os.path.join(d, "SHA256SUMS")) as f:
			sums = dict(reversed(l.split("  ", 1)) for l in f.read().splitlines())
		on_disk = {os.path.relpath(os.path.join(r, f), d)
			   for r, _, fs in os.walk(d) for f in fs} - {"SHA256SUMS"}
		self.assertEqual(set(sums), on_disk)
		for rel, digest in sums.items():
			with open(os.path.join(d, rel), "rb") as f:
				self.assertEqual(hashlib.sha256(f.read()).hexdigest(), digest, rel)

	def merged(self, d):
		with open(os.path.join(d, "mdbench.json")) as f:
			doc = json.load(f)
		return doc, doc["context"]["memdesc_bench"]


class CollectDryRun(CollectCase):
	def test_lists_steps_and_runs_nothing(self):
		rc, out, err = self.collect("--dry-run")
		self.assertEqual((rc, err), (0, ""))
		# + re-run, footprint over all mixes (those with 1 GiB folios apart),
		# kpageflags, simulate, system, bundle
		total = GROUPS + 7
		self.assertIn(f"[1/{total}] convert/pfn_to_page: mdbench --rounds=5 --out=groups/01 "
			      "(9 benchmarks)\n", out)
		self.assertIn(f"[{GROUPS}/{total}] baseline/bandwidth: mdbench --rounds=5 "
			      f"--out=groups/{GROUPS:02d} (4 benchmarks)\n", out)
		self.assertIn(f"[{GROUPS + 1}/{total}] re-run wide spreads: mdbench --rounds=10 of those "
			      "whose spread > 0.05, every layout --out=rounds\n", out)
		# the built-ins the fake lists, then results/mixes/*.json
		self.assertIn(f"[{GROUPS + 2}/{total}] footprint, mixes desktop, server, database-256g, "
			      "desktop-16g, server-256g: mdbench --mix=... "
			      "--benchmark_filter=^(footprint)/", out)
		self.assertIn(f"[{GROUPS + 3}/{total}] footprint, mixes vm-host-512g: mdbench --mix=... "
			      "--benchmark_filter=^(footprint)/", out)
		self.assertIn(f"[{GROUPS + 4}/{total}] kpageflags mix: mdbench --mix=kpageflags", out)
		self.assertIn(f"[{GROUPS + 5}/{total}] simulate: mdbench --simulate --profile=quick", out)
		self.assertIn(f"[{total}/{total}] bundle: merge groups, plot, MANIFEST, SHA256SUMS, tar.gz",
			      out)
		# the stage plan: the fake's est_seconds (0.5 s a GiB) of a group's 9
		# benchmarks at 256MiB, 1GiB, 4GiB, x 5 rounds: 39.375 s; footprint
		# passes of 5 and 1 mixes, one round; the rest defaults
		plan = out.split("stage plan (estimates weighted by RAM size):\n", 1)[1]
		self.assertRegex(plan, r"^  1\. convert/pfn_to_page +~39 s  \(mdbench est_seconds "
				 r"x 5 rounds\)\n")
		self.assertIn(f"  {GROUPS + 1}. re-run wide spreads", plan)
		self.assertIn("~0 s  (only if spreads are wide)\n", plan)
		self.assertRegex(plan, r"  14\. simulate +~2m00s  \(default\)\n")
		# 7 x 39.375 + 4 x 0.05 x 2 + 39.375 + 7.875 + 1 + 120 + 1 + 15 s
		self.assertTrue(out.endswith("collect: estimated time ~7m40s\n"), out[-200:])
		self.assertEqual(os.listdir(self.tmp), [])

	def test_options_shape_the_steps(self):
		rc, out, _ = self.collect("--dry-run", "--no-simulate", "--kpageflags=skip",
					  "--layout=memdesc8", "--rounds=9", "--rerun-spread=0")
		self.assertEqual(rc, 0)
		self.assertNotIn("simulate", out)
		self.assertNotIn("kpageflags", out)
		self.assertNotIn("re-run", out)
		# the layout's 6 kernels, footprint and 2 baselines, + two footprint
		# passes over all mixes, system, bundle
		self.assertIn("[1/13] convert/pfn_to_page: mdbench --rounds=9 --out=groups/01 "
			      "(3 benchmarks)", out)


class CollectBundle(CollectCase):
	def test_whole_run(self):
		log = os.path.join(self.tmp, "argv.log")
		rc, out, err = self.collect("--cpu=1", env={"FAKE_MDBENCH_LOG": log,
							     "FAKE_MDBENCH_WIDE": "^lookup/seq/page32/"})
		self.assertEqual(rc, 0, out + err)
		with open(log) as f:
			gigantic = [a for a in f if "vm-host-512g" in a and "^(footprint)/" in a]
		os.remove(log)
		# the mix with 1 GiB folios at sizes that hold one
		self.assertEqual(len(gigantic), 1)
		self.assertIn(" --ram=8GiB,16GiB ", gigantic[0])
		total = GROUPS + 7
		for i, title in ((1, "convert/pfn_to_page"), (6, "alloc/order0"),
				 (GROUPS + 6, "system info"), (total, "bundle")):
			self.assertIn(f"[{i}/{total}] {title} ...\n", out)
		self.assertIn("[rounds] 3 benchmarks spread wider than 0.05 over their rounds (widest "
			      "lookup/seq/page32/mix:desktop/ram:256MiB): 10 more rounds of them and every "
			      "other layout of theirs (9 benchmarks)\n", out)
		# the headline table, then the bundle
		# page64 re-run with page32: 15 rounds of each, the interval narrower
		# (memdesc8's upper end: ratios a division rounds apart tie, mdb_stats._log())
		self.assertIn("lookup/seq           4GiB  page32    15/15         0.667  0.523..0.816  faster\n"
			      "lookup/seq           4GiB  memdesc8  15/15         0.542  0.531..0.553  faster\n",
			      out)
		self.assertRegex(out, r"collect: complete; bundle .*\.tar\.gz\n$")
		d = self.bundle()
		text, files = self.manifest(d)
		self.assertIn("status: complete\n", text)
		self.assertIn("note: alloc/order0: some benchmarks failed (see groups/06.log and the "
			      "report)\n", text)
		for rel in ("mdbench.json", "sim.json", "topology.xml", "mix.json", "list.json",
			    "system/uname.txt", "system/lscpu.txt", "system/perf_event_paranoid",
			    "system/thp_enabled", "system/thp_defrag", "report/report.md",
			    "groups/01/", "rounds/", "footprint/1/", "kpageflags/mix.json"):
			self.assertIn(rel, files)
		self.assert_sums(d)
		doc, mb = self.merged(d)
		self.assertTrue(mb["complete"])
		names = [b["run_name"] for b in doc["benchmarks"] if b.get("run_type") != "aggregate"]
		# one _median row a benchmark, of all its rounds: none where extra rounds came
		medians = [b["run_name"] for b in doc["benchmarks"] if b.get("run_type") == "aggregate"]
		self.assertEqual(medians.count("lookup/random/page64/mix:desktop/ram:1GiB"), 1)
		self.assertEqual(medians.count("lookup/seq/page64/mix:desktop/ram:1GiB"), 0)
		# the groups' 71, footprint for server and the four results/mixes files
		# (desktop's came with the groups) and the kpageflags mix, 9 each
		self.assertEqual(len(set(names)), BENCHMARKS + 6 * 9)
		self.assertEqual(names.count("lookup/seq/page32/mix:desktop/ram:1GiB"), ROUNDS + 10)
		# every layout of a re-run group gets the extra rounds, not only the
		# wide one, so that the ratios compare rounds taken together
		self.assertEqual(names.count("lookup/seq/page64/mix:desktop/ram:1GiB"), ROUNDS + 10)
		self.assertEqual(names.count("lookup/random/page64/mix:desktop/ram:1GiB"), ROUNDS)
		self.assertEqual(names.count("footprint/page32/mix:server-256g/ram:1GiB"), 1)
		self.assertIn("footprint/page32/mix:kpageflags/ram:1GiB", names)
		self.assertIn(f"the measured benchmarks ({BENCHMARKS} of {BENCHMARKS})", text)
		self.assertEqual([p["rounds"] for p in mb["parts"]], [False] * (GROUPS + 3) + [True])
		with open(os.path.join(d, "system", "uname.txt")) as f:
			self.assertEqual(f.read(), subprocess.run(["uname", "-a"], capture_output=True,
								  text=True).stdout)
		# the report shows every group's command
		with open(os.path.join(d, "report", "report.md")) as f:
			report = f.read()
		self.assertEqual(report.count("`mdbench --profile=full --cpu=1 --rounds=5 --out="), GROUPS)
		self.assertIn("(extra rounds)", report)

	def test_every_run_gets_the_options(self):
		log = os.path.join(self.tmp, "argv.log")
		with tempfile.TemporaryDirectory() as res:
			p = run([PY, script("collect"), "--mdbench", FAKE, "--results", res, "--cpu=1",
				 "--no-plot", "--no-simulate"], env=dict(os.environ, FAKE_MDBENCH_LOG=log))
			self.assertEqual(p[0], 0, p[1] + p[2])
		with open(log) as f:
			argvs = f.read().splitlines()
		groups = [a for a in argvs if "/groups/" in a]
		self.assertEqual(len(groups), GROUPS)
		self.assertTrue(all(a.startswith("--profile=full --cpu=1 --rounds=5 --out=")
				    for a in groups), groups)
		# each group selects exactly its benchmarks, all layouts together
		self.assertIn("--benchmark_filter=^(baseline/latency/bytes:4MiB|baseline/latency/bytes:16MiB|"
			      "baseline/latency/bytes:64MiB|baseline/latency/bytes:256MiB)$", groups[7])
		self.assertIn("=^(lookup/random/page64/mix:desktop/ram:256MiB|"
			      "lookup/random/page64/mix:desktop/ram:1GiB|", groups[1])
		self.assertIn("|lookup/random/memdesc8/mix:desktop/ram:4GiB)$", groups[1])
		self.assertTrue(argvs[0].startswith("--list=json --profile=full --cpu=1"))

	def test_not_root_from_a_copy(self):
		"""As an unprivileged user when root: from a world-readable copy of what
		collect needs, so that a clone inside a 0700 folder does not matter."""
		if os.geteuid() != 0:
			rc, out, err = self.collect("--no-simulate", "--no-plot")
			where = self.tmp
		else:
			tree = tempfile.mkdtemp(prefix="mdb-collect-tree-")
			self.addCleanup(shutil.rmtree, tree, ignore_errors=True)
			os.chmod(tree, 0o755)
			for rel in ("scripts", "tests/scripts", "results/mixes"):
				shutil.copytree(os.path.join(TOP, rel), os.path.join(tree, rel),
						ignore=shutil.ignore_patterns("__pycache__"))
			for root, dirs, _ in os.walk(tree):
				for x in dirs:
					os.chmod(os.path.join(root, x), 0o755)
			where = os.path.join(tree, "out")
			os.makedirs(where)
			os.chmod(where, 0o777)
			p = subprocess.run([PY, os.path.join(tree, "scripts", "collect"), "--mdbench",
					    os.path.join(tree, "tests", "scripts", "fake_mdbench.py"),
					    "--results", where, "--no-simulate", "--no-plot"],
					   capture_output=True, text=True, user=65534, group=65534,
					   env=dict(os.environ, HOME=where), cwd=where)
			rc, out, err = p.returncode, p.stdout, p.stderr
		self.assertEqual(rc, 0, out + err)
		self.assertIn("kpageflags mix: skipped", out)
		text, files = self.manifest(self.bundle(where))
		self.assertRegex(text, r"note: kpageflags: not root \(euid \d+\): no snapshot of this "
				 r"machine's mix; run collect as root for it\n")
		self.assertNotIn("kpageflags/mix.json", files)
		self.assertIn("status: complete\n", text)


class CollectInterrupt(CollectCase):
	def interrupt(self, sig, log="03.log", hang=None):
		"""Runs collect until the fake hangs in group 3 (or as hang says), then sends sig."""
		cmd = [PY, script("collect"), "--mdbench", FAKE, "--results", self.tmp, "--no-plot"]
		env = dict(os.environ, **(hang or {"FAKE_MDBENCH_HANG": "^lookup/seq/"}))
		p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
				     env=env)
		deadline = time.time() + 60
		hung = None
		while time.time() < deadline and not hung:
			for root, _, files in os.walk(self.tmp):
				if log in files:
					with open(os.path.join(root, log)) as f:
						if "hanging" in f.read():
							hung = root
			time.sleep(0.1)
		self.assertTrue(hung, "the fake never hung")
		p.send_signal(sig)
		out, _ = p.communicate(timeout=60)
		return p.returncode, out

	def check_partial(self, rc, out, sig=signal.SIGINT):
		self.assertEqual(rc, 128 + sig, out)
		self.assertIn("collect: interrupted; packing what finished", out)
		self.assertRegex(out, r"collect: partial; bundle .*\.tar\.gz\n$")
		self.assertNotIn("[4/", out)
		d = self.bundle()
		text, files = self.manifest(d)
		self.assertIn("status: partial\n", text)
		self.assertIn(f"interrupted: yes ({sig.name}); what finished is kept\n", text)
		# 2 whole groups of 9, and the 9 that the interrupted group's first
		# rounds had written (22 of its 45 entries)
		self.assertIn(f"partial: 27 of {BENCHMARKS} benchmarks finished\n", text)
		for rel in ("mdbench.json", "groups/03/", "system/uname.txt", "topology.xml"):
			self.assertIn(rel, files)
		self.assertNotIn("sim.json", files)
		self.assert_sums(d)
		doc, mb = self.merged(d)
		self.assertFalse(mb["complete"])
		# and each part's _median rows (the interrupted group's of the 9
		# benchmarks its 22 entries hold)
		self.assertEqual(len(doc["benchmarks"]), 2 * 9 * ROUNDS + 22 + 3 * 9)
		self.assertEqual([p["complete"] for p in mb["parts"]], [True, True, False])

	def test_ctrl_c(self):
		self.check_partial(*self.interrupt(signal.SIGINT))

	def test_sigterm(self):
		self.check_partial(*self.interrupt(signal.SIGTERM), signal.SIGTERM)

	def test_during_simulate(self):
		"""What --simulate had finished is kept too; the measured runs are whole."""
		rc, out = self.interrupt(signal.SIGINT, "sim.log", {"FAKE_MDBENCH_HANG_SIMULATE": "1"})
		self.assertEqual(rc, 130, out)
		d = self.bundle()
		text, files = self.manifest(d)
		self.assertIn("status: partial\n", text)
		self.assertIn(f"the measured benchmarks ({BENCHMARKS} of {BENCHMARKS})", text)
		self.assertIn("sim.json", files)
		with open(os.path.join(d, "sim.json")) as f:
			sim = json.load(f)
		self.assertFalse(sim["context"]["memdesc_bench"]["complete"])
		self.assertEqual(len(sim["benchmarks"]), 9)	# half the fixture's 18
		self.assertTrue(self.merged(d)[1]["complete"])
		self.assert_sums(d)


class CollectResume(CollectInterrupt):
	test_ctrl_c = test_sigterm = test_during_simulate = None	# CollectInterrupt's

	def test_resume(self):
		"""Interrupted in group 3, resumed: groups 1 and 2 reused (their
		run ids kept), 3 run again from scratch, a whole bundle made anew
		in place of the partial one."""
		rc, out = self.interrupt(signal.SIGINT)
		self.assertEqual(rc, 130, out)
		d = os.path.join(self.tmp, next(x for x in os.listdir(self.tmp)
						if not x.endswith(".tar.gz")))
		before = {}
		for g in ("01", "02", "03"):
			with open(os.path.join(d, "groups", g, "mdbench.json")) as f:
				before[g] = json.load(f)["context"]["memdesc_bench"]["run_id"]
		rc, out, err = run([PY, script("collect"), "--resume", d])
		self.assertEqual(rc, 0, out + err)
		self.assertIn(f"[1/{GROUPS + 7}] convert/pfn_to_page: reused: finished whole before the "
			      "interrupt", out)
		self.assertIn(f"[3/{GROUPS + 7}] lookup/seq: done", out)
		x = self.bundle()
		text, files = self.manifest(x)
		self.assertIn("status: complete\n", text)
		self.assertIn(f"reused: groups/01 (run {before['01']}), from before the interrupt\n", text)
		self.assertIn(f"reused: groups/02 (run {before['02']}), from before the interrupt\n", text)
		self.assertNotIn("reused: groups/03", text)
		self.assertIn("note: resumed at ", text)
		self.assert_sums(x)
		doc, mb = self.merged(x)
		self.assertTrue(mb["complete"])
		ids = [p["run_id"] for p in mb["parts"]]
		self.assertEqual(ids[:2], [before["01"], before["02"]])
		self.assertNotEqual(ids[2], before["03"])	# the interrupted group ran again
		self.assertEqual(len({b["run_name"] for b in doc["benchmarks"]}) >= BENCHMARKS, True)
		# nothing to resume now
		self.refused([PY, script("collect"), "--resume", d], "that collect is complete")

	def test_resume_refuses(self):
		self.refused([PY, script("collect"), "--resume", self.tmp], "not a collect's directory")
		self.refused([PY, script("collect"), "--resume", self.tmp, "--rounds=3"],
			     "--rounds=3: --resume takes the options of the collect it continues")
		d = os.path.join(self.tmp, "x")
		os.makedirs(d)
		with open(os.path.join(d, "collect.json"), "w") as f:
			json.dump({"argv": ["--mdbench", FAKE, "--results", self.tmp, "--no-plot"],
				   "mdbench_sha256": "0" * 64, "benchmarks": []}, f)
		self.refused([PY, script("collect"), "--resume", d], "collected with another mdbench "
			     "(sha256 000000000000, now ")


if __name__ == "__main__":
	main()
