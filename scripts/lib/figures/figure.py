"""What every figure kind shares: the plan's entry for one figure (Figure),
the kind itself (Kind: how it is planned, drawn and headed in report.md) and
the small drawing helpers of an axes.

A kind's module (summary.py, times.py, ...) defines its Kind with plan(dumps)
returning the [Figure] it draws for these dumps and draw(p, name, *args)
drawing one of them with the Plotter p (plotter.py): the figure through
p.save(), the table behind it through p.table()."""

import re

# A heat map of more cells is drawn in colour only, and as PNG alone: its
# SVG would only wrap the same bitmap.
ANNOTATE_CELLS = 600
FONT = 9		# legends and panel titles: readable in a report
STYLES = [(ls, mk) for mk in ("o", "s", "^", "D", "v", "P") for ls in ("-", "--", ":", "-.")]
GiB, MiB = 1 << 30, 1 << 20


def cpu_short(name):
	"""A CPU's name as a figure shows it: without the marks, the words CPU
	and Processor, the core count and the clock ("Intel(R) Xeon(R) Platinum
	8480+ CPU @ 2.00GHz" is "Intel Xeon Platinum 8480+", "AMD EPYC 9654
	96-Core Processor" "AMD EPYC 9654"); report.md's runs table keeps it whole."""
	s = re.sub(r"\((R|r|TM|tm)\)", "", name)
	s = re.sub(r"@\s*[0-9.]+\s*[GM]Hz", "", s)
	s = re.sub(r"\b[0-9]+-Core\b|\b(CPU|Processor)\b|\bwith Radeon\b.*", "", s)
	return " ".join(s.split()) or name


class Figure:
	"""One figure of the plan: basename, kind, args, the formats written,
	and its group (a time figure's kernel class: its section)."""

	__slots__ = ("name", "kind", "args", "exts", "group")

	def __init__(self, name, kind, args, cells=0, group=None):
		self.name, self.kind, self.args, self.group = name, kind, args, group
		self.exts = ("png",) if cells > ANNOTATE_CELLS else ("png", "svg")


class Kind:
	"""A kind of figure: its name (Figure.kind), draw(p, name, *args) that
	draws one, the heading of their section in report.md (None: draw
	writes its own), a method of the Plotter's text writer
	(mdb_report.Text) that writes a table under that heading the first time
	(intro), and what they show (--help: files, doc)."""

	__slots__ = ("name", "draw", "heading", "intro", "files", "doc")

	def __init__(self, name, draw, heading, files, doc, intro=None):
		self.name, self.draw, self.heading, self.intro = name, draw, heading, intro
		self.files, self.doc = files, doc


def benches(dumps, pool):
	"""Every benchmark of the dumps' pool ("native" or "sim")."""
	for d in dumps:
		yield from getattr(d, pool).values()


def timed(dumps, pool):
	"""The pool's timed benchmarks with a layout and a RAM size: those a
	figure can place."""
	return [b for b in benches(dumps, pool) if b.layout and b.timed and b.ram]


def note(ax, text):
	ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes)
	ax.set_xticks([])
	ax.set_yticks([])


def legend(ax, empty=None):
	if ax.get_legend_handles_labels()[0]:
		ax.legend(fontsize=FONT)
	elif empty:
		note(ax, empty)
