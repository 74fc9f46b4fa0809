#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run the libFuzzer target: first every input in tests/fuzz/regress (each
# once crashed, hung or leaked; all must pass now), then fuzz for SECONDS
# with the corpus kept in build/fuzz/corpus and crashes saved in
# build/fuzz/artifacts.  FUZZ_JOBS=N runs N processes (-fork=N).
# Usage: run.sh FUZZER SECONDS [LIBFUZZER-OPTION...]
set -eu
[ $# -ge 2 ] || { echo "usage: $0 FUZZER SECONDS [OPTION...]" >&2; exit 2; }
bin=$1 secs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
out=build/fuzz
base=${XFSDEFRAG_FUZZ_BASE:-$out/base}
if ! ls "$base"/*.img >/dev/null 2>&1; then
	"$here/mkbase.sh" "$base"
fi
export XFSDEFRAG_FUZZ_BASE="$base"
mkdir -p "$out/corpus" "$out/artifacts"

set -- -timeout=10 -rss_limit_mb=2048 -max_len=258 -len_control=0 \
	-use_value_profile=1 "$@"
if ls "$here"/regress/* >/dev/null 2>&1; then
	echo "fuzz: $(ls "$here"/regress | wc -l) regression inputs"
	"$bin" "$@" "$here"/regress/* 2>"$out/regress.log" || {
		cat "$out/regress.log" >&2
		echo "fuzz: a regression input fails again" >&2
		exit 1
	}
fi
jobs=${FUZZ_JOBS:-1}
[ "$jobs" -gt 1 ] && set -- "-fork=$jobs" "$@"
exec "$bin" "$@" -max_total_time="$secs" -print_final_stats=1 \
	-artifact_prefix="$out/artifacts/" "$out/corpus" "$here/seeds"
