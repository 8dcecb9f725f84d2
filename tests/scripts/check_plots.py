#!/usr/bin/python3
"""check_plots OUT_DIR [--dump DUMP]... [--expect NAME]...

Checks what scripts/plot wrote into OUT_DIR: every plot the dumps call for
(figures.expected_plots: NAME.png and, but for the largest heat maps,
NAME.svg) and every --expect NAME exists; every PNG is one (signature, an IHDR chunk first with a valid CRC
and non-zero size, IEND last); every SVG parses as XML with an <svg> root;
report.md exists and links every PNG.  Prints each problem and exits 1, or
prints what it checked and exits 0.  CI runs it on results/ci; CTest runs it
on plots of a fixture dump, and on corrupt files to see it fail.
"""

import argparse
import os
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts", "lib"))

PNG_SIG = b"\x89PNG\r\n\x1a\n"


def png_problem(path):
	"""None if path is a PNG, else what is wrong."""
	try:
		with open(path, "rb") as f:
			data = f.read()
	except OSError as e:
		return e.strerror
	if not data.startswith(PNG_SIG):
		return "no PNG signature"
	pos, first, last = 8, None, None
	while pos + 12 <= len(data):
		length, kind = struct.unpack(">I4s", data[pos:pos + 8])
		body = data[pos + 8:pos + 8 + length]
		if len(body) != length or pos + 12 + length > len(data):
			return f"chunk {kind!r} runs past the end of the file"
		(crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
		if zlib.crc32(kind + body) & 0xffffffff != crc:
			return f"chunk {kind!r}: bad CRC"
		if first is None:
			first = kind
			if kind != b"IHDR" or length != 13:
				return "first chunk is not a 13-byte IHDR"
			w, h = struct.unpack(">II", body[:8])
			if not w or not h:
				return f"IHDR says {w}x{h}"
		last = kind
		pos += 12 + length
	if first is None:
		return "no chunks"
	if last != b"IEND" or pos != len(data):
		return "does not end with IEND"
	return None


def svg_problem(path):
	try:
		root = ET.parse(path).getroot()
	except (ET.ParseError, OSError) as e:
		return f"not XML: {e}"
	if root.tag not in ("svg", "{http://www.w3.org/2000/svg}svg"):
		return f"root element is <{root.tag}>, not <svg>"
	return None


def check(out, names):
	"""(problems, files checked); names: [(basename, formats)]."""
	problems, checked = [], 0
	for n, exts in names:
		for ext in exts:
			if not os.path.exists(os.path.join(out, f"{n}.{ext}")):
				problems.append(f"{n}.{ext}: missing")
	for fn in sorted(os.listdir(out)) if os.path.isdir(out) else []:
		path = os.path.join(out, fn)
		why = None
		if fn.endswith(".png"):
			why = png_problem(path)
		elif fn.endswith(".svg"):
			why = svg_problem(path)
		else:
			continue
		checked += 1
		if why:
			problems.append(f"{fn}: {why}")
	report = os.path.join(out, "report.md")
	if not os.path.exists(report):
		problems.append("report.md: missing")
	else:
		with open(report) as f:
			text = f.read()
		for n, _ in names:
			if f"({n}.png)" not in text:
				problems.append(f"report.md: no link to {n}.png")
	return problems, checked


def main(argv):
	p = argparse.ArgumentParser(prog="check_plots")
	p.add_argument("out")
	p.add_argument("--dump", action="append", default=[])
	p.add_argument("--expect", action="append", default=[])
	a = p.parse_args(argv)
	names = [(n, ("png", "svg")) for n in a.expect]
	if a.dump:
		import figures
		import mdb_dump as md
		names += figures.expected_plots(md.load_dumps(a.dump))
	if not names:
		print("check_plots: nothing expected: give --dump or --expect", file=sys.stderr)
		return 2
	problems, checked = check(a.out, names)
	for pr in problems:
		print(f"check_plots: {a.out}/{pr}")
	if problems:
		return 1
	print(f"check_plots: {a.out}: {len(names)} plots expected, {checked} PNG/SVG files valid")
	return 0


if __name__ == "__main__":
	sys.exit(main(sys.argv[1:]))
