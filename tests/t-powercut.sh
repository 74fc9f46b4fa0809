#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The power-cut model, a sample (the 500+ image campaign is
# tests/powercut-long.sh, in make check-long): runs and undos of fixture
# images recorded by the pctrace layer (every write of the image and of
# the undo file, with their fsync barriers), crash images made from the
# records (everything up to each file's last completed fsync plus a
# random subset, in random order, of the writes after it), each
# recovered by `undo` (or nothing where the run had not started) and
# checked: every block in use before the run identical (debug-compare),
# the file as long as before (a shrink cuts it),
# xfs_repair -n clean, and for a few the manifest through a read-only
# mount (where loop mounts work: t_need_mount) equal to the original's.  See
# tests/powercut/campaign.py.  Usage: t-powercut.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
t_tmpdir

command -v xfs_repair >/dev/null 2>&1 || { t_skip "xfs_repair not installed"; t_summary t-powercut; exit; }
shim=$(t_built powercut/pctrace.so)
if [ ! -f "$shim" ]; then
	shim=$T_TMP/pctrace.so
	cc -std=c11 -Wall -Wextra -Werror -fPIC -shared -o "$shim" \
		"$here/powercut/pctrace.c" -ldl -lpthread ||
		{ t_fail "cannot build the pctrace layer"; t_summary t-powercut; exit; }
fi
# the sanitizer build is slower: fewer images, same code paths
per=3 fixtures=bs1k,sect4k-noreflink
if [ -n "${XFSDEFRAG_ASAN:-}" ]; then
	per=1 fixtures=bs1k
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
fi
mkdir -p "$T_TMP/pc"
every=5 every_renum=1
t_need_mount "power cuts: content manifests" || every=0 every_renum=0
# campaign WHAT ARGS...: one sample of tests/powercut/campaign.py
campaign() {
	local what=$1
	shift
	if python3 "$here/powercut/campaign.py" --bin "$bin" --test-bin "$tbin" \
		--shim "$shim" --tmp "$T_TMP/pc" "$@" > "$T_TMP/out" 2>&1; then
		t_ok "$(tail -n 1 "$T_TMP/out")${what:+ ($what)}"
	else
		t_fail "power-cut sample${what:+, $what}: $(grep -c '^FAIL' "$T_TMP/out") failures"
		grep -v '^ ' "$T_TMP/out" | sed 's/^/    /'
	fi
}
campaign "" --fixtures "$fixtures" --per "$per" \
	--seed "${POWERCUT_SEED:-$$}" --manifest-every $every
# renumbering: cuts only inside the writes that renumber inodes, each
# crash image also compared by manifest (when root)
campaign renumbering --fixtures bs1k --scenarios renum --per "$per" \
	--seed "${POWERCUT_SEED:-$$}" --manifest-every $every_renum
# shrinking: half the cuts inside the writes that rewrite the geometry,
# the file's size checked after recovery; and undo of a finished shrink
campaign shrinking --fixtures aged --scenarios shrink,shrink-undo \
	--per "$per" --seed "${POWERCUT_SEED:-$$}" --manifest-every $every
# undo restoring chains of references (a block's original at a copy
# that was itself a block the run overwrote, whose own original is at a
# third): the first write must be durable before the second.  This
# fixture and seed cut between the two 2 times in 60 without the flush
# (the sanitizer build: the same paths, fewer images).
chain_per=60
[ -n "${XFSDEFRAG_ASAN:-}" ] && chain_per=8
campaign "chains of references" --fixtures isize1k-dir8k \
	--scenarios undo-reuse --per $chain_per --seed 12 --manifest-every 0
t_summary t-powercut
