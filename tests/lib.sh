# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for the test scripts (sourced).
T_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Environment:
#   T_VERBOSE=1         print every passing check too
#   T_TAP=1             Test Anything Protocol: "ok N - ...", "not ok N",
#                       "ok N # skip", the plan "1..N" last (set by prove,
#                       which exports HARNESS_ACTIVE)
#   T_CASE=REGEX        run only the cases (fixtures, named groups) whose
#                       name matches (t_case)
#   XFSDEFRAG_NO_MOUNT=1  behave as where loop mounts are not allowed
T_PASS=0
T_FAIL=0
T_SKIP=0
T_N=0
T_TAP=${T_TAP:-${HARNESS_ACTIVE:-}}

t_ok() {
	T_PASS=$((T_PASS + 1)) T_N=$((T_N + 1))
	if [ -n "$T_TAP" ]; then echo "ok $T_N - $*"
	elif [ -n "${T_VERBOSE:-}" ]; then echo "ok   $*"
	fi
	return 0
}
t_fail() {
	T_FAIL=$((T_FAIL + 1)) T_N=$((T_N + 1))
	if [ -n "$T_TAP" ]; then echo "not ok $T_N - $*"; else echo "FAIL $*"; fi
	return 0
}
t_skip() {
	T_SKIP=$((T_SKIP + 1)) T_N=$((T_N + 1))
	if [ -n "$T_TAP" ]; then echo "ok $T_N # skip $*"; else echo "SKIP $*"; fi
	return 0
}

# t_case NAME: is this case selected (T_CASE unset, or NAME matches it)?
t_case() {
	[ -z "${T_CASE:-}" ] && return 0
	[[ $1 =~ $T_CASE ]]
}

# t_summary [NAME [NOTE]]: one line for the script (named after its file),
# exit 1 on any failure, or when nothing at all was tested.
t_summary() {
	local name note=${2:+ ($2)}
	name=$(basename "$0" .sh)
	if [ $((T_PASS + T_FAIL + T_SKIP)) -eq 0 ]; then
		t_fail "nothing was tested${T_CASE:+ (T_CASE=$T_CASE matches no case)}"
	fi
	[ -n "$T_TAP" ] && echo "1..$T_N"
	echo "${T_TAP:+# }$name${XFSDEFRAG_ASAN:+ (asan)}: $T_PASS passed, $T_FAIL failed, $T_SKIP skipped$note"
	[ "$T_FAIL" -eq 0 ]
}

# t_bin ARG: the xfsdefrag binary as an absolute path: the script's first
# argument, else $XFSDEFRAG_BIN, else ./xfsdefrag (so prove can run it).
t_bin() {
	local b=${1:-${XFSDEFRAG_BIN:-./xfsdefrag}}
	echo "$(cd "$(dirname "$b")" && pwd)/$(basename "$b")"
}

# t_built PATH: PATH (relative to a build tree) in the developer tree
# (build/dev: make check, DEVELOPER=1) or the release one (make),
# whichever was built last; the release one's name when neither was.
t_built() {
	local dev=$T_HERE/../build/dev/$1 rel=$T_HERE/../build/release/$1
	if [ -e "$dev" ] && { [ ! -e "$rel" ] || [ "$dev" -nt "$rel" ]; }; then
		echo "$dev"
	else
		echo "$rel"
	fi
}

# t_testbin BIN: the test binary (tests/aids: the product's commands plus
# the test aids) of the build BIN belongs to, as an absolute path:
# $XFSDEFRAG_TEST_BIN, else xfsdefrag-test beside BIN (build/dev/,
# build/asan/), else the one built last (t_built: beside ./xfsdefrag there
# is none).
t_testbin() {
	local b=${1:-${XFSDEFRAG_BIN:-./xfsdefrag}}
	if [ -n "${XFSDEFRAG_TEST_BIN:-}" ]; then
		b=$XFSDEFRAG_TEST_BIN
	elif [ -x "$(dirname "$b")/xfsdefrag-test" ]; then
		b=$(dirname "$b")/xfsdefrag-test
	else
		b=$(t_built xfsdefrag-test)
	fi
	[ -x "$b" ] || echo "t_testbin: $b is not built (make test-bin)" >&2
	echo "$(cd "$(dirname "$b")" && pwd)/$(basename "$b")"
}

# t_fixtures [NAME...]: FIXTURES=(the names given, else every committed
# fixture whose mkfs.opts matches $T_FIXTURE_GREP if set); selected by
# T_CASE.  No fixture at all is a failure, not "0 passed".
t_fixtures() {
	local d n
	FIXTURES=()
	if [ $# -gt 0 ]; then
		FIXTURES=("$@")
	else
		for d in "$T_HERE"/fixtures/*/; do
			[ -f "$d/image.zst" ] || continue
			if [ -n "${T_FIXTURE_GREP:-}" ] &&
			   ! grep -q "$T_FIXTURE_GREP" "$d/mkfs.opts" 2>/dev/null; then
				continue
			fi
			n=$(basename "$d")
			t_case "$n" && FIXTURES+=("$n")
		done
	fi
	if [ ${#FIXTURES[@]} -eq 0 ] && [ -z "${T_CASE:-}" ]; then
		t_fail "no fixtures found in $T_HERE/fixtures"
		t_summary
		exit 1
	fi
	return 0
}

# t_xfsprogs FIXDIR: put first in PATH the xfsprogs that can read that
# fixture (its mkfs.opts says which made it): the distribution's for
# xfsprogs 6.1, the build of tests/fixtures/build-xfsprogs.sh
# ($FX_XFSPROGS, default /work/xfsprogs-6.15) for a newer one (exchange,
# parent pointers, metadir).  1, PATH as it was, when that build is not
# here: the xfsprogs verdicts on that fixture are then skipped.
T_PATH0=$PATH
t_xfsprogs() {
	local v
	PATH=$T_PATH0
	v=$(sed -n 's/^xfsprogs: //p' "$1/mkfs.opts" 2>/dev/null)
	case $v in
	"" | 6.1 | 6.1.*) return 0 ;;
	esac
	[ -x "${FX_XFSPROGS:-/work/xfsprogs-6.15}/sbin/xfs_repair" ] || return 1
	PATH=${FX_XFSPROGS:-/work/xfsprogs-6.15}/sbin:$T_PATH0
}

# t_tmpdir: a scratch directory removed at exit.
t_tmpdir() {
	T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/xfsdefrag-test.XXXXXX")
	trap 't_cleanup' EXIT INT TERM
}

t_cleanup() {
	local m d f
	[ -n "${T_CLEANUP_HOOK:-}" ] && eval "$T_CLEANUP_HOOK"
	[ -n "${T_TMP:-}" ] || return 0
	# whatever a failed case left mounted or attached under T_TMP, even
	# where the host's disk filled up and a case's own umount failed:
	# deepest mount first, then the loop devices of its files
	while read -r m; do
		umount "$m" 2> /dev/null || umount -l "$m" 2> /dev/null
	done < <(awk -v t="$T_TMP/" 'index($2, t) == 1 { print $2 }' \
		/proc/mounts 2> /dev/null | sort -r)
	while IFS=: read -r d f; do
		losetup -d "$d" 2> /dev/null
	done < <(losetup -n -O NAME,BACK-FILE 2> /dev/null |
		 awk -v t="$T_TMP/" 'index($2, t) == 1 { print $1 ":" $2 }')
	rm -rf "$T_TMP"
}

# t_cat FILE: print FILE, or FILE.zst decompressed.
t_cat() {
	if [ -f "$1" ]; then cat "$1"
	elif [ -f "$1.zst" ]; then zstd -dcq "$1.zst"
	else return 1
	fi
}

t_have() { [ -f "$1" ] || [ -f "$1.zst" ]; }

# t_imgsum FILE: a digest of FILE's bytes (tests/imgsum.py: equal exactly
# when the bytes are; reads only the data of a sparse image, where
# sha256sum would hash every hole).
t_imgsum() { python3 "$T_HERE/imgsum.py" "$1"; }

# t_unpack FIXTURE_DIR DEST: decompress the image sparsely.  The first
# unpack of an image.zst keeps the image in build/fixture-cache, named by
# the SHA-256 of the compressed file; later ones (other scripts, the
# sanitizer pass) copy it, and cp --sparse reads only the data where
# zstd decompresses all of it.  XFSDEFRAG_NO_FIXTURE_CACHE=1: no cache.
t_unpack() {
	local c=$T_HERE/../build/fixture-cache key tmp
	if [ -n "${XFSDEFRAG_NO_FIXTURE_CACHE:-}" ] || ! mkdir -p "$c" 2>/dev/null; then
		zstd -dq --sparse -f -o "$2" "$1/image.zst"
		return
	fi
	key=$(sha256sum < "$1/image.zst") || return 1
	key=$c/${key:0:32}.img
	if [ ! -f "$key" ]; then
		# several scripts may unpack at once: each writes its own,
		# the rename is atomic
		tmp=$(mktemp "$key.XXXXXX") || return 1
		zstd -dq --sparse -f -o "$tmp" "$1/image.zst" && chmod 644 "$tmp" &&
			mv -f "$tmp" "$key" || { rm -f "$tmp"; return 1; }
	fi
	cp --sparse=always "$key" "$2"
}

# t_can_mount: root, loop devices, and the kernel takes XFS.
t_can_mount() {
	[ -z "${XFSDEFRAG_NO_MOUNT:-}" ] || return 1
	[ "$(id -u)" -eq 0 ] || return 1
	[ -e /dev/loop-control ] || return 1
	command -v mkfs.xfs >/dev/null 2>&1 || return 1
	return 0
}

# t_need_mount WHAT: true where loop mounts work (t_can_mount); else WHAT
# is skipped, or fails where XFSDEFRAG_REQUIRE_MOUNT is set (as CI sets
# it), and false.
t_need_mount() {
	t_can_mount && return 0
	if [ -n "${XFSDEFRAG_REQUIRE_MOUNT:-}" ]; then
		t_fail "$1: needs root and loop devices (XFSDEFRAG_REQUIRE_MOUNT is set)"
	else
		t_skip "$1: needs a loop mount"
	fi
	return 1
}

# t_loop_gone FILE [LOOPDEV]: wait (a minute at most) until no loop
# device (or LOOPDEV, /dev/loopN) is bound to FILE.  A loop device that
# mount (failing) or umount lets go of stays bound while any other
# process has it open, a parallel test probing loop devices say, and
# xfsdefrag rightly refuses to write a file that backs one: wait before
# writing an image that was mounted.
t_loop_gone() {
	local path f i busy pat=/sys/block/loop*/loop/backing_file
	path=$(realpath "$1") || return 1
	[ -z "${2:-}" ] || pat=/sys/block/${2#/dev/}/loop/backing_file
	for ((i = 0; i < 600; i++)); do
		busy=
		for f in $pat; do
			[ -r "$f" ] || continue
			if [ "$(cat "$f" 2>/dev/null)" = "$path" ]; then
				busy=${f%/loop/backing_file}
				break
			fi
		done
		[ -z "$busy" ] && return 0
		sleep 0.1
	done
	echo "t_loop_gone: $path still backs /dev/${busy##*/}" >&2
	return 1
}

# t_umount DIR: unmount DIR; for a mount -o loop (its loop device goes
# with it), wait until the device lets go of the image (t_loop_gone).
t_umount() {
	local dev sys back=
	dev=$(findmnt -n -o SOURCE --mountpoint "$1" 2>/dev/null)
	sys=/sys/block/${dev#/dev/}/loop
	case $dev in
	/dev/loop*) [ "$(cat "$sys/autoclear" 2>/dev/null)" = 1 ] &&
			back=$(cat "$sys/backing_file" 2>/dev/null) ;;
	esac
	umount "$1" || return 1
	[ -z "$back" ] || t_loop_gone "$back" "$dev"
}

# t_show FILE [N]: the first N (10) lines of FILE, indented: what a failed
# command said.
t_show() {
	[ -s "$1" ] && head -n "${2:-10}" "$1" | sed 's/^/    /'
	return 0
}

# t_json FILE PYTHON-EXPRESSION-ON-d
t_json() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# t_walk_order IMAGE [--name]: walk the tree through a read-only mount on
# $MNT with the kernel's readdir order (or by name) and block maps
# (tests/walkorder.py); "reads N descents D" and the first descents
# land in $T_TMP/walk.out, what mount or the walk said in walk.err.
t_walk_order() {
	local agbytes here
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	agbytes=$(xfs_db -r -c "sb 0" -c "print agblocks" -c "print blocksize" "$1" |
		  awk -F' = ' '{v[NR] = $2} END {print v[1] * v[2]}')
	: > "$T_TMP/walk.out"
	mount -o loop,ro,nouuid "$1" "$MNT" 2> "$T_TMP/walk.err" ||
		{ t_loop_gone "$1"; return 1; }
	python3 "$here/walkorder.py" "$MNT" "$agbytes" ${2:-} > "$T_TMP/walk.out" 2> "$T_TMP/walk.err"
	local rc=$?
	t_umount "$MNT"
	return $rc
}

# t_check_walk BIN NAME IMAGE PLAN.json [--name|--nowalk]: after a run,
# the kernel's walk reads data front to back in each AG but for the reads
# the plan itself predicted out of order, and the read-back figures of the
# result are the plan's prediction.  --nowalk: only the latter (inode
# order is not a tree walk).
t_check_walk() {
	local bin=$1 name=$2 img=$3 plan=$4 want got rb
	want=$(t_json "$plan" 'd["after"]["readback"]["out_of_order"]')
	if [ "${5:-}" != --nowalk ] && t_need_mount "$name: the kernel's walk order"; then
		if t_walk_order "$img" ${5:-}; then
			got=$(sed -n 's/^reads [0-9]* descents \([0-9]*\)$/\1/p' "$T_TMP/walk.out")
		else
			got=
		fi
		if [ -n "$got" ] && [ "$got" -le "$want" ]; then
			t_ok "$name: the walk reads data in disk order per AG ($(head -n 1 "$T_TMP/walk.out"), plan said $want)"
		else
			t_fail "$name: the walk goes back on the disk ${got:-?} times, the plan said $want"
			t_show "$T_TMP/walk.out" 4
			t_show "$T_TMP/walk.err"
		fi
	fi
	"$bin" report --json --order "$(t_json "$plan" 'd["order"]')" "$img" \
		> "$T_TMP/rep2.json" 2> "$T_TMP/rep2.err"
	rb='(lambda r: (r["jumps"], r["far_jumps"], r["hdd_ms"], r["ssd_requests"], r["out_of_order"]))'
	want=$(t_json "$plan" "$rb(d['after']['readback'])")
	got=$(t_json "$T_TMP/rep2.json" "$rb(d['readback'])")
	if [ "$want" = "$got" ]; then t_ok "$name: read-back figures as planned $got"
	else t_fail "$name: read-back figures $got, planned $want"; t_show "$T_TMP/rep2.err"; fi
}
