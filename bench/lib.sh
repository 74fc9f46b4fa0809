# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by bench/report.sh, check.sh and plan.sh: our command against the
# reference tool on the same image, in one run, alternating, cold (page
# cache dropped before every command) and warm; medians, spread, ratios,
# inodes/s, peak RSS per inode, the cold time against dd reading the
# inode-chunk bytes with direct I/O, and how long the disk was busy
# during each cold command (/proc/diskstats).  Without an IMAGE, on both
# bench images, each made if missing: bench/mkbig.sh's (one directory
# after another) and bench/mkscatter.sh's (files spread round-robin over
# the directories by two writers).  Needs root (to drop caches), GNU
# time (/usr/bin/time) and bash 5 (EPOCHREALTIME).
#
#   . bench/lib.sh
#   b_setup "$@"            # -n RUNS, -w (warm only), -c (cold only), IMAGE...
#   b_compare NAME "OURS..." "REFERENCE..."

B_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
B_BIN=${XFSDEFRAG:-$B_DIR/../xfsdefrag}
# the test binary (tests/aids: debug-inoruns), make test-bin
B_TBIN=${XFSDEFRAG_TEST:-$B_DIR/../build/release/xfsdefrag-test}
B_RUNS=7
B_COLD=1 B_WARM=1
B_IMG=
B_IMGS=()
B_BIG=/tmp/xfsdefrag-bench-1m.img
B_SCATTER=/tmp/xfsdefrag-bench-scatter-1m.img
B_OUT=
B_DISK=

b_usage() {
	echo "usage: $0 [-n RUNS] [-c | -w] [IMAGE | DEVICE]..." >&2
	echo "  RUNS samples of each command (default 7, at least 5)," >&2
	echo "  -c cold only, -w warm only; without IMAGE, both of" >&2
	echo "  $B_BIG (bench/mkbig.sh) and" >&2
	echo "  $B_SCATTER (bench/mkscatter.sh), made if missing" >&2
	exit 2
}

b_setup() {
	local opt
	while getopts "n:cwh" opt; do
		case $opt in
		n) B_RUNS=$OPTARG ;;
		c) B_WARM=0 ;;
		w) B_COLD=0 ;;
		*) b_usage ;;
		esac
	done
	shift $((OPTIND - 1))
	[ "$B_RUNS" -ge 1 ] 2>/dev/null || b_usage
	if [ $# -gt 0 ]; then
		B_IMGS=("$@")
	else
		B_IMGS=("$B_BIG" "$B_SCATTER")
		[ -e "$B_BIG" ] || "$B_DIR/mkbig.sh" "$B_BIG" 1000 1000 4g
		[ -e "$B_SCATTER" ] || "$B_DIR/mkscatter.sh" "$B_SCATTER"
	fi
	[ -x "$B_BIN" ] || { echo "$B_BIN: not built (make)" >&2; exit 1; }
	[ -x "$B_TBIN" ] || { echo "$B_TBIN: not built (make test-bin)" >&2; exit 1; }
	if [ "$B_COLD" = 1 ] && [ "$(id -u)" != 0 ]; then
		echo "cold runs drop the page cache: run as root (or -w)" >&2
		exit 1
	fi
	[ -n "${EPOCHREALTIME:-}" ] || { echo "needs bash 5" >&2; exit 1; }
	B_ROOT=$(mktemp -d)
	trap 'rm -rf "$B_ROOT"' EXIT
	b_machine
}

b_machine() {
	local cpu
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	echo "machine: $(nproc) CPUs ($cpu), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), kernel $(uname -r)"
}

# b_image N: make B_IMGS[N] the image (B_IMG, B_DISK, B_OUT) and say so
b_image() {
	B_IMG=${B_IMGS[$1]}
	B_OUT=$B_ROOT/$1
	mkdir -p "$B_OUT"
	B_DISK=$(b_disk)
	echo
	echo "image:   $B_IMG ($(stat -L -c %F "$B_IMG"), on $(df -P "$B_IMG" 2>/dev/null | awk 'NR == 2 {print $1}'))"
	echo "disk:    ${B_DISK:-not found in /proc/diskstats: no busy times}"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# b_tag: a short name for the image in the summary lines
b_tag() {
	case $B_IMG in
	"$B_BIG") echo "[mkbig]" ;;
	"$B_SCATTER") echo "[scatter]" ;;
	*) echo "[$(basename "$B_IMG")]" ;;
	esac
}

# The block device the image's reads reach (its name in /proc/diskstats):
# the device itself, or the one holding the file system the file is on.
b_disk() {
	local dev
	if [ -b "$B_IMG" ]; then
		dev=$(readlink -f "$B_IMG")
	else
		dev=$(df -P "$B_IMG" 2>/dev/null | awk 'NR == 2 {print $1}')
		dev=$(readlink -f "$dev" 2>/dev/null)
	fi
	dev=${dev#/dev/}
	awk -v d="$dev" '$3 == d {f = 1} END {exit !f}' /proc/diskstats && echo "$dev"
}

# b_disk_snap: "reads sectors busy_ms" of $B_DISK now (/proc/diskstats:
# reads completed, sectors read, milliseconds with any I/O in flight)
b_disk_snap() {
	awk -v d="$B_DISK" '$3 == d {print $4, $6, $13}' /proc/diskstats
}

b_drop() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

# b_time LABEL CMD...: one run; appends "seconds rss_kib" to $B_OUT/LABEL
# and, when the disk is known, what it did meanwhile ("reads sectors
# busy_ms") to $B_OUT/LABEL.disk
b_time() {
	local label=$1 t0 t1 rc d0= d1=
	shift
	[ -z "$B_DISK" ] || d0=$(b_disk_snap)
	t0=$EPOCHREALTIME
	/usr/bin/time -f %M -o "$B_OUT/rss" "$@" > /dev/null 2> "$B_OUT/err"
	rc=$?
	t1=$EPOCHREALTIME
	[ -z "$B_DISK" ] || d1=$(b_disk_snap)
	[ -z "$d0" ] || [ -z "$d1" ] ||
		echo "$d0 $d1" | awk '{print $4 - $1, $5 - $2, $6 - $3}' >> "$B_OUT/$label.disk"
	# xfs_repair -n and check exit 1 or 3 on a damaged fs; the bench
	# image is clean, so anything but 0 is a failure of the run
	if [ $rc -ne 0 ]; then
		echo "$label: exit $rc: $(head -n 2 "$B_OUT/err")" >&2
		exit 1
	fi
	echo "$t0 $t1 $(tail -n 1 "$B_OUT/rss")" |
		awk '{printf "%.4f %d\n", $2 - $1, $3}' >> "$B_OUT/$label"
}

# The inode-chunk bytes our scan reads (runs joined across holes of up
# to 64 KiB, as the scan's reader does), read by dd with direct I/O, one
# dd per run (each run is one or a few 1 MiB requests of ours).
b_runs() {
	"$B_TBIN" debug-inoruns --gap 65536 "$B_IMG" > "$B_OUT/runs" 2> "$B_OUT/runs.err" ||
		{ echo "debug-inoruns failed: $(cat "$B_OUT/runs.err")" >&2; exit 1; }
	B_NRUNS=$(wc -l < "$B_OUT/runs")
	# %.0f: mawk prints integers past 2^31 as 4.29e+09 (and %d clamps)
	B_RUNBYTES=$(awk '{s += $2} END {printf "%.0f", s}' "$B_OUT/runs")
	# every directory's blocks, as check's read-ahead asks for them
	"$B_TBIN" debug-inoruns --dirs "$B_IMG" > "$B_OUT/dirruns" 2> "$B_OUT/runs.err" ||
		{ echo "debug-inoruns --dirs failed: $(cat "$B_OUT/runs.err")" >&2; exit 1; }
	B_NDIRRUNS=$(wc -l < "$B_OUT/dirruns")
	B_DIRBYTES=$(awk '{s += $2} END {printf "%.0f", s}' "$B_OUT/dirruns")
}

# dd over the runs: bash -c SCRIPT _ RUNS IMAGE
B_DD_SCRIPT='while read -r off len; do
	len=$(( (len + 4095) / 4096 * 4096 ))
	dd if="$2" of=/dev/null bs=1M iflag=direct,skip_bytes,count_bytes \
		skip="$off" count="$len" status=none || exit 1
done < "$1"'

# fio replaying the same runs, cut into the 1 MiB requests our reader
# issues, with io_uring, direct I/O and 16 in flight; and fio reading as
# many bytes in one sequential stream from the image's start (the
# device's rate for a read that never seeks; on a sparse image, holes
# there read for free).  Each is timed twice: the command's wall time,
# and the time fio itself spent reading (its JSON "runtime"), which
# leaves out fio's own start-up (a third of a second or more on a 2-core
# VM, as long as the reads).  Neither is a floor: read-ahead through the
# page cache has beaten both on a virtio disk.  Only with fio (Debian:
# fio).
b_fio_log() {
	local r
	for r in runs dirruns; do
		awk -v f="$B_IMG" 'BEGIN { print "fio version 2 iolog"; print f " add"; print f " open" }
			{ o = $1; l = $2
			  while (l > 0) { n = l > 1048576 ? 1048576 : l
					  n = int((n + 4095) / 4096) * 4096
					  printf "%s read %.0f %.0f\n", f, o, n
					  o += n; l -= n } }
			END { print f " close" }' "$B_OUT/$r" > "$B_OUT/$r.iolog"
	done
}
B_FIO_SCRIPT='fio --name=replay --read_iolog="$1" --ioengine=io_uring --direct=1 \
	--iodepth=16 --readonly --output-format=json --output="$2"'
B_SEQ_SCRIPT='fio --name=seq --filename="$1" --size="$2" --rw=read --bs=1M \
	--ioengine=io_uring --direct=1 --iodepth=16 --readonly \
	--output-format=json --output="$3"'

# b_fio_runtime JSON LABEL: the seconds fio spent reading, appended to
# LABEL as a sample (no RSS)
b_fio_runtime() {
	python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["jobs"][0]["read"]
print("%.4f 0" % (r["runtime"] / 1000.0))' "$1" >> "$B_OUT/$2" ||
		{ echo "fio wrote no report to $1" >&2; exit 1; }
}

# b_inodes: allocated inodes, from our report --json
b_inodes() {
	"$B_BIN" report --json "$B_IMG" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["scan"]["inodes"])'
}

# b_compare NAME OURS REF: OURS and REF are command strings (word-split),
# on each image in turn
b_compare() {
	local n
	for n in "${!B_IMGS[@]}"; do
		b_image "$n"
		b_compare_one "$1 $(b_tag)" "$2" "$3"
	done
}

b_compare_one() {
	local name=$1 ours=$2 ref=$3 i
	local -a o r
	read -r -a o <<< "$ours"
	read -r -a r <<< "$ref"
	B_INODES=$(b_inodes)
	b_runs
	B_FIO=
	if command -v fio > /dev/null; then
		B_FIO=1
		b_fio_log
	fi
	echo "inodes:  $B_INODES; inode-chunk bytes read: $B_RUNBYTES in $B_NRUNS runs; directory blocks: $B_DIRBYTES bytes in $B_NDIRRUNS runs"
	echo "ours:    ${o[*]} IMAGE"
	echo "ref:     ${r[*]} IMAGE"
	echo "runs:    $B_RUNS of each, alternating (order swapped every round)"
	if [ "$B_COLD" = 1 ]; then
		for ((i = 0; i < B_RUNS; i++)); do
			if ((i % 2)); then
				b_drop; b_time cold.ref "${r[@]}" "$B_IMG"
				b_drop; b_time cold.ours "${o[@]}" "$B_IMG"
			else
				b_drop; b_time cold.ours "${o[@]}" "$B_IMG"
				b_drop; b_time cold.ref "${r[@]}" "$B_IMG"
			fi
			b_drop; b_time cold.dd bash -c "$B_DD_SCRIPT" _ "$B_OUT/runs" "$B_IMG"
			[ -z "$B_FIO" ] ||
				{ b_drop; b_time cold.fio bash -c "$B_FIO_SCRIPT" _ \
					"$B_OUT/runs.iolog" "$B_OUT/fio.json"
				  b_fio_runtime "$B_OUT/fio.json" cold.fio.io
				  b_drop; b_time cold.fiodir bash -c "$B_FIO_SCRIPT" _ \
					"$B_OUT/dirruns.iolog" "$B_OUT/fiodir.json"
				  b_fio_runtime "$B_OUT/fiodir.json" cold.fiodir.io
				  b_drop; b_time cold.seq bash -c "$B_SEQ_SCRIPT" _ "$B_IMG" \
					"$(( (B_RUNBYTES + 1048575) / 1048576 ))M" "$B_OUT/seq.json"
				  b_fio_runtime "$B_OUT/seq.json" cold.seq.io; }
		done
	fi
	if [ "$B_WARM" = 1 ]; then
		# The page cache's folios are as large as the read that filled
		# them chose: read-ahead hints leave 4 KiB pages, plain reads
		# larger ones, and both tools then copy from the cache faster
		# (xfs_db frag warm on 1M inodes: 0.375 s against 0.270 s).
		# Warm runs start from the cache the reference tool leaves, the
		# same whatever ran last in the cold phase (as root).
		[ "$(id -u)" != 0 ] || b_drop
		"${r[@]}" "$B_IMG" > /dev/null 2>&1
		"${o[@]}" "$B_IMG" > /dev/null 2>&1
		for ((i = 0; i < B_RUNS; i++)); do
			if ((i % 2)); then
				b_time warm.ref "${r[@]}" "$B_IMG"
				b_time warm.ours "${o[@]}" "$B_IMG"
			else
				b_time warm.ours "${o[@]}" "$B_IMG"
				b_time warm.ref "${r[@]}" "$B_IMG"
			fi
		done
	fi
	echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
	python3 - "$B_OUT" "$name" "$B_INODES" "$B_RUNBYTES" "$B_DIRBYTES" <<'PY'
import os, statistics, sys
d, name, inodes, rbytes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
dbytes = int(sys.argv[5])
def load(label):
    p = os.path.join(d, label)
    if not os.path.exists(p):
        return None
    rows = [l.split() for l in open(p)]
    return [float(a) for a, _ in rows], [int(b) for _, b in rows]
def fmt(t):
    return "%.3f s (%.3f-%.3f)" % (statistics.median(t), min(t), max(t))
for phase in ("cold", "warm"):
    us, ref = load(phase + ".ours"), load(phase + ".ref")
    if not us:
        continue
    mu, mr = statistics.median(us[0]), statistics.median(ref[0])
    print("%s %-4s: %-8s %s   reference %s   ratio %.2fx   %.2fM inodes/s"
          % (name, phase, "", fmt(us[0]), fmt(ref[0]), mr / mu, inodes / mu / 1e6))
    if phase == "cold":
        dd = load("cold.dd")
        md = statistics.median(dd[0])
        print("%s cold: dd of the inode-chunk bytes (direct I/O) %s = %.0f MB/s; "
              "ours / dd = %.2f" % (name, fmt(dd[0]), rbytes / md / 1e6, mu / md))
        fio, seq = load("cold.fio"), load("cold.seq")
        fio_io, seq_io = load("cold.fio.io"), load("cold.seq.io")
        if fio and seq:
            for what, wall, io in (("replaying those runs (io_uring, direct, 16 in flight)",
                                    fio, fio_io),
                                   ("reading as many bytes sequentially", seq, seq_io)):
                mw, mi = statistics.median(wall[0]), statistics.median(io[0])
                print("%s cold: fio %s: command %s; reading %s = %.0f MB/s; "
                      "ours / fio's reading = %.2f"
                      % (name, what, fmt(wall[0]), fmt(io[0]), rbytes / mi / 1e6,
                         mu / mi))
            mi = statistics.median(fio_io[0])
            print("%s cold: a scan that took only fio's replay reading time would be "
                  "%.2fx the reference" % (name, mr / mi))
            fd = load("cold.fiodir.io")
            if fd and name.startswith("check"):
                # check reads every directory block after the scan
                md = statistics.median(fd[0])
                print("%s cold: fio replaying the directory blocks (%d MB, 16 in flight): "
                      "reading %s; inode runs and directories in fio's reading times: "
                      "%.3f s = %.2fx the reference"
                      % (name, dbytes / 1e6, fmt(fd[0]), mi + md, mr / (mi + md)))
        else:
            print("%s cold: fio not installed: no device rates measured" % name)
        # what the disk did during each command: a cold run can be no
        # faster than the time the disk was busy with its reads
        disk = {}
        for who in ("ours", "ref"):
            p = os.path.join(d, "cold.%s.disk" % who)
            if os.path.exists(p):
                rows = [[int(x) for x in l.split()] for l in open(p)]
                disk[who] = [statistics.median(c) for c in zip(*rows)]
        for who, wall in (("ours", mu), ("ref", mr)):
            if who in disk:
                reads, sect, busy = disk[who]
                print("%s cold: %-4s the disk read %.0f MB in %.0f requests, busy "
                      "%.0f ms of the command's %.0f ms (%.0f%%)"
                      % (name, who, sect * 512 / 1e6, reads, busy, wall * 1e3,
                         100 * busy / 1e3 / wall))
        if "ours" in disk and disk["ours"][2] > 0:
            print("%s cold: a run as long as our disk-busy time alone would be "
                  "%.2fx the reference" % (name, mr / (disk["ours"][2] / 1e3)))
    rss = max(us[1]) * 1024
    print("%s %s: peak RSS %.1f MiB = %.0f bytes per inode (reference %.1f MiB)"
          % (name, phase, rss / 2**20, rss / inodes, max(ref[1]) / 1024))
PY
}
