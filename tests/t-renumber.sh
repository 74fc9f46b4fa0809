#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Inode renumbering through the command line, on image files (no mount):
#   - plan --renumber all: says how many inodes it renumbers into how many
#     chunks, text and JSON agree, and the predicted read-back and median
#     inode-to-data distance are no worse than without renumbering;
#   - plan --renumber none: the three renumbering counts 0; the plan
#     without the option is --renumber auto's;
#   - plan --inode32 on a filesystem whose inodes are all below 2^32: the
#     plan of --renumber all;
#   - bad values are usage errors;
#   - run --map: a path that cannot be created stops the run before it
#     writes anything (no undo file, image unchanged); after a run with
#     --renumber none the map is empty; run --renumber all writes one
#     "old new" line per renumbered inode, each number once, and leaves
#     a filesystem xfs_repair -n accepts.
# Usage: t-renumber.sh XFSDEFRAG [FIXTURE...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
[ $# -gt 0 ] && shift
t_tmpdir

if [ $# -eq 0 ]; then
	set -- aged bs1k v4
fi
t_fixtures "$@"

check_plan() {
	local name=$1 img=$T_TMP/$1.img n nt
	t_unpack "$here/fixtures/$name" "$img" ||
		{ t_fail "$name: cannot unpack"; return; }
	"$bin" plan --json --renumber all "$img" > "$T_TMP/all.json" 2>&1 ||
		{ t_fail "$name: plan --renumber all failed"; return; }
	"$bin" plan --renumber all "$img" > "$T_TMP/all.txt" 2>&1
	n=$(t_json "$T_TMP/all.json" 'd["inodes_renumbered"]')
	nt=$(sed -n 's/^would renumber \([0-9]*\) inodes.*/\1/p' "$T_TMP/all.txt")
	if [ "$n" -gt 0 ] && [ "$n" = "$nt" ]; then
		t_ok "$name: plan --renumber all renumbers $n inodes (text and JSON)"
	else
		t_fail "$name: renumbered $n (JSON) / '$nt' (text)"
	fi
	# (no read probe: the verdict's time differs from one read to the next)
	"$bin" plan --json --no-probe --renumber none "$img" > "$T_TMP/none.json" 2>&1
	"$bin" plan --json --no-probe --renumber auto "$img" > "$T_TMP/auto.json" 2>&1
	"$bin" plan --json --no-probe "$img" > "$T_TMP/dflt.json" 2>&1
	# the default is auto
	if t_json "$T_TMP/none.json" '[d.pop(k) for k in ("inodes_renumbered", "inode_chunks_allocated", "inode_chunks_freed")] == [0, 0, 0]' |
	   grep -qx True &&
	   cmp -s "$T_TMP/auto.json" "$T_TMP/dflt.json"; then
		t_ok "$name: --renumber none renumbers nothing; the default is auto"
	else
		t_fail "$name: --renumber none renumbers, or the default is not auto"
	fi
	if python3 - "$T_TMP/all.json" "$T_TMP/none.json" <<'PY'
import json, os, sys
a, n = (json.load(open(f)) for f in sys.argv[1:3])
ra, rn = a["after"]["readback"], n["after"]["readback"]
# the whole tree and the metadata walk alike (renumbering puts the
# inodes together, away from their data: the distance grows, by design)
ok = ra["hdd_ms"] <= rn["hdd_ms"] and \
     ra["metadata"]["hdd_ms"] <= rn["metadata"]["hdd_ms"]
if os.environ.get("T_VERBOSE") or not ok:
    print("read-back %.0f -> %.0f ms, metadata walk %.0f -> %.0f ms" %
          (rn["hdd_ms"], ra["hdd_ms"], rn["metadata"]["hdd_ms"],
           ra["metadata"]["hdd_ms"]))
sys.exit(0 if ok else 1)
PY
	then
		t_ok "$name: renumbering does not make the predicted read-back worse"
	else
		t_fail "$name: renumbering makes the predicted read-back worse"
	fi
	"$bin" plan --json --renumber all --inode32 "$img" > "$T_TMP/i32.json" 2>&1
	if [ "$(t_json "$T_TMP/i32.json" 'd["inodes_renumbered"], d["moved_blocks"]')" = \
	     "$(t_json "$T_TMP/all.json" 'd["inodes_renumbered"], d["moved_blocks"]')" ]; then
		t_ok "$name: --inode32 with every inode below 2^32 plans as --renumber all"
	else
		t_fail "$name: --inode32 changes a plan with nothing above 2^32"
	fi
}

check_usage() {
	local img=$T_TMP/aged.img rc
	"$bin" plan --renumber sometimes "$img" > /dev/null 2>&1
	rc=$?
	if [ $rc -eq 2 ]; then t_ok "--renumber sometimes: usage error"
	else t_fail "--renumber sometimes: exit $rc, not 2"; fi
}

check_run() {
	local name=aged img=$T_TMP/run.img sum rc n
	t_unpack "$here/fixtures/$name" "$img" || { t_fail "cannot unpack"; return; }
	sum=$(md5sum < "$img")
	( cd "$T_TMP" && "$bin" run --map "$T_TMP/no/such/dir/map" \
		--undo "$T_TMP/u1" "$img" > "$T_TMP/r1" 2>&1 )
	rc=$?
	if [ $rc -ne 0 ] && [ ! -e "$T_TMP/u1" ] && [ "$(md5sum < "$img")" = "$sum" ]; then
		t_ok "run --map to a path that cannot be made: exit $rc, nothing written"
	else
		t_fail "run --map to a bad path: exit $rc, undo file $(test -e "$T_TMP/u1" && echo made || echo none)"
	fi
	# what the plan of this very image renumbers, for the map's length
	"$bin" plan --json --renumber all "$img" > "$T_TMP/run-plan.json" 2>&1
	"$bin" run --renumber all --map "$T_TMP/map" --undo "$T_TMP/u2" "$img" \
		> "$T_TMP/r2" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		n=$(t_json "$T_TMP/run-plan.json" 'd["inodes_renumbered"]' 2>/dev/null)
		if awk 'NF != 2 || $1 !~ /^[0-9]+$/ || $2 !~ /^[0-9]+$/ || o[$1]++ || w[$2]++ {bad = 1}
			END {exit bad}' "$T_TMP/map" && [ "$(wc -l < "$T_TMP/map")" -gt 0 ]; then
			t_ok "run --renumber all --map: $(wc -l < "$T_TMP/map") lines of old new, each number once"
		else
			t_fail "run --renumber all --map: malformed map"
		fi
		if [ "$(wc -l < "$T_TMP/map")" = "$n" ]; then
			t_ok "run --renumber all --map: one line per inode the plan renumbers"
		else
			t_fail "run --renumber all --map: $(wc -l < "$T_TMP/map") lines, the plan renumbers $n"
		fi
		if ! command -v xfs_repair > /dev/null; then
			t_skip "xfs_repair -n after renumbering: no xfs_repair"
		elif xfs_repair -n "$img" > "$T_TMP/repair" 2>&1; then
			t_ok "xfs_repair -n accepts the renumbered filesystem"
		else
			t_fail "xfs_repair -n after renumbering: $(grep -v '^ *-\|^Phase\|^No modify' "$T_TMP/repair" | head -n 3 | tr '\n' ' ')"
		fi
		"$bin" undo "$T_TMP/u2" "$img" > /dev/null 2>&1
		rm -f "$T_TMP/u2" "$T_TMP/u2.map"
	else
		t_fail "run --renumber all: exit $rc: $(tail -n 1 "$T_TMP/r2")"
	fi
	"$bin" run --renumber none --map "$T_TMP/map0" --undo "$T_TMP/u3" "$img" \
		> "$T_TMP/r3" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ -f "$T_TMP/map0" ] && [ ! -s "$T_TMP/map0" ]; then
		t_ok "run --renumber none --map: an empty map"
	else
		t_fail "run --renumber none --map: exit $rc, map $(wc -c < "$T_TMP/map0" 2>/dev/null) bytes"
	fi
}

for f in "${FIXTURES[@]}"; do
	check_plan "$f"
done
check_usage
t_case run && check_run
t_summary
