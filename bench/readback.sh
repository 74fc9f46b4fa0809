#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Read-back after aging: how much reading the whole tree back costs on an
# aged image, after `run`, after xfs_fsr, and on a fresh copy of the same
# tree (tar onto a new mkfs of the same geometry), per geometry:
#   - the read-back model's figures (report --json "readback": jumps, far
#     jumps, modelled 7200 rpm seconds, SSD requests), and the modelled
#     time as a multiple of the fresh copy's;
#   - a cold read, `find . -type f | xargs cat` through a read-only loop
#     device with direct I/O (no host page cache), caches dropped and the
#     filesystem mounted afresh before each read: the median of 3, taken
#     in rounds over the four images so a busy spell hits them alike, and
#     the read requests the loop device completed during the read (from
#     /sys/block/loopN/stat: what the kernel really issued).
# The aging is bench/readback_age.py (churn rounds of small files in deep
# trees).  Needs root, 2 loop devices, xfsprogs (xfs_fsr), python3, tar.
# Usage: bench/readback.sh [WORKDIR] [NAME...]
#   NAME from GEOMETRIES below (name|image size|mkfs options); SEED,
#   ROUNDS, FILL, READS override the workload and the number of reads;
#   RUN_OPTS are extra options for `run` (e.g. "--renumber none").
# The dist column is the median inode-to-first-data distance in blocks
# (report --json inode_data_distance.to_first_block.median).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../xfsdefrag
work=${1:-/tmp/xfsdefrag-bench-readback}
shift || true
SEED=${SEED:-7} ROUNDS=${ROUNDS:-8} FILL=${FILL:-0.55}
READS=${READS:-3} RUN_OPTS=${RUN_OPTS:-}
# (16 AGs of 1 KiB blocks need AGs larger than the 64 MiB minimum log)
GEOMETRIES=(
	"bs4k-ag4|768m|-b size=4096 -d agcount=4"
	"bs1k-ag16-rmap|1200m|-b size=1024 -d agcount=16 -m rmapbt=1"
	"bs4k-ag16-rmap|1200m|-b size=4096 -d agcount=16 -m rmapbt=1"
)
want=("$@")
mkdir -p "$work"
m1=$work/mnt1 m2=$work/mnt2
mkdir -p "$m1" "$m2"
loops=()
cleanup() {
	mountpoint -q "$m1" && umount "$m1"
	mountpoint -q "$m2" && umount "$m2"
	local d
	for d in "${loops[@]}"; do losetup -d "$d" 2>/dev/null || true; done
	return 0
}
trap cleanup EXIT

age() {	# IMAGE OPTS
	rm -f "$1"
	truncate -s "$SIZE" "$1"
	# shellcheck disable=SC2086
	mkfs.xfs -q -f $2 "$1"
	mount -o loop "$1" "$m1"
	python3 "$here/readback_age.py" "$m1" "$SEED" "$ROUNDS" "$FILL"
	umount "$m1"
}

fresh_copy() {	# AGED FRESH OPTS
	rm -f "$2"
	truncate -s "$SIZE" "$2"
	# shellcheck disable=SC2086
	mkfs.xfs -q -f $3 "$2"
	mount -o loop,ro,nouuid "$1" "$m1"
	mount -o loop "$2" "$m2"
	(cd "$m1" && tar -cf - .) | (cd "$m2" && tar -xpf -)
	umount "$m2"
	umount "$m1"
}

fig() {	# IMAGE -> "jumps far hdd_s ssd dist"
	"$bin" report --json "$1" 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)
r = j["readback"]
d = j["inode_data_distance"]["to_first_block"]["median"]
print(r["jumps"], r["far_jumps"], "%.3f" % (r["hdd_ms"] / 1e3), r["ssd_requests"], d)'
}

cold1() {	# IMAGE -> "seconds requests" of one cold read
	local dev t r0 r1
	dev=$(losetup -r --direct-io=on -f --show "$1")
	loops+=("$dev")
	sync
	echo 3 > /proc/sys/vm/drop_caches
	mount -o ro,nouuid "$dev" "$m1"
	r0=$(awk '{print $1}' "/sys/block/${dev#/dev/}/stat")
	t=$( { /usr/bin/time -f %e sh -c \
		"cd '$m1' && find . -type f -print0 | xargs -0 -r cat > /dev/null"; } 2>&1 )
	r1=$(awk '{print $1}' "/sys/block/${dev#/dev/}/stat")
	umount "$m1"
	losetup -d "$dev"
	loops=("${loops[@]/$dev}")
	echo "$t $((r1 - r0))"
}

# READS rounds over all four images (so a busy spell hits them alike),
# then each image's median time and median read requests the device saw.
cold_all() {	# DIR -> "T(aged run fsr fresh) R(aged run fsr fresh)"
	local r img t n
	declare -A ts rs
	for ((r = 0; r < READS; r++)); do
		for img in aged run fsr fresh; do
			read -r t n <<< "$(cold1 "$1/$img.img")"
			ts[$img]+="$t "
			rs[$img]+="$n "
		done
	done
	for img in aged run fsr fresh; do
		printf '%s\n' ${ts[$img]} | sort -n | sed -n "$(( (READS + 1) / 2 ))p"
	done | tr '\n' ' '
	for img in aged run fsr fresh; do
		printf '%s\n' ${rs[$img]} | sort -n | sed -n "$(( (READS + 1) / 2 ))p"
	done | tr '\n' ' '
}

printf '%-16s %-6s %8s %8s %9s %8s %7s %8s %7s %8s %7s\n' geometry image jumps far \
	"model-s" ssd-req "x-fresh" "cold-s" "x-fresh" "cold-req" dist
for g in "${GEOMETRIES[@]}"; do
	IFS='|' read -r name SIZE opts <<< "$g"
	if [ ${#want[@]} -gt 0 ] && [[ " ${want[*]} " != *" $name "* ]]; then
		continue
	fi
	d=$work/$name
	mkdir -p "$d"
	if [ ! -f "$d/aged.img" ]; then
		age "$d/aged.img.tmp" "$opts" > "$d/age.out"
		mv "$d/aged.img.tmp" "$d/aged.img"
	fi
	[ -f "$d/fresh.img" ] || fresh_copy "$d/aged.img" "$d/fresh.img" "$opts"
	cp --sparse=always "$d/aged.img" "$d/run.img"
	rm -f "$d/run.undo" "$d/run.undo.map"
	# shellcheck disable=SC2086
	"$bin" run $RUN_OPTS --undo "$d/run.undo" "$d/run.img" > "$d/run.out" 2>&1 ||
		{ echo "$name: run failed: $(head -n 3 "$d/run.out")"; continue; }
	xfs_repair -n "$d/run.img" > "$d/repair.out" 2>&1 ||
		echo "$name: xfs_repair -n REJECTS run's result"
	if [ ! -f "$d/fsr.img" ]; then
		cp --sparse=always "$d/aged.img" "$d/fsr.img.tmp"
		mount -o loop "$d/fsr.img.tmp" "$m1"
		xfs_fsr "$m1" > /dev/null 2>&1 || true
		umount "$m1"
		mv "$d/fsr.img.tmp" "$d/fsr.img"
	fi
	read -r fj ff fh fs fd <<< "$(fig "$d/fresh.img")"
	declare -A cs cr
	read -r cs[aged] cs[run] cs[fsr] cs[fresh] cr[aged] cr[run] cr[fsr] \
		cr[fresh] <<< "$(cold_all "$d")"
	fc=${cs[fresh]}
	for img in aged run fsr fresh; do
		read -r j f h s dist <<< "$(fig "$d/$img.img")"
		c=${cs[$img]}
		printf '%-16s %-6s %8s %8s %9s %8s %7s %8s %7s %8s %7s\n' "$name" "$img" \
			"$j" "$f" "$h" "$s" \
			"$(python3 -c "print('%.2f' % ($h / $fh))")" "$c" \
			"$(python3 -c "print('%.2f' % ($c / $fc if $fc else 0))")" \
			"${cr[$img]}" "$dist"
	done
	echo "$name: $(cat "$d/age.out"); run: $(sed -n 's/^moved \([0-9.]* MiB\).* in \([0-9.]* s\).*/moved \1 in \2/p' "$d/run.out")"
done
