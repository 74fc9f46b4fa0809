#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every file the tool creates or truncates (undo files and the members of
# a chain, the inode map, the HTML report) is refused when it names the
# image by any path (directly, a symlink, a hard link, the file behind a
# loop device) or another output of the same command: one line naming
# both, nothing written, no output left behind.  And the inode map: a run
# that renumbers always leaves one (UNDO.map by default, refused before
# writing when that file exists); passes and limited runs keep inode
# numbers, so they leave none.
# Usage: t-outpaths.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
t_tmpdir
T=$T_TMP
LOOP=
T_CLEANUP_HOOK='[ -n "$LOOP" ] && losetup -d "$LOOP"'

t_unpack "$here/fixtures/aged" "$T/orig.img" || { t_fail "cannot unpack aged"; t_summary; exit; }
img=$T/a.img
cp --sparse=always "$T/orig.img" "$img"
want=$(t_imgsum "$img")

# refused NAME STATUS REGEX CMD...: exits STATUS, says REGEX on stderr,
# the image keeps its bytes, and no undo file was left
refused() {
	local name=$1 st=$2 re=$3 rc
	shift 3
	rm -f "$T"/u "$T"/u.* "$T/err"
	"$@" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -ne "$st" ]; then
		t_fail "$name: exit $rc, not $st"; sed 's/^/    /' "$T/err"
	elif ! grep -qE "$re" "$T/err"; then
		t_fail "$name: stderr does not match '$re'"; sed 's/^/    /' "$T/err"
	elif [ "$(t_imgsum "$img")" != "$want" ]; then
		t_fail "$name: the image changed"
		cp --sparse=always "$T/orig.img" "$img"
	elif ls "$T"/u "$T"/u.* > /dev/null 2>&1; then
		t_fail "$name: an undo file was left: $(ls "$T"/u*)"
	else
		t_ok "$name: refused, $(head -n 1 "$T/err" | cut -c1-90)"
	fi
}

ln -s a.img "$T/link.img"
ln "$img" "$T/hard.img"
refused "run --map IMAGE" 4 "map file .*a.img: it is the image" \
	"$bin" run --undo "$T/u" --map "$img" "$img"
refused "run --map SYMLINK-TO-IMAGE" 4 "map file .*link.img: it is the image" \
	"$bin" run --undo "$T/u" --map "$T/link.img" "$img"
refused "run --map HARDLINK-TO-IMAGE" 4 "map file .*hard.img: it is the image" \
	"$bin" run --undo "$T/u" --map "$T/hard.img" "$img"
refused "run --undo IMAGE" 4 "undo file .*a.img already exists" \
	"$bin" run --undo "$img" "$img"
refused "run --undo SYMLINK-TO-IMAGE" 4 "undo file .*link.img already exists" \
	"$bin" run --undo "$T/link.img" "$img"
refused "run --map = --undo" 4 "map file .*/u: it is the undo file" \
	"$bin" run --undo "$T/u" --map "$T/u" "$img"
refused "run --passes --map = pass 2's undo file" 4 \
	"map file .*u\.2: it is the undo file" \
	"$bin" run --passes --undo "$T/u" --map "$T/u.2" "$img"
refused "run --undo DIR/../u = --map u" 4 "it is the undo file" \
	"$bin" run --undo "$T/./u" --map "$T/u" "$img"
refused "report --html IMAGE" 1 "HTML report .*a.img: it is the image" \
	"$bin" report --html "$img" "$img"
refused "plan --html SYMLINK-TO-IMAGE" 1 "HTML report .*link.img: it is the image" \
	"$bin" plan --html "$T/link.img" "$img"
# the default map beside the undo file must be new
: > "$T/u.map"
rm -f "$T/u"
"$bin" run --undo "$T/u" "$img" > "$T/out" 2> "$T/err"
rc=$?
if [ $rc -eq 4 ] && grep -q "map file .*u.map: it exists" "$T/err" &&
   [ "$(t_imgsum "$img")" = "$want" ] && [ ! -e "$T/u" ] && [ ! -s "$T/u.map" ]; then
	t_ok "an old UNDO.map: refused before writing, the old file kept"
else
	t_fail "an old UNDO.map: exit $rc, $(cat "$T/err")"
fi
rm -f "$T/u.map"

# through a loop device: the file behind it is the image
if t_can_mount && LOOP=$(losetup -f --show "$img" 2>/dev/null); then
	refused "run on a loop device, --map its backing file" 4 \
		"map file .*a.img: it is the file behind the image" \
		"$bin" run --undo "$T/u" --map "$img" "$LOOP"
	refused "report on a loop device, --html its backing file" 1 \
		"HTML report .*link.img: it is the file behind the image" \
		"$bin" report --html "$T/link.img" "$LOOP"
	cp --sparse=always "$T/orig.img" "$T/b.img"
	want_b=$(t_imgsum "$T/b.img")
	refused "run --map a block device" 4 "map file .*: it is a block device" \
		"$bin" run --undo "$T/u" --map "$LOOP" "$T/b.img"
	[ "$(t_imgsum "$T/b.img")" = "$want_b" ] || t_fail "run --map a block device: the image changed"
	losetup -d "$LOOP"
	LOOP=
elif [ -n "${XFSDEFRAG_REQUIRE_MOUNT:-}" ]; then
	t_fail "loop device cases: need root and a loop device"
else
	t_skip "loop device cases: need root and a loop device"
fi

# a run that renumbers leaves UNDO.map, one line per inode it says
rm -f "$T/u" "$T/u.map"
if "$bin" run --undo "$T/u" "$img" > "$T/out" 2> "$T/err"; then
	n=$(sed -n 's/^renumbered \([0-9]*\) inodes.*/\1/p' "$T/out")
	if [ -n "$n" ] && [ "$n" -gt 0 ] && [ -f "$T/u.map" ] &&
	   [ "$(wc -l < "$T/u.map")" -eq "$n" ] &&
	   grep -q "$n inodes renumbered: old and new numbers in $T/u.map" "$T/out" &&
	   awk 'NF != 2 || $1 !~ /^[0-9]+$/ || $2 !~ /^[0-9]+$/ || $1 == $2 { bad = 1 }
		END { exit bad }' "$T/u.map"; then
		t_ok "default run: $n inodes renumbered, all of them in u.map"
	else
		t_fail "default run: renumbered '${n:-none}', map $(wc -l < "$T/u.map" 2>/dev/null) lines"
		sed 's/^/    /' "$T/out" | tail -n 3
	fi
	"$bin" undo "$T/u" "$img" > /dev/null 2>&1 || t_fail "undo of the default run failed"
else
	t_fail "default run failed: $(cat "$T/err")"
fi

# limited runs keep inode numbers: no map, nothing renumbered
for lim in "--max-rate 1000" "--ag 1" "--min-extents 2" "--passes"; do
	rm -f "$T"/u "$T"/u.* 
	cp --sparse=always "$T/orig.img" "$img"
	# shellcheck disable=SC2086
	if "$bin" run --json $lim --undo "$T/u" "$img" > "$T/out.json" 2> "$T/err" &&
	   [ ! -e "$T/u.map" ] &&
	   [ "$(t_json "$T/out.json" 'sum(p["inodes_renumbered"] for p in d["passes"])')" = 0 ]; then
		t_ok "run $lim: $(t_json "$T/out.json" 'd["npasses"]') pass(es), no inode renumbered, no map"
	else
		t_fail "run $lim: $(t_json "$T/out.json" '[p["inodes_renumbered"] for p in d["passes"]]' 2>&1) renumbered; map: $(ls "$T"/u.map 2>&1)"
		sed 's/^/    /' "$T/err"
	fi
done
t_summary
