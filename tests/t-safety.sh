#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The ways a run or an undo could lose data, each probed on real fixture
# images (issue 12), each with 0 silent losses as the bar:
#   - anything that writes after a run (a read-write mount writing
#     ~200 MiB, a block the run wrote changed behind its back, a second
#     run, a scribbler): undo refuses, exit 4, the image byte-identical;
#     free space reused after the run: undo still restores every block in
#     use before the run (debug-compare, our own reader) and xfs_repair
#     accepts it;
#   - chains: run A, run B, undo B, undo A gives the original back; undo A
#     alone after B is refused;
#   - read-only targets (chmod 444 even as root, a read-only loop device):
#     refused before anything is created, with a true message;
#   - a full filesystem under the undo file (a small tmpfs) and write
#     errors (the fault layer): the run rolls itself back, or says it
#     cannot and what state it left, and undo then restores.
# Needs root, mount and a loop device for some probes; skips those loudly
# (fails them with XFSDEFRAG_REQUIRE_MOUNT=1).
# Usage: t-safety.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
t_tmpdir
T=$T_TMP
MNT=$T/mnt
SMALL=$T/small
mkdir -p "$MNT" "$SMALL"
T_CLEANUP_HOOK='mountpoint -q "$MNT" && t_umount "$MNT"; mountpoint -q "$SMALL" && umount "$SMALL"'

have_repair=1
command -v xfs_repair >/dev/null 2>&1 || have_repair=
can_mount=
t_can_mount && can_mount=1
skip_mount() {
	if [ -n "${XFSDEFRAG_REQUIRE_MOUNT:-}" ]; then t_fail "$1: needs root and mounts"
	else t_skip "$1: needs root and mounts"; fi
}

# the sanitizer build is slower: fewer fixtures, same code paths
if [ -n "${XFSDEFRAG_ASAN:-}" ]; then
	REUSE="aged bs1k" CHAIN="aged" ERRPTS=
else
	REUSE="aged bs1k rmap-nrext64 ag16" CHAIN="aged ag16 rmap-nrext64"
	ERRPTS="2 3"
fi

sum() { t_imgsum "$1"; }
repair_ok() { [ -z "$have_repair" ] || xfs_repair -n "$1" > "$T/repair.out" 2>&1; }
# same ORIG OTHER: every block in use in ORIG identical in OTHER, repair ok
same() {
	"$tbin" debug-compare "$1" "$2" > "$T/cmp.out" 2>&1 && repair_ok "$2"
}
# run IMAGE UNDO [OPTION...]
run() { rm -f "$2" "$2.map"; "$bin" run --undo "$2" "${@:3}" "$1" > "$T/run.out" 2>&1; }

unpack() {	# FIXTURE -> $T/FIXTURE.orig
	t_have "$here/fixtures/$1/image" && t_unpack "$here/fixtures/$1" "$T/$1.orig"
}

# --- a read-write mount writes ~200 MiB after the run: refused
probe_mount() {
	local f=aged img=$T/m.img s
	[ -n "$can_mount" ] || { skip_mount "mount after run"; return; }
	unpack $f || { t_skip "no fixture $f"; return; }
	cp --sparse=always "$T/$f.orig" "$img"
	run "$img" "$T/m.undo" || { t_fail "mount probe: run failed"; return; }
	mount -o loop,nouuid "$img" "$MNT" || { t_fail "mount probe: mount"; return; }
	dd if=/dev/urandom of="$MNT/written-after" bs=1M count=200 status=none
	sync
	t_umount "$MNT"
	s=$(sum "$img")
	"$bin" undo "$T/m.undo" "$img" > "$T/out" 2>&1
	local rc=$?
	if [ $rc -eq 4 ] && grep -q "changed since the run" "$T/out" &&
	   grep -q "the log was written" "$T/out" &&
	   grep -q "would destroy what was written since" "$T/out" &&
	   [ "$s" = "$(sum "$img")" ]; then
		t_ok "mount + 200 MiB after a run: undo refused (exit 4), image unchanged"
	else
		t_fail "mount after run: undo exit $rc, $(head -c 300 "$T/out")"
	fi
	"$bin" undo --check "$T/m.undo" "$img" > "$T/out" 2>&1
	rc=$?
	[ $rc -eq 4 ] && grep -q "^matches: *no" "$T/out" &&
		t_ok "undo --check says it would refuse (exit 4)" ||
		t_fail "undo --check after a mount: exit $rc"
	# the new file is still there and the filesystem still mounts
	mount -o loop,ro,nouuid "$img" "$MNT" && [ -s "$MNT/written-after" ] &&
		t_ok "the file written after the run is intact" ||
		t_fail "the file written after the run is gone"
	mountpoint -q "$MNT" && t_umount "$MNT"
}

# --- a block the run wrote changed behind its back (no log): refused
probe_behind() {
	local f=bs1k img=$T/b.img s fb
	unpack $f || { t_skip "no fixture $f"; return; }
	cp --sparse=always "$T/$f.orig" "$img"
	run "$img" "$T/b.undo" || { t_fail "behind: run failed"; return; }
	fb=$(xfs_db -r -c "agf 1" -c "print freeblks" "$img" | sed 's/.*= //')
	xfs_db -x -c "agf 1" -c "write freeblks $((fb - 1))" "$img" >/dev/null 2>&1
	s=$(sum "$img")
	"$bin" undo "$T/b.undo" "$img" > "$T/out" 2>&1
	local rc=$?
	if [ $rc -eq 4 ] && grep -q "1 block the run wrote holds other data (first: ag 1 block 0 (the agf))" "$T/out" &&
	   [ "$s" = "$(sum "$img")" ]; then
		t_ok "an AGF the run wrote changed since: refused, named (ag 1 block 0)"
	else
		t_fail "changed AGF: undo exit $rc, $(head -c 300 "$T/out")"
	fi
}

# --- free space reused after the run: undo still restores everything
probe_reuse() {
	local f img
	for f in $REUSE; do
		unpack $f || continue
		img=$T/r.img
		cp --sparse=always "$T/$f.orig" "$img"
		run "$img" "$T/r.undo" || { t_fail "$f reuse: run failed"; continue; }
		"$tbin" debug-scribble --junk-free "$img" > /dev/null ||
			{ t_fail "$f: junk-free failed"; continue; }
		if "$bin" undo "$T/r.undo" "$img" > "$T/out" 2>&1 &&
		   same "$T/$f.orig" "$img"; then
			t_ok "$f: every free block overwritten after the run: undo restores all ($(grep -o 'copied back [0-9]*' "$T/out" || echo 'copied back 0') from copies; $(cut -d' ' -f1-2 "$T/cmp.out") blocks)"
		else
			t_fail "$f reuse: $(head -c 200 "$T/out") / $(cat "$T/cmp.out")"
		fi
		rm -f "$img"
	done
}

# --- chains of runs and undos
probe_chain() {
	local f img=$T/c.img s
	for f in $CHAIN; do
		unpack $f || continue
		cp --sparse=always "$T/$f.orig" "$img"
		# B lays the tree out by name: a run after a run in the
		# same order moves nothing
		run "$img" "$T/a.undo" && run "$img" "$T/b.undo" --order name ||
			{ t_fail "$f chain: a run failed: $(head -n 2 "$T/run.out")"; continue; }
		if "$bin" undo "$T/b.undo" "$img" > "$T/out" 2>&1 &&
		   "$bin" undo "$T/a.undo" "$img" >> "$T/out" 2>&1 &&
		   same "$T/$f.orig" "$img"; then
			t_ok "$f: run A, run B, undo B, undo A: the original back"
		else
			t_fail "$f chain: $(head -c 300 "$T/out") / $(cat "$T/cmp.out")"
		fi
	done
	# other writers over A's result: every free block junked, then a
	# scribbler B journaling what it overwrites (its writes into free
	# space stay after undo B)
	f=bs1k
	unpack $f || return
	cp --sparse=always "$T/$f.orig" "$img"
	run "$img" "$T/a.undo" || { t_fail "chain: run A failed"; return; }
	"$tbin" debug-scribble --junk-free "$img" > /dev/null
	rm -f "$T/b.undo" "$T/b.undo.map"
	"$tbin" debug-scribble --free-writes 100 "$T/b.undo" "$img" > "$T/out" 2>&1 ||
		{ t_fail "chain: scribble B failed: $(head -n 1 "$T/out")"; return; }
	s=$(sum "$img")
	"$bin" undo "$T/a.undo" "$img" > "$T/out" 2>&1
	local rc=$?
	if [ $rc -eq 4 ] && grep -q "changed since the run" "$T/out" && [ "$s" = "$(sum "$img")" ]; then
		t_ok "$f: undo A after another writer B: refused (exit 4), image unchanged"
	else
		t_fail "$f: undo A after B: exit $rc, $(head -c 300 "$T/out")"
	fi
	if "$bin" undo "$T/b.undo" "$img" > "$T/out" 2>&1 &&
	   "$bin" undo "$T/a.undo" "$img" >> "$T/out" 2>&1 && same "$T/$f.orig" "$img"; then
		t_ok "$f: run A, free space junked, writer B, undo B, undo A: the original back"
	else
		t_fail "$f: chain with B: $(head -c 300 "$T/out") / $(cat "$T/cmp.out")"
	fi
}

# --- read-only targets: refused before anything is created
probe_readonly() {
	local f=bs1k img=$T/ro.img s dev rc
	unpack $f || return
	cp --sparse=always "$T/$f.orig" "$img"
	chmod 444 "$img"
	s=$(sum "$img")
	rm -f "$T/ro.undo" "$T/ro.undo.map"
	"$bin" run --undo "$T/ro.undo" "$img" > "$T/out" 2>&1
	rc=$?
	if [ $rc -eq 4 ] && grep -q "no write permission (mode 0444)" "$T/out" &&
	   [ ! -e "$T/ro.undo" ] && [ "$s" = "$(sum "$img")" ]; then
		t_ok "chmod 444 image refused (exit 4) as $(id -un), no undo file made"
	else
		t_fail "chmod 444: exit $rc, undo file $( [ -e "$T/ro.undo" ] && echo made || echo none), $(head -n 1 "$T/out")"
	fi
	chmod 644 "$img"
	[ -n "$can_mount" ] || { skip_mount "read-only loop device"; return; }
	dev=$(losetup -r -f --show "$img") || { t_skip "no loop device free"; return; }
	"$bin" run --undo "$T/ro.undo" "$dev" > "$T/out" 2>&1
	rc=$?
	losetup -d "$dev"
	if [ $rc -eq 4 ] && grep -q "is a read-only device" "$T/out" &&
	   ! grep -q NEEDSREPAIR "$T/out" && [ ! -e "$T/ro.undo" ] &&
	   [ "$s" = "$(sum "$img")" ]; then
		t_ok "read-only loop device refused (exit 4), no undo file, no false NEEDSREPAIR message"
	else
		t_fail "read-only loop device: exit $rc, $(head -n 2 "$T/out" | tr '\n' ' ')"
	fi
}

# --- the undo file's filesystem fills up: the run rolls itself back
probe_enospc() {
	local f=aged img=$T/e.img s rc
	[ -n "$can_mount" ] || { skip_mount "full undo filesystem"; return; }
	unpack $f || return
	cp --sparse=always "$T/$f.orig" "$img"
	s=$(sum "$img")
	mount -t tmpfs -o size=1m tmpfs "$SMALL" || { t_fail "tmpfs mount"; return; }
	# past the room check (plan's estimate is honest: it would refuse)
	"$tbin" --no-room-check run --undo "$SMALL/e.undo" "$img" > "$T/out" 2>&1
	rc=$?
	if [ $rc -eq 1 ] && grep -q "No space left on device" "$T/out" &&
	   grep -q "rolled back: .* is as it was before the run" "$T/out" &&
	   [ ! -e "$SMALL/e.undo" ] && same "$T/$f.orig" "$img"; then
		t_ok "undo file's filesystem full mid-run: rolled back, every block in use restored, undo file removed"
	else
		t_fail "ENOSPC: exit $rc, $(grep -v '^ ' "$T/out" | head -n 3 | tr '\n' ' ') $(cat "$T/cmp.out")"
	fi
	# less room than the plan's estimate: refused before anything
	cp --sparse=always "$T/$f.orig" "$img"
	dd if=/dev/zero of="$SMALL/filler" bs=4k count=2048 status=none 2>/dev/null
	"$bin" run --undo "$SMALL/e.undo" "$img" > "$T/out" 2>&1
	rc=$?
	if [ $rc -eq 4 ] && grep -q "refusing to write: the undo file .* needs about .* MiB free" "$T/out" &&
	   [ ! -e "$SMALL/e.undo" ] && [ "$s" = "$(sum "$img")" ]; then
		t_ok "no room for the undo file's estimate: refused, nothing written, image byte-identical"
	else
		t_fail "ENOSPC at once: exit $rc, $(head -n 2 "$T/out" | tr '\n' ' ')"
	fi
	t_umount "$SMALL"
}

# --- write errors during the run (fault layer)
probe_write_errors() {
	local f=bs1k img=$T/w.img n writes rc bad=0 cnt=0
	unpack $f || return
	cp --sparse=always "$T/$f.orig" "$img"
	run "$img" "$T/w.undo" || { t_fail "write errors: run failed"; return; }
	writes=$(sed -n 's/^\([0-9]*\) image writes.*/\1/p' "$T/run.out")
	for n in 0 1 $((writes / 2)) $((writes - 1)) ${ERRPTS:-}; do
		cnt=$((cnt + 1))
		cp --sparse=always "$T/$f.orig" "$img"
		rm -f "$T/w.undo" "$T/w.undo.map"
		"$tbin" --fault-error "$n" run --undo "$T/w.undo" "$img" > "$T/out" 2>&1
		rc=$?
		if [ "$n" -eq 0 ]; then
			grep -q "nothing was written" "$T/out" || bad=1
		else
			grep -q "rolled back" "$T/out" || bad=1
		fi
		if [ $rc -ne 1 ] || [ -e "$T/w.undo" ] || ! same "$T/$f.orig" "$img"; then
			bad=1
		fi
		[ $bad -eq 0 ] || { t_fail "write error at write $((n + 1)) of $writes: exit $rc, $(grep -v '^ ' "$T/out" | head -n 3 | tr '\n' ' ')"; return; }
	done
	t_ok "a write error at $cnt points of $writes writes: rolled back each time, every block restored"
	# a device that stays dead: says so, then undo restores
	for n in 1 $((writes / 2)); do
		cp --sparse=always "$T/$f.orig" "$img"
		rm -f "$T/w.undo" "$T/w.undo.map"
		"$tbin" --fault-dead "$n" run --undo "$T/w.undo" "$img" > "$T/out" 2>&1
		rc=$?
		if [ $rc -eq 1 ] && grep -q "rolling back failed" "$T/out" &&
		   grep -q "marked NEEDSREPAIR, so no kernel will mount it" "$T/out" &&
		   grep -q "restore it with: xfsdefrag undo" "$T/out" &&
		   "$bin" undo "$T/w.undo" "$img" > "$T/out2" 2>&1 && same "$T/$f.orig" "$img"; then
			t_ok "device dead after write $n: state reported, undo restores"
		else
			t_fail "dead device at $n: exit $rc, $(grep -v '^ ' "$T/out" | head -n 3 | tr '\n' ' ') $(head -n 1 "$T/out2")"
		fi
	done
}

probe_mount
probe_behind
probe_reuse
probe_chain
probe_readonly
probe_enospc
probe_write_errors
t_summary "t-safety"
