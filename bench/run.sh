#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run against xfs_fsr on the same aged image, and run's copy rate against
# dd copying the same number of bytes on the same image, in one go:
#  - extents left (all forks, xfs_db frag's "actual") after each;
#  - reflinked files still sharing after each (manifest "shares" lines);
#  - bytes moved per second by run's copy phase vs dd (conv=fsync).
# Needs root, loop devices, xfsprogs (xfs_fsr), python3.
# Usage: bench/run.sh [WORKDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../xfsdefrag
work=${1:-/tmp/xfsdefrag-bench-run}
mkdir -p "$work"
img=$work/aged.img mnt=$work/mnt
mkdir -p "$mnt"
cleanup() { mountpoint -q "$mnt" && umount "$mnt"; return 0; }
trap cleanup EXIT

if [ ! -f "$img" ]; then
	truncate -s 4g "$img"
	mkfs.xfs -q -f "$img"
	mount -o loop "$img" "$mnt"
	python3 - "$mnt" <<'PY'
import os, sys
root = sys.argv[1]
# 8 files grown together, 64 KiB at a time, each write synced: interleaved
fds = [os.open("%s/big%d" % (root, i), os.O_CREAT | os.O_WRONLY, 0o644)
       for i in range(8)]
chunk = bytes(range(256)) * 256
for n in range(2048):
    for i, fd in enumerate(fds):
        os.pwrite(fd, chunk, n * len(chunk))
        os.fsync(fd)
for fd in fds:
    os.close(fd)
# churn: many small files, every other one deleted
for d in range(100):
    os.mkdir("%s/d%03d" % (root, d))
    for f in range(200):
        with open("%s/d%03d/f%03d" % (root, d, f), "wb") as fh:
            fh.write(b"%d %d\n" % (d, f) * 300)
for d in range(100):
    for f in range(0, 200, 2):
        os.unlink("%s/d%03d/f%03d" % (root, d, f))
PY
	cp --reflink=always "$mnt/big0" "$mnt/big0.clone"
	dd if=/dev/zero of="$mnt/big0.clone" bs=1M seek=40 count=8 conv=notrunc 2>/dev/null
	umount "$mnt"
fi

extents() { "$bin" report --json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["fragmentation"]["actual"])'; }
shares() { mount -o loop,ro,nouuid "$1" "$mnt"; python3 "$here/../tests/manifest.py" "$mnt" | grep -c '^shares' || true; umount "$mnt"; }

echo "before: $(extents "$img") extent records, $(shares "$img") shared ranges"
cp --sparse=always "$img" "$work/fsr.img"
mount -o loop "$work/fsr.img" "$mnt"
xfs_fsr "$mnt" > /dev/null 2>&1 || true
umount "$mnt"
echo "xfs_fsr: $(extents "$work/fsr.img") extent records, $(shares "$work/fsr.img") shared ranges"

cp --sparse=always "$img" "$work/run.img"
rm -f "$work/run.undo"
sync; echo 3 > /proc/sys/vm/drop_caches
"$bin" run --undo "$work/run.undo" "$work/run.img" | tee "$work/run.out" | head -n 2
echo "run:     $(extents "$work/run.img") extent records, $(shares "$work/run.img") shared ranges"

# dd: the same bytes, read and written within a copy of the image, synced
mib=$(sed -n 's/^moved \([0-9.]*\) MiB.*/\1/p' "$work/run.out")
count=$(python3 -c "print(max(1, int(float('$mib') / 4)))")
sync; echo 3 > /proc/sys/vm/drop_caches
start=$(date +%s.%N)
dd if="$work/run.img" of="$work/run.img" bs=4M skip=16 seek=$((16 + count + 8)) \
	count="$count" conv=notrunc,fsync 2>/dev/null
end=$(date +%s.%N)
python3 - "$work/run.out" "$start" "$end" "$count" <<'PY'
import re, sys
out = open(sys.argv[1]).read()
rate = float(re.search(r"copy ([0-9.]+) MiB/s", out).group(1))
dd = int(sys.argv[4]) * 4 / (float(sys.argv[3]) - float(sys.argv[2]))
print("copy rate: run %.1f MiB/s, dd %.1f MiB/s: %.0f%% of dd" %
      (rate, dd, 100 * rate / dd))
PY
