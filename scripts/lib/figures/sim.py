"""sim: callgrind's simulated misses per op (--simulate) against modelled
RAM, a panel per kernel, the analytic model's value as x markers; a kernel
at 0 throughout gets a sentence and its rows in the table."""

import mdb_dump as md
import mdb_report as mr

from figures.figure import Figure, Kind, note, timed

PLOTTED = ("sim_D1_misses", "sim_LL_misses")	# sim.json's fields, results/SCHEMA.md


def sim_kernels(sim, metric, mix):
	"""(kernels with the metric on this mix, those of them at 0 throughout)."""
	have = md.first_seen(b.kernel for b in sim if (b.mix or "") == mix and b.has(metric))
	zero = [k for k in have if not any(v for b in sim if b.kernel == k and (b.mix or "") == mix
					   for v in b.values(metric))]
	return [k for k in have if k not in zero], zero


def plan(dumps):
	"""A figure per (metric, mix) that some kernel has."""
	sim = timed(dumps, "sim")
	out = []
	for metric in PLOTTED:
		for mix in md.first_seen(b.mix or "" for b in sim):
			ks, zero = sim_kernels(sim, metric, mix)
			if ks or zero:
				out.append(Figure(f"{metric}-{md.slug(mix or 'nomix')}", "sim",
						  (metric, mix, ks, zero)))
	return out


def draw(p, name, metric, mix, kernels, zero=()):
	"""callgrind's metric per op: a panel per kernel but those at 0
	throughout (zero: a sentence), colour = layout, line style =
	variant, against RAM, or a dot per layout where the runs have one RAM
	size; the model's value as x markers where the dump has one."""
	model = "model_" + metric[4:]
	fig, axes = p.panels(max(1, len(kernels)))
	tables = {}
	for d in p.dumps:
		for kernel in zero:
			tables.setdefault(id(d), []).extend(
				b for b in p.simidx[id(d)].benches(kernel) if (b.mix or "") == mix)
	if not kernels:
		note(axes[0], f"{metric} is 0 at every size for " + ", ".join(zero))
	# One RAM size throughout: a dot per layout, the layouts side by side,
	# instead of lines of one point each on a RAM axis.
	rams = {b.ram for d in p.dumps for k in kernels for b in p.simidx[id(d)].benches(k)
		if (b.mix or "") == mix}
	layouts = md.first_seen(l for d in p.dumps for l in d.layout_names)
	single = len(rams) == 1
	for ax, kernel in zip(axes, kernels):
		seen = set()
		series = [(d, v) for d in p.dumps for v in md.first_seen(
			b.variant for b in p.simidx[id(d)].benches(kernel) if (b.mix or "") == mix)]
		for d in p.dumps:
			bs = [b for b in p.simidx[id(d)].benches(kernel) if (b.mix or "") == mix]
			tables.setdefault(id(d), []).extend(bs)
			variants = md.first_seen(b.variant for b in bs)
			for layout in d.layout_names:
				for v in variants:
					pts = sorted((b.ram, mr.median(b.values(metric))) for b in bs
						     if b.layout == layout and b.variant == v and
						     b.values(metric))
					if not pts:
						continue
					seen |= {r for r, _ in pts}
					label = " ".join(x for x in (layout, md.variant_label(v),
								     f"({d.host})" if p.multi else "") if x)
					sty = p.style(variants, v)
					mp = sorted((b.ram, mr.median(b.values(model))) for b in bs
						    if b.layout == layout and b.variant == v and
						    b.values(model))
					if single:	# side by side: each series of a layout a step right
						at = layouts.index(layout) + 0.15 * (series.index((d, v)) -
										     (len(series) - 1) / 2)
						pts = [(at, y) for _, y in pts]
						mp = [(at, y) for _, y in mp]
						ax.plot([x for x, _ in pts], [y for _, y in pts], linestyle="none",
							marker=sty["marker"], markersize=7, color=p.color[layout],
							label=label)
					else:
						ax.plot([r for r, _ in pts], [y for _, y in pts], markersize=4,
							color=p.color[layout], label=label, **sty)
					if mp:
						ax.scatter([r for r, _ in mp], [y for _, y in mp], marker="x",
							   s=60, color=p.color[layout], zorder=3,
							   label=f"{layout}: {model}")
		if single:
			ax.set_xticks(range(len(layouts)))
			ax.set_xticklabels(layouts)
			ax.set_xlim(-0.5, len(layouts) - 0.5)
			ax.set_xlabel(f"layout, modelled RAM {md.format_size(next(iter(rams)))}")
			ax.grid(True, axis="y", alpha=0.3)
		else:
			p.ram_axis(ax, sorted(seen))
		ax.set_ylim(bottom=0)
		ax.set_title(kernel)
		ax.set_ylabel(f"{metric} per op")
		if not ax.get_legend_handles_labels()[0]:
			note(ax, f"no {metric} for {kernel}")
	p.legend(fig, axes)
	modelled = any(b.values(model) for bs in tables.values() for b in bs)
	title = f"{metric} per op, mix {mix or '-'}" + (f" ({model} as x)" if modelled else "")
	fig.suptitle(title, y=1 - 0.25 / fig.get_figheight())
	p.save(fig, name, title)
	if zero:
		p.md(f"{md.md_cell(', '.join(zero))}: {metric} is 0 at every size and "
			"layout: no panel (in the appendix's table).\n")
	with p.appendix(title):
		for d in p.dumps:
			p.per_dump(d)
			bs = tables.get(id(d))
			if not bs:
				p.md(md.md_cell(f"{metric}: {why_none(d, 'sim', metric)}") + "\n")
				continue
			layouts = [l for l in d.layout_names if any(b.layout == l for b in bs)]
			rows = {}
			for b in bs:
				rows.setdefault((b.kernel, b.variant, b.ram), {})[b.layout] = b
			t = []
			for (kernel, v, ram), per in rows.items():
				row = [kernel, md.variant_label(v) or "-", md.format_size(ram)]
				for l in layouts:
					b = per.get(l)
					cell = (mr.value_cell(b, metric) if b and b.values(metric) else
						d.missing_cell(b, metric) if b else "-")
					mv = b.values(model) if b else []
					row.append(cell + (f" (model {md.fmt(mr.median(mv))})" if mv else ""))
				t.append(row)
			p.table(["kernel", "variant", "RAM", *[f"{l} {metric}/op" for l in layouts]], t)


def why_none(d, pool, metric):
	if pool == "sim" and not d.sim:
		return "n/a (no sim.json: this run had no --simulate)"
	return d.why_missing(metric)


KIND = Kind("sim", draw, "## Simulated misses per op (callgrind)",
	    "sim_D1_misses-<mix>, sim_LL_misses-<mix>",
	    "callgrind's simulated misses per op (--simulate), the analytic model's "
	    "as markers where it has one; a kernel at 0 throughout gets a sentence")
