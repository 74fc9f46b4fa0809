#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The undo journal on real images.  The hidden test aid debug-scribble
# stands in for the relocation executor: it journals and overwrites live
# blocks (superblock with NEEDSREPAIR, then junk over it; an AGF, an AGI,
# inode blocks, file data; prepared batches; unaligned writes) and writes
# into free space, optionally crashing (exit 75) before write N+1.  Then
# `xfsdefrag undo` must give back the image byte for byte (bytes written
# into free-at-start blocks excepted: the plan lists them) and
# xfs_repair -n must pass, for a crash before every write.  Also: a
# journal of another filesystem is refused (exit 4), a damaged record is
# refused (exit 3), and neither writes anything; a torn tail restores.
# Usage: t-undo.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
tbin=$(t_testbin "$bin")	# the test aids (tests/aids)
t_tmpdir
T=$T_TMP

have_repair=1
command -v xfs_repair >/dev/null 2>&1 || have_repair=
[ -n "$have_repair" ] || t_skip "xfs_repair not installed: consistency checks"

# scribble [OPTS...] JOURNAL IMAGE: the fixture's paths appended
scribble() { "$tbin" debug-scribble "$@" $paths; }

# same A B [PLAN]: is B byte-identical to A?  With PLAN, first copy A's
# bytes into B where the run wrote into free space (undo leaves those).
# debug-scribble --compare reads only where either file has data.
same() { "$tbin" debug-scribble --compare "$@"; }

# restored NAME IMAGE PLAN: byte-identical to pristine outside free writes,
# and xfs_repair -n clean.  Leaves IMAGE equal to pristine on success.
restored() {
	if ! same "$T/pristine" "$2" "$3" > "$T/same"; then
		t_fail "$1: image differs from before the run: $(cat "$T/same")"
		cp --sparse=always "$T/pristine" "$2"
		return 1
	fi
	if [ -n "$have_repair" ] && ! xfs_repair -n "$2" >"$T/repair" 2>&1; then
		t_fail "$1: xfs_repair -n fails after undo: $(grep -v '^ ' "$T/repair" | tail -n 2 | tr '\n' ' ')"
		return 1
	fi
	return 0
}

# flipbyte FILE POS: change one byte (xor 0x55)
flipbyte() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf %o $((b ^ 0x55)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# pick_paths FIXTURE_DIR: files whose data the scribbler overwrites: the
# one with the most extents and the two with the largest extents (plain
# names only), from the recorded xfs_bmap -v output
pick_paths() {
	t_cat "$1/bmap-v.out" | awk '
		/^[^ ].*:$/ { f = substr($0, 1, length($0) - 1); next }
		/^ *[0-9]+: \[/ && $3 != "hole" && f ~ /^[A-Za-z0-9\/._-]+$/ {
			n[f]++; if ($NF + 0 > big[f]) big[f] = $NF + 0 }
		END {
			for (f in n) if (n[f] > n[most]) most = f
			for (f in big) if (f != most && big[f] > big[b1]) b1 = f
			for (f in big) if (f != most && f != b1 && big[f] > big[b2]) b2 = f
			print most, b1, b2 }'
}

# run_fixture NAME FAULTS: FAULTS "all", "half" (every other one, the
# first two and the last) or a list of fault points
run_fixture() {
	local name=$1 faults=$2 fx=$here/fixtures/$1 img=$T/img j=$T/j
	t_case "$name" || return
	t_have "$fx/image" && t_have "$fx/bmap-v.out" ||
		{ t_fail "$name: no fixture image"; return; }
	paths=$(pick_paths "$fx")
	t_unpack "$fx" "$T/pristine" || { t_fail "$name: cannot unpack"; return; }
	cp --sparse=always "$T/pristine" "$img"

	# --- a whole run, no free-space writes: undo is exact, sha256 too
	rm -f "$j" "$j.map"
	if ! scribble --free-writes 0 --plan "$T/plan0" "$j" "$img" > "$T/out" 2>&1; then
		t_fail "$name: scribble failed: $(head -n 1 "$T/out")"
		return
	fi
	if "$bin" info "$img" >/dev/null 2>&1; then
		t_fail "$name: the scribbled superblock still reads"
	fi
	"$bin" undo "$j" "$img" > "$T/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q "^restored [0-9]* blocks .* as it was before the run" "$T/out" &&
	   [ "$(t_imgsum "$img")" = "$(t_imgsum "$T/pristine")" ]; then
		t_ok "$name: complete run undone, sha256 equal"
	else
		t_fail "$name: complete run: undo exit $rc, $(head -n 2 "$T/out" | tr '\n' ' ')"
		cp --sparse=always "$T/pristine" "$img"
	fi
	"$bin" undo "$j" "$img" >/dev/null 2>&1 && same "$img" "$T/pristine" &&
		t_ok "$name: undo again changes nothing" ||
		t_fail "$name: a second undo is not idempotent"

	# --- the full scribble (free-space writes too), kept for later tests
	rm -f "$j" "$j.map"
	scribble --plan "$T/plan" "$j" "$img" >/dev/null 2>&1 ||
		{ t_fail "$name: full scribble failed"; return; }
	cp --sparse=always "$img" "$T/scribbled"
	cp "$j" "$T/j.full"
	same "$T/pristine" "$T/scribbled" >/dev/null &&
		t_fail "$name: the comparison sees no change after scribbling"
	if scribble "$j" "$img" > "$T/out" 2>&1; then
		t_fail "$name: debug-scribble overwrote an existing journal"
	elif grep -q "already exists" "$T/out"; then
		t_ok "$name: an existing undo file is refused"
	fi
	"$bin" undo --check "$j" "$img" > "$T/check" 2>&1
	if grep -q "^state: *complete" "$T/check" && grep -q "^matches: " "$T/check"; then
		t_ok "$name: --check says complete"
	else
		t_fail "$name: --check: $(tr '\n' ' ' < "$T/check")"
	fi
	same "$img" "$T/scribbled" >/dev/null || t_fail "$name: --check wrote to the image"
	"$bin" undo "$j" "$img" >/dev/null 2>&1 && restored "$name full" "$img" "$T/plan" &&
		t_ok "$name: full run undone (free-space writes left)"

	# --- a crash before every write: undo restores each
	total=$(grep -c '^write ' "$T/plan")
	case $faults in
	all)	faults=$(seq 0 "$total") ;;
	half)	faults=$({ seq 0 2 "$total"; echo 1; echo "$total"; } | sort -nu) ;;
	esac
	faults=${faults/last/$total}
	local n ok=0 cnt=0 rc2 prev=-1 torn_n=
	local -a last
	for n in $faults; do
		cnt=$((cnt + 1))
		rm -f "$j" "$j.map"
		scribble --fault "$n" "$j" "$img" >/dev/null 2>&1
		rc=$?
		want=75
		[ "$n" -ge "$total" ] && want=0
		if [ $rc -ne $want ]; then
			t_fail "$name: fault $n: scribble exit $rc, expected $want"
			cp --sparse=always "$T/pristine" "$img"
			continue
		fi
		if [ "$n" -eq 1 ] && ! "$bin" info "$img" 2>/dev/null | grep -q needsrepair; then
			t_fail "$name: fault 1: needsrepair not set by the first write"
		fi
		read -r -a last < <("$bin" undo --check -v "$j" "$img" 2>/dev/null |
			awk '/^  record [0-9]*: journal byte/ { o = $8; l = $9 }
			     END { sub(",", "", o); print o + 0, l + 0 }')
		"$bin" undo "$j" "$img" > "$T/out" 2>&1
		rc2=$?
		if [ $rc2 -ne 0 ]; then
			t_fail "$name: fault $n: undo exit $rc2: $(head -n 1 "$T/out")"
			cp --sparse=always "$T/pristine" "$img"
			continue
		fi
		restored "$name fault $n" "$img" "$T/plan" && ok=$((ok + 1))
		# for the torn tail test: a crash whose last record covers
		# nothing written yet (blocks of the write it stopped, or of a
		# batch prepared for later writes), so cutting it loses nothing
		if [ -z "$torn_n" ] && [ "$n" -gt 0 ] && [ "$n" -lt "$total" ] &&
		   [ "$(awk -v n="$n" -v ro="${last[0]}" -v rl="${last[1]}" '
			$1 == "write" && $2 <= n && $3 < ro + rl && ro < $3 + $4 { hit = 1 }
			END { print hit ? "no" : "yes" }' "$T/plan")" = yes ]; then
			torn_n=$n
		fi
	done
	if [ $ok -eq $cnt ]; then
		t_ok "$name: a crash at each of $cnt fault points restored exactly (of $total writes)"
	fi

	# --- the torn tail: cut the interrupted journal inside its last record
	if [ -n "$torn_n" ]; then
		rm -f "$j" "$j.map"
		scribble --fault "$torn_n" "$j" "$img" >/dev/null 2>&1
		cp "$j" "$T/j.int"
		read -r pos len < <("$bin" undo --check -v "$j" "$img" 2>/dev/null |
			awk '/^  record [0-9]*: journal byte/ { p = $5; l = $9; sub(",", "", p) } END { print p, l }')
		truncate -s $((pos + 40 + len / 2)) "$j"
		"$bin" undo --check "$j" "$img" > "$T/check" 2>&1
		"$bin" undo "$j" "$img" > "$T/out" 2>&1
		rc=$?
		if [ $rc -eq 0 ] && grep -q "^torn tail: *1 record" "$T/check" &&
		   grep -q "interrupted" "$T/check" && grep -q "torn record" "$T/out" &&
		   restored "$name torn" "$img" "$T/plan"; then
			t_ok "$name: torn tail (journal cut in its last record, fault $torn_n) ignored, restored"
		else
			t_fail "$name: torn tail: undo exit $rc: $(tr '\n' ' ' < "$T/out")"
		fi
		# the same with the last record's data corrupt instead of cut
		rm -f "$j" "$j.map"
		scribble --fault "$torn_n" "$j" "$img" >/dev/null 2>&1
		flipbyte "$j" $((pos + 40 + len / 3))
		"$bin" undo "$j" "$img" > "$T/out" 2>&1 && restored "$name torn crc" "$img" "$T/plan" &&
			t_ok "$name: bad crc in the last record of an interrupted run: torn, restored" ||
			t_fail "$name: torn crc: $(tr '\n' ' ' < "$T/out")"
	else
		t_fail "$name: no fault point ends with a record of an unfinished write"
	fi

	# --- a flipped byte in a middle record: refused, nothing written
	cp --sparse=always "$T/scribbled" "$img"
	cp "$T/j.full" "$j"
	read -r pos len < <("$bin" undo --check -v "$j" "$img" 2>/dev/null |
		awk '/^  record [0-9]*: journal byte/ { p[n] = $5; l[n++] = $9 }
		     END { m = int(n / 2); sub(",", "", p[m]); print p[m], l[m] }')
	flipbyte "$j" $((pos + 40 + len / 2))
	"$bin" undo "$j" "$img" > "$T/out" 2>&1
	rc=$?
	if [ $rc -eq 3 ] && grep -q "is damaged" "$T/out" && same "$img" "$T/scribbled" >/dev/null; then
		t_ok "$name: damaged middle record refused (exit 3), nothing written"
	else
		t_fail "$name: damaged middle record: exit $rc, $(head -n 1 "$T/out")"
	fi
	"$bin" undo --check "$j" "$img" >/dev/null 2>&1
	[ $? -eq 3 ] || t_fail "$name: --check of a damaged journal does not exit 3"

	# --- a journal of another filesystem: same geometry, new uuid
	cp --sparse=always "$T/pristine" "$T/other"
	if xfs_admin -U generate "$T/other" >/dev/null 2>&1; then
		cp --sparse=always "$T/other" "$T/other.before"
		"$bin" undo "$T/j.full" "$T/other" > "$T/out" 2>&1
		rc=$?
		if [ $rc -eq 4 ] && grep -q "undo file .* belongs to filesystem .*, not .* of " "$T/out" &&
		   same "$T/other" "$T/other.before" >/dev/null; then
			t_ok "$name: journal of another filesystem refused (exit 4), nothing written"
		else
			t_fail "$name: other filesystem: exit $rc, $(head -n 1 "$T/out")"
		fi
		# and with its primary superblock gone, the secondaries say no
		dd if=/dev/zero of="$T/other" bs=512 count=1 conv=notrunc status=none
		cp --sparse=always "$T/other" "$T/other.before"
		"$bin" undo "$T/j.full" "$T/other" > "$T/out" 2>&1
		rc=$?
		if [ $rc -eq 4 ] && grep -q "no secondary superblock" "$T/out" &&
		   same "$T/other" "$T/other.before" >/dev/null; then
			t_ok "$name: another filesystem without a superblock refused"
		else
			t_fail "$name: other fs, no sb: exit $rc, $(head -n 1 "$T/out")"
		fi
	else
		t_skip "$name: xfs_admin -U failed"
	fi
	rm -f "$T/other" "$T/other.before"
	cp --sparse=always "$T/pristine" "$img"
}

# a crash before every write; under the sanitizers in make check before
# every other one (and the first two and the last): the same journal code,
# every point in the release pass and in check-long
if [ -n "${XFSDEFRAG_ASAN:-}" ] && [ -z "${XFSDEFRAG_TEST_LONG:-}" ]; then
	run_fixture bs1k half
else
	run_fixture bs1k all
fi
# 4 KiB blocks (the AG headers share block 0): a few fault points
run_fixture aged "0 1 2 5 9 14 last"
# 4 KiB sectors: the superblock write is a whole block
run_fixture sect4k-noreflink "0 1 6 last"

# refused across fixtures (geometry differs too)
if t_case v4 && t_have "$here/fixtures/v4/image" && [ -f "$T/j.full" ]; then
	t_unpack "$here/fixtures/v4" "$T/v4"
	cp --sparse=always "$T/v4" "$T/v4.before"
	"$bin" undo "$T/j.full" "$T/v4" > "$T/out" 2>&1
	rc=$?
	[ $rc -eq 4 ] && same "$T/v4" "$T/v4.before" >/dev/null &&
		t_ok "journal of another fixture refused" ||
		t_fail "journal of another fixture: exit $rc, $(head -n 1 "$T/out")"
fi

if t_case usage; then
	"$bin" undo > /dev/null 2>&1
	[ $? -eq 2 ] && t_ok "undo without arguments: usage" || t_fail "undo usage exit"
	"$bin" --help | grep -q debug-scribble && t_fail "debug-scribble is listed in --help"
fi

t_summary "t-undo"
