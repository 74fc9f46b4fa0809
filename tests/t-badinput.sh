#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Damaged images.  Builds small pristine v5 and v4 filesystems with
# mkfs.xfs and a protofile (no mount), corrupts copies one structure at a
# time (xfs_db -x, dd, tests/xfsedit.py for byte edits with CRCs fixed or
# broken on purpose) and checks that info and bmap give the documented
# exit status and exactly one line on stderr naming the damaged
# structure: no crash, no hang, no sanitizer report, no write to the image.
# Usage: t-badinput.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
t_tmpdir

for tool in mkfs.xfs xfs_db python3 sha256sum timeout truncate cmp; do
	if ! command -v $tool >/dev/null 2>&1; then
		t_skip "badinput: $tool not installed"
		t_summary badinput
		exit
	fi
done

. "$here/badimg.sh"
EDIT=("${BI_EDIT[@]}")
T=$T_TMP
ESC=$'\e'
ESCNAME=$BI_ESCNAME

# ---- checking one run -----------------------------------------------------

# The image must never change: each case's image is compared byte for
# byte (cmp, cheaper here than hashing) with a snapshot taken before its
# first run, after its last one, and its size and times after every run;
# the pristine images' sha256 must be the same at the end as at the start.
H_IMG= H_STAT= H_NAME=
hash_start() {
	H_IMG=$1 H_NAME=$2
	cp --sparse=always "$1" "$T/snapshot"
	H_STAT=$(stat -c '%s %y %z' "$1")
}
hash_end() {
	[ -n "$H_IMG" ] || return 0
	cmp -s "$H_IMG" "$T/snapshot" ||
		t_fail "$H_NAME: the image was modified"
	H_IMG=
}

# run NAME WANT_EXIT REGEX IMG ARGS...: run xfsdefrag ARGS; pass when the
# exit status is WANT_EXIT, stderr is one line matching REGEX (extended,
# case-insensitive) and IMG is unchanged.
run() {
	local name=$1 want=$2 re=$3 img=$4 rc n
	shift 4
	if [ "$img" != "$H_IMG" ]; then
		hash_end
		hash_start "$img" "$name"
	fi
	H_NAME=$name
	timeout 60 "$bin" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	n=$(wc -l <"$T/err")
	if [ "$(stat -c '%s %y %z' "$img")" != "$H_STAT" ]; then
		t_fail "$name: the image was modified"
	elif [ $rc -eq 124 ]; then
		t_fail "$name: hung (killed after 60 s)"
	elif [ $rc -ne "$want" ] || [ "$n" -ne 1 ] ||
	     ! grep -Eiq -- "$re" "$T/err"; then
		t_fail "$name: exit $rc (want $want), $n stderr lines (want 1 matching /$re/)"
		head -n 5 "$T/err" | cat -v | sed 's/^/    /'
	else
		t_ok "$name: $(cat -v "$T/err")"
	fi
}

# clean NAME IMG ARGS...: a run that must succeed silently
clean() {
	local name=$1 img=$2 rc
	shift 2
	timeout 60 "$bin" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$T/err" ]; then
		t_ok "$name"
	else
		t_fail "$name: exit $rc"
		head -n 5 "$T/err" | cat -v | sed 's/^/    /'
	fi
}

# warns NAME REGEX IMG ARGS...: a run that must succeed (exit 0, its
# output printed) with exactly one warning on stderr matching REGEX, the
# image unchanged
warns() {
	local name=$1 re=$2 img=$3 rc n
	shift 3
	if [ "$img" != "$H_IMG" ]; then
		hash_end
		hash_start "$img" "$name"
	fi
	H_NAME=$name
	timeout 60 "$bin" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	n=$(wc -l <"$T/err")
	if [ $rc -eq 0 ] && [ "$n" -eq 1 ] && [ -s "$T/out" ] &&
	   grep -Eiq -- "$re" "$T/err"; then
		t_ok "$name: $(cat -v "$T/err")"
	else
		t_fail "$name: exit $rc (want 0), $n stderr lines (want 1 matching /$re/)"
		head -n 5 "$T/err" | cat -v | sed 's/^/    /'
	fi
}

# refuses NAME CODE IMG: check finds problem CODE (exit 3), and run
# refuses (exit 4) leaving the image as it was
refuses() {
	local name=$1 code=$2 img=$3 rc
	hash_end
	hash_start "$img" "$name"
	timeout 120 "$bin" check "$img" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	if [ $rc -eq 3 ] && grep -q " \[$code\]\$" "$T/err"; then
		t_ok "$name: check finds [$code]"
	else
		t_fail "$name: check exit $rc (want 3), no [$code]"
		head -n 5 "$T/err" | cat -v | sed 's/^/    /'
	fi
	rm -f "$T/r.undo"
	timeout 120 "$bin" run --undo "$T/r.undo" "$img" >"$T/out" \
		2>"$T/err" </dev/null
	rc=$?
	if [ $rc -eq 4 ] && [ ! -e "$T/r.undo" ] &&
	   grep -q "refusing to write" "$T/err"; then
		t_ok "$name: run refuses"
	else
		t_fail "$name: run exit $rc (want 4)"
		tail -n 3 "$T/err" | cat -v | sed 's/^/    /'
	fi
	hash_end
}

# copy: a fresh scratch copy of the pristine image of this version
copy() {
	hash_end
	rm -f "$T/c.img"
	cp --sparse=always "$P" "$T/c.img"
	C=$T/c.img
}

# byte offsets of structures of the pristine image
ag_off() { echo $(($1 * AGBLOCKS * BS)); }
hdr_off() { echo $(($(ag_off "$1") + $2 * SECTSIZE)); }	# 1 agf 2 agi 3 agfl
fsboff() {
	echo $((((($1) >> AGBLKLOG) * AGBLOCKS + (($1) & ((1 << AGBLKLOG) - 1))) * BS))
}
inooff() {
	local b=$((($1) >> INOPBLOG))
	echo $(($(fsboff $b) + (($1) & ((1 << INOPBLOG) - 1)) * INODESIZE))
}
# extents INO: "startoff startblock count" lines of the pristine image
# (filled for the inodes the cases use when the image is made)
declare -A EXTS
extents() { echo "${EXTS[$P:$1]}"; }
# fsbno of directory/file block at file offset $2
blkof() {
	extents "$1" |
		awk -v o="$2" '$1 <= o && o < $1 + $3 { print $2 + o - $1; exit }'
}
# blocks_from INO FROM TO: fsbnos of the blocks mapped at file offsets
# [FROM, TO) by extents that start there
blocks_from() {
	extents "$1" | awk -v o="$2" -v e="$3" \
		'$1 >= o && $1 < e { for (i = 0; i < $3; i++) print $2 + i }'
}
xdb() { xfs_db -x "$@" >/dev/null 2>&1; }

# ---- the cases -------------------------------------------------------------

ed() { "${EDIT[@]}" "$C" "$@"; }	# edit the scratch copy

# set a bmbt node's pointer (bmbt_ptr BLOCK INDEX VALUE), CRC fixed
bmbt_ptr() {
	local o hl=$((V5 ? 72 : 24))
	o=$(fsboff "$1")
	ed poke $((o + hl + 8 * ((BS - hl) / 16) + 8 * $2)) be64 "$3" \; \
		crc lblock "$o"
}

# an extent record as 32 hex digits: startoff startblock count
xrec() { printf '%016x%016x' $((($1 << 9) | ($2 >> 43))) \
	$(((($2 & ((1 << 43) - 1)) << 21) | $3)); }

cases() {
	local v=$1 ag hdr cut off b i f d dn

	# truncated: inside the superblock, mid-AG 0, mid-AG 1, a block short
	for cut in 100 300 $((AGBLOCKS / 2 * BS)) \
		   $(((AGBLOCKS + AGBLOCKS / 2) * BS)) $(((DBLOCKS - 1) * BS)); do
		copy
		truncate -s "$cut" "$C"
		run "$v truncated at $cut: info" 1 "truncated|too small" "$C" \
			info "$C"
		run "$v truncated at $cut: bmap" 1 "truncated|too small" "$C" \
			bmap -v "$C" files/small
	done

	# the primary superblock zeroed: a damaged XFS, not "not XFS"
	copy
	dd if=/dev/zero of="$C" bs=512 count=1 conv=notrunc status=none
	run "$v zeroed superblock: info" 3 "superblock.*magic" "$C" info "$C"
	run "$v zeroed superblock: bmap" 3 "superblock.*magic" "$C" \
		bmap -v "$C" files/small

	for ag in 0 1; do
		# wrong magic numbers (xfs_db write -d keeps the CRC right)
		for hdr in agf agi agfl; do
			[ "$hdr" = agfl ] && [ "$V5" = 0 ] && continue	# no header
			copy
			xdb -c "$hdr $ag" -c "write -d magicnum 0" "$C"
			run "$v $hdr $ag bad magic: info" 3 \
				"^xfsdefrag: $hdr $ag .*magic" "$C" info "$C"
			run "$v $hdr $ag bad magic: bmap" 3 \
				"^xfsdefrag: $hdr $ag .*magic" "$C" \
				bmap -v "$C" files/small
		done
		# an AGFL slot pointing outside the AG
		copy
		f=$(xfs_db -r -c "agf $ag" -c "p flfirst" "$P" | sed 's/.* = //')
		ed poke $(($(hdr_off $ag 3) + (V5 ? 36 : 0) + 4 * f)) be32 \
			0xfffffff0 \; crc agfl "$(hdr_off $ag 3)"
		run "$v agfl $ag slot out of range" 3 \
			"^xfsdefrag: agfl $ag .*outside" "$C" info "$C"
		# an AGF btree root outside the AG
		copy
		xdb -c "agf $ag" -c "write -d bnoroot 0x7fffffff" "$C"
		run "$v agf $ag bnoroot out of range" 3 \
			"^xfsdefrag: agf $ag .*bnoroot" "$C" info "$C"
	done

	# v5: a bad CRC on every structure type the commands read
	if [ "$V5" = 1 ]; then
		copy
		ed badcrc sb 0
		run "$v superblock bad crc: info" 3 "superblock.*crc" "$C" \
			info "$C"
		for ag in 0 1; do
			for hdr in agf:1 agi:2 agfl:3; do
				copy
				ed badcrc "${hdr%:*}" "$(hdr_off $ag "${hdr#*:}")"
				run "$v ${hdr%:*} $ag bad crc: info" 3 \
					"^xfsdefrag: ${hdr%:*} $ag .*crc" "$C" \
					info "$C"
				run "$v ${hdr%:*} $ag bad crc: bmap" 3 \
					"^xfsdefrag: ${hdr%:*} $ag .*crc" "$C" \
					bmap -v "$C" files/small
			done
		done
		copy
		ed badcrc inode "$(inooff "$ROOT")"
		run "$v root inode bad crc: bmap /" 3 "inode $ROOT.*crc" "$C" \
			bmap -v "$C" /
		run "$v root inode bad crc: bmap path" 3 "inode $ROOT.*crc" "$C" \
			bmap -v "$C" files/small
		copy
		ed badcrc inode "$(inooff "$SMALL")"
		run "$v file inode bad crc: bmap" 3 "inode $SMALL.*crc" "$C" \
			bmap -v "$C" files/small
		run "$v file inode bad crc: bmap -i" 3 "inode $SMALL.*crc" "$C" \
			bmap -v -i "$C" "$SMALL"
		for b in N2 N1 L0 L1; do
			copy
			ed badcrc lblock "$(fsboff "${!b}")"
			run "$v bmbt block $b bad crc" 3 \
				"inode $BIG.*bmbt block.*crc" "$C" bmap -v "$C" files/big
		done
		copy
		ed badcrc dir3data "$(fsboff "$(blkof "$BLOCKDIR" 0)")"
		run "$v dir block-format block bad crc" 3 \
			"directory $BLOCKDIR .*crc" "$C" bmap -v "$C" block/entry5
		copy
		ed badcrc dir3data "$(fsboff "$(blkof "$LEAFDIR" 0)")"
		run "$v dir data block bad crc" 3 "directory $LEAFDIR .*crc" "$C" \
			bmap -v "$C" leaf/leaf-entry-with-a-longer-name-0
		copy
		ed badcrc da3 "$(fsboff "$(blkof "$LEAFDIR" "$LEAFBLK")")"
		run "$v dir leaf block bad crc" 3 "directory $LEAFDIR .*crc" "$C" \
			bmap -v "$C" leaf/leaf-entry-with-a-longer-name-7
		copy
		ed badcrc da3 "$(fsboff "$(blkof "$NODEDIR" "$LEAFBLK")")"
		run "$v dir node block bad crc" 3 "directory $NODEDIR .*crc" "$C" \
			bmap -v "$C" node/n5
		copy	# every leafn block: whichever the lookup reads
		for b in $(blocks_from "$NODEDIR" $((LEAFBLK + 1)) \
				       $((2 * LEAFBLK))); do
			ed badcrc da3 "$(fsboff "$b")"
		done
		run "$v dir leafn block bad crc" 3 "directory $NODEDIR .*crc" "$C" \
			bmap -v "$C" node/n5
		copy
		ed badcrc symlink "$(fsboff "$(blkof "$LONG" 0)")"
		run "$v remote symlink block bad crc" 3 "symlink.* $LONG .*crc" \
			"$C" bmap -v "$C" links/long
		# the refcount btree is read for reflinked files
		copy
		ed share "$MEDIUM" 5
		clean "$v reflinked file, shared blocks (sound refcountbt)" "$C" \
			bmap -v "$C" files/medium
		ag=$(($(blkof "$MEDIUM" 0) >> AGBLKLOG))
		b=$(xfs_db -r -c "agf $ag" -c "p refcntroot" "$P" | sed 's/.* = //')
		ed badcrc sblock "$(($(ag_off $ag) + b * BS))"
		run "$v refcountbt block bad crc" 3 "ag $ag refcountbt.*crc" "$C" \
			bmap -v "$C" files/medium
	fi

	# extent records and btree pointers that point outside the filesystem
	off=$(inooff "$MEDIUM")
	copy
	ed poke $((off + LIT)) hex "$(xrec 0 $(((5 << AGBLKLOG) | 10)) 25)" \; \
		inode-crc "$MEDIUM"
	run "$v extent in a nonexistent AG" 3 "inode $MEDIUM.*outside" "$C" \
		bmap -v "$C" files/medium
	run "$v extent in a nonexistent AG: bmap -i" 3 "inode $MEDIUM.*outside" \
		"$C" bmap -v -i "$C" "$MEDIUM"
	copy
	ed poke $((off + LIT)) hex \
		"$(xrec 0 $(((1 << AGBLKLOG) | (AGBLOCKS - 5))) 25)" \; \
		inode-crc "$MEDIUM"
	run "$v extent past the end of its AG" 3 "inode $MEDIUM.*outside" "$C" \
		bmap -v "$C" files/medium
	copy
	ed poke $(($(inooff "$BLOCKDIR") + LIT)) hex \
		"$(xrec 0 $((DBLOCKS * 4)) 1)" \; inode-crc "$BLOCKDIR"
	run "$v directory extent beyond the fs" 3 "inode $BLOCKDIR.*outside" \
		"$C" bmap -v "$C" block/entry5
	copy	# the bmbt root's pointer in the inode
	ed poke $(($(inooff "$BIG") + LIT + 4 + 8 * ((INODESIZE - LIT - 4) / 16))) \
		be64 0x7ffffffffff \; inode-crc "$BIG"
	run "$v bmbt root pointer out of range" 3 \
		"inode $BIG.*bmbt.*out of range" "$C" bmap -v "$C" files/big
	copy
	bmbt_ptr "$N1" 1 0x7ffffffffff
	run "$v bmbt node pointer out of range" 3 \
		"inode $BIG.*bmbt.*out of range" "$C" bmap -v "$C" files/big

	# btrees whose pointers loop (CRCs right: the walk must catch it)
	copy; bmbt_ptr "$N1" 0 "$N1"
	run "$v bmbt node points at itself" 3 "inode $BIG.*bmbt block" "$C" \
		bmap -v "$C" files/big
	copy; bmbt_ptr "$N1" 1 "$N2"
	run "$v bmbt node points at its parent" 3 "inode $BIG.*bmbt block" "$C" \
		bmap -v "$C" files/big
	copy; bmbt_ptr "$N2" 0 "$N2"
	run "$v bmbt top node points at itself" 3 "inode $BIG.*bmbt block" \
		"$C" bmap -v "$C" files/big
	copy; bmbt_ptr "$N1" 1 "$L0"
	run "$v bmbt node points at a leaf twice" 3 \
		"inode $BIG.*bmbt.*(order|loop)" "$C" bmap -v "$C" files/big
	copy	# a directory node whose children are all itself
	off=$(fsboff "$(blkof "$NODEDIR" "$LEAFBLK")")
	f=$((V5 ? 64 : 16))
	ed poke $((off + f + 4)) be32 "$LEAFBLK" \; \
		poke $((off + f + 12)) be32 "$LEAFBLK" \; \
		poke $((off + f + 20)) be32 "$LEAFBLK" \; \
		poke $((off + f + 28)) be32 "$LEAFBLK" \; crc da3 "$off"
	run "$v dir node points at itself" 3 "directory $NODEDIR .*node" "$C" \
		bmap -v "$C" node/n5

	# directory entries overrunning their block (CRC fixed)
	for d in BLOCKDIR:block LEAFDIR:leaf; do
		dn=${d#*:} d=${d%:*}
		copy
		off=$(fsboff "$(blkof "${!d}" 0)")
		read -r i f < <("${EDIT[@]}" "$P" lastent "$off")
		ed poke $((off + i + 8)) u8 255 \; crc dir3data "$off"
		run "$v $dn dir: last entry's name overruns the block" 3 \
			"directory ${!d} .*entry" "$C" bmap -v "$C" "$dn/$f"
	done
	copy	# shortform: the last entry's name runs past the fork
	ed poke $(($(inooff "$SFDIR") + LIT + 6 + 2 * (3 + 2 + 1 + 4))) u8 200 \; \
		inode-crc "$SFDIR"
	run "$v shortform entry overruns the fork" 3 "directory $SFDIR .*past the end" "$C" \
		bmap -v "$C" sf/e3

	# forks larger than the inode (CRC fixed)
	off=$(inooff "$SMALL")
	copy
	ed poke $((off + 82)) u8 255 \; inode-crc "$SMALL"
	run "$v forkoff past the inode" 3 "inode $SMALL.*forkoff" "$C" \
		bmap -v "$C" files/small
	copy
	ed poke $((off + 76)) be32 1000 \; inode-crc "$SMALL"
	run "$v nextents too big for the fork" 3 "inode $SMALL.*nextents" "$C" \
		bmap -v "$C" files/small
	run "$v nextents too big for the fork: bmap -i" 3 \
		"inode $SMALL.*nextents" "$C" bmap -v -i "$C" "$SMALL"
	copy
	ed poke $(($(inooff "$SFDIR") + 56)) be64 4000 \; inode-crc "$SFDIR"
	run "$v shortform dir larger than its fork" 3 "inode $SFDIR.*size" "$C" \
		bmap -v "$C" sf/e1

	# a stripe unit without a width: the FLAGS column cannot be
	# computed (it divided by zero); named, and refused
	copy
	xdb -c "sb 0" -c "write -d unit 16" -c "write -d width 0" "$C"
	run "$v stripe unit without a width: bmap -v" 3 \
		"^xfsdefrag: superblock 0: stripe unit 16 and width 0 .*bad stripe geometry" \
		"$C" bmap -v "$C" files/small
	clean "$v stripe unit without a width: bmap (no -v)" "$C" \
		bmap "$C" files/small
	refuses "$v stripe unit without a width" sb-stripe "$C"

	# a hash index that leads nowhere (every hash zeroed, still in
	# order): lookups find the names by a linear scan and say the index
	# is damaged; check and run name it
	for d in BLOCKDIR:block:bleaf:btail.count:entry5 \
		 LEAFDIR:leaf:lents:lhdr.count:leaf-entry-with-a-longer-name-7; do
		IFS=: read -r dv dn fld cnt f <<<"$d"
		copy
		if [ "$dn" = block ]; then
			nav=(-c "inode ${!dv}" -c "dblock 0")
		else
			nav=(-c "inode ${!dv}" -c "dblock $LEAFBLK")
		fi
		n=$(xfs_db -r "${nav[@]}" -c "print $cnt" "$C" | sed 's/.* = //')
		cmds=()
		for ((i = 0; i < n; i++)); do
			cmds+=(-c "write -d $fld[$i].hashval 0")
		done
		xfs_db -x "${nav[@]}" "${cmds[@]}" "$C" >/dev/null 2>&1
		warns "$v $dn dir hash index zeroed: bmap" \
			"warning: directory ${!dv}: its $dn hash index .*does not lead to \"$f\", found by a linear scan" \
			"$C" bmap -v "$C" "$dn/$f"
		grep -q "^$dn/$f:" "$T/out" ||
			t_fail "$v $dn dir hash index zeroed: no map printed"
		refuses "$v $dn dir hash index zeroed" dir-entry-hash "$C"
	done
}

# ---- run them for v5 and v4 ----------------------------------------------

declare -A PSUM
for v in v5 v4; do
	P=$T/$v.img
	opts=()
	[ $v = v4 ] && opts=(-m crc=0)
	read -r N2 N1 L0 L1 < <(bi_image "$P" "$T" "${opts[@]}")
	if [ -z "${L1:-}" ]; then
		t_fail "$v: cannot make the pristine image"
		continue
	fi
	PSUM[$v]=$(sha256sum <"$P")
	eval "$("${EDIT[@]}" "$P" geo)"
	LIT=$((V5 ? 176 : 100))
	LEAFBLK=$(((32 << 30) / BS))
	ROOT=$ROOTINO
	SFDIR=$(bi_ino "$P" /sf) BLOCKDIR=$(bi_ino "$P" /block)
	LEAFDIR=$(bi_ino "$P" /leaf) NODEDIR=$(bi_ino "$P" /node)
	SMALL=$(bi_ino "$P" /files/small) MEDIUM=$(bi_ino "$P" /files/medium)
	BIG=$(bi_ino "$P" /files/big) LONG=$(bi_ino "$P" /links/long)
	for i in $BLOCKDIR $LEAFDIR $NODEDIR $MEDIUM $LONG; do
		EXTS[$P:$i]=$("${EDIT[@]}" "$P" extents $i)
	done
	clean "$v pristine: info" "$P" info "$P"
	clean "$v pristine: bmap" "$P" bmap -v "$P" / sf sf/e1 block block/entry5 \
		leaf leaf/leaf-entry-with-a-longer-name-0 node node/n5 files/small \
		files/medium files/big links/long links/short "files/$ESCNAME"
	cases $v
	hash_end
	rm -f "$T/c.img"
done

# ---- not XFS at all --------------------------------------------------------

truncate -s 8m "$T/zero.img"
run "all-zero image: info" 1 "not an XFS filesystem" "$T/zero.img" info "$T/zero.img"
head -c 100000 /dev/urandom >"$T/random.img"
run "random bytes: info" 1 "not an XFS filesystem" "$T/random.img" info "$T/random.img"
if command -v mkfs.ext4 >/dev/null 2>&1; then
	truncate -s 8m "$T/ext4.img"
	mkfs.ext4 -q -F "$T/ext4.img" >/dev/null 2>&1
	run "ext4 image: info" 1 "ext4 filesystem, not XFS" "$T/ext4.img" info "$T/ext4.img"
	run "ext4 image: bmap" 1 "ext4 filesystem, not XFS" "$T/ext4.img" \
		bmap -v "$T/ext4.img" /
else
	t_skip "ext4 image: mkfs.ext4 not installed"
fi
run "missing image" 1 "no such file" "$T/zero.img" info "$T/nonexistent.img"
run "missing path" 1 "nope.*no such file" "$T/v4.img" bmap -v "$T/v4.img" files/nope
run "inode number outside the fs" 1 "99999999999: inode number is outside" \
	"$T/v4.img" bmap -v -i "$T/v4.img" 99999999999

# ---- names that drive terminals -------------------------------------------

P=$T/v5.img
timeout 60 "$bin" bmap "$P" "files/$ESCNAME" >"$T/out" 2>"$T/err" </dev/null
if grep -qxF "files/$ESCNAME:" "$T/out"; then
	t_ok "escape name, piped: printed raw, as xfs_bmap does"
else
	t_fail "escape name, piped: not printed raw"
	cat -v "$T/out" | head -n 3 | sed 's/^/    /'
fi
if command -v script >/dev/null 2>&1; then
	printf '%s\n' "$bin" bmap "$P" "files/$ESCNAME" >"$T/argv"
	# under a pty: arguments through a file, so no shell quoting games
	script -qec "xargs -d '\n' -a '$T/argv' timeout 60" /dev/null \
		>"$T/out" 2>&1 </dev/null
	if grep -qF 'files/esc\x1b[31mred\x1b[0m:' "$T/out" &&
	   ! grep -q "$ESC" "$T/out"; then
		t_ok "escape name, on a terminal: escaped"
	else
		t_fail "escape name, on a terminal: not escaped"
		cat -v "$T/out" | head -n 3 | sed 's/^/    /'
	fi
else
	t_skip "escape name on a terminal: script(1) not installed"
fi
cp --sparse=always "$P" "$T/label.img"
xdb -c "label ${ESC}[31mred" "$T/label.img"
timeout 60 "$bin" info "$T/label.img" >"$T/out" 2>"$T/err" </dev/null
if grep -qF 'label    ="\x1b[31mred"' "$T/out" && ! grep -q "$ESC" "$T/out"; then
	t_ok "escape sequence in the label: escaped"
else
	t_fail "escape sequence in the label: not escaped"
	grep label "$T/out" | cat -v | sed 's/^/    /'
fi
# an error message quoting a path with control characters stays one line
run "control characters in a missing path" 1 'nope\\x1b\[31m\\x0a' "$P" \
	bmap -v "$P" "files/nope${ESC}[31m"$'\n'

hash_end
for v in "${!PSUM[@]}"; do
	[ "$(sha256sum <"$T/$v.img")" = "${PSUM[$v]}" ] ||
		t_fail "$v: the pristine image was modified (sha256)"
done
t_summary badinput
