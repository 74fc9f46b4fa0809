#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A churned image: mkfs (default options) of SIZE, loop mount, churn.py
# with WRITERS writers at once for ROUNDS rounds, unmount.
# Needs root and a loop device.
# Usage: bench/mkchurn.sh IMAGE [SIZE] [SEED] [WRITERS] [ROUNDS] [FILL]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
img=$1 size=${2:-1g} seed=${3:-1} nw=${4:-4} rounds=${5:-12} fill=${6:-0.7}
mnt=$(mktemp -d)
cleanup() { mountpoint -q "$mnt" && umount "$mnt"; rmdir "$mnt"; }
trap cleanup EXIT
rm -f "$img"
truncate -s "$size" "$img"
mkfs.xfs -q -f "$img"
mount -o loop "$img" "$mnt"
python3 "$here/churn.py" "$mnt" "$seed" "$nw" "$rounds" "$fill"
umount "$mnt"
