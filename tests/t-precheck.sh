#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The pre-check refuses what xfs_repair -n rejects, and only that.
#   - geometry: check finds nothing on fresh filesystems of many
#     geometries (mkfs.xfs of sparse files) that xfs_repair -n accepts.
#   - recorded: every recipe in tests/precheck-misses.txt (damage that a fuzz
#     campaign once got past `run`: byte patches to a fixture image) is
#     replayed: `run` must refuse it and leave the image byte-identical,
#     and where xfs_repair is installed it must still reject it.
#   - sample: a sample of the fuzz campaign (tests/fuzzcamp.py, as make
#     check-long runs it in full): xfs_db fuzz verbs on the fields of
#     every structure type of a few fixtures; every image xfs_repair -n
#     rejects must be refused by `run`, the image untouched.  The sample
#     leaves out the "random" verb, so it is the same every time; every
#     structure's LSN is also put at the log head and past it.
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

# ---- fresh filesystems of many geometries --------------------------------
# check must find nothing on what mkfs.xfs makes, xfs_repair -n being
# clean: the root inode (xfs_ialloc_calc_rootino: AG headers, btree
# roots, the AGFL's minimum, the log when in AG 0, rounded up to the
# inode or stripe alignment) above all.  mkfs of a sparse file, no mount;
# TEST_DIR, TEST_DEV and QA_CHECK_FS let mkfs make the small and single-AG
# filesystems fstests uses.

geometries() {
	local bs is su
	for bs in 1024 2048 4096 8192 16384 32768 65536; do
		echo "512m	-b size=$bs"
		echo "512m	-b size=$bs -i sparse=0"
		echo "1g	-b size=$bs -m rmapbt=1"
		echo "256m	-b size=$bs -d agcount=1"
		echo "512m	-b size=$bs -m rmapbt=1,reflink=0 -d agcount=1"
	done
	for is in 512 1024 2048; do
		echo "512m	-i size=$is"
		echo "512m	-i size=$is,sparse=0"
		echo "1g	-b size=65536 -i size=$is"
		echo "1g	-i size=$is -d su=64k,sw=4"
	done
	for su in 4k 8k 16k 32k 64k 256k; do
		echo "1g	-d su=$su,sw=2"
		echo "1g	-d su=$su,sw=2 -i sparse=0"
		echo "1g	-d su=$su,sw=2 -b size=1024"
		echo "1g	-d su=$su,sw=2 -d agcount=1"
		echo "1g	-d su=$su,sw=4 -i size=2048"
	done
	echo "1g	-d su=64k,sw=2 -b size=65536"
	echo "512m	-l agnum=0"
	echo "512m	-l agnum=0 -d su=64k,sw=2"
	echo "512m	-l agnum=0 -b size=65536"
	echo "512m	-s size=4096"
	echo "1g	-s size=4096 -b size=65536"
	echo "512m	-m finobt=0,reflink=0"
	echo "512m	-m crc=0 -b size=512"
	echo "512m	-m crc=0 -b size=512 -d agcount=1"
	echo "1g	-m crc=0 -i size=256 -d su=64k,sw=2"
	echo "1g	-m crc=0 -b size=65536"
	echo "512m	EXTLOG"
	echo "512m	EXTLOG -b size=65536 -d agcount=1"
}

if t_case geometry && command -v mkfs.xfs >/dev/null 2>&1 &&
   command -v xfs_repair >/dev/null 2>&1; then
	g=0 made=0 bad=0
	while IFS=$'\t' read -r size opts; do
		g=$((g + 1))
		img=$T/geo.img logimg=$T/geo.log
		rm -f "$img" "$logimg"
		truncate -s "$size" "$img"
		args=() extlog=
		for o in $opts; do
			if [ "$o" = EXTLOG ]; then
				extlog=1
				truncate -s 128m "$logimg"
				args+=(-l "logdev=$logimg,size=64m")
			else
				args+=("$o")
			fi
		done
		if ! TEST_DIR=$T TEST_DEV=/dev/null QA_CHECK_FS=1 \
		     mkfs.xfs -q -f "${args[@]}" "$img" >"$T/geo.mkfs" 2>&1; then
			t_skip "geometry $size $opts: mkfs.xfs refuses it"
			continue
		fi
		# one AG: no secondary superblock to compare the geometry with
		ropts=()
		[[ $opts == *agcount=1* ]] && ropts=(-o force_geometry)
		if [ -z "$extlog" ] &&
		   ! xfs_repair -n "${ropts[@]}" "$img" >/dev/null 2>&1; then
			t_skip "geometry $size $opts: xfs_repair -n rejects it"
			continue
		fi
		made=$((made + 1))
		"$bin" check --json "$img" >"$T/geo.json" 2>&1
		rc=$?
		# an external log is a finding of its own (sb-field: this tool
		# checks internal logs only); nothing else may be found
		if [ -n "$extlog" ]; then
			grep -q '"code": "sb-inodes"' "$T/geo.json" && rc=9 ||
				rc=0
		fi
		if [ $rc -ne 0 ]; then
			bad=$((bad + 1))
			t_fail "geometry $size $opts: check on a fresh filesystem" \
			       "(rootino $(xfs_db -r -c 'sb 0' -c 'print rootino' \
					"$img" 2>/dev/null | awk '{print $3}'))"
			grep '"message"' "$T/geo.json" | head -n 3 |
				sed 's/^ */    /'
		fi
	done < <(geometries)
	rm -f "$T/geo.img" "$T/geo.log"
	[ $bad -eq 0 ] && [ $made -gt 0 ] &&
		t_ok "geometry: check finds nothing on $made of $g fresh" \
		     "filesystems (block sizes 512-65536, inode sizes, sparse" \
		     "inodes, rmapbt, stripe units, one AG, log in AG 0 or" \
		     "external, 4k sectors, v4)"
elif t_case geometry; then
	t_skip "geometry: mkfs.xfs or xfs_repair not installed"
fi

# ---- the recorded misses ---------------------------------------------------

recipes=$here/precheck-misses.txt
n=$(grep -vc '^#' "$recipes" 2>/dev/null)
if ! t_case recorded; then
	:
elif [ "${n:-0}" -eq 0 ]; then
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
# The sample leaves out xfs_db's "random" verb, so it is the same every
# time; on top of it 30 structures per fixture get their LSN written at
# the log head or at the next cycle (each block type xfs_repair compares
# with the log head must be refused: precheck-misses.txt holds one of
# each, make check-long does all).

if ! t_case sample; then
	t_summary precheck
	exit
fi
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
per=${XFSDEFRAG_PRECHECK_SAMPLE:-60} lsn=30
[ -n "${XFSDEFRAG_ASAN:-}" ] && per=${XFSDEFRAG_PRECHECK_SAMPLE:-20} lsn=10
python3 "$here/fuzzcamp.py" precheck --bin "$bin" --work "$T/camp" \
	--per-fixture "$per" --lsn-cases "$lsn" --jobs 2 --seed make-check \
	--verbs zeroes,ones,firstbit,middlebit,lastbit,add,sub \
	--misses "$T/misses" "${fixtures[@]}" >"$T/camp.out" 2>&1
rc=$?
line=$(grep '^precheck campaign:' "$T/camp.out")
if [ $rc -eq 0 ] && [ -n "$line" ] && [ ! -s "$T/misses" ]; then
	t_ok "fuzz sample (${fixtures[*]}, $per cases and $lsn LSNs each):" \
	     "$line"
else
	t_fail "fuzz sample: ${line:-no result (exit $rc)}"
	grep '^MISS\|Error\|Traceback' "$T/camp.out" | head -n 10 | sed 's/^/    /'
fi

t_summary precheck
