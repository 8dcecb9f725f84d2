#!/bin/sh
# A short run of the test kernels with --out: mdbench.json is Google
# Benchmark's JSON plus context.memdesc_bench with every field SCHEMA.md
# lists; counters are per item, the unavailable ones absent; the memmap of a
# (layout, mix, RAM) is shared by its benchmarks, a mutating kernel gets a
# fresh one; mix.json and topology.xml sit beside it.
# usage: test_mdbench_dump.sh MDBENCH_TEST PYTHON
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2
L0=$(first_layout)

short_run 0 "$tmp/run" '^test/(faults|halves|mark|seen|fresh)/'
grep -q "^mdbench: 5 benchmark results written to $tmp/run/mdbench.json$" "$tmp/err" ||
	{ echo "FAIL: no closing line on stderr"; cat "$tmp/err"; exit 1; }
grep -q '^test/faults/bytes:1MiB ' "$tmp/out" ||
	{ echo "FAIL: console report lacks test/faults"; cat "$tmp/out"; exit 1; }

"$py" - "$tmp/run" "$mdbench" "$L0" <<'PYEOF'
import json, os, re, sys, xml.etree.ElementTree as ET

d, exe, L0 = sys.argv[1:4]
fails = []
def check(cond, what):
	print(("ok: " if cond else "FAIL: ") + what)
	if not cond:
		fails.append(what)

doc = json.load(open(os.path.join(d, "mdbench.json")))
ctx = doc["context"]
mb = ctx["memdesc_bench"]
for k in ("date", "host_name", "executable", "num_cpus", "caches", "library_build_type"):
	check(k in ctx, f"Google Benchmark context field {k}")
check(mb["schema_version"] == 2, "schema_version 2")
check(re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{8}", mb["run_id"]) is not None, f"run_id {mb['run_id']}")
check(mb["reference_layout"] == L0, "reference_layout")
check(mb["rounds"] == 1, "rounds 1")
check(mb["complete"] is True, "complete true")
check(re.fullmatch(r"[0-9a-f]{40}|unknown", mb["git_commit"]) is not None, f"git_commit {mb['git_commit']}")
check(mb["git_dirty"] in (True, False, None), "git_dirty")
check(mb["argv"][0] == exe and f"--layout={L0}" in mb["argv"], "argv as given")
check(mb["profile"] == "quick", "profile quick")
check(mb["filter"] == "^test/(faults|halves|mark|seen|fresh)/", "filter")
check(mb["nr_selected"] == 5, f"nr_selected {mb['nr_selected']}")
check([l["name"] for l in mb["layouts"]] == [L0], "layouts: the one asked for")
lay = mb["layouts"][0]
check(lay["sizeof_folio"] == lay["desc_sizes"]["folio"] and lay["descriptors"] == any(lay["desc_sizes"].values()),
      f"layout sizes {lay}")
kernels = {k["name"]: k for k in mb["kernels"]}
check(set(kernels) == {"test/faults", "test/halves", "test/mark", "test/seen", "test/fresh"}, f"kernels {sorted(kernels)}")
check(kernels["test/faults"]["class"] == "baseline" and kernels["test/fresh"]["class"] == "mutating" and
      kernels["test/fresh"]["mutates"] is True and kernels["test/mark"]["model"] is False and
      kernels["test/faults"]["unit"] == "page touched", f"kernel metadata {kernels['test/fresh']}")
check([m["name"] for m in mb["mixes"]] == ["desktop"], "mixes desktop")
check(mb["ram_sizes"] == [64 << 20] and mb["ram_names"] == ["64MiB"], "ram_sizes 64MiB")
check(mb["baseline_sizes"] == [(64 << 20) // 4096 * lay["sizeof_page"]], f"baseline_sizes {mb['baseline_sizes']}: the memmap's bytes")
avail = {c["name"]: c for c in mb["counters"]["available"]}
unavail = {c["name"]: c for c in mb["counters"]["unavailable"]}
check(set(avail) | set(unavail) == {"cycles", "instructions", "L1D_load_misses", "LLC_load_misses",
				    "dTLB_load_misses", "page_faults"}, "the default counters")
check("page_faults" in avail and avail["page_faults"]["event"] == "PERF_COUNT_SW_PAGE_FAULTS" and
      avail["page_faults"]["type"] == 1 and avail["page_faults"]["config"] == "0x2" and
      avail["page_faults"]["pfm"] == "perf::PERF_COUNT_SW_PAGE_FAULTS", f"page_faults available: {avail.get('page_faults')}")
check(all(len(c["reason"]) > 10 for c in unavail.values()), "every unavailable counter has a reason")
check(all(c["unscheduled_runs"] == 0 for c in avail.values()), "no unscheduled runs")
if not any(os.path.exists("/sys/bus/event_source/devices/" + p) for p in ("cpu", "cpu_core")):
	check("cycles" in unavail and "PMU" in unavail["cycles"]["reason"], "no CPU PMU: cycles unavailable, with a hint")
check(mb["kernel"]["release"] == os.uname().release and mb["kernel"]["machine"] == os.uname().machine, "kernel")
check(isinstance(mb["cpu_model"], str) and mb["cpu_model"], f"cpu_model {mb['cpu_model']}")
check(mb["perf_event_paranoid"] == int(open("/proc/sys/kernel/perf_event_paranoid").read()), "perf_event_paranoid")
thp = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
check("[" + mb["thp"] + "]" in thp, f"thp {mb['thp']}")
def sysfs(path):
	try:
		return open(path).read().strip()
	except OSError:
		return None
cf = mb["cpufreq"]
check(cf["cpu"] == 0 and cf["governor"] == sysfs("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") and
      cf["driver"] == sysfs("/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver"), f"cpufreq {cf}")
boost, no_turbo = sysfs("/sys/devices/system/cpu/cpufreq/boost"), sysfs("/sys/devices/system/cpu/intel_pstate/no_turbo")
check(cf["boost"] == (boost == "1" if boost is not None else no_turbo == "0" if no_turbo is not None else None),
      f"cpufreq boost {cf['boost']} ({cf['boost_file']})")
hw = mb["hwloc"]
check(hw["pus"] == len(os.sched_getaffinity(0)) or hw["pus"] >= 1, "hwloc pus")
check(hw["packages"] >= 1 and hw["cores"] >= 1 and hw["numa_nodes"] >= 1, "hwloc counts")
l1 = [c for c in hw["caches"] if c["level"] == 1 and c["type"] in ("data", "unified")]
check(len(l1) == 1 and l1[0]["size"] > 0 and l1[0]["line_size"] > 0, "hwloc L1d cache")
check(mb["cpu"] is None and mb["node"] is None and mb["seed"] == 1, "cpu, node, seed")
cond = mb["conditions"]
check(cond["memmap_pages"] == "2m" and cond["desc_age"] == "aged" and cond["slab_freelist_random"] is True and
      cond["desc_churn"] == {"rounds": 4, "fraction": 0.5, "transient_fraction": 0.125,
                               "pfns_move": True} and
      cond["folio_desc_bytes"] is None, f"conditions asked for by default: {cond}")
mm = cond["memmaps"]
check(len(mm) == 1 and mm[0]["layout"] == L0 and mm[0]["mix"] == "desktop" and mm[0]["ram_bytes"] == 64 << 20 and
      mm[0]["builds"] >= 2, f"one memmap noted, built at least twice (shared, then fresh for test/fresh): {mm}")
for m in mm:
	check(0 <= m["memmap_huge_bytes"] <= m["memmap_bytes"] and m["memmap_bytes"] >= (64 << 20) // 4096 * lay["sizeof_page"] and
	      0 <= m["desc_huge_bytes"] <= m["desc_bytes"] and (m["desc_bytes"] > 0) == lay["descriptors"] and
	      (m["desc_adjacency"] is None) == (lay["sizeof_folio"] == 0) and
	      m["folio_desc_bytes"] == lay["sizeof_folio"] and len(m["age_digest"]) == 16,
	      f"what the memmap obtained: {m}")
check(cond["memmaps_short"] == any(m["memmap_huge_bytes"] + m["desc_huge_bytes"] < m["memmap_bytes"] + m["desc_bytes"] for m in mm),
      "memmaps_short says whether any memmap fell short of 2 MiB pages")
check(cond["memmaps_short"] == ("--memmap-pages=2m, but THP" in open(os.path.join(os.path.dirname(d), "err")).read()),
      "a shortfall is said on stderr, once")

names = [b["name"] for b in doc["benchmarks"]]
check(names[:3] == [f"test/mark/{L0}/mix:desktop/ram:64MiB", f"test/seen/{L0}/mix:desktop/ram:64MiB",
		    f"test/fresh/{L0}/mix:desktop/ram:64MiB"] and
      [n.split("/")[1] for n in names[3:]] == ["faults", "halves"], f"benchmarks in order: {names}")
by = {b["name"]: b for b in doc["benchmarks"]}
by.update({"/".join(n.split("/")[:2]): by[n] for n in names[3:]})
by.update({n.replace(f"/{L0}/", "/L0/"): by[n] for n in names[:3]})
for b in doc["benchmarks"]:
	check(b["iterations"] > 0 and b["run_type"] == "iteration" and "items_per_second" in b, f"{b['name']}: iterations {b['iterations']}")
	for c in unavail:
		check(c not in b, f"{b['name']}: unavailable {c} absent")
	for c in avail:
		check(c in b, f"{b['name']}: available {c} present")
# A round is 10 short runs reduced by their 20% trimmed mean (rounds.h), but
# where each run would build a memmap of its own (test/fresh changes it).
rv = mb["round_value"]
check((rv["estimator"], rv["reps"], rv["min_time"]) == ("trim20", 10, 0.001), f"round_value {rv}")
def trim20(v):
	v = sorted(v)[2:-2]
	return sum(v) / len(v)
for b in doc["benchmarks"]:
	rep = b.get("round_rep")
	if b["name"].startswith("test/fresh/"):
		check(rep is None, f"{b['name']}: one run a round, no round_rep")
		continue
	check(rep is not None and rep["reps"] == 10 and len(rep["real_time"]) == len(rep["cpu_time"]) == 10 and
	      abs(b["real_time"] / trim20(rep["real_time"]) - 1) < 1e-9 and
	      abs(b["cpu_time"] / trim20(rep["cpu_time"]) - 1) < 1e-9 and b["repetitions"] == 1,
	      f"{b['name']}: real_time and cpu_time the trimmed mean of its 10 runs' {rep}")
f = by["test/faults"]
check(1.0 <= f["page_faults"] <= 1.05, f"test/faults: {f['page_faults']} page faults per fresh page")
check(f["iterations"] % 64 == 0, "test/faults: iterations a multiple of its batch")
check(f["ops"] == 1.0, f"test/faults: kernel counter per item {f['ops']}")
h = by["test/halves"]
check(0.5 <= h["page_faults"] <= 0.525, f"test/halves: {h['page_faults']} page faults per item, two items per fresh page")
check(h["ops"] == 0.5, f"test/halves: kernel counter per item {h['ops']}")
check(abs(h["items_per_second"] * h["cpu_time"] * 1e-9 - 2.0) < 1e-6, "test/halves: two items per iteration")
mark = by["test/mark/L0/mix:desktop/ram:64MiB"]["refcount_seen"]
shared = by["test/seen/L0/mix:desktop/ram:64MiB"]["refcount_seen"]
fresh = by["test/fresh/L0/mix:desktop/ram:64MiB"]["refcount_seen"]
# mark takes a reference each run, its value the mean of a round's middle runs:
# seen, after them on the same memmap, sees at least as many
check(shared > fresh and shared >= mark > fresh, f"seen sees mark's references (shared {shared}, mark {mark}), fresh does not ({fresh})")

mixes = json.load(open(os.path.join(d, "mix.json")))
check(isinstance(mixes, list) and [m["name"] for m in mixes] == ["desktop"], "mix.json: [desktop]")
check(mixes == mb["mixes"], "mix.json holds the dump's mixes")
root = ET.parse(os.path.join(d, "topology.xml")).getroot()
check(root.tag == "topology" and len(root.findall(".//object[@type='PU']")) == hw["pus"], "topology.xml parses, same PUs")
check(sorted(os.listdir(d)) == [".mdbench.lock", "mdbench.json", "mix.json", "topology.xml"],
      f"nothing else in the directory: {sorted(os.listdir(d))}")
sys.exit(1 if fails else 0)
PYEOF
[ $? -eq 0 ] || exit 1

# The placement options reach the dump.
"$mdbench" --layout=$L0 --ram=64MiB --benchmark_min_time=0.01 --out="$tmp/pinned" \
	--cpu=0 --node=0 --seed=7 --memmap-pages=4k --desc-age=fresh --counters=page_faults,task_clock \
	'--benchmark_filter=^test/(faults|mark)/' >/dev/null 2>"$tmp/err" ||
	{ echo "FAIL: pinned run"; cat "$tmp/err"; exit 1; }
"$py" - "$tmp/pinned/mdbench.json" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
mb = doc["context"]["memdesc_bench"]
c = mb["conditions"]
ok = mb["cpu"] == 0 and mb["node"] == 0 and mb["seed"] == 7
ok = ok and c["memmap_pages"] == "4k" and c["desc_age"] == "fresh" and c["desc_churn"] is None
ok = ok and c["slab_freelist_random"] is True and c["memmaps_short"] is False and len(c["memmaps"]) == 1
ok = ok and all(m["memmap_huge_bytes"] == 0 and m["desc_huge_bytes"] == 0 and m["memmap_bytes"] > 0 and
		m["age_digest"] is None for m in c["memmaps"])
ok = ok and [c["name"] for c in mb["counters"]["available"]] == ["page_faults", "task_clock"]
ok = ok and mb["counters"]["unavailable"] == []
b = [b for b in doc["benchmarks"] if b["name"].startswith("test/faults/")][0]
# Counting excludes the kernel, so task_clock is user time only; test/faults
# spends its time in the fault handler and its user time can round to 0 ns.
ok = ok and 0 <= b["task_clock"] <= b["real_time"] and 1.0 <= b["page_faults"] <= 1.05
print(("ok" if ok else "FAIL") + ": --cpu=0 --node=0 --seed=7 --memmap-pages=4k --desc-age=fresh --counters=page_faults,task_clock:",
      mb["cpu"], mb["node"], mb["seed"], mb["conditions"], mb["counters"], b.get("task_clock"))
sys.exit(0 if ok else 1)
PYEOF
[ $? -eq 0 ] || exit 1

# A replayed trace reaches the dump: the file, its sha256, its events; each
# memmap the trace's compaction (the same on every layout).
T=$(cd "$(dirname "$0")/../machine/fixtures/trace" && pwd)
"$mdbench" --ram=64MiB --benchmark_min_time=0.01 --out="$tmp/traced" --counters=none \
	--desc-age=trace:$T/compact.trace '--benchmark_filter=^test/mark/' >/dev/null 2>"$tmp/err" ||
	{ echo "FAIL: traced run"; cat "$tmp/err"; exit 1; }
"$py" - "$tmp/traced/mdbench.json" "$T/compact.trace" <<'PYEOF'
import hashlib, json, sys
c = json.load(open(sys.argv[1]))["context"]["memdesc_bench"]["conditions"]
want = {"file": sys.argv[2], "sha256": hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest(),
	"placed": False, "events": 246, "allocs": 128, "frees": 118, "allocs_by_order": {"4": 128},
	"peak_pages": 2048, "live_pages": 160}
m = c["memmaps"]
ok = c["desc_age"] == "trace" and c["desc_trace"] == want and c["compaction"] == "on"
ok = ok and c["desc_churn"] is None and len(m) > 1 and len({x["age_digest"] for x in m}) == 1
ok = ok and all(x["age_failures"] == 0 and x["age_compactions"] == m[0]["age_compactions"] and
		x["age_migrated"] == m[0]["age_migrated"] for x in m)
# aging: the trace's machine once (one mix, one size), its compactions those of every memmap
a = json.load(open(sys.argv[1]))["context"]["memdesc_bench"]["aging"]
ok = ok and a["lifetimes"] == "recorded" and len(a["machines"]) == 1
ok = ok and a["compacted_pageblocks"] == m[0]["age_compactions"] == a["machines"][0]["compacted_pageblocks"]
ok = ok and sum(a["machines"][0]["pageblocks"].values()) == 64 * 2**20 // 4096 // 512
print(("ok" if ok else "FAIL") + ": --desc-age=trace:compact.trace:", c["desc_trace"], c["compaction"],
      [(x["layout"], x["age_digest"], x.get("age_compactions"), x.get("desc_adjacency")) for x in m], a)
sys.exit(0 if ok else 1)
PYEOF
[ $? -eq 0 ] || exit 1

# The kernel's events placed at its pfns (placed.trace, test_age.c says what
# it leaves): every layout builds the machine, the dump has its free blocks
# per migratetype and order, the per-cpu pages and the conflict.
"$mdbench" --ram=64MiB --benchmark_min_time=0.01 --out="$tmp/placed" --counters=none \
	--desc-age=trace:$T/placed.trace '--benchmark_filter=^test/mark/' >/dev/null 2>"$tmp/err" ||
	{ echo "FAIL: placed run"; cat "$tmp/err"; exit 1; }
"$py" - "$tmp/placed/mdbench.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))["context"]["memdesc_bench"]
a, t, m = d["aging"], d["conditions"]["desc_trace"], d["conditions"]["memmaps"]
x = a["machines"][0]
free = {k: [i for i, n in enumerate(v) if n] for k, v in x["free_blocks"].items()}
ok = t["placed"] and t["allocs"] == 6 and t["frees"] == 4 and t["events"] == 15
ok = ok and a["lifetimes"] == "recorded, placed at the kernel's pfns" and len(m) > 1
ok = ok and free == {"unmovable": [], "movable": [1], "reclaimable": [3]}
ok = ok and x["pcp_pages"] == 2 and x["placed_conflicts"] == 1 and x["compacted_pageblocks"] == 0
ok = ok and len({y["age_digest"] for y in m}) == 1 and all(y["age_failures"] == 0 for y in m)
print(("ok" if ok else "FAIL") + ": --desc-age=trace:placed.trace:", t, x)
sys.exit(0 if ok else 1)
PYEOF
[ $? -eq 0 ] || exit 1

# The acceptance of the aging's compaction: the default aged desktop machine
# at 1 GiB compacts at least one pageblock (its page cache fills memory to
# the high watermark, so THP allocations find no free pageblock).
"$mdbench" --ram=1GiB --mix=desktop --layout="$L0" --benchmark_min_time=0.01 \
	--out="$tmp/aged1g" --counters=none '--benchmark_filter=^test/mark/' >/dev/null 2>"$tmp/err" ||
	{ echo "FAIL: aged 1GiB run"; cat "$tmp/err"; exit 1; }
"$py" - "$tmp/aged1g/mdbench.json" <<'PYEOF'
import json, sys
a = json.load(open(sys.argv[1]))["context"]["memdesc_bench"]["aging"]
x = a["machines"][0]
ok = a["compacted_pageblocks"] >= 1 and x["ram_bytes"] == 2**30 and x["failures"] == 0
ok = ok and sum(x["pageblocks"].values()) == 512
print(("ok" if ok else "FAIL") + ": aged desktop at 1GiB:", {k: x[k] for k in x if k != "free_blocks"})
sys.exit(0 if ok else 1)
PYEOF
