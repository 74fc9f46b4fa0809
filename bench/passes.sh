#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run in time-boxed passes against one full run, on the 2 GiB aged image
# of bench/run.sh (made here the same way if WORKDIR has none):
#  - the full run's time T;
#  - runs with --max-time T/3, repeated until nothing is left: passes per
#    run, and after every run xfs_repair -n and the content manifest;
#  - runs with --max-time 0.001 (one pass each): xfs_repair -n and the
#    manifest after every single pass;
#  - the final figures of both (xfs_db frag, free space and its histogram,
#    per AG free blocks, free extents, longest) against the full run's.
# Needs root, loop devices, xfsprogs, python3.
# Usage: bench/passes.sh [WORKDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../xfsdefrag
work=${1:-/tmp/xfsdefrag-bench-run}
mkdir -p "$work"
img=$work/aged.img mnt=$work/mnt
mkdir -p "$mnt"
cleanup() { mountpoint -q "$mnt" && umount "$mnt"; return 0; }
trap cleanup EXIT
[ -f "$img" ] || "$here/run.sh" "$work" > /dev/null

manifest() { mount -o loop,ro,nouuid "$1" "$mnt"; python3 "$here/../tests/manifest.py" "$mnt" > "$2"; umount "$mnt"; }
figures() { "$bin" report --json "$1" > "$work/p.rep.json"; python3 "$here/../tests/passes_check.py" figures "$work/p.rep.json"; }
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
whole() {	# IMAGE WHAT
	local r=ok m=identical
	xfs_repair -n "$1" > /dev/null 2>&1 || r=REJECTED
	manifest "$1" "$work/p.man"
	cmp -s "$work/p.man0" "$work/p.man" || m=DIFFERS
	echo "  $2: xfs_repair -n $r, manifest $m"
}

manifest "$img" "$work/p.man0"
cp --sparse=always "$img" "$work/full.img"
rm -f "$work"/full.undo* "$work"/tb.*.undo* "$work"/one.*.undo*
t0=$(date +%s.%N)
"$bin" run --undo "$work/full.undo" "$work/full.img" > "$work/full.out"
t1=$(date +%s.%N)
T=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$t1")
box=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / 3))" "$T")
figures "$work/full.img" > "$work/full.fig"
echo "full run: $T s; $(head -n 1 "$work/full.fig"); $(sed -n 2p "$work/full.fig")"

for mode in tb one; do
	if [ $mode = tb ]; then lim=$box; else lim=0.001; fi
	w=$work/$mode.img
	cp --sparse=always "$img" "$w"
	echo "--max-time $lim:"
	k=0 total=0
	while [ $k -lt 40 ]; do
		k=$((k + 1))
		t0=$(date +%s.%N)
		"$bin" run --max-time "$lim" --json --undo "$work/$mode.$k.undo" "$w" > "$work/$mode.json"
		t1=$(date +%s.%N)
		np=$(jget "$work/$mode.json" 'd["npasses"]')
		total=$((total + np))
		echo "  run $k: $np passes ($(jget "$work/$mode.json" '", ".join(p["scope"] for p in d["passes"])')) in $(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$t1") s, left $(jget "$work/$mode.json" 'd["left"]["moved_blocks"]') blocks"
		[ "$np" -eq 0 ] || whole "$w" "after run $k"
		[ "$(jget "$work/$mode.json" 'd["complete"]')" = True ] && break
	done
	figures "$w" > "$work/$mode.fig"
	if cmp -s "$work/full.fig" "$work/$mode.fig"; then same="equal to the full run's"
	else same="DIFFERENT from the full run's"; fi
	echo "  $total passes in $k runs; final figures $same ($(head -n 1 "$work/$mode.fig"); $(sed -n 2p "$work/$mode.fig"); $(wc -l < "$work/$mode.fig") lines compared)"
	if cmp -s "$work/full.img" "$w"; then echo "  the image is byte for byte the full run's"
	elif python3 "$here/../tests/cmp_live.py" "$work/full.img" "$w" > /dev/null; then
		echo "  every block in use is byte for byte the full run's (free blocks hold other bytes)"
	else echo "  the image differs from the full run's in blocks in use"; fi
done
