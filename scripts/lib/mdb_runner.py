"""Running mdbench for scripts/run and scripts/collect, written once: the
build, `mdbench --list=json`, the rounds and the re-run of the benchmarks
whose spread is wide, the footprint pass over every mix, merging the parts
and the headline table at the end.  Nothing here names a layout, kernel or
counter: they come from --list=json."""

import datetime
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import mdb_cli as mc
import mdb_dump as md
import mdb_stats as st

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
DEFAULT_ROUNDS = 5
# A benchmark whose rounds spread wider than this ((Q3 - Q1) / median of
# real_time) runs RERUN_ROUNDS more rounds, merged into the dump.
RERUN_SPREAD = 0.05
RERUN_ROUNDS = 10
MAX_MIXES = 8		# mixes one mdbench run takes
MAX_JOBS = 1024		# footprint passes side by side, at most (run -j)
# What a stage mdbench gives no estimate of takes, in seconds, until this
# machine's last run says: the plots, and the simulation under callgrind.
PLOT_SECONDS = 15
SIM_SECONDS = 120


def mdbench_path(build_dir):
	return os.path.join(build_dir, "mdbench", "mdbench")


def build(build_dir, setup=True, sink=None):
	"""scripts/setup (unless told not to), then cmake's Release build of
	mdbench in build_dir; the binary's path.  sink: every line setup and
	cmake print goes there instead of our stdout and stderr (run.log)."""
	child = Child()
	if setup:
		rc = child.run([os.path.join(TOP, "scripts", "setup")], sink=sink)
		if rc:
			raise subprocess.CalledProcessError(rc, "scripts/setup")
	if not shutil.which("cmake"):
		raise md.DumpError("cmake is missing (run without --no-setup)")
	# cmake and the compilers it starts in a process group of their own, so
	# that a stop signal ends them all (setup stays in ours: sudo may ask
	# the terminal for a password)
	for cmd, out in ((["cmake", "-S", TOP, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release"],
			  subprocess.DEVNULL),
			 (["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2),
			   "--target", "mdbench"], None)):
		rc = child.run(cmd, group=True, stdout=out, sink=sink)
		if rc:
			raise subprocess.CalledProcessError(rc, cmd)
	return mdbench_path(build_dir)


def rounds_arg(text):
	"""--rounds: 'auto' (mdbench's adaptive rounds) or a whole number >= 1."""
	if text == "auto":
		return text
	if not text.isdigit() or int(text) < 1:
		raise md.DumpError(f"--rounds {text!r}: want auto or a whole number of 1 or more")
	return int(text)


def jobs_arg(text):
	"""run -j: footprint passes side by side, 1 to MAX_JOBS."""
	if not text.isdigit() or not 1 <= int(text) <= MAX_JOBS:
		raise md.DumpError(f"--jobs {text!r}: want a whole number from 1 to {MAX_JOBS}")
	return int(text)


def seconds_arg(text):
	try:
		v = float(text)
	except ValueError:
		v = None
	if v is None or not 0 < v < 1e7:
		raise md.DumpError(f"--time-budget {text!r}: want seconds above 0, e.g. 600")
	return v


def add_rounds_options(p, rerun=True, rounds="auto"):
	"""The options run and collect share for repetitions: --rounds auto
	(mdbench stops a group's rounds when every row is decided or the
	budget is spent; a round runs the reference and the undecided rows) or N;
	with rerun, the re-run of wide spreads that a fixed N allows."""
	p.add_argument("--rounds", type=rounds_arg, default=rounds, metavar="N|auto",
		       help=f"rounds of every benchmark, layouts interleaved (mdbench --rounds; "
			    f"default {rounds}: adaptive, within --time-budget)")
	if rerun:
		p.add_argument("--rerun-spread", type=float, default=RERUN_SPREAD, metavar="X",
			       help=f"with --rounds=N: re-run the groups (every layout) of benchmarks "
				    f"whose (Q3 - Q1) / median of real_time over the rounds exceeds X "
				    f"(default {RERUN_SPREAD}; 0: never)")
		p.add_argument("--rerun-rounds", type=int, default=RERUN_ROUNDS, metavar="M",
			       help=f"rounds of such a re-run (default {RERUN_ROUNDS})")


# mdbench --rounds takes 1 to this: checked here before any work, not by
# mdbench after the first parts have run.
MAX_ROUNDS = 1000


def check_rounds_options(prog, a):
	for opt, v in (("--rounds", a.rounds), ("--rerun-rounds", getattr(a, "rerun_rounds", 1))):
		if v != "auto" and not 1 <= v <= MAX_ROUNDS:
			mc.die(prog, f"{opt} wants 1 or more, at most {MAX_ROUNDS} (mdbench --rounds): "
				     f"{opt} {v}")
	if not 0 <= getattr(a, "rerun_spread", 0) < 10:
		mc.die(prog, f"--rerun-spread {a.rerun_spread}: want a fraction, e.g. 0.05")
	if getattr(a, "time_budget", None) is not None and a.rounds != "auto":
		mc.die(prog, "--time-budget goes with --rounds=auto")


def rerun_wanted(a):
	return a.rounds != "auto" and a.rounds >= 2 and a.rerun_spread > 0


def rounds_args(rounds, budget=None):
	"""mdbench's options for rounds (and the adaptive rounds' budget)."""
	out = [f"--rounds={rounds}"]
	if rounds == "auto" and budget is not None:
		out.append(f"--time-budget={budget:.0f}")
	return out


class Listing:
	"""mdbench --list=json, checked: reference_layout, layouts, kernels,
	benchmarks ({name, kernel, threads, layout, mix, ram_bytes, params}),
	counters, mixes_builtin, auto_min_rounds."""

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
		self.est = {}		# name: est_seconds, where mdbench gives one
		self.layout_of = {}
		self.ram_of = {}	# name: the RAM it models, None for a baseline
		for i, b in enumerate(c.list(doc.get("benchmarks"), "benchmarks")):
			c.obj(b, f"benchmarks[{i}]")
			name = c.str(b.get("name"), f"benchmarks[{i}].name")
			self.benchmarks.append((name, c.str(b.get("kernel"), f"benchmarks[{i}].kernel")))
			self.threads[name] = c.opt(b, "threads", c.int, 1, 1 << 24,
						   where=f"benchmarks[{i}]") or 1
			est = c.opt(b, "est_seconds", c.num, 0, where=f"benchmarks[{i}]")
			if est is not None:
				self.est[name] = float(est)
			self.layout_of[name] = c.opt(b, "layout", c.str, where=f"benchmarks[{i}]")
			self.ram_of[name] = c.opt(b, "ram_bytes", c.int, 1, 1 << 60,
						  where=f"benchmarks[{i}]")
		self.mixes = [c.str(m, f"mixes_builtin[{i}]")
			      for i, m in enumerate(c.list(doc.get("mixes_builtin", []), "mixes_builtin"))]
		machine = doc.get("machine") if isinstance(doc.get("machine"), dict) else {}
		# The last-level cache the headline size was found from, and how.
		self.llc_bytes = c.opt(machine, "llc_bytes", c.int, 1, 1 << 50, where="machine")
		self.llc_source = c.opt(machine, "llc_source", c.str, where="machine")
		self.headline_ram = c.opt(machine, "headline_ram_bytes", c.int, 1, 1 << 60, where="machine")
		# The rounds --rounds=auto gives the headline size whatever the budget.
		self.auto_min_rounds = c.opt(doc, "auto_min_rounds", c.int, 1, 1000, where="top level")
		self.reference = doc.get("reference_layout") or (self.layouts or [None])[0]
		if self.reference is not None and self.reference not in self.layouts:
			# plot and compare would refuse the dump, after the whole suite
			c.fail("reference_layout", f"{md._what(self.reference)} is not one of the layouts "
				  "run (" + ", ".join(self.layouts) + ")")
		self.doc = doc

	@property
	def names(self):
		return [n for n, _ in self.benchmarks]

	def largest_ram(self):
		"""The largest RAM a benchmark models (bytes), 0 if none does."""
		return max((r for r in self.ram_of.values() if r), default=0)

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

	def auto_est_seconds(self):
		"""mdbench's estimate of --rounds=auto's least: one round of
		everything, auto_min_rounds of the headline size's timed
		benchmarks (a report runs once); None without est_seconds."""
		one = self.est_seconds()
		if one is None or not self.auto_min_rounds or not self.headline_ram:
			return one
		head = [n for n, k in self.benchmarks
			if self.ram_of.get(n) == self.headline_ram and self.kclass.get(k) != "report"]
		return one + (self.auto_min_rounds - 1) * (self.est_seconds(head) or 0)

	def est_seconds(self, names=None):
		"""mdbench's estimate of one round of names (default all), weighted
		by RAM size; None when this mdbench gives no est_seconds."""
		names = self.names if names is None else names
		if not names or any(n not in self.est for n in names):
			return None
		return sum(self.est[n] for n in names)

	def without_layout(self, name):
		"""The name with its layout part taken out: one benchmark across
		layouts (the layout from the listing, never guessed)."""
		lay = self.layout_of.get(name)
		if not lay:
			return name
		parts = name.split("/")
		if lay in parts:
			parts.remove(lay)
		return "/".join(parts)

	def group_mates(self, names):
		"""Every benchmark of the listing that is one of names on another
		layout: a re-run covers every layout of the group, so that the
		ratios compare rounds taken together."""
		keys = {self.without_layout(n) for n in names}
		return [n for n in self.names if self.without_layout(n) in keys]


def pace(seconds, listing, dump):
	"""seconds (what the measure stage took) over the listing's estimate of
	the rounds the dump holds: the estimates count the timed runs, not the
	memmaps built and the cold kernels' evictions around them (2.5x on the
	development VM's quick run).  1.0 where nothing is estimated."""
	est = sum(listing.est[b.name] * len(b.reps) for b in dump.native.values()
		  if b.name in listing.est)
	return seconds / est if est > 0 and seconds > 0 else 1.0


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


def given(extra, opt):
	"""Whether the user's mdbench options (extra) give opt ('--llc'), as
	'--llc=X' or alone."""
	return any(x.split("=", 1)[0] == opt for x in extra)


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


def split(items, n):
	"""items in n runs of consecutive items, as even as can be (none empty)."""
	n = max(1, min(n, len(items)))
	q, r = divmod(len(items), n)
	out, i = [], 0
	for k in range(n):
		j = i + q + (k < r)
		out.append(items[i:j])
		i = j
	return out


def footprint_passes(mixes, extra, jobs=1):
	"""[(mixes, extra mdbench args)] of the footprint pass: at most
	MAX_MIXES mixes a run, and the mixes in at least jobs runs where there
	are that many, so that jobs of them can run at once; those with 1 GiB
	folios apart, at GIGANTIC_RAM unless the mdbench options (extra) give
	--ram themselves."""
	small = [m for m in mixes if largest_order(m) <= BUDDY_MAX_ORDER]
	big = [m for m in mixes if largest_order(m) > BUDDY_MAX_ORDER]
	runs = split(small, max(-(-len(small) // MAX_MIXES), jobs)) if small else []
	if given(extra, "--ram"):	# each apart: one the RAM given cannot hold is left out alone
		return [(c, []) for c in runs] + [([m], []) for m in big]
	return [(c, []) for c in runs] + \
		[(c, ["--ram=" + GIGANTIC_RAM]) for c in chunks(big, MAX_MIXES)]


# What one footprint pass may hold, per byte of the largest RAM it models
# and beyond that.  A run of report kernels alone keeps one build at a time
# (mdbench/native.c reports_only()): its memmap, descriptor caches and aging
# trace.  Measured: the quick profile's first pass (seven mixes, 16 GiB)
# peaked at 1.5 GiB (9.5 GiB before, its builds kept side by side); this
# allows it 2 GiB.
FOOTPRINT_BYTES_PER_RAM = 1 / 16
FOOTPRINT_BYTES_FIXED = 1 << 30


def footprint_jobs(extra, ram_bytes, cpus=None, available=None):
	"""How many footprint passes may run at once: they count bytes and
	time nothing, so one a CPU this process may run on, as many as
	MemAvailable holds (a pass modelling ram_bytes at most); one where the
	user's options pin mdbench to a CPU (--cpu)."""
	if given(extra, "--cpu"):
		return 1
	cpus = len(os.sched_getaffinity(0)) if cpus is None else cpus
	available = mem_available() if available is None else available
	need = FOOTPRINT_BYTES_PER_RAM * ram_bytes + FOOTPRINT_BYTES_FIXED
	return max(1, min(cpus, MAX_JOBS, int(available // need) if available else 1))


def mem_available():
	"""MemAvailable of /proc/meminfo in bytes, 0 where it cannot be read."""
	try:
		with open("/proc/meminfo") as f:
			for line in f:
				if line.startswith("MemAvailable:"):
					return int(line.split()[1]) * 1024
	except (OSError, ValueError, IndexError):
		pass
	return 0


def makespan(ests, jobs):
	"""The time ests (seconds) take run jobs at a time, each started as a
	slot frees in the order given (what Run.mdb_many does)."""
	slots = [0.0] * max(1, jobs)
	for e in ests:
		i = slots.index(min(slots))
		slots[i] += e
	return max(slots)


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
	"""The mdbench or workload running now, for the signals that stop a job
	(mc.catch_stop_signals()): stopped, then waited for."""

	# How long each signal of the stop sequence is given before the next.
	STOP_WAITS = (10, 5, 5)
	GROUP_GONE_WAIT = 5

	def __init__(self):
		self.proc = None
		self.group = False

	def run(self, cmd, log=None, progress=None, group=False, stdout=None, sink=None):
		"""Exit status of cmd; with log, stdout and stderr go there, else
		stdout to stdout (a file object or descriptor; default ours).  With
		progress, mdbench's stderr is read line by line: its progress lines
		go to progress(done, total, est_left), the others to log or our
		stderr.  With sink, every line of stdout (unless stdout is given)
		and stderr but the progress lines goes to sink(line, from_stderr),
		nothing to ours.  With group, cmd runs in a process group of its own (a
		workload: the shell and all it starts), which a stop signals whole."""
		f = open(log, "w") if log else None
		try:
			if f:
				f.write("$ " + " ".join(cmd) + "\n")
				f.flush()
			if sink:
				sink("$ " + " ".join(cmd) + "\n", False)
			err = subprocess.PIPE if progress or sink else (subprocess.STDOUT if f else None)
			out = stdout if stdout is not None or not sink else subprocess.PIPE
			self.group = group
			text = bool(progress) and not sink	# sink: drain() reads raw bytes
			self.proc = subprocess.Popen(cmd, stdout=f or out, stderr=err,
						     text=True if text else None,
						     errors="replace" if text else None,
						     process_group=0 if group else None)
			try:
				if sink:
					return self.drain(progress, sink)
				if progress:
					for line in self.proc.stderr:
						p = parse_progress(line)
						if p:
							progress(*p)
						else:
							(f or sys.stderr).write(line)
							(f or sys.stderr).flush()
				return self.proc.wait()
			except KeyboardInterrupt as e:
				self.stop(mc.stop_signal(e))
				raise
		finally:
			self.proc = None
			if f:
				f.close()

	def drain(self, progress, sink):
		"""The running child's stdout (when piped) and stderr, line by line
		as they come, to sink (progress lines to progress); its exit
		status."""
		streams = {self.proc.stderr.fileno(): [True, b""]}
		if self.proc.stdout:
			streams[self.proc.stdout.fileno()] = [False, b""]
		while streams:
			for fd in select.select(list(streams), [], [])[0]:
				is_err, held = streams[fd]
				chunk = os.read(fd, 65536)
				lines = (held + chunk).split(b"\n")
				streams[fd][1] = lines.pop() if chunk else b""
				if not chunk:
					del streams[fd]
					lines = [x for x in lines if x]
				for raw in lines:
					line = raw.decode(errors="replace") + "\n"
					p = parse_progress(line) if progress and is_err else None
					if p:
						progress(*p)
					else:
						sink(line, is_err)
		return self.proc.wait()

	def stop(self, sig=signal.SIGINT):
		"""mdbench: SIGINT (the terminal's reached it too; make sure), then
		SIGTERM, then SIGKILL, each waited for.  A workload's group: the
		signal that stopped us first, then the same sequence, to the whole
		group; then whatever of it outlived its shell (a job it left in
		the background) is killed and waited for."""
		c = self.proc
		if not c or c.poll() is not None and not self.group:
			return
		send = (lambda s: os.killpg(c.pid, s)) if self.group else c.send_signal
		first = sig if self.group else signal.SIGINT
		for s, wait in zip((first, signal.SIGTERM, signal.SIGKILL), self.STOP_WAITS):
			try:
				if c.poll() is not None:
					break
				send(s)
				c.wait(wait)
				break
			except subprocess.TimeoutExpired:
				continue
			except ProcessLookupError:
				break
		if self.group:
			self.end_group(c.pid)

	def end_group(self, pgid):
		"""SIGKILL to what is left of process group pgid, then until it is
		gone (at most GROUP_GONE_WAIT seconds: its members are not our
		children, their parent reaps them)."""
		deadline = time.monotonic() + self.GROUP_GONE_WAIT
		while time.monotonic() < deadline:
			try:
				os.killpg(pgid, signal.SIGKILL)
			except (ProcessLookupError, PermissionError):
				return
			time.sleep(0.05)


# mdbench: progress <done>/<total> elapsed=<seconds> est_left=<seconds> <run name>
PROGRESS = re.compile(r"^mdbench: progress (\d+)/(\d+)(?: elapsed=[0-9.]+)? "
		      r"est_left=([0-9.]+)(?: .*)?$")


def parse_progress(line):
	"""(done, total, est_left seconds) of mdbench's line per finished
	benchmark, None for any other line."""
	m = PROGRESS.match(line)
	if not m:
		return None
	try:
		return int(m.group(1)), int(m.group(2)), float(m.group(3))
	except ValueError:
		return None


def fmt_secs(s):
	"""'1h02m', '12m05s', '42 s'."""
	s = int(round(max(s, 0)))
	if s >= 3600:
		return f"{s // 3600}h{s % 3600 // 60:02d}m"
	if s >= 60:
		return f"{s // 60}m{s % 60:02d}s"
	return f"{s} s"


def clock(t):
	return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%H:%M:%S UTC")


class Stage:
	"""One step of a job, with what it is estimated to take (seconds) and
	where the estimate comes from."""

	def __init__(self, key, title, est, source, budget=None):
		self.key, self.title, self.est, self.source = key, title, est, source
		self.budget = budget	# adaptive rounds go on until it is spent
		self.began = self.ended = None

	@property
	def seconds(self):
		"""What it took, None until it has ended."""
		return None if self.ended is None else self.ended - self.began


class Plan:
	"""The stage plan and one ETA across its stages.  The running stage's
	time left is mdbench's est_left, corrected by how fast its est_left has
	fallen so far (the rate, clamped to 1/4..4), or the stage's estimate
	less its time so far; stages not begun count their estimates.  Every
	ETA given is kept (history) so that its error can be measured against
	the time the job took."""

	RATE_MIN, RATE_MAX = 0.25, 4.0
	STEP = 0.1		# a new ETA line each tenth of the work

	def __init__(self, stages, started, out=print, now=time.time):
		self.stages, self.started, self.out, self.now = stages, started, out, now
		self.cur = None
		self.first = None	# (time, est_left) of the running stage's first progress line
		self.left = None
		self.history = []	# [elapsed, fraction done, ETA (total seconds)]
		self.next_step = self.STEP

	def lines(self):
		"""The plan as text lines, with the whole job's estimate."""
		rows = []
		for i, s in enumerate(self.stages):
			t = (f"{fmt_secs(s.seconds)} (done)" if s.ended is not None else
			     f"~{fmt_secs(s.est)}")
			rows.append(f"  {i + 1}. {s.title:<44} {t:>16}  ({s.source})")
		total = sum(s.est if s.seconds is None else s.seconds for s in self.stages)
		end = self.started + (self.now() - self.started) + sum(
			s.est for s in self.stages if s.ended is None)
		return ["stage plan (estimates weighted by RAM size):", *rows,
			f"  total ~{fmt_secs(total)}, ends ~{clock(end)}"]

	def stage(self, key):
		return next(x for x in self.stages if x.key == key)

	def begin(self, key):
		s = self.stage(key)
		s.began, self.cur, self.first, self.left = self.now(), s, None, None
		self.report(force=True)

	def end(self, key):
		s = self.stage(key)
		s.ended = self.now()
		if s.began is None:
			s.began = s.ended
		self.cur = None

	def progress(self, done, total, est_left):
		t = self.now()
		if self.first is None:
			self.first = (t, est_left)
		self.left = est_left
		self.report()

	def stage_left(self, t):
		"""The running stage's time left: its estimate less its time so
		far until mdbench's first progress line, then its est_left (of
		the rounds planned so far) by the rate, and no less than what is
		left of its time budget, which adaptive rounds fill."""
		s = self.cur
		if s is None:
			return 0.0
		if self.left is None:
			return max(s.est - (t - s.began), 0.0)
		t0, l0 = self.first
		rate = 1.0
		if l0 - self.left > 0.05 * l0 and t - t0 > 0:
			rate = min(max((t - t0) / (l0 - self.left), self.RATE_MIN), self.RATE_MAX)
		left = self.left * rate
		if s.budget is not None:
			left = max(left, s.budget - (t - s.began))
		return left

	def eta(self):
		"""(elapsed, seconds left, fraction done) now."""
		t = self.now()
		left = self.stage_left(t) + sum(s.est for s in self.stages
						if s.began is None and s is not self.cur)
		el = t - self.started
		return el, left, el / (el + left) if el + left > 0 else 1.0

	def report(self, force=False):
		el, left, frac = self.eta()
		self.history.append([round(el, 3), round(frac, 4), round(el + left, 3)])
		if force or frac >= self.next_step:
			while self.next_step <= frac:
				self.next_step += self.STEP
			self.out(f"ETA: {frac * 100:3.0f}% done, {fmt_secs(el)} so far, about "
				 f"{fmt_secs(left)} left (ends ~{clock(self.now() + left)})")

	def record(self):
		"""What timing.json keeps: the plan, each stage's time, every ETA."""
		return {"started": iso_utc(self.started), "total_seconds": round(self.now() - self.started, 3),
			"stages": [{"key": s.key, "title": s.title, "est_seconds": round(s.est, 3),
				    "source": s.source,
				    "seconds": None if s.seconds is None else round(s.seconds, 3)}
				   for s in self.stages],
			"eta_history": self.history}


def iso_utc(t):
	return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat(timespec="seconds")


def eta_errors(record, at=(0.1, 0.5, 0.9)):
	"""{fraction: (ETA in force, relative error against the job's real
	time)} of a timing.json record: the last ETA given by each fraction of
	the time the job took."""
	total = record["total_seconds"]
	out = {}
	for f in at:
		h = [x for x in record["eta_history"] if x[0] <= f * total]
		if h:
			out[f] = (h[-1][2], (total - h[-1][2]) / h[-1][2] if h[-1][2] else None)
	return out


def previous_timing(results):
	"""timing.json of the last run under results (results/latest), or {}:
	what a stage without an estimate of mdbench's took last time."""
	try:
		with open(os.path.join(results, "latest", "timing.json")) as f:
			doc = json.load(f)
		return {s["key"]: s for s in doc.get("stages", []) if isinstance(s, dict)
			and isinstance(s.get("seconds"), (int, float)) and "key" in s}
	except (OSError, ValueError, TypeError, AttributeError):
		return {}


def writable_dir(prog, path):
	"""path made if missing; bad input when it cannot be written (or is a
	file), said before anything runs rather than when the first result is
	written."""
	try:
		os.makedirs(path, exist_ok=True)
		os.rmdir(tempfile.mkdtemp(dir=path, prefix=".probe-"))	# root too: a read-only fs
	except FileExistsError:
		mc.die(prog, f"{path}: not a directory")
	except OSError as e:
		mc.die(prog, f"{path}: cannot write there: {e.strerror}")


def say(text):
	print(text, flush=True)


def warn(prog, text):
	print(f"{prog}: {md.printable(text)}", file=sys.stderr, flush=True)
