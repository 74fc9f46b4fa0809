#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Undo of a run in passes: its undo files (FILE, FILE.2, ...) are undone
# all or nothing.  On the aged fixture (4 passes), run --passes makes the
# chain; then:
#   damaged   a file cut to half in the middle of the chain: refused,
#             nothing written (the image's digest), the message names the
#             file and what is wrong, and offers undo --to-pass for the
#             intact later passes, which leaves the filesystem whole
#             (xfs_repair -n) and as those files say that pass left it;
#             the last file cut to its header, or deleted: refused;
#             a file that is a header alone, after a run that finished:
#             refused (no false "as it was")
#   killed    undo killed (SIGKILL after N image writes) in the middle of
#             the chain: NEEDSREPAIR set, and the next undo finishes it:
#             every block in use identical (debug-compare), xfs_repair -n
#             clean; undo again after that writes nothing
#   interrupted  the last pass crashed: undo --to-pass undoes it alone
#             and removes its file; undo then restores the rest
#   check     undo --check names every pass and what undo would do
#   campaign  a sample of tests/powercut/chaincamp.py (make check-long
#             runs hundreds: tests/long-undochain.sh): each file damaged
#             each way, undos killed and cut by power at random points,
#             run --passes cut by power; each restored or refused with
#             nothing written, each killed or cut undo finished
# Usage: t-undochain.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
t_tmpdir
T=$T_TMP

command -v xfs_repair >/dev/null 2>&1 ||
	{ t_fail "xfs_repair is not installed: it is the judge here"; t_summary; exit 1; }
shim=$(t_built powercut/pctrace.so)
if [ ! -f "$shim" ]; then
	shim=$T/pctrace.so
	cc -std=c11 -Wall -Wextra -Werror -fPIC -shared -o "$shim" \
		"$here/powercut/pctrace.c" -ldl -lpthread ||
		{ t_fail "cannot build the pctrace layer"; t_summary; exit 1; }
fi
[ -n "${XFSDEFRAG_ASAN:-}" ] &&
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

t_unpack "$here/fixtures/aged" "$T/f0" || { t_fail "cannot unpack aged"; t_summary; exit 1; }
mkdir -p "$T/a"
cp --sparse=always "$T/f0" "$T/f1"
if ! "$bin" run --passes --undo "$T/a/u" "$T/f1" > "$T/run.out" 2>&1 ||
   [ ! -f "$T/a/u.3" ]; then
	t_fail "run --passes: $(tail -n 2 "$T/run.out")"
	t_summary; exit 1
fi
n=$(ls "$T/a" | grep -c '^u')

# fresh DIR: the chain and the image as the run left them, in DIR
fresh() {
	rm -rf "$1"
	mkdir -p "$1"
	cp "$T"/a/u* "$1/"
	cp --sparse=always "$T/f1" "$1/img"
}
# restored DIR WHAT: every block in use as before the run, repair clean
restored() {
	if ! "$tbin" debug-compare "$T/f0" "$1/img" > "$1/cmp" 2>&1; then
		t_fail "$2: not restored: $(head -n 2 "$1/cmp")"; return 1
	fi
	if ! xfs_repair -n "$1/img" > /dev/null 2>&1; then
		t_fail "$2: xfs_repair -n fails"; return 1
	fi
	return 0
}
needsrepair() { "$bin" info "$1" 2>/dev/null | grep -q needsrepair; }

if t_case damaged; then
	d=$T/d
	fresh "$d"
	truncate -s $(($(stat -c %s "$d/u.2") / 2)) "$d/u.2"
	before=$(t_imgsum "$d/img")
	"$bin" undo "$d/u" "$d/img" > "$d/out" 2>&1
	rc=$?
	if [ $rc -eq 3 ] && [ "$(t_imgsum "$d/img")" = "$before" ] &&
	   grep -q "undo file $d/u.2 is incomplete" "$d/out" &&
	   grep -q "nothing was written" "$d/out" &&
	   grep -q "passes 3 to $n can still be undone.*--to-pass 2" "$d/out"; then
		t_ok "damaged: u.2 cut to half: refused (exit 3), nothing written, u.2 named, --to-pass 2 offered"
	else
		t_fail "damaged: u.2 cut to half: exit $rc: $(tr '\n' ' ' < "$d/out")"
	fi
	if "$bin" undo --to-pass 2 "$d/u" "$d/img" > "$d/out2" 2>&1 &&
	   ! needsrepair "$d/img" && xfs_repair -n "$d/img" > /dev/null 2>&1 &&
	   [ ! -e "$d/u.3" ] && [ ! -e "$d/u.$n" ]; then
		t_ok "damaged: undo --to-pass 2 undoes passes 3 to $n: xfs_repair -n clean, their files removed"
	else
		t_fail "damaged: undo --to-pass 2: $(tr '\n' ' ' < "$d/out2")"
	fi
	# as pass 2 left it: the same as --to-pass 2 on an intact chain
	fresh "$T/ref"
	"$bin" undo --to-pass 2 "$T/ref/u" "$T/ref/img" > /dev/null 2>&1
	if "$tbin" debug-compare "$T/ref/img" "$d/img" > /dev/null 2>&1; then
		t_ok "damaged: the result is what --to-pass 2 leaves from the intact chain"
	else
		t_fail "damaged: --to-pass 2 from the damaged chain differs from the intact chain's"
	fi
	# the last file cut to its header, or gone: nothing can be undone
	for how in header delete; do
		fresh "$d"
		if [ $how = header ]; then truncate -s 4096 "$d/u.$n"; else rm "$d/u.$n"; fi
		before=$(t_imgsum "$d/img")
		"$bin" undo "$d/u" "$d/img" > "$d/out" 2>&1
		rc=$?
		if [ $rc -eq 3 ] && [ "$(t_imgsum "$d/img")" = "$before" ] &&
		   grep -q "u.$n" "$d/out" && ! grep -q -- "--to-pass" "$d/out"; then
			t_ok "damaged: the last file ($how): refused, nothing written, nothing offered"
		else
			t_fail "damaged: the last file ($how): exit $rc: $(tr '\n' ' ' < "$d/out")"
		fi
	done
	# a run in one pass whose file is cut to its header: no false success
	cp --sparse=always "$T/f0" "$d/one"
	rm -f "$d/one.u"
	"$bin" run --undo "$d/one.u" "$d/one" > /dev/null 2>&1
	truncate -s 4096 "$d/one.u"
	before=$(t_imgsum "$d/one")
	"$bin" undo "$d/one.u" "$d/one" > "$d/out" 2>&1
	rc=$?
	if [ $rc -eq 3 ] && [ "$(t_imgsum "$d/one")" = "$before" ] &&
	   grep -q "holds no record" "$d/out" && ! grep -q "as it was before" "$d/out"; then
		t_ok "damaged: a single undo file cut to its header: refused (exit 3), no claim of success"
	else
		t_fail "damaged: header-only file: exit $rc: $(tr '\n' ' ' < "$d/out")"
	fi
fi

if t_case killed; then
	d=$T/k
	fresh "$d"
	# the image writes of the whole undo, then a kill half way
	LD_PRELOAD=$shim PCTRACE_OUT=$T/trace PCTRACE_WATCH=$d/img \
		"$bin" undo "$d/u" "$d/img" > /dev/null 2>&1
	nw=$(python3 -c "import sys; sys.path.insert(0, '$here/powercut'); import crashimg; print(sum(e.kind == 'W' for e in crashimg.parse('$T/trace')))")
	fresh "$d"
	# (in a subshell that outlives the kill: no "Killed" from this shell)
	(LD_PRELOAD=$shim PCTRACE_WATCH=$d/img PCTRACE_KILL=$((nw / 2)) \
		"$bin" undo "$d/u" "$d/img"; exit $?) > /dev/null 2>&1
	rc=$?
	if [ $rc -eq 137 ] && needsrepair "$d/img"; then
		t_ok "killed: undo killed after $((nw / 2)) of its $nw image writes: NEEDSREPAIR set"
	else
		t_fail "killed: exit $rc (not 137), or NEEDSREPAIR clear after the kill"
	fi
	if "$bin" undo "$d/u" "$d/img" > "$d/out" 2>&1 &&
	   grep -q "an interrupted undo is finished" "$d/out" &&
	   restored "$d" "killed: the next undo"; then
		t_ok "killed: the next undo finishes it: every block in use identical, xfs_repair -n clean"
	else
		t_fail "killed: the next undo: $(tr '\n' ' ' < "$d/out")"
	fi
	before=$(t_imgsum "$d/img")
	if "$bin" undo "$d/u" "$d/img" > "$d/out" 2>&1 &&
	   grep -q "^nothing to undo" "$d/out" && [ "$(t_imgsum "$d/img")" = "$before" ]; then
		t_ok "killed: undo again: nothing to undo, nothing written"
	else
		t_fail "killed: undo again: $(tr '\n' ' ' < "$d/out")"
	fi
fi

if t_case interrupted; then
	# the last pass crashed: --to-pass undoes just it, then the rest
	d=$T/i
	rm -rf "$d"
	mkdir -p "$d"
	cp --sparse=always "$T/f0" "$d/img"
	"$tbin" --fault-pass "$n" --fault-after 30 run --passes --undo "$d/u" \
		"$d/img" > "$d/run.out" 2>&1
	rc=$?
	if [ $rc -eq 75 ] && [ -f "$d/u.$n" ] && needsrepair "$d/img" &&
	   "$bin" undo --to-pass $((n - 1)) "$d/u" "$d/img" > "$d/out" 2>&1 &&
	   [ ! -e "$d/u.$n" ] && ! needsrepair "$d/img" &&
	   xfs_repair -n "$d/img" > /dev/null 2>&1; then
		t_ok "interrupted: pass $n crashed; undo --to-pass $((n - 1)) undoes it alone, removes its file, the filesystem whole"
	else
		t_fail "interrupted: run exit $rc; $(tr '\n' ' ' < "$d/out" 2>/dev/null)"
	fi
	if "$bin" undo "$d/u" "$d/img" > "$d/out" 2>&1 &&
	   [ "$(grep -c '^pass [0-9]*: restored' "$d/out")" = $((n - 1)) ] &&
	   restored "$d" "interrupted: the rest"; then
		t_ok "interrupted: then undo restores passes $((n - 1)) to 1: every block in use identical"
	else
		t_fail "interrupted: then undo: $(tr '\n' ' ' < "$d/out")"
	fi
fi

if t_case check; then
	d=$T/c
	fresh "$d"
	before=$(t_imgsum "$d/img")
	"$bin" undo --check "$d/u" "$d/img" > "$d/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ "$(grep -c '^pass [0-9]*: *complete.*to undo$' "$d/out")" = "$n" ] &&
	   grep -q "undo would restore passes $n to 1" "$d/out" &&
	   [ "$(t_imgsum "$d/img")" = "$before" ]; then
		t_ok "check: undo --check names the $n passes and what undo would do, writes nothing"
	else
		t_fail "check: exit $rc: $(tr '\n' ' ' < "$d/out")"
	fi
fi

if t_case campaign; then
	# a random half of the damages (all of them: make check-long); the
	# sanitizer build is slower: fewer cases, the same paths
	per=6 dper=24
	[ -n "${XFSDEFRAG_ASAN:-}" ] && per=2 dper=6
	mkdir -p "$T/camp"
	if python3 "$here/powercut/chaincamp.py" --bin "$bin" --test-bin "$tbin" --shim "$shim" \
		--tmp "$T/camp" --fixtures aged --per $per --damage-per $dper \
		--repair-every 3 --seed "${UNDOCHAIN_SEED:-$$}" \
		> "$T/camp.out" 2>&1; then
		t_ok "campaign sample: $(tail -n 1 "$T/camp.out")"
	else
		t_fail "campaign sample: $(grep -c '^FAIL' "$T/camp.out") failures"
		grep -v '^ ' "$T/camp.out" | sed 's/^/    /'
	fi
fi

t_summary
