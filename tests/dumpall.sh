#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Dump what every read-only command prints for one image, so that two
# builds can be compared byte for byte (`diff -r OUT1 OUT2`): info,
# report, report --json, check, plan, plan --json, and bmap -v / -av of
# every path, each with its exit status.  With --run, also runs the
# relocation on a sparse copy and records its output, the image's
# sha256 after it, check and report after it, and the sha256 after undo.
#
#   tests/dumpall.sh [--run] BIN IMAGE OUTDIR [PATHS]
#   tests/dumpall.sh [--run] BIN --fixture NAME OUTDIR
#
# PATHS is a file of NUL-separated paths (a fixture's `paths`); without
# one, only the whole-filesystem commands are dumped.  Output that
# depends on time or on the scratch file names is normalised: elapsed
# times and the scratch directory's name.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

dorun=
[ "${1:-}" = --run ] && { dorun=1; shift; }
[ $# -ge 3 ] || { echo "usage: $0 [--run] BIN IMAGE|--fixture NAME OUTDIR [PATHS]" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
t_tmpdir
if [ "$1" = --fixture ]; then
	fx=$here/fixtures/$2
	out=$3
	img=$T_TMP/image
	t_unpack "$fx" "$img"
	paths=$T_TMP/paths
	t_cat "$fx/paths" > "$paths"
else
	img=$1 out=$2 paths=${3:-}
fi
mkdir -p "$out"

# one: NAME CMD...: stdout, stderr and the exit status of one command
one() {
	local name=$1 rc=0
	shift
	"$@" > "$out/$name.out" 2> "$out/$name.err" || rc=$?
	echo "$rc" > "$out/$name.rc"
}

one info "$bin" info "$img"
one report "$bin" report "$img"
one report-json "$bin" report --json "$img"
one check "$bin" check "$img"
one plan "$bin" plan "$img"
one plan-json "$bin" plan --json "$img"
if [ -n "$paths" ]; then
	one bmap-v xargs -0 -r "$bin" bmap -v "$img" < "$paths"
	one bmap-av xargs -0 -r "$bin" bmap -av "$img" < "$paths"
fi

# sha256 of a sparse image without reading its holes twice
img_sum() { sha256sum < "$1" | cut -d' ' -f1; }

if [ -n "$dorun" ]; then
	work=$T_TMP/work
	cp --sparse=always "$img" "$work"
	one run "$bin" run --undo "$T_TMP/undo" "$work"
	# elapsed times vary from run to run
	sed -i -E 's/[0-9]+(\.[0-9]+)? ?(s|ms|MiB\/s)\b/T/g' "$out/run.out" "$out/run.err"
	img_sum "$work" > "$out/run.sha256"
	one run-check "$bin" check "$work"
	one run-report "$bin" report "$work"
	one undo "$bin" undo "$T_TMP/undo" "$work"
	img_sum "$work" > "$out/undo.sha256"
	img_sum "$img" > "$out/orig.sha256"
fi
# the scratch directory's name and the scan's own timing vary
sed -i -E -e "s|$T_TMP|TMP|g" -e 's/("seconds": )[0-9.]+/\1T/' \
	"$out"/*.out "$out"/*.err
