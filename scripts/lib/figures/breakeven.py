"""breakeven: footprint against the small-folio descriptor size (mdbench
--folio-desc-bytes=...), measured points and the fitted line per layout,
the reference's bytes as a level: where each layout stops saving memory.
The numbers are mdb_report.breakeven()'s."""

import mdb_dump as md
import mdb_report as mr

from figures.figure import GiB, MiB, Figure, Kind


def plan(dumps):
	return [Figure(f"breakeven-{md.slug(mix or 'nomix')}", "breakeven", (mix,))
		for mix in md.first_seen(be.mix for d in dumps for be in mr.breakeven(d))]


def draw(p, name, mix):
	rows = [(d, [be for be in mr.breakeven(d) if be.mix == mix]) for d in p.dumps]
	rows = [(d, bes) for d, bes in rows if bes]
	fig, axes = p.panels(len(rows), w=6.0, h=4.2)
	for ax, (d, bes) in zip(axes, rows):
		ram = max(be.ram for be in bes)
		bes = [be for be in bes if be.ram == ram]
		variants = md.first_seen(be.variant for be in bes)
		per = GiB / ram if ram else 1
		ref = next((be.ref for be in bes if be.ref is not None), None)
		xs = [pt[0] for be in bes for pt in be.points]
		x0, x1 = 0, max(xs + [be.d for be in bes if be.d and be.d < 4 * max(xs)]) * 1.1
		for be in bes:
			c = p.color[be.layout]
			sty = p.style(variants, be.variant)
			label = " ".join(x for x in (be.layout, md.variant_label(be.variant)) if x)
			ax.plot([pt[0] for pt in be.points], [pt[1] * per / MiB for pt in be.points],
				linestyle="none", marker=sty["marker"], color=c, label=f"{label} measured")
			if be.n is not None:
				ax.plot([x0, x1], [(be.a + be.n * x) * per / MiB for x in (x0, x1)],
					linestyle=sty["linestyle"], color=c, linewidth=1,
					label=f"{label} fit")
			if be.d is not None and x0 <= be.d <= x1:
				ax.axvline(be.d, color=c, linestyle=":", linewidth=1)
		if ref is not None:
			ax.axhline(ref * per / MiB, color=p.color.get(d.reference, "black"),
				   linewidth=2, label=f"{d.reference}")
		ax.set_xlim(x0, x1)
		ax.set_ylim(bottom=0)
		ax.set_xlabel("small-folio descriptor bytes")
		ax.set_ylabel("MiB per GiB of RAM")
		ax.grid(True, alpha=0.3)
		ax.set_title(" ".join(x for x in ((p.label(d) if p.multi else ""),
						  md.format_size(ram)) if x))
	p.legend(fig, axes)
	title = f"Footprint break-even, mix {mix or '-'}: descriptor size against the reference"
	fig.suptitle(title)
	p.save(fig, name, title)
	for d, bes in rows:
		p.per_dump(d)
		t = []
		for be in bes:
			pts = ", ".join(f"{md.fmt(x)}: {md.fmt(y)}" for x, y in be.points)
			fit = (f"{md.fmt(be.a)} + {md.fmt(be.n)} x d" if be.n is not None else "-")
			t.append([md.format_size(be.ram) if be.ram else "-",
				  md.variant_label(be.variant) or "-", be.layout, pts, fit,
				  md.fmt(be.ref) if be.ref is not None else "-", be.text()])
		p.table(["RAM", "variant", "layout", "measured (d B: bytes)",
			    "fit bytes(d)", f"{d.reference} bytes", "break-even d"], t)
	p.md("The break-even size d solves a + n x d = the reference's bytes, a and n "
		"fitted (least squares) on the measured points: n is the number of small "
		"folios, a the memmap and every other descriptor.\n")


KIND = Kind("breakeven", draw, "## Footprint break-even", "breakeven-<mix>",
	    "footprint against the small-folio descriptor size (mdbench "
	    "--folio-desc-bytes=...): where each layout stops saving memory against "
	    "the reference")
