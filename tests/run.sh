#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The test suite: unit tests, then every image test script, against one
# xfsdefrag binary.  Usage: run.sh --bin BIN [--unit DIR] [--asan]
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin= unit= asan=
while [ $# -gt 0 ]; do
	case $1 in
	--bin) bin=$2; shift 2 ;;
	--unit) unit=$2; shift 2 ;;
	--asan) asan=1; shift ;;
	*) echo "usage: $0 --bin BIN [--unit DIR] [--asan]" >&2; exit 2 ;;
	esac
done
[ -x "$bin" ] || { echo "run.sh: no binary $bin" >&2; exit 2; }
export XFSDEFRAG_ASAN=$asan

failed=0
label=${asan:+" (asan)"}
if [ -n "$unit" ]; then
	for t in "$unit"/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		"$t" || { echo "FAIL unit $(basename "$t")$label"; failed=1; }
	done
fi
for t in "$here"/t-*.sh; do
	echo "== $(basename "$t")$label"
	"$t" "$bin" || failed=1
done
if [ $failed -ne 0 ]; then
	echo "test suite$label: FAILED"
	exit 1
fi
echo "test suite$label: all passed"
