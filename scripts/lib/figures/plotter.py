"""The Plotter: draws the figures of figures.plan() with what they share
(colours, panels, one legend, axes of RAM, lines with their quartile bars)
and writes report.md: the report's text writer (mdb_report.Text), which it
holds, for the sections without a figure, each kind's heading and figures
between them, in the report's order, and last the appendix: the tables
behind the figures (Plotter.appendix())."""

import contextlib
import os
import signal

import mdb_dump as md
import mdb_report as mr
import mdb_stats as st

import figures
from figures import FIGURES
from figures.counters import setup_parameters, zero_counters
from figures.figure import FONT, STYLES, cpu_short


class Index:
	"""One dump's timed benchmarks by (kernel, mix, variant, threads, layout,
	RAM), built once: figures and tables look up instead of scanning."""

	def __init__(self, dump, pool):
		self.at = {}
		self.by_kernel = {}
		for b in getattr(dump, pool).values():
			if b.layout and b.ram and b.timed:
				k = (b.kernel, b.mix or "", b.variant, b.threads, b.layout, b.ram)
				self.at[k] = b
				self.by_kernel.setdefault(b.kernel, []).append(b)

	def benches(self, kernel):
		return self.by_kernel.get(kernel, [])


class Plotter:
	"""Draws the figures of FIGURES (each kind's draw(p, ...) gets the
	Plotter as p: its colours, panels, legend and axes) and writes report.md:
	the tables behind them go through the report's text writer (text, an
	mr.Text), which it uses, not extends, between that writer's sections."""

	def __init__(self, dumps, out, alpha, margin=st.DEFAULT_MARGIN):
		self.text = mr.Text(dumps, alpha, margin)
		self.dumps, self.alpha, self.margin = dumps, alpha, margin
		self.multi = self.text.multi
		import matplotlib
		matplotlib.use("Agg")
		matplotlib.rcParams.update({"font.size": FONT, "legend.fontsize": FONT,
					    "svg.fonttype": "none", "axes.titlesize": FONT + 1})
		import matplotlib.pyplot as plt
		self.plt = plt
		self.out, self.written = out, []
		self.numbers = []	# report.md's appendix: the tables behind the figures
		names = md.first_seen(n for d in dumps for n in d.layout_names)
		cmap = plt.get_cmap("tab10")
		self.color = {n: cmap(i % 10) for i, n in enumerate(names)}
		self.native = {id(d): Index(d, "native") for d in dumps}
		self.simidx = {id(d): Index(d, "sim") for d in dumps}
		self.exts = {}

	# -- output ------------------------------------------------------
	def md(self, text):
		self.text.md(text)

	def table(self, header, rows):
		self.text.table(header, rows)

	def per_dump(self, d):
		self.text.per_dump(d)

	@contextlib.contextmanager
	def appendix(self, title):
		"""What is written inside goes to report.md's appendix under
		'### Numbers: title', not beside the figure: the tables behind it."""
		report, self.text.report = self.text.report, self.numbers
		self.md(f"\n### Numbers: {md.md_cell(title)}\n")
		try:
			yield
		finally:
			self.text.report = report

	def label(self, d):
		"""A dump's name in a figure: its label, the CPU's name trimmed."""
		return d.label.replace(d.cpu_model, cpu_short(d.cpu_model))

	def save(self, fig, name, title):
		exts = self.exts.get(name, ("png", "svg"))
		for ext in exts:
			path = os.path.join(self.out, f"{name}.{ext}")
			md.replace_file(path, lambda f: fig.savefig(f, format=ext, dpi=100), "wb")
			self.written.append(path)
		self.plt.close(fig)
		svg = f" ([SVG]({name}.svg))" if "svg" in exts else " (PNG only: colour, no text)"
		self.md(f"\n### {md.md_cell(title)}\n\n![{md.md_cell(title)}]({name}.png){svg}\n")

	def panels(self, count, w=5.0, h=3.6, legend_w=3.0):
		"""A grid of count panels with fixed margins (constrained layout
		doubles the time of a figure) and room on the right for one legend."""
		ncols = min(3, count)
		nrows = (count + ncols - 1) // ncols
		W, H = w * ncols + legend_w, h * nrows + 0.8
		fig, axes = self.plt.subplots(nrows, ncols, figsize=(W, H), squeeze=False)
		fig.subplots_adjust(left=0.9 / W, right=(w * ncols - 0.2) / W, bottom=0.7 / H,
				    top=1 - 0.8 / H, wspace=0.3, hspace=0.45)
		flat = [a for row in axes for a in row]
		for ax in flat[count:]:
			ax.set_visible(False)
		fig.mdb_legend_x = (w * ncols) / W
		return fig, flat

	def legend(self, fig, axes):
		"""One legend for every panel (colour: layout, style: variant), right
		of them; a panel with nothing drawn says so."""
		seen = {}
		for ax in axes:
			for h, label in zip(*ax.get_legend_handles_labels()):
				seen.setdefault(label, h)
		if seen:	# as wide as its longest label needs (about 0.075 in a character at 9 pt)
			panels = fig.mdb_legend_x * fig.get_figwidth()
			W = panels + 1.0 + 0.075 * max(len(label) for label in seen)
			fig.set_figwidth(W)
			fig.subplots_adjust(left=0.9 / W, right=(panels - 0.2) / W)
			fig.legend(list(seen.values()), list(seen), loc="center left",
				   bbox_to_anchor=(panels / W, 0.5), fontsize=FONT, frameon=False)

	def ram_axis(self, ax, rams, llc=None):
		"""A log2 axis of modelled RAM, each size also as a multiple of the
		last-level cache where the dump knows it."""
		ax.set_xscale("log", base=2)
		if rams:
			ax.set_xticks(rams)
			ax.set_xticklabels([md.format_size(r) + (f"\n{md.fmt(r / llc)}x LLC" if llc else "")
					    for r in rams])
			ax.set_xlim(min(rams) / 1.5, max(rams) * 1.5)
		ax.minorticks_off()
		ax.set_xlabel("modelled RAM")
		ax.grid(True, alpha=0.3)

	def line(self, ax, pts, bars, scale=1.0, shift=1.0, **kw):
		"""pts [(x, Bench)]: a line of the median real_time / scale at x times
		shift (lines side by side on a log axis, none hiding another); its
		quartiles and min, max over repetitions go to bars, drawn by
		bars_of() in one call per panel."""
		xs, ys = [], []
		for x, b in pts:
			v = b.sample("real_time")[0]
			if v:
				x *= shift
				xs.append(x)
				ys.append(mr.median(v) / scale)
				if min(v) < max(v):
					q1, q3 = mr.quartiles(v)
					bars.append((x, q1 / scale, q3 / scale, min(v) / scale, max(v) / scale,
						     kw.get("color")))
		if xs:
			ax.plot(xs, ys, markersize=4, **kw)

	@staticmethod
	def bars_of(ax, bars):
		"""Interquartile bars, min and max as faint points."""
		if bars:
			c = [b[5] for b in bars]
			ax.vlines([b[0] for b in bars], [b[1] for b in bars], [b[2] for b in bars],
				  colors=c, linewidth=2.5)
			ax.scatter([b[0] for b in bars] * 2, [b[3] for b in bars] + [b[4] for b in bars],
				   c=c * 2, s=6, alpha=0.35, linewidths=0)

	def layout_lines(self, ax, d, bs, variants, x_of, scale):
		"""A line per (layout, variant) of bs against x_of(bench), colour:
		layout, style: variant, set side by side, with their bars."""
		bars = []
		lines = [(l, v) for l in d.layout_names for v in variants
			 if any(b.layout == l and b.variant == v for b in bs)]
		for (layout, v), shift in zip(lines, self.shifts(len(lines))):
			pts = sorted(((x_of(b), b) for b in bs if b.layout == layout and
				      b.variant == v and not b.error), key=lambda p: p[0])
			label = " ".join(x for x in (layout, md.variant_label(v)) if x)
			self.line(ax, pts, bars, scale, shift, color=self.color[layout], label=label,
				  **self.style(variants, v))
		self.bars_of(ax, bars)

	@staticmethod
	def shifts(count):
		"""x factors that set count lines side by side: at most half an
		octave for them all."""
		step = min(0.08, 0.5 / max(1, count))
		return [2 ** ((i - (count - 1) / 2) * step) for i in range(count)]

	def time_scale(self, d, kernel, bs):
		"""(divisor, y label): ns, or us where the medians reach 10 us; per
		the kernel's unit of one op."""
		unit = next((k.get("unit") for k in d.kernels if k["name"] == kernel), None) or "op"
		top = max((mr.median(b.sample("real_time")[0]) for b in bs
			   if b.sample("real_time")[0]), default=0)
		scale, what = (1e3, "\u00b5s") if top >= 1e4 else (1.0, "ns")
		return scale, f"{what} per {unit}"

	def style(self, variants, v):
		ls, mk = STYLES[variants.index(v) % len(STYLES)]
		return {"linestyle": ls, "marker": mk}

	# -- the report ---------------------------------------------------
	def run(self, jobs):
		"""The report in order; the figures after the summary are drawn by
		up to jobs processes (forked: they share the loaded dumps)."""
		plan = figures.plan(self.dumps)
		self.exts = {f.name: f.exts for f in plan}
		text = self.text
		text.head()
		if plan and plan[0].kind == "summary":
			self.draw_one(plan.pop(0))
		text.runs()
		text.conditions()
		text.counters(zero_counters(self.dumps))
		text.false_sharing()
		text.fidelity()
		text.noisy()
		setup_parameters(self)
		parts = self.draw_all(plan, jobs)
		seen = set()
		for f, (report, numbers, written) in zip(plan, parts):
			kind = FIGURES[f.kind]
			if (f.kind, f.group) not in seen:
				self.md("\n" + kind.heading.format(group=f.group) + "\n")
				if kind.intro and f.kind not in {k for k, _ in seen}:
					getattr(text, kind.intro)()
				seen.add((f.kind, f.group))
			text.report += report
			self.numbers += numbers
			self.written += written
		if self.numbers:
			self.md("\n## Appendix\n")
			self.md("The numbers behind each figure, in the figures' order.")
			text.report += self.numbers
		path = os.path.join(self.out, "report.md")
		md.replace_file(path, lambda f: f.write("\n".join(text.report) + "\n"))
		self.written.append(path)

	def draw_one(self, f):
		FIGURES[f.kind].draw(self, f.name, *f.args)

	def draw(self, f):
		"""(report lines, appendix lines, files written) of one figure of
		the plan."""
		self.text.report, self.numbers, self.written = [], [], []
		self.draw_one(f)
		return self.text.report, self.numbers, self.written

	def draw_all(self, plan, jobs):
		report, numbers, written = self.text.report, self.numbers, self.written
		try:
			if jobs <= 1 or len(plan) < 4:
				return [self.draw(f) for f in plan]
			import multiprocessing
			global _PLOTTER
			_PLOTTER = self
			with multiprocessing.get_context("fork").Pool(jobs, initializer=_worker_signals) as pool:
				parts = pool.map(_draw, plan, chunksize=1)
				pool.close()	# the workers end on their own: no SIGTERM needed
				pool.join()
			return parts
		finally:
			self.text.report, self.numbers, self.written = report, numbers, written


_PLOTTER = None


def _worker_signals():
	"""A worker ends on SIGTERM even where plot's caller ignores it (collect
	does while it packs), and leaves Ctrl-C to plot itself."""
	signal.signal(signal.SIGTERM, signal.SIG_DFL)
	signal.signal(signal.SIGINT, signal.SIG_IGN)


def _draw(f):
	"""A worker process's figure (the Plotter comes with the fork)."""
	return _PLOTTER.draw(f)
