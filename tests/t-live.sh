#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Fresh filesystems nobody tuned the code for: mkfs.xfs with varied
# options, a seeded random workload (tests/live_workload.py) through a
# loop mount, then on the cleanly unmounted image:
#   bmap -v, -vp and -av of every path equal xfs_bmap on the mounted
#   filesystem; report's frag and freesp lines equal xfs_db's; run leaves
#   a filesystem xfs_repair -n accepts with an identical content manifest,
#   whose tree the kernel's readdir walk reads front to back in each AG,
#   with the read-back figures the plan predicted; a plan on the result
#   moves nothing and a second run writes nothing, after the default run
#   and after one other order and renumbering mode per filesystem (all
#   of them, and in passes, in make check-long).
# Needs root and loop devices; skips loudly without them (fails when
# XFSDEFRAG_REQUIRE_MOUNT=1, as CI sets).  Usage: t-live.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
t_tmpdir
MNT=$T_TMP/mnt
mkdir -p "$MNT"
T_CLEANUP_HOOK='mountpoint -q "$MNT" && t_umount "$MNT"'

if ! t_can_mount; then
	if [ -n "${XFSDEFRAG_REQUIRE_MOUNT:-}" ]; then
		t_fail "live tests need root and loop devices (XFSDEFRAG_REQUIRE_MOUNT is set)"
	else
		t_skip "live tests need root and loop devices: not run here"
	fi
	t_summary live
	exit
fi

# seed | size | mkfs options [| workload scale]
CONFIGS=(
	"11|512m|"
	"22|400m|-b size=1024 -m rmapbt=1 -i nrext64=1"
	"33|900m|-d agcount=8 -i size=1024 -n size=16384"
	"114|330m|-d agcount=2 -b size=2048 -m rmapbt=1|4"
)
[ -n "${XFSDEFRAG_ASAN:-}" ] && CONFIGS=("${CONFIGS[0]}")
# more, for a longer soak: XFSDEFRAG_LIVE_CONFIGS="seed|size|opts[|scale];..."
if [ -n "${XFSDEFRAG_LIVE_CONFIGS:-}" ]; then
	IFS=';' read -r -a CONFIGS <<< "$XFSDEFRAG_LIVE_CONFIGS"
fi

# xfs_bmap OPTS for every path, many per xfs_io process (xfs_bmap is a
# script around "xfs_io -r -p xfs_bmap -c 'bmap OPTS' PATH").  Prints
# each path's output in order.
record() {	# OPTS PATHFILE OUT
	local opts=$1
	(cd "$MNT" && python3 - "$opts" "$2" <<'PY'
import subprocess, sys
opts, pathfile = sys.argv[1], sys.argv[2]
paths = open(pathfile, "rb").read().split(b"\0")[:-1]
out = sys.stdout.buffer
for i in range(0, len(paths), 400):
    cmd = ["xfs_io", "-r", "-p", "xfs_bmap"]
    for p in paths[i:i + 400]:
        cmd += ["-c", b"open -r " + p, "-c", "bmap " + opts, "-c", "close"]
    out.write(subprocess.run(cmd, capture_output=True).stdout)
PY
	) > "$3"
}

# The plain output, except that where xfs_bmap stops early (it guesses
# 32 rows) the -n output stands: ours always prints the whole map.
expected() {	# OPTS PATHFILE OUT
	record "$1" "$2" "$T_TMP/plain"
	record "$1 -n 20000" "$2" "$T_TMP/full"
	python3 - "$T_TMP/plain" "$T_TMP/full" "$2" > "$3" <<'PY'
import sys
plain, full, pathfile = (open(f, "rb").read() for f in sys.argv[1:4])
paths = pathfile.split(b"\0")[:-1]
import re
# rows are "%4d: [" (no leading blank from row 1000 on), "\tN: [", the
# column header " EXT:", the legend; anything else starts a file's block
row = re.compile(rb"^( *\d+: \[|\t| EXT: | FLAG Values:|    0)")
def blocks(data):
    out, cur = [], None
    for line in data.split(b"\n")[:-1]:
        if not row.match(line):
            cur = [line]
            out.append(cur)
        else:
            cur.append(line)
    return out
bp, bf = blocks(plain), blocks(full)
assert len(bp) == len(bf) == len(paths), (len(bp), len(bf), len(paths))
for p, f in zip(bp, bf):
    chosen = p if p[0].endswith(b": no extents") else f
    sys.stdout.buffer.write(b"".join(l + b"\n" for l in chosen))
PY
}

# The order:renumbering[:passes] modes checked after the default one:
# one per filesystem (by its seed), every one in make check-long.
MODES="walk:none name:all inode:auto walk:auto:passes name:none
inode:none:passes walk:all name:auto inode:none name:none:passes
walk:none:passes"
modes() {
	local seed=$1
	# shellcheck disable=SC2086
	set -- $MODES
	if [ -n "${XFSDEFRAG_TEST_LONG:-}" ]; then
		echo "$@"
	else
		shift $((seed % 7))
		echo "$1"
	fi
}

# mode_args MODE [plan]: the options of run (or, with plan, of the plan
# that must find nothing after it: passes keep inode numbers)
mode_args() {
	local o r p
	IFS=: read -r o r p <<< "$1"
	if [ "${2:-}" = plan ]; then
		[ -n "$p" ] && r=none
		echo "$o $r"
	else
		echo "--order $o --renumber $r${p:+ --passes}"
	fi
}

# again NAME IMAGE MODE: after a run in MODE, the plan with the same
# options moves nothing and a second run in MODE writes nothing
again() {
	local name=$1 img=$2 h
	# shellcheck disable=SC2046
	set -- "$1" "$2" $(mode_args "$3" plan) "$3"
	"$bin" plan --json --no-probe --order "$3" --renumber "$4" "$img" \
		> "$T_TMP/again.json" 2>/dev/null
	if [ "$(t_json "$T_TMP/again.json" 'd["moved_blocks"], d["inodes_renumbered"], d["forks_rewritten"]')" = "0 0 0" ]; then
		t_ok "$name: the plan on the result moves nothing"
	else
		t_fail "$name: the plan on the result: $(t_json "$T_TMP/again.json" 'd["moved_blocks"], d["inodes_renumbered"], d["forks_rewritten"]')"
	fi
	h=$(t_imgsum "$img")
	rm -f "$T_TMP"/again.undo*
	# shellcheck disable=SC2046
	"$bin" run $(mode_args "$5") --undo "$T_TMP/again.undo" "$img" \
		> "$T_TMP/again.out" 2>&1
	if [ "$h" = "$(t_imgsum "$img")" ]; then
		t_ok "$name: a second run writes nothing"
	else
		t_fail "$name: a second run changed the image: $(head -n 1 "$T_TMP/again.out")"
	fi
}

live_one() {
	local seed=$1 size=$2 opts=$3 scale=${4:-1} img=$T_TMP/live.img
	local name="live seed $1 ($3)"
	rm -f "$img"
	truncate -s "$size" "$img"
	# shellcheck disable=SC2086
	mkfs.xfs -q -f $opts "$img" || { t_fail "$name: mkfs"; return; }
	mount -o loop "$img" "$MNT" || { t_fail "$name: mount"; return; }
	python3 "$here/live_workload.py" "$MNT" "$seed" "$scale" > "$T_TMP/wl.out" 2>&1
	local wrc=$?
	t_umount "$MNT"
	[ $wrc -eq 0 ] || { t_fail "$name: workload: $(tail -n 1 "$T_TMP/wl.out")"; return; }

	mount -o loop,ro "$img" "$MNT" || { t_fail "$name: ro mount"; return; }
	(cd "$MNT" && find . -mindepth 1 \( -type f -o -type d -o -xtype f -o -xtype d \) \
		-printf "%P\\0" 2>/dev/null | LC_ALL=C sort -z) > "$T_TMP/paths"
	printf '.\0' | cat - "$T_TMP/paths" > "$T_TMP/paths2"; mv "$T_TMP/paths2" "$T_TMP/paths"
	expected "-v" "$T_TMP/paths" "$T_TMP/exp.v"
	expected "-v -p" "$T_TMP/paths" "$T_TMP/exp.vp"
	expected "-a -v" "$T_TMP/paths" "$T_TMP/exp.av"
	python3 "$here/manifest.py" "$MNT" > "$T_TMP/man.orig"
	t_umount "$MNT"
	xfs_db -r -c frag "$img" > "$T_TMP/frag.exp"
	xfs_db -r -c "freesp -s" "$img" > "$T_TMP/freesp.exp"

	local set o n
	n=$(tr -cd '\0' < "$T_TMP/paths" | wc -c)
	for set in "v:-v" "vp:-vp" "av:-av"; do
		o=${set#*:}
		(cd "$MNT" && xargs -0 -r "$bin" bmap $o "$img" < "$T_TMP/paths") \
			> "$T_TMP/got" 2>/dev/null
		# our header lines name the path as given; so did xfs_io
		if cmp -s "$T_TMP/exp.${set%%:*}" "$T_TMP/got"; then
			t_ok "$name: bmap $o of $n paths equals xfs_bmap"
		else
			t_fail "$name: bmap $o differs from xfs_bmap"
			diff "$T_TMP/exp.${set%%:*}" "$T_TMP/got" | head -n 8 | sed 's/^/    /'
		fi
	done
	"$bin" report "$img" > "$T_TMP/rep" 2>/dev/null
	if sed -n '/^== Frag/,/^Files on/p' "$T_TMP/rep" | sed 1d | cmp -s - "$T_TMP/frag.exp" &&
	   sed -n '/^== Free space/,/^average/p' "$T_TMP/rep" | sed 1d | cmp -s - "$T_TMP/freesp.exp"; then
		t_ok "$name: report's frag and freesp equal xfs_db's"
	else
		t_fail "$name: report's frag or freesp differ from xfs_db's"
	fi
	"$bin" plan --json "$img" > "$T_TMP/plan.json" 2>/dev/null ||
		{ t_fail "$name: plan failed"; return; }
	cp --sparse=always "$img" "$T_TMP/live.orig"
	rm -f "$T_TMP/live.undo" "$T_TMP/live.undo.map"
	if ! "$bin" run --undo "$T_TMP/live.undo" "$img" > "$T_TMP/run.out" 2>&1; then
		t_fail "$name: run failed: $(head -n 2 "$T_TMP/run.out")"
		return
	fi
	if xfs_repair -n "$img" > "$T_TMP/repair" 2>&1; then
		t_ok "$name: xfs_repair -n accepts the relocated filesystem"
	else
		t_fail "$name: xfs_repair -n rejects the relocated filesystem"
		grep -v '^Phase\|^  *-' "$T_TMP/repair" | head -n 5 | sed 's/^/    /'
	fi
	mount -o loop,ro "$img" "$MNT" && python3 "$here/manifest.py" "$MNT" > "$T_TMP/man.run"
	t_umount "$MNT"
	if cmp -s "$T_TMP/man.orig" "$T_TMP/man.run"; then
		t_ok "$name: manifest identical after run"
	else
		t_fail "$name: manifest differs after run"
		diff "$T_TMP/man.orig" "$T_TMP/man.run" | head -n 6 | sed 's/^/    /'
	fi
	t_check_walk "$bin" "$name" "$img" "$T_TMP/plan.json"
	again "$name: walk auto" "$img" walk:auto
	local m
	for m in $(modes "$seed"); do
		cp --sparse=always "$T_TMP/live.orig" "$img"
		rm -f "$T_TMP"/live.undo*
		# shellcheck disable=SC2046
		if "$bin" run $(mode_args "$m") --undo "$T_TMP/live.undo" "$img" \
		   > "$T_TMP/run.out" 2>&1; then
			again "$name: ${m//:/ }" "$img" "$m"
		else
			t_fail "$name: run ${m//:/ } failed: $(head -n 2 "$T_TMP/run.out")"
		fi
	done
	rm -f "$T_TMP/live.orig"
}

for c in "${CONFIGS[@]}"; do
	IFS='|' read -r seed size opts scale <<< "$c"
	live_one "$seed" "$size" "$opts" "$scale"
done
t_summary live
