#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run against xfs_fsr on the same aged image, and run's copy rate against
# dd copying the same number of bytes on the same image, in one go:
#  - extents left (all forks, xfs_db frag's "actual") and files in more
#    than one extent after each; xfs_repair -n on run's result;
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

# An aged volume: filled to ~97% with files of 64 KiB - 1 MiB, every other
# one deleted (free space left in holes of that size), then 8 files grown
# together by fsync'd 64 KiB appends into those holes, and a reflinked
# copy of one of them partly overwritten.
if [ ! -f "$img" ]; then
	truncate -s 2g "$img"
	mkfs.xfs -q -f "$img"
	mount -o loop "$img" "$mnt"
	python3 - "$mnt" <<'PY'
import os, random, sys
root = sys.argv[1]
rng = random.Random(42)
def used():
    st = os.statvfs(root)
    return 1 - st.f_bavail / st.f_blocks
files = []
d = 0
while used() < 0.97:
    os.mkdir("%s/d%03d" % (root, d))
    for f in range(100):
        p = "%s/d%03d/f%03d" % (root, d, f)
        with open(p, "wb") as fh:	# synced: allocated in this order
            fh.write(p.encode().ljust(64, b".") * (rng.randrange(1024, 16384)))
            os.fsync(fh.fileno())
        files.append(p)
    d += 1
for p in files[::2]:
    os.unlink(p)
os.sync()
fds = [os.open("%s/big%d" % (root, i), os.O_CREAT | os.O_WRONLY, 0o644)
       for i in range(8)]
chunk = bytes(range(256)) * 256
for n in range(1024):
    for i, fd in enumerate(fds):
        os.pwrite(fd, chunk, n * len(chunk))
        os.fsync(fd)
for fd in fds:
    os.close(fd)
PY
	cp --reflink=always "$mnt/big0" "$mnt/big0.clone"
	dd if=/dev/zero of="$mnt/big0.clone" bs=1M seek=20 count=8 conv=notrunc 2>/dev/null
	umount "$mnt"
fi

extents() { "$bin" report --json "$1" | python3 -c 'import json,sys; f = json.load(sys.stdin)["fragmentation"]; print("%d extent records, %d files in more than one extent," % (f["actual"], f["files_multi_extent"]))'; }
shares() { mount -o loop,ro,nouuid "$1" "$mnt"; python3 "$here/../tests/manifest.py" "$mnt" | grep -c '^shares' || true; umount "$mnt"; }

echo "before:  $(extents "$img") $(shares "$img") shared ranges"
cp --sparse=always "$img" "$work/fsr.img"
mount -o loop "$work/fsr.img" "$mnt"
xfs_fsr "$mnt" > /dev/null 2>&1 || true
umount "$mnt"
echo "xfs_fsr: $(extents "$work/fsr.img") $(shares "$work/fsr.img") shared ranges"

cp --sparse=always "$img" "$work/run.img"
rm -f "$work/run.undo" "$work/run.undo.map"
sync; echo 3 > /proc/sys/vm/drop_caches
"$bin" run --undo "$work/run.undo" "$work/run.img" | tee "$work/run.out" | head -n 2
echo "run:     $(extents "$work/run.img") $(shares "$work/run.img") shared ranges"
xfs_repair -n "$work/run.img" > /dev/null 2>&1 && echo "run:     xfs_repair -n accepts the result" ||
	echo "run:     xfs_repair -n REJECTS the result"

# dd: the same number of bytes read from the image's first half and
# written over its second half, synced (capped at half the image)
mib=$(sed -n 's/^moved \([0-9.]*\) MiB.*/\1/p' "$work/run.out")
half=$(( $(stat -c %s "$work/run.img") / (8 << 20) ))
count=$(python3 -c "print(max(1, min($half, int(float('$mib') / 4))))")
sync; echo 3 > /proc/sys/vm/drop_caches
start=$(date +%s.%N)
dd if="$work/run.img" of="$work/run.img" bs=4M skip=0 seek="$half" \
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
