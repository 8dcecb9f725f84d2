"""Shared by the scripts tests: paths, running a command, a scratch
directory, reading markdown tables, and the CTest convention that 77 means
skipped.  Nothing here depends on where the clone lives or who runs it."""

import atexit
import json
import zlib
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


# The fixtures that are near copies of fixtures/one, made from it when a
# test first asks for one (derive_fixtures), in a directory removed at exit.
DERIVED = (("one-again",), ("bad", "schema1.json"), ("bad", "truncated.json"))
_derived = None


def derive_fixtures(dest):
	"""Writes what make_fixtures.py used to store beside "one": dest/one-again
	("one" with another run_id: identical numbers), dest/bad/schema1.json
	("one" saying schema_version 1) and dest/bad/truncated.json (the first
	half of one's text)."""
	one = os.path.join(FIX, "one")
	with open(os.path.join(one, "mdbench.json")) as f:
		text = f.read()

	def write(doc, *parts):
		os.makedirs(os.path.join(dest, *parts[:-1]), exist_ok=True)
		with open(os.path.join(dest, *parts), "w") as f:
			json.dump(doc, f, indent=1, ensure_ascii=False)
			f.write("\n")

	again = json.loads(text)
	again["context"]["memdesc_bench"]["run_id"] = "20251203T070000Z-4e5f6a7b"
	write(again, "one-again", "mdbench.json")
	for side in ("mix.json", "topology.xml"):
		shutil.copy(os.path.join(one, side), os.path.join(dest, "one-again", side))
	old = json.loads(text)
	old["context"]["memdesc_bench"]["schema_version"] = 1
	write(old, "bad", "schema1.json")
	with open(os.path.join(dest, "bad", "truncated.json"), "w") as f:
		f.write(text[:len(text) // 2])


def fixture(*parts):
	global _derived
	if any(parts[:len(d)] == d for d in DERIVED):
		if _derived is None:
			_derived = tempfile.mkdtemp(prefix="mdb-fixtures-")
			atexit.register(shutil.rmtree, _derived, True)
			derive_fixtures(_derived)
		return os.path.join(_derived, *parts)
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

	def write_dump(self, doc, name="run", same_run=False):
		"""doc as name/mdbench.json; a run of its own (a run_id from name,
		so that compare counts it apart from its source) unless same_run."""
		mb = doc.get("context", {}).get("memdesc_bench") if isinstance(doc, dict) else None
		if not same_run and isinstance(mb, dict) and "run_id" in mb:
			mb["run_id"] = "20251203T080000Z-%08x" % (zlib.crc32(name.encode()))
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


if __name__ == "__main__":
	# testlib.py DIR: the derived fixtures into DIR, for the shell tests.
	derive_fixtures(sys.argv[1])
