#!/bin/sh
# --base-page: a bad size is one line on stderr and exit status 2; a short
# native run at 64k goes through one kernel of each family on every layout
# (--fixed-ops, 1GiB: 16384 entries); a short timed run dumps
# conditions.base_page (the orders, the hugetlb choice, each mix's
# translation, what stays at 4 KiB), the mixes as given in 4 KiB orders,
# and names every benchmark /base:64k; a 4k run names none.  The memmap's
# pages follow the base page: 4k at 64k (arm64's vmemmap on base pages), 2m at 4k.
# usage: test_mdbench_basepage.sh MDBENCH PYTHON
. "$(dirname "$0")/../lib.sh"
mdbench=$1
py=$2

for bad in 8k 4K "" 64 "16k,64k"; do
	rc=0
	"$mdbench" "--base-page=$bad" --fixed-ops=1 >"$tmp/out" 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		grep -q "^mdbench: --base-page=$bad: 4k, 16k or 64k$" "$tmp/err" ||
		{ echo "FAIL: --base-page=$bad: exit $rc"; cat "$tmp/err"; exit 1; }
	echo "ok: --base-page=$bad refused"
done
rc=0
"$mdbench" --base-page=64k --ram=256MiB --fixed-ops=1 >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "^mdbench: --ram: '256MiB' is not a positive multiple of 512MiB" "$tmp/err" ||
	{ echo "FAIL: 256MiB at 64k: exit $rc"; cat "$tmp/err"; exit 1; }
echo "ok: --ram below one 64k pageblock refused"

families='^(alloc/order9|compaction/cluster|convert/page_to_pfn|folio/getput|footprint|init/memmap|lookup/seq|migrate/order9|scan/compaction)/'
"$mdbench" --base-page=64k --ram=1GiB --fixed-ops=20 --counters=none "--benchmark_filter=$families" \
	>"$tmp/fixed" 2>"$tmp/err" || { echo "FAIL: the fixed-ops run"; cat "$tmp/err" "$tmp/fixed"; exit 1; }
"$mdbench" --base-page=64k --ram=1GiB --benchmark_min_time=0.001 --counters=none --rounds=1 \
	--benchmark_filter='^(lookup/seq|scan/compaction|footprint)/' --out="$tmp/run" \
	>"$tmp/out" 2>"$tmp/err" || { echo "FAIL: the dump run"; cat "$tmp/err"; exit 1; }
"$mdbench" --ram=64MiB --benchmark_min_time=0.001 --counters=none --layout=page64 \
	--benchmark_filter='^lookup/seq/' --out="$tmp/run4k" >/dev/null 2>"$tmp/err" ||
	{ echo "FAIL: the 4k run"; cat "$tmp/err"; exit 1; }

"$py" - "$tmp/fixed" "$tmp/run" "$tmp/run4k" "$families" <<'PYEOF'
import json, os, re, sys

fixed, run, run4k, families = sys.argv[1:5]
fails = []
def check(cond, what):
	print(("ok: " if cond else "FAIL: ") + what)
	if not cond:
		fails.append(what)

# One kernel of each family on every layout, each its 20 ops, all named /base:64k.
lines = [l for l in open(fixed).read().splitlines() if l.strip()]
got = {}
for l in lines:
	m = re.fullmatch(r"(\S+): (\d+) items", l)
	check(m is not None, f"fixed-ops line: {l}")
	if m:
		got[m.group(1)] = int(m.group(2))
fams = {n.split("/")[0] for n in got}
check(fams == {"alloc", "compaction", "convert", "folio", "footprint", "init", "lookup",
	       "migrate", "scan"}, f"every family ran: {sorted(fams)}")
check(all("/ram:1GiB/base:64k" in n for n in got), "every name says /ram:1GiB/base:64k")
layouts = {n.split("/")[2] if n.count("/") > 3 and not n.startswith("footprint") else n.split("/")[1]
	   for n in got}
check({"page64", "page64ci", "page32", "memdesc8"} <= layouts, f"every layout: {sorted(layouts)}")

doc = json.load(open(os.path.join(run, "mdbench.json")))
mb = doc["context"]["memdesc_bench"]
bp = mb["conditions"]["base_page"]
check(bp["name"] == "64k" and bp["given"] is True and bp["page_bytes"] == 65536, f"base page {bp['name']}")
check(bp["max_page_order"] == 13 and bp["pageblock_order"] == 13 and bp["section_bits"] == 29,
      "MAX_PAGE_ORDER 13, pageblock_order 13, SECTION_SIZE_BITS 29")
check(bp["hugetlb"] == {"pmd": {"order": 13, "bytes": 512 << 20, "level": "PMD"},
			"pud": {"order": 18, "bytes": 16 << 30, "level": "CONT_PMD"}}, f"hstates {bp['hugetlb']}")
tr = {m["mix"]: m["entries"] for m in bp["mixes"]}
d = tr.get("desktop", [])
anon9 = [e for e in d if e["kind"] == "anon" and e["order_4k"] == 9]
check(len(anon9) == 1 and anon9[0]["order"] == 5 and anon9[0]["bytes"] == 2 << 20 and
      anon9[0]["bytes_4k"] == 2 << 20 and anon9[0]["fraction"] == 0.10, f"anon 2 MiB -> order 5: {anon9}")
anon0 = [e for e in d if e["kind"] == "anon" and e["order_4k"] == 0]
check(len(anon0) == 1 and anon0[0]["order"] == 0 and anon0[0]["bytes"] == 65536 and
      anon0[0]["bytes_4k"] == 4096, f"anon 4 KiB -> one 64 KiB page: {anon0}")
check(len(d) == 28 and abs(sum(e["fraction"] for e in d) - 1) < 1e-9, "every given entry, once")
fixed4k = bp["fixed_4k"]
check({"memmap_host_pages", "kpageflags", "vmstat_projection", "kernel_names", "cold_buffer",
       "page_data"} == set(fixed4k), f"what stays at 4 KiB is named: {sorted(fixed4k)}")
# The mixes as given (4 KiB orders: --mix=FILE reads them back), the names /base:64k.
mix = {m["name"]: m for m in mb["mixes"]}["desktop"]
check({"kind": "anon", "order": 9, "fraction": 0.1} in mix["entries"], "mixes[] as given, in 4 KiB orders")
names = [b["name"] for b in doc["benchmarks"]]
check(names and all("/base:64k" in n for n in names), f"{len(names)} benchmarks named /base:64k")
check(mb["ram_sizes"] == [1 << 30], "RAM 1GiB")
fp = [b for b in doc["benchmarks"] if b["name"].startswith("footprint/page64/mix:desktop/ram:1GiB/base:64k")]
check(fp and fp[0]["memmap_bytes"] == (1 << 30) // 65536 * 64, "page64's memmap: 16384 entries of 64 bytes")

doc4 = json.load(open(os.path.join(run4k, "mdbench.json")))
bp4 = doc4["context"]["memdesc_bench"]["conditions"]["base_page"]
check(bp4["name"] == "4k" and bp4["given"] is False and bp4["pageblock_order"] == 9 and
      bp4["max_page_order"] == 10, "a 4k run records 4k, not given")
check(all("base:" not in b["name"] for b in doc4["benchmarks"]), "4k names unchanged")
check(mb["conditions"]["memmap_pages"] == "4k" and doc4["context"]["memdesc_bench"]["conditions"]["memmap_pages"] == "2m",
      "the memmap's pages follow the base page: 4k at 64k, 2m at 4k")
if fails:
	sys.exit(1)
PYEOF
