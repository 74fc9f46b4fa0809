#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report --html and plan --html: the document parsed and checked against
# the JSON figures of report and plan (tests/html_check.py): the story
# first (verdict, before and after, maps, histograms; the raw figures
# last), the verdict's yes or no and figures, every map cell's tooltip of
# its class, the cells inside the listed files' extents named by their
# path (`bmap -v`), the log where xfs_db puts it; the bmap tables against
# `bmap -v`, names escaped, nothing written to the image, the HTML never
# written over the image.  Then a headless Chromium: a screenshot of a
# plan's report that is not blank and shows the block map colours, the
# page laid out with the verdict box wholly on the first screen and above
# the first map (tests/html_layout.py: element positions in the rendered
# page), and the first screen, kept as build/artifacts/html-first-screen.png.
# Usage: t-html.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
fx=$here/fixtures
t_tmpdir
check=$here/html_check.py

# same FILE COPY: is the image byte-identical to its copy?  (reads only
# where the sparse files hold data)
same() { "$tbin" debug-scribble --compare "$2" "$1" > /dev/null 2>&1; }

# logpos IMAGE: "AG,AGBNO,BLOCKS" of the internal log as xfs_db sees it
# (nothing for an external log)
logpos() {
	local start len ag bno
	start=$(xfs_db -r -c "sb 0" -c "p logstart" "$1" 2>/dev/null |
		awk '{print $3}')
	len=$(xfs_db -r -c "sb 0" -c "p logblocks" "$1" 2>/dev/null |
	      awk '{print $3}')
	[ -n "$start" ] && [ "$start" != 0 ] || return 0
	ag=$(xfs_db -r -c "convert fsblock $start agno" "$1" 2>/dev/null |
	     sed 's/.*(\([0-9]*\)).*/\1/')
	bno=$(xfs_db -r -c "convert fsblock $start agblock" "$1" 2>/dev/null |
	      sed 's/.*(\([0-9]*\)).*/\1/')
	echo "$ag,$bno,$len"
}
command -v xfs_db > /dev/null ||
	t_fail "xfs_db is not installed (.ci/run-deps installs xfsprogs)"

# report: every fixture kind that differs in AG count, stripe, version
for f in aged ag16 stripe v4; do
	[ -f "$fx/$f/image.zst" ] || continue
	img=$T_TMP/$f.img
	t_unpack "$fx/$f" "$img"
	cp --sparse=always "$img" "$img.orig"
	top=20
	[ "$f" = aged ] && top=100000	# every file: the odd names too
	"$bin" report --json --top $top "$img" > "$T_TMP/$f.json" 2> /dev/null
	# the plan report judges (plan's defaults): its maps after a run
	"$bin" plan --json "$img" > "$T_TMP/$f.plan.json" 2> /dev/null
	log=$(logpos "$img")
	if ! "$bin" report --top $top --html "$T_TMP/$f.html" "$img" \
		> "$T_TMP/$f.txt" 2> "$T_TMP/$f.err"; then
		t_fail "$f: report --html: $(head -n 1 "$T_TMP/$f.err")"
		continue
	fi
	grep -q "== Fragmentation" "$T_TMP/$f.txt" &&
		t_ok "$f: the text report still goes to stdout" ||
		t_fail "$f: no text report on stdout with --html FILE"
	inos=$(python3 -c 'import json, sys
print(" ".join(str(w["ino"]) for w in
      json.load(open(sys.argv[1]))["fragmentation"]["worst"]))' "$T_TMP/$f.json")
	# shellcheck disable=SC2086
	"$bin" bmap -v -n 256 -i "$img" $inos > "$T_TMP/$f.bmap" 2>/dev/null
	if python3 "$check" report "$T_TMP/$f.html" "$T_TMP/$f.json" \
		"$T_TMP/$f.bmap" --plan "$T_TMP/$f.plan.json" \
		${log:+--log "$log"} > "$T_TMP/$f.chk"; then
		t_ok "$f: report HTML: the story first, well-formed," \
		     "self-contained, equal to --json${log:+, the log at $log}"
	else
		t_fail "$f: report HTML: $(head -n 5 "$T_TMP/$f.chk")"
	fi
	same "$img" "$img.orig" &&
		t_ok "$f: report --html wrote nothing to the image" ||
		t_fail "$f: report --html changed the image"
done

img=$T_TMP/aged.img
if [ -f "$img" ]; then
	# one AG
	"$bin" report --json -a 1 "$img" > "$T_TMP/a1.json" 2>/dev/null
	"$bin" report -a 1 --html "$T_TMP/a1.html" "$img" > /dev/null 2>&1
	python3 "$check" report "$T_TMP/a1.html" "$T_TMP/a1.json" \
		--plan "$T_TMP/aged.plan.json" > "$T_TMP/a1.chk" &&
		t_ok "report -a 1 --html: one AG's maps" ||
		t_fail "report -a 1 --html: $(head -n 3 "$T_TMP/a1.chk")"
	# "-": the document on stdout instead of the text
	"$bin" report --json "$img" > "$T_TMP/r.json" 2>/dev/null
	"$bin" report --html - "$img" > "$T_TMP/stdout.html" 2>/dev/null
	python3 "$check" report "$T_TMP/stdout.html" "$T_TMP/r.json" \
		--plan "$T_TMP/aged.plan.json" > "$T_TMP/so.chk" &&
		t_ok "report --html - writes the document to stdout" ||
		t_fail "report --html -: $(head -n 3 "$T_TMP/so.chk")"
	# no verdict: the box says so and why; no maps after a run
	"$bin" report --no-verdict --json "$img" > "$T_TMP/nv.json" 2>/dev/null
	"$bin" report --no-verdict --html "$T_TMP/nv.html" "$img" > /dev/null 2>&1
	if python3 "$check" report "$T_TMP/nv.html" "$T_TMP/nv.json" \
		> "$T_TMP/nv.chk" &&
	   grep -q '<section id="verdict" class="none">' "$T_TMP/nv.html" &&
	   grep -q 'report --no-verdict' "$T_TMP/nv.html"; then
		t_ok "report --no-verdict --html: the box says there is none, and why"
	else
		t_fail "report --no-verdict --html: $(head -n 3 "$T_TMP/nv.chk")"
	fi
	# never over the image
	"$bin" report --html "$img" "$img" > /dev/null 2> "$T_TMP/over.err"
	rc=$?
	if [ $rc -eq 1 ] && same "$img" "$img.orig" &&
	   grep -q "HTML report .*: it is the image" "$T_TMP/over.err"; then
		t_ok "report --html IMAGE IMAGE refuses (exit 1, image intact)"
	else
		t_fail "report --html over the image: exit $rc, $(head -n 1 "$T_TMP/over.err")"
	fi
	"$bin" report --html "$T_TMP/no/such/dir/x.html" "$img" > /dev/null 2>&1
	[ $? -eq 1 ] && t_ok "report --html into a missing directory: exit 1" ||
		t_fail "report --html into a missing directory did not fail"
fi

# plan: maps now and after, the plan's figures
for f in aged ag16; do
	img=$T_TMP/$f.img
	[ -f "$img" ] || continue
	"$bin" plan --json "$img" > "$T_TMP/$f.plan.json" 2>/dev/null
	"$bin" report --json "$img" > "$T_TMP/$f.r10.json" 2>/dev/null
	if ! "$bin" plan --html "$T_TMP/$f.plan.html" "$img" \
		> "$T_TMP/$f.plan.txt" 2> "$T_TMP/$f.plan.err"; then
		t_fail "$f: plan --html: $(head -n 1 "$T_TMP/$f.plan.err")"
		continue
	fi
	log=$(logpos "$img")
	if python3 "$check" plan "$T_TMP/$f.plan.html" "$T_TMP/$f.plan.json" \
		"$T_TMP/$f.r10.json" ${log:+--log "$log"} \
		> "$T_TMP/$f.plan.chk"; then
		t_ok "$f: plan HTML: the story first, maps and histograms now" \
		     "and after, figures equal to --json"
	else
		t_fail "$f: plan HTML: $(head -n 5 "$T_TMP/$f.plan.chk")"
	fi
	same "$img" "$img.orig" &&
		t_ok "$f: plan --html wrote nothing to the image" ||
		t_fail "$f: plan --html changed the image"
done

# the screenshot: a browser draws the plan's report
browser=$(command -v chromium || command -v chromium-browser || true)
# chrome ARGS...: headless, no network, no first-run work
chrome() {
	mkdir -p "$T_TMP/profile"
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$T_TMP/profile" "$@" 2> "$T_TMP/chromium.log"
}
if [ -z "$browser" ]; then
	if [ -n "${CI:-}" ] || [ "${XFSDEFRAG_REQUIRE_MOUNT:-}" = 1 ]; then
		t_fail "chromium is not installed (.ci/run-deps installs it)"
	else
		t_skip "chromium not installed: no screenshot"
	fi
elif [ -f "$T_TMP/aged.plan.html" ]; then
	page=$T_TMP/aged.plan.html
	# half scale keeps the PNG small
	chrome --force-device-scale-factor=0.5 --window-size=1280,2400 \
		--screenshot="$T_TMP/shot.png" "file://$page" > /dev/null
	if [ ! -s "$T_TMP/shot.png" ]; then
		t_fail "chromium made no screenshot: $(tail -n 2 "$T_TMP/chromium.log")"
	elif python3 "$here/png_check.py" "$T_TMP/shot.png" 10 \
		3a9a3a e8e8e8 a04cc8 d62728 > "$T_TMP/png.chk"; then
		t_ok "screenshot: not blank, map colours drawn ($(head -n 1 "$T_TMP/png.chk"))"
	else
		t_fail "screenshot: $(grep FAIL "$T_TMP/png.chk" | head -n 2)"
	fi
	# where the browser puts the verdict box: on the first screen, above
	# the first map
	python3 "$here/html_layout.py" harness "$page" "$T_TMP/layout.html" &&
		chrome --window-size=1280,800 --dump-dom \
			"file://$T_TMP/layout.html" > "$T_TMP/layout.dom"
	if python3 "$here/html_layout.py" check "$T_TMP/layout.dom" \
		> "$T_TMP/layout.chk"; then
		t_ok "layout: the verdict box on the first screen, above the" \
		     "first map ($(head -n 1 "$T_TMP/layout.chk"))"
	else
		t_fail "layout: $(tr '\n' ' ' < "$T_TMP/layout.chk")"
	fi
	# the first screen as a reader sees it: the box's edge drawn there
	# (green: worth running, amber: not), kept by the release pass
	colour=d08c00
	python3 -c 'import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["verdict"]["worth_running"] else 1)' \
		"$T_TMP/aged.plan.json" && colour=2e8b3e
	chrome --window-size=1280,800 --screenshot="$T_TMP/first.png" \
		"file://$page" > /dev/null
	if python3 "$here/png_check.py" "$T_TMP/first.png" 10 "$colour" \
		> "$T_TMP/first.chk"; then
		t_ok "first screen: the verdict box's #$colour edge drawn" \
		     "($(head -n 1 "$T_TMP/first.chk"))"
	else
		t_fail "first screen: $(grep FAIL "$T_TMP/first.chk" | head -n 2)"
	fi
	if [ -z "${XFSDEFRAG_ASAN:-}" ] && [ -s "$T_TMP/first.png" ]; then
		art=$here/../build/artifacts
		mkdir -p "$art" && cp "$T_TMP/first.png" "$art/.first.$$" &&
			mv -f "$art/.first.$$" "$art/html-first-screen.png" &&
			echo "# the first screen: $(cd "$art" && pwd)/html-first-screen.png"
	fi
fi
t_summary html
