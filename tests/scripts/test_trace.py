#!/usr/bin/python3
"""scripts/trace: a trace from stored vmstat readings (fixtures/vmstat,
the kernel-module build on the lab VM) follows their deltas: the rates in
its header are the fixture's exactly, the trace is well formed (every free
names a live folio, the peak it states is the peak it holds and fits the
cap), the THP and file shares of its boot allocations are what the deltas
give (binomial tests), the same seed writes the same file; bad input is one
line and exit 2.  trace_replay.sh runs mdbench on such a trace."""

import os
import re

from scipy import stats

from testlib import PY, Scratch, fixture, main, run, script

VM = [fixture("vmstat", "before"), fixture("vmstat", "after")]
# fixtures/vmstat deltas: sum of pgalloc_*, thp_fault_alloc (+ thp_collapse_alloc 0), pgfree;
# the second reading's nr_anon_pages, nr_file_pages, nr_free_pages.
PGALLOC, THP, ANON, FILE = 668704, 628, 131911, 233680
RAM_PAGES = 64 << 8	# 64MiB
LINE = re.compile(r"(a (\d+) (\d) (anon|file)|f (\d+))\Z")


def vmstat(name):
	with open(fixture("vmstat", name)) as f:
		return dict((k, int(v)) for k, v in (line.split() for line in f if line.strip()))


class Generator(Scratch):
	def trace(self, *extra, seed=1):
		out = os.path.join(self.tmp, f"t{seed}.trace")
		rc, _, err = run([PY, script("trace"), "--vmstat", *VM, "--ram", "64MiB",
				  "--seed", str(seed), "--out", out, *extra])
		self.assertEqual(rc, 0, err)
		with open(out) as f:
			return f.read()

	def parse(self, text):
		"""(events, header lines) of a trace, checked as mdbench would."""
		live, events, head = {}, [], []
		pages = peak = 0
		for n, line in enumerate(text.splitlines(), 1):
			if line.startswith("#"):
				head.append(line)
				continue
			m = LINE.match(line)
			self.assertTrue(m, f"line {n}: {line!r}")
			if m.group(2) is not None:
				fid, order = int(m.group(2)), int(m.group(3))
				self.assertNotIn(fid, live, f"line {n}: allocates a live id")
				live[fid] = order
				pages += 1 << order
				peak = max(peak, pages)
				events.append(("a", order, m.group(4)))
			else:
				fid = int(m.group(5))
				self.assertIn(fid, live, f"line {n}: frees what is not live")
				pages -= 1 << live.pop(fid)
				events.append(("f", None, None))
		return events, head, peak, pages

	def test_follows_the_deltas(self):
		b, a = vmstat("before"), vmstat("after")
		self.assertEqual(sum(a[k] - b[k] for k in a if k.startswith("pgalloc_")), PGALLOC)
		text = self.trace()
		events, head, peak, live = self.parse(text)
		order0 = PGALLOC - THP * 512
		file_share = FILE / (ANON + FILE)
		free_per = (a["pgfree"] - b["pgfree"]) / PGALLOC
		fill = (ANON + FILE) / (ANON + FILE + a["nr_free_pages"])
		target, cap = int(RAM_PAGES * fill), int(RAM_PAGES * (fill + 0.1))
		self.assertIn(f"{PGALLOC} pages allocated (pgalloc_*), {THP} anon and 0 file THPs, "
			      f"{order0} other pages as order-0 folios", head[1])
		self.assertIn(f"file share of order 0 {file_share:.4f}, pages freed per page "
			      f"allocated {free_per:.4f}", head[2])
		m = re.search(r"fill ([\d.]+) \((\d+) pages, at most (\d+)\), seed 1: (\d+) allocations "
			      r"\((\d+) at boot\), (\d+) frees, peak (\d+) pages, (\d+) at the end", head[3])
		self.assertTrue(m, head[3])
		allocs = sum(e[0] == "a" for e in events)
		self.assertEqual([m.group(1), int(m.group(2)), int(m.group(3))],
				 [f"{fill:.4f}", target, cap])
		self.assertEqual([int(m.group(4)), int(m.group(6)), int(m.group(7)), int(m.group(8))],
				 [allocs, len(events) - allocs, peak, live])
		self.assertLessEqual(peak, cap)
		# The boot: allocations only, until the target, at the vmstat mix.
		boot = events[:int(m.group(5))]
		self.assertTrue(all(e[0] == "a" for e in boot))
		self.assertEqual(sum(1 << e[1] for e in boot[:-1]) < target, True)
		thp = sum(e[1] == 9 for e in boot)
		self.assertGreater(stats.binomtest(thp, len(boot), THP / (THP + order0)).pvalue, 1e-3)
		small = [e for e in boot if e[1] == 0]
		files = sum(e[2] == "file" for e in small)
		self.assertGreater(stats.binomtest(files, len(small), file_share).pvalue, 1e-3)
		# Twice the boot's allocations after it, by default.
		self.assertEqual(len(events) - len(boot), 2 * len(boot))

	def test_seeded(self):
		self.assertEqual(self.trace(), self.trace())
		self.assertNotEqual(self.trace(seed=1), self.trace(seed=2))
		events, _, _, _ = self.parse(self.trace("--fill", "0.5", "--events", "100"))
		self.assertGreater(sum(e[0] == "a" for e in events), 0)

	def test_bad_input(self):
		nopg = os.path.join(self.tmp, "nopg")
		with open(VM[1]) as f, open(nopg, "w") as g:
			g.write("".join(line for line in f if not line.startswith("pgalloc_")))
		binary, fifo, big = (os.path.join(self.tmp, n) for n in ("binary", "fifo", "big"))
		with open(binary, "wb") as f:
			f.write(b"pgfree \xff\xfe\n")
		os.mkfifo(fifo)
		with open(big, "w") as f:
			f.truncate(2 << 20)
		# bad input refused, one line: --ram bounded, vmstat and record files regular, of a bounded size, text
		for args, why in (([], "the following arguments are required: --ram"),
				  (["--ram", "1GB"], "not a size"),
				  (["--ram", "1MiB"], "want 2MiB to 64GiB, whole pages"),
				  (["--ram", "100TiB", "--events", "10"], "--ram 100TiB: want 2MiB to 64GiB"),
				  (["--ram", "64MiB", "--fill", "2"], "--fill 2.0: want 0 < F <= 0.9"),
				  (["--ram", "64MiB", "--events", "-1"], "--events -1"),
				  (["--ram", "64MiB", "--vmstat", VM[0], nopg], "no pgalloc_*"),
				  (["--ram", "64MiB", "--vmstat", VM[0], "/nonexistent"],
				   "/nonexistent: no such file"),
				  (["--ram", "64MiB", "--vmstat", VM[0], "/dev/zero"],
				   "/dev/zero: not a regular file"),
				  (["--ram", "64MiB", "--vmstat", fifo, VM[1]], "fifo: not a regular file"),
				  (["--ram", "64MiB", "--vmstat", VM[0], big], "big: larger than 1048576 bytes"),
				  (["--ram", "64MiB", "--vmstat", VM[0], binary], "binary: not UTF-8 text"),
				  (["--ram", "64MiB", "--record", "/dev/zero"], "/dev/zero: not a regular file"),
				  (["--ram", "64MiB", "--record", binary], "binary: not UTF-8 text"),
				  (["--ram", "64MiB", "--workload", ""], "--workload is empty")):
			cmd = [PY, script("trace"), *args]
			if not {"--vmstat", "--record", "--workload"} & set(args):
				cmd += ["--vmstat", *VM]
			rc, out, err = run(cmd)
			self.assertEqual((rc, out, len(err.splitlines())), (2, "", 1), (args, err))
			self.assertTrue(err.startswith("trace: ") and why in err, (args, err))


class Ftrace(Scratch):
	"""--ftrace: fixtures/ftrace/kmem.txt, fourteen events by hand, converted."""

	def test_converted(self):
		rc, out, err = run([PY, script("trace"), "--ftrace", fixture("ftrace", "kmem.txt")])
		self.assertEqual(rc, 0, err)
		# 0x134700 = 1263360: __GFP_ZERO anon, plain movable file, GFP_TRANSHUGE anon, the
		# unmovable order-3 slab page kernel, each with its migratetype; every free kept with
		# its order (one of a page allocated before the log, a batched one); the pfn allocated
		# again (in decimal, as older kernels print it); a refill kept, a zone_locked
		# allocation that mm_page_alloc traces dropped; a drain; an extfrag claim of an
		# order-10 block types both its pageblocks; a failed allocation (pfn -1) dropped
		self.assertEqual(out.splitlines()[1:], [
			"a 1263360 0 anon 1", "a 1263361 0 file 1", "a 1263616 9 anon 1",
			"a 1263872 3 kernel 0", "f 1263360 0", "f 1264640 0", "f 1263361 0",
			"a 1263360 0 file 1", "r 1265664 0", "d 1263360 0", "m 1267712 0", "m 1268224 0"])
		self.assertIn("13 kmem events, 5 allocations, 3 frees, 1 per-cpu drains, 1 refills and "
			      "2 pageblock types kept, 2 dropped, 3 allocations live at the end",
			      out.splitlines()[0])

	def test_bad_input(self):
		long_line = os.path.join(self.tmp, "long.txt")
		with open(long_line, "w") as f:
			f.write("x mm_page_free: pfn=0x1 order=0 " + "y" * 5000 + "\n")
		no_pfn = os.path.join(self.tmp, "nopfn.txt")
		with open(no_pfn, "w") as f:
			f.write("cc1-1 [000] 1.0: mm_page_alloc: order=0 migratetype=1\n")
		fifo = os.path.join(self.tmp, "fifo")
		os.mkfifo(fifo)		# no writer: reading it would wait forever
		for path, want in ((fifo, "not a regular file"), (long_line, "line 1: over 4096 bytes"),
				   (no_pfn, "line 1: mm_page_alloc without its pfn"),
				   (fixture("vmstat", "before"), "no mm_page_alloc or mm_page_free event")):
			rc, out, err = run([PY, script("trace"), "--ftrace", path])
			self.assertEqual((rc, out), (2, ""), err)
			self.assertEqual(len(err.splitlines()), 1, err)
			self.assertIn(want, err)


if __name__ == "__main__":
	main()
