#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Relocation, proven on the real thing.  For every mountable fixture:
#   run -> the undo file within 15% of plan's estimate of it;
#          xfs_repair -n exits 0, our checker agrees, and the content
#          manifest through a read-only mount equals the original's;
#          the figures: fragmentation factor as planned, <= 1% outside
#          the files the plan names, >= 90% of each AG's free space in
#          its largest extent; the kernel's readdir walk reads data front
#          to back in each AG (tests/walkorder.py), the read-back figures
#          are the plan's, and a second plan moves nothing;
#   undo of the finished run -> repair 0, every originally live block
#          restored byte for byte, manifest equal;
#   interrupted runs (the I/O layer stops dead after write N) at many N
#          -> undo restores a filesystem xfs_repair accepts whose maps
#          equal the real xfs_bmap output recorded with the fixture;
# the name and inode orders on one fixture; and every refusal, each
# leaving the image untouched.  Fixtures made with xfsprogs 6.15 are
# judged by its xfs_repair where tests/fixtures/build-xfsprogs.sh built
# it (else by our checker and the kernel's manifest alone, said in a
# skip); their manifests hold the kernel's parent pointers.
# Everything runs on plain image files, as any user; only what needs the
# kernel to mount the image skips without loop mounts (root, loop
# devices; XFSDEFRAG_NO_MOUNT=1 pretends there are none): the content
# manifests, the kernel's walk order, "the kernel refuses an interrupted
# run", the refusals of a mounted image and of a dirty log, and the
# crowded-AG case, whose filesystem is made by a live workload.
# XFSDEFRAG_REQUIRE_MOUNT=1 (as CI sets) turns those skips into failures.
# A failing case shows what the command said.  T_CASE selects fixtures
# and the groups "orders", "crowded" and "refusals".
# Usage: t-relocate.sh XFSDEFRAG [FIXTURE...]
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

CAN_MOUNT=
t_can_mount && CAN_MOUNT=1
command -v xfs_repair >/dev/null 2>&1 ||
	{ t_fail "xfs_repair is not installed: it is the judge here"; t_summary; exit 1; }

T_FIXTURE_GREP='^mountable: yes' t_fixtures "$@"
fixtures=("${FIXTURES[@]}")
# the sanitizer pass of make check relocates a sample: the fault fixtures
# and the two with the most directory code (8 KiB directory blocks, the
# big directories); check-long (XFSDEFRAG_TEST_LONG) every fixture
ASAN_SAMPLE=" aged rmap-nrext64 bs1k isize1k-dir8k dirs "
if [ -n "${XFSDEFRAG_ASAN:-}" ] && [ -z "${XFSDEFRAG_TEST_LONG:-}" ] && [ $# -eq 0 ]; then
	sample=()
	for f in "${fixtures[@]}"; do
		case $ASAN_SAMPLE in *" $f "*) sample+=("$f") ;; esac
	done
	fixtures=("${sample[@]}")
fi
# of the fixtures made with xfsprogs 6.15 (t-modern runs and undoes each
# of them), make check relocates parent pointers and the metadata
# directory here too; check-long every one
MODERN_SAMPLE=" parent metadir "
if [ -z "${XFSDEFRAG_TEST_LONG:-}" ] && [ $# -eq 0 ]; then
	sample=()
	for f in "${fixtures[@]}"; do
		if grep -q '^xfsprogs: 6\.15' "$here/fixtures/$f/mkfs.opts" &&
		   [[ $MODERN_SAMPLE != *" $f "* ]]; then
			continue
		fi
		sample+=("$f")
	done
	fixtures=("${sample[@]}")
fi
# interruption points per fault fixture: fewer under the sanitizers
# (slower, same code), and 20 in make check (the first six writes one by
# one, the rest spread out), 40 in make check-long (XFSDEFRAG_TEST_LONG)
if [ -n "${XFSDEFRAG_ASAN:-}" ]; then FAULTS=${FAULTS:-8}
elif [ -n "${XFSDEFRAG_TEST_LONG:-}" ]; then FAULTS=${FAULTS:-40}
else FAULTS=${FAULTS:-20}; fi
FAULT_FIXTURES=${FAULT_FIXTURES:-"aged rmap-nrext64 bs1k"}
TOTAL_FAULTS=0

manifest() {	# IMAGE OUT: what mount or manifest.py said in OUT.err
	mount -o loop,ro,nouuid "$1" "$MNT" 2> "$2.err" ||
		{ t_loop_gone "$1"; return 1; }
	python3 "$here/manifest.py" "$MNT" > "$2" 2> "$2.err"
	local rc=$?
	t_umount "$MNT"
	return $rc
}

# xfs_repair -n of the fixture's xfsprogs (t_xfsprogs); without them
# (REPAIR empty) it cannot judge: passes, and check_fixture says so
REPAIR=1
repair_ok() {
	[ -n "$REPAIR" ] || return 0
	xfs_repair -n "$1" > "$T_TMP/repair.out" 2>&1
}

# live_same ORIG OTHER: is every block in use in ORIG back in OTHER?
# xfs_db's view (cmp_live.py) where the xfsprogs here reads the fixture;
# else (a fixture of xfsprogs 6.15 where only 6.1 is installed: its
# xfs_db cannot walk a metadata directory) our own reader's
# (debug-compare), which leaves out the same free and unwritten blocks.
live_same() {
	if [ -n "$REPAIR" ]; then
		python3 "$here/cmp_live.py" "$1" "$2"
	else
		"$tbin" debug-compare "$1" "$2"
	fi
}

json_get() {	# FILE PYTHON-EXPRESSION-ON-d
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

check_fixture() {
	local name=$1 fx=$here/fixtures/$1 orig=$T_TMP/orig w=$T_TMP/w man=
	t_unpack "$fx" "$orig" || { t_fail "$name: cannot unpack"; return; }
	REPAIR=1
	t_xfsprogs "$fx" || REPAIR=
	if t_need_mount "$name: content manifests"; then
		man=1
		manifest "$orig" "$T_TMP/man.orig" ||
			{ t_fail "$name: cannot mount the original"; t_show "$T_TMP/man.orig.err"; return; }
	fi
	"$bin" plan --json "$orig" > "$T_TMP/plan.json" 2> "$T_TMP/plan.err" ||
		{ t_fail "$name: plan failed"; t_show "$T_TMP/plan.err"; return; }

	cp --sparse=always "$orig" "$w"
	rm -f "$T_TMP/w.undo" "$T_TMP/w.undo.map"
	if ! "$bin" run --undo "$T_TMP/w.undo" "$w" > "$T_TMP/run.out" 2>&1; then
		t_fail "$name: run failed"; t_show "$T_TMP/run.out"
		return
	fi
	# plan's estimate of the undo file, against the file the run wrote
	local est size
	est=$(json_get "$T_TMP/plan.json" 'd["undo_bytes_estimate"]')
	size=$(stat -c %s "$T_TMP/w.undo")
	if python3 -c "import sys; e, s = int(sys.argv[1]), int(sys.argv[2]); sys.exit(abs(e - s) > 0.15 * s)" "$est" "$size"; then
		t_ok "$name: plan's undo estimate $est bytes, within 15% of the undo file's $size"
	else
		t_fail "$name: plan's undo estimate $est bytes, the undo file has $size"
	fi
	if [ -z "$REPAIR" ]; then t_skip "$name: xfs_repair -n verdicts (made with xfsprogs $(sed -n 's/^xfsprogs: //p' "$fx/mkfs.opts"), which is not built here: tests/fixtures/build-xfsprogs.sh); our checker and the kernel judge"
	elif repair_ok "$w"; then t_ok "$name: xfs_repair -n accepts the result"
	else t_fail "$name: xfs_repair -n rejects the result"; grep -v '^Phase\|^  *-' "$T_TMP/repair.out" | head -n 5 | sed 's/^/    /'; fi
	if "$bin" check "$w" > "$T_TMP/check.out" 2>&1; then t_ok "$name: our checker accepts the result"
	else t_fail "$name: our checker rejects the result"; t_show "$T_TMP/check.out"; fi
	if [ -z "$man" ]; then
		:
	elif manifest "$w" "$T_TMP/man.w" && cmp -s "$T_TMP/man.orig" "$T_TMP/man.w"; then
		t_ok "$name: manifest identical after run ($(wc -l < "$T_TMP/man.orig") paths)"
	else
		t_fail "$name: manifest differs after run"
		t_show "$T_TMP/man.w.err"
		diff "$T_TMP/man.orig" "$T_TMP/man.w" | head -n 6 | sed 's/^/    /'
	fi
	# the figures
	"$bin" report --json "$w" > "$T_TMP/rep.json" 2> "$T_TMP/rep.err" ||
		t_show "$T_TMP/rep.err"
	local planned got others worst
	planned=$(json_get "$T_TMP/plan.json" 'd["after"]["frag_factor_pct"]')
	got=$(json_get "$T_TMP/rep.json" 'd["fragmentation"]["factor_pct"]')
	others=$(json_get "$T_TMP/plan.json" 'd["after"]["frag_factor_pct_others"]')
	if [ "$planned" = "$got" ]; then t_ok "$name: fragmentation factor $got% as planned"
	else t_fail "$name: fragmentation factor $got%, planned $planned%"; fi
	if python3 -c "import sys; sys.exit(float(sys.argv[1]) > 1.0)" "$others"; then
		t_ok "$name: fragmentation factor $others% outside the $(json_get "$T_TMP/plan.json" 'len(d["not_contiguous"])') files named"
	else
		t_fail "$name: fragmentation factor $others% outside the named files (> 1%)"
	fi
	worst=$(json_get "$T_TMP/rep.json" 'min(a["longest_free_pct"] for a in d["ags"] if a["free_blocks"] > 64)')
	if python3 -c "import sys; sys.exit(float(sys.argv[1]) < 90.0)" "$worst"; then
		t_ok "$name: every AG has >= 90% of its free space in one extent (worst $worst%)"
	else
		t_fail "$name: an AG has only $worst% of its free space in its largest extent"
	fi
	t_check_walk "$bin" "$name" "$w" "$T_TMP/plan.json"
	if "$bin" plan --json "$w" > "$T_TMP/plan2.json" 2> "$T_TMP/plan2.err" &&
	   [ "$(json_get "$T_TMP/plan2.json" 'd["moved_blocks"]')" = 0 ]; then
		t_ok "$name: a second plan moves nothing"
	else
		t_fail "$name: a second plan would move $(json_get "$T_TMP/plan2.json" 'd["moved_blocks"]' 2>/dev/null) blocks"
		t_show "$T_TMP/plan2.err"
	fi
	# undo of the finished run
	: > "$T_TMP/cmp.out"
	if ! "$bin" undo "$T_TMP/w.undo" "$w" > "$T_TMP/undo.out" 2>&1; then
		t_fail "$name: undo of the finished run failed"; t_show "$T_TMP/undo.out"
	elif ! repair_ok "$w"; then
		t_fail "$name: after undo of the finished run, xfs_repair -n complains"
		t_show "$T_TMP/repair.out"
	elif live_same "$orig" "$w" > "$T_TMP/cmp.out" 2>&1; then
		t_ok "$name: undo of the finished run restores every live block"
	else
		t_fail "$name: undo of the finished run: live blocks differ"
		t_show "$T_TMP/cmp.out"
	fi
	if [ -n "$man" ]; then
		if manifest "$w" "$T_TMP/man.u" && cmp -s "$T_TMP/man.orig" "$T_TMP/man.u"; then
			t_ok "$name: manifest identical after undo"
		else
			t_fail "$name: manifest differs after undo"
			t_show "$T_TMP/man.u.err"
		fi
	fi

	case " $FAULT_FIXTURES " in *" $name "*) ;; *) return ;; esac
	local writes k pts=() n=0 bad=0 vout="$T_TMP/bmapv"
	writes=$(sed -n 's/^\([0-9]*\) image writes.*/\1/p' "$T_TMP/run.out")
	[ -n "$writes" ] || { t_fail "$name: run did not say how many writes"; return; }
	t_cat "$fx/paths" > "$T_TMP/paths"
	t_cat "$fx/bmap-v.out" > "$T_TMP/bmap-v.exp"
	# the first writes one by one (superblock, first copies), then spread out
	for k in 0 1 2 3 4 5; do pts+=("$k"); done
	for ((i = 1; i <= FAULTS - 6; i++)); do pts+=($(( writes * i / (FAULTS - 5) ))); done
	pts+=($((writes - 1)))
	for k in "${pts[@]}"; do
		cp --sparse=always "$orig" "$w"
		rm -f "$T_TMP/f.undo" "$T_TMP/f.undo.map"
		"$tbin" --fault-after "$k" run --undo "$T_TMP/f.undo" "$w" > "$T_TMP/f.out" 2>&1
		local rc=$?
		n=$((n + 1))
		if [ $rc -ne 75 ]; then
			t_fail "$name: --fault-after $k run exited $rc, not 75"; t_show "$T_TMP/f.out"
			bad=1; continue
		fi
		# once the first write (NEEDSREPAIR) is done, no kernel mounts it;
		# the loop device of the attempt may outlive it (t_loop_gone)
		if [ -n "$CAN_MOUNT" ] && [ "$k" -gt 0 ]; then
			if mount -o loop,ro,nouuid "$w" "$MNT" 2>/dev/null; then
				t_umount "$MNT"
				t_fail "$name: the kernel mounted an interrupted run (write $k)"; bad=1
			fi
			t_loop_gone "$w"
		fi
		if ! "$bin" undo "$T_TMP/f.undo" "$w" > "$T_TMP/undo.out" 2>&1; then
			t_fail "$name: undo after write $k failed"; t_show "$T_TMP/undo.out"
			bad=1; continue
		fi
		if ! repair_ok "$w"; then
			t_fail "$name: after undo of write $k, xfs_repair -n complains"
			t_show "$T_TMP/repair.out"; bad=1; continue
		fi
		(cd "$T_TMP" && xargs -0 -r "$bin" bmap -v w < "$T_TMP/paths") > "$vout" 2> "$vout.err"
		# the recorded maps name the image "image"; ours were read as "w"
		if ! cmp -s "$T_TMP/bmap-v.exp" "$vout"; then
			t_fail "$name: after undo of write $k, bmap -v differs from xfs_bmap's"
			t_show "$vout.err"
			diff "$T_TMP/bmap-v.exp" "$vout" | head -n 6 | sed 's/^/    /'
			bad=1; continue
		fi
		if [ $((n % 10)) -eq 1 ] &&
		   ! live_same "$orig" "$w" > "$T_TMP/cmp.out" 2>&1; then
			t_fail "$name: after undo of write $k: live blocks differ"
			t_show "$T_TMP/cmp.out"; bad=1
		fi
	done
	TOTAL_FAULTS=$((TOTAL_FAULTS + n))
	[ $bad -eq 0 ] && t_ok "$name: $n interrupted runs (of $writes writes) all restored by undo"
	[ -n "$CAN_MOUNT" ] || t_need_mount "$name: the kernel refuses to mount an interrupted run"
}

refusals() {
	local fx=$here/fixtures/aged img=$T_TMP/r.img sum
	t_unpack "$fx" "$img" || return
	: > "$T_TMP/db.out"
	expect_refusal() {	# WHAT PATTERN
		sum=$(t_imgsum "$img")
		rm -f "$T_TMP/r.undo" "$T_TMP/r.undo.map"
		"$bin" run --undo "$T_TMP/r.undo" "$img" > "$T_TMP/ref.out" 2>&1
		local rc=$?
		if [ $rc -eq 4 ] && grep -qi "$2" "$T_TMP/ref.out" &&
		   [ "$sum" = "$(t_imgsum "$img")" ] && [ ! -e "$T_TMP/r.undo" ]; then
			t_ok "refuses: $1"
		else
			t_fail "refusal '$1': exit $rc"; t_show "$T_TMP/ref.out"
			t_show "$T_TMP/db.out"
		fi
		: > "$T_TMP/db.out"	# what xfs_db said making the next case
	}
	if t_need_mount "refuses: mounted image"; then
		mount -o loop,ro "$img" "$MNT" && { expect_refusal "mounted image" "mounted"; t_umount "$MNT"; }
	fi
	# another process holding the image's write lock (the lock dies with it)
	python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "rb"); fcntl.flock(f, fcntl.LOCK_EX); time.sleep(120)' "$img" &
	local holder=$!
	sleep 1
	expect_refusal "image opened by another writer" "busy"
	kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
	cp --sparse=always "$img" "$T_TMP/keep.img"
	xfs_db -x -c "agi 0" -c "write -d unlinked[3] 77" "$img" > "$T_TMP/db.out" 2>&1
	expect_refusal "unlinked inodes pending" "unlinked"
	cp --sparse=always "$T_TMP/keep.img" "$img"
	local inc
	inc=$(xfs_db -r -c "sb 0" -c "print features_incompat" "$img" | sed 's/.*= //')
	xfs_db -x -c "sb 0" -c "write -d features_incompat $((inc | 0x10))" "$img" > "$T_TMP/db.out" 2>&1
	expect_refusal "NEEDSREPAIR already set" "NEEDSREPAIR"
	cp --sparse=always "$T_TMP/keep.img" "$img"
	xfs_db -x -c "sb 0" -c "write -d features_incompat $((inc | 0x4000))" "$img" > "$T_TMP/db.out" 2>&1
	expect_refusal "unknown incompat feature" "not supported by the relocation code: incompat 0x4000$"
	cp --sparse=always "$T_TMP/keep.img" "$img"
	local ro
	ro=$(xfs_db -r -c "sb 0" -c "print features_ro_compat" "$img" | sed 's/.*= //')
	xfs_db -x -c "sb 0" -c "write -d features_ro_compat $((ro | 0x1000))" "$img" > "$T_TMP/db.out" 2>&1
	expect_refusal "unknown ro_compat feature" "not supported by the relocation code: ro_compat 0x1000$"
	# every feature named at once, not the first only
	xfs_db -x -c "sb 0" -c "write -d features_incompat $((inc | 0x4000 | 0x8000))" "$img" > "$T_TMP/db.out" 2>&1
	expect_refusal "three unknown features, named together" "code: incompat 0x4000, incompat 0x8000, ro_compat 0x1000$"
	cp --sparse=always "$T_TMP/keep.img" "$img"
	xfs_db -x -c "sb 0" -c "write -d features_log_incompat 1" "$img" > "$T_TMP/db.out" 2>&1
	expect_refusal "log_incompat feature" "log_incompat"
	cp --sparse=always "$T_TMP/keep.img" "$img"
	local fb
	fb=$(xfs_db -r -c "agf 1" -c "print freeblks" "$img" | sed 's/.*= //')
	xfs_db -x -c "agf 1" -c "write freeblks $((fb + 1))" "$img" > "$T_TMP/db.out" 2>&1
	expect_refusal "pre-check finds damage" "pre-check"
	cp --sparse=always "$T_TMP/keep.img" "$img"
	# a dirty log: write, then shut down without flushing the log
	t_need_mount "refuses: dirty log" && mount -o loop "$img" "$MNT" && {
		echo dirty > "$MNT/dirty-file"; sync
		echo more >> "$MNT/dirty-file"
		xfs_io -x -c "shutdown" "$MNT" > /dev/null 2>&1
		t_umount "$MNT"
		expect_refusal "dirty log" "log is dirty"
	}
	t_unpack "$here/fixtures/v4" "$img" 2>/dev/null && expect_refusal "v4 filesystem" "v4"
}

# An AG too small for its inodes' data: six 14 MiB files in the root grown
# together (fsync'd appends) spill from AG 0 into the next AGs, and one of
# them has a reflinked twin partly overwritten.  The planner must put each
# whole file in one AG (moving shared extents with their owners) rather
# than keep its pieces in the AGs they landed in.
crowded() {
	local img=$T_TMP/crowd.img name="crowded AG" nc
	t_need_mount "$name: its filesystem is made by a live workload" || return
	rm -f "$img"
	truncate -s 320m "$img"
	mkfs.xfs -q -f -d agcount=4 "$img" || { t_fail "$name: mkfs"; return; }
	mount -o loop "$img" "$MNT" || { t_fail "$name: mount"; return; }
	python3 - "$MNT" <<'PY'
import os, sys
root = sys.argv[1]
fds = [os.open("%s/f%d" % (root, i), os.O_CREAT | os.O_WRONLY, 0o644)
       for i in range(6)]
for n in range(224):
    for i, fd in enumerate(fds):
        os.pwrite(fd, (b"%d.%d." % (i, n)).ljust(64, b"x") * 1024, n * 65536)
        os.fsync(fd)
for fd in fds:
    os.close(fd)
PY
	cp --reflink=always "$MNT/f1" "$MNT/f1.twin"
	dd if=/dev/zero of="$MNT/f1.twin" bs=64k seek=40 count=16 conv=notrunc 2>/dev/null
	t_umount "$MNT"
	if ! "$bin" report --json "$img" | python3 -c '
import json, sys
d = json.load(sys.stdin)
sys.exit(not any(a["data_blocks"] > 0 for a in d["ags"][1:]))' 2>/dev/null; then
		t_fail "$name: the workload did not spill out of AG 0"
	fi
	manifest "$img" "$T_TMP/crowd.man0" || { t_fail "$name: manifest"; return; }
	"$bin" plan --json "$img" > "$T_TMP/crowd.plan" 2>&1
	nc=$(json_get "$T_TMP/crowd.plan" '" ".join(sorted(x["path"] for x in d["not_contiguous"]))')
	if [ "$nc" = "/f1.twin" ]; then
		t_ok "$name: every file but the reflinked twin planned contiguous"
	else
		t_fail "$name: planned not contiguous: '$nc' (expected only /f1.twin)"
	fi
	rm -f "$T_TMP/crowd.undo" "$T_TMP/crowd.undo.map"
	if ! "$bin" run --undo "$T_TMP/crowd.undo" "$img" > "$T_TMP/crowd.out" 2>&1; then
		t_fail "$name: run failed: $(head -n 2 "$T_TMP/crowd.out")"
		return
	fi
	if repair_ok "$img" && manifest "$img" "$T_TMP/crowd.man1" &&
	   cmp -s "$T_TMP/crowd.man0" "$T_TMP/crowd.man1" &&
	   grep -q '^shares' "$T_TMP/crowd.man1"; then
		t_ok "$name: xfs_repair -n accepts the result, manifest identical, sharing kept"
	else
		t_fail "$name: result rejected or manifest differs"
	fi
	# one record (xfs_bmap still shows the shared and unshared parts apart)
	local ne
	ne=$(xfs_db -r -c "path /f1" -c "print core.nextents" "$img" | sed 's/.*= //')
	if [ "$ne" = 1 ]; then
		t_ok "$name: the reflinked file itself is one extent"
	else
		t_fail "$name: f1 has $ne extent records, not 1"
	fi
}

# The other orders on the aged fixture, whose readdir order is not its
# name order: by name (the walk sorted by name must read front to back)
# and by inode (the chunk-near layout); both leave a filesystem
# xfs_repair accepts with the same contents.
orders() {
	local fx=$here/fixtures/${ORDER_FIXTURE:-aged} orig=$T_TMP/o.orig w=$T_TMP/o.w o
	[ -f "$fx/image.zst" ] || return
	t_unpack "$fx" "$orig" || { t_fail "orders: cannot unpack"; return; }
	local man=
	if t_need_mount "orders: content manifests"; then
		man=1
		manifest "$orig" "$T_TMP/man.o" ||
			{ t_fail "orders: cannot mount"; t_show "$T_TMP/man.o.err"; return; }
	fi
	for o in name inode; do
		cp --sparse=always "$orig" "$w"
		rm -f "$T_TMP/o.undo" "$T_TMP/o.undo.map"
		"$bin" plan --json --order $o "$w" > "$T_TMP/o.json" 2> "$T_TMP/o.err" ||
			{ t_fail "order $o: plan failed"; t_show "$T_TMP/o.err"; continue; }
		if ! "$bin" run --order $o --undo "$T_TMP/o.undo" "$w" > "$T_TMP/o.out" 2>&1; then
			t_fail "order $o: run failed"; t_show "$T_TMP/o.out"; continue
		fi
		if ! repair_ok "$w"; then
			t_fail "order $o: xfs_repair -n rejects the result"
			t_show "$T_TMP/repair.out"
		elif [ -z "$man" ]; then
			t_ok "order $o: xfs_repair -n accepts the result"
		elif manifest "$w" "$T_TMP/man.ow" && cmp -s "$T_TMP/man.o" "$T_TMP/man.ow"; then
			t_ok "order $o: xfs_repair -n accepts the result, manifest identical"
		else
			t_fail "order $o: manifest differs"
			t_show "$T_TMP/man.ow.err"
		fi
		if [ $o = name ]; then
			t_check_walk "$bin" "order $o" "$w" "$T_TMP/o.json" --name
		else
			t_check_walk "$bin" "order $o" "$w" "$T_TMP/o.json" --nowalk
		fi
	done
}

for f in "${fixtures[@]}"; do
	check_fixture "$f"
done
PATH=$T_PATH0 REPAIR=1
t_case orders && orders
t_case crowded && crowded
t_case refusals && refusals
t_summary relocate "$TOTAL_FAULTS interruption points exercised"
