#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How time and memory grow with the inode count: report (without and
# with its verdict), check, plan and run on scattered small-file images
# of 100k, 1M and 5M inodes (bench/mkscatter.sh, files of 0 or 100 bytes:
# SIZES="0 0 0 100"; 5M inodes take 12 GiB of sparse image, about 4 GiB
# written), each made if missing.  Warm (the image read once first);
# RUNS runs of each read-only command, the fastest kept; run once, on a
# sparse copy, with its undo file beside it.  Prints seconds, peak RSS
# and bytes per inode, and run's journal against the bytes it moved.
# Needs root and a loop device (to make the images), GNU time.
# Usage: bench/scaling.sh [-n RUNS] [WORKDIR]   (default 2, /tmp)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${XFSDEFRAG:-$here/../xfsdefrag}
runs=2
if [ "${1:-}" = -n ]; then runs=$2; shift 2; fi
work=${1:-/tmp}
copy=$work/xfsdefrag-scaling-run.img undo=$work/xfsdefrag-scaling-run.undo
cleanup() { rm -f "$copy" "$undo" "$undo.map"; }
trap cleanup EXIT

# image NAME INODES DIRS SIZE: made if missing
image() {
	local img=$work/xfsdefrag-scaling-$1.img
	[ -e "$img" ] || SIZES="0 0 0 100" "$here/mkscatter.sh" "$img" "$2" "$3" \
		"$4" > /dev/null
	echo "$img"
}

# best LABEL INODES CMD...: the fastest of $runs runs, its peak RSS
best() {
	local label=$1 inodes=$2 t s=0 r=0 i
	shift 2
	for ((i = 0; i < runs; i++)); do
		t=$(mktemp)
		/usr/bin/time -f "%e %M" -o "$t" "$@" > /dev/null 2>&1 ||
			echo "$label: failed (exit $?)" >&2
		read -r secs rss < "$t"
		rm -f "$t"
		if [ "$s" = 0 ] || python3 -c "import sys; sys.exit(not $secs < $s)"; then
			s=$secs r=$rss
		fi
	done
	python3 -c "print('%-28s %8.2f s  peak RSS %7.1f MiB = %4.0f bytes per inode' % ('$label', $s, $r / 1024, $r * 1024 / $inodes))"
}

echo "machine: $(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)), $(free -g | awk '/^Mem:/ {print $2}') GiB, kernel $(uname -r)"
for spec in "100k 100000 100 2g" "1m 1000000 1000 4g" "5m 5000000 5000 12g"; do
	set -- $spec
	img=$(image "$@")
	inodes=$("$bin" report --json --no-verdict "$img" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["scan"]["inodes"])')
	echo
	echo "$1: $img, $inodes inodes (load $(cut -d' ' -f1-3 /proc/loadavg))"
	best "report --no-verdict" "$inodes" "$bin" report --no-verdict "$img"
	best "report (verdict, no probe)" "$inodes" "$bin" report --no-probe "$img"
	best "check" "$inodes" "$bin" check "$img"
	best "plan" "$inodes" "$bin" plan --no-probe "$img"
	cleanup
	cp --sparse=always "$img" "$copy"
	/usr/bin/time -f "%e %M" -o "$work/xfsdefrag-scaling.time" \
		"$bin" run --force --undo "$undo" "$copy" > "$work/xfsdefrag-scaling.out"
	read -r secs rss < "$work/xfsdefrag-scaling.time"
	python3 - "$inodes" "$secs" "$rss" "$(stat -c %s "$undo")" \
		"$work/xfsdefrag-scaling.out" <<'PY'
import re, sys
inodes, secs, rss, undo = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
out = open(sys.argv[5]).read()
moved = float(re.search(r"moved ([0-9.]+) MiB", out).group(1)) * 2**20
print("%-28s %8.2f s  peak RSS %7.1f MiB = %4.0f bytes per inode; moved %.0f MiB, undo file %.0f MiB (%.0f%%)"
      % ("run", secs, rss / 1024, rss * 1024 / inodes, moved / 2**20,
         undo / 2**20, 100 * undo / max(moved, 1)))
PY
	rm -f "$work/xfsdefrag-scaling.time" "$work/xfsdefrag-scaling.out"
done
