"""The heat map shared by the summary and the counters: one map per
(title, rows, cols, cells), stacked, with panels of other kinds below."""

import mdb_dump as md
import mdb_report as mr

from figures.figure import ANNOTATE_CELLS, FONT

LABELLED_ROWS = 120	# a heat map with more rows has no row labels
MAX_HEIGHT, MAX_WIDTH = 20, 16	# inches a heat map may take
PANEL_HEIGHT = 4.5	# inches of a panel below: bars and their values readable


def heatmaps(p, maps, what, panels=(), absolute=False):
	"""One heat map per (title, rows, cols, {(row, col): (ratio, text,
	doubtful)}), stacked, then one axes per (dump, draw) of panels:
	colour log2(ratio) (blue below 1, red above), a doubtful cell washed
	grey and hatched over its colour, the text in the cell while there are few enough cells
	to read; absolute: the colour is the value itself (a kernel's own
	counter, e.g. a share), on a sequential scale."""
	import numpy as np
	from matplotlib.patches import Rectangle
	def height(rows, cols):		# at most MAX_HEIGHT inches: the table has every row
		per = 0.3 if len(rows) * len(cols) > ANNOTATE_CELLS // 3 else 0.55
		return min(MAX_HEIGHT, max(2.5, per * len(rows) + 1.8))
	heights = [height(rows, cols) for _, rows, cols, _ in maps] + [PANEL_HEIGHT] * len(panels)
	width = min(MAX_WIDTH, max(max(6.0, 1.0 * len(cols) + 4.0) for _, _, cols, _ in maps))
	fig, axes = p.plt.subplots(len(heights), 1, figsize=(width, sum(heights)),
				      squeeze=False, gridspec_kw={"height_ratios": heights},
				      layout="constrained")
	for ax, (d, draw) in zip(axes[len(maps):, 0], panels):
		draw(p, ax, d)
	axes = axes[:len(maps)]
	cmap = p.plt.get_cmap("viridis" if absolute else "RdBu_r")
	grids = []
	for title, rows, cols, cells in maps:
		g = np.full((len(rows), len(cols)), np.nan)
		for i, r in enumerate(rows):
			for j, c in enumerate(cols):
				v, _, grey = cells.get((r, c), (None, "", False))
				if absolute and v is not None:
					g[i, j] = v
				elif v and v > 0:
					g[i, j] = np.log2(v)
		grids.append(g)
	finite = [np.nanmax(np.abs(g)) for g in grids if np.isfinite(g).any()]
	lim = max([0.1] + finite)
	lo, hi = -lim, lim
	if absolute:
		lo = min([0.0] + [np.nanmin(g) for g in grids if np.isfinite(g).any()])
		hi = max([lo + 1e-9] + [np.nanmax(g) for g in grids if np.isfinite(g).any()])
	for ax, g, (title, rows, cols, cells) in zip(axes[:, 0], grids, maps):
		ax.imshow(g, cmap=cmap, vmin=lo, vmax=hi, aspect="auto", interpolation="nearest")
		for (r, c), (v, text, grey) in cells.items():
			if grey and c in cols:
				ax.add_patch(Rectangle((cols.index(c) - 0.5, rows.index(r) - 0.5), 1, 1,
						       facecolor=(1, 1, 1, 0.6), edgecolor="0.45", hatch="///",
						       linewidth=0))
		if len(rows) * len(cols) <= ANNOTATE_CELLS:
			small = len(rows) * len(cols) > ANNOTATE_CELLS // 3
			for (r, c), (v, text, grey) in cells.items():
				if text and c in cols:
					dark = (v is not None and v < (lo + hi) / 2 if absolute else
						v and v > 0 and not grey and abs(np.log2(v)) > 0.6 * lim)
					ax.text(cols.index(c), rows.index(r),
						text.split("\n")[0] if small else text,
						ha="center", va="center", fontsize=7,
						color="white" if dark else "black")
		ax.set_xticks(range(len(cols)))
		ax.set_xticklabels([f"{l}\n{md.format_size(r) if r else '-'}" for l, r in cols])
		if len(rows) <= LABELLED_ROWS:
			labels = mr.row_labels(rows)
			ax.set_yticks(range(len(rows)))
			ax.set_yticklabels([labels[r] for r in rows],
					   fontsize=FONT if len(rows) <= 60 else 6)
		else:
			ax.set_yticks([])
			ax.set_ylabel(f"{len(rows)} rows, in the order of the table below")
		ax.set_title(title)
	sm = p.plt.cm.ScalarMappable(cmap=cmap, norm=p.plt.Normalize(lo, hi))
	fig.colorbar(sm, ax=list(axes[:, 0]), shrink=0.6).set_label(what)
	return fig
