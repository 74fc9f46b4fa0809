#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Make a benchmark image laid out as a filesystem in use is, not as
# bench/mkbig.sh's (one directory after another): INODES files spread
# round-robin over DIRS directories, created by WRITERS processes at
# once (writer w makes files w, w + WRITERS, ...; file i goes into
# directory i mod DIRS), each file 0, 100, 4,096 or 8,192 bytes (chosen
# by a fixed pseudo-random sequence of i).  So each directory's files
# are spread over many inode chunks shared with other directories, and
# their data is interleaved with everyone's.  Defaults: 1,000,000 files
# in 1,000 directories by 2 writers on a 16 GiB sparse image (about
# 4 GiB of it data).  Needs root and a loop device.
# Usage: bench/mkscatter.sh IMAGE [INODES] [DIRS] [SIZE] [WRITERS]
#   MKFS_OPTS goes to mkfs.xfs; SIZES (e.g. "0 100") replaces the sizes.
set -euo pipefail
img=$1 inodes=${2:-1000000} dirs=${3:-1000} size=${4:-16g} writers=${5:-2}
mnt=$(mktemp -d /tmp/xfsdefrag-bench.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	mountpoint -q "$mnt" && umount "$mnt"
	rmdir "$mnt"
}
trap cleanup EXIT
rm -f "$img"
truncate -s "$size" "$img"
mkfs.xfs -q -f ${MKFS_OPTS:-} "$img"
mount -o loop "$img" "$mnt"
for ((d = 0; d < dirs; d++)); do printf '%s/d%04d\n' "$mnt" "$d"; done | xargs mkdir
writer() {
	python3 - "$mnt" "$inodes" "$dirs" "$writers" "$1" "${SIZES:-0 100 4096 8192}" <<'PY'
import os, sys
root, n, ndirs, nw, w = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
sizes = [int(s) for s in sys.argv[6].split()]
blob = bytes(range(256)) * (max(sizes) // 256 + 1)
for i in range(w, n, nw):
    # a fixed mix, the same on every run whatever the writers' timing
    sz = sizes[((i * 2654435761) >> 7) % len(sizes)]
    fd = os.open("%s/d%04d/f%07d" % (root, i % ndirs, i), os.O_CREAT | os.O_WRONLY, 0o644)
    if sz:
        os.write(fd, blob[:sz])
    os.close(fd)
PY
}
for ((w = 0; w < writers; w++)); do
	writer "$w" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
pids=()
umount "$mnt"
echo "$img: $(xfs_db -r -c 'sb 0' -c 'print icount' "$img")"
