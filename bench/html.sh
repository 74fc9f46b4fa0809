#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report --html on a 1,000,000-inode image: the HTML file's size and the
# wall time, against plain `report` in the same run (what the document
# adds).  Usage: bench/html.sh [IMAGE]  (IMAGE is made by bench/mkbig.sh
# if missing; that needs root and a loop device).  Needs hyperfine.
set -euo pipefail
command -v hyperfine >/dev/null ||
	{ echo "html.sh: needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
bin=$here/../xfsdefrag
img=${1:-/tmp/xfsdefrag-bench-1m.img}
[ -f "$img" ] || "$here/mkbig.sh" "$img" 1000 1000 4g
cat "$img" > /dev/null		# both read from the page cache
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

hyperfine -N --warmup 2 --runs 10 --export-json "$out/h.json" \
	"$bin report $img" "$bin report --html $out/r.html $img" \
	"$bin plan --html $out/p.html $img" > "$out/h.txt" 2>&1 ||
	{ cat "$out/h.txt" >&2; exit 1; }
python3 - "$out" <<'PY'
import json, os, sys
d = sys.argv[1]
h = json.load(open(d + "/h.json"))["results"]
rep, html, plan = (r["median"] for r in h)
print("report:              %.3f s median" % rep)
print("report --html:       %.3f s median (+%.3f s), %d bytes" %
      (html, html - rep, os.path.getsize(d + "/r.html")))
print("plan --html:         %.3f s median, %d bytes" %
      (plan, os.path.getsize(d + "/p.html")))
PY
