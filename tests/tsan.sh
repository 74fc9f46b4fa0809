#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ThreadSanitizer over the threaded code: the parallel scan (report, also
# with more threads than AGs and than cores), the checker's per-AG phases
# (check -j), and the planner fed by the scan, on every fixture; a data
# race or a lock-order problem fails the run (halt_on_error).  The
# output must also equal the release binary's, when one is given.
# Usage: tests/tsan.sh TSAN-XFSDEFRAG [RELEASE-XFSDEFRAG]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
ref=${2:-}
[ -z "$ref" ] || ref=$(t_bin "$ref")
t_tmpdir
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"

t_fixtures
for f in "${FIXTURES[@]}"; do
	img=$T_TMP/$f.img
	t_unpack "$here/fixtures/$f" "$img" || { t_fail "$f: cannot unpack"; continue; }
	for cmd in "report -j 2" "report -j 7 --json" "check -j 3" "check -j 16" "plan"; do
		# shellcheck disable=SC2086
		"$bin" $cmd "$img" > "$T_TMP/out" 2> "$T_TMP/err"
		rc=$?
		if [ $rc -eq 66 ] || grep -q 'ThreadSanitizer' "$T_TMP/err"; then
			t_fail "$f: $cmd: ThreadSanitizer: $(grep -m1 'WARNING\|ERROR' "$T_TMP/err")"
			sed -n '1,30p' "$T_TMP/err" | sed 's/^/    /'
			continue
		fi
		if [ -n "$ref" ]; then
			# shellcheck disable=SC2086
			"$ref" $cmd "$img" 2>/dev/null | sed -E 's/("seconds": )[0-9.]+/\1T/' > "$T_TMP/want"
			sed -i -E 's/("seconds": )[0-9.]+/\1T/' "$T_TMP/out"
			cmp -s "$T_TMP/want" "$T_TMP/out" ||
				{ t_fail "$f: $cmd: output differs from the release build's"; continue; }
		fi
		t_ok "$f: $cmd (exit $rc), no race"
	done
	rm -f "$img"
done
t_summary
