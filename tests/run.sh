#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The test suite: unit tests, then every image test script, against one
# xfsdefrag binary; one summary line per unit test and per script.
#
#   run.sh --bin BIN [--unit DIR] [--asan] [--tap] [NAME...] [-- ARG...]
#
# NAME picks what runs: a script (t-check, or t-check.sh) or a unit test
# (test_records); several may be given; none: everything.  ARGs go to
# every script run (fixture names: run.sh --bin ./xfsdefrag t-check --
# aged).  T_CASE=REGEX selects cases inside the scripts (fixtures, named
# groups), T_VERBOSE=1 prints every passing check, --tap (or T_TAP=1)
# makes each script speak TAP.  Unit tests run from the top of the tree
# (they read tests/fixtures and build/fuzz/base).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
bin= unit= asan= names=() args=()
usage() {
	echo "usage: $0 --bin BIN [--unit DIR] [--asan] [--tap] [NAME...] [-- ARG...]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--bin) [ $# -ge 2 ] || usage; bin=$2; shift 2 ;;
	--unit) [ $# -ge 2 ] || usage; unit=$2; shift 2 ;;
	--asan) asan=1; shift ;;
	--tap) export T_TAP=1; shift ;;
	--) shift; args=("$@"); break ;;
	-*) usage ;;
	*) names+=("${1%.sh}"); shift ;;
	esac
done
[ -x "$bin" ] || { echo "run.sh: no binary $bin" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
[ -z "$unit" ] || unit=$(cd "$unit" && pwd) || exit 2
export XFSDEFRAG_ASAN=$asan

# wanted NAME: was it asked for (or was nothing asked for)?
wanted() {
	local n
	[ ${#names[@]} -eq 0 ] && return 0
	for n in "${names[@]}"; do [ "$n" = "$1" ] && return 0; done
	return 1
}

failed=0 ran=0
label=${asan:+" (asan)"}

# timed NAME CMD...: run CMD, then one line with its wall and CPU time
# (user+sys of it and its children: the figure that holds on a loaded
# machine, where wall time depends on the neighbours).
timed() {
	local name=$1 rc tf
	shift
	tf=$(mktemp "${TMPDIR:-/tmp}/xfsdefrag-time.XXXXXX")
	{ TIMEFORMAT='%R %U %S'; time "$@" 2>&3; } 3>&2 2>"$tf"
	rc=$?
	read -r w u s < "$tf"
	rm -f "$tf"
	awk -v n="$name$label" -v w="$w" -v u="$u" -v s="$s" 'BEGIN {
		printf "time %s: wall %.1f s, cpu %.1f s (user %.1f, sys %.1f)\n",
		       n, w, u + s, u, s }'
	return $rc
}
if [ -n "$unit" ]; then
	for t in "$unit"/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		wanted "$(basename "$t")" || continue
		ran=$((ran + 1))
		(cd "$top" && timed "$(basename "$t")" "$t") || { echo "FAIL unit $(basename "$t")$label"; failed=1; }
	done
fi
for t in "$here"/t-*.sh; do
	wanted "$(basename "$t" .sh)" || continue
	ran=$((ran + 1))
	timed "$(basename "$t" .sh)" "$t" "$bin" "${args[@]}" || failed=1
done
if [ $ran -eq 0 ]; then
	echo "run.sh: nothing matches ${names[*]}" >&2
	exit 2
fi
if [ $failed -ne 0 ]; then
	echo "test suite$label: FAILED"
	exit 1
fi
echo "test suite$label: all passed"
