#!/usr/bin/python3
"""scripts/project and collect --workload: the projection of stored vmstat
readings (fixtures/vmstat: /proc/vmstat before and after a kernel-module
build on the lab VM) onto the fixture machine "one", whose times are chosen
(make_fixtures.py: every round's time t x a symmetric factor, so that the
Hodges-Lehmann shift of two kernels is the difference of their t exactly);
the kernels' vmstat maps are set here, as mdbench's registrations would.
Then a real workload under collect --workload (fake mdbench) and
project --workload, whose vmstat deltas must hold at least the pages it
wrote."""

import json
import os
import shutil

from testlib import FAKE, PY, Scratch, fixture, load, main, run, script

VM = fixture("vmstat")
# fixtures/vmstat: sum of pgalloc_*, thp_fault_alloc, pgfault deltas.
PGALLOC, THP, PGFAULT = 668704, 628, 395351
SECONDS = 2.0
# Times of fixture "one" (ns/op at 256MiB, 1GiB, 4GiB): alloc/order0 12, 16,
# 18 on page64, page32, memdesc8 at every size; scan/compaction 4, 4, 2.5 at
# 1GiB and 5, 5, 3 at 4GiB.
MAP = {"alloc/order0": [{"counter": "pgalloc_*", "ops_per_event": 1.0},
			{"counter": "thp_fault_alloc", "ops_per_event": -512.0}],
       "scan/compaction": [{"counter": "pgfault", "ops_per_event": 1.0},
			   {"counter": "no_such_counter", "ops_per_event": 1.0}]}


def make_dump(tmp, mapping=MAP, rename=None):
	"""fixtures/one in tmp with the kernels' vmstat maps (and a mix renamed)."""
	d = os.path.join(tmp, "dump")
	shutil.rmtree(d, ignore_errors=True)
	shutil.copytree(fixture("one"), d)
	p = os.path.join(d, "mdbench.json")
	with open(p) as f:
		text = f.read()
	if rename:
		text = text.replace(*rename)
	doc = json.loads(text)
	for k in doc["context"]["memdesc_bench"]["kernels"]:
		k["vmstat"] = mapping.get(k["name"], [])
	with open(p, "w") as f:
		json.dump(doc, f)
	return d


class ProjectCase(Scratch):
	def dump(self, mapping=MAP, rename=None):
		return make_dump(self.tmp, mapping, rename)

	def project(self, *args, dump=None):
		out = os.path.join(self.tmp, "out")
		text, _ = self.ok([PY, script("project"), dump or self.dump(), "--vmstat",
				   os.path.join(VM, "before"), os.path.join(VM, "after"),
				   "--seconds", str(SECONDS), "--out", out, *args])
		return load(os.path.join(out, "projection.json")), text

	def test_projection_exact(self):
		p, text = self.project("--ram", "1GiB")
		self.assertEqual((p["mix"], p["ram_bytes"], p["reference_layout"]),
				 ("desktop", 1 << 30, "page64"))
		k = {o["kernel"]: o for o in p["kernels"]}
		self.assertEqual(k["alloc/order0"]["ops"], PGALLOC - 512 * THP)
		self.assertEqual(k["scan/compaction"]["ops"], PGFAULT)
		self.assertEqual(k["scan/compaction"]["note"], "no_such_counter not in /proc/vmstat")
		self.assertGreater(len(k["alloc/order0"]["terms"][0]["matches"]), 1)	# pgalloc_*
		want = {"alloc/order0": {"page32": 4, "memdesc8": 6},
			"scan/compaction": {"page32": 0, "memdesc8": -1.5}}
		for kernel, per in want.items():
			for lay, d in per.items():
				c = k[kernel]["layouts"][lay]
				self.assertAlmostEqual(c["delta_ns"], d, places=9, msg=(kernel, lay))
				self.assertEqual(c["n"], [5, 5])
				self.assertIsNotNone(c["ci"])
				self.assertLessEqual(c["ci"][0], c["delta_ns"])
				self.assertGreaterEqual(c["ci"][1], c["delta_ns"])
		ra, rs = (PGALLOC - 512 * THP) / SECONDS, PGFAULT / SECONDS
		self.assertAlmostEqual(k["alloc/order0"]["ops_per_second"], ra)
		for lay, v in (("page32", ra * 4), ("memdesc8", ra * 6 - rs * 1.5)):
			t = p["projected"][lay]
			self.assertAlmostEqual(t["ns_per_second"], v, places=3)
			# the interval: the kernels' interval ends times their rates, summed
			lo = sum(k[n]["ops_per_second"] * k[n]["layouts"][lay]["ci"][0] for n in want)
			hi = sum(k[n]["ops_per_second"] * k[n]["layouts"][lay]["ci"][1] for n in want)
			self.assertAlmostEqual(t["ci"][0], lo, places=3)
			self.assertAlmostEqual(t["ci"][1], hi, places=3)
			self.assertIsNone(t["why"])
		self.assertTrue(p["projected"]["page64"]["reference"])
		# the reports' verdict: alloc/order0 12 -> 16 and 18 ns is slower
		self.assertEqual(k["alloc/order0"]["layouts"]["page32"]["verdict"], "slower")
		self.assertIn(", slower |", text)
		self.assertAlmostEqual(p["coverage_at_least"], 0.98)
		self.assertIn(f"| page32 | {ra * 4 / 1e3:.4g} us/s |", text)
		self.assertIn("no footprint on a kpageflags mix", p["footprint"]["why"])
		self.assertIn("pgfree", [u["counter"] for u in p["unmapped"]])
		self.assertNotIn("pgfault", [u["counter"] for u in p["unmapped"]])

	def test_default_ram_is_the_largest(self):
		p, _ = self.project()
		self.assertEqual(p["ram_bytes"], 4 << 30)
		k = {o["kernel"]: o for o in p["kernels"]}
		self.assertAlmostEqual(k["scan/compaction"]["layouts"]["memdesc8"]["delta_ns"], -2,
				       places=9)

	def test_kpageflags_mix_and_footprint(self):
		d = self.dump(rename=("mix:desktop", "mix:kpageflags:lab"))
		p, text = self.project("--ram", "1GiB", dump=d)
		self.assertEqual(p["mix"], "kpageflags:lab")
		fp = p["footprint"]
		self.assertEqual(fp["mix"], "kpageflags:lab")
		doc = load(os.path.join(d, "mdbench.json"))
		for lay in ("page64", "page32", "memdesc8"):
			want = [e["bytes_per_GiB"] for e in doc["benchmarks"]
				if e["run_name"] == f"footprint/{lay}/mix:kpageflags:lab/ram:4GiB"]
			self.assertEqual(fp["bytes_per_GiB"][lay], want[0])
		self.assertIn("## Footprint on this machine's mix", text)

	def test_kernel_with_ops_missing_is_unavailable(self):
		m = dict(MAP, **{"lookup/random": [{"counter": "pgfree", "ops_per_event": 1.0}]})
		d = self.dump(mapping=m)
		doc = load(os.path.join(d, "mdbench.json"))
		doc["benchmarks"] = [e for e in doc["benchmarks"]
				     if not e["run_name"].startswith("lookup/random/page32/")]
		with open(os.path.join(d, "mdbench.json"), "w") as f:
			json.dump(doc, f)
		p, text = self.project("--ram", "1GiB", dump=d)
		self.assertIsNone(p["projected"]["page32"]["ns_per_second"])
		self.assertIn("lookup/random not run on page32", p["projected"]["page32"]["why"])
		self.assertIsNotNone(p["projected"]["memdesc8"]["ns_per_second"])
		self.assertIn("| page32 | unavailable |", text)
		# and one command whose dump completes it: every kernel with ops (one dump serves the
		# projection), every layout, the mix and size
		want = ("mdbench --benchmark_filter='^(lookup/random|scan/compaction|alloc/order0)/' "
			"--layout=page64,page32,memdesc8 "
			"--mix=desktop --ram=1GiB --out=DIR, then project DIR")
		self.assertEqual(p["complete_with"], want)
		self.assertIn(f"Complete it with `{want}`.", text)

	def test_allocations_derived_from_counters(self):
		"""derived:alloc_order0: pgalloc_* less the PMD THPs' pages, an estimate."""
		m = {"alloc/order0": [{"counter": "derived:alloc_order0", "ops_per_event": 1.0},
				      {"counter": "derived:alloc_large", "ops_per_event": 1.0}],
		     "alloc/order9": [{"counter": "derived:alloc_order9", "ops_per_event": 1.0}]}
		p, text = self.project("--ram", "1GiB", dump=self.dump(mapping=m))
		k = {o["kernel"]: o for o in p["kernels"]}
		self.assertEqual(k["alloc/order0"]["ops"], PGALLOC - 512 * THP)
		how = {d["counter"]: d["how"] for d in p["derived"]}
		self.assertEqual({d["counter"]: d["value"] for d in p["derived"]}["derived:alloc_order9"],
				 THP)
		self.assertTrue(how["derived:alloc_order0"].startswith("estimate: pgalloc_* less"))
		self.assertTrue(how["derived:alloc_order9"].startswith("counted: thp_fault_alloc"))
		self.assertIn("## Counters made from others", text)
		# pgalloc_* is taken apart, not left out
		self.assertNotIn("pgalloc_normal", [u["counter"] for u in p["unmapped"]])

	def test_allocations_from_a_trace(self):
		"""--trace: one mm_page_alloc an allocation, its order given; the
		scanners' events in place of their counters."""
		m = {"alloc/order0": [{"counter": "derived:alloc_order0", "ops_per_event": 1.0},
				      {"counter": "derived:alloc_large", "ops_per_event": 1.0}],
		     "alloc/order9": [{"counter": "derived:alloc_order9", "ops_per_event": 1.0}],
		     "scan/compaction": [{"counter": "compact_migrate_scanned", "ops_per_event": 1.0}]}
		tr = os.path.join(self.tmp, "trace")
		ev = ("              dd-97      [000] .....    12.000001: mm_page_alloc: page=0000000012 "
		      "pfn=0x1{} order={} migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE")
		with open(tr, "w") as f:
			f.write("# tracer: nop\n")
			f.write("\n".join(ev.format(i, o) for i, o in enumerate([0] * 5 + [3, 3, 9])) + "\n")
			f.write("   kcompactd0-30      [000] d..1.    13.5: mm_compaction_isolate_migratepages: "
				"range=(0x1000 ~ 0x1200) nr_scanned=512 nr_taken=7\n")
			f.write("  <idle>-0       [000] .....    14.0: mm_page_alloc: page=(nil) pfn=0x0 order=0 "
				"migratetype=0 gfp_flags=GFP_ATOMIC\n")
		p, text = self.project("--ram", "1GiB", "--trace", tr, dump=self.dump(mapping=m))
		k = {o["kernel"]: o for o in p["kernels"]}
		self.assertEqual(k["alloc/order0"]["ops"], 5 + 2)
		self.assertEqual(k["scan/compaction"]["ops"], 512)
		self.assertEqual(p["trace_events"], {"mm_page_alloc": 9,
						     "mm_compaction_isolate_migratepages": 1})
		der = {d["counter"]: d["value"] for d in p["derived"]}
		self.assertEqual((der["derived:alloc_order0"], der["derived:alloc_large"],
				  der["derived:alloc_order9"]), (5, 2, 1))
		self.assertEqual((der["derived:compact_isolated_migrate"],
				  der["derived:compact_isolated_free"]), (7, 0))
		self.assertIn("mm_page_alloc x9", text)
		bad = os.path.join(self.tmp, "empty")
		with open(bad, "w") as f:
			f.write("# tracer: nop\n")
		self.refused([PY, script("project"), self.dump(mapping=m), "--vmstat",
			      os.path.join(VM, "before"), os.path.join(VM, "after"), "--seconds", "1",
			      "--trace", bad], "no event of mm_page_alloc")

	def test_kernel_at_the_nearest_size(self):
		"""The quick profile's dump: a kernel that changes its memmap only at
		256 MiB is taken there, with a note, not left unavailable."""
		d = self.dump()
		doc = load(os.path.join(d, "mdbench.json"))
		doc["benchmarks"] = [e for e in doc["benchmarks"] if not (
			e["run_name"].startswith("alloc/order0/") and "/ram:256MiB" not in e["run_name"])]
		with open(os.path.join(d, "mdbench.json"), "w") as f:
			json.dump(doc, f)
		p, text = self.project("--ram", "4GiB", dump=d)
		k = {o["kernel"]: o for o in p["kernels"]}
		self.assertEqual(k["alloc/order0"]["ram_bytes"], 256 << 20)
		self.assertIn("per-op times at 256MiB: the dump has none at 4GiB", k["alloc/order0"]["note"])
		self.assertAlmostEqual(k["alloc/order0"]["layouts"]["page32"]["delta_ns"], 4, places=9)
		self.assertIsNotNone(p["projected"]["page32"]["ns_per_second"])
		self.assertIsNone(p["complete_with"])

	def test_bad_input(self):
		d = self.dump()
		bad = os.path.join(self.tmp, "bad")
		with open(bad, "w") as f:
			f.write("pgfault 12\nnot a line\n")
		before, after = os.path.join(VM, "before"), os.path.join(VM, "after")
		prog = script("project")
		self.refused([PY, prog, d, "--vmstat", bad, after, "--seconds", "1"], "bad:2: not")
		self.refused([PY, prog, d, "--vmstat", before, after], "go together")
		self.refused([PY, prog, d, "--vmstat", before, after, "--seconds", "0"], "> 0")
		self.refused([PY, prog, d, "--vmstat", before, after, "--seconds", "1",
			      "--mix", "nosuch"], "--mix nosuch")
		self.refused([PY, prog, d, "--vmstat", before, after, "--seconds", "1",
			      "--ram", "2GiB"], "--ram 2GiB")
		self.refused([PY, prog, d], "no workload")
		m = {"alloc/order0": [{"counter": 3}]}
		self.refused([PY, prog, self.dump(mapping=m), "--vmstat", before, after,
			      "--seconds", "1"], "kernels[")


class WorkloadCase(Scratch):
	"""A real workload: 16 MiB written to a file allocate at least 4096
	pages (pgalloc_* counts 1 << order per allocation, whatever the folio
	size) while it runs, whatever else the machine does."""
	PAGES = 4096

	def cmd(self):
		return f"dd if=/dev/zero of={self.tmp}/f bs=1M count=16 status=none"

	def check_record(self, rec):
		d = {k: rec["vmstat_after"][k] - rec["vmstat_before"][k] for k in rec["vmstat_after"]}
		self.assertGreaterEqual(sum(v for k, v in d.items() if k.startswith("pgalloc_")),
					self.PAGES)
		self.assertEqual(rec["exit_status"], 0)
		self.assertGreater(rec["seconds"], 0)
		self.assertEqual(os.path.getsize(os.path.join(self.tmp, "f")), 16 << 20)

	def test_collect_workload(self):
		if not os.access("/proc/vmstat", os.R_OK):
			self.skipTest("no /proc/vmstat")
		res = os.path.join(self.tmp, "res")
		self.ok([PY, script("collect"), "--mdbench", FAKE, "--results", res, "--no-simulate",
			 "--no-plot", "--kpageflags=skip", "--rounds=2", "--rerun-spread=0",
			 "--workload", self.cmd()])
		b = [os.path.join(res, x) for x in os.listdir(res) if not x.endswith(".tar.gz")][0]
		self.check_record(load(os.path.join(b, "workload.json")))
		with open(os.path.join(b, "MANIFEST")) as f:
			man = f.read()
		for rel in ("workload.json", "workload.log", "projection.md", "projection.json"):
			self.assertIn(f"  {rel}\t", man)
		# the fake's kernels map no counter: a projection that says so, no number
		p = load(os.path.join(b, "projection.json"))
		self.assertEqual(p["why"], "the dump has none of the mapped kernels on a layout")
		self.assertTrue(all(t["ns_per_second"] is None or t["reference"]
				    for t in p["projected"].values()))
		# project reads the bundle's own workload.json
		out, _ = self.ok([PY, script("project"), b, "--out", os.path.join(self.tmp, "p")])
		self.assertIn(self.cmd(), out)

	def test_project_workload(self):
		d = make_dump(self.tmp)
		out = os.path.join(self.tmp, "out")
		self.ok([PY, script("project"), d, "--workload", self.cmd(), "--out", out])
		rec = load(os.path.join(out, "workload.json"))
		self.check_record(rec)
		p = load(os.path.join(out, "projection.json"))
		k = {o["kernel"]: o for o in p["kernels"]}
		self.assertGreaterEqual(k["alloc/order0"]["ops"] + 512 * (
			rec["vmstat_after"].get("thp_fault_alloc", 0) -
			rec["vmstat_before"].get("thp_fault_alloc", 0)), self.PAGES)
		rc, _, err = run([PY, script("project"), d, "--workload", "exit 3", "--out", out])
		self.assertEqual(rc, 1, err)
		self.assertIn("project: the workload failed (exit status 3)", err)


if __name__ == "__main__":
	main(needs=("scipy",))
