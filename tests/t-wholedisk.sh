#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A whole disk given instead of a partition: image files holding a GPT or
# an MBR partition table (sfdisk) with the aged fixture's XFS written at
# a partition's offset, a swap area and an empty partition.  Every
# command names the partitions, says which holds XFS and how to name it,
# exits 1 (not "not XFS", not "damaged") and writes nothing; with a loop
# device, the partition it names opens.
# Usage: t-wholedisk.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
fx=$here/fixtures/aged
t_tmpdir

if ! command -v sfdisk > /dev/null || ! command -v mkswap > /dev/null; then
	if [ -n "${CI:-}" ]; then
		t_fail "sfdisk or mkswap missing (.ci/run-deps installs fdisk)"
	else
		t_skip "sfdisk or mkswap missing"
	fi
	t_summary wholedisk
	exit
fi

fsimg=$T_TMP/fs.img
t_unpack "$fx" "$fsimg"
fsbytes=$(stat -c %s "$fsimg")
fssect=$((fsbytes / 512))
truncate -s 32M "$T_TMP/swap.img"
mkswap -q "$T_TMP/swap.img" > /dev/null

# mkdisk FILE LABEL XFSPART: partitions 1-3, XFS in XFSPART, swap in the
# other of 1 and 2, partition 3 empty
mkdisk() {
	local f=$1 label=$2 xp=$3 s1 s2
	rm -f "$f"
	truncate -s $((fsbytes + 80 * 1048576)) "$f"
	if [ "$xp" = 1 ]; then
		s1=$fssect s2=65536
	else
		s1=65536 s2=$fssect
	fi
	printf 'label: %s\nstart=2048, size=%d\nstart=%d, size=%d\nstart=%d, size=32768\n' \
		"$label" "$s1" $((2048 + s1)) "$s2" $((2048 + s1 + s2)) |
		sfdisk -q "$f" || return 1
	if [ "$xp" = 1 ]; then
		dd if="$fsimg" of="$f" bs=512 seek=2048 conv=notrunc,sparse status=none
		dd if="$T_TMP/swap.img" of="$f" bs=512 seek=$((2048 + s1)) conv=notrunc status=none
	else
		dd if="$T_TMP/swap.img" of="$f" bs=512 seek=2048 conv=notrunc status=none
		dd if="$fsimg" of="$f" bs=512 seek=$((2048 + s1)) conv=notrunc,sparse status=none
	fi
}

# expect_named FILE LABEL XFSPART CMD ARGS...: exit 1, the partitions named
expect_named() {
	local f=$1 label=$2 xp=$3 other
	shift 3
	other=$((3 - xp))
	"$bin" "$@" > "$T_TMP/out" 2> "$T_TMP/err"
	local rc=$?
	local what="$label disk, $1"
	if [ $rc -ne 1 ]; then
		t_fail "$what: exit $rc, expected 1 ($(head -c 200 "$T_TMP/err"))"
	elif ! grep -q "a whole disk ($label partition table)" "$T_TMP/err"; then
		t_fail "$what: not called a whole disk: $(head -c 200 "$T_TMP/err")"
	elif ! grep -q "partition $xp: XFS" "$T_TMP/err" ||
	     ! grep -q "partition $other: swap" "$T_TMP/err" ||
	     ! grep -q "partition 3: no signature" "$T_TMP/err"; then
		t_fail "$what: partitions not named: $(head -c 300 "$T_TMP/err")"
	elif ! grep -q "then partition $xp is /dev/loopNp$xp" "$T_TMP/err"; then
		t_fail "$what: no way to name partition $xp: $(head -c 400 "$T_TMP/err")"
	elif grep -q "not an XFS filesystem\|bad magic" "$T_TMP/err"; then
		t_fail "$what: still says not XFS"
	else
		t_ok "$what: partitions named, XFS in $xp, how to name it"
	fi
}

for case in "gpt 1" "dos 2"; do
	set -- $case
	label=$1 xp=$2
	disk=$T_TMP/disk-$label.img
	if ! mkdisk "$disk" "$label" "$xp"; then
		t_fail "$label: sfdisk failed"
		continue
	fi
	cp --sparse=always "$disk" "$disk.orig"
	expect_named "$disk" "$label" "$xp" info "$disk"
	expect_named "$disk" "$label" "$xp" report "$disk"
	expect_named "$disk" "$label" "$xp" bmap -v "$disk" /appends/big
	expect_named "$disk" "$label" "$xp" check "$disk"
	expect_named "$disk" "$label" "$xp" plan "$disk"
	expect_named "$disk" "$label" "$xp" run --undo "$T_TMP/u.undo" "$disk"
	[ ! -e "$T_TMP/u.undo" ] && "$tbin" debug-scribble --compare \
		"$disk.orig" "$disk" > /dev/null 2>&1 &&
		t_ok "$label: run on the whole disk wrote nothing" ||
		t_fail "$label: run on the whole disk wrote something"
	rm -f "$disk.orig"
done

# no XFS at all: say so
disk=$T_TMP/noxfs.img
truncate -s 64M "$disk"
printf 'label: gpt\nstart=2048, size=65536\n' | sfdisk -q "$disk"
dd if="$T_TMP/swap.img" of="$disk" bs=512 seek=2048 conv=notrunc status=none
"$bin" info "$disk" > /dev/null 2> "$T_TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q "partition 1: swap" "$T_TMP/err" &&
	grep -q "no partition holds XFS" "$T_TMP/err" &&
	t_ok "a disk without XFS: its partitions named, none holds XFS" ||
	t_fail "a disk without XFS: exit $rc, $(head -c 300 "$T_TMP/err")"

# a loop device of the whole disk: the partition it names opens
if t_can_mount && command -v losetup > /dev/null; then
	loop=
	T_CLEANUP_HOOK='[ -n "$loop" ] && losetup -d "$loop"'
	loop=$(losetup --find --show --partscan "$T_TMP/disk-gpt.img" 2>/dev/null)
	if [ -z "$loop" ]; then
		t_skip "no free loop device"
	else
		# kernels without a GPT parser make no nodes: partx adds them
		[ -b "${loop}p1" ] || partx -a "$loop" 2> /dev/null
		"$bin" info "$loop" > /dev/null 2> "$T_TMP/err"
		rc=$?
		if [ $rc -eq 1 ] && grep -q "${loop}p1" "$T_TMP/err"; then
			t_ok "whole loop device: names ${loop}p1"
		else
			t_fail "whole loop device: exit $rc, $(head -c 300 "$T_TMP/err")"
		fi
		if [ -b "${loop}p1" ] && "$bin" info "${loop}p1" > "$T_TMP/info" 2>&1 &&
		   [ "$(tail -n +2 "$T_TMP/info" | head -n 9)" = \
		     "$(tail -n +2 "$fx/info.out" | head -n 9)" ]; then
			t_ok "the named partition ${loop}p1 opens: xfs_info's figures"
		else
			t_fail "the named partition ${loop}p1: $(head -n 2 "$T_TMP/info")"
		fi
		losetup -d "$loop"
		loop=
	fi
else
	t_skip "no root or loop devices: the named partition not opened"
fi
t_summary wholedisk
