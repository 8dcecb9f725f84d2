"""counter and kcounter: a perf counter per op, or a counter a kernel
reports itself, as a heat map of kernels (rows) by layout and RAM
(columns); a perf counter that is 0 everywhere gets a sentence in the
report's counters section instead."""

import mdb_dump as md
import mdb_report as mr

from figures.figure import Figure, Kind, timed
from figures.heatmap import heatmaps

# Per-benchmark fields that describe the benchmark's size, not what it
# measured (results/SCHEMA.md): shown beside the times, not as counters.
DESCRIPTIVE = (mr.WORKING_SET, "ram_over_llc")
# Kernel counters that are the kernel's set-up, not what it measured
# (results/SCHEMA.md's kernel counters): a table of the values, no figure.
SETUP = ("workers", "ops_per_eviction", "batch")


def zero_counters(dumps):
	"""Counters counted and 0 in every benchmark of every dump."""
	seen, nonzero = set(), set()
	for d in dumps:
		avail = d.counters_available()
		for b in d.native.values():
			if not b.timed:
				continue
			for c in avail:
				vals = b.values(c)
				if vals:
					seen.add(c)
					if any(vals):
						nonzero.add(c)
	return [c for c in md.first_seen(c for d in dumps for c in d.counters_available())
		if c in seen and c not in nonzero]


def kernel_counters(dumps, native):
	"""The kernels' own counters (mdb_counter(): results/SCHEMA.md's
	kernel counters): numeric fields of timed benchmarks that no perf
	counter, time, size or set-up field is, first-seen order."""
	perf = {c for d in dumps for c in d.counters_available()}
	skip = perf | set(md.TIME_METRICS) | set(DESCRIPTIVE) | set(SETUP)
	return md.first_seen(m for b in native for m in b.metrics() if m not in skip)


def setup_parameters(p):
	"""The values the kernels set themselves up with (SETUP), per kernel
	and layout over every RAM size, as a section of report.md: what a
	kernel ran with, not what it measured."""
	head = False
	for d in p.dumps:
		rows = {}
		for b in d.native.values():
			for f in SETUP:
				if b.layout and b.timed and b.values(f):
					rows.setdefault((f, b.kernel, b.variant), {}).setdefault(
						b.layout, set()).update(b.values(f))
		if not rows:
			continue
		if not head:
			p.md("## Set-up parameters\n")
			p.md("What a kernel chose for its run (results/SCHEMA.md's kernel counters), "
			     "over every RAM size: not measurements, so no figure.\n")
			head = True
		layouts = [l for l in d.layout_names if any(l in per for per in rows.values())]
		p.per_dump(d)
		p.table(["parameter", "kernel", "variant", *layouts],
			[[f, k, md.variant_label(v) or "-"] +
			 [range_text(per[l]) if l in per else "-" for l in layouts]
			 for (f, k, v), per in rows.items()])


def range_text(values):
	lo, hi = min(values), max(values)
	return md.fmt(lo) if lo == hi else f"{md.fmt(lo)}..{md.fmt(hi)}"


def plan_perf(dumps):
	"""A heat map per perf counter counted somewhere and not 0 throughout."""
	native = timed(dumps, "native")
	zero = set(zero_counters(dumps))
	out = []
	for c in md.first_seen(c for d in dumps for c in d.counters_available()):
		cells = sum(1 for b in native if b.has(c) or b.error)
		if c not in zero and any(b.has(c) for b in native):
			out.append(Figure(f"counter-{md.slug(c)}", "counter", (c,), cells))
	return out


def plan_own(dumps):
	"""A heat map per counter the kernels report themselves."""
	native = timed(dumps, "native")
	return [Figure(f"kcounter-{md.slug(c)}", "kcounter", (c,), sum(1 for b in native if b.has(c)))
		for c in kernel_counters(dumps, native)]


def draw(p, name, counter):
	"""A heat map per dump: the counter's median (per op for a perf
	counter, as the kernel reports it for its own) for each kernel (row)
	by layout and RAM (column), coloured against the reference."""
	maps, tables = [], []
	perf = any(counter in d.counters_available() for d in p.dumps)
	per = " per op" if perf else ""
	for d in p.dumps:
		cells = {}
		counted = counter in d.counters_available()
		for b in p.native[id(d)].at.values():
			if b.values(counter) or (b.error and counted):
				cells[(mr.row_key(b), (b.layout, b.ram))] = b
		if not cells:
			p.md(md.md_cell(f"{d.label}: {counter}: {d.why_missing(counter)}") + "\n")
			continue
		order = {n: i for i, n in enumerate(d.layout_names)}
		rows = md.first_seen(r for r, _ in cells)
		cols = sorted({c for _, c in cells}, key=lambda c: (order.get(c[0], 0), c[1]))
		heat = {}
		for (r, (layout, ram)), b in cells.items():
			v = mr.median(b.values(counter)) if not b.error else None
			ref = cells.get((r, (d.reference, ram)))
			rv = mr.median(ref.values(counter)) if ref and ref.values(counter) else None
			colour = v if not perf else v / rv if v is not None and rv else None
			heat[(r, (layout, ram))] = (colour, md.fmt(v) if v is not None else "failed",
						    False)
		against = f" (colour: against {d.reference})" if perf else ""
		maps.append((f"{p.label(d)}: {counter}{per}{against}",
			     rows, cols, heat))
		tables.append((d, rows, cols, cells))
	fig = heatmaps(p, maps, f"log2 of {counter} / reference's" if perf else counter,
			    absolute=not perf)
	p.save(fig, name, f"{counter}{per}")
	with p.appendix(f"{counter}{per}"):
		for d, rows, cols, cells in tables:
			p.per_dump(d)
			layouts = md.first_seen(l for l, _ in cols)
			labels = mr.row_labels(rows)
			t = []
			for r in rows:
				for ram in sorted({c[1] for c in cols}):
					bs = [cells.get((r, (l, ram))) for l in layouts]
					if any(bs):
						t.append([labels[r], md.format_size(ram)] +
							 [mr.value_cell(b, counter) if b and not b.error else
							  d.missing_cell(b, counter) if b else "-" for b in bs])
			p.table(["kernel", "RAM", *[f"{l} {counter}{'/op' if perf else ''}"
						       for l in layouts]], t)


PERF = Kind("counter", draw, "## Counters per op", "counter-<name>",
	    "a per-op perf counter as a heat map, kernels by layout and RAM; a "
	    "counter that is 0 everywhere gets a sentence, not a figure")
OWN = Kind("kcounter", draw, "## The kernels' own counters", "kcounter-<name>",
	   "a counter a kernel reports itself (e.g. the share of a cycle spent on "
	   "metadata), as a heat map, kernels by layout and RAM")
