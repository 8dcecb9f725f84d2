#!/usr/bin/python3
"""bench_plot.py [--benchmarks N] [--rounds R] [--keep DIR]

Times scripts/plot (and scripts/compare of the dump against itself) on a
dump of N benchmarks (default 10,000) that make_big_dump.py writes: a
benchmark, not a test; it reports and asserts nothing.  The aim: under
30 s at 10,000 benchmarks.
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))


def timed(cmd):
	"""(wall seconds, CPU seconds of it and its children, CompletedProcess):
	on a shared machine the CPU time is the steadier of the two."""
	r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
	p = subprocess.run(cmd, capture_output=True, text=True)
	r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
	cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
	return time.monotonic() - t0, cpu, p


def main():
	ap = argparse.ArgumentParser(prog="bench_plot")
	ap.add_argument("--benchmarks", type=int, default=10000)
	ap.add_argument("--rounds", type=int, default=5)
	ap.add_argument("--keep", metavar="DIR", help="write the dump and plots here and keep them")
	a = ap.parse_args()
	tmp = a.keep or tempfile.mkdtemp(prefix="mdb-bench-plot-")
	try:
		subprocess.run([sys.executable, os.path.join(HERE, "make_big_dump.py"), tmp,
				"--benchmarks", str(a.benchmarks), "--rounds", str(a.rounds)], check=True)
		size = os.path.getsize(os.path.join(tmp, "mdbench.json"))
		load = os.getloadavg()[0]
		t, cpu, p = timed([sys.executable, os.path.join(TOP, "scripts", "plot"), tmp])
		figs = len([f for f in os.listdir(tmp) if f.endswith(".png")])
		print(f"plot: {t:.1f} s ({cpu:.1f} s CPU, {os.cpu_count()} CPUs, load {load:.1f}), "
		      f"exit {p.returncode}, {figs} figures (dump {size / 1e6:.1f} MB, "
		      f"{a.benchmarks} benchmarks x {a.rounds} rounds)")
		if p.returncode:
			print(p.stderr.strip())
		t, cpu, p = timed([sys.executable, os.path.join(TOP, "scripts", "compare"), tmp, tmp])
		print(f"compare: {t:.1f} s ({cpu:.1f} s CPU), exit {p.returncode}, "
		      f"{len(p.stdout.splitlines())} lines")
	finally:
		if not a.keep:
			shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
	main()
