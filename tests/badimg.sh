# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Small pristine XFS images for the bad-input tests and the fuzzer's base
# images, made without a mount: mkfs.xfs with a protofile, then byte edits
# by xfsedit.py.  Sourced; needs bash, mkfs.xfs, xfs_db and python3.
#
# Contents: sf/ (shortform), block/ (60 entries), leaf/ (400), node/
# (1200: node format; on v4 its data fork is a bmbt), files/small,
# files/medium, files/big (rewritten as a 3-level bmbt of 30 extents),
# files/empty, files/ESC[31mred ESC[0m, links/short (inline) and
# links/long (remote).  File data is zeros.

BI_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# the system interpreter starts in a tenth of the time of a pyenv shim
BI_PY=python3
[ -x /usr/bin/python3 ] && BI_PY=/usr/bin/python3
BI_EDIT=("$BI_PY" "$BI_DIR/xfsedit.py")
BI_ESCNAME="esc"$'\e'"[31mred"$'\e'"[0m"

# bi_proto WORKDIR > PROTOFILE
bi_proto() {
	local i src=$1/src
	mkdir -p "$src"
	head -c 100 /dev/zero >"$src/small"
	head -c 100000 /dev/zero >"$src/medium"
	head -c 262144 /dev/zero >"$src/big"
	head -c 2000 /dev/zero >"$src/esc"
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
	printf '  %s ---644 0 0 %s\n $\n' "$BI_ESCNAME" "$src/esc"
	printf ' links d--755 0 0\n  short l--777 0 0 ../files/small\n'
	printf '  long l--777 0 0 %s../files/medium\n $\n$\n' \
		"$(printf './%.0s' $(seq 1 300))"
}

# bi_mkfs IMG PROTOFILE MKFS-OPTS...: 32 MiB, two AGs.  mkfs.xfs wants
# 300 MB unless told (as fstests does) that this is a test filesystem.
bi_mkfs() {
	local img=$1 proto=$2
	shift 2
	rm -f "$img"
	truncate -s 32m "$img"
	TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 mkfs.xfs -q -d agcount=2 \
		-p "$proto" "$@" "$img" >/dev/null 2>&1 && return 0
	rm -f "$img"
	truncate -s 320m "$img"
	mkfs.xfs -q -d agcount=2 -p "$proto" "$@" "$img" >/dev/null 2>&1
}

# bi_ino IMG PATH: inode number by path
bi_ino() {
	xfs_db -r -c "path $2" -c stack "$1" 2>/dev/null |
		sed -n 's/.*[[:space:]]inode \([0-9]*\),.*/\1/p'
}

# bi_finish IMG: repair what mkfs.xfs 6.1 gets wrong (v5 remote symlink
# blocks written without their header) and turn files/big into a bmbt.
# Prints the bmbt's blocks "N2 N1 L0 L1" (packed fsbnos).
bi_finish() {
	local img=$1 v5
	v5=$("${BI_EDIT[@]}" "$img" geo | sed -n 's/^V5=//p')
	if [ "$v5" = 1 ]; then
		"${BI_EDIT[@]}" "$img" fix-symlink "$(bi_ino "$img" /links/long)" ||
			return 1
	fi
	"${BI_EDIT[@]}" "$img" mkbtree "$(bi_ino "$img" /files/big)"
}

# bi_image IMG WORKDIR MKFS-OPTS...: the whole recipe; prints bi_finish's
bi_image() {
	local img=$1 work=$2
	shift 2
	mkdir -p "$work"
	[ -f "$work/proto" ] || bi_proto "$work" >"$work/proto"
	bi_mkfs "$img" "$work/proto" "$@" && bi_finish "$img"
}
