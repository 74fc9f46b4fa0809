#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What inode renumbering is predicted to give, per fixture (the plan's
# read-back model; nothing is written to the fixtures): the modelled
# 7200 rpm read-back of the tree now, of a fresh copy (tar onto a new mkfs
# with the fixture's options), after a run that keeps inodes
# (--renumber none) and after one that renumbers (--renumber all), the
# ratio to the fresh copy, and the median inode-to-first-data distance
# now / fresh / after.  NOREFLINK=1 first removes the fixtures' reflink
# test directories (their shared blocks cost far jumps a tar copy does
# not have).  Needs root and 2 loop devices (the fresh copies).
# Usage: bench/renumber.sh [WORKDIR] [FIXTURE...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../xfsdefrag
work=${1:-/tmp/xfsdefrag-bench-renumber}
shift || true
[ $# -gt 0 ] || set -- aged bs1k ag16 isize1k-dir8k dirs rmap-nrext64 stripe \
	sect4k-noreflink
mkdir -p "$work"
m1=$work/mnt1 m2=$work/mnt2
mkdir -p "$m1" "$m2"
cleanup() {
	mountpoint -q "$m2" && umount "$m2"
	mountpoint -q "$m1" && umount "$m1"
	return 0
}
trap cleanup EXIT

printf '%-18s %8s %8s %8s %8s %6s | %s\n' fixture now fresh kept renum ratio \
	"median distance now/fresh/after"
for f in "$@"; do
	fx=$here/../tests/fixtures/$f
	img=$work/$f.img fresh=$work/$f.fresh.img
	zstd -dq --sparse -f -o "$img" "$fx/image.zst"
	if [ -n "${NOREFLINK:-}" ]; then
		mount -o loop,nouuid "$img" "$m1"
		rm -rf "$m1/reflink" "$m1/m/reflink"
		umount "$m1"
	fi
	opts=$(sed -n 's/^mkfs: //p' "$fx/mkfs.opts")
	size=$(sed -n 's/^size: //p' "$fx/mkfs.opts")
	rm -f "$fresh"
	truncate -s "$size" "$fresh"
	# shellcheck disable=SC2086
	mkfs.xfs -q -f $opts "$fresh"
	mount -o loop,ro,nouuid "$img" "$m1"
	mount -o loop,nouuid "$fresh" "$m2"
	(cd "$m1" && tar -cf - .) | (cd "$m2" && tar -xpf -)
	umount "$m2"
	umount "$m1"
	"$bin" plan --json --renumber none "$img" > "$work/none.json"
	"$bin" plan --json --renumber all "$img" > "$work/all.json"
	"$bin" plan --json --renumber none "$fresh" > "$work/fresh.json"
	python3 - "$f" "$work/none.json" "$work/all.json" "$work/fresh.json" <<'PY'
import json, sys
name = sys.argv[1]
n, a, fr = (json.load(open(p)) for p in sys.argv[2:5])
now = n["now"]["readback"]["hdd_ms"]
fresh = fr["now"]["readback"]["hdd_ms"]
kept = n["after"]["readback"]["hdd_ms"]
ren = a["after"]["readback"]["hdd_ms"]
print("%-18s %8.0f %8.0f %8.0f %8.0f %6.2f | %d / %d / %d" %
      (name, now, fresh, kept, ren, ren / fresh, n["now"]["distance_median"],
       fr["now"]["distance_median"], a["after"]["distance_median"]))
PY
	rm -f "$img" "$fresh"
done
