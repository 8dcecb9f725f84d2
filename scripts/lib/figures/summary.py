"""summary: each layout's ns/op against the reference layout at the
headline sizes, as a heat map of the Hodges-Lehmann ratio with a footprint
panel per dump; in report.md the headline table and footprint first, the
table of every size in the appendix."""

import mdb_dump as md
import mdb_report as mr
import mdb_stats as st

from figures.figure import FONT, MiB, Figure, Kind
from figures.heatmap import heatmaps


def plan(dumps):
	"""The summary, where a layout has a reference to be compared with."""
	pairs = sum(len(mr.reference_pairs(d)) for d in dumps)
	return [Figure("summary", "summary", (), pairs)] if pairs else []


def draw(p, name):
	"""The headline table per dump, then the heat map of each layout
	against the reference at the headline sizes (the kernels with a cell
	there) with a footprint panel, then the table of every size in the
	appendix."""
	sums = [(d, *mr.summary(d, p.alpha, p.margin)) for d in p.dumps]
	sums = [s for s in sums if s[1]]
	refs = md.first_seen(d.reference for d, *_ in sums)
	level = f"{100 * (1 - p.alpha):g}%"
	p.md(f"## Summary: each layout against {md.md_cell(', '.join(refs))}\n")
	p.md(f"ns/op of each layout over the reference layout's, same kernel, mix, RAM and "
		f"variant: the Hodges-Lehmann ratio of the repetitions with its {level} "
		f"interval (scripts/compare --help).  Below 1: faster than the reference.  "
		f"Verdict: {st.rule_text(p.alpha, p.margin)}; "
		f"n: repetitions of the reference and of the layout.  Dependent kernels "
		f"lead, each at its highest thread count.\n")
	heat = []
	for d, rows, cols, cells in sums:
		p.per_dump(d)
		sizes, why, hrows = mr.headline_rows(d, p.alpha, p.margin)
		cond = "; ".join(f"`{md.md_cell(k)}` {md.md_cell(v)}"
				 for k, v in mr.headline_conditions(d))
		p.md(f"Headline: {md.md_cell(why)}.  Conditions: {cond or 'none recorded'}.\n")
		if hrows and len(hrows[0]) > len(mr.HEADLINE_HEADER):
			p.md(f"A/A interval: {md.md_cell(d.reference)} against its placebo twin "
				f"(built alike, same rounds): the smallest change this run could "
				f"have shown.\n")
		p.table(mr.headline_header(hrows), hrows)
		if mr.round_text(d):
			p.md(f"n: rounds; {mr.round_text(d)}.\n")
		names, fp = mr.footprint_rows(d)
		if fp:
			p.md(f"Footprint in bytes per GiB of RAM{md.md_cell(mr.base_page_text(d))}, "
				f"{md.md_cell(mr.footprint_what(d))}, each mix at its largest size "
				f"(change against {md.md_cell(d.reference)}):\n")
			p.table(["mix", *names], fp)
		sizes = set(sizes)
		hcols = [c for c in cols if c[1] in sizes]
		hcells = {k: (x.value, x.text(lines=True), mr.doubtful(x))
			  for k, x in cells.items() if k[1][1] in sizes}
		# a row is a kernel with a cell at a headline size: no empty rows
		krows = [r for r in rows if any((r, c) in hcells for c in hcols)]
		heat.append((f"{p.label(d)}: ns/op / {d.reference}", krows, hcols, hcells))
	panels = [(d, footprint_panel) for d, *_ in sums if mr.footprint_rows(d)[1]]
	fig = heatmaps(p, heat, "log2 of the ratio (-1: half the time, +1: twice)", panels)
	p.save(fig, name, "Summary: ratio to the reference layout at the headline sizes")
	p.md("Blue is faster, red slower; washed grey and hatched: not shown faster or "
		"slower (same within the margin, undecided, or too few rounds; the cell says "
		"which).\n")
	with p.appendix("every size, each layout against the reference"):
		for d, rows, cols, cells in sums:
			p.per_dump(d)
			layouts = md.first_seen(l for l, _ in cols)
			rams = sorted({r for _, r in cols})
			labels = mr.row_labels(rows)
			t = []
			for r in rows:
				for ram in rams:
					cs = [cells.get((r, (l, ram))) for l in layouts]
					if any(cs):
						t.append([labels[r], md.format_size(ram) if ram else "-"] +
							 [x.text() if x else "-" for x in cs])
			p.table(["kernel", "RAM", *[f"{l}/{d.reference}" for l in layouts]], t)


def footprint_panel(p, ax, d):
	"""Bars of bytes per GiB of RAM per mix and layout (the headline's
	footprint rows)."""
	fp = {k: v for k, v in mr.footprint_per_mix(d).items()
	      if all(q != md.FOLIO_PARAM for q, _ in k[2])}
	keys = md.first_seen((m, v) for m, _, v in fp)
	layouts = [l for l in d.layout_names if any(k[1] == l for k in fp)]
	w = 0.8 / max(1, len(layouts))
	for j, layout in enumerate(layouts):
		xs = [i + (j - (len(layouts) - 1) / 2) * w for i, k in enumerate(keys)
		      if (k[0], layout, k[1]) in fp]
		ys = [fp[(k[0], layout, k[1])] / MiB for k in keys if (k[0], layout, k[1]) in fp]
		bars = ax.bar(xs, ys, w * 0.9, color=p.color[layout], label=layout)
		ax.bar_label(bars, fmt="%.1f", fontsize=FONT - 1, padding=2)
	ax.set_xticks(range(len(keys)))
	ax.set_xticklabels([" ".join(x for x in (m or "-", md.variant_label(v)) if x)
			    for m, v in keys])
	ax.set_ylabel("MiB per GiB of RAM, " + ("slab pages held" if mr.footprint_held(d)
						 else "live descriptors"))
	ax.set_ylim(0, max(fp.values()) / MiB * 1.3)	# room for the legend
	ax.grid(True, axis="y", alpha=0.3)
	ax.set_title(f"{p.label(d)}: footprint (memmap + descriptors)")
	ax.legend(fontsize=FONT, ncols=min(4, len(layouts)))


KIND = Kind("summary", draw, None, "summary",
	    "first: each layout's ns/op against the reference layout (the dump's "
	    "reference_layout) per kernel and RAM size, as a heat map of the "
	    "Hodges-Lehmann ratio with its interval (scripts/compare --help says how)")
