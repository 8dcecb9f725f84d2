"""The figures scripts/plot draws, one module per kind: FIGURES, the
registry (a kind's name -> its figure.Kind), plan() the figures these dumps
get, in the report's order, and expected_plots() the files they make.

Adding a kind: a module with plan(dumps) -> [Figure] and draw(p, name,
*args) and its KIND, an entry in FIGURES and a step in plan()
(docs/extending.md)."""

from figures import breakeven, counters, footprint, sim, summary, threads, times

FIGURES = {k.name: k for k in (summary.KIND, times.KIND, threads.KIND, counters.PERF,
			       counters.OWN, sim.KIND, footprint.KIND, breakeven.KIND)}


def plan(dumps):
	"""The figures scripts/plot draws, as [Figure], in order: the summary;
	the dependent kernels' time and the misses per op lead (what a layout
	changes most); the perf counters; the other kernels' time (sequential,
	mutating, other); threads; the kernels' own counters; footprint and
	break-even.  Each is written as .png and .svg, but heat maps of more
	than figure.ANNOTATE_CELLS cells as .png alone."""
	return (summary.plan(dumps) + times.plan(dumps, lead=True) + sim.plan(dumps) +
		counters.plan_perf(dumps) + times.plan(dumps, lead=False) + threads.plan(dumps) +
		counters.plan_own(dumps) + footprint.plan(dumps) + breakeven.plan(dumps))


def expected_plots(dumps):
	"""[(basename, formats)] of every plot scripts/plot writes for these dumps."""
	return [(f.name, f.exts) for f in plan(dumps)]
