#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The consistency checker.  Every committed fixture passed xfs_repair -n
# (repair.rc) and must come out consistent, with any number of threads.
# Then copies of aged (and rmap-nrext64) are damaged with xfs_db -x, one
# mistake a rewriter can make at a time, and check must exit 3 naming it
# (a targeted message); where xfs_repair is installed, xfs_repair -n must
# complain about the same copy too, except where it is known not to: a
# leak that every counter agrees with, node keys and sibling pointers of
# AG btrees.  check must never write to the image (its size and times
# are compared).  Every way of the inodes phase (the test binary's
# --check-mode) must agree on every image.
# Usage: t-check.sh XFSDEFRAG [FIXTURE...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
[ $# -gt 0 ] && shift
t_tmpdir
T=$T_TMP

t_fixtures "$@"
fixtures=("${FIXTURES[@]}")

# ---- every fixture is consistent ------------------------------------------

for f in "${fixtures[@]}"; do
	fx=$here/fixtures/$f
	if [ "$(cat "$fx/repair.rc" 2>/dev/null)" != 0 ]; then
		t_skip "$f: xfs_repair -n did not pass it (repair.rc)"
		continue
	fi
	t_unpack "$fx" "$T/$f.img" || { t_fail "$f: cannot unpack"; continue; }
	st=$(stat -c '%s %y %z' "$T/$f.img")
	"$bin" check "$T/$f.img" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q "^check: .* is consistent: [0-9]* inodes, [0-9]* blocks accounted for$" "$T/out" &&
	   [ ! -s "$T/err" ]; then
		t_ok "$f: consistent"
	else
		t_fail "$f: check exited $rc"
		head -n 10 "$T/err" | sed 's/^/    /'
	fi
	# -j 1 finds the same
	"$bin" check -j 1 "$T/$f.img" >"$T/out1" 2>&1
	cmp -s "$T/out" "$T/out1" || t_fail "$f: check -j 1 differs"
	# and so does reading every chunk again, or most (check_quick.c)
	for how in reread keep=4096 defer; do
		"$tbin" --check-mode "$how" check "$T/$f.img" >"$T/out1" 2>&1
		cmp -s "$T/out" "$T/out1" ||
			t_fail "$f: check with --check-mode $how differs"
	done
	# --json says the same, as one valid JSON object
	"$bin" check --json "$T/$f.img" >"$T/json" 2>"$T/err"
	rc=$?
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["consistent"] and d["findings"] == [] and d["problems"] == 0
         and d["inodes"] > 0 and d["schema_version"] == 1 else 1)' "$T/json" &&
		[ $rc -eq 0 ] && [ ! -s "$T/err" ] ||
		t_fail "$f: check --json (exit $rc) does not say consistent"
	[ "$(stat -c '%s %y %z' "$T/$f.img")" = "$st" ] ||
		t_fail "$f: check modified the image"
	# kept: the damaged copies start from these, and from any AG
	# with a 2-level bnobt
	keep=
	case $f in aged|rmap-nrext64) keep=1 ;; esac
	if [ -z "$keep" ]; then
		agc=$(xfs_db -r -c "sb 0" -c "print agcount" "$T/$f.img" 2>/dev/null |
		      sed -n 's/^agcount = //p')
		for ((a = 0; a < ${agc:-0}; a++)); do
			xfs_db -r -c "agf $a" -c "print bnolevel" "$T/$f.img" 2>/dev/null |
				grep -q "= 2$" && { keep=1; break; }
		done
	fi
	[ -n "$keep" ] || rm -f "$T/$f.img"
done

# ---- damaged copies -------------------------------------------------------

t_case damaged || { t_summary; exit; }
for tool in xfs_db zstd; do
	if ! command -v $tool >/dev/null 2>&1; then
		t_skip "damaged copies: $tool not installed"
		t_summary check
		exit
	fi
done
have_repair=1
command -v xfs_repair >/dev/null 2>&1 || {
	have_repair=
	t_skip "xfs_repair not installed: its verdicts are not compared"
}

# the bases: kept from the loop above, else unpacked now (T_CASE=damaged)
BASE=$T/aged.img RBASE=$T/rmap-nrext64.img
for b in aged rmap-nrext64; do
	[ -f "$T/$b.img" ] || [ ! -f "$here/fixtures/$b/image.zst" ] ||
		t_unpack "$here/fixtures/$b" "$T/$b.img"
done
if [ ! -f "$BASE" ]; then
	t_fail "damaged copies: fixture aged not present"
	t_summary check
	exit
fi

# db IMG CMD...: xfs_db -x, one -c per argument
db() {
	local img=$1 a=()
	shift
	for c in "$@"; do a+=(-c "$c"); done
	xfs_db -x "${a[@]}" "$img" >/dev/null 2>&1
}
# get IMG FIELD CMD...: the value of FIELD printed after running CMD...
get() {
	local img=$1 field=$2 re a=()
	shift 2
	for c in "$@"; do a+=(-c "$c"); done
	re=$(printf '%s' "$field" | sed 's/[].[]/\\&/g')
	xfs_db -r "${a[@]}" -c "print $field" "$img" 2>/dev/null |
		sed -n "s/^$re = \([0-9-]*\).*/\1/p" | head -n 1
}
# recs IMG CMD...: "N start len [refcount]" for the records printed there
recs() {
	local img=$1 a=()
	shift
	for c in "$@"; do a+=(-c "$c"); done
	xfs_db -r "${a[@]}" -c "print recs" "$img" 2>/dev/null |
		sed -n 's/^\([0-9]*\):\[\([0-9,-]*\)\].*/\1 \2/p' | tr , ' '
}

C=$T/c.img
copy() { rm -f "$C"; cp --sparse=always "${1:-$BASE}" "$C"; }

# findings CODE LOCATORS < JSON: the messages of the findings of `check
# --json` with code CODE whose message names every locator ('|'-separated,
# each matched as whole words: "ag 0|block 120"), one a line; exit 1 when
# there is none.  Problems are matched on their stable codes, and on the
# numbers that say where, not on the wording around them.
findings() {
	python3 -c '
import json, re, sys
code, locs = sys.argv[1], [l for l in sys.argv[2].split("|") if l]
doc = json.load(sys.stdin)
hits = [f["message"] for f in doc["findings"] if f["code"] == code and
        all(re.search(r"(?<![\w+.-])" + re.escape(l) + r"(?![\w+])",
                      f["message"]) for l in locs)]
print("\n".join(hits))
sys.exit(0 if hits else 1)' "$1" "$2"
}

# expect NAME CODE LOCATORS REPAIR_REGEX: check the damaged copy $C.
# check must exit 3 with a finding of code CODE naming LOCATORS (see
# findings); xfs_repair -n must exit 1 with a line matching REPAIR_REGEX
# ("-": xfs_repair is not asked).
expect() {
	local name=$1 code=$2 locs=$3 rre=$4 rc st
	st=$(stat -c '%s %y %z' "$C")
	timeout 120 "$bin" check --json "$C" >"$T/json" 2>"$T/err"
	rc=$?
	if [ $rc -eq 3 ] && findings "$code" "$locs" <"$T/json" >"$T/hit"; then
		t_ok "$name: [$code] $(head -n 1 "$T/hit")"
	else
		t_fail "$name: exit $rc (want 3), no finding [$code] naming '$locs'"
		head -n 8 "$T/err" | sed 's/^/    /'
	fi
	# the text output names the same code
	timeout 120 "$bin" check "$C" >"$T/out" 2>"$T/err"
	grep -q " \[$code\]\$" "$T/err" &&
		grep -q "^check: [0-9]* problems* found$" "$T/out" ||
		t_fail "$name: check's text output has no line ending in [$code]"
	# the inodes phase reading every chunk again (not only those the
	# scan left unsettled, check_quick.c), or the scan keeping room for
	# only a few inodes (some chunks kept, the rest read again), finds
	# the same, in order
	for how in reread keep=4096 defer; do
		timeout 120 "$tbin" --check-mode "$how" check "$C" \
			>"$T/out.rr" 2>"$T/err.rr"
		cmp -s "$T/out" "$T/out.rr" && cmp -s "$T/err" "$T/err.rr" ||
			t_fail "$name: check with --check-mode $how differs"
	done
	# one thread (each AG's phases after the whole scan, no entry put
	# off), and reads from the device (directory blocks kept from the
	# scan's requests): the same findings in the same order
	timeout 120 "$bin" check -j 1 "$C" >"$T/out.rr" 2>"$T/err.rr"
	cmp -s "$T/out" "$T/out.rr" && cmp -s "$T/err" "$T/err.rr" ||
		t_fail "$name: check -j 1 differs"
	timeout 120 "$bin" check --direct "$C" >"$T/out.rr" 2>"$T/err.rr"
	if grep -q "no direct I/O" "$T/err.rr"; then
		:	# this file system takes no O_DIRECT: nothing to compare
	elif ! cmp -s "$T/out" "$T/out.rr" || ! cmp -s "$T/err" "$T/err.rr"; then
		t_fail "$name: check --direct differs"
	fi
	[ "$(stat -c '%s %y %z' "$C")" = "$st" ] ||
		t_fail "$name: check modified the image"
	[ -n "$have_repair" ] && [ "$rre" != - ] || return 0
	xfs_repair -n "$C" >"$T/rep" 2>&1
	rc=$?
	if [ $rc -eq 1 ] && grep -Eq -- "$rre" "$T/rep"; then
		t_ok "$name: xfs_repair -n agrees: $(grep -E -- "$rre" "$T/rep" | head -n 1)"
	else
		t_fail "$name: xfs_repair -n exited $rc, no line matching /$rre/"
	fi
}

# AGF 0 free blocks off by one
copy
v=$(get "$C" freeblks "agf 0")
db "$C" "agf 0" "write freeblks $((v + 1))"
expect "agf freeblks + 1" agf-freeblks "agf 0|freeblks $((v + 1))|$v" \
	"agf_freeblks $((v + 1)), counted $v in ag 0"

# superblock free blocks off by one
copy
v=$(get "$C" fdblocks "sb 0")
db "$C" "sb 0" "write fdblocks $((v - 1))"
expect "sb fdblocks - 1" sb-fdblocks "fdblocks $((v - 1))|$v" \
	"sb_fdblocks $((v - 1)), counted $v"

# an inode's block count off by one: the first regular file with blocks
ino=$(t_cat "$here/fixtures/aged/xfsdb-core.out" | awk '
	/^== / { ino = $2 } /core.mode = 010/ { reg = 1 } /core.mode = 0[^1]/ { reg = 0 }
	/core.nblocks = [1-9]/ { if (reg) { print ino; exit } }')
copy
v=$(get "$C" core.nblocks "inode $ino")
db "$C" "inode $ino" "write core.nblocks $((v + 1))"
expect "inode nblocks + 1" inode-nblocks "inode $ino|nblocks $((v + 1))|$v" \
	"bad nblocks $((v + 1)) for inode $ino"

# the same in the common small file, whose inode the scan settles for
# the inodes phase (check_quick.c): the first with extents in the inode
ino=$(t_cat "$here/fixtures/aged/xfsdb-core.out" | awk '
	/^== / { ino = $2; reg = 0; ext = 0 } /core.mode = 010/ { reg = 1 }
	/core.format = 2 / { ext = 1 }
	/core.nblocks = [1-9]/ { if (reg && ext) { print ino; exit } }')
copy
v=$(get "$C" core.nblocks "inode $ino")
db "$C" "inode $ino" "write core.nblocks $((v + 1))"
expect "small file nblocks + 1" inode-nblocks \
	"inode $ino|nblocks $((v + 1))|$v" "bad nblocks $((v + 1)) for inode $ino"

# and an extent size hint without its flag in that file
copy
db "$C" "inode $ino" "write core.extsize 1"
expect "small file extsize" inode-extsize "inode $ino|hint 1" \
	"Bad extent size hint 1 on inode $ino"

# a free extent grown over the file block that follows it (AG 0 bnobt,
# one leaf): the first record followed by a data block
copy
recs "$C" "agf 0" "addr bnoroot" >"$T/bno"
cmds=()
while read -r n s l; do cmds+=(-c "fsblock $((s + l))" -c "blockuse"); done <"$T/bno"
xfs_db -r -c "blockget -n" "${cmds[@]}" "$C" 2>/dev/null >"$T/use"
blk=$(awk '/type data/ { sub(/ .*/, "", $2); print $2; exit }' "$T/use")
read -r n s l < <(awk -v b="$blk" '$2 + $3 == b' "$T/bno")
if [ -n "$blk" ] && [ -n "$n" ]; then
	db "$C" "agf 0" "addr bnoroot" "write recs[$n].blockcount $((l + 1))"
	expect "free extent over a file block" \
		free-block-in-use "ag 0|block $blk|extent $s+$((l + 1))|inode" \
		"claims free block $blk"
else
	t_fail "free extent over a file block: no bnobt record followed by data"
fi

# a free extent dropped from the bnobt (its last record): a leak
copy
v=$(get "$C" numrecs "agf 0" "addr bnoroot")
read -r n s l < <(tail -n 1 "$T/bno")
db "$C" "agf 0" "addr bnoroot" "write numrecs $((v - 1))"
expect "bnobt record removed" \
	block-lost "ag 0|blocks $s-$((s + l - 1))|$l" \
	"free space \(0,$s-$((s + l - 1))\) only seen by one free space btree"

# a leak that every counter agrees with: the longest free extent one block
# shorter in both trees, AGF and superblock adjusted.  xfs_repair -n does
# not see it (it exits 0; without -n it quietly frees the block again).
copy
read -r n s l < <(recs "$C" "agf 0" "addr cntroot" | tail -n 1)
read -r m < <(awk -v s="$s" '$2 == s { print $1 }' "$T/bno")
fb=$(get "$C" freeblks "agf 0")
fd=$(get "$C" fdblocks "sb 0")
db "$C" "agf 0" "addr cntroot" "write recs[$n].blockcount $((l - 1))" \
	"agf 0" "addr bnoroot" "write recs[$m].blockcount $((l - 1))" \
	"agf 0" "write freeblks $((fb - 1))" "write longest $((l - 1))" \
	"sb 0" "write fdblocks $((fd - 1))"
expect "silent leak" block-lost "ag 0|block $((s + l - 1))|1" -
if [ "$(wc -l <"$T/err")" -ne 1 ]; then
	t_fail "silent leak: more than the one problem"
	sed 's/^/    /' "$T/err"
fi

# a cntbt record missing (its last, the longest free extent)
copy
v=$(get "$C" numrecs "agf 0" "addr cntroot")
read -r n s l < <(recs "$C" "agf 0" "addr cntroot" | tail -n 1)
db "$C" "agf 0" "addr cntroot" "write numrecs $((v - 1))"
expect "cntbt record removed" \
	bnobt-not-in-cntbt "ag 0|extent $s+$l" \
	"only seen by one free space btree"

# a refcount off by one: the first refcount record of some AG
copy
agc=$(get "$C" agcount "sb 0")
for ((a = 0; a < agc; a++)); do
	read -r n s l rc _ < <(recs "$C" "agf $a" "addr refcntroot" | head -n 1)
	[ -n "${n:-}" ] && break
done
if [ -n "${n:-}" ]; then
	db "$C" "agf $a" "addr refcntroot" "write recs[$n].refcount $((rc - 1))"
	expect "refcount - 1" \
		refcount-wrong "ag $a|$s|$rc|$((rc - 1))" \
		"Incorrect reference count: saw \($a/$s\) len $l nlinks $((rc - 1)); should be \($a/$s\) len $l nlinks $rc"
else
	t_fail "refcount - 1: no refcount record in aged"
fi

# a btree-format data fork whose records fit in the inode: a regular file
# whose bmbt is one leaf, cut down to 2 records
copy
ino=
for i in $(t_cat "$here/fixtures/aged/xfsdb-core.out" | awk '
	/^== / { ino = $2 } /core.mode = 010/ { reg = 1 } /core.mode = 0[^1]/ { reg = 0 }
	/core.format = 3/ { if (reg) print ino }'); do
	if [ "$(get "$C" u3.bmbt.level "inode $i")" = 1 ] &&
	   [ "$(get "$C" u3.bmbt.numrecs "inode $i")" = 1 ]; then
		ino=$i
		break
	fi
done
if [ -n "$ino" ]; then
	leaf=$(xfs_db -r -c "inode $ino" -c "print u3.bmbt.ptrs[1]" "$C" |
	       sed -n 's/.* = \([0-9]*\)$/\1/p')
	db "$C" "fsblock $leaf" "type bmapbtd" "write numrecs 2" \
		"inode $ino" "write core.nextents 2"
	expect "btree fork that fits in the inode" \
		bmbt-fits-inode "inode $ino|data|2" \
		"extent count for ino $ino data fork too low \(2\) for file format"
else
	t_fail "btree fork that fits: no single-leaf bmbt file in aged"
fi

# an unlinked inode pending in AG 0's bucket 5 (the root directory's)
copy
root=$(get "$C" rootino "sb 0")
db "$C" "agi 0" "write unlinked[5] $root"
expect "unlinked bucket" \
	agi-unlinked "agi 0|bucket 5|inode $root" \
	"agi unlinked bucket 5 is $root in ag 0"

# a directory entry renumbered to an inode that does not exist (inside the
# longest free extent of AG 0): what a relocation that forgot an entry
# leaves behind
copy
read -r n s l < <(recs "$C" "agf 0" "addr cntroot" | tail -n 1)
ipb=$(get "$C" inopblog "sb 0")
bad=$(((s + l / 2) << ipb))
root=$(get "$C" rootino "sb 0")
if [ "$(get "$C" "u3.sfdir3.hdr.count" "inode $root")" -gt 0 ] 2>/dev/null; then
	old=$(get "$C" "u3.sfdir3.list[0].inumber.i4" "inode $root")
	db "$C" "inode $root" "write u3.sfdir3.list[0].inumber.i4 $bad"
	expect "directory entry to a missing inode" \
		dir-entry-free-inode "directory $root|inode $bad" \
		"references non-existent inode $bad"
	findings nlink "inode $old" <"$T/json" >/dev/null ||
		t_fail "directory entry to a missing inode: no link count problem for inode $old"
else
	t_skip "directory entry: the root of aged is not shortform"
fi

# btree shape: a bmbt root key that is not its child's first key, a
# broken sibling chain (a regular file of aged whose bmbt root in the
# inode has several leaves)
ino=
for i in $(t_cat "$here/fixtures/aged/xfsdb-core.out" | awk '
	/^== / { ino = $2 } /core.mode = 010/ { reg = 1 } /core.mode = 0[^1]/ { reg = 0 }
	/core.format = 3/ { if (reg) print ino }'); do
	if [ "$(get "$BASE" u3.bmbt.level "inode $i")" = 1 ] &&
	   [ "$(get "$BASE" u3.bmbt.numrecs "inode $i")" -ge 3 ]; then
		ino=$i
		break
	fi
done
if [ -n "$ino" ]; then
	copy
	k=$(get "$C" "u3.bmbt.keys[2].startoff" "inode $ino")
	db "$C" "inode $ino" "write u3.bmbt.keys[2].startoff $((k - 1))"
	expect "bmbt root key" \
		btree-root-key "inode $ino|key 1|$((k - 1))|$k" \
		"bad key in bmbt root \(is $((k - 1)), would reset to $k\) in inode $ino data fork"
	copy
	p1=$(get "$C" "u3.bmbt.ptrs[1]" "inode $ino")
	p2=$(get "$C" "u3.bmbt.ptrs[2]" "inode $ino")
	p3=$(get "$C" "u3.bmbt.ptrs[3]" "inode $ino")
	db "$C" "fsblock $p1" "type bmapbtd" "write rightsib $p3"
	expect "bmbt sibling chain" \
		btree-rightsib "inode $ino|block $(printf 0x%x "$p1")|$(printf 0x%x "$p3")|$(printf 0x%x "$p2")" \
		"bad fwd \(right\) sibling pointer \(saw $p3 parent block says $p2\)"
else
	t_fail "btree shape: no regular file in aged with a bmbt of several leaves"
fi

# the same in an AG btree, which xfs_repair -n does not look at: in a
# fixture AG with a 2-level bnobt, else in one made here (1 KiB blocks,
# every other block of a file punched: hundreds of free extents in AG 0)
found=
mk_bno2() {
	local img=$T/bno2.img mnt=$T/mnt
	mkdir -p "$mnt"
	T_CLEANUP_HOOK='mountpoint -q "$T/mnt" && t_umount "$T/mnt"'
	truncate -s 320m "$img" && mkfs.xfs -q -f -b size=1024 "$img" &&
		mount -o loop "$img" "$mnt" || return 1
	# a 1 MiB file, then every other block punched out
	python3 - "$mnt" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong,
                           ctypes.c_longlong]
fd = os.open(sys.argv[1] + "/holes", os.O_CREAT | os.O_WRONLY, 0o644)
os.pwrite(fd, b"x" * (1 << 20), 0)
os.fsync(fd)
for i in range(0, 1024, 2):     # FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
    if libc.fallocate(fd, 3, i * 1024, 1024):
        sys.exit("fallocate: %s" % os.strerror(ctypes.get_errno()))
os.close(fd)
PY
	t_umount "$mnt"
}
for img in "$T"/*.img; do
	[ "$img" = "$C" ] && continue
	agc=$(get "$img" agcount "sb 0")
	for ((a = 0; a < agc; a++)); do
		if [ "$(get "$img" bnolevel "agf $a")" = 2 ]; then
			found=$img
			break 2
		fi
	done
done
if [ -z "$found" ] && t_need_mount "AG btree keys and siblings (no fixture AG has a 2-level bnobt)"; then
	if mk_bno2 && [ "$(get "$T/bno2.img" bnolevel "agf 0")" = 2 ]; then
		found=$T/bno2.img a=0
	else
		t_fail "AG btree keys and siblings: could not make an AG with a 2-level bnobt"
	fi
fi
if [ -n "$found" ]; then
	copy "$found"
	read -r n s l < <(recs "$C" "agf $a" "addr bnoroot" "addr ptrs[2]" | head -n 1)
	k=$(xfs_db -r -c "agf $a" -c "addr bnoroot" -c "print keys[2]" "$C" |
	    sed -n 's/^2:\[\([0-9]*\),.*/\1/p')
	db "$C" "agf $a" "addr bnoroot" "write keys[2].startblock $((k - 1))"
	expect "bnobt node key" \
		btree-key "ag $a|key 1|$((k - 1))|$s" -
	copy "$found"
	db "$C" "agf $a" "addr bnoroot" "addr ptrs[1]" "write rightsib 4294967295"
	expect "bnobt sibling chain" \
		btree-rightsib "ag $a|none" -
fi

# the problem lines are capped by -n
copy
db "$C" "agf 0" "write freeblks 0" "write longest 0" "agf 1" \
	"write freeblks 0" "write longest 0"
"$bin" check -n 1 "$C" >"$T/out" 2>"$T/err"
if [ "$(wc -l <"$T/err")" -eq 2 ] &&
   grep -q "^xfsdefrag: \.\.\. and [0-9]* more problems* in the filesystem" "$T/err"; then
	t_ok "-n 1 prints one problem and a count of the rest"
else
	t_fail "-n 1: $(wc -l <"$T/err") lines on stderr"
	sed 's/^/    /' "$T/err"
fi

# rmapbt: a reverse mapping one block short (AG 0, one leaf)
if [ -f "$RBASE" ] && [ "$(get "$RBASE" rmaplevel "agf 0")" = 1 ]; then
	copy "$RBASE"
	read -r n s l own _ < <(recs "$C" "agf 0" "addr rmaproot" |
				awk '$4 > 0 && $3 > 1 && $5 + $6 + $7 + $8 == 0' |
				head -n 1)
	db "$C" "agf 0" "addr rmaproot" "write recs[$n].blockcount $((l - 1))"
	expect "rmapbt record one block short" \
		rmap-length "ag 0|blocks $s-$((s + l - 2))|inode $own|blocks $s-$((s + l - 1))" \
		"(Incorrect|Missing) reverse-mapping.*\(0/$s\)"
else
	t_fail "rmapbt damage: fixture rmap-nrext64 not present"
fi

# big arrays: a directory of 70,000 entries (its collected entries) and
# as many one-block files in two AGs (their reverse mappings) outgrow
# the heap into mapped memory (bigmem), which must be given back as such
if command -v mkfs.xfs >/dev/null 2>&1; then
	echo x >"$T/one"
	{
		printf 'proto\n0 0\nd--755 0 0\nbig d--755 0 0\n'
		seq -f " f%06g ---644 0 0 $T/one" 0 69999
		printf '$\n$\n'
	} >"$T/big.proto"
	rm -f "$T/big.img"
	truncate -s 1g "$T/big.img"
	if mkfs.xfs -q -m rmapbt=1 -d agcount=2 -p "$T/big.proto" \
		"$T/big.img" >/dev/null 2>&1; then
		"$bin" check "$T/big.img" >"$T/out" 2>"$T/err"
		rc=$?
		if [ $rc -eq 0 ] && grep -q "is consistent: 70004 inodes" "$T/out"; then
			t_ok "70,000 files in one directory, with rmapbt: consistent"
		else
			t_fail "70,000 files in one directory: check exited $rc"
			sed 's/^/    /' "$T/err" | head -n 5
		fi
	else
		t_skip "mkfs.xfs -p could not make 70,000 files in one directory"
	fi
	rm -f "$T/big.img" "$T/big.proto" "$T/one"
else
	t_skip "no mkfs.xfs: 70,000 files in one directory"
fi

t_summary check
