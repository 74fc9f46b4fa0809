#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The emulated disk of the read-back benches (bench/hddemu):
#   - its cost model, through the replay driver: each request's kind and
#     charge against figures worked out by hand for a stream, a gap read
#     through, seeks forward and back, cache hits, a segment growing with
#     its stream (and its size limit), LRU eviction, writes, a reset;
#   - the FUSE disk under the real kernel (where /dev/fuse exists): a loop
#     device with direct I/O passes every read down (a second read of the
#     same bytes is charged, as a cache hit), a sequential read costs one
#     seek and the transfer, replies are held back (wall time at least
#     busy / scale), and an XFS mounted read-write through it keeps what
#     was written (xfs_repair -n, the bytes read back cold).
# The sanitizer pass replays with the sanitizer build of the driver and
# leaves the mount to the release pass.  Usage: t-hddemu.sh XFSDEFRAG
# (the binary is not used)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
top=$(cd "$here/.." && pwd)
t_tmpdir
replay=$(t_built bench/hddemu/hddreplay)
[ -z "${XFSDEFRAG_ASAN:-}" ] || replay=$top/build/asan/bench/hddemu/hddreplay
hddemu=$(t_built bench/hddemu/hddemu)

# ---- the cost model ---------------------------------------------------
# A case is a request list and, for each request, the kind and the
# charge in seconds expected, as Python expressions of
#   P = 4.17e-3 + 0.8e-3 (rotation and settle), T = 150e6 (platter),
#   C = 600e6 (cache), M = 2**20, S(d) = 8e-3 * sqrt(d / 2**40).
# The driver's totals must be the sum of the charges and the counts of
# each kind.
model_case() {	# NAME [-p NAME=VALUE]... <<< "op off len | kind | cost"
	local name=$1 out
	shift
	t_case "model-$name" || return 0
	cat > "$T_TMP/case"
	sed 's/|.*//' "$T_TMP/case" > "$T_TMP/req"
	if ! out=$("$replay" -v "$@" "$T_TMP/req" 2>&1); then
		t_fail "model $name: hddreplay failed: $out"
		return
	fi
	printf '%s\n' "$out" > "$T_TMP/out"
	if out=$(python3 - "$T_TMP/case" "$T_TMP/out" <<'PY'
import math, sys
P, T, C, M = 4.17e-3 + 0.8e-3, 150e6, 600e6, 2**20
def S(d):
    return 8e-3 * math.sqrt(d / 2**40)
want = []
for line in open(sys.argv[1]):
    req, kind, cost = (f.strip() for f in line.split("|"))
    want.append((req, kind, eval(cost)))
got = [l.split() for l in open(sys.argv[2])]
reqs = [g for g in got if len(g) == 5]
stats = {g[0]: float(g[1]) for g in got if len(g) == 2}
bad = []
if len(reqs) != sum(1 for w in want if w[0] != "reset"):
    bad.append("%d requests charged, %d sent" % (len(reqs), len(want)))
i = 0
for req, kind, cost in want:
    if req == "reset":
        continue
    op, off, ln, k, c = reqs[i]
    i += 1
    if k != kind or abs(float(c) - cost) > 1e-9:
        bad.append("%s: %s %s s, expected %s %.9f s" % (req, k, c, kind, cost))
# the counters count from the last reset
tail = want[max([j for j, w in enumerate(want) if w[0] == "reset"] + [-1]) + 1:]
total = sum(w[2] for w in tail)
if abs(stats["busy_s"] - total) > 1e-8:
    bad.append("busy_s %.9f, expected %.9f" % (stats["busy_s"], total))
for k in ("stream", "gap", "seek", "hit"):
    n = sum(1 for w in tail if w[1] == k)
    if stats[k + "s"] != n:
        bad.append("%ss %d, expected %d" % (k, stats[k + "s"], n))
print("; ".join(bad) if bad else "%d requests, busy %.6f s" % (len(reqs), stats["busy_s"]))
sys.exit(1 if bad else 0)
PY
	); then
		t_ok "model $name: $out"
	else
		t_fail "model $name: $out"
	fi
}

if [ ! -x "$replay" ]; then
	t_fail "no $replay (make check builds it)"
else
	# the head starts parked at 0: the first request seeks over 0 bytes
	model_case stream <<-'EOF'
	r 0 65536 | seek | P + 65536 / T
	r 65536 65536 | stream | 65536 / T
	r 131072 131072 | stream | 131072 / T
	r 262144 4096 | stream | 4096 / T
	EOF
	# no read-ahead: a forward gap of up to 1 MiB passes under the head,
	# one byte more is a seek; backwards is a seek
	model_case gap -p ra=0 <<-'EOF'
	r 0 4096 | seek | P + 4096 / T
	r 524288 8192 | gap | (524288 - 4096 + 8192) / T
	r 1581056 4096 | gap | (M + 4096) / T
	r 2633729 4096 | seek | P + S(M + 1) + 4096 / T
	r 2633728 4096 | seek | P + S(4097) + 4096 / T
	EOF
	# with read-ahead: a request that starts in the segment but ends past
	# it is read through from the head, not served by the cache
	model_case gap-past-cache <<-'EOF'
	r 0 4096 | seek | P + 4096 / T
	r 1048576 8192 | gap | (M - 4096 + 8192) / T
	EOF
	model_case seek <<-'EOF'
	r 0 4096 | seek | P + 4096 / T
	r 1099511627776 4096 | seek | P + S(2**40 - 4096) + 4096 / T
	r 4096000 65536 | seek | P + S(2**40 + 4096 - 4096000) + 65536 / T
	r 1000000000 512 | seek | P + S(1000000000 - 4096000 - 65536) + 512 / T
	EOF
	# a read inside what the drive read on after a platter read: cache
	# rate, no seek, the head stays; continuing the head is a stream even
	# inside a segment
	model_case hit <<-'EOF'
	r 10485760 65536 | seek | P + S(10 * M) + 65536 / T
	r 20971520 65536 | seek | P + S(10 * M - 65536) + 65536 / T
	r 10616832 65536 | hit | 65536 / C
	r 10485760 1114112 | hit | 1114112 / C
	r 10485760 1114113 | seek | P + S(10 * M + 65536) + 1114113 / T
	r 21037056 65536 | hit | 65536 / C
	r 11599873 4096 | stream | 4096 / T
	EOF
	# the stream's segment grows with it, keeping its last 4 MiB: after
	# 5 MiB read from 0 it holds [2 MiB, 6 MiB); unbounded it holds all
	model_case growth <<-'EOF'
	r 0 1048576 | seek | P + M / T
	r 1048576 1048576 | stream | M / T
	r 2097152 1048576 | stream | M / T
	r 3145728 1048576 | stream | M / T
	r 4194304 1048576 | stream | M / T
	r 104857600 4096 | seek | P + S(100 * M - 5 * M) + 4096 / T
	r 5242880 1048576 | hit | M / C
	r 2097152 65536 | hit | 65536 / C
	r 2031616 65536 | seek | P + S(100 * M + 4096 - 2031616) + 65536 / T
	EOF
	model_case growth-unbounded -p seg_max=0 <<-'EOF'
	r 0 1048576 | seek | P + M / T
	r 1048576 1048576 | stream | M / T
	r 2097152 1048576 | stream | M / T
	r 104857600 4096 | seek | P + S(100 * M - 3 * M) + 4096 / T
	r 0 4194304 | hit | 4 * M / C
	EOF
	# 16 segments, least recently used replaced: segment 0 is used again
	# before the 17th fill, so the 17th replaces segment 1, not 0
	model_case lru < <(
		for k in $(seq 0 15); do
			prev=$(( k ? (k - 1) * 104857600 + 4096 : 0 ))
			echo "r $((k * 104857600)) 4096 | seek | P + S($((k * 104857600 - prev))) + 4096 / T"
		done
		echo "r 8192 4096 | hit | 4096 / C"
		echo "r $((16 * 104857600)) 4096 | seek | P + S($((104857600 - 4096))) + 4096 / T"
		echo "r 12288 4096 | hit | 4096 / C"
		echo "r $((2 * 104857600 + 8192)) 4096 | hit | 4096 / C"
		echo "r $((104857600 + 8192)) 4096 | seek | P + S($((15 * 104857600 - 4096))) + 4096 / T"
	)
	# writes: positioned alike, read nothing ahead, never hit the cache;
	# a read continuing a write streams
	model_case write <<-'EOF'
	w 0 4096 | seek | P + 4096 / T
	r 4096 4096 | stream | 4096 / T
	w 8192 4096 | stream | 4096 / T
	w 4096 4096 | seek | P + S(8192) + 4096 / T
	w 40960 4096 | gap | (40960 - 8192 + 4096) / T
	r 8192 4096 | hit | 4096 / C
	EOF
	# a reset parks the head and empties the cache
	model_case reset <<-'EOF'
	r 1048576 4096 | seek | P + S(M) + 4096 / T
	reset | - | 0
	r 1048576 4096 | seek | P + S(M) + 4096 / T
	r 1052672 4096 | stream | 4096 / T
	EOF
	if t_case model-bad; then
		if printf 'r 1 2\nx 3 4\n' | "$replay" > /dev/null 2>&1; then
			t_fail "model: a malformed request line is accepted"
		else
			t_ok "model: a malformed request line is refused"
		fi
	fi
fi

# ---- the FUSE disk under the real kernel ------------------------------
fuse_tests() {
	local img=$T_TMP/img fm=$T_TMP/fuse mnt=$T_TMP/mnt dev= pid= w0 w1 out
	mkdir -p "$fm" "$mnt"
	truncate -s 320m "$img"
	mkfs.xfs -q -f "$img" || { t_fail "fuse: mkfs.xfs failed"; return; }
	T_CLEANUP_HOOK='mountpoint -q "$T_TMP/mnt" && umount "$T_TMP/mnt";
		[ -z "${T_DEV:-}" ] || losetup -d "$T_DEV" 2>/dev/null;
		mountpoint -q "$T_TMP/fuse" && umount "$T_TMP/fuse"; true'
	start() {	# SCALE
		"$hddemu" -f -o "scale=$1,trace=$T_TMP/trace" "$img" "$fm" \
			> "$T_TMP/hddemu.log" 2>&1 &
		pid=$!
		for _ in $(seq 100); do
			mountpoint -q "$fm" && break
			sleep 0.1
		done
		mountpoint -q "$fm" || { t_fail "fuse: hddemu did not mount: $(cat "$T_TMP/hddemu.log")"; return 1; }
		dev=$(losetup --direct-io=on -f --show "$fm/disk") || return 1
		T_DEV=$dev
	}
	stop() {
		mountpoint -q "$mnt" && t_umount "$mnt"
		[ -z "$dev" ] || losetup -d "$dev"
		dev= T_DEV=
		# the loop device lets go of the file a moment after -d
		for _ in $(seq 100); do
			umount "$fm" 2>/dev/null && break
			sleep 0.1
		done
		mountpoint -q "$fm" && umount "$fm"
		wait "$pid"
	}
	stat_of() { awk -v k="$1" '$1 == k {print $2}' "$fm/stats"; }

	start 1 || return
	# one sequential read from 64 MiB, cold: one seek, then streams
	echo > "$fm/stats"
	w0=$EPOCHREALTIME
	dd if="$dev" of=/dev/null bs=1M skip=64 count=4 iflag=direct status=none
	w1=$EPOCHREALTIME
	out=$(python3 -c '
import math, sys
busy, reads, seeks, hits, nbytes, w0, w1 = map(float, sys.argv[1:])
wall = w1 - w0
want = 4.97e-3 + 8e-3 * math.sqrt(64 * 2**20 / 2**40) + 4 * 2**20 / 150e6
ok = abs(busy - want) < 1e-6 and seeks == 1 and hits == 0 and nbytes == 4 * 2**20
print("%s busy %.6f s (expected %.6f) in %d reads, %d seeks, %d bytes" %
      ("ok" if ok else "bad", busy, want, reads, seeks, nbytes))
ok2 = wall >= busy * 0.95
print("%s wall %.3f s for busy %.3f s at scale 1" % ("ok" if ok2 else "bad", wall, busy))
' "$(stat_of busy_s)" "$(stat_of reads)" "$(stat_of seeks)" "$(stat_of hits)" \
		"$(stat_of bytes_read)" "$w0" "$w1")
	while read -r verdict rest; do
		if [ "$verdict" = ok ]; then t_ok "fuse: sequential read: $rest"
		else t_fail "fuse: sequential read: $rest"; fi
	done <<< "$out"
	# the same 64 KiB twice: the second reaches the disk, from its cache;
	# on a loop device without direct I/O too (no page cache in FUSE)
	twice() {	# WHAT
		echo > "$fm/stats"
		dd if="$dev" of=/dev/null bs=64k skip=3000 count=1 iflag=direct status=none
		dd if="$dev" of=/dev/null bs=64k skip=3000 count=1 iflag=direct status=none
		if [ "$(stat_of reads)" = 2 ] && [ "$(stat_of hits)" = 1 ]; then
			t_ok "fuse: $1: a second read of the same bytes reaches the disk (a cache hit)"
		else
			t_fail "fuse: $1: two reads of the same bytes: $(tr '\n' ' ' < "$fm/stats")"
		fi
	}
	twice "loop device with direct I/O"
	losetup -d "$dev"
	dev=$(losetup -f --show "$fm/disk") && T_DEV=$dev && twice "buffered loop device"
	losetup -d "$dev"
	dev=$(losetup --direct-io=on -f --show "$fm/disk") && T_DEV=$dev
	# a filesystem mounted read-write through it
	head -c 3000000 /dev/urandom > "$T_TMP/data"
	echo > "$fm/stats"
	mount "$dev" "$mnt" && mkdir "$mnt/d" && cp "$T_TMP/data" "$mnt/d/f" &&
		t_umount "$mnt"
	if [ "$(stat_of writes)" -gt 0 ] && [ "$(stat_of bytes_written)" -ge 3000000 ]; then
		t_ok "fuse: writes through a read-write mount are charged ($(stat_of writes) writes, $(stat_of bytes_written) bytes)"
	else
		t_fail "fuse: writes not charged: $(tr '\n' ' ' < "$fm/stats")"
	fi
	stop
	if out=$(xfs_repair -n "$img" 2>&1); then
		t_ok "fuse: xfs_repair -n accepts the image written through hddemu"
	else
		t_fail "fuse: xfs_repair -n rejects it: $(echo "$out" | head -n 3)"
	fi
	# read back cold through a fresh hddemu, at scale 1000
	start 1000 || return
	sync
	echo 3 > /proc/sys/vm/drop_caches
	echo > "$fm/stats"
	if mount -o ro "$dev" "$mnt" && cmp -s "$T_TMP/data" "$mnt/d/f"; then
		t_ok "fuse: the file reads back whole ($(stat_of reads) reads, busy $(stat_of busy_s) s)"
	else
		t_fail "fuse: the file written does not read back"
	fi
	t_umount "$mnt"
	grep -v '^scale' "$fm/stats" > "$T_TMP/stats"
	stop
	# the trace (both runs, a "reset" at each reset) replays to the
	# counters the stats file showed: the FUSE disk charges what the
	# model does, in the order it logged
	if "$replay" "$T_TMP/trace" | cmp -s - "$T_TMP/stats"; then
		t_ok "fuse: its trace replays to the same counters ($(wc -l < "$T_TMP/trace") lines)"
	else
		t_fail "fuse: the trace replays to other counters: $("$replay" "$T_TMP/trace" | diff - "$T_TMP/stats" | tr '\n' ' ')"
	fi
}

if ! t_case fuse; then
	:
elif [ -n "${XFSDEFRAG_ASAN:-}" ]; then
	t_skip "fuse: in the release pass only"
elif [ ! -e /dev/fuse ] || [ "$(id -u)" -ne 0 ] || ! t_can_mount; then
	t_skip "fuse: needs root, /dev/fuse and loop devices: not run here"
elif [ ! -x "$hddemu" ]; then
	if [ -n "${XFSDEFRAG_REQUIRE_MOUNT:-}" ]; then
		t_fail "fuse: no $hddemu (libfuse3-dev missing? .ci/run-deps installs it)"
	else
		t_skip "fuse: $hddemu not built (needs libfuse3-dev): not run here"
	fi
else
	fuse_tests
fi
t_summary t-hddemu
