#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-long: the corrupt-image campaign.  Images damaged with
# xfs_db's fuzz verbs on every field of every structure type of the
# fixtures (tests/fuzzcamp.py read) go through every read command (info,
# bmap -v on the fixture's paths, report, check, plan) of the ASan/UBSan
# build: no crash, no sanitizer report, no hang (each command has a
# timeout), every error line naming a structure.  bmap maps every path
# of the fixtures with up to 2,000 of them, a fixed sample of 500 of the
# others.  Passes with >= 10,000 damaged images and no failure.
# Usage: long-corrupt.sh ASAN_XFSDEFRAG [FIXTURE...]
#   XFSDEFRAG_LONG_READ_PER_FIXTURE  images per fixture (default 1300)
#   XFSDEFRAG_LONG_JOBS              parallel workers (default 2)
#   XFSDEFRAG_LONG_PATHS             bmap at most this many paths (500)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
for tool in xfs_db zstd python3; do
	command -v $tool >/dev/null 2>&1 ||
		{ echo "long-corrupt: $tool not installed" >&2; exit 1; }
done
fixtures=("$@")
[ ${#fixtures[@]} -gt 0 ] ||
	fixtures=(aged rmap-nrext64 bs1k isize1k-dir8k sect4k-noreflink stripe
		  dirs ag16 v4)
out=${XFSDEFRAG_LONG_OUT:-build/long}
mkdir -p "$out"
t_tmpdir
python3 "$here/fuzzcamp.py" read --bin "$bin" --work "$T_TMP" \
	--per-fixture "${XFSDEFRAG_LONG_READ_PER_FIXTURE:-1300}" \
	--jobs "${XFSDEFRAG_LONG_JOBS:-2}" --seed 7 --timeout 300 \
	--paths "${XFSDEFRAG_LONG_PATHS:-500}" --min-images 10000 \
	"${fixtures[@]}" | tee "$out/corrupt.txt"
exit "${PIPESTATUS[0]}"
