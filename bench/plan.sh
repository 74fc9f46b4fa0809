#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# plan on 1,000,000-inode images, warm (no reference tool plans): RUNS
# runs of each of plan (inodes renumbered where it shortens the walk) and
# plan --renumber none, alternating; median time and spread, peak RSS
# and bytes per inode, and what the plan would do (blocks moved, the undo
# file's estimate).  The memory target: at most 300 bytes per inode.
# Usage: bench/plan.sh [-n RUNS] [IMAGE | DEVICE]...
#   without IMAGE: the two bench images (bench/lib.sh), made if missing.
#   Extra options for plan: PLAN_OPTS.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
b_setup -w "$@"
for n in "${!B_IMGS[@]}"; do
	b_image "$n"
	B_INODES=$(b_inodes)
	"$B_BIN" plan --json ${PLAN_OPTS:-} "$B_IMG" > "$B_OUT/plan.json" 2>&1 ||
		{ echo "plan failed: $(head -n 2 "$B_OUT/plan.json")" >&2; exit 1; }
	echo "inodes:  $B_INODES"
	for ((i = 0; i < B_RUNS; i++)); do
		b_time auto "$B_BIN" plan ${PLAN_OPTS:-} "$B_IMG"
		b_time none "$B_BIN" plan --renumber none ${PLAN_OPTS:-} "$B_IMG"
	done
	echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
	python3 - "$B_OUT" "plan $(b_tag)" "$B_INODES" <<'PY'
import json, os, statistics, sys
d, name, inodes = sys.argv[1], sys.argv[2], int(sys.argv[3])
p = json.load(open(os.path.join(d, "plan.json")))
for label, what in (("auto", "plan"), ("none", "plan --renumber none")):
    rows = [l.split() for l in open(os.path.join(d, label))]
    t = [float(a) for a, _ in rows]
    rss = max(int(b) for _, b in rows) * 1024
    print("%s: %-22s %.3f s (%.3f-%.3f), peak RSS %.1f MiB = %.0f bytes per inode"
          % (name, what, statistics.median(t), min(t), max(t), rss / 2**20,
             rss / inodes))
print("%s: would move %.1f MiB (%d blocks in %d moves), renumber %d inodes; "
      "undo estimate %.1f MiB (%.0f%% of the bytes moved)"
      % (name, p["copied_blocks"] * 4096 / 2**20, p["moved_blocks"], p["moves"],
         p["inodes_renumbered"], p["undo_bytes_estimate"] / 2**20,
         100.0 * p["undo_bytes_estimate"] / max(1, p["copied_blocks"] * 4096)))
PY
done
