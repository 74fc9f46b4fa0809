#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The command line and the documentation: exit codes for usage errors,
# --help for every command, every command in the man page (its options:
# t-manpage, their values: t-options), no test aid in the product, and
# make install laying out the binary, the page and the bash completion.
# Usage: t-cli.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
top=$(cd "$here/.." && pwd)
t_tmpdir

expect() {	# CODE DESCRIPTION ARGS...
	local code=$1 what=$2
	shift 2
	"$bin" "$@" > "$T_TMP/out" 2> "$T_TMP/err"
	local rc=$?
	if [ $rc -eq "$code" ]; then t_ok "$what: exit $rc"
	else t_fail "$what: exit $rc, expected $code ($(head -n 1 "$T_TMP/err"))"; fi
}

expect 2 "no arguments"
expect 2 "unknown command" frobnicate
expect 0 "--help" --help
expect 0 "--version" --version
cmds=$("$bin" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
[ -n "$cmds" ] || t_fail "--help lists no commands"
for c in $cmds; do
	expect 0 "$c --help" "$c" --help
	expect 2 "$c without arguments" "$c"
	if grep -q "^\.BI* \"*$c " "$top/man/xfsdefrag.8" ||
	   grep -q "^\.B xfsdefrag $c\$" "$top/man/xfsdefrag.8"; then
		t_ok "man page documents $c"
	else
		t_fail "man page does not document $c"
	fi
done
# the product ships no test aids (tests/aids/README.md): no debug
# commands, no fault or bench options, no switch read from the
# environment; the test binary has them all (so these checks can fail)
for c in debug-scribble debug-compare debug-inoruns; do
	expect 2 "the product has no $c" "$c" x y
	grep -q "unknown command '$c'" "$T_TMP/err" ||
		t_fail "$c: $(head -n 1 "$T_TMP/err")"
done
expect 2 "the product's run has no --fault-after" run --fault-after 1 x
expect 2 "the product's tui has no --bench-map" tui --bench-map 1 x
aids="fault-after fault-error fault-dead fault-pass bench-map debug-scribble
debug-compare debug-inoruns XFSDEFRAG_READER XFSDEFRAG_CHECK XFSDEFRAG_TIMING"
strings -a "$bin" > "$T_TMP/strings"
bad=
for a in $aids; do grep -q -- "$a" "$T_TMP/strings" && bad="$bad $a"; done
[ -z "$bad" ] && t_ok "the product's binary holds no test aid's name" ||
	t_fail "the product's binary holds:$bad"
tbin=$(t_testbin "$bin" 2> /dev/null)
if [ -x "$tbin" ]; then
	strings -a "$tbin" > "$T_TMP/strings"
	bad=
	for a in fault-after fault-dead bench-map debug-scribble debug-compare debug-inoruns; do
		grep -q -- "$a" "$T_TMP/strings" || bad="$bad $a"
	done
	"$tbin" debug-compare > /dev/null 2>&1
	[ $? -eq 2 ] && [ -z "$bad" ] && t_ok "the test binary has the aids" ||
		t_fail "the test binary lacks:$bad"
else
	t_skip "no test binary (make test-bin): its aids not looked for"
fi
expect 2 "bmap with a bad option" bmap -Z x y
expect 2 "report with a bad AG number" report -a x y
expect 1 "info on a missing image" info "$T_TMP/nonexistent"

grep -q "^\.SH EXIT STATUS" "$top/man/xfsdefrag.8" && t_ok "man page has EXIT STATUS" ||
	t_fail "man page lacks EXIT STATUS"

if [ -z "${XFSDEFRAG_ASAN:-}" ]; then
	if make -s -C "$top" install DESTDIR="$T_TMP/root" PREFIX=/usr > "$T_TMP/inst" 2>&1 &&
	   [ -x "$T_TMP/root/usr/sbin/xfsdefrag" ] &&
	   [ -f "$T_TMP/root/usr/share/man/man8/xfsdefrag.8" ] &&
	   cmp -s "$T_TMP/root/usr/share/bash-completion/completions/xfsdefrag" \
		"$top/cmd/xfsdefrag.bash"; then
		t_ok "make install DESTDIR=... PREFIX=/usr"
	else
		t_fail "make install: $(tail -n 2 "$T_TMP/inst")"
	fi
fi
# make demo: the main job on the sample image, start to finish
if [ -z "${XFSDEFRAG_ASAN:-}" ] && [ -f "$top/tests/fixtures/aged/image.zst" ]; then
	if make -s -C "$top" demo > "$T_TMP/demo" 2>&1 &&
	   grep -q "^== 2. run" "$T_TMP/demo" &&
	   grep -q "verified: consistent" "$T_TMP/demo" &&
	   grep -q "the filesystem is as it was before the run" "$T_TMP/demo" &&
	   [ "$(grep -c "is consistent:" "$T_TMP/demo")" -eq 2 ] &&
	   html=$(sed -n 's/^HTML report.*: //p' "$T_TMP/demo") &&
	   [ -s "$html" ] && grep -q '<svg class="agmap"' "$html"; then
		t_ok "make demo: plan, run, check, undo, and the HTML report named"
	else
		t_fail "make demo: $(tail -n 3 "$T_TMP/demo")"
	fi
fi
t_summary cli
