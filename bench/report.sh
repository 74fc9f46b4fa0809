#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report against xfs_db frag on a 1,000,000-inode image, in the same run:
# wall-time ratio, inodes per second, and peak RSS per inode.
# Usage: bench/report.sh [IMAGE]   (IMAGE is made by bench/mkbig.sh if
# missing; that needs root and a loop device).  Needs hyperfine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../xfsdefrag
img=${1:-/tmp/xfsdefrag-bench-1m.img}
[ -f "$img" ] || "$here/mkbig.sh" "$img" 1000 1000 4g
cat "$img" > /dev/null		# both read from the page cache
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

hyperfine -N --warmup 2 --runs 10 --export-json "$out/h.json" \
	"xfs_db -r -c frag $img" "$bin report $img" > "$out/h.txt"
grep -E "Benchmark|Time|±" "$out/h.txt"
/usr/bin/time -f "%M" -o "$out/rss.db" xfs_db -r -c frag "$img" > /dev/null
/usr/bin/time -f "%M" -o "$out/rss.us" "$bin" report --json "$img" > "$out/rep.json"
python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
h = json.load(open(d + "/h.json"))["results"]
db, us = h[0]["median"], h[1]["median"]
inodes = json.load(open(d + "/rep.json"))["scan"]["inodes"]
rss_db = int(open(d + "/rss.db").read().split()[-1]) * 1024
rss_us = int(open(d + "/rss.us").read().split()[-1]) * 1024
print("xfs_db frag: %.3f s median, %.0f MiB peak RSS" % (db, rss_db / 2**20))
print("report:      %.3f s median, %.0f MiB peak RSS" % (us, rss_us / 2**20))
print("ratio (xfs_db / report): %.1fx" % (db / us))
print("inodes/s: %.0f (%d inodes)" % (inodes / us, inodes))
print("peak RSS per inode: %.0f bytes" % (rss_us / inodes))
PY
