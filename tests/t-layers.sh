#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The include rule (tests/layers.sh) holds on the tree, and the checker
# catches each kind of violation when one is planted in a copy.
# Usage: t-layers.sh XFSDEFRAG (the binary is not used)
# asan-pass: check-long (the binary is not used: the same checks again)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
top=$(cd "$here/.." && pwd)
t_tmpdir

if out=$("$here/layers.sh" "$top" 2>&1); then
	t_ok "the tree keeps the include rule"
else
	t_fail "include rule broken:"; echo "$out"
fi

# plant DESC FILE LINE: the checker must reject a copy with LINE in FILE
plant() {
	rm -rf "$T_TMP/tree"
	mkdir -p "$T_TMP/tree"
	mkdir -p "$T_TMP/tree/tests"
	(cd "$top" && cp -r ondisk core cmd tui "$T_TMP/tree/" &&
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
t_summary t-layers
