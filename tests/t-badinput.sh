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
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
t_tmpdir

for tool in mkfs.xfs xfs_db python3 sha256sum timeout; do
	if ! command -v $tool >/dev/null 2>&1; then
		t_skip "badinput: $tool not installed"
		t_summary badinput
		exit
	fi
done

EDIT=(python3 "$here/xfsedit.py")
T=$T_TMP
ESC=$'\e'
ESCNAME="esc${ESC}[31mred${ESC}[0m"

# ---- pristine images ------------------------------------------------------

# The protofile: directories of every format, files with data, a remote
# symlink, a name with a terminal escape sequence.
mkproto() {
	local i src=$T/src
	mkdir -p "$src"
	head -c 100 /dev/urandom >"$src/small"
	head -c 100000 /dev/urandom >"$src/medium"
	head -c 262144 /dev/urandom >"$src/big"
	head -c 2000 /dev/urandom >"$src/esc"
	printf '/dev/null\n0 0\nd--755 0 0\n'
	printf ' sf d--755 0 0\n'
	for i in 1 2 3; do printf '  e%d ---644 0 0 /dev/null\n' $i; done
	printf ' $\n block d--755 0 0\n'
	for ((i = 0; i < 60; i++)); do printf '  entry%d ---644 0 0 /dev/null\n' $i; done
	printf ' $\n leaf d--755 0 0\n'
	for ((i = 0; i < 400; i++)); do
		printf '  leaf-entry-with-a-longer-name-%d ---644 0 0 /dev/null\n' $i
	done
	printf ' $\n node d--755 0 0\n'
	for ((i = 0; i < 1200; i++)); do printf '  n%d ---644 0 0 /dev/null\n' $i; done
	printf ' $\n files d--755 0 0\n'
	printf '  small ---644 0 0 %s\n  medium ---644 0 0 %s\n' "$src/small" "$src/medium"
	printf '  big ---644 0 0 %s\n  empty ---644 0 0 /dev/null\n' "$src/big"
	printf '  %s ---644 0 0 %s\n $\n' "$ESCNAME" "$src/esc"
	printf ' links d--755 0 0\n  short l--777 0 0 ../files/small\n'
	printf '  long l--777 0 0 %s../files/medium\n $\n$\n' \
		"$(printf './%.0s' $(seq 1 300))"
}

# mkfs IMG OPTS...: 64 MiB, two AGs.  mkfs.xfs wants 300 MB unless it is
# told (as fstests does) that this is a test filesystem.
mkimg() {
	local img=$1
	shift
	rm -f "$img"
	truncate -s 64m "$img"
	TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 mkfs.xfs -q -d agcount=2 \
		-p "$T/proto" "$@" "$img" >/dev/null 2>&1 && return 0
	rm -f "$img"
	truncate -s 320m "$img"
	mkfs.xfs -q -d agcount=2 -p "$T/proto" "$@" "$img" >/dev/null 2>&1
}

# ino IMG PATH: inode number by path (xfs_db)
ino() {
	xfs_db -r -c "path $2" -c stack "$1" 2>/dev/null |
		sed -n 's/.*[[:space:]]inode \([0-9]*\),.*/\1/p'
}

mkproto >"$T/proto"

# ---- checking one run -----------------------------------------------------

# run NAME WANT_EXIT REGEX IMG ARGS...: run xfsdefrag ARGS; pass when the
# exit status is WANT_EXIT, stderr is one line matching REGEX (extended,
# case-insensitive) and IMG is unchanged.
run() {
	local name=$1 want=$2 re=$3 img=$4 rc before after n
	shift 4
	before=$(sha256sum <"$img")
	timeout 60 "$bin" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	after=$(sha256sum <"$img")
	n=$(wc -l <"$T/err")
	if [ "$before" != "$after" ]; then
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

# copy: a fresh scratch copy of the pristine image of this version
copy() {
	rm -f "$T/c.img"
	cp --sparse=always "$P" "$T/c.img"
	C=$T/c.img
}

# byte offsets of structures of the pristine image
ag_off() { echo $(($1 * AGBLOCKS * BS)); }
hdr_off() { echo $(($(ag_off "$1") + $2 * SECTSIZE)); }	# 1 agf 2 agi 3 agfl
inooff() { "${EDIT[@]}" "$P" inooff "$1"; }
fsboff() { "${EDIT[@]}" "$P" fsboff "$1"; }
# fsbno of directory/file block at file offset $2 (extents format)
blkof() {
	"${EDIT[@]}" "$P" extents "$1" |
		awk -v o="$2" '$1 <= o && o < $1 + $3 { print $2 + o - $1; exit }'
}
# blocks_from INO FROM TO: fsbnos of the blocks mapped at file offsets
# [FROM, TO) by extents that start there
blocks_from() {
	"${EDIT[@]}" "$P" extents "$1" | awk -v o="$2" -v e="$3" \
		'$1 >= o && $1 < e { for (i = 0; i < $3; i++) print $2 + i }'
}
xdb() { xfs_db -x "$@" >/dev/null 2>&1; }

LEAFBLK=	# set per image: 32 GiB in fs blocks

# ---- the cases -------------------------------------------------------------

cases() {
	local v=$1 ag off b i f
	local agf_re="agf"

	# truncated: inside the superblock, mid-AG 0, mid-AG 1, one block short
	for cut in 100 300 $((AGBLOCKS / 2 * BS)) $(((AGBLOCKS + AGBLOCKS / 2) * BS)) \
		   $(((DBLOCKS - 1) * BS)); do
		copy
		truncate -s "$cut" "$C"
		run "$v truncated at $cut: info" 1 "truncated|too small" "$C" info "$C"
		run "$v truncated at $cut: bmap" 1 "truncated|too small" "$C" \
			bmap -v "$C" files/small
	done

	# the primary superblock zeroed: damaged XFS, not "not XFS"
	copy
	dd if=/dev/zero of="$C" bs=512 count=1 conv=notrunc status=none
	run "$v zeroed superblock: info" 3 "superblock" "$C" info "$C"
	run "$v zeroed superblock: bmap" 3 "superblock" "$C" bmap -v "$C" files/small

	# wrong magic numbers in the AG headers of AG 0 and AG 1
	for ag in 0 1; do
		for hdr in agf agi agfl; do
			[ "$hdr" = agfl ] && [ "$V5" = 0 ] && continue	# v4 AGFL: no header
			copy
			xdb -c "$hdr $ag" -c "write -d magicnum 0" "$C"
			run "$v $hdr $ag bad magic: info" 3 "^xfsdefrag: $hdr $ag .*magic" \
				"$C" info "$C"
			run "$v $hdr $ag bad magic: bmap" 3 "^xfsdefrag: $hdr $ag .*magic" \
				"$C" bmap -v "$C" files/small
		done
		# an AGFL slot pointing outside the AG
		copy
		f=$(xfs_db -r -c "agf $ag" -c "p flfirst" "$P" | sed 's/.* = //')
		off=$(($(hdr_off $ag 3) + (V5 ? 36 : 0) + 4 * f))
		"${EDIT[@]}" "$C" poke $off be32 0xfffffff0
		[ "$V5" = 1 ] && "${EDIT[@]}" "$C" crc agfl "$(hdr_off $ag 3)"
		run "$v agfl $ag slot out of range" 3 "^xfsdefrag: agfl $ag .*outside" \
			"$C" info "$C"
		# AGF pointing outside the AG
		copy
		xdb -c "agf $ag" -c "write -d bnoroot 0x7fffffff" "$C"
		run "$v agf $ag bnoroot out of range" 3 "^xfsdefrag: agf $ag .*bnoroot" \
			"$C" info "$C"
	done

	# v5: a bad CRC on every structure type the commands read
	if [ "$V5" = 1 ]; then
		copy
		"${EDIT[@]}" "$C" badcrc sb 0
		run "$v superblock bad crc: info" 3 "superblock.*crc" "$C" info "$C"
		for ag in 0 1; do
			for hdr in agf:1 agi:2 agfl:3; do
				copy
				"${EDIT[@]}" "$C" badcrc "${hdr%:*}" "$(hdr_off $ag "${hdr#*:}")"
				run "$v ${hdr%:*} $ag bad crc: info" 3 "^xfsdefrag: ${hdr%:*} $ag .*crc" \
					"$C" info "$C"
				run "$v ${hdr%:*} $ag bad crc: bmap" 3 "^xfsdefrag: ${hdr%:*} $ag .*crc" \
					"$C" bmap -v "$C" files/small
			done
		done
		copy
		"${EDIT[@]}" "$C" badcrc inode "$(inooff "$ROOT")"
		run "$v root inode bad crc: bmap" 3 "inode $ROOT.*crc" "$C" bmap -v "$C" /
		run "$v root inode bad crc: bmap path" 3 "inode $ROOT.*crc" "$C" \
			bmap -v "$C" files/small
		copy
		"${EDIT[@]}" "$C" badcrc inode "$(inooff "$SMALL")"
		run "$v file inode bad crc: bmap" 3 "inode $SMALL.*crc" "$C" \
			bmap -v "$C" files/small
		run "$v file inode bad crc: bmap -i" 3 "inode $SMALL.*crc" "$C" \
			bmap -v -i "$C" "$SMALL"
		for b in N2 N1 L0 L1; do
			copy
			"${EDIT[@]}" "$C" badcrc lblock "$(fsboff "${!b}")"
			run "$v bmbt block $b bad crc" 3 "inode $BIG.*bmbt.*crc" "$C" \
				bmap -v "$C" files/big
		done
		copy
		"${EDIT[@]}" "$C" badcrc dir3data "$(fsboff "$(blkof "$BLOCKDIR" 0)")"
		run "$v dir block-format block bad crc" 3 "directory $BLOCKDIR .*crc" "$C" \
			bmap -v "$C" block/entry5
		copy
		"${EDIT[@]}" "$C" badcrc dir3data "$(fsboff "$(blkof "$LEAFDIR" 0)")"
		run "$v dir data block bad crc" 3 "directory $LEAFDIR .*crc" "$C" \
			bmap -v "$C" leaf/leaf-entry-with-a-longer-name-0
		copy
		"${EDIT[@]}" "$C" badcrc da3 "$(fsboff "$(blkof "$LEAFDIR" "$LEAFBLK")")"
		run "$v dir leaf block bad crc" 3 "directory $LEAFDIR .*crc" "$C" \
			bmap -v "$C" leaf/leaf-entry-with-a-longer-name-7
		copy
		"${EDIT[@]}" "$C" badcrc da3 "$(fsboff "$(blkof "$NODEDIR" "$LEAFBLK")")"
		run "$v dir node block bad crc" 3 "directory $NODEDIR .*crc" "$C" \
			bmap -v "$C" node/n5
		copy
		for b in $(blocks_from "$NODEDIR" $((LEAFBLK + 1)) $((2 * LEAFBLK))); do
			[ "$b" ] && "${EDIT[@]}" "$C" badcrc da3 "$(fsboff "$b")"
		done
		run "$v dir leafn blocks bad crc" 3 "directory $NODEDIR .*crc" "$C" \
			bmap -v "$C" node/n5
		copy
		"${EDIT[@]}" "$C" badcrc symlink "$(fsboff "$(blkof "$LONG" 0)")"
		run "$v remote symlink block bad crc" 3 "symlink.* $LONG.*crc" "$C" \
			bmap -v "$C" links/long
		# the refcount btree is read for reflinked files
		copy
		off=$(inooff "$MEDIUM")
		"${EDIT[@]}" "$C" poke $((off + 120)) be64 2	# di_flags2: reflink
		"${EDIT[@]}" "$C" inode-crc "$MEDIUM"
		clean "$v reflinked file (pristine refcountbt)" "$C" bmap -v "$C" files/medium
		b=$(xfs_db -r -c "agf 0" -c "p refcntroot" "$P" | sed 's/.* = //')
		"${EDIT[@]}" "$C" badcrc sblock "$(fsboff "$b")"
		run "$v refcountbt block bad crc" 3 "refcountbt.*crc" "$C" \
			bmap -v "$C" files/medium
		b=$(xfs_db -r -c "agf 1" -c "p refcntroot" "$P" | sed 's/.* = //')
		"${EDIT[@]}" "$C" badcrc sblock "$(($(ag_off 1) + b * BS))"
		run "$v refcountbt block bad crc (ag 1)" 3 "refcountbt.*crc" "$C" \
			bmap -v "$C" files/medium
	fi

	# extent records and btree pointers that point outside the filesystem
	off=$(inooff "$MEDIUM")
	copy
	"${EDIT[@]}" "$C" poke $((off + LIT)) hex \
		"$(printf '%016x%016x' $(((5 << AGBLKLOG) >> 43)) \
		   $(((((5 << AGBLKLOG) | 10) << 21) | 25)))"
	"${EDIT[@]}" "$C" inode-crc "$MEDIUM"
	run "$v extent in a nonexistent AG" 3 "inode $MEDIUM.*outside" "$C" \
		bmap -v "$C" files/medium
	run "$v extent in a nonexistent AG: bmap -i" 3 "inode $MEDIUM.*outside" "$C" \
		bmap -v -i "$C" "$MEDIUM"
	copy
	"${EDIT[@]}" "$C" poke $((off + LIT)) hex \
		"$(printf '%016x%016x' 0 $((((1 << AGBLKLOG | (AGBLOCKS - 5)) << 21) | 25)))"
	"${EDIT[@]}" "$C" inode-crc "$MEDIUM"
	run "$v extent past the end of its AG" 3 "inode $MEDIUM.*outside" "$C" \
		bmap -v "$C" files/medium
	copy
	off=$(inooff "$BLOCKDIR")
	"${EDIT[@]}" "$C" poke $((off + LIT + 8)) be64 $(((DBLOCKS * 4) << 21 | 1))
	"${EDIT[@]}" "$C" inode-crc "$BLOCKDIR"
	run "$v directory extent beyond the fs" 3 "inode $BLOCKDIR.*outside" "$C" \
		bmap -v "$C" block/entry5
	# bmbt: the root's pointer, a node's pointer
	copy
	off=$(inooff "$BIG")
	"${EDIT[@]}" "$C" poke $((off + LIT + 4 + 8 * ((INODESIZE - LIT - 4) / 16))) \
		be64 0x7ffffffffff
	"${EDIT[@]}" "$C" inode-crc "$BIG"
	run "$v bmbt root pointer out of range" 3 "inode $BIG.*bmbt.*out of range" \
		"$C" bmap -v "$C" files/big
	bmbt_ptr() {	# bmbt_ptr BLOCK INDEX VALUE: set a node pointer, fix CRC
		local o hl
		o=$(fsboff "$1")
		hl=$((V5 ? 72 : 24))
		"${EDIT[@]}" "$C" poke $((o + hl + 8 * ((BS - hl) / 16) + 8 * $2)) be64 "$3"
		[ "$V5" = 1 ] && "${EDIT[@]}" "$C" crc lblock "$o"
		return 0
	}
	copy
	bmbt_ptr "$N1" 1 0x7ffffffffff
	run "$v bmbt node pointer out of range" 3 "inode $BIG.*bmbt.*out of range" \
		"$C" bmap -v "$C" files/big

	# btrees whose pointers loop (CRCs recomputed: the walk must catch it)
	copy; bmbt_ptr "$N1" 0 "$N1"
	run "$v bmbt node points at itself" 3 "inode $BIG.*bmbt.*block" "$C" \
		bmap -v "$C" files/big
	copy; bmbt_ptr "$N1" 1 "$N2"
	run "$v bmbt node points at its parent" 3 "inode $BIG.*bmbt.*block" "$C" \
		bmap -v "$C" files/big
	copy; bmbt_ptr "$N2" 0 "$N2"
	run "$v bmbt top node points at itself" 3 "inode $BIG.*bmbt.*block" "$C" \
		bmap -v "$C" files/big
	copy; bmbt_ptr "$N1" 1 "$L0"
	run "$v bmbt node points at a leaf twice" 3 "inode $BIG.*bmbt.*(order|loop)" \
		"$C" bmap -v "$C" files/big
	# a directory node whose child is itself
	copy
	b=$(blkof "$NODEDIR" "$LEAFBLK")
	off=$(fsboff "$b")
	f=$((V5 ? 64 : 16))
	for ((i = 0; i < 4; i++)); do	# every entry's "before" -> the node
		"${EDIT[@]}" "$C" poke $((off + f + 8 * i + 4)) be32 "$LEAFBLK"
	done
	[ "$V5" = 1 ] && "${EDIT[@]}" "$C" crc da3 "$off"
	run "$v dir node points at itself" 3 "directory $NODEDIR .*node" "$C" \
		bmap -v "$C" node/n5

	# directory entries overrunning their block (CRC fixed)
	for d in BLOCKDIR LEAFDIR; do
		copy
		off=$(fsboff "$(blkof "${!d}" 0)")
		read -r i f < <("${EDIT[@]}" "$P" lastent "$off")
		"${EDIT[@]}" "$C" poke $((off + i + 8)) u8 255
		[ "$V5" = 1 ] && "${EDIT[@]}" "$C" crc dir3data "$off"
		local dn=block
		[ $d = LEAFDIR ] && dn=leaf
		run "$v $dn dir entry overruns its block" 3 "directory ${!d} .*entry" \
			"$C" bmap -v "$C" "$dn/$f"
	done
	copy	# shortform: the last entry's name runs past the fork
	off=$(inooff "$SFDIR")
	"${EDIT[@]}" "$C" poke $((off + LIT + 6 + 2 * (3 + 2 + 1 + 4))) u8 200
	"${EDIT[@]}" "$C" inode-crc "$SFDIR"
	run "$v shortform entry overruns the fork" 3 "directory $SFDIR" "$C" \
		bmap -v "$C" sf/e3

	# forks larger than the inode (CRC fixed)
	off=$(inooff "$SMALL")
	copy
	"${EDIT[@]}" "$C" poke $((off + 82)) u8 255
	"${EDIT[@]}" "$C" inode-crc "$SMALL"
	run "$v forkoff past the inode" 3 "inode $SMALL.*forkoff" "$C" \
		bmap -v "$C" files/small
	copy
	"${EDIT[@]}" "$C" poke $((off + 76)) be32 1000
	"${EDIT[@]}" "$C" inode-crc "$SMALL"
	run "$v nextents too big for the fork" 3 "inode $SMALL.*nextents" "$C" \
		bmap -v "$C" files/small
	run "$v nextents too big for the fork: bmap -i" 3 "inode $SMALL.*nextents" \
		"$C" bmap -v -i "$C" "$SMALL"
	copy
	"${EDIT[@]}" "$C" poke $(($(inooff "$SFDIR") + 56)) be64 4000
	"${EDIT[@]}" "$C" inode-crc "$SFDIR"
	run "$v shortform dir larger than its fork" 3 "inode $SFDIR.*size" "$C" \
		bmap -v "$C" sf/e1
}

# ---- run them for v5 and v4 ----------------------------------------------

for v in v5 v4; do
	P=$T/$v.img
	if [ $v = v4 ]; then mkimg "$P" -m crc=0; else mkimg "$P"; fi ||
		{ t_fail "$v: mkfs.xfs -p failed"; continue; }
	eval "$("${EDIT[@]}" "$P" geo)"
	LIT=$((V5 ? 176 : 100))
	LEAFBLK=$(((32 << 30) / BS))
	ROOT=$ROOTINO
	SFDIR=$(ino "$P" /sf) BLOCKDIR=$(ino "$P" /block)
	LEAFDIR=$(ino "$P" /leaf) NODEDIR=$(ino "$P" /node)
	SMALL=$(ino "$P" /files/small) MEDIUM=$(ino "$P" /files/medium)
	BIG=$(ino "$P" /files/big) LONG=$(ino "$P" /links/long)
	# mkfs.xfs 6.1 writes v5 remote symlink blocks without their header
	[ "$V5" = 1 ] && "${EDIT[@]}" "$P" fix-symlink "$LONG"
	read -r N2 N1 L0 L1 < <("${EDIT[@]}" "$P" mkbtree "$BIG")
	if [ -z "$L1" ]; then
		t_fail "$v: cannot build the bmbt file"
		continue
	fi
	clean "$v pristine: info" "$P" info "$P"
	clean "$v pristine: bmap" "$P" bmap -v "$P" / sf sf/e1 block block/entry5 \
		leaf leaf/leaf-entry-with-a-longer-name-0 node node/n5 files/small \
		files/medium files/big links/long links/short "files/$ESCNAME"
	cases $v
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

# ---- names that drive terminals -------------------------------------------

P=$T/v5.img
timeout 60 "$bin" bmap "$P" "files/$ESCNAME" >"$T/out" 2>"$T/err" </dev/null
if grep -q "^files/$ESCNAME:\$" "$T/out"; then
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

t_summary badinput
