#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-long: the pre-check's catch rate.  Every field of every
# structure type of the fixtures is damaged with xfs_db's fuzz verbs
# (tests/fuzzcamp.py), one field and verb per image; the images that
# xfs_repair -n rejects must be refused by `xfsdefrag run`, the image
# byte-identical afterwards.  Passes at >= 99% over >= 2,000 rejected
# images of >= 5 fixture kinds.  The misses are written to
# $XFSDEFRAG_LONG_OUT/precheck-misses.txt as replayable recipes (the
# format of tests/precheck-misses.txt, which t-precheck.sh replays).
# Every structure's LSN is also put at the log head and at the next
# cycle.  The images xfs_repair -n accepts but check does not (run would
# refuse them too) are listed in $XFSDEFRAG_LONG_OUT/precheck-over.txt.
# Usage: long-precheck.sh XFSDEFRAG [FIXTURE...]
#   XFSDEFRAG_LONG_PER_FIXTURE  cases per fixture (default 900)
#   XFSDEFRAG_LONG_JOBS         parallel workers (default 2)
#   XFSDEFRAG_LONG_SEED         case sampling seed (default 1)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
for tool in xfs_db xfs_repair zstd python3; do
	command -v $tool >/dev/null 2>&1 ||
		{ echo "long-precheck: $tool not installed" >&2; exit 1; }
done
fixtures=("$@")
[ ${#fixtures[@]} -gt 0 ] ||
	fixtures=(aged rmap-nrext64 bs1k isize1k-dir8k sect4k-noreflink stripe
		  dirs ag16)
out=${XFSDEFRAG_LONG_OUT:-build/long}
mkdir -p "$out"
t_tmpdir
python3 "$here/fuzzcamp.py" precheck --bin "$bin" --work "$T_TMP" \
	--per-fixture "${XFSDEFRAG_LONG_PER_FIXTURE:-900}" \
	--jobs "${XFSDEFRAG_LONG_JOBS:-2}" --seed "${XFSDEFRAG_LONG_SEED:-1}" \
	--misses "$out/precheck-misses.txt" --over "$out/precheck-over.txt" \
	--min-rate 99 \
	--min-rejected 2000 "${fixtures[@]}" | tee "$out/precheck.txt"
rc=${PIPESTATUS[0]}
[ ${#fixtures[@]} -ge 5 ] || { echo "long-precheck: fewer than 5 fixture kinds"; rc=1; }
exit $rc
