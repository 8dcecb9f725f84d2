#!/bin/sh
# The fleet through Ansible (integrations/ansible/collect.yml), offline: an
# inventory of three local hosts (ansible_connection=local, each its own
# results folder), two that collect a tiny run and one whose collect fails
# (a bad option).  The playbook must end well, bring back both bundles,
# report the failed host with collect's own line and keep the others; then
# scripts/fleet reads both bundles into one report whose headline pivot,
# verdict lines and footprint table are those of the dumps.
#
#	test_fleet.sh MDBENCH
set -eu
mdbench=$(realpath "$1")
. "$(dirname "$0")/vendor.sh"
need_cmd ansible-playbook ansible
py=/usr/bin/python3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/hosts.ini" <<INV
[lab]
h1 ansible_connection=local mdb_results=$tmp/h1
h2 ansible_connection=local mdb_results=$tmp/h2
h3 ansible_connection=local mdb_results=$tmp/h3 mdb_collect_args="--rounds=0"
[lab:vars]
ansible_python_interpreter=$py
mdb_collect_args="--mdbench=$mdbench --no-setup --no-simulate --no-plot --rounds=3 --rerun-spread=0 --ram=64MiB --layout=page64,memdesc8 --benchmark_filter=^(lookup/random|footprint)/"
INV
# Ansible's own files in the test's folder, not the user's home
ANSIBLE_CONFIG="$top/integrations/ansible/ansible.cfg" ANSIBLE_LOCAL_TEMP="$tmp/at" \
ANSIBLE_REMOTE_TEMP="$tmp/rt" ANSIBLE_ASYNC_DIR="$tmp/async" ANSIBLE_NOCOLOR=1 \
	ansible-playbook -i "$tmp/hosts.ini" "$top/integrations/ansible/collect.yml" \
	-e "mdb_fetch_dir=$tmp/fleet" >"$tmp/play.log" 2>&1 ||
	{ tail -n 40 "$tmp/play.log"; fail "ansible-playbook"; }
cat "$tmp/fleet/fleet-status.txt"
for h in h1 h2; do
	n=$(ls "$tmp/fleet/$h"/*.tar.gz 2>/dev/null | wc -l)
	[ "$n" -eq 1 ] || fail "$h: $n bundles brought back, 1 wanted"
	grep -Eq "^$h: (ok|partial): collect: (complete|partial); bundle $tmp/$h/" "$tmp/fleet/fleet-status.txt" ||
		fail "$h: not reported as collected"
done
[ ! -e "$tmp/fleet/h3" ] || fail "h3: a bundle from a collect that failed at its options"
grep -q "^h3: FAILED: collect: --rounds '0': .* (exit 2)$" "$tmp/fleet/fleet-status.txt" ||
	fail "h3: its failure not reported with collect's line"
grep -Eq 'h3 +: .*rescued=1' "$tmp/play.log" || fail "h3 not rescued"

# The report of both bundles, checked against the dumps.
"$top/scripts/fleet" "$tmp"/fleet/h1/*.tar.gz "$tmp"/fleet/h2/*.tar.gz --out "$tmp/fleet.md" ||
	fail "scripts/fleet"
sed -n 1,40p "$tmp/fleet.md"
for h in h1 h2; do
	mkdir -p "$tmp/x/$h"
	tar -xzf "$tmp"/fleet/$h/*.tar.gz -C "$tmp/x/$h"
done
"$py" - "$top/scripts/lib" "$tmp/fleet.md" "$tmp"/x/h1/* "$tmp"/x/h2/* <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import mdb_dump as md, mdb_report as mr
report = open(sys.argv[2]).read()
dumps = md.load_dumps(sys.argv[3:])
bad = []
def want(text, why):
	if text not in report:
		bad.append(f"{why}: {text!r} not in the report")
header = "| kernel | layout | " + " | ".join(md.md_cell(d.label) for d in dumps) + " |"
want(header, "headline pivot's header")
rows = {}
for d in dumps:
	_, _, hr = mr.headline_rows(d, 0.01)
	if not hr:
		bad.append(f"{d.label}: no headline row")
	for kernel, ram, layout, n, ratio, ci, verdict in hr:
		rows.setdefault((kernel, layout), []).append(f"{ratio} ({ci}) {verdict}, {ram}, n {n}")
for (kernel, layout), cells in rows.items():
	want(f"| {md.md_cell(kernel)} | {md.md_cell(layout)} | " + " | ".join(cells) + " |", "pivot row")
	if f"`{kernel}` {layout}: **" not in report:
		bad.append(f"no verdict line for {kernel} {layout}")
kpf = [d for d in dumps if any(m["name"].startswith("kpageflags:") for m in d.mb.get("mixes", []))]
for d in kpf:
	want(f"| {md.md_cell(d.label)} | kpageflags:", "kpageflags footprint row")
if len(kpf) < len(dumps):
	want("No snapshot (collect takes it as root)", "machines without a snapshot")
for b in bad:
	print("FAIL:", b)
sys.exit(1 if bad else 0)
PYEOF
# bad input: one line, exit status 2
echo junk >"$tmp/junk.tar.gz"
rc=0
"$top/scripts/fleet" "$tmp/junk.tar.gz" >"$tmp/out" 2>"$tmp/err" || rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^fleet: ' "$tmp/err" ||
	fail "fleet on a bad bundle: exit $rc, stderr $(cat "$tmp/err")"
echo "fleet: 2 bundles of 3 hosts, h3 reported failed, report checked"
