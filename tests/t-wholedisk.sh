#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A whole disk given instead of a partition: image files holding a GPT or
# an MBR partition table (sfdisk) with the aged fixture's XFS written at
# a partition's offset, a swap area and an empty partition.  Every
# command names the partitions, says which holds XFS and how to name it
# (--partition N), exits 1 (not "not XFS", not "damaged") and writes
# nothing; with a loop device, the partition it names opens.
#
# --partition N: on a GPT and an MBR image holding the XFS in partition
# 2 behind a swap partition, info, report and check read it as the
# filesystem alone; run moves it, undo --partition puts back every block
# in use (debug-compare against the filesystem alone), and the other
# partitions' bytes and the partition table stay as they were (sha256).
# On a loop device over the disk with partition devices (partx -a), run
# and undo on /dev/loopNp2 itself; a writer of partition 1 (its device,
# or the writer's lock of its bytes) does not keep a run of partition 2
# out, one of the whole disk or of partition 2 does.
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
mkdir -p "$T_TMP/mnt"
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
	elif ! grep -q "name the partition: --partition $xp" "$T_TMP/err"; then
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

# outside [OFF, OFF + LEN) of FILE, and inside: two digests
outside() {	# FILE OFF LEN: sha256 of every byte but those
	{ head -c "$2" "$1"; tail -c +$(($2 + $3 + 1)) "$1"; } | sha256sum | cut -c1-64
}
extract() {	# FILE OFF LEN OUT: those bytes, sparse
	dd if="$1" of="$4" bs=1M iflag=skip_bytes,count_bytes skip="$2" \
		count="$3" conv=sparse status=none
}

# --partition N on a GPT and an MBR disk, XFS in partition 2
info_ref=$(tail -n +2 "$fx/info.out")
for label in gpt dos; do
	disk=$T_TMP/p2-$label.img
	if ! mkdisk "$disk" "$label" 2; then
		t_fail "$label: sfdisk failed"
		continue
	fi
	off=$(((2048 + 65536) * 512))
	what="$label disk, --partition 2"
	around=$(outside "$disk" "$off" "$fsbytes")
	if "$bin" info --partition 2 "$disk" > "$T_TMP/info" 2> "$T_TMP/err" &&
	   [ "$(tail -n +2 "$T_TMP/info" | head -n "$(echo "$info_ref" | wc -l)")" = "$info_ref" ]; then
		t_ok "$what: info prints xfs_info's figures"
	else
		t_fail "$what: info: $(head -c 300 "$T_TMP/err")"
	fi
	"$bin" report --json --partition 2 "$disk" > "$T_TMP/rep.json" 2> "$T_TMP/err"
	"$bin" report --json "$fsimg" > "$T_TMP/rep0.json" 2> /dev/null
	if [ -s "$T_TMP/rep.json" ] &&
	   [ "$(t_json "$T_TMP/rep.json" 'd["fragmentation"], d["free_space"], d["ags"]')" = \
	     "$(t_json "$T_TMP/rep0.json" 'd["fragmentation"], d["free_space"], d["ags"]')" ]; then
		t_ok "$what: report's figures are the filesystem's alone"
	else
		t_fail "$what: report: $(head -c 300 "$T_TMP/err")"
	fi
	"$bin" bmap -v --partition 2 "$disk" /appends/big > "$T_TMP/bmap" 2>&1
	"$bin" bmap -v "$fsimg" /appends/big > "$T_TMP/bmap0" 2>&1
	cmp -s "$T_TMP/bmap" "$T_TMP/bmap0" &&
		t_ok "$what: bmap maps as on the filesystem alone" ||
		t_fail "$what: bmap differs: $(head -c 200 "$T_TMP/bmap")"
	# the completion's helper reads the partition's directories
	"$bin" complete --partition 2 "$disk" /a > "$T_TMP/cpl" 2>&1
	"$bin" complete "$fsimg" /a > "$T_TMP/cpl0" 2>&1
	[ -s "$T_TMP/cpl0" ] && cmp -s "$T_TMP/cpl" "$T_TMP/cpl0" &&
		t_ok "$what: complete lists the filesystem's names" ||
		t_fail "$what: complete differs: $(tr '\0' ' ' < "$T_TMP/cpl" | head -c 200)"
	"$bin" check --partition 2 "$disk" > "$T_TMP/check" 2>&1 &&
		t_ok "$what: check: consistent" ||
		t_fail "$what: check: $(tail -n 2 "$T_TMP/check")"
	rm -f "$T_TMP/p.undo" "$T_TMP/p.undo.map"
	if "$bin" run --partition 2 --undo "$T_TMP/p.undo" "$disk" > "$T_TMP/run" 2>&1 &&
	   grep -q "verified: consistent" "$T_TMP/run"; then
		t_ok "$what: run moved $(grep -o '^[0-9]* image writes' "$T_TMP/run")"
	else
		t_fail "$what: run: $(tail -n 2 "$T_TMP/run")"
	fi
	[ "$(outside "$disk" "$off" "$fsbytes")" = "$around" ] &&
		t_ok "$what: run left the partition table, partition 1 and 3 byte for byte (sha256)" ||
		t_fail "$what: run wrote outside partition 2"
	"$bin" check --partition 2 "$disk" > "$T_TMP/check" 2>&1 &&
		t_ok "$what: check after run: consistent" ||
		t_fail "$what: check after run: $(tail -n 2 "$T_TMP/check")"
	if t_need_mount "$what: the manifest through a mount"; then
		extract "$disk" "$off" "$fsbytes" "$T_TMP/part.img"
		if mount -o loop,ro,nouuid "$fsimg" "$T_TMP/mnt" 2> "$T_TMP/mount.err"; then
			python3 "$here/manifest.py" "$T_TMP/mnt" > "$T_TMP/man0"
			t_umount "$T_TMP/mnt"
			mount -o loop,ro,nouuid "$T_TMP/part.img" "$T_TMP/mnt" 2> "$T_TMP/mount.err" &&
				python3 "$here/manifest.py" "$T_TMP/mnt" > "$T_TMP/man1"
			t_umount "$T_TMP/mnt"
			cmp -s "$T_TMP/man0" "$T_TMP/man1" &&
				t_ok "$what: every file as before the run (manifest through a mount)" ||
				{ t_fail "$what: the manifest after the run differs"; t_show "$T_TMP/mount.err"; }
		else
			t_fail "$what: cannot mount the filesystem"; t_show "$T_TMP/mount.err"
		fi
	fi
	if "$bin" undo --partition 2 "$T_TMP/p.undo" "$disk" > "$T_TMP/undo" 2>&1; then
		extract "$disk" "$off" "$fsbytes" "$T_TMP/part.img"
		"$tbin" debug-compare "$fsimg" "$T_TMP/part.img" > "$T_TMP/cmp" 2>&1 &&
			t_ok "$what: undo --partition 2 gives every block in use back" ||
			t_fail "$what: after undo: $(head -n 2 "$T_TMP/cmp")"
	else
		t_fail "$what: undo: $(tail -n 2 "$T_TMP/undo")"
	fi
	[ "$(outside "$disk" "$off" "$fsbytes")" = "$around" ] &&
		t_ok "$what: undo left the other partitions byte for byte (sha256)" ||
		t_fail "$what: undo wrote outside partition 2"
	# shrink of partition 2: the disk file keeps its size (cutting it
	# would cut partition 3 off), the other partitions their bytes
	size0=$(stat -c %s "$disk")
	rm -f "$T_TMP/s.undo" "$T_TMP/s.undo.map"
	"$bin" shrink --min --discard --partition 2 --undo "$T_TMP/s.undo" "$disk" > "$T_TMP/shrink" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ "$(stat -c %s "$disk")" = "$size0" ] &&
	   [ "$(outside "$disk" "$off" "$fsbytes")" = "$around" ] &&
	   "$bin" check --partition 2 "$disk" > "$T_TMP/check" 2>&1; then
		t_ok "$what: shrink --min --discard: the disk file's size and the other partitions as they were, check consistent"
	else
		t_fail "$what: shrink --min: exit $rc, size $size0 -> $(stat -c %s "$disk"), $(tail -n 2 "$T_TMP/shrink")"
	fi
	if [ -e "$T_TMP/s.undo" ]; then
		"$bin" undo --partition 2 "$T_TMP/s.undo" "$disk" > "$T_TMP/undo" 2>&1 &&
		[ "$(outside "$disk" "$off" "$fsbytes")" = "$around" ] &&
			t_ok "$what: undo of the shrink: the other partitions as they were" ||
			t_fail "$what: undo of the shrink: $(tail -n 2 "$T_TMP/undo")"
	fi
	"$bin" undo --partition 1 "$T_TMP/p.undo" "$disk" > "$T_TMP/undo" 2>&1
	rc=$?
	[ $rc -ne 0 ] && grep -q "partition 1 holds swap" "$T_TMP/undo" &&
		t_ok "$what: undo --partition 1 refused: swap, not XFS" ||
		t_fail "$what: undo --partition 1: exit $rc, $(head -c 200 "$T_TMP/undo")"
	"$bin" info --partition 4 "$disk" > /dev/null 2> "$T_TMP/err"
	rc=$?
	[ $rc -eq 1 ] && grep -q "has no partition 4 (it has 1, 2, 3)" "$T_TMP/err" &&
		t_ok "$what: --partition 4: no such partition, those there named" ||
		t_fail "$what: --partition 4: exit $rc, $(head -c 200 "$T_TMP/err")"
done
"$bin" info --partition 1 "$fsimg" > /dev/null 2> "$T_TMP/err"
rc=$?
[ $rc -eq 1 ] && grep -q "no partition table" "$T_TMP/err" &&
	t_ok "--partition on a filesystem image: no partition table" ||
	t_fail "--partition on a filesystem image: exit $rc, $(head -c 200 "$T_TMP/err")"

# a loop device of the whole disk: the partition it names opens; run
# and undo on the partition's own device; writers of other partitions
# do not count
holder=
hold() {	# DEV: a process holding DEV open for writing
	# (the last holder's "ok" must not answer for this one: the
	# background job truncates the file only when it starts)
	rm -f "$T_TMP/hold"
	python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR); print("ok", flush=True); time.sleep(60)' "$1" > "$T_TMP/hold" &
	holder=$!
	for _ in $(seq 600); do [ -s "$T_TMP/hold" ] && break; sleep 0.05; done
}
unhold() { [ -n "$holder" ] && kill "$holder" 2> /dev/null; wait "$holder" 2> /dev/null; holder=; }
lockrange() {	# LOCKFILE OFF LEN: a process holding the writer's lock of those bytes
	rm -f "$T_TMP/hold"
	python3 -c 'import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
F_OFD_SETLK = 37
fcntl.fcntl(fd, F_OFD_SETLK, struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, int(sys.argv[2]), int(sys.argv[3]), 0))
print("ok", flush=True); time.sleep(60)' "$@" > "$T_TMP/hold" &
	holder=$!
	for _ in $(seq 600); do [ -s "$T_TMP/hold" ] && break; sleep 0.05; done
}
if t_need_mount "the named partition of a whole loop device"; then
	loop=
	T_CLEANUP_HOOK='unhold; [ -n "$loop" ] && losetup -d "$loop"'
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
	disk=$T_TMP/p2-gpt.img
	off=$(((2048 + 65536) * 512))
	loop=$(losetup --find --show --partscan "$disk" 2>/dev/null)
	if [ -z "$loop" ]; then
		t_skip "no free loop device"
	else
		[ -b "${loop}p2" ] || partx -a "$loop" 2> /dev/null
	fi
	if [ -n "$loop" ] && [ -b "${loop}p2" ]; then
		around=$(outside "$disk" "$off" "$fsbytes")
		p2=${loop}p2
		rm -f "$T_TMP/l.undo" "$T_TMP/l.undo.map"
		hold "${loop}p1"
		if "$bin" run --undo "$T_TMP/l.undo" "$p2" > "$T_TMP/run" 2>&1; then
			t_ok "run on $p2 itself, partition 1 open for writing elsewhere: $(grep -o '^[0-9]* image writes' "$T_TMP/run")"
		else
			t_fail "run on $p2: $(tail -n 2 "$T_TMP/run")"
		fi
		unhold
		"$bin" check "$p2" > "$T_TMP/check" 2>&1 &&
			t_ok "check $p2 after run: consistent" ||
			t_fail "check $p2 after run: $(tail -n 2 "$T_TMP/check")"
		"$bin" undo "$T_TMP/l.undo" "$p2" > "$T_TMP/undo" 2>&1 &&
			t_ok "undo on $p2" || t_fail "undo on $p2: $(tail -n 2 "$T_TMP/undo")"
		# --partition 2 of the loop device opens its node
		"$bin" info --partition 2 "$loop" > "$T_TMP/info" 2>&1 &&
			[ "$(tail -n +2 "$T_TMP/info" | head -n 9)" = "$(echo "$info_ref" | head -n 9)" ] &&
			t_ok "--partition 2 $loop opens $p2" ||
			t_fail "--partition 2 $loop: $(head -n 2 "$T_TMP/info")"
		sum=$(t_imgsum "$disk")
		for w in "$loop:the whole disk" "$p2:partition 2"; do
			hold "${w%%:*}"
			rm -f "$T_TMP/r.undo" "$T_TMP/r.undo.map"
			"$bin" run --undo "$T_TMP/r.undo" "$p2" > "$T_TMP/run" 2>&1
			rc=$?
			unhold
			[ $rc -eq 4 ] && grep -q "process [0-9]* (python3) has" "$T_TMP/run" &&
				t_ok "run on $p2 refused while ${w#*:} is open for writing" ||
				t_fail "run on $p2 with ${w#*:} open for writing: exit $rc, $(head -n 1 "$T_TMP/run")"
		done
		# the writer's lock: by the disk's backing file, byte ranges
		lf=$(printf '/run/xfsdefrag/%x-%x.lock' "$(stat -c %d "$disk")" "$(stat -c %i "$disk")")
		if [ -d /run/xfsdefrag ]; then
			lockrange "$lf" $((2048 * 512)) $((65536 * 512))
			rm -f "$T_TMP/r.undo" "$T_TMP/r.undo.map"
			"$bin" run --undo "$T_TMP/r.undo" "$p2" > "$T_TMP/run" 2>&1
			rc=$?
			unhold
			if [ $rc -eq 0 ]; then
				t_ok "run on $p2 while another writer locks partition 1's bytes"
				"$bin" undo "$T_TMP/r.undo" "$p2" > /dev/null 2>&1 ||
					t_fail "undo on $p2 failed"
			else
				t_fail "run on $p2 with partition 1's bytes locked: exit $rc, $(head -n 1 "$T_TMP/run")"
			fi
			lockrange "$lf" $((off + 4096)) 4096
			rm -f "$T_TMP/r.undo" "$T_TMP/r.undo.map"
			"$bin" run --undo "$T_TMP/r.undo" "$p2" > "$T_TMP/run" 2>&1
			rc=$?
			unhold
			[ $rc -eq 4 ] && grep -q "another xfsdefrag" "$T_TMP/run" &&
				t_ok "run on $p2 refused while another writer locks some of its bytes" ||
				t_fail "run on $p2 with its bytes locked: exit $rc, $(head -n 1 "$T_TMP/run")"
		fi
		losetup -d "$loop"
		loop=
		[ "$(outside "$disk" "$off" "$fsbytes")" = "$around" ] &&
			t_ok "runs through $p2 left the other partitions byte for byte (sha256)" ||
			t_fail "runs through $p2 wrote outside partition 2"
		extract "$disk" "$off" "$fsbytes" "$T_TMP/part.img"
		"$tbin" debug-compare "$fsimg" "$T_TMP/part.img" > "$T_TMP/cmp" 2>&1 &&
			t_ok "after run and undo on $p2: every block in use as before" ||
			t_fail "after run and undo on $p2: $(head -n 2 "$T_TMP/cmp")"
	elif [ -n "$loop" ]; then
		t_skip "no partition devices for $loop (partx -a failed)"
		losetup -d "$loop"
		loop=
	fi
fi
t_summary wholedisk
