#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One writer at a time, whatever the path (issue 12).  The same image is
# reached as the file, a loop device over it, a symlink and a hard link;
# two runs race through every pair of those paths, started together and
# staggered (the second once the first holds the writer's lock).  At
# most one may proceed, the other is refused (exit 4) with a message
# naming the other writer, and every file stays identical: when a run
# proceeded, the manifest through a read-only mount equals the
# original's (for the races started together) and undoing it gives every
# block in use back (debug-compare), else the image is byte-identical.  Also: a file that backs a loop
# device, a process holding the image or the device open for writing,
# a mounted loop device, a device-mapper holder, and undo taking the
# same lock.  Needs root and one loop device at a time.
# Usage: t-excl.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
t_tmpdir
T=$T_TMP
MNT=$T/mnt
mkdir -p "$MNT"
LOOP=
DM=
T_CLEANUP_HOOK='mountpoint -q "$MNT" && t_umount "$MNT"; [ -n "$DM" ] && dmsetup remove "$DM"; [ -n "$LOOP" ] && losetup -d "$LOOP"'

if ! t_can_mount || ! command -v flock >/dev/null 2>&1; then
	if [ -n "${XFSDEFRAG_REQUIRE_MOUNT:-}" ]; then
		t_fail "exclusion tests need root, loop devices and flock(1)"
	else
		t_skip "exclusion tests need root, loop devices and flock(1): not run here"
	fi
	t_summary t-excl
	exit
fi
t_unpack "$here/fixtures/bs1k" "$T/orig" || { t_fail "cannot unpack bs1k"; t_summary t-excl; exit; }
IMG=$T/img
ln -s img "$T/sym"

manifest() {	# IMAGE OUT: the content manifest through a read-only mount
	mount -o loop,ro,nouuid "$1" "$MNT" || return 1
	python3 "$here/manifest.py" "$MNT" > "$2"
	local rc=$?
	t_umount "$MNT"
	return $rc
}
manifest "$T/orig" "$T/man.orig" || t_fail "cannot take the original's manifest"

attach() {	# [-r]: LOOP over IMG
	LOOP=$(losetup "$@" -f --show "$IMG") || { LOOP=; return 1; }
}
detach() { [ -n "$LOOP" ] && losetup -d "$LOOP"; LOOP=; }

fresh() {
	rm -f "$T/hard" "$T"/u1 "$T"/u2 "$T"/u1.map "$T"/u2.map
	cp --sparse=always "$T/orig" "$IMG"
	ln "$IMG" "$T/hard"
}

path_of() {	# KIND
	case $1 in
	file) echo "$IMG" ;;
	loop) echo "$LOOP" ;;
	symlink) echo "$T/sym" ;;
	hardlink) echo "$T/hard" ;;
	esac
}

lockfile() {	# the writer's lock of IMG's bytes (core/base/excl.c)
	printf '/run/xfsdefrag/%x-%x.lock' "$(stat -c %d "$IMG")" "$(stat -c %i "$IMG")"
}

# after a race: rc1 rc2 -> verdict; undoes the run that proceeded
judge() {	# NAME RC1 RC2 OUT1 OUT2
	local name=$1 r1=$2 r2=$3 ok=0 u=
	[ "$r1" -eq 0 ] && ok=$((ok + 1)) && u=$T/u1
	[ "$r2" -eq 0 ] && ok=$((ok + 1)) && u=$T/u2
	if [ $ok -gt 1 ]; then
		t_fail "$name: both runs proceeded"
		RESULTS+=("$name: BOTH")
		return
	fi
	for r in "$r1:$4" "$r2:$5"; do
		[ "${r%%:*}" -eq 0 ] && continue
		if [ "${r%%:*}" -ne 4 ] || ! grep -q "refusing to write" "${r#*:}"; then
			t_fail "$name: a run neither proceeded nor was refused: exit ${r%%:*}, $(head -n 1 "${r#*:}")"
			RESULTS+=("$name: ERROR")
			return
		fi
	done
	detach
	if [ -n "$u" ] && [ -n "${6:-}" ] && [ -s "$T/man.orig" ]; then
		# the run that proceeded kept every file (manifest by a mount)
		manifest "$IMG" "$T/man.run" && cmp -s "$T/man.orig" "$T/man.run" ||
			{ t_fail "$name: the manifest after the run differs"; RESULTS+=("$name: MANIFEST"); return; }
	fi
	if [ -n "$u" ]; then
		"$bin" undo "$u" "$IMG" > "$T/undo.out" 2>&1 &&
			"$tbin" debug-compare "$T/orig" "$IMG" > "$T/cmp.out" ||
			{ t_fail "$name: after the run that proceeded, undo does not give the original: $(cat "$T/undo.out" "$T/cmp.out" | head -n 2)"; RESULTS+=("$name: LOSS"); return; }
		RESULTS+=("$name: one proceeded ($([ "$r1" -eq 0 ] && echo first || echo second)), one refused;${6:+ manifest identical;} undo: identical")
	else
		[ "$(t_imgsum "$T/orig")" = "$(t_imgsum "$IMG")" ] ||
			{ t_fail "$name: both refused but the image changed"; RESULTS+=("$name: CHANGED"); return; }
		RESULTS+=("$name: both refused; image byte-identical")
	fi
	t_ok "$name: at most one proceeded, every block in use intact"
}

race() {	# KIND1 KIND2 MODE(together|staggered)
	local k1=$1 k2=$2 mode=$3 p1 p2 pid1 r1 r2 lf i
	fresh
	if [ "$k1" = loop ] || [ "$k2" = loop ]; then
		attach || { t_skip "$k1/$k2: no loop device free"; return; }
	fi
	p1=$(path_of "$k1")
	p2=$(path_of "$k2")
	lf=$(lockfile)
	if [ "$mode" = together ]; then
		"$bin" run --undo "$T/u1" "$p1" > "$T/o1" 2>&1 &
		pid1=$!
		"$bin" run --undo "$T/u2" "$p2" > "$T/o2" 2>&1
		r2=$?
		wait "$pid1"
		r1=$?
	else
		"$bin" run --undo "$T/u1" "$p1" > "$T/o1" 2>&1 &
		pid1=$!
		# wait until the first holds the lock (it writes its pid into
		# the lock file once it does; probing with flock would race it)
		for i in $(seq 400); do
			kill -0 "$pid1" 2>/dev/null || break
			[ "$(cat "$lf" 2>/dev/null)" = "$pid1" ] && break
			sleep 0.02
		done
		"$bin" run --undo "$T/u2" "$p2" > "$T/o2" 2>&1
		r2=$?
		wait "$pid1"
		r1=$?
		if [ "$r2" -eq 4 ] && [ "$r1" -eq 0 ] && ! grep -q "another xfsdefrag\|backs loop device\|open for writing\|is busy" "$T/o2"; then
			t_fail "$k1 then $k2: refused, but not for the other writer: $(head -n 1 "$T/o2")"
		fi
		# the holder of the lock is not pushed out by a later comer
		if grep -q "(xfsdefrag) has\|another xfsdefrag" "$T/o1"; then
			t_fail "$k1 then $k2: the first run gave way to the second: $(head -n 1 "$T/o1")"
		fi
	fi
	judge "$k1 + $k2 ($mode)" "$r1" "$r2" "$T/o1" "$T/o2" \
		"$([ "$mode" = together ] && echo manifest)"
	detach
}

RESULTS=()
kinds="file loop symlink hardlink"
modes="together staggered"
pairs=
for a in $kinds; do for b in $kinds; do pairs+=" $a+$b"; done; done
if [ -n "${XFSDEFRAG_ASAN:-}" ]; then
	# the sanitizer build is slower: staggered only, and in make check
	# (not check-long) a cycle through the kinds, each one first and
	# second once, and the same path twice
	modes=staggered
	[ -n "${XFSDEFRAG_TEST_LONG:-}" ] ||
		pairs="file+file file+loop loop+symlink symlink+hardlink hardlink+file"
fi
for m in $modes; do
	for p in $pairs; do
		race "${p%+*}" "${p#*+}" "$m"
	done
done
echo "race matrix:"
printf '  %s\n' "${RESULTS[@]}"

expect_refusal() {	# NAME PATH PATTERN
	local s rc
	s=$(t_imgsum "$IMG")
	rm -f "$T/r.undo" "$T/r.undo.map"
	"$bin" run --undo "$T/r.undo" "$2" > "$T/ref.out" 2>&1
	rc=$?
	if [ $rc -eq 4 ] && grep -q "$3" "$T/ref.out" && [ ! -e "$T/r.undo" ] &&
	   [ "$s" = "$(t_imgsum "$IMG")" ]; then
		t_ok "refuses: $1"
	else
		t_fail "refusal '$1': exit $rc, $(head -n 1 "$T/ref.out")"
	fi
}

fresh
# a file that backs a loop device, nobody using it
if attach; then
	expect_refusal "image file backing a loop device" "$IMG" "backs loop device $LOOP"
	expect_refusal "hard link to a file backing a loop device" "$T/hard" "backs loop device $LOOP"
	# the device open for writing by another process
	python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR); time.sleep(30)' "$LOOP" &
	holder=$!
	sleep 0.5
	expect_refusal "loop device open for writing elsewhere" "$LOOP" "process $holder (python3) has"
	kill "$holder"; wait "$holder" 2>/dev/null
	# the file behind it locked by another tool: a run on the device
	# takes the file's flock too, as it does on the file itself
	python3 -c 'import fcntl, sys, time
f = open(sys.argv[1]); fcntl.flock(f, fcntl.LOCK_EX); time.sleep(30)' "$IMG" &
	holder=$!
	sleep 0.5
	expect_refusal "loop device whose backing file another tool has locked" "$LOOP" "another process holds a lock on .*, the file behind it"
	kill "$holder"; wait "$holder" 2>/dev/null
	# mounted through the loop device
	if mount -o ro,nouuid "$LOOP" "$MNT" 2>/dev/null; then
		expect_refusal "image mounted through a loop device" "$IMG" "is mounted on $MNT"
		# the device itself: the refusal names where, and what to do
		expect_refusal "loop device mounted" "$LOOP" "$LOOP is mounted on $MNT; unmount it first"
		t_umount "$MNT"
	fi
	# a device-mapper device built on it
	if command -v dmsetup >/dev/null 2>&1 &&
	   dmsetup create "xfsdefrag-t$$" --table "0 $(blockdev --getsz "$LOOP") linear $LOOP 0" 2>/dev/null; then
		DM="xfsdefrag-t$$"
		expect_refusal "loop device with a device-mapper holder" "$LOOP" "is held by dm-"
		dmsetup remove "$DM" && DM=
	else
		t_skip "no device-mapper here: holder refusal not exercised"
	fi
	detach
fi
# the image open for writing by another process, without any lock
python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR); time.sleep(30)' "$IMG" &
holder=$!
sleep 0.5
expect_refusal "image open for writing by another process" "$T/sym" "process $holder (python3) has"
kill "$holder"; wait "$holder" 2>/dev/null
# undo takes the same lock
rm -f "$T/u1" "$T/u1.map"
if "$bin" run --undo "$T/u1" "$IMG" > /dev/null 2>&1; then
	lf=$(lockfile)
	s=$(t_imgsum "$IMG")
	flock "$lf" sleep 30 &
	holder=$!
	sleep 0.5
	"$bin" undo "$T/u1" "$T/hard" > "$T/out" 2>&1
	rc=$?
	[ $rc -eq 4 ] && grep -q "another xfsdefrag" "$T/out" && [ "$s" = "$(t_imgsum "$IMG")" ] &&
		t_ok "undo refused while another xfsdefrag holds the lock" ||
		t_fail "undo under a held lock: exit $rc, $(head -n 1 "$T/out")"
	kill "$holder"; wait "$holder" 2>/dev/null
fi
t_summary t-excl
