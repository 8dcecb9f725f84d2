"""Shared by the scripts tests: paths, running a command, a scratch
directory, reading markdown tables, and the CTest convention that 77 means
skipped.  Nothing here depends on where the clone lives or who runs it."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TESTS = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(TESTS))
FIX = os.path.join(TESTS, "fixtures")
SCRIPTS = os.path.join(TOP, "scripts")
FAKE = os.path.join(TESTS, "fake_mdbench.py")
PY = sys.executable
sys.path.insert(0, os.path.join(SCRIPTS, "lib"))
sys.path.insert(0, TESTS)


def fixture(*parts):
	return os.path.join(FIX, *parts)


def script(name):
	return os.path.join(SCRIPTS, name)


def run(cmd, **kw):
	"""(exit status, stdout, stderr) of cmd."""
	p = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, **kw)
	return p.returncode, p.stdout, p.stderr


def load(path):
	with open(path) as f:
		return json.load(f)


def table_rows(text, width=None):
	"""[cells] of every markdown table row of text (the --- rows left out);
	width: only rows of that many cells.  An escaped '|' stays in its cell."""
	out = []
	for line in text.splitlines():
		if not line.startswith("|"):
			continue
		cells = [c.strip().replace("\0", "|")
			 for c in line.replace("\\|", "\0").strip().strip("|").split("|")]
		if all(c and set(c) <= {"-"} for c in cells):
			continue
		if width is None or len(cells) == width:
			out.append(cells)
	return out


class Scratch(unittest.TestCase):
	"""A fresh directory per test, removed afterwards."""

	maxDiff = None

	def setUp(self):
		self.tmp = tempfile.mkdtemp(prefix="mdb-scripts-")

	def tearDown(self):
		shutil.rmtree(self.tmp, ignore_errors=True)

	def ok(self, cmd, **kw):
		rc, out, err = run(cmd, **kw)
		self.assertEqual(rc, 0, f"{' '.join(cmd)}: exit {rc}\nstdout:\n{out}\nstderr:\n{err}")
		return out, err

	def refused(self, cmd, want, prog=None):
		"""cmd exits 2 with one line '<prog>: ...want...' on stderr, no
		traceback, nothing on stdout."""
		rc, out, err = run(cmd)
		prog = prog or os.path.basename(cmd[1])
		self.assertEqual(rc, 2, f"{cmd}: exit {rc}\n{err}")
		self.assertEqual(out, "")
		self.assertEqual(len(err.splitlines()), 1, err)
		self.assertTrue(err.startswith(f"{prog}: "), err)
		self.assertIn(want, err)
		self.assertNotIn("internal error", err)
		return err

	def write_dump(self, doc, name="run"):
		d = os.path.join(self.tmp, name)
		os.makedirs(d, exist_ok=True)
		with open(os.path.join(d, "mdbench.json"), "w") as f:
			json.dump(doc, f)
		return d


def main(needs=("matplotlib", "scipy")):
	"""unittest.main that exits 77 (CTest: skipped) when a module it needs
	is missing."""
	for mod in needs:
		try:
			__import__(mod)
		except ImportError:
			print(f"skip: python3-{mod} is not installed (scripts/setup installs it)")
			sys.exit(77)
	unittest.main(verbosity=2)
