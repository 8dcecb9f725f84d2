#!/usr/bin/python3
"""Workloads a careless or hostile user can give scripts/trace,
project and collect, and scripts/run's own children.  A workload's stdout
never reaches a trace written to stdout; its exit status is honoured (one
line, exit 1, the trace's header says so); SIGINT, SIGTERM and SIGHUP end
its whole process group (a job it left in the background too) and give
exit status 128 + N, as they do to scripts/run during its build; project
checks every argument before it runs the workload; two scripts/run in one
second take two results directories; a footprint pass over a mix the user
never named is left out, said so, at the --ram the user gave."""

import json
import os
import signal
import subprocess
import time

from testlib import FAKE, PY, Scratch, fixture, main, run, script

VM = [fixture("vmstat", "before"), fixture("vmstat", "after")]


def alive(pid):
	"""Whether pid runs (a zombie has ended)."""
	try:
		with open(f"/proc/{pid}/stat") as f:
			return f.read().rsplit(")", 1)[1].split()[0] != "Z"
	except OSError:
		return False


class TraceWorkload(Scratch):
	"""Items 1 and 2: what the workload prints stays out of the trace; a
	failed workload gets its trace, a header line saying how it ended, one
	line on stderr and exit status 1."""

	def trace(self, cmd):
		return run([PY, script("trace"), "--workload", cmd, "--ram", "64MiB"])

	def test_stdout_kept_out(self):
		injected = "a 18446744073709551615 9 anon"	# no id the generator gives
		rc, out, err = self.trace(f"echo {injected}")
		self.assertEqual(rc, 0, err)
		self.assertNotIn(injected, out.splitlines(), "the workload's stdout is in the trace")
		self.assertTrue(out.startswith("# memdesc-bench allocation trace"), out[:200])
		self.assertIn(injected + "\n", err)		# on stderr, where the user sees it

	def test_exit_status(self):
		for cmd, how in (("false", "exit status 1"),
				 ("nosuchcommand-mdb", "exit status 127"),
				 ("kill -9 $$", "killed by signal 9 (SIGKILL)")):
			rc, out, err = self.trace(cmd)
			self.assertEqual(rc, 1, (cmd, err))
			self.assertIn(f"# the workload failed ({how}): the trace follows its vmstat until "
				      "then\n", out)
			self.assertTrue(err.endswith(f"trace: the workload failed ({how}); the trace's "
						     "header says so\n"), (cmd, err))


class StopSignals(Scratch):
	"""Item 3: a stop signal to trace, project or collect --workload ends the
	workload's whole group (the shell, what it waits for and what it left in
	the background), waited for, exit status 128 + N.  Item 4: collect
	and run during its build say 143 for SIGTERM, not 130."""

	def workload(self):
		"""A shell that leaves a sleep in the background and waits on
		another, both pids written to a file."""
		self.pids = os.path.join(self.tmp, "pids")
		return (f"sleep 300 & echo $! > {self.pids}.tmp; sleep 301 & echo $! >> {self.pids}.tmp; "
			f"echo $$ >> {self.pids}.tmp; mv {self.pids}.tmp {self.pids}; wait")

	def stop(self, cmd, sig, env=None, pids=None):
		"""cmd started, sig sent once the pids file is there; (exit status,
		stderr, the pids still running)."""
		pids = pids or self.pids
		errf = open(os.path.join(self.tmp, "stderr"), "w+")	# not a pipe a leftover holds
		p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=errf, text=True,
				     stdin=subprocess.DEVNULL, env=env)
		for _ in range(1200):
			if os.path.exists(pids) or p.poll() is not None:
				break
			time.sleep(0.05)
		with open(pids) as f:
			group = [int(x) for x in f.read().split()]
		p.send_signal(sig)
		try:
			p.wait(60)
		except subprocess.TimeoutExpired:
			p.kill()
			p.wait()
		errf.seek(0)
		err = errf.read()
		errf.close()
		left = [x for x in group if alive(x)]
		for x in left:
			os.kill(x, signal.SIGKILL)
		return p.returncode, err, left

	def check(self, cmd, sig):
		rc, err, left = self.stop(cmd, sig)
		self.assertEqual(left, [], f"{cmd[1]}, {sig.name}: left running")
		self.assertEqual(rc, 128 + sig, f"{cmd[1]}, {sig.name}: {err}")

	def test_trace(self):
		for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
			self.check([PY, script("trace"), "--workload", self.workload(), "--ram", "64MiB"], sig)
			os.remove(self.pids)

	def test_project(self):
		for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
			self.check([PY, script("project"), fixture("one"), "--workload", self.workload(),
				    "--out", os.path.join(self.tmp, "p")], sig)
			os.remove(self.pids)

	def test_collect(self):
		for sig in (signal.SIGTERM, signal.SIGHUP):
			self.check([PY, script("collect"), "--mdbench", FAKE, "--no-plot", "--no-simulate",
				    "--kpageflags=skip", "--results", os.path.join(self.tmp, "r"),
				    "--workload", self.workload()], sig)
			os.remove(self.pids)

	def test_run_build(self):
		"""A stand-in cmake that builds forever (and starts a compiler of
		its own): SIGTERM ends both, exit status 143."""
		bin_ = os.path.join(self.tmp, "bin")
		os.mkdir(bin_)
		pids = os.path.join(self.tmp, "cmake-pids")
		with open(os.path.join(bin_, "cmake"), "w") as f:
			f.write(f"#!/bin/sh\ncase \"$*\" in *--build*) ;; *) exit 0;; esac\n"
				f"sleep 302 & echo $! > {pids}.tmp; echo $$ >> {pids}.tmp; "
				f"mv {pids}.tmp {pids}; wait\n")
		os.chmod(os.path.join(bin_, "cmake"), 0o755)
		env = dict(os.environ, PATH=bin_ + os.pathsep + os.environ["PATH"],
			   MDB_BUILD_DIR=os.path.join(self.tmp, "build"),
			   MDB_RESULTS=os.path.join(self.tmp, "results"))
		rc, err, left = self.stop([PY, script("run"), "--no-setup"], signal.SIGTERM, env, pids)
		self.assertEqual(left, [], "the build left running")
		self.assertEqual(rc, 143, err)
		self.assertEqual(err, "run: interrupted (SIGTERM)\n")


class ProjectChecksFirst(Scratch):
	"""Item 11: project refuses a bad DUMP, an --out it cannot write and an
	empty --workload before the workload runs (it runs once)."""

	def test_before_the_workload(self):
		mark = os.path.join(self.tmp, "ran")
		notdir = os.path.join(self.tmp, "file")
		with open(notdir, "w") as f:
			f.write("x\n")
		for args, want in ((["/dev/zero"], "/dev/zero: not a regular file"),
				   ([fixture("one"), "--out", notdir], f"{notdir}: not a directory"),
				   ([fixture("one"), "--out", "/proc/version/x"], "/proc/version/x: "),
				   ([fixture("one"), "--mdbench", notdir], f"--mdbench {notdir}: not an "
				    "executable")):
			self.refused([PY, script("project"), *args, "--workload", f"touch {mark}"], want)
			self.assertFalse(os.path.exists(mark), args)
		self.refused([PY, script("project"), fixture("one"), "--workload", ""],
			     "--workload is empty: give the shell command to run")
		self.refused([PY, script("project"), fixture("one"), "--workload", " "],
			     "--workload is empty")


class RunDirectory(Scratch):
	"""Item 12: a run started in a second whose results/<stamp> another run
	has taken takes <stamp>-2 (not 'exists already', nor the other's
	directory, whose lock would make its mdbench refuse)."""

	def test_same_second(self):
		results = os.path.join(self.tmp, "results")
		os.mkdir(results)
		now = time.time()
		for d in range(4):		# whichever second run starts in is taken
			os.mkdir(os.path.join(results, time.strftime("%Y%m%dT%H%M%SZ",
								     time.gmtime(now + d))))
		taken = set(os.listdir(results))
		stub = os.path.join(self.tmp, "stub")
		with open(stub, "w") as f:	# lists as the fake does, runs nothing
			f.write(f"#!/bin/sh\ncase \"$*\" in *--list=json*) exec {PY} {FAKE} \"$@\";; "
				f"esac\nexit 3\n")
		os.chmod(stub, 0o755)
		rc, out, err = run([PY, script("run"), "--mdbench", stub, "--no-simulate"],
				   env=dict(os.environ, MDB_RESULTS=results))
		new = set(os.listdir(results)) - taken
		self.assertEqual(len(new), 1, (out, err))
		self.assertRegex(new.pop(), r"^\d{8}T\d{6}Z-2$")
		self.assertEqual(rc, 3, err)	# the stub's, running the suite


class RunFootprintRam(Scratch):
	"""Item 13: scripts/run -- --ram=32MiB does not fail on a results/mixes
	file the user never named whose 1 GiB hugetlb share that RAM cannot
	hold: its footprint pass is left out, said in one line; the others
	stay."""

	def test_left_out(self):
		stub = os.path.join(self.tmp, "stub")
		with open(stub, "w") as f:	# mdbench's refusal of vm-host-512g at 32MiB
			f.write("#!/bin/sh\ncase \"$*\" in\n"
				"*--list=json*vm-host-512g*) echo 'mdbench: mix vm-host-512g: (hugetlb, 18) "
				"asks 0.875 of 32MiB' >&2; exit 2;;\n"
				f"*--list=json*) exec {PY} {FAKE} \"$@\";;\nesac\nexit 3\n")
		os.chmod(stub, 0o755)
		rc, out, err = run([PY, script("run"), "--mdbench", stub, "--no-simulate", "-j", "1",
				    "--", "--ram=32MiB"],
				   env=dict(os.environ, MDB_RESULTS=os.path.join(self.tmp, "results")))
		self.assertEqual(rc, 3, out + err)	# the stub's, running the suite: planned whole
		self.assertIn("run: footprint of vm-host-512g left out at the --ram given: mdbench "
			      "--list=json failed: mdbench: mix vm-host-512g: (hugetlb, 18) asks 0.875 "
			      "of 32MiB\n", err)
		self.assertIn("footprint, 1 pass, 1 at a time", out)	# the built-in mixes
		self.assertNotIn("mdbench refused", err)


if __name__ == "__main__":
	main(needs=())
