#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Aged small-file images for the reader benches (bench/readers.sh,
# bench/bonnie.sh), one directory per geometry, WORKDIR/NAME/:
#   aged.img     mkfs, then WRITERS processes churning at once through a
#                loop mount (bench/readback_age.py: small files in deep
#                trees, some up to half a MiB, created, fsynced, deleted,
#                appended to, subtrees removed, ROUNDS rounds up to FILL)
#   run.img      aged, then `xfsdefrag run` (default options, RUN_OPTS)
#   runnone.img  aged, then `xfsdefrag run --renumber none`
#   fsr.img      aged, then xfs_fsr on a plain loop mount
#   fresh.img    aged's tree copied by tar onto a new mkfs, same options
# The undo files are removed.  Images already there are kept (remove one to make it again: a new
# aged.img makes the others again).  Each run's output is in
# NAME/run.out, and xfs_repair -n must accept its result.
# Needs root, a loop device at a time, xfsprogs (xfs_fsr), python3, tar.
# Usage: bench/mkaged.sh [WORKDIR] [NAME...]
#   NAME from GEOMETRIES below; SEED, ROUNDS, FILL, WRITERS override the
#   workload.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../xfsdefrag
work=${1:-/tmp/xfsdefrag-bench-readers}
shift || true
SEED=${SEED:-7} ROUNDS=${ROUNDS:-8} FILL=${FILL:-0.55} WRITERS=${WRITERS:-4}
RUN_OPTS=${RUN_OPTS:-}
# name | image size | mkfs options
GEOMETRIES=(
	"bs4k-ag4|768m|-b size=4096 -d agcount=4"
	"bs1k-ag4|768m|-b size=1024 -d agcount=4"
	"bs4k-ag16-rmap|1200m|-b size=4096 -d agcount=16 -m rmapbt=1"
)
[ -x "$bin" ] || { echo "mkaged.sh: $bin: not built (make)" >&2; exit 1; }
want=("$@")
mkdir -p "$work"
m1=$work/mnt1 m2=$work/mnt2
mkdir -p "$m1" "$m2"
cleanup() {
	mountpoint -q "$m2" && umount "$m2"
	mountpoint -q "$m1" && umount "$m1"
	return 0
}
trap cleanup EXIT

mkfs_img() {	# IMAGE SIZE OPTS
	rm -f "$1"
	truncate -s "$2" "$1"
	# shellcheck disable=SC2086
	mkfs.xfs -q -f $3 "$1"
}

for g in "${GEOMETRIES[@]}"; do
	IFS='|' read -r name size opts <<< "$g"
	if [ ${#want[@]} -gt 0 ] && [[ " ${want[*]} " != *" $name "* ]]; then
		continue
	fi
	d=$work/$name
	mkdir -p "$d"
	echo "$opts" > "$d/mkfs.opts"
	if [ ! -f "$d/aged.img" ]; then
		mkfs_img "$d/aged.img.tmp" "$size" "$opts"
		mount -o loop "$d/aged.img.tmp" "$m1"
		python3 "$here/readback_age.py" "$m1" "$SEED" "$ROUNDS" "$FILL" \
			"$WRITERS" > "$d/age.out"
		umount "$m1"
		mv "$d/aged.img.tmp" "$d/aged.img"
		rm -f "$d/run.img" "$d/runnone.img" "$d/fsr.img" "$d/fresh.img"
	fi
	echo "$name: $(cat "$d/age.out")"
	if [ ! -f "$d/fresh.img" ]; then
		mkfs_img "$d/fresh.img.tmp" "$size" "$opts"
		mount -o loop,ro,nouuid "$d/aged.img" "$m1"
		mount -o loop "$d/fresh.img.tmp" "$m2"
		(cd "$m1" && tar -cf - .) | (cd "$m2" && tar -xpf -)
		umount "$m2"
		umount "$m1"
		mv "$d/fresh.img.tmp" "$d/fresh.img"
	fi
	if [ ! -f "$d/fsr.img" ]; then
		cp --sparse=always "$d/aged.img" "$d/fsr.img.tmp"
		mount -o loop "$d/fsr.img.tmp" "$m1"
		xfs_fsr "$m1" > /dev/null 2>&1 || true
		umount "$m1"
		mv "$d/fsr.img.tmp" "$d/fsr.img"
	fi
	for v in run runnone; do
		[ -f "$d/$v.img" ] && continue
		extra=()
		[ "$v" = runnone ] && extra=(--renumber none)
		cp --sparse=always "$d/aged.img" "$d/$v.img.tmp"
		rm -f "$d/$v.undo"
		# shellcheck disable=SC2086
		if ! "$bin" run $RUN_OPTS "${extra[@]}" --undo "$d/$v.undo" \
			"$d/$v.img.tmp" > "$d/$v.out" 2>&1; then
			echo "$name: $v failed: $(head -n 3 "$d/$v.out")" >&2
			rm -f "$d/$v.img.tmp"
			continue
		fi
		if ! xfs_repair -n "$d/$v.img.tmp" > "$d/$v.repair" 2>&1; then
			echo "$name: xfs_repair -n REJECTS $v's result ($d/$v.repair)" >&2
			mv "$d/$v.img.tmp" "$d/$v.img.bad"
			continue
		fi
		mv "$d/$v.img.tmp" "$d/$v.img"
		rm -f "$d/$v.undo"
		echo "$name: $v: $(sed -n 's/^moved \([0-9.]* MiB\).* in \([0-9.]* s\).*/moved \1 in \2/p' "$d/$v.out")" \
			"$(sed -n 's/^\(renumbered [0-9]* inodes\).*/\1/p' "$d/$v.out")"
	done
done
