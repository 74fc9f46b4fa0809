#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How the scan reads must not change what it finds.  On fixtures: report,
# report --json, check and plan with every reader mechanism (the test
# binary's --reader: sync, fadvise, thread, uring), tiny and huge requests, no holes merged and
# large ones, and --direct, byte for byte the same as the default.  On
# damaged copies of a small image (a directory block with a bad CRC and
# a later inode of the same AG with a bad CRC; a truncated image): the
# same messages whatever the mechanism, and the first damage of the AG is
# the earlier of the two in inode order although directories are read
# later.  With root and a free loop device: --direct on a block device.
# The bench's list of every directory's blocks (debug-inoruns --dirs)
# against xfs_db's block maps.  And memory: a 15 TiB filesystem of 256 AGs and 3 inodes (a sparse file)
# costs only a few MiB, like a small one, for report and check, and (with
# loop mounts) for a run that joins four files written in turns.
# Usage: t-scanio.sh XFSDEFRAG [FIXTURE...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
shift
t_tmpdir
T=$T_TMP

fixtures=("$@")
[ ${#fixtures[@]} -eq 0 ] && fixtures=(aged rmap-nrext64 v4 isize1k-dir8k bs1k)
variants=("sync" "sync:1:4:0" "fadvise" "fadvise:2:64:1024" "mmap" "mmap:1:4:0" "mmap:3:2048:4096" "thread"
	"thread:1:8:0" "uring" "uring:16:4096:4096" "uring:3:16:1")

# outputs IMG DIR [ARGS...]: what the scanning commands print, volatile
# fields (scan time) dropped; with READER=HOW set, read through the test
# binary's --reader HOW
outputs() {
	local img=$1 d=$2 x=("$bin")
	shift 2
	[ -n "${READER:-}" ] && x=("$tbin" --reader "$READER")
	mkdir -p "$d"
	# (no read probe: the verdict's time differs from one read to the next)
	"${x[@]}" report --no-probe "$@" "$img" > "$d/report" 2>&1; echo "rc $?" >> "$d/report"
	"${x[@]}" report --no-probe --json "$@" "$img" 2>&1 | grep -v '"seconds"' > "$d/json"
	"${x[@]}" check "$@" "$img" > "$d/check" 2>&1; echo "rc $?" >> "$d/check"
	"${x[@]}" plan --no-probe "$@" "$img" > "$d/plan" 2>&1; echo "rc $?" >> "$d/plan"
}

# same NAME DIR-A DIR-B
same() {
	if diff -r "$2" "$3" > "$T/diff" 2>&1; then
		t_ok "$1"
	else
		t_fail "$1: output differs"
		head -n 8 "$T/diff" | sed 's/^/    /'
	fi
}

# dir_runs_db IMG: every directory's data fork blocks as "offset length"
# byte ranges, directories in inode order, each one's extent records 64
# at a time in disk order, adjacent ones joined, from xfs_db (ncheck
# names every inode but the root; bmap maps each)
dir_runs_db() {
	python3 - "$1" <<'PY'
import re, subprocess, sys
img = sys.argv[1]
def db(cmds):
    a = ["xfs_db", "-r"]
    for c in cmds:
        a += ["-c", c]
    return subprocess.run(a + [img], capture_output=True, text=True,
                          check=True).stdout
sb = db(["sb 0", "print rootino agblocks blocksize"])
val = dict(re.findall(r"^(\w+) = (\d+)", sb, re.M))
agb, bs = int(val["agblocks"]), int(val["blocksize"])
inos = {int(val["rootino"])}
for l in db(["blockget -n", "ncheck"]).splitlines():
    m = re.match(r"\s*(\d+)\s+\S", l)
    if m:
        inos.add(int(m.group(1)))
inos = sorted(inos)
cmds = []
for i in inos:
    cmds += ["echo @%d" % i, "inode %d" % i, "print core.mode", "bmap -d"]
out, cur, mode, maps = db(cmds), None, {}, {}
for l in out.splitlines():
    if l.startswith("@"):
        cur = int(l[1:]); maps[cur] = []
    elif l.startswith("core.mode"):
        mode[cur] = int(l.split()[-1], 8)
    else:
        m = re.match(r"data offset \d+ startblock \d+ \((\d+)/(\d+)\) count (\d+)", l)
        if m:
            a, b, c = map(int, m.groups())
            maps[cur].append(((a * agb + b) * bs, c * bs))
for i in inos:
    if mode.get(i, 0) & 0o170000 != 0o040000:
        continue
    # 64 records at a time, as the read-ahead takes them
    for k in range(0, len(maps[i]), 64):
        runs = []
        for o, n in sorted(maps[i][k:k + 64]):
            if runs and o <= runs[-1][0] + runs[-1][1]:
                runs[-1][1] = max(runs[-1][1], o + n - runs[-1][0])
            else:
                runs.append([o, n])
        for o, n in runs:
            print(o, n)
PY
}

for fx in "${fixtures[@]}"; do
	[ -f "$here/fixtures/$fx/image.zst" ] || { t_skip "$fx: no fixture"; continue; }
	img=$T/$fx.img
	t_unpack "$here/fixtures/$fx" "$img" || { t_fail "$fx: cannot unpack"; continue; }
	outputs "$img" "$T/$fx.ref"
	grep -q "^rc 0" "$T/$fx.ref/report" || t_fail "$fx: report failed"
	for v in "${variants[@]}"; do
		READER=$v outputs "$img" "$T/$fx.$v"
		same "$fx: $v" "$T/$fx.ref" "$T/$fx.$v"
		rm -rf "$T/$fx.$v"
	done
	for v in uring thread sync; do
		READER=$v outputs "$img" "$T/$fx.d$v" --direct
		if grep -q "no direct I/O" "$T/$fx.d$v/report"; then
			t_skip "$fx: $T does not take direct I/O"
			break
		fi
		same "$fx: --direct, $v" "$T/$fx.ref" "$T/$fx.d$v"
		rm -rf "$T/$fx.d$v"
	done
	# the product reads no switch from its environment
	XFSDEFRAG_READER=bogus:9 "$bin" report --no-probe "$img" > "$T/out" 2> "$T/err"
	if [ $? = 0 ] && [ ! -s "$T/err" ] &&
	   cmp -s "$T/out" <(sed '$d' "$T/$fx.ref/report"); then
		t_ok "$fx: the product ignores XFSDEFRAG_READER"
	else
		t_fail "$fx: XFSDEFRAG_READER changed the product: $(head -n 1 "$T/err")"
	fi
	"$tbin" --reader bogus:9 report "$img" > "$T/out" 2> "$T/err"
	[ $? = 2 ] && grep -q "reader: bad value 'bogus:9'" "$T/err" &&
		t_ok "$fx: the test binary refuses a bad --reader" ||
		t_fail "$fx: --reader bogus:9: $(head -n 1 "$T/err")"
	# the bench's list of directory blocks (debug-inoruns --dirs)
	# against xfs_db's block maps of every directory, adjacent blocks
	# of one directory joined
	if command -v xfs_db > /dev/null 2>&1; then
		"$tbin" debug-inoruns --dirs "$img" > "$T/dirruns" 2> /dev/null
		rc=$?
		if dir_runs_db "$img" > "$T/dirruns.db" && [ $rc = 0 ] &&
		   [ -s "$T/dirruns" ] && cmp -s "$T/dirruns" "$T/dirruns.db"; then
			t_ok "$fx: debug-inoruns --dirs: $(wc -l < "$T/dirruns") runs, as xfs_db maps them"
		else
			t_fail "$fx: debug-inoruns --dirs (exit $rc) differs from xfs_db's maps"
			diff "$T/dirruns" "$T/dirruns.db" | head -n 4 | sed 's/^/    /'
		fi
	fi
	for j in 1 3; do
		outputs "$img" "$T/$fx.j$j" -j "$j"
		sed -i 's/"threads": [0-9][0-9]*/"threads": N/' "$T/$fx.j$j/json"
		sed 's/"threads": [0-9][0-9]*/"threads": N/' "$T/$fx.ref/json" > "$T/refjson"
		cp "$T/refjson" "$T/$fx.ref/json"
		same "$fx: -j $j" "$T/$fx.ref" "$T/$fx.j$j"
		rm -rf "$T/$fx.j$j"
	done
	rm -f "$img"
done

if [ "$("$bin" report -j x /dev/null > /dev/null 2>&1; echo $?)" = 2 ] &&
   [ "$("$bin" check -j -1 /dev/null > /dev/null 2>&1; echo $?)" = 2 ]; then
	t_ok "a bad -j is a usage error"
else
	t_fail "a bad -j is not a usage error"
fi

# ---- damage, in inode order -------------------------------------------------
have_tools=1
for tool in mkfs.xfs xfs_db python3 truncate; do
	command -v $tool > /dev/null 2>&1 || have_tools=0
done
if [ $have_tools = 1 ]; then
	. "$here/badimg.sh"
	P=$T/pristine.img
	bi_image "$P" "$T/work" -m crc=1 > "$T/bmbt" 2>/dev/null || have_tools=0
fi
if [ $have_tools = 0 ]; then
	t_skip "no mkfs.xfs/xfs_db/python3: damage cases skipped"
else
	ed() { "${BI_EDIT[@]}" "$@"; }
	eval "$(ed "$P" geo)"
	agof() { echo $(($1 >> (AGBLKLOG + INOPBLOG))); }
	# a directory with a data block, and a file after it in its AG
	dir= file= blk=
	for d in /leaf /block /node; do
		for f in /files/small /files/medium /links/long; do
			[ -n "$file" ] && break
			di=$(bi_ino "$P" $d) fi=$(bi_ino "$P" $f)
			if [ "$(agof "$di")" = "$(agof "$fi")" ] && [ "$fi" -gt "$di" ]; then
				dir=$di file=$fi
			fi
		done
	done
	[ -n "$dir" ] &&
		blk=$(ed "$P" extents "$dir" | awk '$1 == 0 { print $2; exit }')
	if [ -z "$blk" ]; then
		t_skip "damage order: no directory followed by a file in one AG"
	else
		C=$T/dmg.img
		cp --sparse=always "$P" "$C"
		ed "$C" badcrc dir3data "$(ed "$C" fsboff "$blk")" \; \
			badcrc inode "$(ed "$C" inooff "$file")"
		outputs "$C" "$T/dmg.ref"
		if grep -q "directory $dir .*crc" "$T/dmg.ref/report" &&
		   ! grep -q "inode $file" "$T/dmg.ref/report"; then
			t_ok "damage order: the directory (inode $dir) is named first"
		else
			t_fail "damage order: $(head -n 2 "$T/dmg.ref/report" | tr '\n' ' ')"
		fi
		grep -q "^rc 3" "$T/dmg.ref/report" && grep -q "^rc 3" "$T/dmg.ref/check" &&
			t_ok "damage: exit status 3" || t_fail "damage: exit status"
		for v in sync:1:4:0 fadvise mmap:2:8:0 thread uring:2:8:0; do
			READER=$v outputs "$C" "$T/dmg.$v"
			same "damage: $v" "$T/dmg.ref" "$T/dmg.$v"
		done
		# cut inside the inode chunks of the last AG
		last=$(ed "$P" inooff "$(bi_ino "$P" /node/n1100)")
		cp --sparse=always "$P" "$C"
		truncate -s $(( (last / 4096) * 4096 )) "$C"
		outputs "$C" "$T/cut.ref"
		for v in sync fadvise mmap thread uring:4:1024:1024; do
			READER=$v outputs "$C" "$T/cut.$v"
			same "truncated: $v" "$T/cut.ref" "$T/cut.$v"
		done
	fi
fi

# ---- a block device, direct I/O ----------------------------------------------
if [ -f "$here/fixtures/aged/image.zst" ] && t_need_mount "block device, --direct"; then
	img=$T/aged.img
	t_unpack "$here/fixtures/aged" "$img"
	loop=$(losetup -f --show -r "$img" 2>/dev/null)
	if [ -n "$loop" ]; then
		T_CLEANUP_HOOK="losetup -d $loop"
		outputs "$img" "$T/bd.file"
		outputs "$loop" "$T/bd.dev" --direct
		sed -i "s|$loop|IMAGE|g" "$T"/bd.dev/*
		sed -i "s|$img|IMAGE|g" "$T"/bd.file/*
		if grep -q "no direct I/O" "$T/bd.dev/report"; then
			t_fail "--direct refused on $loop"
		else
			same "block device, --direct" "$T/bd.file" "$T/bd.dev"
		fi
		losetup -d "$loop"
		T_CLEANUP_HOOK=
	else
		t_skip "no free loop device"
	fi
	rm -f "$img"
fi

# ---- memory does not grow with the size of the filesystem ---------------------
if [ -n "${XFSDEFRAG_ASAN:-}" ]; then
	t_skip "memory: not measured under ASan"
elif command -v mkfs.xfs > /dev/null && [ -x /usr/bin/time ] &&
   truncate -s 15T "$T/huge.img" 2> /dev/null &&
   mkfs.xfs -q -K -d agcount=256 -l size=64m "$T/huge.img" > /dev/null 2>&1; then
	truncate -s 1g "$T/small.img"
	mkfs.xfs -q -K -d agcount=4 "$T/small.img" > /dev/null 2>&1
	for c in report check; do
		/usr/bin/time -f %M -o "$T/rss.huge" "$bin" $c "$T/huge.img" > /dev/null 2>&1
		/usr/bin/time -f %M -o "$T/rss.small" "$bin" $c "$T/small.img" > /dev/null 2>&1
		h=$(tail -n 1 "$T/rss.huge") s=$(tail -n 1 "$T/rss.small")
		# 256 AGs of bookkeeping (about 2 KiB each) and thread stacks
		if [ $((h - s)) -lt 4096 ]; then
			t_ok "$c: 15 TiB, 256 AGs: $h KiB peak RSS (1 GiB: $s KiB)"
		else
			t_fail "$c: 15 TiB, 256 AGs: $h KiB peak RSS, 1 GiB: $s KiB"
		fi
	done
	# run too: its undo journal keeps maps of the blocks free before and
	# after, which must cost what is in use, not the size (this image
	# once took 1 GiB and 45 s).  It rewrites every AG's headers: a few
	# pages of maps per AG, under 16 MiB for 256.  Four files written in
	# turns, for it to join.
	if t_need_mount "run: 15 TiB, 256 AGs" && mkdir -p "$T/mnt"; then
		made=0
		for im in huge small; do
			mount -o loop "$T/$im.img" "$T/mnt" 2> "$T/mount.err" || break
			T_CLEANUP_HOOK="umount $T/mnt"
			mkdir "$T/mnt/d"
			for i in 1 2 3 4 5 6 7 8; do
				for f in a b "d/c" "d/e"; do
					head -c 65536 /dev/urandom >> "$T/mnt/$f"
					sync "$T/mnt/$f"
				done
			done
			t_umount "$T/mnt"
			T_CLEANUP_HOOK=
			made=$((made + 1))
		done
		if [ $made = 2 ]; then
			for im in huge small; do
				/usr/bin/time -f %M -o "$T/rss.$im" "$bin" run --undo "$T/undo.$im" \
					"$T/$im.img" > "$T/run.$im" 2>&1
				echo "rc $?" >> "$T/run.$im"
			done
			h=$(tail -n 1 "$T/rss.huge") s=$(tail -n 1 "$T/rss.small")
			if grep -q "^rc 0" "$T/run.huge" && grep -q "^rc 0" "$T/run.small" &&
			   ! grep -q "nothing to move" "$T/run.huge" && [ $((h - s)) -lt 16384 ]; then
				t_ok "run: 15 TiB, 256 AGs: $h KiB peak RSS (1 GiB: $s KiB)"
			else
				t_fail "run: 15 TiB: $h KiB peak RSS, 1 GiB: $s KiB: $(tail -n 2 "$T/run.huge" | tr '\n' ' ')"
			fi
			if "$bin" undo "$T/undo.huge" "$T/huge.img" > "$T/undo.out" 2>&1; then
				t_ok "run: 15 TiB: undone ($(tail -n 1 "$T/undo.out" | cut -c1-60))"
			else
				t_fail "run: 15 TiB: undo: $(tail -n 1 "$T/undo.out")"
			fi
		else
			t_fail "run: cannot mount the 15 TiB or 1 GiB image"
			t_show "$T/mount.err"
		fi
	fi
	rm -f "$T/huge.img" "$T/small.img" "$T"/undo.*
else
	t_skip "cannot make a 15 TiB sparse image here"
fi
t_summary scanio
