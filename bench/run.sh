#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run against xfs_fsr on the same aged image, and run's copy rate against
# dd copying the same number of bytes on the same image, in one go:
#  - extents left (all forks, xfs_db frag's "actual") and files in more
#    than one extent after each; xfs_repair -n on run's result;
#  - reflinked files still sharing after each (manifest "shares" lines);
#  - bytes moved per second by run's copy phase vs dd (conv=fsync).
# Then run on a copy of each 1,000,000-inode bench image (bench/lib.sh:
# bench/mkbig.sh's and bench/mkscatter.sh's, made if missing): its time,
# peak RSS per inode (target: at most 300 bytes), bytes moved, the undo
# journal against the bytes moved (target: at most 25%) and against
# plan's estimate, and the copy rate against dd's on the same image
# (target: 80% or more).
# Needs root, loop devices, xfsprogs (xfs_fsr), python3, GNU time.
# Usage: bench/run.sh [WORKDIR [IMAGE...]]
#   BENCH_AGED=0 leaves the aged image out; IMAGE... replaces the two
#   bench images (BENCH_IMAGES=0: none).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../xfsdefrag
work=${1:-/tmp/xfsdefrag-bench-run}
[ $# -gt 0 ] && shift
mkdir -p "$work"
img=$work/aged.img mnt=$work/mnt
mkdir -p "$mnt"
cleanup() { mountpoint -q "$mnt" && umount "$mnt"; return 0; }
trap cleanup EXIT

# An aged volume: filled to ~97% with files of 64 KiB - 1 MiB, every other
# one deleted (free space left in holes of that size), then 8 files grown
# together by fsync'd 64 KiB appends into those holes, and a reflinked
# copy of one of them partly overwritten.
aged() {
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
}

# The same file system: dd reads COUNT MiB from the image's first half
# and writes them over its second half, synced; prints MiB/s.
dd_rate() {	# IMAGE MIB
	local half count start end
	half=$(( $(stat -c %s "$1") / (8 << 20) ))
	count=$(python3 -c "print(max(1, min($half, int(float('$2') / 4))))")
	sync; echo 3 > /proc/sys/vm/drop_caches
	start=$(date +%s.%N)
	dd if="$1" of="$1" bs=4M skip=0 seek="$half" count="$count" \
		conv=notrunc,fsync 2>/dev/null
	end=$(date +%s.%N)
	python3 -c "print('%.1f' % ($count * 4 / ($end - $start)))"
}

bench_image() {	# IMAGE TAG
	local src=$1 tag=$2 copy=$work/bench.img undo=$work/bench.undo
	local inodes mib rate dd
	echo
	echo "image:   $src $tag (load $(cut -d' ' -f1-3 /proc/loadavg))"
	rm -f "$copy" "$undo" "$undo.map"
	cp --sparse=always "$src" "$copy"
	inodes=$("$bin" report --json "$copy" | python3 -c 'import json, sys; print(json.load(sys.stdin)["scan"]["inodes"])')
	"$bin" plan --json "$copy" > "$work/plan.json"
	sync; echo 3 > /proc/sys/vm/drop_caches
	/usr/bin/time -f "%e %M" -o "$work/run.time" \
		"$bin" run --undo "$undo" "$copy" > "$work/run.out"
	"$bin" check "$copy" > /dev/null ||
		echo "run $tag: our checker REJECTS the result"
	xfs_repair -n "$copy" > /dev/null 2>&1 ||
		echo "run $tag: xfs_repair -n REJECTS the result"
	mib=$(sed -n 's/^moved \([0-9.]*\) MiB.*/\1/p' "$work/run.out")
	python3 - "$tag" "$inodes" "$work/run.time" "$work/run.out" \
		"$work/plan.json" "$(stat -c %s "$undo")" <<'PY'
import json, re, sys
tag, inodes = sys.argv[1], int(sys.argv[2])
secs, rss = open(sys.argv[3]).read().split()
out = open(sys.argv[4]).read()
plan = json.load(open(sys.argv[5]))
undo = int(sys.argv[6])
moved = float(re.search(r"moved ([0-9.]+) MiB", out).group(1)) * 2**20
rate = float(re.search(r"copy ([0-9.]+) MiB/s", out).group(1))
est = plan["undo_bytes_estimate"]
print("run %s: %.1f s, peak RSS %.1f MiB = %.0f bytes per inode (%d inodes)"
      % (tag, float(secs), int(rss) / 1024, int(rss) * 1024 / inodes, inodes))
print("run %s: moved %.1f MiB, copy %.1f MiB/s; undo journal %.1f MiB = %.0f%% "
      "of the bytes moved; plan's estimate %.1f MiB (%.2f of the real size)"
      % (tag, moved / 2**20, rate, undo / 2**20, 100 * undo / max(moved, 1),
         est / 2**20, est / max(undo, 1)))
PY
	rate=$(sed -n 's/.*copy \([0-9.]*\) MiB\/s.*/\1/p' "$work/run.out")
	dd=$(dd_rate "$copy" "$mib")
	python3 -c "print('run $tag: copy rate run %.1f MiB/s, dd %.1f MiB/s on the same image: %.0f%% of dd' % ($rate, $dd, 100 * $rate / $dd))"
	rm -f "$copy" "$undo" "$undo.map"
}

[ "${BENCH_AGED:-1}" = 0 ] || aged
if [ "${BENCH_IMAGES:-1}" != 0 ]; then
	if [ $# -gt 0 ]; then
		for i in "$@"; do bench_image "$i" "[$(basename "$i")]"; done
	else
		big=/tmp/xfsdefrag-bench-1m.img scatter=/tmp/xfsdefrag-bench-scatter-1m.img
		[ -e "$big" ] || "$here/mkbig.sh" "$big" 1000 1000 4g
		[ -e "$scatter" ] || "$here/mkscatter.sh" "$scatter"
		bench_image "$big" "[mkbig]"
		bench_image "$scatter" "[scatter]"
	fi
fi
