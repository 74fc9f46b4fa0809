#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Compare xfsdefrag with the outputs the real xfsprogs recorded for every
# committed fixture (tests/fixtures/NAME/): xfs_info, and xfs_bmap with
# each option set for every path, plus -i on every inode number.
# Usage: t-fixtures.sh XFSDEFRAG [FIXTURE...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
[ $# -gt 0 ] && shift
t_tmpdir

t_fixtures "$@"
fixtures=("${FIXTURES[@]}")

# show the first differing lines of two files
show_diff() {
	diff -u "$1" "$2" | head -n 20 | sed 's/^/    /'
}

check_fixture() {
	local name=$1 fx=$here/fixtures/$1 img=$T_TMP/image
	t_unpack "$fx" "$img" || { t_fail "$name: cannot unpack image"; return; }

	# info: the first lines are xfs_info's, byte for byte.  Without
	# exchange, parent, metadir or zoned, info prints xfsprogs 6.1's
	# layout: xfs_info 6.15's output without the lines it added, which
	# must then all say 0 (the sed leaves any other value, to differ).
	if t_have "$fx/info.out"; then
		(cd "$T_TMP" && "$bin" info image) > "$T_TMP/got" 2> "$T_TMP/err"
		t_cat "$fx/info.out" > "$T_TMP/exp"
		if ! grep -q 'exchange=' "$T_TMP/got"; then
			sed -i -e '/^ *= *exchange=0 *metadir=0$/d' \
				-e 's/^\(naming .*\), parent=0$/\1/' \
				-e '/^ *= *rgcount=0 *rgsize=0 extents$/d' \
				-e '/^ *= *zoned=0 *start=0 reserved=0$/d' "$T_TMP/exp"
		fi
		head -n "$(wc -l < "$T_TMP/exp")" "$T_TMP/got" > "$T_TMP/got10"

		if cmp -s "$T_TMP/exp" "$T_TMP/got10"; then
			t_ok "$name: info ($(grep -q 'exchange=' "$T_TMP/got" && echo 'xfsprogs 6.15 layout' || echo 'xfsprogs 6.1 layout'))"
		else
			t_fail "$name: info differs from xfs_info"
			show_diff "$T_TMP/exp" "$T_TMP/got10"
		fi
	fi

	# bmap with each option set, all paths in one pass
	local set opts out
	t_cat "$fx/paths" > "$T_TMP/paths"
	for set in "bmap-v:-v" "bmap-vp:-vp" "bmap-a:-av" "bmap-vv:-vv" \
		   "bmap:" "bmap-l:-l"; do
		out=${set%%:*}
		opts=${set#*:}
		t_have "$fx/$out.out" || continue
		t_cat "$fx/$out.out" > "$T_TMP/exp"
		(cd "$T_TMP" && xargs -0 -r "$bin" bmap $opts image \
			< "$T_TMP/paths") > "$T_TMP/got" 2> "$T_TMP/err"
		if cmp -s "$T_TMP/exp" "$T_TMP/got"; then
			t_ok "$name: bmap $opts ($(tr -cd '\0' < "$T_TMP/paths" | wc -c) paths)"
		else
			t_fail "$name: bmap $opts differs from xfs_bmap"
			show_diff "$T_TMP/exp" "$T_TMP/got"
			head -n 5 "$T_TMP/err" | sed 's/^/    /'
		fi
	done
	check_inodes "$name" "$fx"
}

# Header lines name the file: make them equal.  Rows are "%4d: [" (from
# row 1000 on without a leading blank), so a header is what is not a row.
norm_headers() {
	sed -E -e '/^( *[0-9]+: \[|\t| EXT: | FLAG Values:|    0)/b' \
	       -e 's/.*: no extents$/HDR: no extents/;t' -e 's/.*/HDR:/'
}

# bmap -i: every path's inode (symlinks followed) maps as the path does;
# a symlink's own inode maps as xfs_db's "bmap -d" says.
check_inodes() {
	local name=$1 fx=$2
	t_have "$fx/inodes.followed" && t_have "$fx/bmap-v.out" || return
	t_cat "$fx/inodes.followed" | awk '{print $1}' > "$T_TMP/inos"
	(cd "$T_TMP" && xargs -r "$bin" bmap -v -i image < "$T_TMP/inos") \
		2>/dev/null | norm_headers > "$T_TMP/got"
	t_cat "$fx/bmap-v.out" | norm_headers > "$T_TMP/exp"
	if cmp -s "$T_TMP/exp" "$T_TMP/got"; then
		t_ok "$name: bmap -v -i INO equals bmap -v PATH for every path"
	else
		t_fail "$name: bmap -v -i differs from the path maps"
		show_diff "$T_TMP/exp" "$T_TMP/got"
	fi

	t_have "$fx/xfsdb-bmap.out" && t_have "$fx/inodes" || return
	local bs agblocks
	bs=$(sed -n 's/.*bsize=\([0-9]*\) *blocks=.*/\1/p' "$fx/info.out" | head -n 1)
	agblocks=$(sed -n 's/.*agsize=\([0-9]*\) blks.*/\1/p' "$fx/info.out")
	t_have "$fx/xfsdb-core.out" || return
	# symlink inodes, in the order xfs_db printed them
	t_cat "$fx/inodes" | awk '$2 == "l" {print $1}' > "$T_TMP/lnk"
	t_cat "$fx/xfsdb-bmap.out" | awk 'FNR == NR { w[$1] = 1; next }
		/^== / && ($2 in w) && !seen[$2]++ { print $2 }' "$T_TMP/lnk" - \
		> "$T_TMP/links"
	[ -s "$T_TMP/links" ] || return
	t_cat "$fx/xfsdb-core.out" | awk '/^== / { i = $2 } /^core.size/ { print i, $3 }' \
		> "$T_TMP/sizes"
	# xfs_db: "data offset O startblock B (A/AB) count C flag F"; the
	# kernel maps no further than the size (rounded up to a block)
	t_cat "$fx/xfsdb-bmap.out" | awk -v bs="$bs" -v agb="$agblocks" '
		FILENAME == ARGV[1] { want[$1] = 1; next }
		FILENAME == ARGV[2] { size[$1] = $2; next }
		/^== / { ino = $2; inw = (ino in want) && !done[ino]++
			 if (inw) { printf "%s:\n", ino; n = 0; end = int((size[ino] + bs - 1) / bs) }
			 next }
		/^-- attr/ { inw = 0; next }
		inw && $1 == "data" && $3 < end {
			bb = bs / 512; split($6, a, "[(/)]"); c = $8
			if ($3 + c > end) c = end - $3
			d = (a[2] * agb + a[3]) * bb
			printf "\t%d: [%d..%d]: %d..%d\n", n++, $3 * bb, ($3 + c) * bb - 1, d, d + c * bb - 1
		}' "$T_TMP/links" "$T_TMP/sizes" - |
		awk '/^[0-9]+:$/ { if (h) print h ": no extents"; h = substr($0, 1, length($0) - 1); next }
		     { if (h) print h ":"; h = ""; print }
		     END { if (h) print h ": no extents" }' > "$T_TMP/exp"
	(cd "$T_TMP" && xargs -r "$bin" bmap -i image < "$T_TMP/links") \
		> "$T_TMP/got" 2>/dev/null
	if cmp -s "$T_TMP/exp" "$T_TMP/got"; then
		t_ok "$name: bmap -i of $(wc -l < "$T_TMP/links") symlink inodes equals xfs_db"
	else
		t_fail "$name: bmap -i of symlink inodes differs from xfs_db"
		show_diff "$T_TMP/exp" "$T_TMP/got"
	fi
}

for f in "${fixtures[@]}"; do
	check_fixture "$f"
done
t_summary fixtures
