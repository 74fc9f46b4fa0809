#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The interactive browser, driven under tmux on a fixture image: the file
# view's extent rows equal the real xfs_bmap -v rows (bmap-v.out), the map
# readout names the file that owns a block taken from those rows, Enter
# on it opens that file, ? shows the help, a resized window is followed,
# and without colours the map still shows distinct characters.
# Screens are polled until an expected string appears (with a timeout);
# nothing is timed.  Usage: t-tui.sh XFSDEFRAG [FIXTURE]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
[ $# -gt 0 ] && shift
t_tmpdir
unset NO_COLOR TMUX

for tool in tmux python3 zstd; do
	if ! command -v $tool >/dev/null 2>&1; then
		t_skip "tui: $tool not installed"
		t_summary tui
		exit
	fi
done

fx=
if [ $# -gt 0 ]; then
	fx=$here/fixtures/$1
else
	for d in "$here"/fixtures/aged "$here"/fixtures/*/; do
		d=${d%/}
		if [ -f "$d/image.zst" ] && t_have "$d/bmap-v.out" &&
		   t_have "$d/paths" && t_have "$d/inodes"; then
			fx=$d
			break
		fi
	done
fi
if [ -z "$fx" ] || [ ! -f "$fx/image.zst" ]; then
	t_fail "tui: no fixture with image.zst, paths, inodes and bmap-v.out"
	t_summary tui
	exit
fi
name=$(basename "$fx")
img=$T_TMP/image
t_unpack "$fx" "$img" || { t_fail "$name: cannot unpack image"; t_summary tui; exit; }

# A private tmux server, killed at exit whatever happens.
sock=$T_TMP/tmux.sock
T_CLEANUP_HOOK='tmux -S "$sock" kill-server 2>/dev/null'
tm() { tmux -S "$sock" "$@"; }
# ASan and a cold cache make the start slow: generous, polled timeouts.
if [ -n "${XFSDEFRAG_ASAN:-}" ]; then wait_max=600; else wait_max=200; fi

# start NAME COLS LINES ENV ARGS...: run the tui in a new session, with
# the variables ENV ("TERM=vt100 NO_COLOR=1"); its exit status lands in
# $T_TMP/NAME.rc, its stderr in $T_TMP/NAME.err.
start() {
	local s=$1 x=$2 y=$3 vars=$4
	shift 4
	rm -f "$T_TMP/$s.rc"
	printf '%q ' "$bin" tui "$@" "$img" > "$T_TMP/$s.cmd"
	tm new-session -d -s "$s" -x "$x" -y "$y" \
		"cd '$T_TMP' && env -u NO_COLOR LANG=C.UTF-8 LC_ALL=C.UTF-8 \
		 $vars $(cat "$T_TMP/$s.cmd") 2> '$T_TMP/$s.err'; \
		 echo \$? > '$T_TMP/$s.rc'"
}

screen() { tm capture-pane -p -t "$1" 2>/dev/null; }

# wait_for NAME STRING: poll the screen until STRING shows (fixed string).
wait_for() {
	local i
	for ((i = 0; i < wait_max; i++)); do
		screen "$1" | grep -qF -- "$2" && return 0
		[ -f "$T_TMP/$1.rc" ] && break
		sleep 0.1
	done
	screen "$1" > "$T_TMP/$1.last"
	return 1
}

# wait_gone NAME STRING: poll until STRING is no longer on the screen.
wait_gone() {
	local i
	for ((i = 0; i < wait_max; i++)); do
		screen "$1" | grep -qF -- "$2" || return 0
		sleep 0.1
	done
	return 1
}

# quit NAME: q until the tui exits; its status must be 0, stderr quiet.
quit() {
	local i
	for ((i = 0; i < wait_max; i++)); do
		[ -f "$T_TMP/$1.rc" ] && break
		((i % 10 == 0)) && tm send-keys -t "$1" q q q q 2>/dev/null
		sleep 0.1
	done
	if [ "$(cat "$T_TMP/$1.rc" 2>/dev/null)" = 0 ]; then
		t_ok "$name: $1: exits 0"
	else
		t_fail "$name: $1: exit status $(cat "$T_TMP/$1.rc" 2>/dev/null || echo none)"
		head -n 20 "$T_TMP/$1.err" | sed 's/^/    /'
	fi
	if grep -q -e 'ERROR: AddressSanitizer' -e 'runtime error' \
		-e 'LeakSanitizer' "$T_TMP/$1.err" 2>/dev/null; then
		t_fail "$name: $1: sanitizer report"
		head -n 30 "$T_TMP/$1.err" | sed 's/^/    /'
	fi
	tm kill-session -t "$1" 2>/dev/null
}

show() { sed 's/^/    | /' "$1"; }

# ---- pick a file: a plain name, a few extents, short bmap -v lines ----
t_cat "$fx/paths" > "$T_TMP/paths"
t_cat "$fx/inodes" > "$T_TMP/inodes"
t_cat "$fx/bmap-v.out" > "$T_TMP/bmap-v.out"
t_cat "$fx/paths.dangling" > "$T_TMP/dangling" 2>/dev/null || : > "$T_TMP/dangling"
"$bin" info "$img" > "$T_TMP/info" 2>/dev/null
python3 - "$T_TMP" <<'PY' || { t_fail "$name: no suitable file in the fixture"; t_summary tui; exit; }
import os, re, sys
d = sys.argv[1]
paths = open(d + "/paths", "rb").read().split(b"\0")
paths = [p for p in paths if p]
dangling = [p for p in open(d + "/dangling", "rb").read().split(b"\0") if p]
inodes = open(d + "/inodes").read().split("\n")
lines = open(d + "/bmap-v.out", "rb").read().split(b"\n")
bs = int(re.search(r"bsize=(\d+)", open(d + "/info").read()).group(1))
# bmap-v.out: each path's block starts with "PATH:" (or "PATH: no extents")
blocks, k = {}, 0
for i, p in enumerate(paths):
    assert lines[k] in (p + b":", p + b": no extents"), (p, lines[k])
    k += 1
    nxt = paths[i + 1] if i + 1 < len(paths) else None
    start = k
    while k < len(lines) and lines[k] and not (
            nxt is not None and lines[k] in (nxt + b":", nxt + b": no extents")):
        k += 1
    blocks[p] = lines[start:k]
# siblings, to make sure a "/" search for each component finds it first
names = {}
for p in paths + dangling:
    if p == b".":
        continue
    parent, _, base = p.rpartition(b"/")
    names.setdefault(parent, []).append(base)
def findable(p):
    parent = b""
    for comp in p.split(b"/"):
        sib = sorted(names.get(parent, []))
        if next((s for s in sib if comp in s), None) != comp:
            return False
        parent = parent + b"/" + comp if parent else comp
    return True
# a regular file with 3..15 rows if there is one; else fewer rows; else
# a directory (its blocks are mapped the same way)
best = None
nlinks = {}
for l in inodes:
    if l:
        nlinks[l.split()[0]] = nlinks.get(l.split()[0], 0) + 1
for i, p in enumerate(paths):
    ino, typ = inodes[i].split()
    rows = blocks[p][1:]
    if typ not in ("f", "d") or p == b"." or \
            not re.fullmatch(rb"[A-Za-z0-9_./-]+", p):
        continue
    if not (1 <= len(rows) <= 15) or any(len(l) > 95 for l in blocks[p]):
        continue
    if any(b"hole" in r for r in rows) or not findable(p):
        continue
    rank = (typ != "f", len(rows) < 3, nlinks[ino] > 1, i)
    if best is None or rank < best[0]:
        best = (rank, p, ino, typ, blocks[p])
if not best:
    sys.exit(1)
_, p, ino, typ, blk = best
open(d + "/type", "w").write(typ)
open(d + "/file", "wb").write(p)
open(d + "/ino", "w").write(ino)
open(d + "/expect", "wb").write(b"\n".join(blk) + b"\n")
# the second row (or the only one): AG and first block in the AG
f = blk[2 if len(blk) > 2 else 1].decode().split()
ag = int(f[3])
agoff = int(f[4].strip("()").split("..")[0]) * 512 // bs
open(d + "/block", "w").write("%d %d\n" % (ag, agoff))
PY
file=$(cat "$T_TMP/file")
ino=$(cat "$T_TMP/ino")
ftype=$(cat "$T_TMP/type")
read -r ag agbno < "$T_TMP/block"
fdir=$(dirname "$file")
[ "$fdir" = . ] && fdir=
fbase=$(basename "$file")

# start_view NAME COLS LINES ENV ARGS...: start on the chosen file's
# view: --path for a file; a directory's view is "i" on its entry.
start_view() {
	local s=$1
	if [ "$ftype" = f ]; then
		start "$@" --path "$file"
	else
		start "$@" ${fdir:+--path "$fdir"}
		wait_for "$s" "entries  sort:" || return 1
		tm send-keys -t "$s" /
		tm send-keys -t "$s" -l "$fbase"
		tm send-keys -t "$s" Enter i
	fi
	wait_for "$s" " EXT: FILE-OFFSET"
}

# the extent rows on screen: from the bmap header to the status bar
rows_on_screen() {
	screen "$1" | sed -n '/^ EXT: FILE-OFFSET/,$p' | sed '$d' |
		sed 's/ *$//' | sed '/^$/d'
}

# ---- 1. --path opens the file view: rows equal xfs_bmap -v ----
if start_view fv 100 30 TERM=tmux-256color; then
	rows_on_screen fv > "$T_TMP/got"
	sed 's/ *$//' "$T_TMP/expect" > "$T_TMP/exp"
	if cmp -s "$T_TMP/exp" "$T_TMP/got"; then
		t_ok "$name: file view of /$file equals xfs_bmap -v ($(($(wc -l < "$T_TMP/exp") - 1)) rows)"
	else
		t_fail "$name: file view of /$file differs from xfs_bmap -v"
		diff "$T_TMP/exp" "$T_TMP/got" | sed 's/^/    /'
	fi
	screen fv | grep -qF "inode $ino: /$file" &&
		t_ok "$name: file view names inode $ino" ||
		t_fail "$name: file view title lacks 'inode $ino: /$file'"
else
	t_fail "$name: file view of /$file never showed its extents"
	show "$T_TMP/fv.last"
fi

# ---- 2. the map: readout on a block of the file, Enter opens it ----
tm send-keys -t fv m
if wait_for fv "selected: /$file"; then
	screen fv | grep -qF "owner /$file  inode $ino" &&
		t_ok "$name: map opens on /$file's first extent" ||
		t_fail "$name: map cursor does not start on /$file"
	# no selection, one block per cell, go to the block before the
	# second extent and step right onto it
	tm send-keys -t fv c
	tm send-keys -t fv $(printf '+ %.0s' $(seq 1 24))
	wait_for fv "1 block per cell" ||
		t_fail "$name: zooming in never reached one block per cell"
	if [ "$agbno" -gt 0 ]; then
		tm send-keys -t fv g
		tm send-keys -t fv -l "$ag:$((agbno - 1))"
		tm send-keys -t fv Enter
		wait_for fv "AG $ag block $((agbno - 1)) " ||
			t_fail "$name: g did not move to block $ag:$((agbno - 1))"
		tm send-keys -t fv l
	else
		tm send-keys -t fv g
		tm send-keys -t fv -l "$ag:$agbno"
		tm send-keys -t fv Enter
	fi
	if wait_for fv "AG $ag block $agbno "; then
		# a hard-linked file is named by any of its links
		if screen fv | grep -qF "  inode $ino  data extent"; then
			t_ok "$name: readout at $ag:$agbno names inode $ino"
		else
			t_fail "$name: readout at $ag:$agbno does not name inode $ino"
			screen fv | tail -n 4 | sed 's/^/    /'
		fi
	else
		t_fail "$name: the cursor never reached block $ag:$agbno"
		show "$T_TMP/fv.last"
	fi
	# Enter on the data cell opens the owner's view
	tm send-keys -t fv Enter
	if wait_for fv "inode $ino: /" && wait_for fv " EXT: FILE-OFFSET"; then
		rows_on_screen fv > "$T_TMP/got2"
		cmp -s "$T_TMP/exp" "$T_TMP/got2" &&
			t_ok "$name: Enter on the map opens inode $ino's view" ||
			t_fail "$name: the view opened from the map differs"
	else
		t_fail "$name: Enter on the map did not open inode $ino"
	fi
	# back to the map, then to the first file view, then the browser
	tm send-keys -t fv q
	wait_for fv "--- map:" || t_fail "$name: q from the file view did not return to the map"
	tm send-keys -t fv q
	wait_for fv "data fork, as xfs_bmap -v" ||
		t_fail "$name: q from the map did not return to the file view"
	tm send-keys -t fv q
	wait_for fv "entries  sort:" ||
		t_fail "$name: q from the file view did not return to the browser"
else
	t_fail "$name: m did not open the map"
	show "$T_TMP/fv.last"
fi

# ---- 3. help ----
tm send-keys -t fv '?'
if wait_for fv "xfsdefrag tui - keys"; then
	t_ok "$name: ? shows the help"
	tm send-keys -t fv q
	wait_gone fv "xfsdefrag tui - keys" || t_fail "$name: q does not leave the help"
else
	t_fail "$name: ? does not show the help"
fi
quit fv

# ---- 4. navigating there from the root with / searches ----
start nav 100 30 TERM=tmux-256color
if wait_for nav "entries  sort:"; then
	IFS=/ read -r -a comps <<< "$file"
	for c in "${comps[@]}"; do
		tm send-keys -t nav /
		tm send-keys -t nav -l "$c"
		tm send-keys -t nav Enter Enter
	done
	# a directory opened itself: its view is "i" from its parent
	[ "$ftype" = d ] && tm send-keys -t nav BSpace i
	if wait_for nav "inode $ino: /$file" && wait_for nav " EXT: FILE-OFFSET"; then
		rows_on_screen nav > "$T_TMP/got3"
		cmp -s "$T_TMP/exp" "$T_TMP/got3" &&
			t_ok "$name: navigated to /$file from the root" ||
			t_fail "$name: navigated view of /$file differs"
	else
		t_fail "$name: navigating to /$file failed"
		show "$T_TMP/nav.last"
	fi
	# Backspace climbs back to the root
	tm send-keys -t nav $(printf 'BSpace %.0s' "${comps[@]}")
	wait_for nav "--- / ---" || t_fail "$name: Backspace did not climb to /"
else
	t_fail "$name: the browser never appeared"
	show "$T_TMP/nav.last"
fi
quit nav

# ---- 5. resize: 100x30, then 80x24, the map follows ----
if start_view rs 100 30 TERM=tmux-256color; then
	tm send-keys -t rs m
	wait_for rs "selected: /$file"
	screen rs > "$T_TMP/rs1"
	tm resize-window -t rs -x 80 -y 24
	# the status bar moves to line 24 and the rows get 80 wide
	for i in $(seq 1 $wait_max); do
		screen rs > "$T_TMP/rs2"
		[ "$(wc -l < "$T_TMP/rs2")" -eq 24 ] &&
			sed -n 24p "$T_TMP/rs2" | grep -qF "hjkl:move" && break
		sleep 0.1
	done
	w1=$(sed -n 2p "$T_TMP/rs1" | awk '{ print length($0) }')
	w2=$(sed -n 2p "$T_TMP/rs2" | awk '{ print length($0) }')
	g1=$(($(grep -n -m1 '^AG [0-9]' "$T_TMP/rs1" | cut -d: -f1) - 3))
	g2=$(($(grep -n -m1 '^AG [0-9]' "$T_TMP/rs2" | cut -d: -f1) - 3))
	if sed -n 24p "$T_TMP/rs2" | grep -qF "hjkl:move" &&
	   [ "$w1" -eq 100 ] && [ "$w2" -eq 80 ] && [ "$g1" -eq 24 ] &&
	   [ "$g2" -eq 18 ]; then
		t_ok "$name: the map follows a resize (grid 100x30: $g1 rows, 80x24: $g2 rows)"
	else
		t_fail "$name: after resize: width $w1 -> $w2, grid rows $g1 -> $g2"
		show "$T_TMP/rs2"
	fi
	# the browser follows too
	tm send-keys -t rs q q
	wait_for rs "entries  sort:"
	tm resize-window -t rs -x 100 -y 30
	for i in $(seq 1 $wait_max); do
		[ "$(screen rs | wc -l)" -eq 30 ] &&
			screen rs | sed -n 30p | grep -qF "entries  sort:" && break
		sleep 0.1
	done
	screen rs | sed -n 2p | awk '{ exit length($0) == 100 ? 0 : 1 }' &&
		t_ok "$name: the browser follows a resize" ||
		t_fail "$name: the browser did not follow a resize"
else
	t_fail "$name: resize session never started"
	show "$T_TMP/rs.last"
fi
quit rs

# ---- 6. monochrome: --no-color, NO_COLOR, a terminal without colours ----
# colour_sgr FILE: does the screen (capture -e) set a colour?
colour_sgr() {
	grep -qE $'\e\\[([0-9;]*;)?(3[0-7]|4[0-7]|38;5|48;5)(;[0-9;]*)?m' "$1"
}

map_grid() { sed -n '3,/^AG [0-9]/p' "$1" | sed '$d' | sed 's/^ *[0-9]*:[0-9]* //'; }

check_map() {	# NAME LABEL COLOURED
	local s=$1 chars
	if ! wait_for "$s" "--- map:"; then
		t_fail "$name: $2: no map"
		show "$T_TMP/$s.last"
		return
	fi
	tm send-keys -t "$s" -- $(printf -- '- %.0s' $(seq 1 40))
	wait_for "$s" "whole filesystem" || t_fail "$name: $2: - never reached the whole filesystem"
	screen "$s" > "$T_TMP/$s.txt"
	tm capture-pane -e -p -t "$s" > "$T_TMP/$s.esc"
	chars=$(map_grid "$T_TMP/$s.txt" | grep -o '[.#xiM@?]' | sort -u | tr -d '\n')
	if [ ${#chars} -ge 3 ]; then
		t_ok "$name: $2: map shows distinct characters ($chars)"
	else
		t_fail "$name: $2: map characters '$chars'"
		show "$T_TMP/$s.txt"
	fi
	grep -qF ". free" "$T_TMP/$s.txt" && grep -qF "# data" "$T_TMP/$s.txt" &&
		grep -qF "x fragmented" "$T_TMP/$s.txt" ||
		t_fail "$name: $2: no legend"
	if [ "$3" = yes ]; then
		colour_sgr "$T_TMP/$s.esc" && t_ok "$name: $2: in colour" ||
			t_fail "$name: $2: no colour on a colour terminal"
	else
		colour_sgr "$T_TMP/$s.esc" && t_fail "$name: $2: colour codes sent" ||
			t_ok "$name: $2: no colour codes"
	fi
}

start_view colour 100 30 TERM=tmux-256color && tm send-keys -t colour m
check_map colour "colour" yes
quit colour

start_view mono 100 30 TERM=tmux-256color --no-color && tm send-keys -t mono m
check_map mono "--no-color" no
quit mono

start_view vt 80 24 TERM=vt100 && tm send-keys -t vt m
check_map vt "TERM=vt100" no
quit vt

start_view nocolor 80 24 "TERM=tmux-256color NO_COLOR=1" && tm send-keys -t nocolor m
check_map nocolor "NO_COLOR=1" no
quit nocolor

# ---- 6b. directory totals (du through a mount) and the worst screen ----
if t_can_mount; then
	mnt=$T_TMP/mnt
	mkdir -p "$mnt"
	if mount -o loop,ro,nouuid "$img" "$mnt"; then
		# each inode once, at its first name in a depth-first walk in
		# readdir order, as du counts it: files and bytes per top dir
		python3 - "$mnt" > "$T_TMP/du" <<'PY'
import os, stat, sys
root = sys.argv[1]
seen = set()
def walk(path, tot):
    for e in os.scandir(path):
        st = e.stat(follow_symlinks=False)
        if st.st_ino in seen:
            continue
        seen.add(st.st_ino)
        if stat.S_ISDIR(st.st_mode):
            walk(e.path, tot)
        else:
            tot[0] += 1
            if stat.S_ISREG(st.st_mode):
                tot[1] += st.st_size
def size(b):
    if b < 1024:
        return "%d   B" % b
    v, u = b / 1024.0, 0
    units = ["KiB", "MiB", "GiB", "TiB"]
    while v >= 1023.95 and u + 1 < len(units):
        v, u = v / 1024.0, u + 1
    return "%.1f %s" % (v, units[u])
for e in os.scandir(root):
    st = e.stat(follow_symlinks=False)
    seen.add(st.st_ino)
    if stat.S_ISDIR(st.st_mode) and e.name.isascii() and e.name.isprintable() and " " not in e.name:
        tot = [0, 0]
        walk(e.path, tot)
        print(e.name, tot[0], size(tot[1]))
PY
		t_umount "$mnt"
		start totals 160 60 TERM=tmux-256color
		if wait_for totals "entries  sort:"; then
			bad=0 n=0
			screen totals > "$T_TMP/totals.screen"
			while read -r d files sz; do
				n=$((n + 1))
				# "SIZE UNIT EXTS FILES DIST TYPE NAME/"
				got=$(awk -v d="$d/" '$NF == d { print $4, $1 " " $2 }' "$T_TMP/totals.screen")
				[ "$got" = "$files $sz" ] && continue
				t_fail "$name: totals of $d/: shown '$got', du says '$files $sz'"
				bad=1
			done < "$T_TMP/du"
			[ $bad -eq 0 ] && [ $n -gt 0 ] &&
				t_ok "$name: $n directories' files and bytes below, as a walk through the kernel counts them"
			# sorted by files: the first row holds the most
			tm send-keys -t totals 5
			if wait_for totals "files v"; then
				want=$(sort -k2,2nr "$T_TMP/du" | head -n 1 | cut -d' ' -f2)
				first=$(screen totals | awk 'NR == 4 { print $4 }')
				[ "$first" = "$want" ] && t_ok "$name: 5 sorts by files below ($first first)" ||
					t_fail "$name: sorted by files, the first row has $first, not $want"
			else
				t_fail "$name: 5 does not sort by files"
			fi
			# the worst screen: the report's most fragmented file first
			top=$("$bin" report --top 1 "$img" 2>/dev/null |
			      awk '/^most fragmented files:/ { f = 1; next }
				   f == 1 { f = 2; next }
				   f == 2 { print $3; exit }')
			tm send-keys -t totals w
			if [ -n "$top" ] && wait_for totals "1 fragmented files" &&
			   screen totals | awk 'NR == 5' | grep -qF -- "$top"; then
				t_ok "$name: w: the worst screen leads with $top"
				tm send-keys -t totals Enter
				wait_for totals ": $top -" && t_ok "$name: Enter opens its file view" ||
					{ t_fail "$name: Enter does not open $top"; show "$T_TMP/totals.last"; }
				tm send-keys -t totals q 3
				wait_for totals "own ms files below" &&
					t_ok "$name: 3 lists the directories slowest to read back" ||
					{ t_fail "$name: 3 shows no directory list"; show "$T_TMP/totals.last"; }
			else
				t_fail "$name: w: the worst screen does not lead with '$top'"
				screen totals | head -n 8 | sed 's/^/    | /'
			fi
		else
			t_fail "$name: the browser never listed the root"
			show "$T_TMP/totals.last"
		fi
		quit totals
	else
		t_fail "$name: cannot mount the image read-only"
	fi
elif [ -n "${XFSDEFRAG_REQUIRE_MOUNT:-}" ]; then
	t_fail "$name: directory totals: need root and a loop mount"
else
	t_skip "$name: directory totals: need root and a loop mount"
fi

# ---- 7. a huge directory (the dirs fixture's 52,000 entries) ----
dfx=$here/fixtures/dirs
if [ -f "$dfx/image.zst" ] && [ "$name" != dirs ]; then
	t_unpack "$dfx" "$img" || t_fail "dirs: cannot unpack image"
	start huge 80 24 TERM=tmux-256color --path huge
	if wait_for huge "entries  sort:"; then
		n=$(screen huge | sed -n 's/^ *\([0-9]*\) entries  sort:.*/\1/p')
		t_cat "$dfx/paths" | tr '\0' '\n' | sed -n 's|^huge/||p' |
			grep -v / | LC_ALL=C sort > "$T_TMP/huge.names"
		last=$(tail -n 1 "$T_TMP/huge.names")
		[ "$n" = "$(wc -l < "$T_TMP/huge.names")" ] &&
			t_ok "dirs: huge/ lists all $n entries" ||
			t_fail "dirs: huge/ lists $n entries, paths has $(wc -l < "$T_TMP/huge.names")"
		tm send-keys -t huge End
		if wait_for huge " $last"; then
			t_ok "dirs: End in huge/ reaches $last"
		else
			t_fail "dirs: End in huge/ does not show $last"
			show "$T_TMP/huge.last"
		fi
		tm send-keys -t huge 3
		wait_for huge "size v" && t_ok "dirs: huge/ sorts by size" ||
			t_fail "dirs: 3 does not sort huge/ by size"
	else
		t_fail "dirs: huge/ never listed"
		show "$T_TMP/huge.last"
	fi
	quit huge
fi

t_summary tui
