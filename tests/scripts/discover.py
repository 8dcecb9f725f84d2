#!/usr/bin/python3
"""discover.py FILE...: prints 'FILE;CLASS' for every unittest class in the
files, so that tests/scripts/CMakeLists.txt registers each as one CTest test
without a list kept by hand.  A class counts when it defines a test_* method;
the files are parsed, not imported (no matplotlib or scipy needed to
configure)."""

import ast
import sys


def classes(path):
	with open(path, encoding="utf-8") as f:
		tree = ast.parse(f.read(), path)
	for node in tree.body:
		if isinstance(node, ast.ClassDef) and any(
				isinstance(f, ast.FunctionDef) and f.name.startswith("test_")
				for f in node.body):
			yield node.name


if __name__ == "__main__":
	for p in sys.argv[1:]:
		for c in classes(p):
			print(f"{p};{c}")
