#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How fast the TUI redraws its AG map (and, given a directory, pages a
# listing): xfsdefrag-test --bench-map N tui (the test binary, make
# test-bin) builds the block map once, then
# times N redraws per zoom level without a terminal (curses output goes to
# /dev/null, repainted from scratch each time) and prints ms per redraw.
# Figures, not a pass/fail test.  The target is < 50 ms per full map
# redraw on a 1,000,000-inode image (bench/mkbig.sh IMAGE 1000 1000 4g).
# Usage: bench/tui-map.sh IMAGE [DIR [N]]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${XFSDEFRAG_TEST:-$here/../build/release/xfsdefrag-test}
[ $# -ge 1 ] || { echo "usage: $0 IMAGE [DIR [N]]" >&2; exit 2; }
img=$1 dir=${2:-} n=${3:-20}
[ -x "$bin" ] || { echo "$0: no binary $bin (make test-bin, or set XFSDEFRAG_TEST)" >&2; exit 2; }
echo "== $img: $("$bin" info "$img" 2>/dev/null | sed -n 's/.*agcount=\([0-9]*\), agsize=\([0-9]*\) blks.*/\1 AGs of \2 blocks/p')"
# the first run warms the page cache; report the second
"$bin" --bench-map 1 tui ${dir:+--path "$dir"} "$img" >/dev/null
TERM=${TERM:-xterm-256color} "$bin" --bench-map "$n" tui ${dir:+--path "$dir"} "$img"
