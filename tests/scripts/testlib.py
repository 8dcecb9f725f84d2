"""Shared by the scripts tests: paths, running a command, a scratch directory,
and the CTest convention that 77 means skipped."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TESTS = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(TESTS)
FIX = os.path.join(TESTS, "fixtures", "dumps")
SCRIPTS = os.path.join(TOP, "scripts")
PY = sys.executable
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))
sys.path.insert(0, TESTS)


def fixture(*parts):
	return os.path.join(FIX, *parts)


def script(name):
	return os.path.join(SCRIPTS, name)


def run(cmd, **kw):
	"""(exit status, stdout, stderr) of cmd."""
	p = subprocess.run(cmd, capture_output=True, text=True, **kw)
	return p.returncode, p.stdout, p.stderr


class Scratch(unittest.TestCase):
	"""A fresh directory per test, removed afterwards."""

	def setUp(self):
		self.tmp = tempfile.mkdtemp(prefix="mdb-scripts-")

	def tearDown(self):
		shutil.rmtree(self.tmp, ignore_errors=True)

	def ok(self, cmd, **kw):
		rc, out, err = run(cmd, **kw)
		self.assertEqual(rc, 0, f"{' '.join(cmd)}: exit {rc}\nstdout:\n{out}\nstderr:\n{err}")
		return out, err


def main(needs_matplotlib=False):
	"""unittest.main that exits 77 (CTest: skipped) when what it needs is missing."""
	if needs_matplotlib:
		try:
			import matplotlib  # noqa: F401
		except ImportError:
			print("skip: python3-matplotlib is not installed (scripts/setup installs it)")
			sys.exit(77)
	unittest.main(verbosity=2)
