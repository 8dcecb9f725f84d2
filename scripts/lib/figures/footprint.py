"""footprint: memmap + descriptor bytes per GiB of RAM, bars per (mix,
variant) and layout at each one's largest RAM size; the table of every
footprint field and the pivots by a variant's parameter under it."""

import mdb_dump as md
import mdb_report as mr

from figures.figure import MiB, Figure, Kind, legend


def plan(dumps):
	return [Figure("footprint", "footprint", ())] if any(mr.report_benches(d) for d in dumps) else []


def draw(p, name):
	fps = [(d, mr.report_benches(d)) for d in p.dumps]
	groups = [md.first_seen((b.mix or "", b.variant) for b in fp) for _, fp in fps]
	fig, axes = p.plt.subplots(1, len(fps), figsize=(max(6.0, 2 + 1.2 * max(
		len(g) for g in groups)) * len(fps), 4.8), sharey=True, squeeze=False,
		layout="constrained")
	for ax, (d, fp), keys in zip(axes[0], fps, groups):
		pick = {}
		for b in fp:		# the largest RAM size stands for the per-GiB figure
			k = (b.mix or "", b.variant, b.layout)
			if k not in pick or (b.ram or 0) > (pick[k].ram or 0):
				pick[k] = b
		layouts = [l for l in d.layout_names if any(b.layout == l for b in fp)]
		w = 0.8 / max(1, len(layouts))
		for j, layout in enumerate(layouts):
			xs, mm, dd = [], [], []
			for i, (m, v) in enumerate(keys):
				b = pick.get((m, v, layout))
				if b:
					per = mr.per_gib(b)
					xs.append(i + (j - (len(layouts) - 1) / 2) * w)
					mm.append(per[0] / MiB)
					dd.append(per[1] / MiB)
			c = p.color[layout]
			ax.bar(xs, mm, w * 0.9, color=c, label=f"{layout} memmap")
			ax.bar(xs, dd, w * 0.9, bottom=mm, color=c, alpha=0.45, hatch="//",
			       edgecolor="black", linewidth=0.3, label=f"{layout} descriptors")
		ax.set_xticks(range(len(keys)))
		ax.set_xticklabels([" ".join(x for x in (m or "-", md.variant_label(v)) if x)
				    for m, v in keys], rotation=30 if len(keys) > 4 else 0,
				   ha="right" if len(keys) > 4 else "center")
		ax.set_title(p.label(d))
		ax.grid(True, axis="y", alpha=0.3)
		legend(ax, "no footprint in this dump")
	axes[0][0].set_ylabel("MiB per GiB of RAM")
	fig.suptitle("Footprint: memmap + descriptors per GiB of RAM")
	p.save(fig, name, "Footprint per GiB of RAM")
	p.md("Bars use each (mix, variant, layout)'s largest RAM size; "
		"per GiB = bytes x 1 GiB / RAM.\n")
	with p.appendix("footprint per GiB of RAM"):
		for d, fp in fps:
			p.per_dump(d)
			if not fp:
				p.md("No footprint in this dump.\n")
				continue
			# The report's own counters, known ones first; not the run's perf counters.
			skip = set(md.TIME_METRICS) | set(d.counters_available())
			seen = md.first_seen(f for b in fp for f in b.metrics() if f not in skip)
			fields = [f for f in md.FOOTPRINT_ORDER if f in seen] + \
				 [f for f in seen if f not in md.FOOTPRINT_ORDER]
			t = []
			for b in sorted(fp, key=lambda b: (b.mix or "", b.variant, d.layout_names.index(
					b.layout) if b.layout in d.layout_names else 0, b.ram or 0)):
				t.append([b.mix or "-", md.variant_label(b.variant) or "-", b.layout,
					  md.format_size(b.ram) if b.ram else "?"] +
					 [mr.value_cell(b, f) for f in fields])
			p.table(["mix", "variant", "layout", "RAM", *fields], t)
	for d, _ in fps:
		pivots = mr.variant_pivots(d)
		if pivots:
			p.per_dump(d)
		for param, rows in pivots.items():
			values = md.first_seen(v for per in rows.values() for v in per)
			p.md(f"Bytes per GiB by `{md.md_cell(param)}`:\n")
			t = []
			for (mix, layout, ram, rest), per in rows.items():
				row = [mix or "-", layout, md.format_size(ram) if ram else "-",
				       md.variant_label(rest) or "-"]
				row += [md.fmt(per[v]) if v in per else "-" for v in values]
				if len(values) == 2 and all(v in per for v in values) and per[values[0]]:
					row.append(f"{per[values[1]] / per[values[0]] - 1:+.1%}")
				t.append(row)
			extra = [f"{param}:{values[1]} against {param}:{values[0]}"] if len(values) == 2 else []
			p.table(["mix", "layout", "RAM", "other variant",
				    *[f"{param}:{v}" for v in values], *extra], t)


KIND = Kind("footprint", draw, "## Footprint", "footprint",
	    "memmap + descriptor bytes per GiB of RAM, per mix (and variant, "
	    "e.g. hvo:on) and layout")
