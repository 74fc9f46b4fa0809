#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Compare xfsdefrag with the outputs the real xfsprogs recorded for every
# committed fixture (tests/fixtures/NAME/): xfs_info, and xfs_bmap with
# each option set for every path, plus -i on every inode number.
# Usage: t-fixtures.sh XFSDEFRAG [FIXTURE...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
t_tmpdir

fixtures=("$@")
if [ ${#fixtures[@]} -eq 0 ]; then
	for d in "$here"/fixtures/*/; do
		[ -f "$d/image.zst" ] && fixtures+=("$(basename "$d")")
	done
fi
[ ${#fixtures[@]} -gt 0 ] || { t_fail "no fixtures found"; t_summary fixtures; exit; }

# show the first differing lines of two files
show_diff() {
	diff -u "$1" "$2" | head -n 20 | sed 's/^/    /'
}

check_fixture() {
	local name=$1 fx=$here/fixtures/$1 img=$T_TMP/image
	t_unpack "$fx" "$img" || { t_fail "$name: cannot unpack image"; return; }

	# info: the first ten lines are xfs_info's, byte for byte
	if t_have "$fx/info.out"; then
		(cd "$T_TMP" && "$bin" info image) > "$T_TMP/got" 2> "$T_TMP/err"
		head -n 10 "$T_TMP/got" > "$T_TMP/got10"
		if t_cat "$fx/info.out" | cmp -s - "$T_TMP/got10"; then
			t_ok "$name: info"
		else
			t_fail "$name: info differs from xfs_info"
			t_cat "$fx/info.out" > "$T_TMP/exp"; show_diff "$T_TMP/exp" "$T_TMP/got10"
		fi
	fi

	# bmap with each option set, all paths in one pass
	local set opts out
	for set in "bmap-v:-v" "bmap-vp:-vp" "bmap-a:-a" "bmap-vv:-vv" \
		   "bmap:" "bmap-l:-l"; do
		out=${set%%:*}
		opts=${set#*:}
		t_have "$fx/$out.out" || continue
		t_cat "$fx/$out.out" > "$T_TMP/exp"
		(cd "$T_TMP" && xargs -0 -r "$bin" bmap $opts image \
			< "$fx/paths") > "$T_TMP/got" 2> "$T_TMP/err"
		if cmp -s "$T_TMP/exp" "$T_TMP/got"; then
			t_ok "$name: bmap $opts ($(tr -cd '\0' < "$fx/paths" | wc -c) paths)"
		else
			t_fail "$name: bmap $opts differs from xfs_bmap"
			show_diff "$T_TMP/exp" "$T_TMP/got"
			head -n 5 "$T_TMP/err" | sed 's/^/    /'
		fi
	done
}

for f in "${fixtures[@]}"; do
	check_fixture "$f"
done
t_summary fixtures
