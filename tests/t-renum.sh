#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Inode renumbering (issue 10), proven on real kernel XFS: for each
# geometry (v5 4 KiB blocks, v5 1 KiB blocks, v5 sparse inodes with
# 1 KiB inodes), mkfs.xfs + a loop mount + tests/renum_workload.py
# (directories of every format, hard links with parents in several
# directories, local and remote symlinks and xattrs, reflinks, sparse
# and unwritten files), then `run --renumber all`:
#   - xfs_repair -n exits 0; the content manifest (paths, hard-link
#     groups, data, xattrs, maps) through a read-only mount is the
#     original's; inode numbers really changed: as many as run says, a
#     directory whose own inode moved and one that stayed while its
#     children moved, every hard-link group on one new number;
#   - a second run renumbers (almost) nothing;
#   - undo of the finished run: every block live before the run is
#     restored byte for byte, repair 0, manifest equal;
#   - the inodes phase in small windows of moved inodes writes the same
#     image;
#   - runs stopped dead inside the renumbering writes (the inodes phase
#     in small windows and the references phase, their first, middle
#     and last writes), each undone to the same.
# Sparse inode chunks the kernel made in cut-up free space, renumbered.
# --inode32 on a 2400 GiB sparse image whose AGs 2 and 3 number inodes
# above 2^32: none left there, shortform directories shrunk to 4-byte
# numbers, --map as the mount shows, undo restores.
# v4 is refused with the reason, the image untouched.  Under the
# sanitizers only the 1 KiB geometry runs (same code).  Without loop
# mounts everything skips (XFSDEFRAG_REQUIRE_MOUNT=1, as CI sets, makes
# that a failure).  T_CASE selects geometries.  Usage: t-renum.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
t_tmpdir
MNT=$T_TMP/mnt
mkdir -p "$MNT"
T_CLEANUP_HOOK='mountpoint -q "$MNT" && t_umount "$MNT"'

if ! t_can_mount; then
	if [ -n "${XFSDEFRAG_REQUIRE_MOUNT:-}" ]; then
		t_fail "renumbering needs root and loop devices to make its filesystems (XFSDEFRAG_REQUIRE_MOUNT is set)"
	else
		t_skip "renumbering: its filesystems are made by the kernel; needs a loop mount (root, loop devices)"
	fi
	t_summary
	exit
fi
command -v xfs_repair >/dev/null 2>&1 ||
	{ t_fail "xfs_repair is not installed: it is the judge here"; t_summary; exit 1; }

RENUM=(--renumber all)

manifest() {	# IMAGE OUT [--inodes]
	mount -o loop,ro,nouuid "$1" "$MNT" || return 1
	python3 "$here/manifest.py" ${3:-} "$MNT" > "$2"
	local rc=$?
	t_umount "$MNT"
	return $rc
}

repair_ok() {	# NAME IMAGE WHAT
	if xfs_repair -n "$2" > "$T_TMP/repair.out" 2>&1; then
		t_ok "$1: $3: xfs_repair -n clean"
	else
		t_fail "$1: $3: xfs_repair -n exit $?"
		grep -v '^        -\|^Phase\|host filesystem\|sector size' \
			"$T_TMP/repair.out" | head -n 8 | sed 's/^/    /'
	fi
}

restored() {	# NAME ORIG IMAGE WHAT
	if python3 "$here/cmp_live.py" "$2" "$3" > "$T_TMP/cmp.out"; then
		t_ok "$1: $4: every block live before the run restored"
	else
		t_fail "$1: $4: not restored: $(head -n 3 "$T_TMP/cmp.out")"
	fi
	repair_ok "$1" "$3" "$4"
	if manifest "$3" "$T_TMP/man.u" && cmp -s "$T_TMP/man.0" "$T_TMP/man.u"; then
		t_ok "$1: $4: manifest equal"
	else
		t_fail "$1: $4: manifest differs"
	fi
}

# fmt IMAGE INO: "format nextents" of an inode (xfs_db)
fmt() {
	xfs_db -r -c "inode $2" -c "print core.format" -c "print core.nextents" "$1" |
		awk -F' = ' '{printf "%s ", $2}' | sed 's/ ([a-z]*)//g'
}

geometry() {	# NAME MKFS-OPTS...
	local name=$1 img=$T_TMP/$1.img orig=$T_TMP/$1.orig out n changed
	shift
	t_case "$name" || return
	rm -f "$img" "$T_TMP/u" "$T_TMP/u.map"
	truncate -s 1g "$img"
	mkfs.xfs -q -f "$@" "$img" || { t_fail "$name: mkfs.xfs $*"; return; }
	mount -o loop "$img" "$MNT" || { t_fail "$name: mount"; return; }
	python3 "$here/renum_workload.py" "$MNT" 7 || t_fail "$name: workload"
	t_umount "$MNT"
	manifest "$img" "$T_TMP/man.0" || { t_fail "$name: manifest"; return; }
	manifest "$img" "$T_TMP/ino.0" --inodes
	# the directory formats are there (the workload's promise)
	local f sf bt
	sf=$(awk '$2 == "d_sf" {print $1}' "$T_TMP/ino.0")
	bt=$(awk '$2 == "d_btree" {print $1}' "$T_TMP/ino.0")
	f="$(fmt "$img" "$sf")/$(fmt "$img" "$bt")"
	case $f in
	"1 0 /3 "*) t_ok "$name: shortform and btree-format directories made ($f)" ;;
	*) t_fail "$name: directory formats are not as the workload meant: $f" ;;
	esac
	cp --sparse=always "$img" "$orig"

	out=$T_TMP/run.out
	if "$bin" run "${RENUM[@]}" --undo "$T_TMP/u" "$img" > "$out" 2>&1; then
		t_ok "$name: run --renumber all"
	else
		t_fail "$name: run exit $?: $(tail -n 3 "$out")"
		return
	fi
	n=$(sed -n 's/^renumbered \([0-9]*\) inodes.*/\1/p' "$out")
	repair_ok "$name" "$img" "after the run"
	if manifest "$img" "$T_TMP/man.1" && cmp -s "$T_TMP/man.0" "$T_TMP/man.1"; then
		t_ok "$name: manifest identical but for inode numbers"
	else
		t_fail "$name: manifest differs: $(diff "$T_TMP/man.0" "$T_TMP/man.1" | head -n 4)"
	fi
	manifest "$img" "$T_TMP/ino.1" --inodes
	# old and new number of every path: distinct inodes that changed,
	# a moved directory, a directory kept whose children moved, and each
	# hard-link group on one new number
	python3 - "$T_TMP/ino.0" "$T_TMP/ino.1" "${n:-0}" > "$T_TMP/ino.cmp" <<'PY'
import sys
def load(p):
    d = {}
    for l in open(p):
        ino, path = l.rstrip("\n").split(" ", 1)
        d[path] = int(ino)
    return d
a, b, n = load(sys.argv[1]), load(sys.argv[2]), int(sys.argv[3])
ok = set(a) == set(b)
moved = {a[p] for p in a if a[p] != b.get(p)}
old2new = {}
for p in a:
    old2new.setdefault(a[p], set()).add(b.get(p))
split = [o for o, s in old2new.items() if len(s) != 1]
new2old = {}
for p in b:
    new2old.setdefault(b[p], set()).add(a.get(p))
merged = [x for x, s in new2old.items() if len(s) != 1]
dmoved = [p for p in a if p.startswith(("d_", "early")) and "/" not in p
          and a[p] != b[p]]
# a directory that kept its number while its children moved (the root
# is one: its chunk never moves)
kids = {}
for q in a:
    par = q.rsplit("/", 1)[0] if "/" in q else "."
    if q != "." and a[q] != b[q]:
        kids[par] = True
kept_kids = [d for d in kids if a.get(d) == b.get(d)]
print("paths", len(a), "moved", len(moved), "run", n, "split", len(split),
      "merged", len(merged), "dirs_moved", len(dmoved), "dir_kept_kids_moved",
      len(kept_kids))
sys.exit(0 if ok and not split and not merged else 1)
PY
	local rc=$? line
	line=$(cat "$T_TMP/ino.cmp")
	if [ $rc -eq 0 ]; then
		t_ok "$name: hard-link groups intact, no two inodes on one number ($line)"
	else
		t_fail "$name: inode numbers inconsistent: $line"
	fi
	changed=$(echo "$line" | awk '{print $4}')
	# every inode the workload made is reachable; those run moved must
	# show (a few it moved may be unnamed: none here)
	if [ -n "$n" ] && [ "$n" -gt 100 ] && [ "$changed" -eq "$n" ]; then
		t_ok "$name: $changed inodes have new numbers, as run says"
	else
		t_fail "$name: $changed inodes changed number, run says ${n:-none}"
	fi
	if echo "$line" | awk '{exit !($12 > 0 && $14 > 0)}'; then
		t_ok "$name: a directory moved, and one stayed while its children moved"
	else
		t_fail "$name: not both directory cases: $line"
	fi
	{
		cp --sparse=always "$img" "$T_TMP/again.img"
		"$bin" run "${RENUM[@]}" --undo "$T_TMP/u2" "$T_TMP/again.img" > "$T_TMP/again.out" 2>&1
		local n2
		n2=$(sed -n 's/^renumbered \([0-9]*\) inodes.*/\1/p' "$T_TMP/again.out")
		if [ "${n2:-0}" -le $((n / 100)) ]; then
			t_ok "$name: a second run renumbers ${n2:-0} of $n"
		else
			t_fail "$name: a second run renumbers $n2 inodes again (first: $n)"
		fi
		rm -f "$T_TMP/again.img" "$T_TMP/u2" "$T_TMP/u2.map"
	}
	# the inodes phase a few inodes at a time (windows of 2 KiB of moved
	# inodes, each read as it was before the run, from the undo file
	# where an earlier window wrote over it): the same image
	cp --sparse=always "$orig" "$T_TMP/win.img"
	rm -f "$T_TMP/uw" "$T_TMP/uw.map"
	if "$tbin" --inode-window 2048 run "${RENUM[@]}" --undo "$T_TMP/uw" \
		"$T_TMP/win.img" > "$T_TMP/win.out" 2>&1 &&
	   cmp -s "$img" "$T_TMP/win.img"; then
		t_ok "$name: the inodes phase in windows of 2 KiB writes the same image"
	else
		t_fail "$name: the inodes phase in small windows: $(tail -n 2 "$T_TMP/win.out"; cmp "$img" "$T_TMP/win.img" 2>&1 | head -n 1)"
	fi
	rm -f "$T_TMP/win.img" "$T_TMP/uw" "$T_TMP/uw.map"
	# undo of the finished run
	if "$bin" undo "$T_TMP/u" "$img" > "$T_TMP/undo.out" 2>&1; then
		restored "$name" "$orig" "$img" "undo of the finished run"
	else
		t_fail "$name: undo exit $?: $(tail -n 2 "$T_TMP/undo.out")"
	fi
	# runs stopped dead inside the renumbering writes
	local a1 a2 r1 r2 k done=0 bad=0
	read -r a1 a2 r1 r2 < <(sed -n 's/^renumbered [0-9]* inodes (image writes \([0-9]*\)-\([0-9]*\), references \([0-9]*\)-\([0-9]*\)).*/\1 \2 \3 \4/p' "$out")
	for k in $a1 $(((a1 + a2) / 2)) $a2 $r1 $(((r1 + r2) / 2)) $r2; do
		cp --sparse=always "$orig" "$img"
		rm -f "$T_TMP/u" "$T_TMP/u.map"
		# (small windows write the same blocks in the same order)
		"$tbin" --fault-dead "$k" --inode-window 2048 run "${RENUM[@]}" \
			--undo "$T_TMP/u" "$img" > "$T_TMP/int.out" 2>&1
		if ! "$bin" undo "$T_TMP/u" "$img" > "$T_TMP/undo.out" 2>&1; then
			t_fail "$name: undo of the run stopped after write $k: $(tail -n 2 "$T_TMP/undo.out")"
			bad=$((bad + 1))
			continue
		fi
		if ! python3 "$here/cmp_live.py" "$orig" "$img" > /dev/null ||
		   ! xfs_repair -n "$img" > /dev/null 2>&1; then
			t_fail "$name: the run stopped after write $k is not undone"
			bad=$((bad + 1))
			continue
		fi
		done=$((done + 1))
	done
	if [ $bad -eq 0 ] && [ $done -eq 6 ]; then
		t_ok "$name: 6 runs stopped dead inside the renumbering writes ($a1-$a2, $r1-$r2) undone: live blocks restored, repair clean"
		manifest "$img" "$T_TMP/man.u" && cmp -s "$T_TMP/man.0" "$T_TMP/man.u" &&
			t_ok "$name: ... and the last one's manifest equal" ||
			t_fail "$name: the last interrupted run's manifest differs after undo"
	fi
	rm -f "$img" "$orig" "$T_TMP/u" "$T_TMP/u.map"
}

if [ -z "${XFSDEFRAG_ASAN:-}" ]; then
	geometry v5-4k -d agcount=4
	geometry v5-sparse -i sparse=1,size=1024 -d agcount=4
fi
geometry v5-1k -b size=1024 -d agcount=4

# sparse inode chunks, made the way the kernel makes them: free space
# cut into single blocks (a full filesystem of 4 KiB files, every
# second one deleted), then more inodes than the whole chunks left hold
sparse_chunks() {	# IMAGE: records with a holemask, over all AGs
	local a n p
	for a in 0 1; do
		n=$(xfs_db -r -c "agi $a" -c "addr root" -c "print numrecs" "$1" | awk '{print $3}')
		if [ "$(xfs_db -r -c "agi $a" -c "print level" "$1" | awk '{print $3}')" = 1 ]; then
			xfs_db -r -c "agi $a" -c "addr root" -c "print recs" "$1"
		else
			for p in $(seq 1 "$n"); do
				xfs_db -r -c "agi $a" -c "addr root" -c "addr ptrs[$p]" -c "print recs" "$1"
			done
		fi
	done 2>/dev/null | grep -v 'recs\[' | awk -F, '$2 != 0' | wc -l
}
if [ -z "${XFSDEFRAG_ASAN:-}" ] && t_case sparse-frag; then
	img=$T_TMP/sf.img
	truncate -s 320m "$img"
	if mkfs.xfs -q -f -i sparse=1,size=1024 -d agcount=2 "$img" &&
	   mount -o loop "$img" "$MNT"; then
		python3 - "$MNT" <<'PY'
import os, sys
root = sys.argv[1]
os.mkdir(root + "/fill")
i = 0
try:
    while True:
        with open(root + "/fill/f%06d" % i, "wb") as f:
            f.write(b"x" * 4096)
        i += 1
except OSError:
    pass
for j in range(0, i, 2):
    os.unlink(root + "/fill/f%06d" % j)
os.sync()
os.mkdir(root + "/late")
try:
    # more than the slots the deletions freed: new chunks, sparse ones
    for k in range(45000):
        open(root + "/late/g%05d" % k, "w").close()
except OSError:
    pass
os.sync()
PY
		t_umount "$MNT"
		ns=$(sparse_chunks "$img")
		cp --sparse=always "$img" "$T_TMP/sf.orig"
		manifest "$img" "$T_TMP/man.0"
		if [ "$ns" -gt 0 ] &&
		   "$bin" run --renumber all --undo "$T_TMP/su" "$img" > "$T_TMP/sf.out" 2>&1; then
			t_ok "sparse-frag: $ns sparse chunk(s); $(grep '^renumbered' "$T_TMP/sf.out" | cut -d'(' -f1)"
			repair_ok sparse-frag "$img" "after the run"
			manifest "$img" "$T_TMP/man.1" && cmp -s "$T_TMP/man.0" "$T_TMP/man.1" &&
				t_ok "sparse-frag: manifest identical" ||
				t_fail "sparse-frag: manifest differs"
			if "$bin" undo "$T_TMP/su" "$img" > /dev/null 2>&1 &&
			   "$tbin" debug-compare "$T_TMP/sf.orig" "$img" > "$T_TMP/dc.out" 2>&1; then
				t_ok "sparse-frag: undo restores every block in use"
			else
				t_fail "sparse-frag: undo: $(tail -n 1 "$T_TMP/dc.out")"
			fi
		else
			t_fail "sparse-frag: $ns sparse chunks; run: $(tail -n 2 "$T_TMP/sf.out" 2>/dev/null)"
		fi
	else
		t_fail "sparse-frag: mkfs or mount"
	fi
	rm -f "$img" "$T_TMP/sf.orig" "$T_TMP/su" "$T_TMP/su.map"
fi

# --inode32 on a large sparse filesystem (4 AGs of 600 GiB: inodes of
# AGs 2 and 3 are above 2^32): every number below 2^32 afterwards,
# shortform directories shrunk from 8- to 4-byte numbers (i8count 0,
# smaller di_size, the parent field included), --map matches the
# numbers seen through the mount, undo restores
if t_case inode32; then
	img=$T_TMP/big.img
	truncate -s 2400g "$img"
	if mkfs.xfs -q -f -d agcount=4 "$img" && mount -o loop "$img" "$MNT"; then
		for i in 1 2 3 4 5 6; do
			mkdir "$MNT/d$i" "$MNT/d$i/sub"
			for j in 1 2 3; do echo "$i$j" > "$MNT/d$i/f$j"; done
		done
		ln "$MNT/d2/f1" "$MNT/d3/hardlink"
		ln -s "d4/f1" "$MNT/sym"
		t_umount "$MNT"
		cp --sparse=always "$img" "$T_TMP/big.orig"
		manifest "$img" "$T_TMP/big.m0" --no-dir-size
		manifest "$img" "$T_TMP/big.i0" --inodes
		i8a=$(xfs_db -r -c "inode 128" -c "print u3.sfdir3.hdr.i8count" "$img" | awk '{print $3}')
		big0=$(awk '$1 >= 4294967296' "$T_TMP/big.i0" | wc -l)
		"$bin" run --inode32 --map "$T_TMP/big.map" --undo "$T_TMP/bu" "$img" > "$T_TMP/big.out" 2>&1
		rc=$?
		n=$(sed -n 's/^renumbered \([0-9]*\) inodes.*/\1/p' "$T_TMP/big.out")
		manifest "$img" "$T_TMP/big.i1" --inodes
		big1=$(awk '$1 >= 4294967296' "$T_TMP/big.i1" | wc -l)
		i8b=$(xfs_db -r -c "inode 128" -c "print u3.sfdir3.hdr.i8count" "$img" | awk '{print $3}')
		if [ $rc -eq 0 ] && [ "$big0" -gt 10 ] && [ "$big1" -eq 0 ] &&
		   [ "${i8a:-0}" -gt 0 ] && [ "$i8b" = 0 ]; then
			t_ok "inode32: $big0 paths above 2^32 before, none after ($n renumbered); root's shortform i8count $i8a -> 0"
		else
			t_fail "inode32: exit $rc, above 2^32 $big0 -> $big1, root i8count ${i8a:-?} -> ${i8b:-?}: $(head -n 2 "$T_TMP/big.out")"
		fi
		repair_ok inode32 "$img" "after --inode32"
		if manifest "$img" "$T_TMP/big.m1" --no-dir-size &&
		   cmp -s "$T_TMP/big.m0" "$T_TMP/big.m1"; then
			t_ok "inode32: manifest equal but for inode numbers and shortform directory sizes"
		else
			t_fail "inode32: manifest differs: $(diff "$T_TMP/big.m0" "$T_TMP/big.m1" | head -n 4)"
		fi
		# the map says what the mount shows
		if python3 - "$T_TMP/big.i0" "$T_TMP/big.i1" "$T_TMP/big.map" <<'PY'
import sys
a = dict(l.split(" ", 1)[::-1] for l in open(sys.argv[1]).read().splitlines())
b = dict(l.split(" ", 1)[::-1] for l in open(sys.argv[2]).read().splitlines())
m = dict(l.split() for l in open(sys.argv[3]) if l.strip())
bad = [p for p in a if m.get(a[p], a[p]) != b[p]]
sys.exit(1 if bad or not m else 0)
PY
		then
			t_ok "inode32: --map gives every path's new number"
		else
			t_fail "inode32: --map disagrees with the mount"
		fi
		if "$bin" undo "$T_TMP/bu" "$img" > /dev/null 2>&1 &&
		   "$tbin" debug-compare "$T_TMP/big.orig" "$img" > "$T_TMP/dc.out" 2>&1; then
			t_ok "inode32: undo restores every block in use ($(tail -n 1 "$T_TMP/dc.out"))"
		else
			t_fail "inode32: undo: $(tail -n 2 "$T_TMP/dc.out")"
		fi
		repair_ok inode32 "$img" "after undo"
	else
		t_fail "inode32: mkfs or mount of the 2400 GiB sparse image"
	fi
	rm -f "$img" "$T_TMP/big.orig"
fi

if t_case v4; then
	img=$T_TMP/v4.img
	truncate -s 512m "$img"
	mkfs.xfs -q -f -m crc=0 "$img"
	# (kernels built without v4 support do not mount it: files optional)
	mount -o loop "$img" "$MNT" 2>/dev/null &&
		{ mkdir "$MNT/d"; touch "$MNT/d/f"; t_umount "$MNT"; }
	cp --sparse=always "$img" "$T_TMP/v4.orig"
	"$bin" run "${RENUM[@]}" --undo "$T_TMP/u" "$img" > "$T_TMP/v4.out" 2>&1
	rc=$?
	if [ $rc -eq 4 ] && grep -q "refusing to write: v4" "$T_TMP/v4.out" &&
	   cmp -s "$img" "$T_TMP/v4.orig" && [ ! -e "$T_TMP/u" ]; then
		t_ok "v4: refused with the reason ($(grep -o 'refusing[^(]*' "$T_TMP/v4.out" | head -n 1)), image untouched"
	else
		t_fail "v4: exit $rc: $(head -n 2 "$T_TMP/v4.out")"
	fi
	rm -f "$img" "$T_TMP/v4.orig"
fi
t_summary
