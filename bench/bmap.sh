#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bmap speed and directory-lookup cost on a 1 GiB image:
#  - wall time of one `xfsdefrag bmap -v` call (target: under 20 ms),
#    next to `xfs_bmap -v` of the same file on the loop-mounted copy;
#  - how many directory blocks a lookup inside a 100,000-entry directory
#    reads (target: a handful, not the directory).
# Needs root, a loop device and hyperfine.  Usage: bench/bmap.sh [WORKDIR]
set -euo pipefail
bin=$(cd "$(dirname "$0")/.." && pwd)/xfsdefrag
work=${1:-/tmp/xfsdefrag-bench-bmap}
mkdir -p "$work"
img=$work/image mnt=$work/mnt
mkdir -p "$mnt"
cleanup() { mountpoint -q "$mnt" && umount "$mnt"; return 0; }
trap cleanup EXIT

if [ ! -f "$img" ]; then
	truncate -s 1g "$img"
	mkfs.xfs -q -f "$img"
	mount -o loop "$img" "$mnt"
	mkdir "$mnt/big"
	python3 - "$mnt" <<'PY'
import os, sys
root = sys.argv[1]
for i in range(100000):
    os.close(os.open("%s/big/entry-%06d" % (root, i), os.O_CREAT | os.O_WRONLY, 0o644))
# a file of 2000 extents: one block written every other block, synced
fd = os.open(root + "/fragmented", os.O_CREAT | os.O_WRONLY, 0o644)
for i in range(2000):
    os.pwrite(fd, b"x" * 4096, i * 8192)
    if i % 50 == 0:
        os.fsync(fd)
os.close(fd)
PY
	umount "$mnt"
fi

echo "== directory lookup in a 100,000-entry directory"
"$bin" bmap --stats "$img" big/entry-054321 big/entry-000007 big/entry-099999 \
	2>&1 >/dev/null | tail -n 1
echo "== wall time of one bmap -v call (fragmented file, and a file in big/)"
hyperfine -N --warmup 5 --runs 50 \
	"$bin bmap -v $img fragmented" \
	"$bin bmap -v $img big/entry-054321" 2>/dev/null | grep -E "Time|±|Benchmark"
mount -o loop,ro "$img" "$mnt"
echo "== xfs_bmap -v on the mounted copy, for scale"
hyperfine -N --warmup 5 --runs 50 "xfs_bmap -v $mnt/fragmented" 2>/dev/null |
	grep -E "Time|Benchmark"
umount "$mnt"
