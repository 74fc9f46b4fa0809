#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Knowing when to stop:
#  - a plan is a fixed point: on every fixture, in each order, each
#    renumbering mode and in passes, after a run the plan with the same
#    options moves nothing (no block, inode or fork) and a second run
#    leaves the image's bytes as they were;
#  - the verdict: report and plan say the run is worth it on the
#    fixture and not on the run's result, the JSON agrees with the text;
#  - a write budget: plan --max-write at a tenth of what the whole plan
#    copies copies no more, keeps inode numbers, gains more per byte
#    (both figures as shares of the whole plan's) than the whole plan,
#    and says what the rest would reach (the whole plan's figures);
#  - run follows the verdict: on a run's result touched a little through
#    a mount (a file appended to, small files added), the plan moves
#    something but the verdict is no, and run writes nothing (the image's
#    bytes, no undo file, no map), says so and exits 0; --force runs it;
#    run --max-write copies no more than the budget and keeps inode
#    numbers (no map);
#  - reflinked copies on a live filesystem (mkfs, loop mount): a copy
#    appended to, and the copy of a source truncated afterwards, end
#    contiguous, and a second run writes nothing.
# make check runs two modes per fixture (each fixture other ones, so
# every mode is covered), make check-long all of them.
# Usage: t-fixpoint.sh XFSDEFRAG [FIXTURE...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
shift
t_tmpdir
MNT=$T_TMP/mnt
mkdir -p "$MNT"
T_CLEANUP_HOOK='mountpoint -q "$MNT" && t_umount "$MNT"'
t_fixtures "$@"

MODES=()
for o in walk name inode; do
	for r in auto all none; do MODES+=("$o $r"); done
	MODES+=("$o auto passes" "$o none passes")
done

jq1() { t_json "$1" "$2"; }

# second FIXTURE IMG ORDER RENUMBER [passes]: run, then plan and run again
second() {
	local f=$1 img=$2 o=$3 r=$4 p=${5:-} w=$T_TMP/fp.img name extra= pr h1 h2
	name="$f: $o $r${p:+ passes}"
	[ -n "$p" ] && extra=--passes
	pr=$r
	[ -n "$p" ] && pr=none	# passes keep inode numbers
	cp --sparse=always "$img" "$w"
	rm -f "$T_TMP"/fp.undo*
	# shellcheck disable=SC2086
	if ! "$bin" run $extra --order "$o" --renumber "$r" --undo "$T_TMP/fp.undo" \
	     "$w" > "$T_TMP/fp.out" 2>&1; then
		t_fail "$name: the first run failed: $(head -n 2 "$T_TMP/fp.out")"
		return
	fi
	h1=$(t_imgsum "$w")
	"$bin" plan --json --no-probe --order "$o" --renumber "$pr" "$w" > "$T_TMP/fp.json"
	if [ "$(jq1 "$T_TMP/fp.json" 'd["moved_blocks"], d["inodes_renumbered"], d["forks_rewritten"], d["inode_chunks_allocated"], d["verdict"]["worth_running"]')" = "0 0 0 0 False" ]; then
		t_ok "$name: the plan on the result moves nothing, the verdict says no"
	else
		t_fail "$name: the plan on the result: $(jq1 "$T_TMP/fp.json" 'd["moved_blocks"], d["inodes_renumbered"], d["forks_rewritten"]')"
	fi
	# shellcheck disable=SC2086
	"$bin" run $extra --order "$o" --renumber "$r" --undo "$T_TMP/fp.undo2" \
		"$w" > "$T_TMP/fp.out2" 2>&1
	h2=$(t_imgsum "$w")
	if [ "$h1" = "$h2" ] && grep -q "nothing to move" "$T_TMP/fp.out2"; then
		t_ok "$name: a second run writes nothing"
	else
		t_fail "$name: a second run changed the image: $(head -n 1 "$T_TMP/fp.out2")"
	fi
	rm -f "$w" "$T_TMP"/fp.undo*
}

# verdict FIXTURE IMG: yes on the fixture, no after a run; text and JSON
verdict() {
	local f=$1 img=$2 w=$T_TMP/vd.img
	"$bin" report --json "$img" > "$T_TMP/vd.json"
	"$bin" report "$img" > "$T_TMP/vd.txt"
	if [ "$(jq1 "$T_TMP/vd.json" 'd["verdict"]["worth_running"] and d["verdict"]["hdd_ms_after"] < d["verdict"]["hdd_ms_now"] and d["verdict"]["write_bytes"] > 0 and d["verdict"]["seconds_estimate"] is not None')" = True ] &&
	   grep -q '^verdict: worth running: the modelled read-back goes from' "$T_TMP/vd.txt"; then
		t_ok "$f: verdict: worth running, with the gain, the bytes and a time"
	else
		t_fail "$f: verdict on the fixture: $(grep '^verdict' "$T_TMP/vd.txt")"
	fi
	# the report judges the plan run would make
	"$bin" plan --json --no-probe "$img" > "$T_TMP/vd.plan.json"
	if [ "$(jq1 "$T_TMP/vd.plan.json" 'd["verdict"]["write_bytes"], d["verdict"]["hdd_ms_after"]')" = \
	     "$(jq1 "$T_TMP/vd.json" 'd["verdict"]["write_bytes"], d["verdict"]["hdd_ms_after"]')" ]; then
		t_ok "$f: verdict: report's is the default plan's"
	else
		t_fail "$f: verdict: report and plan disagree"
	fi
	cp --sparse=always "$img" "$w"
	rm -f "$T_TMP"/vd.undo
	"$bin" run --undo "$T_TMP/vd.undo" "$w" > /dev/null 2>&1
	"$bin" report --json "$w" > "$T_TMP/vd2.json"
	"$bin" report "$w" > "$T_TMP/vd2.txt"
	if [ "$(jq1 "$T_TMP/vd2.json" 'd["verdict"]["worth_running"], d["verdict"]["write_bytes"]')" = "False 0" ] &&
	   grep -q '^verdict: not worth running' "$T_TMP/vd2.txt"; then
		t_ok "$f: verdict: not worth running on the run's result"
	else
		t_fail "$f: verdict after a run: $(grep '^verdict' "$T_TMP/vd2.txt")"
	fi
	rm -f "$w" "$T_TMP"/vd.undo
}

# budget FIXTURE IMG: plan --max-write at a tenth of the whole plan
budget() {
	local f=$1 img=$2 whole lim
	"$bin" plan --json --no-probe --renumber none "$img" > "$T_TMP/bw.json"
	whole=$(jq1 "$T_TMP/bw.json" 'd["verdict"]["write_bytes"]')
	lim=$((whole / 10))
	[ "$lim" -gt 0 ] || { t_fail "$f: budget: the whole plan copies nothing"; return; }
	"$bin" plan --json --no-probe --max-write "$lim" "$img" > "$T_TMP/bb.json"
	if msg=$(python3 - "$T_TMP/bw.json" "$T_TMP/bb.json" "$lim" <<'PY'
import json, sys
w, b = (json.load(open(f)) for f in sys.argv[1:3])
lim = int(sys.argv[3])
bu = b["budget"]
def gain(d):
    return (d["now"]["readback"]["hdd_ms"] - d["after"]["readback"]["hdd_ms"],
            d["now"]["readback"]["ssd_requests"] - d["after"]["readback"]["ssd_requests"])
wh, wr = gain(w)
bh, br = gain(b)
wb, bb = w["verdict"]["write_bytes"], b["verdict"]["write_bytes"]
ok = bu["cut"] and bb <= lim and bu["max_write_bytes"] == lim
ok = ok and b["inodes_renumbered"] == 0 and bu["whole_copied_bytes"] == wb
ok = ok and abs(bu["rest"]["hdd_ms_after"] - w["after"]["readback"]["hdd_ms"]) < 0.01
ok = ok and bu["rest"]["ssd_requests_after"] == w["after"]["readback"]["ssd_requests"]
# the two figures as shares of the whole plan's gain, per byte copied
score = lambda h, r, n: (h / wh + r / wr) / n
ok = ok and bb > 0 and score(bh, br, bb) > score(wh, wr, wb)
print("budget %d of %d bytes: %.0f ms, %d requests (whole: %.0f ms, %d)" % (bb, wb, bh, br, wh, wr))
sys.exit(0 if ok else 1)
PY
	); then
		t_ok "$f: budget: $msg: within a tenth, more gain per byte than the whole plan, the rest's figures the whole plan's"
	else
		t_fail "$f: budget: plan --max-write $lim: $msg"
	fi
}

k=0
WRITABLE=()	# the fixtures run writes
for f in "${FIXTURES[@]}"; do
	img=$T_TMP/$f.img
	t_unpack "$here/fixtures/$f" "$img" || { t_fail "$f: cannot unpack"; continue; }
	# what run refuses to write (v4, a realtime section...) has no fixed
	# point to reach: plan says why, and that is all
	"$bin" plan --json --no-probe "$img" > "$T_TMP/refusal.json" 2>&1
	why=$(jq1 "$T_TMP/refusal.json" 'd["refusal"] or ""')
	if [ -n "$why" ]; then
		"$bin" run --undo "$T_TMP/refused.undo" "$img" > /dev/null 2>&1
		[ $? -eq 4 ] && [ ! -e "$T_TMP/refused.undo" ] &&
			t_ok "$f: run refuses it (exit 4, no undo file): $why" ||
			t_fail "$f: plan names a refusal ($why) but run did not refuse"
		rm -f "$img" "$T_TMP"/refused.undo*
		continue
	fi
	WRITABLE+=("$f")
	n=${#MODES[@]}
	if [ -n "${XFSDEFRAG_TEST_LONG:-}" ]; then
		sel=$(seq 0 $((n - 1)))
	else
		sel="$(( (2 * k) % n )) $(( (2 * k + 1) % n ))"
	fi
	for i in $sel; do
		# shellcheck disable=SC2086
		second "$f" "$img" ${MODES[$i]}
	done
	[ $k -eq 0 ] && verdict "$f" "$img"
	[ $k -eq 0 ] && budget "$f" "$img"
	k=$((k + 1))
	rm -f "$img"
done

# reflinked copies whose unshared runs can follow the shared blocks
reflink() {
	local img=$T_TMP/rl.img h1
	if ! t_can_mount; then
		if [ -n "${XFSDEFRAG_REQUIRE_MOUNT:-}" ]; then
			t_fail "reflink: needs root and loop devices (XFSDEFRAG_REQUIRE_MOUNT is set)"
		else
			t_skip "reflink: needs root and loop devices"
		fi
		return
	fi
	truncate -s 400m "$img"
	mkfs.xfs -q -f "$img" && mount -o loop "$img" "$MNT" || { t_fail "reflink: mkfs or mount"; return; }
	mkdir "$MNT/d"
	for i in 0 1 2 3; do head -c 300000 /dev/urandom > "$MNT/d/a$i"; done
	head -c 1048576 /dev/urandom > "$MNT/d/b-src"
	sync
	for i in 0 1 2 3; do head -c 200000 /dev/urandom > "$MNT/d/c$i"; done
	cp --reflink=always "$MNT/d/b-src" "$MNT/d/m-copy" &&
	head -c 131072 /dev/urandom >> "$MNT/d/m-copy" &&
	head -c 1048576 /dev/urandom > "$MNT/d/n-src" && sync &&
	for i in 0 1 2 3; do head -c 200000 /dev/urandom > "$MNT/d/p$i"; done &&
	cp --reflink=always "$MNT/d/n-src" "$MNT/d/z-copy" &&
	truncate -s 524288 "$MNT/d/n-src" && sync || { t_umount "$MNT"; t_fail "reflink: workload"; return; }
	python3 "$here/manifest.py" "$MNT" > "$T_TMP/rl.man0"
	t_umount "$MNT"
	rm -f "$T_TMP"/rl.undo*
	"$bin" run --undo "$T_TMP/rl.undo" "$img" > "$T_TMP/rl.out" 2>&1 ||
		{ t_fail "reflink: run: $(head -n 2 "$T_TMP/rl.out")"; return; }
	mount -o loop,ro "$img" "$MNT" || { t_fail "reflink: mount after the run"; return; }
	python3 "$here/manifest.py" "$MNT" > "$T_TMP/rl.man1"
	# physically one run: each row starts where the one before ended
	for c in m-copy z-copy; do
		xfs_bmap -v "$MNT/d/$c" | awk 'NR > 2 { split($3, r, "[.][.]");
			if (NR > 3 && r[1] != end + 1) bad = 1; end = r[2] }
			END { exit bad }' &&
			t_ok "reflink: $c is one run on the disk" ||
			t_fail "reflink: $c is not contiguous: $(xfs_bmap -v "$MNT/d/$c" | tail -n +3 | tr -s ' ' | tr '\n' ';')"
	done
	t_umount "$MNT"
	cmp -s "$T_TMP/rl.man0" "$T_TMP/rl.man1" && t_ok "reflink: manifest identical" ||
		t_fail "reflink: manifest differs after the run"
	h1=$(t_imgsum "$img")
	"$bin" run --undo "$T_TMP/rl.undo2" "$img" > "$T_TMP/rl.out2" 2>&1
	[ "$h1" = "$(t_imgsum "$img")" ] && t_ok "reflink: a second run writes nothing" ||
		t_fail "reflink: a second run changed the image"
	rm -f "$img"
}
t_case reflink && reflink

# runworth FIXTURE: run obeys the verdict, --force overrides, --max-write
runworth() {
	local f=$1 img=$T_TMP/rw.img h0 h1 rc
	if ! t_can_mount; then
		if [ -n "${XFSDEFRAG_REQUIRE_MOUNT:-}" ]; then
			t_fail "run's verdict: needs root and loop devices (XFSDEFRAG_REQUIRE_MOUNT is set)"
		else
			t_skip "run's verdict: needs root and loop devices"
		fi
		return
	fi
	t_unpack "$here/fixtures/$f" "$img" || { t_fail "$f: cannot unpack"; return; }
	# --max-write on the fixture: within the budget, numbers kept
	"$bin" plan --json --no-probe --renumber none "$img" > "$T_TMP/rw.whole.json"
	lim=$(( $(jq1 "$T_TMP/rw.whole.json" 'd["verdict"]["write_bytes"]') / 10 ))
	cp --sparse=always "$img" "$T_TMP/rw.b.img"
	rm -f "$T_TMP"/rw.b.undo*
	"$bin" run --json --max-write "$lim" --undo "$T_TMP/rw.b.undo" "$T_TMP/rw.b.img" > "$T_TMP/rw.b.json" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ "$(jq1 "$T_TMP/rw.b.json" 'sum(p["copied_bytes"] for p in d["passes"]) <= '"$lim"' and d["written"] and sum(p["inodes_renumbered"] for p in d["passes"]) == 0')" = True ] &&
	   [ ! -e "$T_TMP/rw.b.undo.map" ] && "$bin" check "$T_TMP/rw.b.img" > /dev/null 2>&1; then
		t_ok "$f: run --max-write $lim: copied $(jq1 "$T_TMP/rw.b.json" 'sum(p["copied_bytes"] for p in d["passes"])') bytes, inode numbers kept, check clean"
	else
		t_fail "$f: run --max-write $lim: exit $rc, $(head -c 300 "$T_TMP/rw.b.json")"
	fi
	rm -f "$T_TMP"/rw.b.*
	# a run's result, touched a little
	rm -f "$T_TMP"/rw.undo*
	"$bin" run --undo "$T_TMP/rw.undo" "$img" > /dev/null 2>&1 || { t_fail "$f: run failed"; return; }
	rm -f "$T_TMP"/rw.undo*
	mount -o loop "$img" "$MNT" || { t_fail "run's verdict: mount"; return; }
	big=$(find "$MNT" -type f -size +100k | sort | head -n 1)
	for i in 1 2 3; do
		head -c 8192 /dev/urandom >> "$big" && sync &&
		head -c 4096 /dev/urandom > "$MNT/rw-new$i" && sync
	done
	t_umount "$MNT"
	"$bin" plan --json --no-probe "$img" > "$T_TMP/rw.plan.json"
	if [ "$(jq1 "$T_TMP/rw.plan.json" 'd["moved_blocks"] > 0 and not d["verdict"]["worth_running"]')" != True ]; then
		t_fail "$f: run's verdict: the touched image's plan is not a small one: $(jq1 "$T_TMP/rw.plan.json" 'd["moved_blocks"], d["verdict"]["why"]')"
		return
	fi
	h0=$(t_imgsum "$img")
	"$bin" run --undo "$T_TMP/rw.undo" "$img" > "$T_TMP/rw.out" 2>&1
	rc=$?
	h1=$(t_imgsum "$img")
	if [ $rc -eq 0 ] && [ "$h0" = "$h1" ] && [ ! -e "$T_TMP/rw.undo" ] && [ ! -e "$T_TMP/rw.undo.map" ] &&
	   grep -q '^nothing written: verdict: not worth running' "$T_TMP/rw.out" &&
	   grep -q -- '--force' "$T_TMP/rw.out"; then
		t_ok "$f: run on a plan not worth it: nothing written, no undo file or map, exit 0, --force named"
	else
		t_fail "$f: run on a plan not worth it: exit $rc, $(head -n 2 "$T_TMP/rw.out")"
	fi
	"$bin" run --json --undo "$T_TMP/rw.undo" "$img" > "$T_TMP/rw.json" 2>&1
	if [ "$(jq1 "$T_TMP/rw.json" 'd["written"], d["verdict"]["worth_running"], d["npasses"]')" = "False False 0" ] &&
	   [ "$h0" = "$(t_imgsum "$img")" ]; then
		t_ok "$f: run --json on it: written false, the verdict's no"
	else
		t_fail "$f: run --json on it: $(head -c 300 "$T_TMP/rw.json")"
	fi
	"$bin" run --force --undo "$T_TMP/rw.undo" "$img" > "$T_TMP/rw.fout" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ "$h0" != "$(t_imgsum "$img")" ] && [ -s "$T_TMP/rw.undo" ]; then
		t_ok "$f: run --force on it writes, with its undo file"
	else
		t_fail "$f: run --force: exit $rc, $(head -n 2 "$T_TMP/rw.fout")"
	fi
	rm -f "$img" "$T_TMP"/rw.*
}
if [ ${#WRITABLE[@]} -gt 0 ]; then
	t_case runworth && runworth "${WRITABLE[0]}"
fi
t_summary fixpoint
