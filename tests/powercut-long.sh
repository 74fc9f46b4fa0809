#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The power-cut campaign (make check-long): 5 fixtures x 5 scenarios (run,
# run rolling itself back after a write error, undo, undo after the free
# space was reused, undo of an interrupted run) x 21 crash images = 525,
# each recovered and checked as tests/t-powercut.sh describes; every 10th
# through a read-only mount and the content manifest as well (when root).
# Then renumbering: the same 5 fixtures x PER cuts inside the writes
# that renumber inodes (run --renumber all; 105 by default), each also
# checked by manifest (when root), and PER crash images of undoing a
# finished renumbering run.  Then shrinking (shrink --min): the same 5
# fixtures x PER crash images, half cut inside the writes that rewrite
# the geometry, and PER of undoing a finished shrink.
# Keeps failing crash images in build/powercut-failed.  Usage:
# powercut-long.sh XFSDEFRAG [PER]
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$here/lib.sh"
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
per=${2:-21}
shim=$(t_built powercut/pctrace.so)
[ -f "$shim" ] || { echo "powercut-long: build $shim first (make check-long)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xfsdefrag-powercut.XXXXXX")
trap 'mountpoint -q "$tmp/mnt" && umount "$tmp/mnt"; rm -rf "$tmp"' EXIT INT TERM
keep=$here/../build/powercut-failed
rm -rf "$keep"
python3 "$here/powercut/campaign.py" --bin "$bin" --test-bin "$tbin" --shim "$shim" --tmp "$tmp" \
	--fixtures aged,bs1k,rmap-nrext64,sect4k-noreflink,isize1k-dir8k \
	--per "$per" --seed "${POWERCUT_SEED:-12}" --manifest-every 10 --keep "$keep"
rc=$?
python3 "$here/powercut/campaign.py" --bin "$bin" --test-bin "$tbin" --shim "$shim" --tmp "$tmp" \
	--fixtures aged,bs1k,rmap-nrext64,sect4k-noreflink,isize1k-dir8k \
	--scenarios renum,renum-undo --per "$per" --seed "${POWERCUT_SEED:-12}" \
	--manifest-every 10 --keep "$keep" || rc=1
python3 "$here/powercut/campaign.py" --bin "$bin" --test-bin "$tbin" --shim "$shim" --tmp "$tmp" \
	--fixtures aged,bs1k,rmap-nrext64,sect4k-noreflink,isize1k-dir8k \
	--scenarios shrink,shrink-undo --per "$per" --seed "${POWERCUT_SEED:-12}" \
	--manifest-every 10 --keep "$keep" || rc=1
exit $rc
