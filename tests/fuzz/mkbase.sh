#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fuzzer's base images (see fuzz_open.c): small pristine filesystems
# of several geometries, each with every directory format, a remote
# symlink, a 3-level bmbt file and a file with shared blocks (v5).
# Usage: mkbase.sh OUTDIR
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/badimg.sh"
out=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/xfsdefrag-base.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# name: mkfs options
while read -r name opts; do
	# shellcheck disable=SC2086
	if ! bi_image "$work/$name.img" "$work" $opts >/dev/null; then
		echo "mkbase.sh: cannot make $name ($opts)" >&2
		exit 1
	fi
	if [ "${opts#*crc=0}" = "$opts" ]; then	# v5: files/medium reflinked
		"${BI_EDIT[@]}" "$work/$name.img" share \
			"$(bi_ino "$work/$name.img" /files/medium)" 5
	fi
	mv "$work/$name.img" "$out/$name.img"
done <<'LIST'
v5
v4 -m crc=0
v5-1k-rmap -b size=1024 -m rmapbt=1 -i nrext64=1
v5-dir8k -n size=8192 -i size=1024 -m finobt=0
LIST
