#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Shrinking, proven against the real tools.
#   plan --shrink: the new AG count and last AG length are the arithmetic
#     of the superblock's (xfs_db's) agblocks; what lies past the new end
#     is what xfs_db's free space leaves there; --min is at least what is
#     in use, and a shrink to it works; plan writes nothing;
#   refusals, one line naming the reason, exit 4, image untouched: a last
#     AG below the minimum AG size, not smaller, not enough room, a log
#     that would have to go into AG 0, a mounted image, a realtime
#     section; --order inode and --passes are usage errors;
#   shrink of fixtures (a log that must move, AGs removed, inode chunks
#     past the end, reflinks, rmapbt, 1 KiB blocks, 16 AGs): xfs_repair
#     -n accepts the result, our checker too, the file is cut to the new
#     size, the kernel mounts it and every path is as before but for
#     inode numbers (manifest), the file extended back and xfs_growfs on
#     the mounted filesystem grows it and xfs_repair -n stays clean;
#     undo gives back every block in use byte for byte and the original
#     file size;
#   a shrink is not judged by its figures: after a run, where a plain
#     plan moves nothing, plan --shrink by one AG moves a 64 MiB file
#     that moving gains too little for a plain plan (verdict yes), and
#     the shrink is judged as above;
#   live workloads made by the kernel (4 KiB blocks and 4 AGs, churned;
#     1 KiB blocks, 16 AGs, rmapbt; sparse inode chunks past the end; AGFL
#     blocks past the end): the same judges;
#   runs stopped dead at many writes (the geometry phase included),
#     each undone to the original bytes and size;
#   run --discard and shrink --discard: the image file's allocated size
#     shrinks, and undo still gives back every block in use;
#   a loop device keeps its size and says how far the filesystem reaches.
# The sanitizer pass shrinks two fixtures, stops fewer runs and makes
# no live workload; make check-long (XFSDEFRAG_TEST_LONG) shrinks every
# fixture both ways, the churned workload to --min too, and stops 40
# runs.  Without
# loop mounts what needs one skips (XFSDEFRAG_REQUIRE_MOUNT=1 fails it).
# T_CASE selects groups: plan, refusals, FIXTURE, judged, live-4k,
# live-1k16, sparse, agfl, faults, discard, blockdev.
# Usage: t-shrink.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
t_tmpdir
MNT=$T_TMP/mnt
mkdir -p "$MNT"
LOOPDEV=
T_CLEANUP_HOOK='mountpoint -q "$MNT" && umount "$MNT"; [ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV"'

CAN_MOUNT=
t_can_mount && CAN_MOUNT=1
needs_mount() {
	[ -n "$CAN_MOUNT" ] && return 0
	if [ -n "${XFSDEFRAG_REQUIRE_MOUNT:-}" ]; then
		t_fail "$1: needs root and loop devices (XFSDEFRAG_REQUIRE_MOUNT is set)"
	else
		t_skip "$1: needs a loop mount"
	fi
	return 1
}
command -v xfs_repair >/dev/null 2>&1 ||
	{ t_fail "xfs_repair is not installed: it is the judge here"; t_summary; exit 1; }

if [ -n "${XFSDEFRAG_ASAN:-}" ]; then FAULTS=6
elif [ -n "${XFSDEFRAG_TEST_LONG:-}" ]; then FAULTS=40
else FAULTS=12; fi

sbval() { xfs_db -r -c "sb 0" -c "print $2" "$1" | awk '{print $3}'; }
jget() { t_json "$1" "$2"; }

repair_ok() {	# NAME IMAGE WHAT
	if xfs_repair -n "$2" > "$T_TMP/repair.out" 2>&1; then
		t_ok "$1: $3: xfs_repair -n clean"
	else
		t_fail "$1: $3: xfs_repair -n exit $?"
		grep -v '^        -\|^Phase\|host filesystem\|sector size\|^No modify' \
			"$T_TMP/repair.out" | head -n 6 | sed 's/^/    /'
	fi
}

manifest() {	# IMAGE OUT
	mount -o loop,ro,nouuid "$1" "$MNT" || return 1
	python3 "$here/manifest.py" "$MNT" > "$2"
	local rc=$?
	umount "$MNT"
	return $rc
}

# judge NAME ORIG IMAGE UNDO OUT: a finished shrink of ORIG into IMAGE
judge() {
	local name=$1 orig=$2 img=$3 undo=$4 out=$5 db bs want
	db=$(sbval "$img" dblocks)
	bs=$(sbval "$img" blocksize)
	want=$(sed -n 's/^shrank .* to \([0-9]*\) blocks .*/\1/p' "$out")
	if [ -n "$want" ] && [ "$db" = "$want" ] &&
	   [ "$(stat -c %s "$img")" = $((db * bs)) ]; then
		t_ok "$name: sb_dblocks $db as said, the file cut to $((db * bs)) bytes"
	else
		t_fail "$name: sb_dblocks $db (said ${want:-?}), file $(stat -c %s "$img") bytes"
	fi
	repair_ok "$name" "$img" "after the shrink"
	if "$bin" check "$img" > "$T_TMP/check.out" 2>&1; then
		t_ok "$name: our checker accepts the result"
	else
		t_fail "$name: our checker: $(head -n 2 "$T_TMP/check.out")"
	fi
	if [ -n "$CAN_MOUNT" ]; then
		if manifest "$img" "$T_TMP/man.1" && cmp -s "$T_TMP/man.0" "$T_TMP/man.1"; then
			t_ok "$name: the kernel mounts it; every path as before ($(wc -l < "$T_TMP/man.0") paths)"
		else
			t_fail "$name: manifest differs: $(diff "$T_TMP/man.0" "$T_TMP/man.1" | head -n 3)"
		fi
		# extended back and grown by the kernel
		cp --sparse=always "$img" "$T_TMP/grow.img"
		truncate -s "$(stat -c %s "$orig")" "$T_TMP/grow.img"
		if mount -o loop,nouuid "$T_TMP/grow.img" "$MNT" &&
		   xfs_growfs "$MNT" > /dev/null 2>&1 && umount "$MNT" &&
		   [ "$(sbval "$T_TMP/grow.img" dblocks)" = "$(sbval "$orig" dblocks)" ]; then
			t_ok "$name: extended back, xfs_growfs grows it to $(sbval "$orig" dblocks) blocks"
			repair_ok "$name" "$T_TMP/grow.img" "after xfs_growfs"
		else
			mountpoint -q "$MNT" && umount "$MNT"
			t_fail "$name: xfs_growfs on the shrunk filesystem failed"
		fi
		rm -f "$T_TMP/grow.img"
	fi
	if "$bin" undo "$undo" "$img" > "$T_TMP/undo.out" 2>&1 &&
	   "$tbin" debug-compare "$orig" "$img" > "$T_TMP/cmp.out" 2>&1 &&
	   [ "$(stat -c %s "$img")" = "$(stat -c %s "$orig")" ]; then
		t_ok "$name: undo gives back every block in use and the file's $(stat -c %s "$orig") bytes"
	else
		t_fail "$name: undo: $(tail -n 1 "$T_TMP/undo.out") $(tail -n 1 "$T_TMP/cmp.out") size $(stat -c %s "$img")"
	fi
}

# shrink_case NAME ORIG ARGS...: shrink a copy of ORIG, judge it
shrink_case() {
	local name=$1 orig=$2 img=$T_TMP/s.img u=$T_TMP/s.undo
	shift 2
	rm -f "$img" "$u" "$u.map"
	cp --sparse=always "$orig" "$img"
	[ -n "$CAN_MOUNT" ] && manifest "$orig" "$T_TMP/man.0"
	if "$bin" shrink "$@" --undo "$u" "$img" > "$T_TMP/shrink.out" 2>&1; then
		t_ok "$name: shrink $* ($(head -n 1 "$T_TMP/shrink.out" | sed 's/^shrank [^ ]* //'))"
	else
		t_fail "$name: shrink $* exit $?: $(head -n 3 "$T_TMP/shrink.out")"
		return
	fi
	judge "$name" "$orig" "$img" "$u" "$T_TMP/shrink.out"
}

# geometry JSON ORIG BLOCKS: plan's figures against the arithmetic
check_geometry() {
	local name=$1 js=$2 orig=$3 n=$4 agb agc want
	agb=$(sbval "$orig" agblocks)
	want=$(( (n + agb - 1) / agb ))" "$(( n - (n + agb - 1) / agb * agb + agb ))
	if [ "$(jget "$js" 'd["shrink"]["agcount"], d["shrink"]["last_ag_blocks"]' | tr -d '(),')" = "$want" ]; then
		t_ok "$name: plan --shrink $n: AGs and last AG length $want"
	else
		t_fail "$name: plan --shrink $n: $(jget "$js" 'd["shrink"]["agcount"], d["shrink"]["last_ag_blocks"]'), want $want"
	fi
}

# ---- plan --shrink on fixtures ----
if t_case plan; then
	for f in aged ag16 bs1k; do
		t_unpack "$here/fixtures/$f" "$T_TMP/p.img" || { t_fail "$f: unpack"; continue; }
		sum0=$(t_imgsum "$T_TMP/p.img")
		db=$(sbval "$T_TMP/p.img" dblocks)
		agb=$(sbval "$T_TMP/p.img" agblocks)
		bs=$(sbval "$T_TMP/p.img" blocksize)
		# cut the second AG from the end in its middle: AGs removed
		n=$((db - agb - agb / 2 - (db % agb)))
		if "$bin" plan --json --shrink $((n * bs)) "$T_TMP/p.img" > "$T_TMP/p.json" 2>"$T_TMP/p.err"; then
			check_geometry "$f" "$T_TMP/p.json" "$T_TMP/p.img" "$n"
			# past the end: every block not free there (xfs_db freesp)
			used=$(python3 - "$T_TMP/p.img" "$n" "$agb" <<'PY'
import subprocess, sys
img, n, agb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
db = int(subprocess.run(["xfs_db", "-r", "-c", "sb 0", "-c", "print dblocks",
                         img], capture_output=True, text=True).stdout.split("=")[1])
out = subprocess.run(["xfs_db", "-r", "-c", "freesp -d", img],
                     capture_output=True, text=True).stdout
free = 0
for l in out.splitlines():
    p = l.split()
    if len(p) == 3 and p[0].isdigit():
        ag, b, ln = int(p[0]), int(p[1]), int(p[2])
        lo, hi = ag * agb + b, ag * agb + b + ln
        lo = max(lo, n)
        if hi > lo:
            free += hi - lo
# AGFL slots are listed by freesp as one-block extents too: not free space
print(db - n - free)
PY
)
			got=$(jget "$T_TMP/p.json" 'd["shrink"]["used_beyond"]')
			agfl=$(python3 -c "import sys; print(abs(int(sys.argv[1]) - int(sys.argv[2])))" "$used" "$got")
			# freesp -d also lists AGFL slots: a few blocks apart at most
			if [ "$agfl" -le 64 ]; then
				t_ok "$f: plan: $got blocks in use past the new end (xfs_db: $used)"
			else
				t_fail "$f: plan: $got blocks in use past the new end, xfs_db says $used"
			fi
		else
			t_fail "$f: plan --shrink: $(cat "$T_TMP/p.err")"
		fi
		if "$bin" plan --json --shrink min "$T_TMP/p.img" > "$T_TMP/m.json" 2>"$T_TMP/p.err"; then
			m=$(jget "$T_TMP/m.json" 'd["shrink"]["dblocks"]')
			inuse=$(( db - $(sbval "$T_TMP/p.img" fdblocks) ))
			if [ "$m" -ge "$inuse" ] && [ "$m" -lt "$db" ]; then
				t_ok "$f: plan --shrink min: $m blocks, $inuse in use now"
			else
				t_fail "$f: plan --shrink min: $m blocks, $inuse in use now, $db in all"
			fi
		else
			t_fail "$f: plan --shrink min: $(cat "$T_TMP/p.err")"
		fi
		if [ "$(t_imgsum "$T_TMP/p.img")" = "$sum0" ]; then t_ok "$f: plan wrote nothing"
		else t_fail "$f: plan changed the image"; fi
	done
fi

# ---- refusals: one line, exit 4, the image untouched ----
refused() {	# NAME WANT-REGEX ARGS... (the image is the last argument)
	local name=$1 want=$2 img=${!#} sum rc
	shift 2
	sum=$(t_imgsum "$img")
	rm -f "$T_TMP/r.undo"
	"$bin" shrink --undo "$T_TMP/r.undo" "$@" > "$T_TMP/r.out" 2> "$T_TMP/r.err"
	rc=$?
	if [ $rc -eq 4 ] && [ "$(wc -l < "$T_TMP/r.err")" -eq 1 ] &&
	   grep -q -- "$want" "$T_TMP/r.err" && [ "$(t_imgsum "$img")" = "$sum" ] &&
	   [ ! -e "$T_TMP/r.undo" ]; then
		t_ok "refusals: $name: $(cat "$T_TMP/r.err")"
	else
		t_fail "refusals: $name: exit $rc: $(cat "$T_TMP/r.err")"
	fi
}
if t_case refusals; then
	img=$T_TMP/ref.img
	t_unpack "$here/fixtures/aged" "$img"
	db=$(sbval "$img" dblocks); agb=$(sbval "$img" agblocks); bs=$(sbval "$img" blocksize)
	refused "last AG too small" "minimum AG size" --size $(( (2 * agb + 100) * bs )) "$img"
	refused "not smaller" "not smaller" --size $(( db * bs )) "$img"
	refused "not enough room" "not enough room" --size $(( (agb + agb / 8) * bs )) "$img"
	refused "the log into AG 0" "AG 0" --size $(( agb * bs )) "$img"
	for o in "--order inode" "--passes"; do
		# shellcheck disable=SC2086
		"$bin" shrink --min $o --undo "$T_TMP/r.undo" "$img" > /dev/null 2>&1
		rc=$?
		[ $rc -eq 2 ] && t_ok "refusals: shrink $o: usage error" ||
			t_fail "refusals: shrink $o: exit $rc, not 2"
	done
	# a realtime section (mkfs can make one on a file; the kernel here
	# cannot mount it): run refuses it, so shrink does
	truncate -s 300m "$T_TMP/rtd.img"; truncate -s 64m "$T_TMP/rtr.img"
	if mkfs.xfs -q -f -r rtdev="$T_TMP/rtr.img" "$T_TMP/rtd.img" 2>/dev/null; then
		refused "realtime" "realtime" --min "$T_TMP/rtd.img"
	else
		t_skip "refusals: realtime: mkfs.xfs cannot make one here"
	fi
	rm -f "$T_TMP/rtd.img" "$T_TMP/rtr.img"
	if needs_mount "refusals: mounted"; then
		mount -o loop,ro,nouuid "$img" "$MNT" &&
			refused "mounted" "mounted" --min "$img"
		umount "$MNT"
	fi
fi

# ---- fixtures ----
# --min on each (a log that moves, AGs removed); one AG less on the
# first (the log stays); check-long: every fixture, both ways
SHRINK_FIXTURES="aged rmap-nrext64 bs1k ag16"
AG_LESS="aged"
if [ -n "${XFSDEFRAG_TEST_LONG:-}" ]; then
	SHRINK_FIXTURES="$SHRINK_FIXTURES sect4k-noreflink isize1k-dir8k stripe dirs"
	AG_LESS=$SHRINK_FIXTURES
elif [ -n "${XFSDEFRAG_ASAN:-}" ]; then
	SHRINK_FIXTURES="aged rmap-nrext64" AG_LESS=
fi
for f in $SHRINK_FIXTURES; do
	t_case "$f" || continue
	t_unpack "$here/fixtures/$f" "$T_TMP/$f.img" || { t_fail "$f: unpack"; continue; }
	shrink_case "$f" "$T_TMP/$f.img" --min
	# one AG less, the log where it is (when it is not in the last AG)
	db=$(sbval "$T_TMP/$f.img" dblocks); agb=$(sbval "$T_TMP/$f.img" agblocks)
	bs=$(sbval "$T_TMP/$f.img" blocksize)
	n=$(( (db - 1) / agb * agb ))
	case " $AG_LESS " in
	*" $f "*) shrink_case "$f-ag" "$T_TMP/$f.img" --size $((n * bs)) ;;
	esac
	rm -f "$T_TMP/$f.img"
done

# ---- a shrink is not judged by its figures ----
# A plan whose figures gain too little moves nothing (the fixed point);
# a shrink's must move what lies past its new end all the same, or the
# cut would lose it.  The case: after a run (inode numbers kept), one
# 64 MiB file and a few small ones in the last AG; a plain plan moves
# nothing, and moving the file into another AG gains less read-back
# than the judge asks for 64 MiB copied, yet the shrink moves it.
if t_case judged && needs_mount "judged"; then
	orig=$T_TMP/jo.img
	rm -f "$orig"; truncate -s 512m "$orig"
	mkfs.xfs -q -f -d agcount=4 "$orig" && mount -o loop "$orig" "$MNT" &&
		python3 - "$MNT" <<'PY' && umount "$MNT" || t_fail "judged: the workload"
import os, sys
r = sys.argv[1]
for i in range(16):
    d = os.path.join(r, "d%d" % i)
    os.mkdir(d)
    for k in range(20):
        with open(os.path.join(d, "s%d" % k), "wb") as f:
            f.write(os.urandom(4096 * (k % 3 + 1)))
# the directory with the highest inode number is in the last AG
last = max(range(16), key=lambda i: os.stat(os.path.join(r, "d%d" % i)).st_ino)
with open(os.path.join(r, "d%d" % last, "big"), "wb") as f:
    for _ in range(64):
        f.write(os.urandom(1 << 20))
PY
	mountpoint -q "$MNT" && umount "$MNT"
	rm -f "$T_TMP/j.u" "$T_TMP/j.u.map"
	"$bin" run --renumber none --undo "$T_TMP/j.u" "$orig" > /dev/null 2>&1 ||
		t_fail "judged: the run before failed"
	rm -f "$T_TMP/j.u" "$T_TMP/j.u.map"
	db=$(sbval "$orig" dblocks); agb=$(sbval "$orig" agblocks)
	bs=$(sbval "$orig" blocksize)
	n=$(( (db - 1) / agb * agb ))
	"$bin" plan --json --renumber none "$orig" > "$T_TMP/j0.json" 2>/dev/null
	"$bin" plan --json --renumber none --shrink $((n * bs)) "$orig" \
		> "$T_TMP/j1.json" 2>/dev/null
	plain=$(jget "$T_TMP/j0.json" 'd["moved_blocks"]')
	got=$(jget "$T_TMP/j1.json" 'd["moved_blocks"], d["shrink"]["data_beyond"], d["verdict"]["worth_running"]' | tr -d '(),')
	set -- $got
	# (64 MiB of file data past the end at least)
	if [ "$plain" = 0 ] && [ "${2:-0}" -ge $(( (64 << 20) / bs )) ] &&
	   [ "$1" -ge "$2" ] && [ "$3" = True ]; then
		t_ok "judged: after a run a plan moves nothing; plan --shrink by one AG moves $1 blocks ($2 of file data past the end), verdict yes"
	else
		t_fail "judged: after a run: a plan moves ${plain:-?} blocks; plan --shrink: moved, data past the end, worth running: ${got:-?}"
	fi
	set --
	shrink_case judged "$orig" --renumber none --size $((n * bs))
	rm -f "$orig"
fi

# ---- live workloads ----
live() {	# NAME SIZE MKFS-OPTS...: a filesystem the kernel aged
	local name=$1 size=$2
	shift 2
	rm -f "$T_TMP/live.img"
	truncate -s "$size" "$T_TMP/live.img"
	mkfs.xfs -q -f "$@" "$T_TMP/live.img" || { t_fail "$name: mkfs.xfs $*"; return 1; }
	mount -o loop "$T_TMP/live.img" "$MNT" || { t_fail "$name: mount"; return 1; }
	python3 "$here/live_workload.py" "$MNT" 11 > /dev/null &&
		python3 "$here/../bench/churn.py" --use 45 "$MNT" 3 > /dev/null ||
		t_fail "$name: workload"
	umount "$MNT"
}
if [ -z "${XFSDEFRAG_ASAN:-}" ] && t_case live-4k && needs_mount "live-4k"; then
	if live live-4k 1g; then
		db=$(sbval "$T_TMP/live.img" dblocks); bs=$(sbval "$T_TMP/live.img" blocksize)
		shrink_case live-4k "$T_TMP/live.img" --size $(( db * bs * 5 / 8 ))
		[ -n "${XFSDEFRAG_TEST_LONG:-}" ] &&
			shrink_case live-4k-min "$T_TMP/live.img" --min
	fi
fi
if [ -z "${XFSDEFRAG_ASAN:-}" ] && t_case live-1k16 && needs_mount "live-1k16"; then
	if live live-1k16 1100m -b size=1024 -d agcount=16 -m rmapbt=1; then
		agb=$(sbval "$T_TMP/live.img" agblocks)
		shrink_case live-1k16 "$T_TMP/live.img" --size $(( 11 * agb * 1024 ))
	fi
fi

# sparse inode chunks past the end, made as the kernel makes them: free
# space cut into single blocks, then more inodes than whole chunks hold
sparse_chunks() {	# IMAGE AG: records with a holemask
	xfs_db -r -c "agi $2" -c "addr root" -c "print recs" "$1" 2>/dev/null |
		grep -v 'recs\[' | awk -F, '$2 != 0' | wc -l
}
if [ -z "${XFSDEFRAG_ASAN:-}" ] && t_case sparse && needs_mount "sparse"; then
	img=$T_TMP/sf.img
	rm -f "$img"; truncate -s 400m "$img"
	if mkfs.xfs -q -f -i sparse=1,size=1024 -d agcount=4 "$img" &&
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
    for k in range(30000):
        open(root + "/late/g%05d" % k, "w").close()
except OSError:
    pass
for j in range(1, i, 4):
    os.unlink(root + "/fill/f%06d" % j)
os.sync()
PY
		umount "$MNT"
		ns=$(sparse_chunks "$img" 3)
		if [ "$ns" -gt 0 ]; then
			t_ok "sparse: $ns sparse inode chunks in the last AG"
			agb=$(sbval "$img" agblocks)
			shrink_case sparse "$img" --size $(( 3 * agb * 4096 ))
			grep -q "inodes in .* chunks" "$T_TMP/shrink.out" || true
		else
			t_fail "sparse: the kernel made no sparse chunk in AG 3"
		fi
	else
		mountpoint -q "$MNT" && umount "$MNT"
		t_fail "sparse: mkfs or mount"
	fi
	rm -f "$img"
fi

# AGFL blocks past the new end: after a run (AG btrees after the data),
# a workload that grows and empties the free-space btrees leaves their
# old blocks on the AGFL, in the middle of the AG
if [ -z "${XFSDEFRAG_ASAN:-}" ] && t_case agfl && needs_mount "agfl"; then
	img=$T_TMP/agfl.img
	rm -f "$img"; truncate -s 1g "$img"
	mkfs.xfs -q -f "$img" && mount -o loop "$img" "$MNT" &&
		python3 "$here/../bench/churn.py" --use 50 "$MNT" 5 > /dev/null
	umount "$MNT"
	"$bin" run --undo "$T_TMP/agfl.u" "$img" > /dev/null 2>&1; rm -f "$T_TMP/agfl.u" "$T_TMP/agfl.u.map"
	mount -o loop "$img" "$MNT" && python3 - "$MNT" <<'PY'
import os, sys
r = sys.argv[1] + "/agflt"
os.mkdir(r)
n = 0
try:
    for i in range(40000):
        with open(r + "/f%06d" % i, "wb") as f:
            f.write(b"y" * 4096)
        n += 1
except OSError:
    pass
os.sync()
for i in range(0, n, 2):
    os.unlink(r + "/f%06d" % i)
os.sync()
for i in range(1, n, 2):
    os.unlink(r + "/f%06d" % i)
os.sync()
PY
	umount "$MNT"
	# cut an AG just before the last block of its active AGFL
	pick=$(python3 - "$img" <<'PY'
import subprocess, sys
img = sys.argv[1]
def db(*c):
    a = ["xfs_db", "-r"]
    for x in c:
        a += ["-c", x]
    return subprocess.run(a + [img], capture_output=True, text=True).stdout
agc = int(db("sb 0", "print agcount").split("=")[1])
agb = int(db("sb 0", "print agblocks").split("=")[1])
best = None
for ag in range(1, agc):
    v = {k: int(x) for k, x in (l.split(" = ") for l in db("agf %d" % ag,
         "print flfirst fllast flcount").splitlines())}
    slots = db("agfl %d" % ag, "print bno").split("=", 1)[1].split()
    blk = {}
    for s in slots:
        i, b = s.split(":")
        blk[int(i)] = b
    size = len(slots)
    act = [int(blk[(v["flfirst"] + k) % size]) for k in range(v["flcount"])]
    hi = max(act) if act else 0
    # the largest size that cuts an AGFL block off: room for the data
    if hi > 8192 and (best is None or ag * agb + hi > best[0] * agb + best[1]):
        best = (ag, hi)
if best:
    ag, hi = best
    print(ag * agb + hi - 16, ag, hi)
PY
)
	if [ -n "$pick" ]; then
		set -- $pick
		t_ok "agfl: AG $2 has an AGFL block at $3: cut it at $(( $3 - 16 ))"
		shrink_case agfl "$img" --size $(( $1 * 4096 ))
		set --
	else
		t_fail "agfl: the workload left no AGFL block past 8192 in any AG"
	fi
	rm -f "$img"
fi

# ---- stopped dead at many writes, each undone ----
if t_case faults; then
	orig=$T_TMP/fo.img
	t_unpack "$here/fixtures/aged" "$orig"
	w=$T_TMP/fw.img
	cp --sparse=always "$orig" "$w"
	rm -f "$T_TMP/ff.u" "$T_TMP/ff.u.map"
	"$bin" shrink --min --undo "$T_TMP/ff.u" "$w" > "$T_TMP/ff.out" 2>&1
	writes=$(sed -n 's/^\([0-9]*\) image writes.*/\1/p' "$T_TMP/ff.out")
	geo=$(sed -n 's/^shrink: .* image writes \([0-9]*\)-\([0-9]*\)$/\1 \2/p' "$T_TMP/ff.out")
	if [ -z "$writes" ] || [ -z "$geo" ]; then
		t_fail "faults: the shrink did not say how many writes, or which rewrite the geometry"
	else
		set -- $geo
		g0=$1 g1=$2
		set --
		# half anywhere, half inside the geometry rewrite (its first
		# and last writes among them)
		bad=0 pts=(0 1 $((g0 - 1)) $((g1 - 1)) $((writes - 1)))
		for ((i = 1; i <= (FAULTS - 5) / 2; i++)); do
			pts+=($(( writes * i / ((FAULTS - 5) / 2 + 1) )))
			pts+=($(( g0 - 1 + (g1 - g0) * i / ((FAULTS - 5) / 2 + 1) )))
		done
		for k in "${pts[@]}"; do
			cp --sparse=always "$orig" "$w"
			rm -f "$T_TMP/ff.u" "$T_TMP/ff.u.map"
			"$tbin" --fault-after "$k" shrink --min --undo "$T_TMP/ff.u" "$w" > /dev/null 2>&1
			rc=$?
			[ $rc -eq 75 ] || { t_fail "faults: --fault-after $k exited $rc"; bad=1; continue; }
			if ! "$bin" undo "$T_TMP/ff.u" "$w" > "$T_TMP/fu.out" 2>&1 ||
			   ! "$tbin" debug-compare "$orig" "$w" > "$T_TMP/fc.out" 2>&1 ||
			   [ "$(stat -c %s "$w")" != "$(stat -c %s "$orig")" ] ||
			   ! xfs_repair -n "$w" > /dev/null 2>&1; then
				t_fail "faults: stopped after write $k of $writes: $(tail -n 1 "$T_TMP/fu.out") $(tail -n 1 "$T_TMP/fc.out")"
				bad=1
			fi
		done
		[ $bad -eq 0 ] && t_ok "faults: ${#pts[@]} shrinks stopped dead (of $writes writes; geometry rewrite $g0-$g1) each undone to every block in use and the file's size"
	fi
fi

# ---- --discard ----
if t_case discard; then
	orig=$T_TMP/do.img
	t_unpack "$here/fixtures/aged" "$orig"
	for c in run shrink; do
		w=$T_TMP/dw.img
		cp --sparse=always "$orig" "$w"
		rm -f "$T_TMP/d.u" "$T_TMP/d.u.map"
		# a copy whose free space holds bytes: then there is something to give back
		"$tbin" debug-scribble --junk-free "$w" > /dev/null 2>&1
		a0=$(du -k "$w" | cut -f1)
		if [ $c = run ]; then args=(run); else args=(shrink --min); fi
		if "$bin" "${args[@]}" --discard --undo "$T_TMP/d.u" "$w" > "$T_TMP/d.out" 2>&1; then
			a1=$(du -k "$w" | cut -f1)
			said=$(grep '^discard:' "$T_TMP/d.out")
			if [ "$a1" -lt "$a0" ] && [ -n "$said" ]; then
				t_ok "discard: $c --discard: du ${a0}K -> ${a1}K ($said)"
			else
				t_fail "discard: $c --discard: du ${a0}K -> ${a1}K: ${said:-nothing said}"
			fi
			repair_ok discard "$w" "$c --discard"
			cp --sparse=always "$orig" "$T_TMP/dj.img"
			if "$bin" undo "$T_TMP/d.u" "$w" > /dev/null 2>&1 &&
			   "$tbin" debug-compare "$orig" "$w" > "$T_TMP/dc.out" 2>&1; then
				t_ok "discard: undo after $c --discard gives back every block in use"
			else
				t_fail "discard: undo after $c --discard: $(tail -n 1 "$T_TMP/dc.out")"
			fi
		else
			t_fail "discard: $c --discard: $(head -n 2 "$T_TMP/d.out")"
		fi
	done
fi

# ---- a block device keeps its size ----
if [ -z "${XFSDEFRAG_ASAN:-}" ] && t_case blockdev && needs_mount "blockdev"; then
	orig=$T_TMP/bo.img
	t_unpack "$here/fixtures/rmap-nrext64" "$orig"
	cp --sparse=always "$orig" "$T_TMP/bd.img"
	LOOPDEV=$(losetup -f --show "$T_TMP/bd.img")
	rm -f "$T_TMP/b.u" "$T_TMP/b.u.map"
	if "$bin" shrink --min --undo "$T_TMP/b.u" "$LOOPDEV" > "$T_TMP/b.out" 2>&1 &&
	   grep -q "block device and keeps its size" "$T_TMP/b.out"; then
		end=$(sed -n 's/.*now ends at byte \([0-9]*\).*/\1/p' "$T_TMP/b.out")
		if [ "$(blockdev --getsize64 "$LOOPDEV")" = "$(stat -c %s "$orig")" ] &&
		   [ "$end" = $(( $(sbval "$LOOPDEV" dblocks) * $(sbval "$LOOPDEV" blocksize) )) ]; then
			t_ok "blockdev: the device keeps its size; the filesystem ends at byte $end, as said"
		else
			t_fail "blockdev: device $(blockdev --getsize64 "$LOOPDEV") bytes, said $end"
		fi
		repair_ok blockdev "$LOOPDEV" "shrunk on a loop device"
		if "$bin" undo "$T_TMP/b.u" "$LOOPDEV" > /dev/null 2>&1 &&
		   "$tbin" debug-compare "$orig" "$LOOPDEV" > "$T_TMP/bc.out" 2>&1; then
			t_ok "blockdev: undo gives back every block in use"
		else
			t_fail "blockdev: undo: $(tail -n 1 "$T_TMP/bc.out")"
		fi
	else
		t_fail "blockdev: $(head -n 3 "$T_TMP/b.out")"
	fi
	losetup -d "$LOOPDEV"
	LOOPDEV=
fi

t_summary
