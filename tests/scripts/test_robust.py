#!/usr/bin/python3
"""The scripts under faults.  scripts/run's reference checked up
front and its SIGTERM handled as collect's; plot's temporaries per process;
files that are not regular or too large refused; odd but accepted dumps
refused by the checker or plotted; options validated before any work; a
results directory that cannot be written said so; setup without root or
sudo; results/latest a real directory."""

import json
import os
import shutil
import signal
import stat
import subprocess
import threading
import time

from testlib import FAKE, PY, Scratch, fixture, load, main, run, script

MB = "context.memdesc_bench"


def base():
	"""fixtures/one cut down to lookup/random, the footprint of desktop and
	the latency baseline."""
	doc = load(fixture("one", "mdbench.json"))
	doc["benchmarks"] = [b for b in doc["benchmarks"] if b["name"].startswith(
		("lookup/random/", "footprint/", "baseline/latency/")) and "server" not in b["name"]]
	return doc


def procs_with(text):
	"""Pids of processes whose command line holds text."""
	out = []
	for p in os.listdir("/proc"):
		if not p.isdigit():
			continue
		try:
			with open(f"/proc/{p}/cmdline", "rb") as f:
				if text.encode() in f.read():
					out.append(int(p))
		except OSError:
			pass
	return out


class Stub(Scratch):
	"""A stand-in mdbench written here: its --list=json answer is given,
	every call logged, and anything but --list=json fails the test."""

	def stub(self, listing):
		self.log = os.path.join(self.tmp, "stub.log")
		path = os.path.join(self.tmp, "stub_mdbench")
		with open(os.path.join(self.tmp, "listing.json"), "w") as f:
			json.dump(listing, f)
		with open(path, "w") as f:
			f.write(f"#!{PY}\nimport sys\nopen({self.log!r}, 'a').write(' '.join(sys.argv[1:]) + "
				f"'\\n')\nif '--list=json' not in sys.argv: sys.exit(3)\n"
				f"sys.stdout.write(open({self.tmp!r} + '/listing.json').read())\n")
		os.chmod(path, 0o755)
		return path

	def calls(self):
		with open(self.log) as f:
			return f.read().splitlines()


class RunReference(Stub):
	"""Item 1: a listing whose reference layout is not one it runs is refused
	before the suite runs, not after it with no plots."""

	def test_reference_not_run(self):
		doc = json.loads(run([PY, FAKE, "--list=json"])[1])
		doc["layouts"] = [l for l in doc["layouts"] if l["name"] != doc["reference_layout"]]
		stub = self.stub(doc)
		env = dict(os.environ, MDB_RESULTS=os.path.join(self.tmp, "results"))
		rc, out, err = run([PY, script("run"), "--mdbench", stub, "--no-simulate"], env=env)
		self.assertEqual(rc, 2, out + err)
		self.assertEqual(len(err.splitlines()), 1, err)
		self.assertIn(f"reference_layout \"{doc['reference_layout']}\" is not one of the layouts",
			      err)
		self.assertEqual(len(self.calls()), 1, self.calls())	# the listing, no run


class RunSigterm(Scratch):
	"""Item 2: SIGTERM to scripts/run stops its mdbench, keeps what finished
	and exits 143, as collect does; no mdbench is left running."""

	def test_sigterm(self):
		results, doc, _ = self.stopped("^lookup/")
		self.assertIs(doc["context"]["memdesc_bench"]["complete"], False)
		self.assertTrue(doc["benchmarks"])

	def test_sigterm_footprint_passes(self):
		"""Two footprint passes side by side (-j 2), both hanging: both
		stopped and waited for; the pass that finished kept."""
		results, doc, stamp = self.stopped("^footprint/.*/mix:(server-256g|vm-host-512g)/",
						   ["-j", "2"], hangs=2)
		self.assertIs(doc["context"]["memdesc_bench"]["complete"], True)
		done = load(os.path.join(results, stamp, "footprint", "1", "mdbench.json"))
		self.assertIn("footprint/memdesc8/mix:server/ram:4GiB",
			      [b["name"] for b in done["benchmarks"]])
		for i in (2, 3):
			part = load(os.path.join(results, stamp, "footprint", str(i), "mdbench.json"))
			self.assertIs(part["context"]["memdesc_bench"]["complete"], False)

	def stopped(self, hang, args=(), hangs=1):
		"""run, SIGTERM once hangs fake mdbench runs hang on benchmarks
		matching hang: (results, its main dump, the run's stamp)."""
		results = os.path.join(self.tmp, "results")
		env = dict(os.environ, MDB_RESULTS=results, FAKE_MDBENCH_HANG=hang)
		p = subprocess.Popen([PY, script("run"), "--mdbench", FAKE, "--no-simulate", *args],
				     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
				     stdin=subprocess.DEVNULL)
		err = []
		t = threading.Thread(target=lambda: err.extend(p.stderr))
		t.start()
		def hanging():	# the fake says so on stderr, which run keeps in run.log
			for d in os.listdir(results) if os.path.isdir(results) else []:
				log = os.path.join(results, d, "run.log")
				if os.path.exists(log):
					with open(log) as f:
						if f.read().count("hanging") >= hangs:
							return True
			return False
		for _ in range(600):
			if hanging():
				break
			time.sleep(0.05)
		else:
			p.kill()
			self.fail("the fake mdbench never hung")
		p.send_signal(signal.SIGTERM)
		try:
			rc = p.wait(60)
		except subprocess.TimeoutExpired:
			p.kill()
			rc = None
		left = procs_with(results)	# before reading: a detached one holds the pipes
		for pid in left:
			os.kill(pid, signal.SIGKILL)
		out = p.stdout.read()
		t.join()
		p.stdout.close()
		p.stderr.close()
		self.assertEqual(rc, 128 + signal.SIGTERM, "".join(err) + out)
		self.assertEqual(left, [], "mdbench left running")
		stamp = os.listdir(results)
		self.assertEqual(len(stamp), 1, stamp)
		self.assertIn(f"run: interrupted (SIGTERM); what finished is in {results}/{stamp[0]}\n",
			      "".join(err))
		return results, load(os.path.join(results, stamp[0], "mdbench.json")), stamp[0]


class PlotTemporaries(Scratch):
	"""Item 4: plot's temporaries are its own: another process's .tmp file
	in the output directory does not stop it, and two plots at once both
	finish."""

	def test_foreign_tmp(self):
		d = self.write_dump(base())
		os.mkdir(os.path.join(d, "summary.png.tmp"))		# another plot's, say
		os.mkdir(os.path.join(d, "report.md.tmp"))
		self.ok([PY, script("plot"), d])
		self.assertTrue(os.path.isfile(os.path.join(d, "summary.png")))
		self.assertTrue(os.path.isfile(os.path.join(d, "report.md")))

	def test_two_at_once(self):
		d = self.write_dump(base())
		ps = [subprocess.Popen([PY, script("plot"), d], stdout=subprocess.DEVNULL,
				       stderr=subprocess.PIPE, text=True) for _ in range(2)]
		for p in ps:
			_, err = p.communicate(timeout=280)
			self.assertEqual(p.returncode, 0, err)
		self.assertEqual([f for f in os.listdir(d) if ".tmp" in f], [])


class NotRegular(Scratch):
	"""Item 5: a FIFO, a device or a file beyond the size cap is refused at
	once with one line; never read, never waited on."""

	def refused_soon(self, cmd, want):
		p = subprocess.run(cmd, capture_output=True, text=True, timeout=60,
				   stdin=subprocess.DEVNULL)
		self.assertEqual(p.returncode, 2, p.stderr)
		self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
		self.assertIn(want, p.stderr)
		self.assertNotIn("internal error", p.stderr)

	def test_fifo(self):
		good = self.write_dump(base(), "good")
		fifo = os.path.join(self.tmp, "fifo.json")
		os.mkfifo(fifo)
		self.refused_soon([PY, script("compare"), fifo, good], "not a regular file")
		d = os.path.join(self.tmp, "fifodir")
		os.mkdir(d)
		os.mkfifo(os.path.join(d, "mdbench.json"))
		self.refused_soon([PY, script("plot"), d], "not a regular file")

	def test_device(self):
		good = self.write_dump(base(), "good")
		self.refused_soon([PY, script("compare"), "/dev/zero", good], "not a regular file")

	def test_too_large(self):
		good = self.write_dump(base(), "good")
		big = os.path.join(self.tmp, "big.json")
		with open(big, "wb") as f:
			f.truncate((1 << 30) + 1)		# sparse: no disk used
		self.refused_soon([PY, script("compare"), big, good], "larger than")


class OddDumps(Scratch):
	"""Item 6: dumps the checker accepted that made plot fail inside: each
	is refused naming the field, or plotted."""

	def check(self, doc, want):
		d = self.write_dump(doc)
		rc, out, err = run([PY, script("plot"), d])
		self.assertNotIn("internal error", err)
		self.assertNotIn("Traceback", err)
		self.assertEqual(rc, 2, err)
		self.assertEqual(len(err.splitlines()), 1, err)
		self.assertIn(want, err)

	def test_extreme_times(self):
		doc = base()
		timed = [b for b in doc["benchmarks"] if b["name"].startswith("lookup/random/")]
		timed[0]["real_time"] = 1e308
		timed[1]["real_time"] = 5e-324
		self.check(doc, "real_time 1e+308 is out of range")

	def test_tiny_time(self):
		doc = base()
		timed = [b for b in doc["benchmarks"] if b["name"].startswith("lookup/random/")]
		timed[1]["real_time"] = 5e-324
		self.check(doc, "real_time 5e-324 is out of range")

	def test_absurd_ram(self):
		doc = base()
		for b in doc["benchmarks"]:
			if "ram:256MiB" in b["name"]:
				for k in ("name", "run_name"):
					b[k] = b[k].replace("ram:256MiB", "ram:99999999999999999999TiB")
		self.check(doc, "ram:99999999999999999999TiB")

	def test_aggregate_only_nan_median(self):
		doc = base()
		aggs = []
		for b in doc["benchmarks"]:
			if b.get("repetition_index", 0) != 0:
				continue
			for agg in ("mean", "median", "stddev"):
				a = dict(b, run_type="aggregate", aggregate_name=agg,
					 name=b["name"] + "_" + agg)
				a.pop("repetition_index", None)
				if agg == "median" and b["name"].startswith("lookup/random/"):
					a["real_time"] = float("nan")
				aggs.append(a)
		doc["benchmarks"] = aggs
		self.check(doc, "real_time is NaN")


class ValidateFirst(Stub):
	"""Item 9: options that mdbench would refuse later are refused before any
	work; a results directory that cannot be written is said to be so."""

	def test_collect_rounds(self):
		log = os.path.join(self.tmp, "argv.log")
		env = dict(os.environ, FAKE_MDBENCH_LOG=log)
		rc, out, err = run([PY, script("collect"), "--mdbench", FAKE, "--results", self.tmp,
				    "--no-setup", "--rounds", "1001"], env=env)
		self.assertEqual(rc, 2, err)
		self.assertEqual(len(err.splitlines()), 1, err)
		self.assertIn("--rounds 1001", err)
		self.assertFalse(os.path.exists(log))

	def test_run_filter(self):
		log = os.path.join(self.tmp, "argv.log")
		env = dict(os.environ, FAKE_MDBENCH_LOG=log, MDB_RESULTS=os.path.join(self.tmp, "r"))
		rc, out, err = run([PY, script("run"), "--mdbench", FAKE, "--no-simulate", "--",
				    "--benchmark_filter=^nothing-matches$"], env=env)
		self.assertEqual(rc, 2, err)
		self.assertEqual(len(err.splitlines()), 1, err)
		self.assertIn("selects no benchmark", err)
		with open(log) as f:
			self.assertEqual(len(f.read().splitlines()), 1)	# the listing only

	def test_run_filter_once_per_call(self):
		log = os.path.join(self.tmp, "argv.log")
		env = dict(os.environ, FAKE_MDBENCH_LOG=log, MDB_RESULTS=os.path.join(self.tmp, "r"))
		rc, out, err = run([PY, script("run"), "--mdbench", FAKE, "--no-simulate", "--",
				    "--benchmark_filter=^(lookup/random|footprint)/"], env=env)
		self.assertEqual(rc, 0, err)
		with open(log) as f:
			calls = f.read().splitlines()
		self.assertGreater(len(calls), 2)
		for c in calls:
			self.assertEqual(c.count("--benchmark_filter="), 1, c)

	def test_results_not_writable(self):
		if os.geteuid() != 0:
			self.skipTest("needs root to mount a read-only tmpfs")
		ro = os.path.join(self.tmp, "ro")
		os.mkdir(ro)
		if subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", ro]).returncode:
			self.skipTest("cannot mount a tmpfs")
		try:
			env = dict(os.environ, MDB_RESULTS=ro)
			rc, out, err = run([PY, script("run"), "--mdbench", FAKE, "--no-simulate"],
					   env=env)
		finally:
			subprocess.run(["umount", ro])
		self.assertEqual(rc, 2, err)
		self.assertEqual(len(err.splitlines()), 1, err)
		self.assertIn("cannot write there: Read-only file system", err)
		self.assertNotIn("refused its arguments", err)


class Leftovers(Scratch):
	"""Item 11: setup without root or sudo says so in one line; run does not
	claim to update a results/latest that is a real directory."""

	def test_setup_no_sudo(self):
		if os.geteuid() != 0 or not os.path.exists("/usr/bin/setpriv"):
			self.skipTest("needs root and setpriv to run setup as another user")
		rel = os.path.join(self.tmp, "os-release")
		with open(rel, "w") as f:
			f.write("ID=fedora\n")
		os.chmod(self.tmp, 0o755)
		bin_dir = os.path.join(self.tmp, "bin")		# rpm says nothing is there; no sudo
		os.mkdir(bin_dir)
		with open(os.path.join(bin_dir, "rpm"), "w") as f:
			f.write("#!/bin/sh\nexit 1\n")
		os.chmod(os.path.join(bin_dir, "rpm"), 0o755)
		env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "MDB_OS_RELEASE": rel}
		if any(os.access(os.path.join(d, "sudo"), os.X_OK) for d in ("/usr/bin", "/bin")):
			self.skipTest("sudo is installed here")
		# a copy the other user can read: the checkout may sit in a 0700 folder
		setup = os.path.join(self.tmp, "setup")
		shutil.copy(script("setup"), setup)
		os.chmod(setup, 0o755)
		rc, out, err = run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
				    "sh", setup], env=env)
		self.assertEqual(rc, 2, out + err)
		self.assertEqual(len(err.splitlines()), 1, err)
		self.assertIn("needs root", err)

	def test_latest_a_directory(self):
		results = os.path.join(self.tmp, "results")
		os.makedirs(os.path.join(results, "latest"))
		env = dict(os.environ, MDB_RESULTS=results)
		rc, out, err = run([PY, script("run"), "--mdbench", FAKE, "--no-simulate", "--",
				    "--benchmark_filter=^(lookup/random|footprint)/"], env=env)
		self.assertEqual(rc, 0, err)
		self.assertTrue(os.path.isdir(os.path.join(results, "latest")))
		self.assertNotIn("latest ->", out)
		self.assertIn(f"run: {results}/latest is not the link run keeps (a directory or a "
			      "file): left as it is\n", err)


if __name__ == "__main__":
	main()
