#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What readers of the whole tree cost on a 7200 rpm disk with a drive
# cache, through the real kernel: each image of bench/mkaged.sh (aged,
# after `run`, after `run --renumber none`, after xfs_fsr, a fresh tar
# copy) served by the emulated disk (bench/hddemu), a loop device with
# direct I/O on it, mounted read-only, caches dropped and the drive cold
# before each reader.  For each reader: the seconds the disk was busy,
# its requests, seeks and cache hits, and the megabytes it read.
# The figures are computed by the disk model, not timed, so they hold on
# a loaded machine; only the wall time (printed too) depends on it.
#
#   cat       find . -type f | xargs cat        (data, readdir order)
#   tar       tar c . | cat                     (data, readdir order)
#   find      find . -printf '%s %T@\n'         (every inode, rsync's quick check)
#   du        du -s .
#   ls        ls -lR .
#   statino   stat of every path in inode-number order (as xfsdump's
#             bulkstat order: the list taken on an earlier mount)
#   bulkstat  xfs_io -c 'bulkstat -q' (the BULKSTAT ioctl: xfsdump's
#             own walk of the inode btrees, no directories)
#   new-w / new-r  (NEW=1) 2,000 new files in 20 new directories written
#             through a read-write mount of a copy of the image (busy
#             seconds of the writes, unmount included), then read back
#             cold with find | xargs cat
#
# cat and tar also get the transfer time of the file bytes alone
# (bytes / 150 MB/s): no reader of them can take less.  Each reader's
# requests are kept in WORKDIR/NAME/trace/IMAGE.READER (hddemu's trace:
# bench/hddemu/hddreplay replays it, bench/hddemu/classify.py sorts it
# into inode chunks, directories and the rest).
# Needs root, /dev/fuse, 2 loop devices, `make hddemu`, xfsprogs.
# Usage: bench/readers.sh [WORKDIR] [NAME...]
#   IMAGES (default "aged run runnone fsr fresh"), READERS (default all
#   above), SCALE (default 10: hddemu sleeps a tenth of each charge), NEW
#   (default 1).  Images missing in WORKDIR are made by bench/mkaged.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-/tmp/xfsdefrag-bench-readers}
shift || true
IMAGES=${IMAGES:-aged run runnone fsr fresh}
READERS=${READERS:-cat tar find du ls statino bulkstat}
NEW=${NEW:-1}
export SCALE=${SCALE:-10}
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(bs4k-ag4 bs1k-ag4 bs4k-ag16-rmap)
"$here/mkaged.sh" "$work" "${names[@]}"
. "$here/hddemu/lib.sh"
scratch=$work/readers
mnt=$scratch/mnt
mkdir -p "$mnt"
hdd_init "$scratch"
HDD_MNTS=("$mnt")

echo "machine: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), kernel $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); hddemu scale $SCALE"

# reader NAME LIST: run one reader in $mnt (LIST: the inode-ordered paths)
reader() {
	case $1 in
	cat)	find . -type f -print0 | xargs -0 -r cat > /dev/null ;;
	tar)	tar -cf - . | cat > /dev/null ;;
	find)	find . -printf '%s %T@\n' > /dev/null ;;
	du)	du -s . > /dev/null ;;
	ls)	ls -lR . > /dev/null ;;
	statino) xargs -r -d '\n' -a "$2" stat -c %s -- > /dev/null ;;
	bulkstat) xfs_io -r -c 'bulkstat -q' . ;;
	*)	echo "readers.sh: no reader '$1'" >&2; exit 2 ;;
	esac
}

# one IMAGE READER TRACE LIST: one cold run; appends its figures to $out
one() {
	local t0 t1
	hdd_drop
	hdd_start "$1" "$3" ro
	mount -o ro,nouuid "$HDD_DEV" "$mnt"
	hdd_reset
	t0=$EPOCHREALTIME
	(cd "$mnt" && reader "$2" "$4")
	t1=$EPOCHREALTIME
	echo "$name $img $2 $(hdd_stat busy_s) $(hdd_stat requests) $(hdd_stat seeks)" \
		"$(hdd_stat hits) $(hdd_stat bytes_read) $(hdd_stat bytes_written)" \
		"$(echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}')" >> "$out"
	umount "$mnt"
	hdd_stop
}

# newfiles IMAGE TRACE-PREFIX: 2,000 files in 20 new directories written
# through a read-write mount of a copy, then read back cold
newfiles() {
	local t0 t1 copy=$scratch/new.img
	cp --sparse=always "$1" "$copy"
	hdd_drop
	hdd_start "$copy" "$2.new-w"
	mount -o nouuid "$HDD_DEV" "$mnt"
	hdd_reset
	t0=$EPOCHREALTIME
	python3 - "$mnt" "$here" <<'PY'
import os, random, sys
sys.path.insert(0, sys.argv[2])
from readback_age import size_of
rng = random.Random(2000)
for d in range(20):
    p = os.path.join(sys.argv[1], "new%02d" % d)
    os.mkdir(p)
    for f in range(100):
        with open(os.path.join(p, "f%03d" % f), "wb") as fh:
            fh.write(rng.randbytes(size_of(rng)))
PY
	umount "$mnt"
	t1=$EPOCHREALTIME
	echo "$name $img new-w $(hdd_stat busy_s) $(hdd_stat requests) $(hdd_stat seeks)" \
		"$(hdd_stat hits) $(hdd_stat bytes_read) $(hdd_stat bytes_written)" \
		"$(echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}')" >> "$out"
	hdd_stop
	hdd_drop
	hdd_start "$copy" "$2.new-r" ro
	mount -o ro,nouuid "$HDD_DEV" "$mnt"
	hdd_reset
	t0=$EPOCHREALTIME
	(cd "$mnt" && find new?? -type f -print0 | xargs -0 -r cat > /dev/null)
	t1=$EPOCHREALTIME
	echo "$name $img new-r $(hdd_stat busy_s) $(hdd_stat requests) $(hdd_stat seeks)" \
		"$(hdd_stat hits) $(hdd_stat bytes_read) $(hdd_stat bytes_written)" \
		"$(echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}')" >> "$out"
	umount "$mnt"
	hdd_stop
	rm -f "$copy"
}

for name in "${names[@]}"; do
	d=$work/$name
	out=$d/readers.txt
	: > "$out"
	mkdir -p "$d/trace"
	for img in $IMAGES; do
		[ -f "$d/$img.img" ] || { echo "$name: no $img.img" >&2; continue; }
		# the inode-ordered list and the file bytes, from a plain mount
		mount -o loop,ro,nouuid "$d/$img.img" "$mnt"
		(cd "$mnt" && find . -printf '%i %p\n') | sort -n | cut -d' ' -f2- \
			> "$d/trace/$img.list"
		bytes=$(cd "$mnt" && find . -type f -printf '%s\n' | awk '{s += $1} END {printf "%.0f", s}')
		umount "$mnt"
		echo "$name $img bytes $bytes" >> "$out"
		for r in $READERS; do
			rm -f "$d/trace/$img.$r"
			one "$d/$img.img" "$r" "$d/trace/$img.$r" "$d/trace/$img.list"
		done
		if [ "$NEW" = 1 ]; then
			rm -f "$d/trace/$img.new-w" "$d/trace/$img.new-r"
			newfiles "$d/$img.img" "$d/trace/$img"
		fi
	done
	python3 "$here/readers_table.py" "$out"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
