"""A memdesc-bench dump as the flat metrics that other harnesses read
(mmtests' parse-results, LKP's parse), written once for both.

Every name comes from the dump (kernels, layouts, mixes, the reference
layout): nothing here names one.  The dump is read and checked by
scripts/lib (mdb_dump), the pairs of each layout with the reference layout
are mdb_report's, and the per-round ratios scripts/compare's, so that the
numbers are those scripts/compare and scripts/plot start from.

Three metrics, all lower-is-better:

- nsop: each timed benchmark's ns/op, one value per round, factor the
  benchmark with its layout taken out (kernel, mix, RAM, variant,
  threads), and the layout;
- ratio: each layout's ns/op over the reference layout's in the same run
  and round (rounds interleave the layouts, so drift hits both alike),
  one value per round, the layout named "LAYOUT/REFERENCE";
- footprint: memmap + descriptors in KiB per GiB of RAM, per mix (and
  variant, e.g. hvo:on) and layout, one value (a count, not a sample).
"""

import importlib.machinery
import importlib.util
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts", "lib"))
import mdb_dump as md  # noqa: E402
import mdb_report as mr  # noqa: E402

METRICS = ("nsop", "ratio", "footprint")


def _compare():
	"""scripts/compare as a module: its round_ratios() is the one
	definition of a within-run ratio."""
	path = os.path.join(TOP, "scripts", "compare")
	loader = importlib.machinery.SourceFileLoader("mdb_compare", path)
	spec = importlib.util.spec_from_loader("mdb_compare", loader)
	mod = importlib.util.module_from_spec(spec)
	loader.exec_module(mod)
	return mod


class Metric:
	"""One measured quantity: metric name, the benchmark (layout taken
	out), the layout, its values (one per round) and whether it failed."""

	__slots__ = ("metric", "bench", "layout", "values", "error")

	def __init__(self, metric, bench, layout, values, error=None):
		self.metric, self.bench, self.layout = metric, bench, layout
		self.values, self.error = values, error


def metrics(dump):
	"""[Metric] of a loaded mdb_dump.Dump, nsop, then ratio, then footprint."""
	out = []
	for b in dump.native.values():
		if b.layout and b.timed:
			vals = [] if b.error else b.sample("real_time")[0]
			out.append(Metric("nsop", b.key_without_layout(), b.layout, vals, b.error))
	rr = _compare().round_ratios
	ref = dump.reference
	for r, b in mr.reference_pairs(dump):
		err = b.error or r.error
		vals = [] if err else rr(r, b)
		out.append(Metric("ratio", b.key_without_layout(), f"{b.layout}/{ref}", vals, err))
	for (mix, layout, variant), per_gib in mr.footprint_per_mix(dump).items():
		if any(p == md.FOLIO_PARAM for p, _ in variant):
			continue		# the descriptor-size sweep: break-even, not the footprint
		name = " ".join(x for x in (mix or "-", md.variant_label(variant)) if x)
		out.append(Metric("footprint", name.replace(" ", "/"), layout, [per_gib / 1024]))
	return out


def load(path):
	"""The dump at path (a run directory or its mdbench.json), checked."""
	return md.Dump(path)
