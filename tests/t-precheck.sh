#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The pre-check refuses what xfs_repair -n rejects.
#   - Every recipe in tests/precheck-misses.txt (damage that a fuzz
#     campaign once got past `run`: byte patches to a fixture image) is
#     replayed: `run` must refuse it and leave the image byte-identical,
#     and where xfs_repair is installed it must still reject it.
#   - A sample of the fuzz campaign (tests/fuzzcamp.py, as make
#     check-long runs it in full): xfs_db fuzz verbs on the fields of
#     every structure type of a few fixtures; every image xfs_repair -n
#     rejects must be refused by `run`, the image untouched.  The sample
#     leaves out the "random" verb, so it is the same every time.
# Usage: t-precheck.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
t_tmpdir
T=$T_TMP

for tool in zstd python3; do
	if ! command -v $tool >/dev/null 2>&1; then
		t_skip "precheck: $tool not installed"
		t_summary precheck
		exit
	fi
done
have() { [ -f "$here/fixtures/$1/image.zst" ]; }

# ---- the recorded misses ---------------------------------------------------

recipes=$here/precheck-misses.txt
n=$(grep -vc '^#' "$recipes" 2>/dev/null)
if [ "${n:-0}" -eq 0 ]; then
	t_fail "no recipes in $recipes"
else
	args=()
	command -v xfs_repair >/dev/null 2>&1 && args+=(--repair)
	if python3 "$here/fuzzcamp.py" replay --bin "$bin" --work "$T/replay" \
		--recipes "$recipes" "${args[@]}" >"$T/replay.out" 2>&1; then
		t_ok "$(tail -n 1 "$T/replay.out")"
	else
		t_fail "replay of the recorded misses"
		grep -v '^ok ' "$T/replay.out" | head -n 20 | sed 's/^/    /'
	fi
fi

# ---- a sample of the campaign ----------------------------------------------

for tool in xfs_db xfs_repair; do
	if ! command -v $tool >/dev/null 2>&1; then
		t_skip "fuzz sample: $tool not installed"
		t_summary precheck
		exit
	fi
done
fixtures=()
for f in aged rmap-nrext64 bs1k; do have "$f" && fixtures+=("$f"); done
if [ ${#fixtures[@]} -eq 0 ]; then
	t_fail "fuzz sample: no fixtures"
	t_summary precheck
	exit
fi
# the sanitizer build is slower: a smaller sample
per=${XFSDEFRAG_PRECHECK_SAMPLE:-60}
[ -n "${XFSDEFRAG_ASAN:-}" ] && per=${XFSDEFRAG_PRECHECK_SAMPLE:-20}
python3 "$here/fuzzcamp.py" precheck --bin "$bin" --work "$T/camp" \
	--per-fixture "$per" --jobs 2 --seed make-check \
	--verbs zeroes,ones,firstbit,middlebit,lastbit,add,sub \
	--misses "$T/misses" "${fixtures[@]}" >"$T/camp.out" 2>&1
rc=$?
line=$(grep '^precheck campaign:' "$T/camp.out")
if [ $rc -eq 0 ] && [ -n "$line" ] && [ ! -s "$T/misses" ]; then
	t_ok "fuzz sample (${fixtures[*]}, $per cases each): $line"
else
	t_fail "fuzz sample: ${line:-no result (exit $rc)}"
	grep '^MISS\|Error\|Traceback' "$T/camp.out" | head -n 10 | sed 's/^/    /'
fi

t_summary precheck
