#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Knowing when to stop, on a churned image (bench/mkchurn.sh, made here
# if WORKDIR has none):
#  - one full run, then what a second run writes (bytes of the image
#    that change, the plan's moved blocks), in every order and
#    renumbering mode;
#  - runs of --max-time 0.2 repeated until one has nothing to do: how
#    many runs and passes, and the final figures (xfs_db frag, free
#    space and its histogram, per AG free extents) against one full run
#    with --renumber none (passes keep inode numbers);
#  - the verdict on the churned image, on a run's result, and on a fresh
#    copy of its tree (tar onto a new mkfs of the same size);
#  - plan --max-write at a tenth of the whole plan: the gain per byte
#    copied against the whole plan's, in modelled HDD seconds and SSD
#    requests.
# Needs root, loop devices, xfsprogs, python3.
# Usage: bench/fixpoint.sh [WORKDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../xfsdefrag
work=${1:-/tmp/xfsdefrag-bench-fixpoint}
mkdir -p "$work"
img=$work/churn.img mnt=$work/mnt
mkdir -p "$mnt"
cleanup() { mountpoint -q "$mnt" && umount "$mnt"; return 0; }
trap cleanup EXIT
[ -f "$img" ] || "$here/mkchurn.sh" "$img" 1g 1 4 40 0.6

jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
figures() { "$bin" report --json --no-verdict "$1" > "$work/f.json"; python3 "$here/../tests/passes_check.py" figures "$work/f.json"; }
changed() {	# IMG1 IMG2: MiB of 1 MiB pieces that differ
	python3 - "$1" "$2" <<'PY'
import sys
a, b = (open(f, "rb") for f in sys.argv[1:3])
n = 0
while True:
    x, y = a.read(1 << 20), b.read(1 << 20)
    if not x and not y:
        break
    n += x != y
print(n)
PY
}

echo "== second run after a full run"
for o in walk name inode; do
	for r in auto all none; do
		w=$work/m.img
		cp --sparse=always "$img" "$w"
		rm -f "$work"/m.undo*
		"$bin" run --order $o --renumber $r --undo "$work/m.undo" "$w" > /dev/null
		cp --sparse=always "$w" "$work/m1.img"
		"$bin" plan --json --no-probe --order $o --renumber $r "$w" > "$work/m.json"
		"$bin" run --order $o --renumber $r --undo "$work/m.undo2" "$w" > "$work/m.out" || true
		echo "$o $r: plan moves $(jget "$work/m.json" 'd["moved_blocks"]') blocks, renumbers $(jget "$work/m.json" 'd["inodes_renumbered"]'); second run: $(head -n 1 "$work/m.out"); MiB of the image changed: $(changed "$work/m1.img" "$w")"
	done
done

echo "== --max-time 0.2 until nothing is left"
cp --sparse=always "$img" "$work/full.img"
rm -f "$work"/full.undo*
"$bin" run --renumber none --undo "$work/full.undo" "$work/full.img" > /dev/null
figures "$work/full.img" > "$work/full.fig"
cp --sparse=always "$img" "$work/tb.img"
rm -f "$work"/tb.*.undo*
k=0 passes=0
while [ $k -lt 60 ]; do
	k=$((k + 1))
	"$bin" run --max-time 0.2 --json --undo "$work/tb.$k.undo" "$work/tb.img" > "$work/tb.json"
	np=$(jget "$work/tb.json" 'd["npasses"]')
	passes=$((passes + np))
	[ "$np" -eq 0 ] && break
done
figures "$work/tb.img" > "$work/tb.fig"
echo "$k runs ($passes passes; the last did nothing); final figures $(cmp -s "$work/full.fig" "$work/tb.fig" && echo "equal to" || echo "DIFFERENT from") one full run's ($(head -n 1 "$work/tb.fig"))"
python3 "$here/../tests/cmp_live.py" "$work/full.img" "$work/tb.img" > /dev/null &&
	echo "every block in use is the full run's" || echo "blocks in use differ from the full run's"
"$bin" plan --json --no-probe --renumber none "$work/tb.img" > "$work/tb.plan.json"
echo "a plan afterwards moves $(jget "$work/tb.plan.json" 'd["moved_blocks"]') blocks"

echo "== the verdict"
verdict() { "$bin" report "$1" | grep '^verdict'; }
echo "churned: $(verdict "$img")"
cp --sparse=always "$img" "$work/run.img"
rm -f "$work"/run.undo*
"$bin" run --undo "$work/run.undo" "$work/run.img" > /dev/null
echo "after run: $(verdict "$work/run.img")"
rm -f "$work/fresh.img"
truncate -s "$(stat -c %s "$img")" "$work/fresh.img"
mkfs.xfs -q -f "$work/fresh.img"
mkdir -p "$work/src"
mount -o loop,ro "$img" "$work/src"
mount -o loop "$work/fresh.img" "$mnt"
(cd "$work/src" && tar cf - .) | (cd "$mnt" && tar xf -)
umount "$mnt"
umount "$work/src"
echo "fresh copy: $(verdict "$work/fresh.img")"

echo "== plan --max-write at a tenth"
"$bin" plan --json --no-probe "$img" > "$work/w.json"
"$bin" plan --json --no-probe --renumber none "$img" > "$work/wn.json"
lim=$(( $(jget "$work/w.json" 'd["verdict"]["write_bytes"]') / 10 ))
"$bin" plan --json --no-probe --max-write "$lim" "$img" > "$work/b.json"
python3 - "$work/w.json" "$work/wn.json" "$work/b.json" <<'PY'
import json, sys
w, wn, b = (json.load(open(f)) for f in sys.argv[1:4])
def g(d):
    return (d["now"]["readback"]["hdd_ms"] - d["after"]["readback"]["hdd_ms"],
            d["now"]["readback"]["ssd_requests"] - d["after"]["readback"]["ssd_requests"],
            d["verdict"]["write_bytes"] / 1048576)
for name, d in (("whole plan", w), ("whole plan, inode numbers kept", wn), ("budget", b)):
    h, r, m = g(d)
    print("%s: %.1f MiB, %.0f ms and %d SSD requests saved: %.1f ms/MiB, %.1f requests/MiB" % (name, m, h, r, h / m, r / m))
(h, r, m), (h0, r0, m0), (h1, r1, m1) = g(b), g(w), g(wn)
print("budget per byte: %.2fx / %.2fx the whole plan's (HDD / SSD); %.2fx / %.2fx the whole plan keeping inode numbers" % (h / m / (h0 / m0), r / m / (r0 / m0), h / m / (h1 / m1), r / m / (r1 / m1)))
PY
