#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs in passes, time boxes and limits (issue 14), on the aged fixture (a
# kernel-made filesystem: mkfs.xfs, loop mount, aging workload):
#   maxtime   run --max-time 0.001 does one pass and stops (exit 0, says
#             what is left); repeated until nothing is left, xfs_repair -n
#             clean, our checker clean and the content manifest identical
#             after every pass; the final figures (xfs_db frag, free space
#             and its histogram, per AG free blocks, free extents, longest
#             free extent) equal a single full run's on a copy
#   passes    run --passes: several passes in one run, one undo file each;
#             figures equal the full run's; undo of the first file undoes
#             them all: xfs_repair -n clean, every live block restored
#             byte for byte (cmp_live.py: blocks free before the run are
#             not journaled, by design, so a whole-image cmp cannot hold,
#             for a single run either), manifest identical
#   interrupt a crash inside pass 2: undo restores the original; a write
#             error in pass 3: the run rolls pass 3 back (exit 1), passes 1
#             and 2 stay, the filesystem whole, and undo restores it all
#   ag        run --ag 1 leaves every block of the other AGs as it was
#             (but the superblock); the plan's predicted figures are met
#   path      run --path /churn: only files under it change their maps
#             (plus those the plan names as in the way)
#   minext    run --min-extents 4: files of fewer extents keep their maps
#   rate      run --max-rate 5 takes at least copied/5 MiB/s
#   json      run --json parses, carries before/after, matches report --json
#   signal    SIGINT during pass 2 of run --passes (slowed by --max-rate):
#             pass 2 finishes, the run stops there with exit 0, says what is
#             left, the filesystem whole
#   refusal   a stale second-pass undo file refuses the run
#   fixtures  run --passes on other geometries (16 AGs, 1 KiB blocks,
#             rmapbt + nrext64): xfs_repair -n clean, and the image block
#             for block the full run's
# Content manifests need a loop mount (skipped without, failure with
# XFSDEFRAG_REQUIRE_MOUNT).  T_CASE selects the groups above.
# Usage: t-passes.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
[ $# -gt 0 ] && shift
t_tmpdir
MNT=$T_TMP/mnt
mkdir -p "$MNT"
T_CLEANUP_HOOK='mountpoint -q "$MNT" && t_umount "$MNT"'
PC="python3 $here/passes_check.py"

CAN_MOUNT=
t_can_mount && CAN_MOUNT=1
command -v xfs_repair >/dev/null 2>&1 ||
	{ t_fail "xfs_repair is not installed: it is the judge here"; t_summary passes; exit 1; }
if [ -z "$CAN_MOUNT" ]; then
	if [ -n "${XFSDEFRAG_REQUIRE_MOUNT:-}" ]; then
		t_fail "content manifests: need root and loop devices (XFSDEFRAG_REQUIRE_MOUNT is set)"
	else
		t_skip "content manifests: need a loop mount"
	fi
fi

fx=$here/fixtures/aged
orig=$T_TMP/orig
t_unpack "$fx" "$orig" || { t_fail "cannot unpack the aged fixture"; t_summary passes; exit 1; }
t_cat "$fx/paths" > "$T_TMP/paths"

manifest() {	# IMAGE OUT: true without a loop mount (nothing to compare)
	[ -n "$CAN_MOUNT" ] || { : > "$2"; return 0; }
	mount -o loop,ro,nouuid "$1" "$MNT" || return 1
	python3 "$here/manifest.py" "$MNT" > "$2"
	local rc=$?
	t_umount "$MNT"
	return $rc
}
bmapv() {	# IMAGE OUT
	(cd "$(dirname "$1")" && xargs -0 -r "$bin" bmap -v "$(basename "$1")" < "$T_TMP/paths") > "$2" 2>/dev/null
}
jget() {	# FILE EXPR-ON-d
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
# whole IMAGE WHAT: xfs_repair -n, our checker, the manifest
whole() {
	if ! xfs_repair -n "$1" > "$T_TMP/repair.out" 2>&1; then
		t_fail "$2: xfs_repair -n rejects it"; return 1
	fi
	if ! "$bin" check "$1" > /dev/null 2>&1; then
		t_fail "$2: our checker rejects it"; return 1
	fi
	if ! manifest "$1" "$T_TMP/man.now" || ! cmp -s "$T_TMP/man.orig" "$T_TMP/man.now"; then
		t_fail "$2: the manifest differs"; return 1
	fi
	return 0
}

manifest "$orig" "$T_TMP/man.orig" || t_fail "cannot mount the original"
"$bin" report --json "$orig" > "$T_TMP/orig.rep.json"
AGBLOCKS=$(jget "$T_TMP/orig.rep.json" 'd["geometry"]["agblocks"]')
BS=$(jget "$T_TMP/orig.rep.json" 'd["geometry"]["blocksize"]')
# the reference: one full run
full=$T_TMP/full
cp --sparse=always "$orig" "$full"
if "$bin" run --renumber none --undo "$T_TMP/full.undo" "$full" > "$T_TMP/full.out" 2>&1; then
	"$bin" report --json "$full" > "$T_TMP/full.rep.json"
	$PC figures "$T_TMP/full.rep.json" > "$T_TMP/full.fig"
else
	t_fail "the full run failed: $(head -n 2 "$T_TMP/full.out")"
fi
same_figures() {	# IMAGE WHAT
	"$bin" report --json "$1" > "$T_TMP/now.rep.json" &&
	$PC figures "$T_TMP/now.rep.json" > "$T_TMP/now.fig"
	if cmp -s "$T_TMP/full.fig" "$T_TMP/now.fig"; then
		t_ok "$2: final figures equal a single full run's ($(head -n 1 "$T_TMP/now.fig"), $(sed -n 2p "$T_TMP/now.fig"), $(grep -c . "$T_TMP/now.fig") lines)"
	else
		t_fail "$2: final figures differ from the full run's"
		diff "$T_TMP/full.fig" "$T_TMP/now.fig" | head -n 6 | sed 's/^/    /'
	fi
}

maxtime() {
	local w=$T_TMP/mt k=1 bad=0 ran=0 rc
	cp --sparse=always "$orig" "$w"
	rm -f "$T_TMP"/mt.*.undo*
	# the first in text: it must say that it stopped and what is left
	"$bin" run --max-time 0.001 --undo "$T_TMP/mt.1.undo" "$w" > "$T_TMP/mt.out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^pass 1 ' "$T_TMP/mt.out" && ! grep -q '^pass 2 ' "$T_TMP/mt.out" &&
	   grep -q 'stopped: --max-time 0.001 s reached.*left: [1-9][0-9]* blocks' "$T_TMP/mt.out"; then
		t_ok "maxtime: --max-time 0.001 stops after one pass, exit 0, and says what is left"
	else
		t_fail "maxtime: first run (exit $rc): $(grep -v '^ \|^$' "$T_TMP/mt.out" | head -n 3)"
		return
	fi
	whole "$w" "maxtime: after pass 1" || bad=1
	ran=1
	while [ $k -lt 12 ]; do
		k=$((k + 1))
		"$bin" run --max-time 0.001 --json --undo "$T_TMP/mt.$k.undo" "$w" > "$T_TMP/mt.json" 2>"$T_TMP/mt.err"
		rc=$?
		[ $rc -eq 0 ] || { t_fail "maxtime: run $k exited $rc: $(head -n 2 "$T_TMP/mt.err")"; return; }
		local np
		np=$(jget "$T_TMP/mt.json" 'd["npasses"]')
		[ "$np" -le 1 ] || { t_fail "maxtime: run $k did $np passes, not 1"; bad=1; }
		[ "$np" -eq 1 ] && { ran=$((ran + 1)); whole "$w" "maxtime: after pass $ran" || bad=1; }
		[ "$(jget "$T_TMP/mt.json" 'd["complete"]')" = True ] && break
	done
	if [ $bad -eq 0 ] && [ $ran -ge 2 ]; then
		t_ok "maxtime: $ran passes in $k runs, each exit 0; xfs_repair -n, our checker clean and the manifest identical after every pass"
	elif [ $bad -eq 0 ]; then
		t_fail "maxtime: only $ran pass(es): the time box forced no second pass"
	fi
	same_figures "$w" "maxtime"
	if "$bin" plan --json --renumber none "$w" > "$T_TMP/mt.plan.json" && [ "$(jget "$T_TMP/mt.plan.json" 'd["moved_blocks"]')" = 0 ]; then
		t_ok "maxtime: a plan afterwards moves nothing"
	else
		t_fail "maxtime: a plan afterwards still moves blocks"
	fi
	local h
	h=$(t_imgsum "$w")
	"$bin" run --max-time 0.001 --undo "$T_TMP/mt.last.undo" "$w" > "$T_TMP/mt.last" 2>&1
	if [ "$h" = "$(t_imgsum "$w")" ] && grep -q '^nothing to move' "$T_TMP/mt.last"; then
		t_ok "maxtime: a further run writes nothing"
	else
		t_fail "maxtime: a further run changed the image: $(head -n 1 "$T_TMP/mt.last")"
	fi
}

passes() {
	local w=$T_TMP/mp rc np
	cp --sparse=always "$orig" "$w"
	rm -f "$T_TMP"/mp.undo*
	"$bin" run --passes --json --undo "$T_TMP/mp.undo" "$w" > "$T_TMP/mp.json" 2>"$T_TMP/mp.err"
	rc=$?
	np=$(jget "$T_TMP/mp.json" 'd["npasses"]' 2>/dev/null)
	if [ $rc -eq 0 ] && [ "${np:-0}" -ge 2 ] && [ -f "$T_TMP/mp.undo" ] && [ -f "$T_TMP/mp.undo.$np" ] &&
	   [ "$(jget "$T_TMP/mp.json" 'all(p["verified"] for p in d["passes"]) and d["complete"]')" = True ]; then
		t_ok "passes: one run in $np verified passes, undo files mp.undo to mp.undo.$np"
	else
		t_fail "passes: run --passes exit $rc, ${np:-no} passes: $(head -n 2 "$T_TMP/mp.err")"
		return
	fi
	whole "$w" "passes: after the run" && t_ok "passes: xfs_repair -n, our checker clean, manifest identical"
	same_figures "$w" "passes"
	if cmp -s "$full" "$w"; then
		t_ok "passes: the image is byte for byte the full run's"
	else
		t_fail "passes: the image differs from the full run's"
	fi
	if "$bin" undo "$T_TMP/mp.undo" "$w" > "$T_TMP/mpu.out" 2>&1 &&
	   [ "$(grep -c '^pass [0-9]*: restored' "$T_TMP/mpu.out")" = "$np" ] &&
	   python3 "$here/cmp_live.py" "$orig" "$w" > "$T_TMP/cmp.out"; then
		t_ok "passes: undo mp.undo undoes all $np passes: every live block restored byte for byte"
	else
		t_fail "passes: undo of the run in passes: $(head -n 3 "$T_TMP/mpu.out") $(cat "$T_TMP/cmp.out" 2>/dev/null)"
	fi
	whole "$w" "passes: after undo" && t_ok "passes: after undo xfs_repair -n, our checker clean, manifest identical"
}

interrupt() {
	local w=$T_TMP/ip rc
	cp --sparse=always "$orig" "$w"
	rm -f "$T_TMP"/ip.undo*
	"$tbin" --fault-pass 2 --fault-after 40 run --passes --undo "$T_TMP/ip.undo" "$w" > "$T_TMP/ip.out" 2>&1
	rc=$?
	if [ $rc -eq 75 ] && [ -f "$T_TMP/ip.undo.2" ] && ! xfs_repair -n "$w" > /dev/null 2>&1; then
		t_ok "interrupt: a crash at write 40 of pass 2 leaves pass 2 half done (NEEDSREPAIR)"
	else
		t_fail "interrupt: exit $rc (not 75), or no second undo file, or repair accepts a half-written pass"
	fi
	if "$bin" undo "$T_TMP/ip.undo" "$w" > "$T_TMP/ipu.out" 2>&1 &&
	   grep -q 'pass 2: restored.*interrupted' "$T_TMP/ipu.out" &&
	   python3 "$here/cmp_live.py" "$orig" "$w" > "$T_TMP/cmp.out" && whole "$w" "interrupt: after undo"; then
		t_ok "interrupt: undo restores the interrupted pass 2 and pass 1: live blocks, repair, manifest"
	else
		t_fail "interrupt: undo after the crash: $(head -n 3 "$T_TMP/ipu.out")"
	fi
	cp --sparse=always "$orig" "$w"
	rm -f "$T_TMP"/ip.undo*
	"$tbin" --fault-pass 3 --fault-error 50 run --passes --undo "$T_TMP/ip.undo" "$w" > "$T_TMP/ip.out" 2>&1
	rc=$?
	if [ $rc -eq 1 ] && [ -f "$T_TMP/ip.undo.2" ] && [ ! -e "$T_TMP/ip.undo.3" ] &&
	   grep -q 'rolled back' "$T_TMP/ip.out" && xfs_repair -n "$w" > /dev/null 2>&1 &&
	   "$bin" undo "$T_TMP/ip.undo" "$w" > "$T_TMP/ipu.out" 2>&1 &&
	   python3 "$here/cmp_live.py" "$orig" "$w" > "$T_TMP/cmp.out"; then
		t_ok "interrupt: a write error in pass 3 rolls that pass back (exit 1), passes 1-2 stay whole; undo restores the original"
	else
		t_fail "interrupt: write error in pass 3: exit $rc: $(grep xfsdefrag: "$T_TMP/ip.out" | head -n 3)"
	fi
}

ag() {
	local w=$T_TMP/ag rc
	cp --sparse=always "$orig" "$w"
	rm -f "$T_TMP"/ag.undo*
	"$bin" plan --json --ag 1 "$w" > "$T_TMP/ag.plan.json" || { t_fail "ag: plan --ag 1 failed"; return; }
	if [ "$(jget "$T_TMP/ag.plan.json" 'all((a["moved_blocks"] > 0) == (a["ag"] == 1) for a in d["ags"])')" = True ]; then
		t_ok "ag: plan --ag 1 moves blocks in AG 1 only"
	else
		t_fail "ag: plan --ag 1 moves: $(jget "$T_TMP/ag.plan.json" '[a["moved_blocks"] for a in d["ags"]]')"
	fi
	# --force: a limit's own gain may be below the verdict's bar (the
	# verdict has tests of its own); what is checked here is the limit
	"$bin" run --ag 1 --force --undo "$T_TMP/ag.undo" "$w" > "$T_TMP/ag.out" 2>&1 || { t_fail "ag: run --ag 1 failed: $(head -n 2 "$T_TMP/ag.out")"; return; }
	whole "$w" "ag" && t_ok "ag: xfs_repair -n, our checker clean, manifest identical"
	$PC agdiff "$orig" "$w" "$AGBLOCKS" "$BS" 1 > "$T_TMP/ag.diff"
	if [ "$(awk '$1 != 1 && $2 != 0' "$T_TMP/ag.diff" | wc -l)" = 0 ] &&
	   $PC agdiff "$orig" "$w" "$AGBLOCKS" "$BS" 99 | awk '$1 == 1 && $2 > 0 { ok = 1 } END { exit !ok }'; then
		t_ok "ag: every block of AGs 0, 2, 3 unchanged (but the superblock); AG 1 rewritten"
	else
		t_fail "ag: blocks changed outside AG 1: $(tr '\n' ' ' < "$T_TMP/ag.diff")"
	fi
	"$bin" report --json "$w" > "$T_TMP/ag.rep.json"
	local planned got
	planned=$(jget "$T_TMP/ag.plan.json" 'd["after"]["frag_factor_pct"]')
	got=$(jget "$T_TMP/ag.rep.json" 'd["fragmentation"]["factor_pct"]')
	if [ "$planned" = "$got" ] && [ "$got" != "$(jget "$T_TMP/orig.rep.json" 'd["fragmentation"]["factor_pct"]')" ]; then
		t_ok "ag: fragmentation factor $got% as plan --ag 1 predicted"
	else
		t_fail "ag: fragmentation factor $got%, plan --ag 1 predicted $planned%"
	fi
}

# limited NAME OPTION...: run with the limit; the files whose maps changed
# are left in $T_TMP/NAME.changed, the plan's in-the-way list in NAME.inway
limited() {
	local name=$1 w=$T_TMP/$1
	shift
	cp --sparse=always "$orig" "$w"
	rm -f "$T_TMP/$name".undo*
	"$bin" plan --json "$@" "$w" > "$T_TMP/$name.plan.json" || { t_fail "$name: plan $* failed"; return 1; }
	jget "$T_TMP/$name.plan.json" '"\n".join(x["path"].lstrip("/") for x in d["limits"]["in_the_way"])' > "$T_TMP/$name.inway"
	bmapv "$w" "$T_TMP/$name.b0"
	"$bin" run "$@" --force --undo "$T_TMP/$name.undo" "$w" > "$T_TMP/$name.out" 2>&1 || { t_fail "$name: run $* failed: $(head -n 2 "$T_TMP/$name.out")"; return 1; }
	bmapv "$w" "$T_TMP/$name.b1"
	$PC bmapdiff "$T_TMP/$name.b0" "$T_TMP/$name.b1" > "$T_TMP/$name.changed"
	whole "$w" "$name" && t_ok "$name: run $*: xfs_repair -n, our checker clean, manifest identical"
	"$bin" report --json "$w" > "$T_TMP/$name.rep.json"
	local planned got
	planned=$(jget "$T_TMP/$name.plan.json" 'd["after"]["frag_factor_pct"]')
	got=$(jget "$T_TMP/$name.rep.json" 'd["fragmentation"]["factor_pct"]')
	if [ "$planned" = "$got" ]; then t_ok "$name: fragmentation factor $got% as the plan predicted"
	else t_fail "$name: fragmentation factor $got%, the plan predicted $planned%"; fi
	return 0
}

path() {
	limited path --path /churn || return
	local out n
	out=$(grep -v '^churn\(/\|$\)' "$T_TMP/path.changed" | grep -vxF -f "$T_TMP/path.inway" -e '' | head -n 3)
	n=$(grep -c '^churn\(/\|$\)' "$T_TMP/path.changed")
	if [ -z "$out" ] && [ "$n" -gt 0 ]; then
		t_ok "path: $n files under /churn changed maps, no other file but the $(grep -c . "$T_TMP/path.inway") in the way"
	else
		t_fail "path: files outside /churn changed ($out), or none inside ($n)"
	fi
}

minext() {
	local N=4
	limited minext --min-extents $N || return
	$PC bmapcount "$T_TMP/minext.b0" > "$T_TMP/minext.count"
	local bad="" big=0 p c ino nx
	while IFS= read -r p; do
		[ -n "$p" ] || continue
		c=$(awk -F'\t' -v p="$p" '$1 == p { print $2 }' "$T_TMP/minext.count")
		if [ "${c:-0}" -ge $N ]; then big=$((big + 1)); continue; fi
		grep -qxF "$p" "$T_TMP/minext.inway" && continue
		# bmap merges records that touch; the limit counts records
		nx=$(xfs_db -r -c "path /$p" -c "print core.nextents" "$T_TMP/orig" 2>/dev/null | sed -n 's/.*= *//p')
		[ "${nx:-0}" -ge $N ] || bad="$bad $p($c/${nx:-?})"
	done < "$T_TMP/minext.changed"
	if [ -z "$bad" ] && [ $big -gt 0 ]; then
		t_ok "minext: $big files of $N+ extents changed maps; no file of fewer extent records did"
	else
		t_fail "minext: files of fewer than $N extents changed:${bad:- none of $N+ did}"
	fi
}

rate() {
	local w=$T_TMP/rt t0 t1 copied secs
	cp --sparse=always "$orig" "$w"
	rm -f "$T_TMP"/rt.undo*
	t0=$(date +%s.%N)
	"$bin" run --max-rate 5 --json --undo "$T_TMP/rt.undo" "$w" > "$T_TMP/rt.json" 2>"$T_TMP/rt.err" ||
		{ t_fail "rate: run --max-rate 5 failed: $(head -n 2 "$T_TMP/rt.err")"; return; }
	t1=$(date +%s.%N)
	copied=$(jget "$T_TMP/rt.json" 'sum(p["copied_bytes"] for p in d["passes"])')
	if python3 -c "
import sys; c, t0, t1 = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
need = c / (5 * 1048576)
print('%.1f MiB in %.2f s (at least %.2f s)' % (c / 1048576, t1 - t0, need))
sys.exit(not (c >= 15 * 1048576 and t1 - t0 >= need * 0.95 and t1 - t0 >= 3))" "$copied" "$t0" "$t1" > "$T_TMP/rt.msg"; then
		t_ok "rate: --max-rate 5 MiB/s: $(cat "$T_TMP/rt.msg")"
	else
		t_fail "rate: --max-rate 5 MiB/s too fast or too little: $(cat "$T_TMP/rt.msg")"
	fi
	whole "$w" "rate" && t_ok "rate: xfs_repair -n, our checker clean, manifest identical"
}

json() {
	local w=$T_TMP/js
	cp --sparse=always "$orig" "$w"
	rm -f "$T_TMP"/js.undo*
	"$bin" run --json --undo "$T_TMP/js.undo" "$w" > "$T_TMP/js.json" 2>"$T_TMP/js.err" ||
		{ t_fail "json: run --json failed: $(head -n 2 "$T_TMP/js.err")"; return; }
	"$bin" report --json "$w" > "$T_TMP/js.rep.json"
	if python3 - "$T_TMP/js.json" "$T_TMP/orig.rep.json" "$T_TMP/js.rep.json" <<'PY'
import json, sys
r, b, a = (json.load(open(p)) for p in sys.argv[1:4])
for k, rep in (("before", b), ("after", a)):
    f = r[k]
    assert f["frag_factor_pct"] == rep["fragmentation"]["factor_pct"], k
    assert f["extents"] == rep["fragmentation"]["actual"], k
    assert f["free_extents"] == rep["free_space"]["extents"], k
    assert [g["longest_free"] for g in f["ags"]] == [g["longest_free"] for g in rep["ags"]], k
    assert "readback" in f
assert r["schema_version"] == 1 and r["complete"] and r["npasses"] == 1
assert r["before"]["frag_factor_pct"] > r["after"]["frag_factor_pct"]
PY
	then t_ok "json: run --json parses; before and after match report --json of the image before and after"
	else t_fail "json: run --json output wrong: $(head -c 300 "$T_TMP/js.json")"; fi
}

signal() {
	local w=$T_TMP/sg pid rc
	cp --sparse=always "$orig" "$w"
	rm -f "$T_TMP"/sg.undo*
	"$bin" run --passes --max-rate 2 --json --undo "$T_TMP/sg.undo" "$w" > "$T_TMP/sg.json" 2> "$T_TMP/sg.err" &
	pid=$!
	# once pass 1 writes (its undo file exists), the handler is in place
	for _ in $(seq 300); do [ -e "$T_TMP/sg.undo" ] && break; sleep 0.1; done
	sleep 0.5
	kill -INT $pid
	wait $pid
	rc=$?
	if [ $rc -eq 0 ] && [ "$(jget "$T_TMP/sg.json" 'd["stopped_by_signal"] == 2 and 1 <= d["npasses"] < 4 and d["left"]["moved_blocks"] > 0 and not d["complete"]')" = True ] &&
	   whole "$w" "signal"; then
		t_ok "signal: SIGINT stops the run after the pass under way ($(jget "$T_TMP/sg.json" 'd["npasses"]') passes), exit 0, the filesystem whole, what is left said"
	else
		t_fail "signal: exit $rc: $(head -c 300 "$T_TMP/sg.json") $(head -n 2 "$T_TMP/sg.err")"
	fi
}

refusal() {
	local w=$T_TMP/rf sum rc
	cp --sparse=always "$orig" "$w"
	sum=$(sha256sum < "$w")
	rm -f "$T_TMP"/rf.undo*
	: > "$T_TMP/rf.undo.2"
	"$bin" run --passes --undo "$T_TMP/rf.undo" "$w" > "$T_TMP/rf.out" 2>&1
	rc=$?
	if [ $rc -eq 4 ] && grep -q 'rf.undo.2 already exists' "$T_TMP/rf.out" && [ "$sum" = "$(sha256sum < "$w")" ] && [ ! -e "$T_TMP/rf.undo" ]; then
		t_ok "refusal: a stale second-pass undo file refuses the run, the image untouched"
	else
		t_fail "refusal: exit $rc: $(head -n 2 "$T_TMP/rf.out")"
	fi
}

fixtures() {
	local f a b np
	for f in ag16 bs1k rmap-nrext64; do
		a=$T_TMP/fx-full b=$T_TMP/fx-passes
		t_unpack "$here/fixtures/$f" "$a" || { t_fail "fixtures: cannot unpack $f"; continue; }
		cp --sparse=always "$a" "$b"
		rm -f "$T_TMP"/fx.*undo*
		if ! "$bin" run --renumber none --undo "$T_TMP/fx.full.undo" "$a" > /dev/null 2>&1 ||
		   ! "$bin" run --passes --json --undo "$T_TMP/fx.undo" "$b" > "$T_TMP/fx.json" 2>&1; then
			t_fail "fixtures: $f: a run failed"; continue
		fi
		np=$(jget "$T_TMP/fx.json" 'd["npasses"]')
		if xfs_repair -n "$b" > /dev/null 2>&1 && cmp -s "$a" "$b" && [ "$np" -ge 2 ]; then
			t_ok "fixtures: $f: $np passes, xfs_repair -n clean, the image block for block the full run's"
		else
			t_fail "fixtures: $f: $np passes; repair or the comparison with the full run failed"
		fi
		rm -f "$a" "$b"
	done
}

# Passes keep inode numbers: a renumbering of the whole filesystem is
# refused with them (usage error, nothing written), and --renumber auto
# acts as none (the maxtime case's final figures equal a full run's
# with --renumber none).
renumber() {
	local w=$T_TMP/rn rc
	cp --sparse=always "$orig" "$w"
	for o in "--renumber all" "--inode32"; do
		# shellcheck disable=SC2086
		"$bin" run --passes $o --undo "$T_TMP/rn.undo" "$w" > "$T_TMP/rn.out" 2>&1
		rc=$?
		if [ $rc -eq 2 ] && [ ! -e "$T_TMP/rn.undo" ] &&
		   grep -q "not with --passes" "$T_TMP/rn.out" && cmp -s "$orig" "$w"; then
			t_ok "renumber: run --passes $o refused (exit 2), nothing written"
		else
			t_fail "renumber: run --passes $o: exit $rc: $(head -n 2 "$T_TMP/rn.out")"
		fi
	done
	if "$bin" plan --ag 0 --renumber all "$w" > "$T_TMP/rn.out" 2>&1; then
		t_fail "renumber: plan --ag 0 --renumber all accepted"
	elif grep -q "renumber the whole filesystem" "$T_TMP/rn.out"; then
		t_ok "renumber: plan --ag 0 --renumber all refused with the reason"
	else
		t_fail "renumber: plan --ag 0 --renumber all: $(head -n 2 "$T_TMP/rn.out")"
	fi
	rm -f "$w"
}

for c in maxtime passes interrupt ag path minext rate json signal refusal renumber fixtures; do
	t_case $c && $c
done
t_summary passes
