#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report against xfs_db on every fixture: the frag lines and the freesp -s
# histogram (whole filesystem and per AG) must equal what xfs_db printed;
# --json must be valid JSON carrying the same numbers.
# Usage: t-report.sh XFSDEFRAG [FIXTURE...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
[ $# -gt 0 ] && shift
t_tmpdir

t_fixtures "$@"
fixtures=("${FIXTURES[@]}")

# section NAME FILE: the lines of one report section, header dropped
section() {
	sed -n "/^== $1/,/^== /p" "$2" | sed '1d;/^== /d;/^$/d'
}

# expected FIX OUTFILE: a recorded xfs_db freesp output, as we print it:
# report prints xfsprogs 6.15's layout where the filesystem has a
# feature 6.1 did not know (cmd_layout_615), else 6.1's; xfs_db 6.15's
# output for the others becomes 6.1's by dropping its cumulative columns
# and printing the rest at 6.1's widths (the same numbers)
expected() {
	if grep -q 'exchange=0 *metadir=0' "$1/info.out" &&
	   ! grep -q 'parent=1' "$1/info.out"; then
		t_cat "$1/$2" | awk 'NF == 7 && $6 == "blkcdf" {
			printf "%7s %7s %7s %7s %6s\n", $1, $2, $3, $4, $5; next }
			NF == 7 { printf "%7d %7d %7d %7d %6s\n", $1, $2, $3, $4, $5; next }
			{ print }'
	else
		t_cat "$1/$2"
	fi
}

check_fixture() {
	local name=$1 fx=$here/fixtures/$1 img=$T_TMP/image a n
	t_unpack "$fx" "$img" || { t_fail "$name: cannot unpack image"; return; }
	"$bin" report "$img" > "$T_TMP/rep" 2> "$T_TMP/err"
	local rc=$?
	if [ $rc -ne 0 ]; then
		t_fail "$name: report exited $rc: $(head -n 1 "$T_TMP/err")"
		return
	fi
	section "Fragmentation" "$T_TMP/rep" | head -n 3 > "$T_TMP/frag"
	if t_cat "$fx/frag.out" | cmp -s - "$T_TMP/frag"; then
		t_ok "$name: frag equals xfs_db"
	else
		t_fail "$name: frag differs from xfs_db"
		t_cat "$fx/frag.out" | diff - "$T_TMP/frag" | sed 's/^/    /'
	fi
	section "Free space" "$T_TMP/rep" > "$T_TMP/freesp"
	if expected "$fx" freesp.out | cmp -s - "$T_TMP/freesp"; then
		t_ok "$name: freesp equals xfs_db"
	else
		t_fail "$name: freesp differs from xfs_db"
		expected "$fx" freesp.out | diff - "$T_TMP/freesp" | sed 's/^/    /'
	fi
	# per AG, as xfs_db freesp -s -a N
	n=0
	for a in $(ls "$fx" | sed -n 's/^freesp\.ag\([0-9]*\)\.out.*/\1/p'); do
		"$bin" report -a "$a" --top 0 "$img" 2>/dev/null |
			{ section "Free space" /dev/stdin; } > "$T_TMP/fa"
		if expected "$fx" "freesp.ag$a.out" | cmp -s - "$T_TMP/fa"; then
			n=$((n + 1))
		else
			t_fail "$name: freesp -a $a differs from xfs_db"
			expected "$fx" "freesp.ag$a.out" | diff - "$T_TMP/fa" | sed 's/^/    /'
		fi
	done
	[ $n -gt 0 ] && t_ok "$name: freesp equals xfs_db in $n AGs"

	# JSON: valid, and the same numbers as the text
	"$bin" report --json "$img" > "$T_TMP/json" 2>/dev/null
	if python3 - "$T_TMP/json" "$T_TMP/frag" "$T_TMP/freesp" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
frag = open(sys.argv[2]).read()
fs = open(sys.argv[3]).read()
m = re.match(r"actual (\d+), ideal (\d+)", frag)
assert doc["fragmentation"]["actual"] == int(m.group(1)), "actual"
assert doc["fragmentation"]["ideal"] == int(m.group(2)), "ideal"
assert doc["free_space"]["blocks"] == int(re.search(r"total free blocks (\d+)", fs).group(1))
assert doc["free_space"]["extents"] == int(re.search(r"total free extents (\d+)", fs).group(1))
g = doc["geometry"]
assert len(doc["ags"]) == g["agcount"], "ags"
assert sum(a["inodes_used"] for a in doc["ags"]) == doc["scan"]["inodes"]
for key in ("fragmentation", "free_space", "inode_data_distance",
            "directory_locality", "allocation_order"):
    assert key in doc, key
d = doc["inode_data_distance"]["to_first_block"]
assert d["median"] <= d["p90"] <= d["p99"] <= d["max"], "percentiles"
for w in doc["fragmentation"]["worst"]:
    assert w["path"] is None or w["path"].startswith("/"), w
PY
	then
		t_ok "$name: --json is valid and agrees with the text"
	else
		t_fail "$name: --json check failed"
	fi
}

for f in "${fixtures[@]}"; do
	check_fixture "$f"
done
t_summary report
