"""threads: ns/op against threads, where a kernel ran with several thread
counts: a panel per (dump, mix) at its largest RAM."""

import mdb_dump as md
import mdb_report as mr

from figures.figure import Figure, Kind, timed
from figures.times import kernels


def plan(dumps):
	native = timed(dumps, "native")
	out = []
	for k in kernels(dumps):
		if len({b.threads for b in native if b.kernel == k}) > 1:
			out.append(Figure(f"threads-{md.slug(k)}", "threads", (k,)))
	return out


def draw(p, name, kernel):
	"""ns/op against threads: a panel per (dump, mix) at its largest RAM."""
	panels = []
	for d in p.dumps:
		bs = p.native[id(d)].benches(kernel)
		for mix in md.first_seen(b.mix or "" for b in bs):
			mine = [b for b in bs if (b.mix or "") == mix]
			ram = max(b.ram for b in mine)
			panels.append((d, mix, ram, [b for b in mine if b.ram == ram]))
	fig, axes = p.panels(len(panels))
	variants = md.first_seen(b.variant for _, _, _, bs in panels for b in bs)
	for ax, (d, mix, ram, bs) in zip(axes, panels):
		threads = sorted({b.threads for b in bs})
		scale, ylabel = p.time_scale(d, kernel, bs)
		p.layout_lines(ax, d, bs, variants, lambda b: b.threads, scale)
		ax.set_xscale("log", base=2)
		ax.set_xticks(threads)
		ax.set_xticklabels([str(t) for t in threads])
		ax.minorticks_off()
		ax.set_xlabel("threads")
		ax.set_ylim(bottom=0)
		ax.set_ylabel(f"{ylabel}\n(median; bar: Q1..Q3; dots: min, max)")
		ax.grid(True, alpha=0.3)
		ax.set_title(" ".join(x for x in ((p.label(d) if p.multi else ""),
						  f"mix {mix}" if mix else "",
						  md.format_size(ram)) if x))
	p.legend(fig, axes)
	fig.suptitle(f"{kernel}: time per op against threads", y=1 - 0.25 / fig.get_figheight())
	p.save(fig, name, f"{kernel}: ns/op against threads")
	with p.appendix(f"{kernel}: ns/op against threads"):
		for d, mix, ram, bs in panels:
			layouts = [l for l in d.layout_names if any(b.layout == l for b in bs)]
			rows = {}
			for b in bs:
				rows.setdefault((b.variant, b.threads), {})[b.layout] = b
			p.per_dump(d)
			p.table(["variant", "threads", *[f"{l} ns/op" for l in layouts]],
				   [[md.variant_label(v) or "-", str(t)] +
				    [mr.time_cell(d, per.get(l)) for l in layouts]
				    for (v, t), per in sorted(rows.items(), key=lambda x: x[0][1])])


KIND = Kind("threads", draw, "## Time per op against threads", "threads-<kernel>",
	    "ns/op against threads, where a kernel ran with several thread counts")
