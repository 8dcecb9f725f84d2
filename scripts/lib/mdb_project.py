"""The projection of scripts/project and collect --workload: what each layout
would cost a real workload, from how often the workload takes the paths the
suite's kernels time.

A workload is one command run once: /proc/vmstat read just before and just
after it, and its wall time.  Each kernel's metadata in the dump (its
"vmstat" list, from the MDB_KERNEL() registration) says which vmstat event
counters count its op and how many ops one event is; a counter ending in
'*' stands for every counter it prefixes.  The workload did

	ops(k) = sum over k's entries of ops_per_event x delta(counter)

of kernel k's ops (a negative sum, possible only where one entry takes out
events another kernel counts, is 0 with a note), ops(k) / seconds a second.
Some counters count pages where an op is an allocation: pgalloc_* adds
1 << order an allocation.  Those kernels name derived counters
("derived:alloc_order0", ...; counts() below says how each is made): from
an ftrace log of the workload when there is one (project --trace: one
mm_page_alloc event an allocation, its order given), else from the
counters that count allocations of one order (thp_*_alloc, and the mTHP
sizes' stats under /sys/kernel/mm/transparent_hugepage, which the record
keeps beside /proc/vmstat); what no counter tells apart stays an estimate,
and the projection says so.
On a layout L against the reference layout R, one op of k costs

	d(k, L) = the 20% trimmed mean of t_L - t_R over the rounds, in ns,

t the kernel's time per op (real_time) in every round of the benchmark on
the chosen mix, RAM and variant, paired by round where the dump gives rounds
(a round's layouts ran interleaved), with its 1 - alpha Yuen t interval
(mdb_stats.paired_shift, the verdicts' pairing); a dump without rounds gives
the Hodges-Lehmann estimate and the inverted Mann-Whitney test's interval
(mdb_stats.hodges_lehmann on the raw times, as compare does for
differences).  The projected metadata time per second of the
workload is

	P(L) = sum over k of ops(k) / seconds x d(k, L)	(ns per second),

its interval the sum of the kernels' interval ends times their rates
(interval arithmetic: the rates are counts, exact; the sum covers P(L) with
probability at least 1 - m x alpha over m kernels, Bonferroni).  A kernel
with ops but no interval (one round a side) leaves P(L) without one; a
kernel with ops that the dump does not have on L leaves P(L) unavailable,
never 0.  The workload ran once: its own run-to-run variation is not in the
interval.  /proc/vmstat counts the whole machine: whatever else runs
meanwhile counts as the workload's (run it on an otherwise idle machine).

Beside it, the footprint of each layout on this machine's own mix (the
dump's kpageflags:<host> footprint, bytes per GiB of RAM), or why there is
none.
"""

import datetime
import fnmatch
import json
import math
import os
import re
import signal
import socket
import statistics
import sys
import time

import mdb_dump as md
import mdb_report as mr
import mdb_stats as st

VMSTAT = "/proc/vmstat"
MEMINFO = "/proc/meminfo"
KPAGEFLAGS = "/proc/kpageflags"
KPF_PREFIX = "kpageflags:"	# the name mdbench gives a --mix=kpageflags snapshot
UNMAPPED_SHOWN = 12
# /proc/vmstat holds a few hundred counters (about 5 KiB); a workload.json
# two of them: anything much larger is not one.
VMSTAT_MAX_BYTES = 1 << 20
RECORD_MAX_BYTES = 4 << 20


# -- vmstat --------------------------------------------------------------------

def parse_vmstat(text, where):
	"""{counter: value} of /proc/vmstat's text; DumpError naming the line
	that is not '<name> <integer>'."""
	out = {}
	for i, line in enumerate(text.splitlines()):
		if not line.strip():
			continue
		parts = line.split()
		if len(parts) != 2 or not re.fullmatch(r"-?[0-9]{1,20}", parts[1]):
			raise md.DumpError(f"{where}:{i + 1}: not '<counter> <integer>': {md.printable(line)!r}")
		out[parts[0]] = int(parts[1])
	if not out:
		raise md.DumpError(f"{where}: no counters")
	return out


def read_vmstat(path=VMSTAT):
	"""/proc/vmstat, or a stored copy: a regular text file of at most
	VMSTAT_MAX_BYTES."""
	return parse_vmstat(md.read_text(path, VMSTAT_MAX_BYTES), path)


MTHP = "/sys/kernel/mm/transparent_hugepage"
# The mTHP stats that count an allocation of the size (anon faults, shmem, the page cache).
MTHP_ALLOC_STATS = ("anon_fault_alloc", "shmem_alloc", "file_alloc")
MTHP_RE = re.compile(r"hugepages-([0-9]{1,9})kB/(" + "|".join(MTHP_ALLOC_STATS) + r")")
PAGE_KB = 4
PMD_ORDER = 9		# HPAGE_PMD_ORDER of a 4 KiB host


def read_mthp(top=MTHP):
	"""{'hugepages-<N>kB/<stat>': count} of the mTHP sizes' allocation
	stats (kernels from 6.9 have them; none before)."""
	out = {}
	try:
		sizes = sorted(os.listdir(top))
	except OSError:
		return out
	for d in sizes:
		for stat in MTHP_ALLOC_STATS:
			name = f"{d}/{stat}"
			if not MTHP_RE.fullmatch(name):
				continue
			try:
				with open(os.path.join(top, d, "stats", stat)) as f:
					out[name] = int(f.read(32).strip())
			except (OSError, ValueError):
				pass
	return out


def mthp_order(name):
	"""The order of an mTHP stat's size ('hugepages-64kB/...': 4); None if not one."""
	m = MTHP_RE.fullmatch(name)
	if not m or int(m.group(1)) % PAGE_KB:
		return None
	pages = int(m.group(1)) // PAGE_KB
	return pages.bit_length() - 1 if pages & (pages - 1) == 0 else None


def mem_total_bytes():
	try:
		with open(MEMINFO) as f:
			for line in f:
				if line.startswith("MemTotal:"):
					return int(line.split()[1]) * 1024
	except (OSError, ValueError, IndexError):
		pass
	return None


def run_workload(cmd, child, log=None):
	"""The record of one run of the shell command cmd: vmstat before and
	after, wall seconds, exit status (negative: the signal that ended it),
	host, MemTotal.  child: an mdb_runner.Child; the command runs in a
	process group of its own, which a stop signal ends whole.  Its output
	goes to log, else to our stderr: never into what we write on stdout
	(a trace, a projection)."""
	started = time.time()
	before = {**read_vmstat(), **read_mthp()}
	t0 = time.monotonic()
	rc = child.run(["/bin/sh", "-c", cmd], log, group=True,
		       stdout=None if log else sys.stderr.fileno())
	seconds = time.monotonic() - t0
	after = {**read_vmstat(), **read_mthp()}
	return {"command": cmd, "seconds": seconds, "exit_status": rc,
		"host": socket.gethostname(), "mem_total_bytes": mem_total_bytes(),
		"started": datetime.datetime.fromtimestamp(started, datetime.timezone.utc)
		.isoformat(timespec="seconds"),
		"vmstat_before": before, "vmstat_after": after}


def exit_text(rc):
	"""A workload's exit status as words: 'exit status 3', or 'killed by
	signal 9 (SIGKILL)' for a negative one."""
	if rc is not None and rc < 0:
		try:
			name = f" ({signal.Signals(-rc).name})"
		except ValueError:
			name = ""
		return f"killed by signal {-rc}{name}"
	return f"exit status {rc}"


def record_from_files(before, after, seconds, command=None):
	"""A record from two stored /proc/vmstat texts and the seconds between."""
	if not seconds > 0 or not math.isfinite(seconds):
		raise md.DumpError(f"--seconds {seconds}: want the workload's wall time, > 0")
	vm = [read_vmstat(p) for p in (before, after)]
	return {"command": command, "seconds": seconds, "exit_status": None, "host": None,
		"mem_total_bytes": None, "started": None,
		"vmstat_before": vm[0], "vmstat_after": vm[1]}


def read_record(path):
	"""A workload.json as run_workload writes it, checked."""
	try:
		rec = json.loads(md.read_text(path, RECORD_MAX_BYTES))
	except (ValueError, RecursionError):
		raise md.DumpError(f"{md.printable(path)}: not JSON")
	c = md.Checker(path)
	c.obj(rec, "top level")
	s = rec.get("seconds")
	if isinstance(s, bool) or not isinstance(s, (int, float)) or not s > 0:
		c.fail("seconds", "wants a number > 0")
	for k in ("vmstat_before", "vmstat_after"):
		for name, v in c.obj(rec.get(k), k).items():
			c.int(v, f"{k}.{name}", -(1 << 63))
	return rec


def deltas(rec):
	"""{counter: after - before} of the counters both readings have."""
	b, a = rec["vmstat_before"], rec["vmstat_after"]
	return {k: a[k] - b[k] for k in a if k in b}


# -- a trace of the workload ----------------------------------------------------

TRACE_MAX_BYTES = 1 << 30
# One ftrace line: task-pid, [cpu], flags, timestamp, event, its fields.
TRACE_LINE = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>[0-9]+)\s+(?:\([^)]*\)\s+)?\[[0-9]+\]"
			r"\s+(?:\S+\s+)?[0-9]+\.[0-9]+:\s+(?P<event>\w+):\s?(?P<fields>.*)$")
TRACE_FIELD = re.compile(r"(\w+)=(\S+)")


def trace_int(fields, key):
	"""A field of an event as an integer (decimal or 0x hex); None if absent."""
	v = fields.get(key)
	try:
		return int(v, 0) if v is not None else None
	except ValueError:
		return None


def trace_alloc(fields, task):
	"""mm_page_alloc (__alloc_pages(), one a successful allocation): its order."""
	if fields.get("page") in ("(nil)", "0000000000000000", "0") or trace_int(fields, "order") is None:
		return {}
	return {f"trace:alloc_order{trace_int(fields, 'order')}": 1}


def trace_scanner(scanned, isolated):
	def count(fields, task):
		return {scanned: trace_int(fields, "nr_scanned") or 0,
			isolated: trace_int(fields, "nr_taken") or 0}
	return count


def trace_migrate(fields, task):
	"""mm_migrate_pages: migrate_pages()'s totals, the numbers it adds to vmstat."""
	return {"pgmigrate_success": trace_int(fields, "nr_succeeded") or 0,
		"thp_migration_success": trace_int(fields, "nr_thp_succeeded") or 0}


def trace_fault(fields, task):
	return {"pgfault": 1}


def trace_reclaim(fields, task):
	"""mm_vmscan_lru_shrink_inactive: the pages isolate_lru_folios() took,
	counted as pgscan_kswapd, _khugepaged or _direct by the task."""
	who = "kswapd" if task.startswith("kswapd") else \
		"khugepaged" if task.startswith("khugepaged") else "direct"
	return {f"pgscan_{who}": trace_int(fields, "nr_scanned") or 0}


# The events a trace is counted from, each as the counters it stands for:
# the vmstat counter the same kernel code adds to, or the order of an
# allocation ("trace:alloc_order<N>", which derive_allocs() turns into counts).
TRACE_EVENTS = {
	"mm_page_alloc": trace_alloc,
	"mm_compaction_isolate_migratepages": trace_scanner("compact_migrate_scanned",
							   "trace:compact_isolated_migrate"),
	"mm_compaction_isolate_freepages": trace_scanner("compact_free_scanned",
							 "trace:compact_isolated_free"),
	"mm_migrate_pages": trace_migrate,
	"page_fault_user": trace_fault,
	"page_fault_kernel": trace_fault,
	"mm_vmscan_lru_shrink_inactive": trace_reclaim,
}


def trace_counts(text, where="the trace"):
	"""{counter: total} of an ftrace log (trace or trace_pipe text) over
	TRACE_EVENTS, and {event: lines} of the events it holds; DumpError when
	no line is an event of TRACE_EVENTS."""
	out, seen = {}, {}
	for line in text.splitlines():
		m = TRACE_LINE.match(line)
		if not m or m.group("event") not in TRACE_EVENTS:
			continue
		ev = m.group("event")
		seen[ev] = seen.get(ev, 0) + 1
		fields = dict(TRACE_FIELD.findall(m.group("fields")))
		for k, v in TRACE_EVENTS[ev](fields, m.group("task").strip()).items():
			out[k] = out.get(k, 0) + v
	if not seen:
		raise md.DumpError(f"{md.printable(where)}: no event of {', '.join(TRACE_EVENTS)} "
				   "(an ftrace log: /sys/kernel/tracing/trace)")
	return out, seen


def read_trace(path):
	"""trace_counts() of a stored ftrace log of at most TRACE_MAX_BYTES."""
	return trace_counts(md.read_text(path, TRACE_MAX_BYTES), path)


# -- derived counters ------------------------------------------------------------

DERIVED_PREFIX = "derived:"


def mthp_allocs(delta):
	"""{order: allocations} of the mTHP stats below PMD order in delta."""
	out = {}
	for name, v in delta.items():
		o = mthp_order(name)
		if o is not None and 0 < o < PMD_ORDER:
			out[o] = out.get(o, 0) + v
	return out


PMD_ALLOC_COUNTERS = ("thp_fault_alloc", "thp_collapse_alloc", "thp_file_alloc")


def pmd_allocs(delta):
	"""PMD-sized THPs allocated: faults, khugepaged's collapses, shmem's."""
	return sum(delta.get(c, 0) for c in PMD_ALLOC_COUNTERS)


def derive_allocs(delta, traced):
	"""{derived counter: (value, how)} of the allocations per order: from the
	trace's mm_page_alloc events when traced has them, else from the counters."""
	orders = {int(k[len("trace:alloc_order"):]): v for k, v in traced.items()
		  if k.startswith("trace:alloc_order")}
	if orders:
		how = "counted: mm_page_alloc events of the trace"
		return {"alloc_order0": (orders.get(0, 0), how),
			"alloc_large": (sum(v for o, v in orders.items() if 0 < o < PMD_ORDER), how),
			"alloc_order9": (sum(v for o, v in orders.items() if o >= PMD_ORDER), how)}
	pages, _ = matched("pgalloc_*", delta)
	pmd, mthp = pmd_allocs(delta), mthp_allocs(delta)
	large_pages = sum(v << o for o, v in mthp.items())
	out = {"alloc_order9": (pmd, "counted: thp_fault_alloc + thp_collapse_alloc + thp_file_alloc"),
	       "alloc_large": (sum(mthp.values()), "counted: the mTHP sizes' *_alloc stats" if mthp else
			       "estimate: no counter here counts them (no mTHP stats): 0")}
	if pages is not None:
		out["alloc_order0"] = (max(0, pages - (pmd << PMD_ORDER) - large_pages),
				       "estimate: pgalloc_* less the pages of the counted large "
				       "allocations; a large allocation no counter names (slab, page "
				       "tables, readahead folios) counts as 2^order of them")
	return out


def derive_isolated(delta, traced):
	"""compact_isolated split by scanner: the trace's nr_taken, else the free
	scanner's as the destinations migrate_pages() asked for (success +
	fail: isolate_freepages() isolates until it has as many free pages as
	the migration scanner gave it folios; in a 6.1 guest's compact_memory
	exactly so), the migration scanner's the rest (it also takes folios
	that are put back unmigrated)."""
	if "trace:compact_isolated_migrate" in traced:
		how = "counted: nr_taken of the trace's isolate events"
		return {"compact_isolated_migrate": (traced["trace:compact_isolated_migrate"], how),
			"compact_isolated_free": (traced.get("trace:compact_isolated_free", 0), how)}
	iso = delta.get("compact_isolated")
	if iso is None:
		return {}
	free = min(iso, max(0, delta.get("pgmigrate_success", 0) + delta.get("pgmigrate_fail", 0)))
	how = ("estimate: the free scanner's as pgmigrate_success + pgmigrate_fail (every "
	       "migration's destination, not only compaction's), the migration scanner's the rest")
	return {"compact_isolated_migrate": (iso - free, how), "compact_isolated_free": (free, how)}


def counts(delta, traced=None):
	"""The counters the kernels' maps read: delta, with what the trace counts
	in place of the counters it stands for, and the derived counters.
	({counter: value}, {counter: how it was made} of the derived and traced ones)."""
	traced = traced or {}
	out, how = dict(delta), {}
	for k, v in traced.items():
		if not k.startswith("trace:"):
			out[k] = v
			how[k] = "counted: the trace's events"
	for name, (v, h) in {**derive_allocs(delta, traced), **derive_isolated(delta, traced)}.items():
		out[DERIVED_PREFIX + name] = v
		how[DERIVED_PREFIX + name] = h
	return out, how


# Counters the derived ones are made of, and which kernels' ops hold the parts:
# not left out, though no kernel names them.
SPLIT_INTO = {
	"pgalloc_*": "derived:alloc_order0, derived:alloc_large, derived:alloc_order9",
	**{c: "derived:alloc_order9" for c in PMD_ALLOC_COUNTERS},
	"pgmigrate_fail": "derived:compact_isolated_free",
	"compact_isolated": "derived:compact_isolated_migrate (taken in scan/compaction's op), "
			    "derived:compact_isolated_free (migrate/order0's destination)",
}


# -- the mapping ---------------------------------------------------------------

def kernel_map(kernels, where="the dump"):
	"""{kernel: [(counter pattern, ops per event)]} of the kernels whose
	metadata names vmstat counters; DumpError on a malformed list."""
	out = {}
	for i, k in enumerate(kernels):
		v = k.get("vmstat") or []
		if not isinstance(v, list):
			raise md.DumpError(f"{where}: kernels[{i}].vmstat: not a list")
		terms = []
		for j, t in enumerate(v):
			ok = (isinstance(t, dict) and isinstance(t.get("counter"), str) and t["counter"]
			      and isinstance(t.get("ops_per_event"), (int, float))
			      and not isinstance(t.get("ops_per_event"), bool))
			if not ok:
				raise md.DumpError(f"{where}: kernels[{i}].vmstat[{j}]: want "
						   "{counter: text, ops_per_event: number}")
			terms.append((t["counter"], float(t["ops_per_event"])))
		if terms:
			out[k["name"]] = terms
	return out


def matched(pattern, delta):
	"""(sum of the deltas the pattern names, [their names]); no name: None."""
	names = [n for n in delta if fnmatch.fnmatchcase(n, pattern)] if pattern.endswith("*") \
		else [pattern] if pattern in delta else []
	return (sum(delta[n] for n in names) if names else None), sorted(names)


def kernel_ops(kmap, delta):
	"""[{kernel, terms: [{counter, matches, delta, ops_per_event}], ops, note}]
	in kmap's order; a counter this kernel's vmstat lacks is a term with
	delta None (counted as no event: the kernel has no such path)."""
	out = []
	for kernel, terms in kmap.items():
		rows, ops, notes = [], 0.0, []
		for pat, per in terms:
			d, names = matched(pat, delta)
			rows.append({"counter": pat, "matches": names, "delta": d, "ops_per_event": per})
			if d is None:
				notes.append(f"{pat} not in /proc/vmstat")
			else:
				ops += per * d
		if ops < 0:
			notes.append(f"the terms sum to {md.fmt(ops)}: taken as 0")
			ops = 0.0
		out.append({"kernel": kernel, "terms": rows, "ops": ops, "note": "; ".join(notes) or None})
	return out


def unmapped(kmap, delta, n=UNMAPPED_SHOWN):
	"""The n counters that grew most and no kernel maps: what the
	projection leaves out."""
	pats = [p for terms in kmap.values() for p, _ in terms] + list(SPLIT_INTO)
	rest = [(k, v) for k, v in delta.items() if v > 0 and mthp_order(k) is None and
		not k.startswith((DERIVED_PREFIX, "trace:")) and
		not any(matched(p, {k: v})[1] for p in pats)]
	return sorted(rest, key=lambda kv: (-kv[1], kv[0]))[:n]


# -- the benchmarks ------------------------------------------------------------

def timed_benches(dump, kernels):
	return [b for b in dump.native.values() if b.kernel in kernels and b.timed and b.threads == 1
		and b.layout and b.mix and b.ram]


def choose(dump, kernels, mix, ram, mem_total):
	"""(mix, ram, why) of the benchmarks to project with: the ones given,
	else this machine's kpageflags mix when the dump has it, else the first
	mix; the RAM size nearest MemTotal (on a log scale), else the largest."""
	benches = timed_benches(dump, kernels)
	if not benches:
		return None, None, "the dump has none of the mapped kernels on a layout"
	mixes = md.first_seen(b.mix for b in benches)
	if mix is not None and mix not in mixes:
		raise md.DumpError(f"--mix {mix}: the mapped kernels ran on {', '.join(mixes)}")
	if mix is None:
		kpf = [m for m in mixes if m.startswith(KPF_PREFIX)]
		mix = kpf[0] if kpf else mixes[0]
	rams = sorted({b.ram for b in benches if b.mix == mix})
	if ram is not None and ram not in rams:
		raise md.DumpError(f"--ram {md.format_size(ram)}: on mix {mix} the mapped kernels ran "
				   f"at {', '.join(md.format_size(r) for r in rams)}")
	if ram is None:
		ram = min(rams, key=lambda r: abs(math.log(r / mem_total))) if mem_total else rams[-1]
	return mix, ram, None


def bench_of(dump, kernel, layout, mix, ram):
	"""The benchmark of kernel on layout at mix and ram: the variant without
	parameters, else the first seen; None if the dump has none."""
	cands = [b for b in timed_benches(dump, (kernel,))
		 if b.layout == layout and b.mix == mix and b.ram == ram and b.reps]
	return next((b for b in cands if not b.variant), cands[0] if cands else None)


def kernel_ram(dump, kernel, ref, mix, ram):
	"""The RAM size to take kernel's per-op times at: ram where the reference
	layout ran it there, else the dump's nearest size (on a log scale) where
	it did (the quick profile runs the kernels that change their memmap at
	256 MiB only, not at the headline size); ram when it ran nowhere."""
	rams = sorted({b.ram for b in timed_benches(dump, (kernel,))
		       if b.layout == ref and b.mix == mix and b.reps})
	if not rams or ram in rams or not ram:
		return ram
	return min(rams, key=lambda r: (abs(math.log(r / ram)), -r))


def per_op_delta(ref, b, alpha, margin=st.DEFAULT_MARGIN):
	"""{ns_per_op, delta_ns, ci, n, verdict} of b against ref (both Bench);
	ci None when either side has fewer than 2 rounds; the verdict is the
	reports' one (st.verdict() on the ratio of the rounds, paired where the
	dump gives rounds, as delta_ns and ci then are)."""
	va, vb = ref.values("real_time"), b.values("real_time")
	pa, pb, paired = md.round_pairs(ref, b, "real_time")
	est, ci = st.paired_shift(pa, pb, alpha) if paired else st.hodges_lehmann(va, vb, alpha)
	return {"ns_per_op": statistics.median(vb), "delta_ns": est,
		"ci": list(ci) if ci else None, "n": [len(va), len(vb)],
		"verdict": st.compare(pa, pb, alpha, margin=margin, paired=paired).verdict}


# -- the projection ------------------------------------------------------------

def project(dump, rec, alpha=st.DEFAULT_ALPHA, mix=None, ram=None, trace=None):
	"""The projection as a JSON-able dict (see the module's text); trace: the
	(counts, events) of read_trace() for the workload, or None."""
	kmap = kernel_map(dump.kernels)
	delta, how = counts(deltas(rec), trace[0] if trace else None)
	secs = rec["seconds"]
	ops = kernel_ops(kmap, delta)
	used = [o for o in ops if o["ops"] > 0]
	mix, ram, why = choose(dump, [o["kernel"] for o in used] or list(kmap), mix, ram,
			       rec.get("mem_total_bytes"))
	ref = dump.reference
	layouts = dump.layout_names
	for o in ops:
		o["ops_per_second"] = o["ops"] / secs
		o["layouts"] = {}
		kram = o["ram_bytes"] = kernel_ram(dump, o["kernel"], ref, mix, ram) if mix else ram
		if kram != ram:
			o["note"] = "; ".join(filter(None, [o["note"], (
				f"per-op times at {md.format_size(kram)}: the dump has none at "
				f"{md.format_size(ram)}, nor at a size nearer")]))
		rb = bench_of(dump, o["kernel"], ref, mix, kram) if mix else None
		for lay in layouts:
			b = bench_of(dump, o["kernel"], lay, mix, kram) if mix else None
			if b is None or rb is None:
				o["layouts"][lay] = {"why": f"not run on {lay if b is None else ref} "
						     f"(mix {mix}, RAM {md.format_size(kram) if kram else '-'})"}
			else:
				o["layouts"][lay] = per_op_delta(rb, b, alpha)
				o["layouts"][lay]["benchmark"] = b.name
	total = {}
	for lay in layouts:
		s, lo, hi, whys = 0.0, 0.0, 0.0, []
		for o in used:
			c = o["layouts"][lay]
			if "why" in c:
				whys.append(f"{o['kernel']} {c['why']}")
				continue
			r = o["ops_per_second"]
			s += r * c["delta_ns"]
			if c["ci"] is None:
				whys.append(f"{o['kernel']}: no interval (n = {c['n'][0]}, {c['n'][1]})")
			else:
				lo, hi = lo + r * c["ci"][0], hi + r * c["ci"][1]
		unavailable = [w for w in whys if "not run" in w] + ([why] if why else [])
		whys += [why] if why else []
		total[lay] = {"reference": lay == ref,
			      "ns_per_second": None if unavailable else s,
			      "ci": None if whys else [lo, hi],
			      "why": "; ".join(whys) or None}
	missing = any("why" in c for o in used for c in o["layouts"].values())
	return {"workload": {k: rec.get(k) for k in ("command", "seconds", "exit_status", "host",
							 "mem_total_bytes", "started")},
		"complete_with": complete_with([o["kernel"] for o in used] if missing else [], mix, ram,
					       layouts),
		"alpha": alpha, "coverage_at_least": max(0.0, 1 - len(used) * alpha),
		"reference_layout": ref, "mix": mix, "ram_bytes": ram, "why": why,
		"kernels": ops, "projected": total,
		"unmapped": [{"counter": k, "delta": v} for k, v in unmapped(kmap, delta)],
		"trace_events": trace[1] if trace else None,
		"derived": [{"counter": k, "value": delta[k], "how": h} for k, h in how.items()],
		"split_into": SPLIT_INTO,
		"footprint": footprint(dump)}


def complete_with(kernels, mix, ram, layouts):
	"""The one mdbench command whose dump holds what a projection lacking some
	kernel lacks: every kernel the workload took ops of (kernels), on every
	layout at its mix and RAM size; None when nothing is missing."""
	if not kernels:
		return None
	sel = "|".join(re.escape(k) for k in kernels)
	return (f"mdbench --benchmark_filter='^({sel})/' --layout={','.join(layouts)}" +
		(f" --mix={mix}" if mix else "") + (f" --ram={md.format_size(ram)}" if ram else "") +
		" --out=DIR, then project DIR")


def footprint(dump):
	"""{mix, bytes_per_GiB: {layout: bytes}} of the dump's kpageflags mix
	(this machine's own), or {why}."""
	fp = mr.footprint_per_mix(dump)
	mixes = md.first_seen(m for m, _, _ in fp if m.startswith(KPF_PREFIX))
	if not mixes:
		return {"why": "the dump has no footprint on a kpageflags mix (collect and project "
			"take one when run as root: /proc/kpageflags is root's)"}
	m = mixes[0]
	return {"mix": m, "what": mr.footprint_what(dump),
		"bytes_per_GiB": {l: v for (mm, l, var), v in fp.items() if mm == m and not var}}


# -- text ----------------------------------------------------------------------

def us(ns):
	return md.fmt(ns / 1e3)


def markdown(p):
	"""The projection as markdown (scripts/project's output, projection.md)."""
	w = p["workload"]
	ref = p["reference_layout"]
	level = f"{100 * (1 - p['alpha']):g}%"
	out = ["# Projection onto a workload", ""]
	out.append(f"Workload: `{md.printable(w['command'] or 'stored vmstat readings')}`, "
		   f"{w['seconds']:.3f} s wall" +
		   (f", {exit_text(w['exit_status'])}" if w["exit_status"] is not None else "") +
		   (f", on {md.printable(w['host'])}" if w["host"] else "") + ".")
	if p["why"]:
		out += ["", f"No projection: {p['why']}."]
	else:
		out.append(f"Per-op times: mix {md.printable(p['mix'])}, RAM "
			   f"{md.format_size(p['ram_bytes'])}, against {ref}; intervals at {level} "
			   f"per kernel, summed (covers the sum at >= "
			   f"{100 * p['coverage_at_least']:g}%, Bonferroni).  /proc/vmstat counts "
			   "the whole machine: what else ran meanwhile counts too.")
	out += ["", "## Kernels the workload's vmstat counters map to", ""]
	layouts = list(p["projected"])
	rows = []
	for o in p["kernels"]:
		terms = ", ".join(f"{t['counter']} {'n/a' if t['delta'] is None else t['delta']}"
				  f" x {md.fmt(t['ops_per_event'])}" for t in o["terms"])
		cells = []
		for lay in layouts:
			c = o["layouts"].get(lay, {})
			if lay == ref:
				cells.append(f"{md.fmt(c['ns_per_op'])} ns" if "ns_per_op" in c else "-")
			elif "why" in c:
				cells.append("unavailable")
			else:
				ci = c["ci"]
				cells.append(f"{c['delta_ns']:+.3g} ns" + (
					f" [{ci[0]:+.3g}, {ci[1]:+.3g}]" if ci else " (no interval)") +
					f", {c['verdict']}")
		rows.append([o["kernel"], terms + (f" ({o['note']})" if o["note"] else ""),
			     md.fmt(o["ops"]), md.fmt(o["ops_per_second"]), *cells])
	out += md.md_table(["kernel", "counter delta x ops/event", "ops", "ops/s",
			    *[f"{l} ns/op" if l == ref else f"{l} - {ref} per op" for l in layouts]],
			   rows)
	out += ["", f"## Projected metadata time per second of the workload, against {ref}", ""]
	rows = []
	for lay, t in p["projected"].items():
		if t["reference"]:
			rows.append([lay, "reference", "", ""])
			continue
		v = t["ns_per_second"]
		ci = t["ci"]
		rows.append([lay, "unavailable" if v is None else f"{us(v)} us/s",
			     f"[{us(ci[0])}, {us(ci[1])}] us/s" if ci else "-",
			     "-" if v is None else f"{v / 1e7:+.4f}%"])
	out += md.md_table(["layout", "projected", f"{level} interval", "of one CPU"], rows)
	notes = [f"{lay}: {t['why']}" for lay, t in p["projected"].items() if t["why"]]
	if notes:
		out += [""] + [f"- {md.printable(n)}" for n in notes]
	if p.get("complete_with"):
		out += ["", f"Complete it with `{md.printable(p['complete_with'])}`."]
	out += ["", "## Footprint on this machine's mix", ""]
	fp = p["footprint"]
	if "why" in fp:
		out.append(f"Unavailable: {fp['why']}.")
	else:
		b = fp["bytes_per_GiB"]
		rb = b.get(ref)
		out.append(f"Mix {md.printable(fp['mix'])}, bytes of metadata per GiB of RAM "
			   f"({md.printable(fp.get('what', 'memmap + live descriptors'))}):")
		out.append("")
		out += md.md_table(["layout", "bytes per GiB", f"against {ref}"],
				   [[l, md.fmt(v), f"{v / rb - 1:+.1%}" if rb and l != ref else ""]
				    for l, v in b.items()])
	if p.get("derived"):
		out += ["", "## Counters made from others", ""]
		out.append("Where one event is not one op (`pgalloc_*` adds 1 << order an "
			   "allocation) the kernels read these" +
			   (f"; the trace held {', '.join(f'{e} x{n}' for e, n in p['trace_events'].items())}"
			    if p.get("trace_events") else "") + ":")
		out.append("")
		out += md.md_table(["counter", "value", "how"],
				   [[d["counter"], md.fmt(d["value"]), md.printable(d["how"])]
				    for d in p["derived"]])
	out += ["", "## Counters that grew and no kernel maps", ""]
	out.append(", ".join(f"{u['counter']} +{u['delta']}" for u in p["unmapped"]) or "none")
	return re.sub(r"\n{3,}", "\n\n", "\n".join(out)) + "\n"	# md_table ends in a blank line


def write(p, out_dir):
	"""projection.json and projection.md into out_dir; their paths."""
	os.makedirs(out_dir, exist_ok=True)
	pj, pm = os.path.join(out_dir, "projection.json"), os.path.join(out_dir, "projection.md")
	with open(pj, "w") as f:
		json.dump(p, f, indent=1)
		f.write("\n")
	with open(pm, "w") as f:
		f.write(markdown(p))
	return pj, pm


def write_record(rec, path):
	with open(path, "w") as f:
		json.dump(rec, f, indent=1)
		f.write("\n")


# -- collect's hook ------------------------------------------------------------

def add_workload_option(p):
	p.add_argument("--workload", metavar="CMD",
		       help="run the shell command CMD first, /proc/vmstat read before and after, "
		       "and project each layout's metadata time onto it (projection.md)")


def workload_step(c, step):
	"""collect's first step with --workload: the command run once, its record
	in workload.json.  c: the Collect; step: its Step class."""
	def run():
		rec = run_workload(c.args.workload, c.child, c.path("workload.log"))
		write_record(rec, c.path("workload.json"))
		c.add("workload.json", "--workload: the command, its wall time, /proc/vmstat "
		      "before and after")
		c.add("workload.log", "--workload: its output")
		if rec["exit_status"]:
			c.partial.append(f"workload: {exit_text(rec['exit_status'])} (see workload.log)")
		return f"{rec['seconds']:.2f} s, {exit_text(rec['exit_status'])}"
	return step("workload", f"sh -c {c.args.workload!r}, /proc/vmstat before and after", run)


def bundle_projection(c, doc):
	"""collect's bundle with --workload: projection.md/json from the merged
	dump and workload.json."""
	if not os.path.exists(c.path("workload.json")):
		return
	if not doc:
		c.note("projection: no merged dump to project with")
		return
	try:
		p = project(md.Dump(c.path("mdbench.json")), read_record(c.path("workload.json")))
	except md.DumpError as e:
		c.note(f"projection: {e}")
		return
	write(p, c.work)
	c.add("projection.md", "the workload's projected metadata time per layout (scripts/project)")
	c.add("projection.json", "the same, as JSON")


def kernels_with_ops(listing_kernels, rec):
	"""The kernels (of an mdbench --list=json) the workload took at least one
	op of: what scripts/project runs when it has no dump."""
	return [o["kernel"] for o in kernel_ops(kernel_map(listing_kernels, "mdbench --list=json"),
						counts(deltas(rec))[0]) if o["ops"] > 0]
