#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The seed's measurement: bonnie++'s small-file test (-n: files created,
# stat'ed and read, deleted; sequential then random) on an emulated
# 7200 rpm disk with a drive cache (bench/hddemu: a loop device with
# direct I/O over it, mounted read-write), of an aged image, of the same
# image after `run`, after `run --renumber none`, after xfs_fsr, of a
# fresh tar copy of its tree and of an empty filesystem of the same
# geometry.  It shows whether new files land well after a run (AGI
# newino pointing at the front of each AG, free space in one piece).
# Files/s of each phase, side by side, the median of ROUNDS rounds taken
# over all images in turn, and the seconds the emulated disk was busy
# during the whole bonnie++ run (computed by the disk model: unlike
# files/s, it holds on a loaded machine).
# The images come from bench/mkaged.sh (or bench/readback.sh, same
# WORKDIR): WORKDIR/NAME/{aged,run,runnone,fsr,fresh}.img.
# bonnie++ runs in a memory cgroup of MEM bytes (default 32M), page cache
# included, so that its read phases read the disk, not the files it has
# just written from memory (cgroup v1 memory controller, or v2).
# Needs root, /dev/fuse, one loop device, `make hddemu`, bonnie++
# (Debian: bonnie++).
# Usage: bench/bonnie.sh [WORKDIR] [NAME...]
#   FILES (bonnie++ -n, default 16:16384:1024:16), ROUNDS (3), MEM,
#   SCALE (hddemu's, default 10: files/s are then 10 times a real
#   disk's where the disk is what limits them)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-/tmp/xfsdefrag-bench-readers}
shift || true
FILES=${FILES:-16:16384:1024:16} ROUNDS=${ROUNDS:-3} MEM=${MEM:-32M}
command -v bonnie++ >/dev/null ||
	{ echo "bonnie.sh: needs bonnie++ (apt-get install bonnie++)" >&2; exit 1; }
names=("$@")
[ ${#names[@]} -gt 0 ] ||
	mapfile -t names < <(cd "$work" && for d in */; do
		[ -f "$d/aged.img" ] && echo "${d%/}"; done)
[ ${#names[@]} -gt 0 ] ||
	{ echo "bonnie.sh: no images in $work (run bench/mkaged.sh)" >&2; exit 1; }
scratch=$work/bonnie
mnt=$scratch/mnt
mkdir -p "$mnt"
export SCALE=${SCALE:-10}
. "$here/hddemu/lib.sh"
hdd_init "$scratch"
HDD_MNTS=("$mnt")
cg=
if [ -d /sys/fs/cgroup/memory ] && mkdir "/sys/fs/cgroup/memory/xfsdefrag-bonnie.$$"; then
	cg=/sys/fs/cgroup/memory/xfsdefrag-bonnie.$$
	echo "$MEM" > "$cg/memory.limit_in_bytes"
elif [ -f /sys/fs/cgroup/cgroup.controllers ] &&
     mkdir "/sys/fs/cgroup/xfsdefrag-bonnie.$$"; then
	cg=/sys/fs/cgroup/xfsdefrag-bonnie.$$
	echo "$MEM" > "$cg/memory.max"
else
	echo "bonnie.sh: no memory cgroup: its reads come from the page cache" >&2
fi
cleanup() {
	hdd_cleanup
	rm -f "$scratch/t.img"
	[ -z "$cg" ] || rmdir "$cg" 2>/dev/null || true
	return 0
}
trap cleanup EXIT

# One bonnie++ -n run on a copy of IMAGE (the image itself stays as it
# was) on the emulated disk; prints its CSV line, then the disk's busy
# seconds.
one() {	# IMAGE
	rm -f "$scratch/t.img"
	if [ "$1" = empty ]; then
		truncate -s "$(stat -c %s "$2")" "$scratch/t.img"
		# shellcheck disable=SC2046
		mkfs.xfs -q -f $(cat "$3") "$scratch/t.img"
	else
		cp --sparse=always "$1" "$scratch/t.img"
	fi
	hdd_start "$scratch/t.img"
	mount -o nouuid "$HDD_DEV" "$mnt"
	mkdir -p "$mnt/bonnie"
	hdd_drop
	hdd_reset
	sh -c '[ -z "$1" ] || echo $$ > "$1/cgroup.procs"; shift; exec "$@"' \
		sh "$cg" bonnie++ -q -d "$mnt/bonnie" -s 0 -n "$FILES" -u root \
		2>/dev/null | tail -n 1
	sync
	hdd_stat busy_s
	umount "$mnt"
	hdd_stop
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); hddemu scale $SCALE"
printf '%-16s %-7s %10s %10s %10s %10s %10s %10s %8s\n' geometry image \
	seq-create seq-read seq-delete ran-create ran-read ran-delete busy-s
for name in "${names[@]}"; do
	d=$work/$name
	# the mkfs options of the images, for the empty filesystem
	opts=$scratch/$name.opts
	# (mkaged.sh's record, else from the superblock)
	opts=$scratch/$name.opts
	if [ -f "$d/mkfs.opts" ]; then
		cp "$d/mkfs.opts" "$opts"
	else
		xfs_db -r -c 'sb 0' -c 'print blocksize agcount rmapbt' "$d/aged.img" \
			2>/dev/null | awk -F' = ' '
			$1 == "blocksize" { o = o " -b size=" $2 }
			$1 == "agcount" { o = o " -d agcount=" $2 }
			END { print o }' > "$opts"
		if xfs_info "$d/aged.img" 2>/dev/null | grep -q 'rmapbt=1'; then
			echo " -m rmapbt=1" >> "$opts"
		fi
		tr '\n' ' ' < "$opts" > "$opts.1" && mv "$opts.1" "$opts"
	fi
	declare -A csv=()
	for ((r = 0; r < ROUNDS; r++)); do
		for img in aged run runnone fsr fresh empty; do
			[ "$img" = empty ] || [ -f "$d/$img.img" ] || continue
			# not in $(...): a subshell would keep the loop device
			# and the FUSE mount from the cleanup
			if [ "$img" = empty ]; then
				one empty "$d/aged.img" "$opts" > "$scratch/line"
			else
				one "$d/$img.img" > "$scratch/line"
			fi
			csv[$img]+="$(cat "$scratch/line")"$'\n'
		done
	done
	for img in aged run runnone fsr fresh empty; do
		[ -n "${csv[$img]:-}" ] || continue
		# bonnie++ 1.9x CSV: fields 27, 29, 31 sequential create, stat
		# (the "Read" phase), delete; 33, 35, 37 random ones.  A field
		# of "+++++" means the phase was too quick to time.
		printf '%s' "${csv[$img]}" | python3 -c '
import sys, statistics
name, img = sys.argv[1], sys.argv[2]
lines = [l for l in sys.stdin.read().splitlines() if l]
rows = [l.split(",") for l in lines if "," in l]
busy = [float(l) for l in lines if "," not in l]
out = []
for f in (26, 28, 30, 32, 34, 36):
    v = [int(r[f]) for r in rows if len(r) > f and r[f].isdigit()]
    out.append("%d" % statistics.median(v) if v else "+++++")
out.append("%.2f" % statistics.median(busy) if busy else "-")
print("%-16s %-7s %10s %10s %10s %10s %10s %10s %8s" % ((name, img) + tuple(out)))
' "$name" "$img"
	done
	unset csv
done
