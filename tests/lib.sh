# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the test scripts (sourced).

T_PASS=0
T_FAIL=0
T_SKIP=0

t_ok()   { T_PASS=$((T_PASS + 1)); [ -n "${T_VERBOSE:-}" ] && echo "ok   $*"; return 0; }
t_fail() { T_FAIL=$((T_FAIL + 1)); echo "FAIL $*"; return 0; }
t_skip() { T_SKIP=$((T_SKIP + 1)); echo "SKIP $*"; return 0; }

# t_summary NAME: print the tally, exit 1 on any failure.
t_summary() {
	echo "$1: $T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	[ "$T_FAIL" -eq 0 ]
}

# t_tmpdir: a scratch directory removed at exit.
t_tmpdir() {
	T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/xfsdefrag-test.XXXXXX")
	trap 't_cleanup' EXIT INT TERM
}

t_cleanup() {
	[ -n "${T_CLEANUP_HOOK:-}" ] && eval "$T_CLEANUP_HOOK"
	[ -n "${T_TMP:-}" ] && rm -rf "$T_TMP"
}

# t_cat FILE: print FILE, or FILE.zst decompressed.
t_cat() {
	if [ -f "$1" ]; then cat "$1"
	elif [ -f "$1.zst" ]; then zstd -dcq "$1.zst"
	else return 1
	fi
}

t_have() { [ -f "$1" ] || [ -f "$1.zst" ]; }

# t_unpack FIXTURE_DIR DEST: decompress the image sparsely.
t_unpack() {
	zstd -dq --sparse -f -o "$2" "$1/image.zst"
}

# t_can_mount: root, loop devices, and the kernel takes XFS.
t_can_mount() {
	[ "$(id -u)" -eq 0 ] || return 1
	[ -e /dev/loop-control ] || return 1
	command -v mkfs.xfs >/dev/null 2>&1 || return 1
	return 0
}
