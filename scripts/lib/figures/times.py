"""time: ns/op against modelled RAM per kernel, a panel per (dump, mix),
one colour per layout, one line style per variant, the baseline that
bounds the kernel; the table of every size in the appendix.  The
dependent kernels' lead the report, the others follow the counters."""

import mdb_dump as md
import mdb_report as mr

from figures.figure import Figure, Kind, note, timed


def kernels(dumps):
	"""The kernels with timed native benchmarks, the report's order:
	dependent first, then sequential, mutating, other."""
	ks = md.first_seen(b.kernel for b in timed(dumps, "native"))
	return sorted(ks, key=lambda k: mr.class_rank(dumps, k))


def plan(dumps, lead):
	"""A figure per kernel: the dependent ones (lead) or the others."""
	out = []
	for k in kernels(dumps):
		c = mr.class_rank(dumps, k)
		if (c == 0) == lead:
			out.append(Figure(f"time-{md.slug(k)}", "time", (k,),
					  group=mr.CLASS_ORDER[c] if c < len(mr.CLASS_ORDER) else "other"))
	return out


def draw(p, name, kernel):
	"""ns/op against RAM: a panel per (dump, mix), fewest threads."""
	panels = []
	for d in p.dumps:
		bs = p.native[id(d)].benches(kernel)
		if not bs:
			panels.append((d, None, []))
			continue
		few = min(b.threads for b in bs)
		for mix in md.first_seen(b.mix or "" for b in bs):
			panels.append((d, mix, [b for b in bs if (b.mix or "") == mix and
						b.threads == few]))
	fig, axes = p.panels(len(panels))
	variants = md.first_seen(b.variant for _, _, bs in panels for b in bs)
	unbounded = []
	for ax, (d, mix, bs) in zip(axes, panels):
		if not bs:
			note(ax, f"no {kernel} in this dump")
			ax.set_title(p.label(d))
			continue
		rams = sorted({b.ram for b in bs})
		scale, ylabel = p.time_scale(d, kernel, bs)
		p.layout_lines(ax, d, bs, variants, lambda b: b.ram, scale)
		base, left = baseline(p, ax, d, kernel, bs, rams, scale)
		if left:
			unbounded.append((d, mix, base, left))
		llc = mr.machine(d).get("llc_bytes")
		for layout, x in mr.llc_crossings(d, bs).items():
			if x is not None:
				ax.axvline(x, color=p.color[layout], linestyle=":", linewidth=1.2,
					   label=f"{layout} working set = LLC")
		p.ram_axis(ax, rams, llc)
		ax.set_ylim(bottom=0)
		ax.set_ylabel(f"{ylabel}\n(median; bar: Q1..Q3; dots: min, max)")
		ax.set_title(" ".join(x for x in ((p.label(d) if p.multi else ""),
						  f"mix {mix}" if mix else "") if x) or kernel)
	p.legend(fig, axes)
	fig.suptitle(f"{kernel}: time per op", y=1 - 0.25 / fig.get_figheight())
	p.save(fig, name, f"{kernel}: ns/op")
	for d, mix, base, left in unbounded:
		p.md(md.md_cell(f"{base} left off for {', '.join(left)}"
				   f"{' (' + d.label + ')' if p.multi else ''}"
				   f"{' on mix ' + mix if mix else ''}: above {kernel}'s time, it "
				   "bounds nothing here.") + "\n")
	with p.appendix(f"{kernel}: ns/op"):
		for d, mix, bs in panels:
			if bs:
				time_table(p, d, mix, bs)


def time_table(p, d, mix, bs):
	layouts = [l for l in d.layout_names if any(b.layout == l for b in bs)]
	rows = {}
	for b in bs:
		rows.setdefault((b.variant, b.ram), {})[b.layout] = b
	head = " ".join(x for x in (d.label if p.multi else "", f"mix {mix}" if mix else "") if x)
	if head:
		p.md(f"**{md.md_cell(head)}**\n")
	llc = mr.machine(d).get("llc_bytes")
	t = []
	for (v, ram), per in sorted(rows.items(), key=lambda x: (
			md.first_seen(b.variant for b in bs).index(x[0][0]), x[0][1])):
		t.append([md.variant_label(v) or "-", md.format_size(ram)] +
			 ([md.fmt(ram / llc)] if llc else []) +
			 [mr.time_cell(d, per.get(l)) for l in layouts])
	p.table(["variant", "RAM", *(["RAM/LLC"] if llc else []),
		    *[f"{l} ns/op" for l in layouts]], t)
	cross = mr.llc_crossings(d, bs)
	if cross:
		p.md(f"Working set (`{mr.WORKING_SET}`) passes the last-level cache "
			f"({md.format_size(llc)}) at: " + ", ".join(
				f"{l} {md.format_size(round(x)) if x else 'no size run (below it throughout)'}"
				for l, x in cross.items()) + ".\n")
	elif llc is None:
		p.md("No `machine.llc_bytes` in this dump: where the working set passes "
			"the last-level cache is not shown.\n")


def baseline_points(d, kernel):
	"""[(bytes, ns per op at one struct page)] of the baseline bounding
	this kernel's class, and a function of sizeof_page, or None.  The
	bandwidth baseline is the one whose entries give bytes_per_second."""
	kclass = next((k["class"] for k in d.kernels if k["name"] == kernel), "other")
	if kclass not in ("dependent", "sequential"):
		return None
	want_bw = kclass == "sequential"
	pts = []
	for b in d.native.values():
		if b.kclass != "baseline" or not b.bytes or b.error:
			continue
		bw = b.values("bytes_per_second")
		if want_bw and bw:
			pts.append((b.bytes, b.kernel, lambda sz, v=mr.median(bw): sz / (v / 1e9)))
		elif not want_bw and not b.has("bytes_per_second") and b.values("real_time"):
			pts.append((b.bytes, b.kernel,
				    lambda sz, v=mr.median(b.values("real_time")): v))
	return sorted(pts, key=lambda p: p[0]) or None


def baseline(p, ax, d, kernel, bs, rams, scale=1.0):
	"""The baseline per layout at RAM = bytes / sizeof_page * 4 KiB,
	where it bounds the kernel: at or below its median at every RAM
	size both have (a baseline above the kernel bounds nothing)."""
	pts = baseline_points(d, kernel)
	if not pts or not rams:
		return None, []
	lo, hi = min(rams) / 1.5, max(rams) * 1.5
	left = []
	for layout in [l for l in d.layout_names if any(b.layout == l for b in bs)]:
		sz = d.sizeof_page(layout)
		xy = [(n * 4096 / sz, f(sz)) for n, _, f in pts if lo <= n * 4096 / sz <= hi]
		if xy and not mr.bounds(xy, [b for b in bs if b.layout == layout]):
			left.append(layout)
		elif xy:
			ax.plot([x for x, _ in xy], [y / scale for _, y in xy], linestyle="--",
				marker="x", color=p.color[layout], alpha=0.5, linewidth=1,
				label=f"{pts[0][1]} @ {layout} memmap")
	return pts[0][1], left


KIND = Kind("time", draw, "## Time per op: {group} kernels", "time-<kernel>",
	    "ns/op against modelled RAM (and RAM / last-level cache), one panel per mix "
	    "and dump, one colour per layout, one line style per variant (age:, pages:, "
	    "...), quartile bars and min, max as dots, a dotted line where a layout's "
	    "working set passes the last-level cache, the latency or bandwidth baseline "
	    "at each layout's memmap size where it bounds the kernel; dependent kernels "
	    "first, throughput walks after the misses per op", intro="baselines")
