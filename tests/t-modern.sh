#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What mkfs.xfs 6.15 makes (the fixtures recorded with xfsprogs 6.15:
# exchange, parent pointers, the metadata directory):
#   - report and plan read each; run refuses one with a realtime section
#     (realtime groups), naming it, and writes nothing;
#   - damage seeded with xfs_db 6.15 -x (tests/fixtures/NAME/damage,
#     recorded as byte patches by tests/fixtures/mkdamage.sh): check
#     exits 3 naming the problem code of each case; the undamaged image
#     is consistent;
#   - run --renumber all on every one, then undo: our checker accepts
#     both; on parent-pointer filesystems the run says how many pointers
#     it rewrote, and every pointer the kernel returns (through a mount)
#     names its directory's path and generation, the manifest equal to
#     the original's; undo gives every block in use back (debug-compare);
#     where xfsprogs 6.15 is built (tests/fixtures/build-xfsprogs.sh),
#     xfs_repair 6.15 -n accepts the filesystem after run and after
#     undo.
# Usage: t-modern.sh XFSDEFRAG [FIXTURE...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
[ $# -gt 0 ] && shift
t_tmpdir
MNT=$T_TMP/mnt
mkdir -p "$MNT"
T_CLEANUP_HOOK='mountpoint -q "$MNT" && umount "$MNT"'

T_FIXTURE_GREP='^xfsprogs: 6\.15' t_fixtures "$@"
fixtures=("${FIXTURES[@]}")

# patch IMG DAMAGEFILE CASE: apply the case's byte patches
patch_case() {
	python3 - "$1" "$2" "$3" <<'PY'
import sys
img, dmg, name = sys.argv[1:4]
on = False
n = 0
with open(img, "r+b") as f:
    for line in open(dmg):
        w = line.split()
        if not w or w[0] == "#":
            continue
        if w[0] == "case":
            on = w[1] == name
        elif on and w[0] == "patch":
            f.seek(int(w[1]))
            f.write(bytes.fromhex(w[2]))
            n += 1
sys.exit(0 if n else 1)
PY
}

manifest() {	# IMAGE OUT
	mount -o loop,ro,nouuid "$1" "$MNT" || return 1
	python3 "$here/manifest.py" --no-dir-size "$MNT" > "$2"
	local rc=$?
	umount "$MNT"
	return $rc
}

repair() {	# IMAGE WHAT: xfs_repair 6.15 -n, where it is built
	[ -n "$REPAIR" ] || return 0
	if xfs_repair -n "$1" > "$T_TMP/repair.out" 2>&1; then
		t_ok "$name: xfs_repair $(xfs_repair -V | sed 's/.*version //') -n accepts the filesystem $2"
	else
		t_fail "$name: xfs_repair -n $2: $(grep -v '^Phase\|^ *-\|host filesystem\|sector size\|^No modify' "$T_TMP/repair.out" | head -n 3 | tr '\n' ' ')"
	fi
}

damage() {
	local name=$1 fx=$here/fixtures/$1 img=$T_TMP/orig c code rc n=0
	[ -f "$fx/damage" ] || return 0
	while read -r _ c code rc; do
		n=$((n + 1))
		cp --sparse=always "$img" "$T_TMP/d.img"
		if ! patch_case "$T_TMP/d.img" "$fx/damage" "$c"; then
			t_fail "$name: damage $c: no patch"
			continue
		fi
		"$bin" check "$T_TMP/d.img" > "$T_TMP/d.out" 2> "$T_TMP/d.err"
		local got=$?
		if [ $got -eq 3 ] && grep -q "\[$code\]$" "$T_TMP/d.err"; then
			t_ok "$name: damage $c: check finds $code (xfs_repair 6.15 -n: exit $rc)"
		else
			t_fail "$name: damage $c: check exit $got, expected 3 and [$code]: $(head -n 3 "$T_TMP/d.err" | tr '\n' ' ')"
		fi
	done < <(grep '^case ' "$fx/damage")
	[ $n -gt 0 ] || t_fail "$name: no damage cases in $fx/damage"
}

run_undo() {
	local name=$1 fx=$here/fixtures/$1 img=$T_TMP/orig w=$T_TMP/w man= np
	cp --sparse=always "$img" "$w"
	# the manifest (with the kernel's parent pointers) where there are
	# parent pointers; t-relocate takes manifests of the others' runs
	if ! grep -q '^naming .*parent=1' "$fx/info.out"; then
		:
	elif t_can_mount; then
		manifest "$img" "$T_TMP/man.orig" && man=1 ||
			t_fail "$name: cannot mount the original"
	elif [ -n "${XFSDEFRAG_REQUIRE_MOUNT:-}" ]; then
		t_fail "$name: manifests need root and loop devices"
	fi
	rm -f "$T_TMP/w.undo" "$T_TMP/w.undo.map"
	if ! "$bin" run --renumber all --undo "$T_TMP/w.undo" "$w" > "$T_TMP/run.out" 2>&1; then
		t_fail "$name: run --renumber all: $(grep -v '^AG' "$T_TMP/run.out" | head -n 2 | tr '\n' ' ')"
		return
	fi
	if grep -q 'verified: consistent' "$T_TMP/run.out" &&
	   "$bin" check "$w" > /dev/null 2>&1; then
		t_ok "$name: run --renumber all: $(sed -n 's/^\(renumbered [0-9]* inodes\).*/\1/p' "$T_TMP/run.out"); our checker accepts it"
	else
		t_fail "$name: our checker rejects the run's result"
	fi
	np=$(sed -n 's/^rewrote \([0-9]*\) parent pointers.*/\1/p' "$T_TMP/run.out")
	if grep -q '^naming .*parent=1' "$fx/info.out"; then
		if [ "${np:-0}" -gt 0 ]; then
			t_ok "$name: $(grep '^rewrote' "$T_TMP/run.out")"
		else
			t_fail "$name: renumbered directories, but no parent pointer rewritten"
		fi
	fi
	repair "$w" "after the run"
	if [ -n "$man" ]; then
		if manifest "$w" "$T_TMP/man.w" && cmp -s "$T_TMP/man.orig" "$T_TMP/man.w" &&
		   ! grep -q '!GEN' "$T_TMP/man.w"; then
			t_ok "$name: manifest identical after the run ($(grep -c ' p=' "$T_TMP/man.w") paths with the kernel's parent pointers)"
		else
			t_fail "$name: manifest after the run differs"
			diff "$T_TMP/man.orig" "$T_TMP/man.w" | head -n 4 | cut -c1-200 | sed 's/^/    /'
		fi
	fi
	if "$bin" undo "$T_TMP/w.undo" "$w" > "$T_TMP/undo.out" 2>&1 &&
	   "$tbin" debug-compare "$img" "$w" > "$T_TMP/cmp.out" 2>&1; then
		t_ok "$name: undo: $(cat "$T_TMP/cmp.out")"
	else
		t_fail "$name: undo: $(cat "$T_TMP/undo.out" "$T_TMP/cmp.out" | head -n 2 | tr '\n' ' ')"
	fi
	repair "$w" "after undo"
}

for name in "${fixtures[@]}"; do
	fx=$here/fixtures/$name
	REPAIR=1
	t_xfsprogs "$fx" || REPAIR=
	[ -n "$REPAIR" ] || t_skip "$name: xfs_repair 6.15 -n not built here (tests/fixtures/build-xfsprogs.sh): our checker and the kernel judge"
	t_unpack "$fx" "$T_TMP/orig" || { t_fail "$name: cannot unpack"; continue; }
	if "$bin" check "$T_TMP/orig" > /dev/null 2>&1; then
		t_ok "$name: consistent as made"
	else
		t_fail "$name: check does not find it consistent"
	fi
	damage "$name"
	if "$bin" report --json "$T_TMP/orig" > "$T_TMP/rep.json" 2> "$T_TMP/err" &&
	   "$bin" plan "$T_TMP/orig" > "$T_TMP/plan.out" 2>> "$T_TMP/err"; then
		t_ok "$name: report and plan read it"
	else
		t_fail "$name: report or plan: $(head -n 2 "$T_TMP/err" | tr '\n' ' ')"
	fi
	if grep -q '^realtime =external' "$fx/info.out"; then
		cp --sparse=always "$T_TMP/orig" "$T_TMP/w"
		rm -f "$T_TMP/rt.undo" "$T_TMP/rt.undo.map"
		"$bin" run --undo "$T_TMP/rt.undo" "$T_TMP/w" > "$T_TMP/run.out" 2>&1
		rc=$?
		if [ $rc -eq 4 ] && [ ! -e "$T_TMP/rt.undo" ] &&
		   grep -q 'not supported by the relocation code: a realtime section$' "$T_TMP/run.out" &&
		   cmp -s "$T_TMP/orig" "$T_TMP/w"; then
			t_ok "$name: run refused, naming the realtime section, nothing written"
		else
			t_fail "$name: run: exit $rc, $(head -n 1 "$T_TMP/run.out")"
		fi
	fi
	grep -q '^mountable: yes' "$fx/mkfs.opts" && run_undo "$name"
done
t_summary modern
