#!/usr/bin/python3
"""scripts/collect against the fake mdbench (test_scripts_fake_mdbench.py):
the steps of a dry run, the bundle of a whole run (MANIFEST, SHA256SUMS,
tarball, merged dump), and the bundle an interrupt leaves."""

import hashlib
import json
import os
import re
import signal
import subprocess
import tarfile
import time

from test_scripts_util import Scratch, TESTS, main, script, PY, run

FAKE = os.path.join(TESTS, "test_scripts_fake_mdbench.py")
# The fixture machine "one": 4 kernels x 3 layouts + footprint x 3 layouts + 2 baselines.
GROUPS = 17
BENCHMARKS = 53


class CollectCase(Scratch):
	def collect(self, *args, env=None):
		cmd = [PY, script("collect"), "--mdbench", FAKE, "--results", self.tmp, *args]
		return run(cmd, env=dict(os.environ, **(env or {})))

	def bundle(self):
		tars = [f for f in os.listdir(self.tmp) if f.endswith(".tar.gz")]
		self.assertEqual(len(tars), 1, os.listdir(self.tmp))
		self.assertRegex(tars[0], r"^[\w-]+-\d{8}T\d{6}Z\.tar\.gz$")
		name = tars[0][:-len(".tar.gz")]
		x = os.path.join(self.tmp, "x")
		with tarfile.open(os.path.join(self.tmp, tars[0])) as t:
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
		total = GROUPS + 5	# + footprint over all mixes, kpageflags, simulate, system, bundle
		self.assertIn(f"[1/{total}] lookup/random page64: mdbench --out=groups/01 (3 benchmarks)\n", out)
		self.assertIn(f"[{GROUPS}/{total}] baseline/bandwidth: mdbench --out=groups/17 (4 benchmarks)\n", out)
		# the built-ins the fake lists, then results/mixes/*.json
		self.assertIn(f"[{GROUPS + 1}/{total}] footprint, mixes desktop, server", out)
		self.assertIn(f"[{GROUPS + 2}/{total}] kpageflags mix: mdbench --mix=kpageflags", out)
		self.assertIn(f"[{GROUPS + 3}/{total}] simulate: mdbench --simulate --profile=quick", out)
		self.assertIn(f"[{total}/{total}] bundle: merge groups, plot, MANIFEST, SHA256SUMS, tar.gz", out)
		self.assertEqual(os.listdir(self.tmp), [])

	def test_options_shape_the_steps(self):
		rc, out, _ = self.collect("--dry-run", "--no-simulate", "--kpageflags=skip",
					  "--layout=memdesc8")
		self.assertEqual(rc, 0)
		self.assertNotIn("simulate", out)
		self.assertNotIn("kpageflags", out)
		# 4 kernels + footprint + 2 baselines, + footprint over all mixes, system, bundle
		self.assertIn("[1/10] lookup/random memdesc8:", out)


class CollectBundle(CollectCase):
	def test_whole_run(self):
		log = os.path.join(self.tmp, "argv.log")
		rc, out, err = self.collect("--cpu=1", env={"FAKE_MDBENCH_LOG": log})
		self.assertEqual(rc, 0, out + err)
		total = GROUPS + 5
		for i, title in ((1, "lookup/random page64"), (8, "folio/tail page32"),
				 (GROUPS + 4, "system info"), (total, "bundle")):
			self.assertIn(f"[{i}/{total}] {title} ...\n", out)
		self.assertRegex(out, r"collect: complete; bundle .*\.tar\.gz\n$")
		d = self.bundle()
		text, files = self.manifest(d)
		self.assertIn("status: complete\n", text)
		for rel in ("mdbench.json", "sim.json", "topology.xml", "mix.json", "list.txt",
			    "system/uname.txt", "system/lscpu.txt", "system/perf_event_paranoid",
			    "system/thp_enabled", "system/thp_defrag", "report/report.md",
			    "groups/01/", "footprint/1/", "kpageflags/mix.json"):
			self.assertIn(rel, files)
		self.assert_sums(d)
		doc, mb = self.merged(d)
		self.assertTrue(mb["complete"])
		names = {b["run_name"] for b in doc["benchmarks"]}
		# the groups' 53, footprint for mix server (desktop's came with the groups)
		# and for this machine's kpageflags mix, 3 layouts x 3 sizes each
		self.assertEqual(len(names), BENCHMARKS + 9 + 9)
		self.assertIn("footprint/memdesc8/mix:server/ram:4GiB", names)
		self.assertIn("footprint/page32/mix:kpageflags/ram:1GiB", names)
		self.assertIn(f"the measured benchmarks ({BENCHMARKS} of {BENCHMARKS})", text)
		self.assertEqual(len(mb["parts"]), GROUPS + 2)	# + footprint pass, kpageflags
		with open(os.path.join(d, "system", "uname.txt")) as f:
			self.assertEqual(f.read(), subprocess.run(["uname", "-a"], capture_output=True,
								  text=True).stdout)
		# Every mdbench run got the full profile and the forwarded option;
		# each group selects exactly its benchmarks.
		with open(log) as f:
			argvs = f.read().splitlines()
		groups = [a for a in argvs if "--out=" in a and "/groups/" in a]
		self.assertEqual(len(groups), GROUPS)
		self.assertTrue(all("--profile=full --cpu=1" in a for a in groups))
		self.assertIn("--benchmark_filter=^(baseline/latency/bytes:4MiB|baseline/latency/bytes:16MiB|"
			      "baseline/latency/bytes:64MiB|baseline/latency/bytes:256MiB)$", groups[15])
		self.assertTrue(any("--simulate" in a and "--profile=quick" in a for a in argvs))

	def test_not_root_notes_kpageflags(self):
		if os.geteuid() != 0:
			rc, out, _ = self.collect("--no-simulate", "--no-plot")
		else:
			os.chmod(self.tmp, 0o777)
			p = subprocess.run([PY, script("collect"), "--mdbench", FAKE, "--results",
					    self.tmp, "--no-simulate", "--no-plot"], capture_output=True,
					   text=True, user=65534, group=65534,
					   env=dict(os.environ, HOME=self.tmp))
			rc, out = p.returncode, p.stdout + p.stderr
		self.assertEqual(rc, 0, out)
		self.assertIn("kpageflags mix: skipped", out)
		text, files = self.manifest(self.bundle())
		self.assertRegex(text, r"note: kpageflags: not root \(euid \d+\): no snapshot of this "
				 r"machine's mix; run collect as root for it\n")
		self.assertNotIn("kpageflags/mix.json", files)
		self.assertIn("status: complete\n", text)


class CollectInterrupt(CollectCase):
	def interrupt(self, sig, log="08.log", hang=None):
		"""Runs collect until the fake hangs in group 8 (or as hang says), then sends sig."""
		cmd = [PY, script("collect"), "--mdbench", FAKE, "--results", self.tmp, "--no-plot"]
		env = dict(os.environ, **(hang or {"FAKE_MDBENCH_HANG": "^folio/tail/page32/"}))
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

	def check_partial(self, rc, out):
		self.assertEqual(rc, 130, out)
		self.assertIn("collect: interrupted; packing what finished", out)
		self.assertRegex(out, r"collect: partial; bundle .*\.tar\.gz\n$")
		self.assertNotIn("[9/", out)
		d = self.bundle()
		text, files = self.manifest(d)
		self.assertIn("status: partial\n", text)
		self.assertIn("interrupted: yes (SIGINT or SIGTERM); what finished is kept\n", text)
		# 7 whole groups of 3 and the half the interrupted group had written
		self.assertIn(f"partial: 22 of {BENCHMARKS} benchmarks finished\n", text)
		for rel in ("mdbench.json", "groups/08/", "system/uname.txt", "topology.xml"):
			self.assertIn(rel, files)
		self.assertNotIn("sim.json", files)
		self.assert_sums(d)
		doc, mb = self.merged(d)
		self.assertFalse(mb["complete"])
		self.assertEqual(len(doc["benchmarks"]), 22)
		self.assertEqual([p["complete"] for p in mb["parts"]], [True] * 7 + [False])

	def test_ctrl_c(self):
		self.check_partial(*self.interrupt(signal.SIGINT))

	def test_sigterm(self):
		self.check_partial(*self.interrupt(signal.SIGTERM))

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


if __name__ == "__main__":
	main()
