#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The include rule (tests/layers.sh) holds on the tree, and so does
# ondisk's ownership of field offsets (no byte-order access, no literal
# offset into a byte buffer outside ondisk/); the checker catches each
# kind of violation when one is planted in a copy.
# Usage: t-layers.sh XFSDEFRAG (the binary is not used)
# asan-pass: check-long (the binary is not used: the same checks again)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
top=$(cd "$here/.." && pwd)
t_tmpdir

if out=$("$here/layers.sh" "$top" 2>&1); then
	t_ok "the tree keeps the include rule, and outside ondisk/ no" \
	     "byte-order access and no literal field offset"
else
	t_fail "include rule or ondisk's field offsets broken:"; echo "$out"
fi

# copy_tree: a fresh copy of the sources in $T_TMP/tree
copy_tree() {
	rm -rf "$T_TMP/tree"
	mkdir -p "$T_TMP/tree"
	(cd "$top" && cp -r ondisk core cmd tui html "$T_TMP/tree/")
}

# plant_raw DESC FILE CODE: ondisk/ owns every field offset: CODE (a
# field read or written by hand) added to a copy of FILE outside ondisk/
# must be named, FILE and its line; in an ondisk/ file it must pass.
plant_raw() {
	local out
	copy_tree
	printf '%s\n' "$3" >> "$T_TMP/tree/$2"
	if out=$("$here/layers.sh" "$T_TMP/tree" 2>&1); then
		t_fail "$1: not caught"
	elif printf '%s\n' "$out" | grep -q "^$2:[0-9]*: a .* outside ondisk/" &&
	     ! printf '%s\n' "$out" | grep -vq "^$2:"; then
		t_ok "$1: caught (${out%%$'\n'*})"
	else
		t_fail "$1: wrong report: $out"
	fi
	copy_tree
	printf '%s\n' "$3" >> "$T_TMP/tree/ondisk/sb.c"
	if out=$("$here/layers.sh" "$T_TMP/tree" 2>&1); then
		t_ok "$1: allowed in ondisk/"
	else
		t_fail "$1: refused in ondisk/: $out"
	fi
}
plant_raw "a big-endian read" core/check/check.c \
	'static uint32_t planted(const uint8_t *raw) { return od_get_be32(raw + 16); }'
plant_raw "a big-endian write" core/relocate/exec.c \
	'static void planted(uint8_t *b, uint64_t v) { od_put_be64(b, v); }'
plant_raw "be32toh" core/fs/fs.c \
	'static uint32_t planted(uint32_t v) { return be32toh(v); }'
plant_raw "bswap_16" tui/tui.c \
	'static uint16_t planted(uint16_t v) { return bswap_16(v); }'
plant_raw "a literal byte index" core/model/scan.c \
	$'static int planted(const uint8_t *raw)\n{\n\treturn raw[82] * 8;\n}'
plant_raw "a literal pointer offset" cmd/info.c \
	$'static const uint8_t *planted(void *p)\n{\n\tconst uint8_t *buf = p;\n\n\treturn buf + 108;\n}'
plant_raw "a record stride" core/fs/fork.c \
	$'static const unsigned char *planted(const unsigned char *fork, int i)\n{\n\treturn fork + 16 * i;\n}'
copy_tree
printf '%s\n' '/* od_get_be32(raw + 16), raw[82] */' \
	'static const char *planted(void) { return "be32toh(x)"; }' \
	'static int planted2(const char *s) { return s[5]; }' \
	'static int planted3(const uint8_t *name) { return name[0] == 46 && name[1]; }' \
	>> "$T_TMP/tree/core/check/check.c"
if out=$("$here/layers.sh" "$T_TMP/tree" 2>&1); then
	t_ok "comments, strings, char strings and a name's first bytes pass"
else
	t_fail "false alarm: $out"
fi

# plant DESC FILE LINE: the checker must reject a copy with LINE in FILE
plant() {
	rm -rf "$T_TMP/tree"
	mkdir -p "$T_TMP/tree"
	mkdir -p "$T_TMP/tree/tests"
	(cd "$top" && cp -r ondisk core cmd tui html "$T_TMP/tree/" &&
		cp -r tests/aids "$T_TMP/tree/tests/")
	echo "$3" >> "$T_TMP/tree/$2"
	if out=$("$here/layers.sh" "$T_TMP/tree" 2>&1); then
		t_fail "$1: not caught"
	elif printf '%s\n' "$out" | grep -q "^$2: includes"; then
		t_ok "$1: caught ($out)"
	else
		t_fail "$1: wrong report: $out"
	fi
}
plant "fs depends on relocate" core/fs/fs.c '#include "core/relocate/plan.h"'
plant "check includes relocate" core/check/check.c '#include "core/relocate/exec.h"'
plant "check includes undo" core/check/check.c '#include "core/undo/undo.h"'
plant "undo includes relocate" core/undo/chain.c '#include "core/relocate/plan.h"'
plant "undo includes model" core/undo/undo.c '#include "core/model/model.h"'
plant "relocate includes check" core/relocate/plan.c '#include "core/check/check.h"'
plant "ondisk includes core" ondisk/sb.c '#include "core/base/err.h"'
plant "tui includes relocate" tui/tui.c '#include "core/relocate/plan.h"'
plant "a relative include" core/model/scan.c '#include "../fs/fs.h"'
plant "the product includes a test aid" cmd/run.c '#include "tests/aids/aids.h"'
plant "the browser includes a test aid" tui/tui.c '#include "tests/aids/aids.h"'
plant "the HTML report includes a command" html/doc.c '#include "cmd/cmd.h"'
plant "the HTML report includes the browser" html/map.c '#include "tui/tui.h"'
plant "the HTML report includes the checker" html/doc.c '#include "core/check/check.h"'
plant "core includes the HTML report" core/model/report.c '#include "html/html.h"'
plant "the browser includes the HTML report" tui/tui.c '#include "html/html.h"'
t_summary t-layers
