#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The undo chain campaign (make check-long): runs in passes on 6 fixtures
# (4 to 16 passes), each undo file of each chain damaged every way (every
# file deleted, cut to its header, to half, inside its last record and
# inside its end record, swapped with the next, three rotated, a byte
# flipped in its header, a record, its seal and its link, replaced by
# another run's file): each restored or refused with nothing written; PER
# undos killed at random image writes (some twice, some --to-pass) and PER
# cut by power (some twice, some --to-pass), plus PER/2 power cuts of
# run --passes itself, per fixture: each finished by a later undo to
# identical in-use blocks, xfs_repair -n clean, NEEDSREPAIR set in every
# intermediate state.  See tests/powercut/chaincamp.py.  Keeps failing
# cases in build/undochain-failed.  Usage: long-undochain.sh XFSDEFRAG [PER]
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$here/lib.sh"
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
per=${2:-30}
shim=$(t_built powercut/pctrace.so)
[ -f "$shim" ] || { echo "long-undochain: build $shim first (make check-long)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xfsdefrag-undochain.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
keep=$here/../build/undochain-failed
rm -rf "$keep"
fx=aged,ag16,bs1k,rmap-nrext64,sect4k-noreflink,isize1k-dir8k
rc=0
python3 "$here/powercut/chaincamp.py" --bin "$bin" --test-bin "$tbin" --shim "$shim" --tmp "$tmp" \
	--fixtures "$fx" --modes damage --seed "${UNDOCHAIN_SEED:-23}" \
	--repair-every 4 --keep "$keep" || rc=1
python3 "$here/powercut/chaincamp.py" --bin "$bin" --test-bin "$tbin" --shim "$shim" --tmp "$tmp" \
	--fixtures "$fx" --modes kill,powercut --per "$per" \
	--seed "${UNDOCHAIN_SEED:-23}" --repair-every 1 --keep "$keep" || rc=1
exit $rc
