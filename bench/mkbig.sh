#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Make a benchmark image with many inodes: DIRS directories of FILES files
# each (default 1000 x 1000 = 1,000,000 inodes), every other file holding
# a few bytes of data (one extent), the rest empty.  Needs root and a loop
# device.  Usage: bench/mkbig.sh IMAGE [DIRS] [FILES] [SIZE]; MKFS_OPTS
# goes to mkfs.xfs (e.g. "-d agcount=1": one AG for many threads).
set -euo pipefail
img=$1 dirs=${2:-1000} files=${3:-1000} size=${4:-16g}
mnt=$(mktemp -d /tmp/xfsdefrag-bench.XXXXXX)
cleanup() { mountpoint -q "$mnt" && umount "$mnt"; rmdir "$mnt"; }
trap cleanup EXIT
rm -f "$img"
truncate -s "$size" "$img"
mkfs.xfs -q -f ${MKFS_OPTS:-} "$img"
mount -o loop "$img" "$mnt"
python3 - "$mnt" "$dirs" "$files" <<'PY'
import os, sys
root, ndirs, nfiles = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for d in range(ndirs):
    dp = os.path.join(root, "d%04d" % d)
    os.mkdir(dp)
    for f in range(nfiles):
        fd = os.open(os.path.join(dp, "f%05d" % f), os.O_CREAT | os.O_WRONLY, 0o644)
        if f % 2 == 0:
            os.write(fd, b"%d/%d\n" % (d, f))
        os.close(fd)
PY
umount "$mnt"
echo "$img: $(xfs_db -r -c 'sb 0' -c 'print icount' "$img")"
