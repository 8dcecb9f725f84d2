"""Running mdbench for scripts/run and scripts/collect, written once: the
build, `mdbench --list=json`, the rounds and the re-run of the benchmarks
whose spread is wide, the footprint pass over every mix, merging the parts
and the headline table at the end.  Nothing here names a layout, kernel or
counter: they come from --list=json."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys

import mdb_dump as md
import mdb_stats as st

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
DEFAULT_ROUNDS = 5
# A benchmark whose rounds spread wider than this ((Q3 - Q1) / median of
# real_time) runs RERUN_ROUNDS more rounds, merged into the dump.
RERUN_SPREAD = 0.05
RERUN_ROUNDS = 10
MAX_MIXES = 8		# mixes one mdbench run takes


def mdbench_path(build_dir):
	return os.path.join(build_dir, "mdbench", "mdbench")


def build(build_dir, setup=True):
	"""scripts/setup (unless told not to), then cmake's Release build of
	mdbench in build_dir; the binary's path."""
	if setup:
		subprocess.run([os.path.join(TOP, "scripts", "setup")], check=True)
	if not shutil.which("cmake"):
		raise md.DumpError("cmake is missing (run without --no-setup)")
	subprocess.run(["cmake", "-S", TOP, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release"],
		       check=True, stdout=subprocess.DEVNULL)
	subprocess.run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2),
			"--target", "mdbench"], check=True)
	return mdbench_path(build_dir)


def add_rounds_options(p):
	"""The options run and collect share for repetitions."""
	p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, metavar="N",
		       help=f"rounds of every benchmark, layouts interleaved (mdbench --rounds; "
			    f"default {DEFAULT_ROUNDS}: the fewest for a U test to tell at 0.01)")
	p.add_argument("--rerun-spread", type=float, default=RERUN_SPREAD, metavar="X",
		       help=f"re-run benchmarks whose (Q3 - Q1) / median of real_time over the "
			    f"rounds exceeds X (default {RERUN_SPREAD}; 0: never)")
	p.add_argument("--rerun-rounds", type=int, default=RERUN_ROUNDS, metavar="M",
		       help=f"rounds of such a re-run (default {RERUN_ROUNDS})")


# mdbench --rounds takes 1 to this: checked here before any work, not by
# mdbench after the first parts have run.
MAX_ROUNDS = 1000


def check_rounds_options(prog, a):
	for opt, v in (("--rounds", a.rounds), ("--rerun-rounds", a.rerun_rounds)):
		if not 1 <= v <= MAX_ROUNDS:
			md.die(prog, f"--rounds and --rerun-rounds want 1 or more, at most {MAX_ROUNDS} "
				     f"(mdbench --rounds): {opt} {v}")
	if not 0 <= a.rerun_spread < 10:
		md.die(prog, f"--rerun-spread {a.rerun_spread}: want a fraction, e.g. 0.05")


class Listing:
	"""mdbench --list=json, checked: reference_layout, layouts, kernels,
	benchmarks ({name, kernel, threads, layout, mix, ram_bytes, params}),
	counters, mixes_builtin."""

	def __init__(self, text, where="mdbench --list=json"):
		try:
			doc = json.loads(text)
		except (ValueError, RecursionError):
			raise md.DumpError(f"{where}: not JSON (an mdbench before schema 2?)")
		c = md.Checker(where)
		c.obj(doc, "top level")
		ver = doc.get("schema_version")
		if ver != md.SCHEMA_VERSION or isinstance(ver, bool):
			raise md.DumpError(f"{where}: schema_version {ver!r}, this script reads "
					   f"{md.SCHEMA_VERSION}")
		self.layouts = [c.str(c.obj(l, f"layouts[{i}]").get("name"), f"layouts[{i}].name")
				for i, l in enumerate(c.list(doc.get("layouts"), "layouts"))]
		self.kclass = {}
		self.threaded = set()
		for i, k in enumerate(c.list(doc.get("kernels"), "kernels")):
			c.obj(k, f"kernels[{i}]")
			name = c.str(k.get("name"), f"kernels[{i}].name")
			self.kclass[name] = c.one_of(k.get("class"), f"kernels[{i}].class",
						     md.KERNEL_CLASSES)
			if c.opt(k, "threaded", c.bool, where=f"kernels[{i}]"):
				self.threaded.add(name)
		self.benchmarks = []
		self.threads = {}
		for i, b in enumerate(c.list(doc.get("benchmarks"), "benchmarks")):
			c.obj(b, f"benchmarks[{i}]")
			name = c.str(b.get("name"), f"benchmarks[{i}].name")
			self.benchmarks.append((name, c.str(b.get("kernel"), f"benchmarks[{i}].kernel")))
			self.threads[name] = c.opt(b, "threads", c.int, 1, 1 << 24,
						   where=f"benchmarks[{i}]") or 1
		self.mixes = [c.str(m, f"mixes_builtin[{i}]")
			      for i, m in enumerate(c.list(doc.get("mixes_builtin", []), "mixes_builtin"))]
		self.reference = doc.get("reference_layout") or (self.layouts or [None])[0]
		if self.reference is not None and self.reference not in self.layouts:
			# plot and compare would refuse the dump, after the whole suite
			c.fail("reference_layout", f"{md._what(self.reference)} is not one of the layouts "
				  "run (" + ", ".join(self.layouts) + ")")
		self.doc = doc

	@property
	def names(self):
		return [n for n, _ in self.benchmarks]

	def by_kernel(self):
		"""collect's groups, [(title, [names])] in listing order: a kernel's
		benchmarks, a threaded kernel's by thread count ("<kernel>
		threads:N"), so that each group's rounds interleave the layouts at
		one thread count and a machine's width is swept group by group."""
		out = {}
		for n, k in self.benchmarks:
			title = f"{k} threads:{self.threads[n]}" if k in self.threaded else k
			out.setdefault(title, []).append(n)
		return list(out.items())

	def report_kernels(self):
		return [k for k, c in self.kclass.items() if c == "report"]


def list_json(mdbench, args):
	"""Listing of mdbench --list=json with args; DumpError with mdbench's
	own last line when it refuses."""
	try:
		p = subprocess.run([mdbench, "--list=json", *args], capture_output=True, text=True)
	except OSError as e:
		raise md.DumpError(f"{mdbench}: {e.strerror}")
	if p.returncode:
		err = (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]
		raise md.DumpError(f"mdbench --list=json failed: {err}")
	return Listing(p.stdout)


def mdbench_args(extra, args):
	"""The user's mdbench options extra, then args: where args select the
	benchmarks themselves (--benchmark_filter: exact names the listing took
	from the user's selection, or a pass of run's own), the user's filter is
	left out, which mdbench would refuse as given twice."""
	if any(a.startswith("--benchmark_filter=") for a in args):
		extra = [x for x in extra if not x.startswith("--benchmark_filter=")]
	return [*extra, *args]


def exact_filter(names):
	"""--benchmark_filter matching exactly these names."""
	return "^(" + "|".join(re.escape(n).replace("\\/", "/") for n in names) + ")$"


def kernel_filter(kernels):
	return "^(" + "|".join(re.escape(k) for k in kernels) + ")/"


def all_mixes(listing, note):
	"""--mix values for every mix there is: the built-ins mdbench lists and
	results/mixes/*.json, a file whose mix has a built-in's name left out."""
	names, out = set(listing.mixes), list(listing.mixes)
	ref = os.path.join(TOP, "results", "mixes")
	for fn in sorted(os.listdir(ref)) if os.path.isdir(ref) else []:
		if not fn.endswith(".json"):
			continue
		try:
			with open(os.path.join(ref, fn)) as f:
				name = json.load(f)["name"]
			if not isinstance(name, str):
				raise TypeError
		except (OSError, ValueError, KeyError, TypeError):
			note(f"results/mixes/{fn}: not a mix file, left out")
			continue
		if name not in names:
			names.add(name)
			out.append(os.path.join(ref, fn))
	return out


def chunks(items, n):
	return [items[i:i + n] for i in range(0, len(items), n)]


# The buddy's largest block (MAX_PAGE_ORDER): a mix with larger blocks holds
# 1 GiB hugetlb folios, which mdbench places only where the RAM holds one.
BUDDY_MAX_ORDER = 10
# What the footprint pass models such a mix at: each size holds one folio per
# GiB the mix gives them, and HVO's remapping (one mapping a freed page) stays
# under the default vm.max_map_count of 65530 for every layout.
GIGANTIC_RAM = "8GiB,16GiB"


def largest_order(mix):
	"""The largest order a --mix value names: a JSON file's entries; 0 for a
	built-in, whose orders stop at the buddy's."""
	if not mix.endswith(".json"):
		return 0
	try:
		with open(mix) as f:
			return max((int(e.get("order", 0)) for e in json.load(f).get("entries", [])),
				   default=0)
	except (OSError, ValueError, TypeError, AttributeError):
		return 0		# mdbench says what is wrong with it


def footprint_passes(mixes, extra):
	"""[(mixes, extra mdbench args)] of the footprint pass: MAX_MIXES mixes
	a run; those with 1 GiB folios apart, at GIGANTIC_RAM unless the
	mdbench options (extra) give --ram themselves."""
	small = [m for m in mixes if largest_order(m) <= BUDDY_MAX_ORDER]
	big = [m for m in mixes if largest_order(m) > BUDDY_MAX_ORDER]
	ram = [] if any(x.split("=", 1)[0] == "--ram" for x in extra) else ["--ram=" + GIGANTIC_RAM]
	return [(c, []) for c in chunks(small, MAX_MIXES)] + [(c, ram) for c in chunks(big, MAX_MIXES)]


def wide(path, threshold):
	"""[(run name, spread)] of the timed and baseline benchmarks of the
	dump at path whose real_time spreads wider than threshold over its
	rounds (at least 2), widest first."""
	if threshold <= 0:
		return []
	d = md.Dump(path)
	out = []
	for b in d.native.values():
		v = b.values("real_time")
		if b.kclass != "report" and not b.error and len(v) >= 2:
			s = st.relative_spread(v)
			if s > threshold:
				out.append((b.name, s))
	return sorted(out, key=lambda x: -round(x[1], 6))	# ties in the dump's order


def merge(out_path, parts, rounds_parts=()):
	"""The dumps parts (paths) merged into out_path; rounds_parts hold extra
	rounds of benchmarks already in parts.  (merged document or None,
	[why each part that could not be read was left out])."""
	docs, extra, bad = [], [], []
	for paths, into in ((parts, docs), (rounds_parts, extra)):
		for p in paths:
			try:
				into.append(md.read_doc(p)[0])
			except md.DumpError as e:
				bad.append(str(e))
	if not docs:
		return None, bad
	doc = md.merge_docs(docs + extra, rounds=range(len(docs), len(docs) + len(extra)))
	md.write_doc(doc, out_path)
	return doc, bad


class Child:
	"""The mdbench running now, for Ctrl-C and SIGTERM: stopped, then waited for."""

	def __init__(self):
		self.proc = None

	def run(self, cmd, log=None):
		"""Exit status of cmd; with log, stdout and stderr go there."""
		f = open(log, "w") if log else None
		try:
			if f:
				f.write("$ " + " ".join(cmd) + "\n")
				f.flush()
			self.proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT if f else None)
			try:
				return self.proc.wait()
			except KeyboardInterrupt:
				self.stop()
				raise
		finally:
			self.proc = None
			if f:
				f.close()

	def stop(self):
		"""The terminal's SIGINT reached mdbench too; make sure, then wait."""
		c = self.proc
		if not c or c.poll() is not None:
			return
		for sig, wait in ((signal.SIGINT, 10), (signal.SIGTERM, 5), (signal.SIGKILL, 5)):
			try:
				c.send_signal(sig)
				c.wait(wait)
				return
			except subprocess.TimeoutExpired:
				continue
			except ProcessLookupError:
				return


def say(text):
	print(text, flush=True)


def warn(prog, text):
	print(f"{prog}: {md.printable(text)}", file=sys.stderr, flush=True)
