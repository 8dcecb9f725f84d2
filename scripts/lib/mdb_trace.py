"""An allocation trace for mdbench --desc-age=trace:FILE, sized from a
workload's /proc/vmstat deltas (scripts/trace).

The trace format is machine/age.h's: one event a line, 'a ID ORDER KIND'
(allocate folio ID of ORDER, anon or file) or 'f ID' (free it), '#'
comments.  /proc/vmstat counts pages, not allocations, and splits them
by neither order nor kind, so the trace takes what it does say:

  - THP allocations (order 9): thp_fault_alloc and thp_collapse_alloc
    anon, thp_file_alloc file;
  - every other allocated page (the sum of pgalloc_* less 512 a THP) an
    order-0 folio: /proc/vmstat has no count per order below a THP (the
    mTHP orders' counts are in /sys/kernel/mm/transparent_hugepage/
    hugepages-*/stats), nor per kind (slab, page tables and the rest are
    in pgalloc_* too; the trace stands for them as order-0 folios);
  - order-0 folios file in the share nr_file_pages / (nr_file_pages +
    nr_anon_pages) of the second reading, anon otherwise;
  - pages freed per page allocated: pgfree / sum of pgalloc_*.

The machine boots with the trace filling --fill of its RAM (default: the
share anon and file pages hold of anon, file and free pages in the second
reading), allocating at that mix; then --events more events, each an
allocation at the mix or, with the share pgfree gives, the free of a live
folio chosen at random, never past --fill + 10% of the RAM.  Seeded: the
same readings, size and seed give the same file."""

import random
import re

import mdb_dump as md
import mdb_project as mp

THP_ORDER = 9
THP_ANON = ("thp_fault_alloc", "thp_collapse_alloc")
THP_FILE = ("thp_file_alloc",)
FILL_SLACK = 0.10


def rates(rec):
	"""What the trace follows, from a workload record (mdb_project's):
	{pages, thp_anon, thp_file, order0, file_share, free_per_alloc,
	fill}; DumpError when the readings lack what it needs."""
	d = mp.deltas(rec)
	after = rec["vmstat_after"]
	alloc = [k for k in d if k.startswith("pgalloc_")]
	if not alloc or "pgfree" not in d:
		raise md.DumpError("the vmstat readings have no pgalloc_* or no pgfree counter")
	pages = sum(d[k] for k in alloc)
	if pages <= 0:
		raise md.DumpError(f"the workload allocated {pages} pages (sum of pgalloc_* deltas): "
				   "nothing to follow")
	thp_anon = sum(d.get(k, 0) for k in THP_ANON)
	thp_file = sum(d.get(k, 0) for k in THP_FILE)
	order0 = pages - (thp_anon + thp_file) * (1 << THP_ORDER)
	if order0 < 0 or thp_anon < 0 or thp_file < 0 or d["pgfree"] < 0:
		raise md.DumpError(f"the vmstat deltas disagree: {pages} pages allocated, "
				   f"{thp_anon + thp_file} THPs of 512, {d['pgfree']} freed")
	anon, file_, free = (after.get(k) for k in ("nr_anon_pages", "nr_file_pages", "nr_free_pages"))
	if anon is None or file_ is None or free is None or anon + file_ <= 0:
		raise md.DumpError("the second vmstat reading has no nr_anon_pages, nr_file_pages "
				   "or nr_free_pages")
	return {"pages": pages, "thp_anon": thp_anon, "thp_file": thp_file, "order0": order0,
		"file_share": file_ / (anon + file_), "free_per_alloc": d["pgfree"] / pages,
		"fill": (anon + file_) / (anon + file_ + free)}


def generate(r, ram_pages, fill=None, events=None, seed=1):
	"""(lines, summary): the trace's lines, and what it holds."""
	rng = random.Random(seed)
	fill = r["fill"] if fill is None else fill
	target = int(ram_pages * fill)
	cap = min(ram_pages, int(ram_pages * (fill + FILL_SLACK)))
	weights = (r["order0"], r["thp_anon"], r["thp_file"])
	kinds = ((0, "anon"), (THP_ORDER, "anon"), (THP_ORDER, "file"))
	p_free = r["free_per_alloc"] / (1 + r["free_per_alloc"])
	live, order_of, index = [], {}, {}
	pages = peak = next_id = allocs = frees = 0
	lines = []

	def alloc():
		nonlocal pages, peak, next_id, allocs
		order, kind = rng.choices(kinds, weights)[0]
		if order == 0 and rng.random() < r["file_share"]:
			kind = "file"
		if pages + (1 << order) > cap:
			return False
		lines.append(f"a {next_id} {order} {kind}")
		index[next_id] = len(live)
		live.append(next_id)
		order_of[next_id] = order
		pages += 1 << order
		peak = max(peak, pages)
		next_id += 1
		allocs += 1
		return True

	def free():
		nonlocal pages, frees
		i = rng.randrange(len(live))
		fid = live[i]
		live[i] = live[-1]
		index[live[i]] = i
		live.pop()
		del index[fid]
		pages -= 1 << order_of.pop(fid)
		lines.append(f"f {fid}")
		frees += 1

	while pages < target and alloc():
		pass
	boot = allocs
	if events is None:
		events = 2 * boot
	for _ in range(events):
		if live and (rng.random() < p_free or not alloc()):
			free()
		elif not live:
			alloc()
	return lines, {"allocs": allocs, "frees": frees, "boot_allocs": boot, "events": allocs + frees,
		       "peak_pages": peak, "live_pages": pages, "target_pages": target,
		       "cap_pages": cap}


def header(r, source, ram_bytes, fill, seed, s):
	"""The '#' lines that say where the trace came from."""
	return [f"# memdesc-bench allocation trace (machine/age.h format) written by scripts/trace",
		f"# from {source}: {r['pages']} pages allocated (pgalloc_*), {r['thp_anon']} anon and "
		f"{r['thp_file']} file THPs, {r['order0']} other pages as order-0 folios",
		f"# file share of order 0 {r['file_share']:.4f}, pages freed per page allocated "
		f"{r['free_per_alloc']:.4f}",
		f"# RAM {md.format_size(ram_bytes)}, fill {fill:.4f} ({s['target_pages']} pages, at most "
		f"{s['cap_pages']}), seed {seed}: {s['allocs']} allocations ({s['boot_allocs']} at boot), "
		f"{s['frees']} frees, peak {s['peak_pages']} pages, {s['live_pages']} at the end"]


# -- a raw ftrace log of the kmem events, converted ------------------------------

FTRACE_MAX_LINE = 4096		# an ftrace line is some 200 bytes; longer is not one
FTRACE_MAX_LINES = 100_000_000
FTRACE_MAX_BYTES = 1 << 30	# the log is read whole
MIGRATE_MOVABLE = 1		# include/linux/mmzone.h
MIGRATE_PCPTYPES = 3		# unmovable, movable, reclaimable: the types a trace places
MAX_PAGE_ORDER = 10
FTRACE_EVENT = re.compile(r"\s(mm_page_alloc|mm_page_free|mm_page_free_batched|mm_page_pcpu_drain|"
			  r"mm_page_alloc_zone_locked|mm_page_alloc_extfrag):\s(.*)$")


def ftrace_fields(text):
	"""{name: value} of an event's 'name=value' fields."""
	return dict(f.split("=", 1) for f in text.split() if "=" in f)


def _kind(mt, gfp):
	"""anon, file or kernel: movable allocations with __GFP_ZERO
	(vma_alloc_zeroed_movable_folio()) or GFP_TRANSHUGE (a THP fault) anon,
	other movable ones file (a heuristic: mm_filemap_add_to_page_cache
	would say it exactly), the rest kernel (slab, page tables, ...)."""
	if mt != MIGRATE_MOVABLE:
		return "kernel"
	return "anon" if "__GFP_ZERO" in gfp or "GFP_TRANSHUGE" in gfp else "file"


def _int(f, name, n, event):
	try:
		return int(f[name], 0)
	except (KeyError, ValueError):
		raise ValueError(f"line {n}: {event} without its {name}")


def from_ftrace(lines):
	"""(trace lines, stats) from a raw ftrace log of the kmem page events
	(include/trace/events/kmem.h), as placed events at the kernel's pfns
	(machine/age.h): mm_page_alloc 'a PFN ORDER KIND MT'; mm_page_free and
	mm_page_free_batched 'f PFN ORDER' (a batched free is also an
	mm_page_free where free_pages_prepare() traces it: the replay takes a
	second free of a free page as nothing); mm_page_pcpu_drain 'd PFN
	ORDER'; mm_page_alloc_zone_locked with percpu_refill=1 'r PFN ORDER';
	mm_page_alloc_extfrag 'm PFN MT' for each pageblock of the fallback
	block that now has a type (alloc_migratetype when change_ownership=1,
	else fallback_migratetype).  pfn in hex since 5.x, decimal before.
	Dropped, counted: a failed allocation (pfn -1), another migratetype
	(highatomic, CMA, isolate), an order above MAX_PAGE_ORDER, a zone_locked
	allocation that mm_page_alloc traces again.  Raises ValueError on a line
	over FTRACE_MAX_LINE bytes, a kmem event without its fields, or no
	event."""
	out, heads = [], {}
	st = {"events": 0, "allocs": 0, "frees": 0, "drains": 0, "refills": 0, "pageblocks": 0,
	      "dropped": 0}
	for n, line in enumerate(lines, 1):
		if n > FTRACE_MAX_LINES:
			raise ValueError(f"more than {FTRACE_MAX_LINES} lines")
		if len(line) > FTRACE_MAX_LINE:
			raise ValueError(f"line {n}: over {FTRACE_MAX_LINE} bytes")
		m = FTRACE_EVENT.search(line.rstrip("\n"))
		if not m:
			continue
		st["events"] += 1
		ev, f = m.group(1), ftrace_fields(m.group(2))
		pfn = _int(f, "pfn", n, ev)
		if ev == "mm_page_alloc_extfrag":
			mt = _int(f, "alloc_migratetype" if _int(f, "change_ownership", n, ev) else
				  "fallback_migratetype", n, ev)
			fo, po = _int(f, "fallback_order", n, ev), _int(f, "pageblock_order", n, ev)
			if not 0 <= pfn < 1 << 32 or not 0 <= mt < MIGRATE_PCPTYPES or not 0 <= po <= fo <= MAX_PAGE_ORDER:
				st["dropped"] += 1
				continue
			step = 1 << po
			first = pfn & ~(step - 1)
			for pb in range(first, first + max(step, 1 << fo), step):
				out.append(f"m {pb} {mt}")
				st["pageblocks"] += 1
			continue
		order = _int(f, "order", n, ev)
		if not 0 <= pfn < 1 << 32 or not 0 <= order <= MAX_PAGE_ORDER or pfn % (1 << order):
			st["dropped"] += 1		# pfn=0xffffffffffffffff: the allocation failed
			continue
		if ev == "mm_page_alloc":
			mt = _int(f, "migratetype", n, ev)
			if not 0 <= mt < MIGRATE_PCPTYPES:
				st["dropped"] += 1
				continue
			out.append(f"a {pfn} {order} {_kind(mt, f.get('gfp_flags', ''))} {mt}")
			heads[pfn] = order
			st["allocs"] += 1
		elif ev in ("mm_page_free", "mm_page_free_batched"):
			out.append(f"f {pfn} {order}")
			if heads.get(pfn) == order:
				del heads[pfn]
			st["frees"] += 1
		elif ev == "mm_page_pcpu_drain":
			out.append(f"d {pfn} {order}")
			st["drains"] += 1
		elif f.get("percpu_refill", "1") == "1":	# mm_page_alloc_zone_locked
			out.append(f"r {pfn} {order}")
			st["refills"] += 1
		else:
			st["dropped"] += 1
	if not st["events"]:
		raise ValueError("no mm_page_alloc or mm_page_free event")
	st["live"] = len(heads)
	return out, st
