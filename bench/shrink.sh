#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Shrinking, the figures (root: the images are made through a mount):
#   - a 1 GiB image (4 AGs) churned to about 55% used, shrunk to 640 MiB,
#     and a 2 GiB image of 16 AGs with rmapbt churned to about 50%, shrunk
#     to 11 AGs: the time of `shrink` against `run` on the same image,
#     alternating, N times each (the medians);
#   - --min on the fixtures and both images: the size reached against the
#     blocks in use (the log included);
#   - --discard: the image file's allocated size (du) before and after a
#     run --discard and a shrink --min --discard of the 1 GiB image.
# Usage: bench/shrink.sh [XFSDEFRAG] [N]
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$(dirname "${1:-./xfsdefrag}")" && pwd)/$(basename "${1:-./xfsdefrag}")
n=${2:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xfsdefrag-shrinkbench.XXXXXX")
mnt=$tmp/mnt
mkdir -p "$mnt"
trap 'mountpoint -q "$mnt" && umount "$mnt"; rm -rf "$tmp"' EXIT INT TERM

sbval() { xfs_db -r -c "sb 0" -c "print $2" "$1" | awk '{print $3}'; }

make_img() {	# IMG SIZE FILL SEED MKFS-OPTS...
	local img=$1 size=$2 fill=$3 seed=$4
	shift 4
	truncate -s "$size" "$img"
	mkfs.xfs -q -f "$@" "$img"
	mount -o loop "$img" "$mnt"
	python3 "$here/churn.py" --use "$fill" "$mnt" "$seed"
	umount "$mnt"
}

# secs CMD...: wall seconds of one command (its output thrown away)
secs() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" > /dev/null 2>&1 || echo "FAILED: $*" >&2
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

versus() {	# NAME IMG SHRINK-ARGS...
	local name=$1 img=$2 w=$tmp/w.img i rt=() st=()
	shift 2
	for ((i = 0; i < n; i++)); do
		cp --sparse=always "$img" "$w"; rm -f "$tmp/u" "$tmp/u.map"
		rt+=("$(secs "$bin" run --undo "$tmp/u" "$w")")
		cp --sparse=always "$img" "$w"; rm -f "$tmp/u" "$tmp/u.map"
		st+=("$(secs "$bin" shrink "$@" --undo "$tmp/u" "$w")")
	done
	printf '%s: shrink %s %s s, run %s s (medians of %d, alternating)\n' \
		"$name" "$*" "$(printf '%s\n' "${st[@]}" | median)" \
		"$(printf '%s\n' "${rt[@]}" | median)" "$n"
	xfs_repair -n "$w" > /dev/null 2>&1 && echo "  xfs_repair -n: clean" ||
		echo "  xfs_repair -n: NOT CLEAN"
}

minsize() {	# NAME IMG
	local img=$2 w=$tmp/w.img db free log got
	cp --sparse=always "$img" "$w"; rm -f "$tmp/u" "$tmp/u.map"
	db=$(sbval "$w" dblocks); free=$(sbval "$w" fdblocks)
	log=$(sbval "$w" logblocks)
	if "$bin" shrink --min --undo "$tmp/u" "$w" > "$tmp/m.out" 2>&1; then
		got=$(sbval "$w" dblocks)
		xfs_repair -n "$w" > /dev/null 2>&1 && r=clean || r=NOT-CLEAN
		printf '%-18s %10s %10s %8s %10s %7s %8s %s\n' "$1" "$db" \
			"$((db - free))" "$log" "$got" \
			"$(echo "scale=1; ($got - ($db - $free)) * 100 / ($db - $free)" | bc)%" \
			"$(sbval "$w" agcount)" "$r"
	else
		printf '%-18s %10s refused: %s\n' "$1" "$db" "$(head -n 1 "$tmp/m.out")"
	fi
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
make_img "$tmp/big.img" 1g 55 1 > /dev/null
make_img "$tmp/r16.img" 2g 50 2 -d agcount=16 -m rmapbt=1 > /dev/null
versus "1 GiB, 4 AGs, $(( 100 - $(sbval "$tmp/big.img" fdblocks) * 100 / $(sbval "$tmp/big.img" dblocks) ))% used" \
	"$tmp/big.img" --size 640M
versus "2 GiB, 16 AGs, rmapbt, $(( 100 - $(sbval "$tmp/r16.img" fdblocks) * 100 / $(sbval "$tmp/r16.img" dblocks) ))% used" \
	"$tmp/r16.img" --size $((11 * $(sbval "$tmp/r16.img" agblocks) * 4096))
echo
echo "--min: blocks now, in use (log included), log, after, over in-use, AGs"
for f in aged bs1k ag16 rmap-nrext64 stripe isize1k-dir8k sect4k-noreflink dirs; do
	zstd -dq --sparse -f -o "$tmp/f.img" "$here/../tests/fixtures/$f/image.zst" &&
		minsize "$f" "$tmp/f.img"
done
minsize "1 GiB churned" "$tmp/big.img"
minsize "2 GiB 16 AGs" "$tmp/r16.img"
echo
for c in run shrink; do
	cp --sparse=always "$tmp/big.img" "$tmp/w.img"; rm -f "$tmp/u" "$tmp/u.map"
	a0=$(du -k "$tmp/w.img" | cut -f1)
	if [ $c = run ]; then args=(run); else args=(shrink --min); fi
	"$bin" "${args[@]}" --discard --undo "$tmp/u" "$tmp/w.img" | grep '^discard'
	echo "  $c --discard on the 1 GiB image: du ${a0} KiB -> $(du -k "$tmp/w.img" | cut -f1) KiB"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
