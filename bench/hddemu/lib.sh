# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by bench/readers.sh and bench/bonnie.sh: an image on the emulated
# disk (bench/hddemu), a loop device with direct I/O on it, and its
# counters.  Needs root, /dev/fuse, one loop device, `make hddemu`.
#
#   . bench/hddemu/lib.sh
#   hdd_init SCRATCH             # where the FUSE mount goes; sets a trap
#   hdd_start IMAGE [TRACE [ro]] # HDD_DEV: the loop device (SCALE: 10);
#                                # ro: a read-only loop device, on which
#                                # XFS writes nothing (mount -o ro alone
#                                # still writes the log)
#   hdd_reset                    # counters zero, drive cache empty
#   hdd_stat NAME                # one counter (busy_s, requests, ...)
#   hdd_stop                     # loop device and FUSE mount gone
#   hdd_drop                     # sync, drop the kernel's caches

HDD_BIN=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/release/bench/hddemu/hddemu
HDD_FUSE= HDD_DEV= HDD_PID= HDD_MNTS=()

hdd_init() {	# SCRATCH
	[ -x "$HDD_BIN" ] || { echo "$HDD_BIN: not built (make hddemu)" >&2; exit 1; }
	[ -e /dev/fuse ] || { echo "no /dev/fuse: hddemu cannot run here" >&2; exit 1; }
	HDD_FUSE=$1/hddemu
	mkdir -p "$HDD_FUSE"
	mountpoint -q "$HDD_FUSE" && umount "$HDD_FUSE"
	trap hdd_cleanup EXIT
	trap 'exit 130' INT TERM
}

# hdd_cleanup: what is mounted on the loop device (the mount points in
# HDD_MNTS), the loop device, the FUSE mount
hdd_cleanup() {
	local m
	for m in "${HDD_MNTS[@]}"; do
		mountpoint -q "$m" && umount "$m"
	done
	hdd_stop
	return 0
}

hdd_start() {	# IMAGE [TRACE [ro]]
	local i ro=()
	[ "${3:-}" != ro ] || ro=(-r)
	"$HDD_BIN" -f -o "scale=${SCALE:-10}${2:+,trace=$2}" "$1" "$HDD_FUSE" &
	HDD_PID=$!
	for ((i = 0; i < 100; i++)); do
		mountpoint -q "$HDD_FUSE" && break
		sleep 0.1
	done
	mountpoint -q "$HDD_FUSE" || { echo "hddemu did not mount $1" >&2; exit 1; }
	HDD_DEV=$(losetup "${ro[@]}" --direct-io=on -f --show "$HDD_FUSE/disk")
}

hdd_stop() {
	local i
	[ -z "$HDD_DEV" ] || losetup -d "$HDD_DEV" 2>/dev/null || true
	HDD_DEV=
	# the loop device lets go of the file a moment after losetup -d
	if [ -n "$HDD_FUSE" ] && mountpoint -q "$HDD_FUSE"; then
		for ((i = 0; i < 100; i++)); do
			umount "$HDD_FUSE" 2>/dev/null && break
			sleep 0.1
		done
		mountpoint -q "$HDD_FUSE" && umount "$HDD_FUSE"
	fi
	[ -z "$HDD_PID" ] || wait "$HDD_PID" 2>/dev/null || true
	HDD_PID=
}

hdd_reset() { echo > "$HDD_FUSE/stats"; }

hdd_stat() { awk -v k="$1" '$1 == k {print $2}' "$HDD_FUSE/stats"; }

hdd_drop() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}
