#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every option of every command given values it must not take, from the
# command's own option table (xfsdefrag complete --options): empty,
# negative, out of its range by one, overflowing, with trailing junk, a
# sign or a base prefix, NaN, infinities, denormals, a name that is not
# one of its choices; flags given a value.  Each must exit 2 with one
# line on stderr naming the option and the value, write nothing (the
# image's digest and times, no file made in the working directory), and
# with --json print one JSON object whose error code is "usage".  Then
# values the filesystem cannot take (an AG it does not have, a path it
# does not hold), operands missing or too many, mistyped commands and
# options (did you mean), the help, and every --json command's failures
# (a missing file, not XFS, a damaged superblock, refusals) as one valid
# JSON object with the same exit status as without --json.
# Usage: t-options.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
t_tmpdir
T=$T_TMP

t_unpack "$here/fixtures/aged" "$T/img" || { t_fail "cannot unpack aged"; t_summary; exit 1; }
sum0=$(t_imgsum "$T/img")
stat0=$(stat -c '%s %Y %Z' "$T/img")
mkdir -p "$T/cwd"

# json_is FILE CODE: FILE is one JSON object {"error": {"code": CODE,
# "message": str, "structure": str|null}} (CODE "-": any)
json_is() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = d["error"]
assert set(e) == {"code", "message", "structure"}, e
assert isinstance(e["message"], str) and e["message"], e
assert e["structure"] is None or isinstance(e["structure"], str), e
assert sys.argv[2] == "-" or e["code"] == sys.argv[2], e["code"]
PY
}

# bad NAME CMD WORDS...: a usage error, one line naming what is wrong,
# nothing written; WORDS are the options (the operands are added)
NBAD=0 NOPT=0
declare -A TESTED
bad() {
	local name=$1 cmd=$2 rc
	shift 2
	local ops=("$T/img")
	case $cmd in
	bmap) ops=("$T/img" /) ;;
	undo) ops=("$T/cwd/none.undo" "$T/img") ;;
	esac
	[ -n "${NOOPS:-}" ] && ops=()
	(cd "$T/cwd" && "$bin" "$cmd" "$@" "${ops[@]}") > "$T/out" 2> "$T/err"
	rc=$?
	NBAD=$((NBAD + 1))
	local why=
	[ $rc -eq 2 ] || why="exit $rc"
	[ "$(wc -l < "$T/err")" -eq 1 ] || why="$why, $(wc -l < "$T/err") lines on stderr"
	grep -q "^xfsdefrag: " "$T/err" || why="$why, no 'xfsdefrag: ' prefix"
	[ -n "${WANT:-}" ] && ! grep -qF -- "$WANT" "$T/err" && why="$why, no '$WANT'"
	[ -s "$T/out" ] && why="$why, stdout not empty"
	[ -z "$(ls -A "$T/cwd")" ] || { why="$why, made $(ls -A "$T/cwd")"; rm -rf "${T:?}/cwd/"*; }
	[ "$(stat -c '%s %Y %Z' "$T/img")" = "$stat0" ] || why="$why, the image's times changed"
	if [ -z "$why" ]; then
		t_ok "$name: $(cat "$T/err")"
	else
		t_fail "$name:$why: $(head -n 2 "$T/err" | tr '\n' ' ')"
	fi
}

# bad_json NAME CMD WORDS...: the same with --json: one JSON object,
# code "usage", the same exit status
bad_json() {
	local name=$1 cmd=$2 rc
	shift 2
	(cd "$T/cwd" && "$bin" "$cmd" --json "$@" "$T/img") > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -eq 2 ] && json_is "$T/out" usage 2> "$T/py"; then
		t_ok "$name --json: the usage error as JSON"
	else
		t_fail "$name --json: exit $rc, $(head -c 200 "$T/out") $(tail -n 1 "$T/py")"
	fi
}

# the values each kind of option must refuse (the sanitizer pass of make
# check: the first four of each; check-long: all)
SAMPLE=1000
[ -n "${XFSDEFRAG_ASAN:-}" ] && [ -z "${XFSDEFRAG_TEST_LONG:-}" ] && SAMPLE=4
values() {	# KIND MIN MAX CHOICES ARG
	case $1 in
	uint)
		printf '%s\n' "" "-1" "x" "1x" " 1" "+1" "0x10" "1.5" "1e3" \
			"99999999999999999999999" "$(($3 + 1))"
		[ "$2" -gt 0 ] && echo "$(($2 - 1))"
		;;
	real)
		printf '%s\n' "" "nan" "inf" "-inf" "-1" "soon" "1x" "0x1p3" \
			"1e-310" "1e-300" "1e400" "1,5" "0"
		python3 -c "print(repr($3 * 2.0))"
		;;
	choice)
		printf '%s\n' "" "bogus" "${4%%,*}x" "$(tr a-z A-Z <<< "${4%%,*}")"
		;;
	string) printf '%s\n' "" ;;
	value)
		if [ "$5" = SIZE ]; then	# bytes, or with K, M, G or T
			printf '%s\n' "" "-1" "x" "0" "0K" "1X" "1.5G" "1KB2" \
				"99999999999T" "99999999999999999999"
		else
			printf '%s\n' "" "-1" "x" "1," ",1" "1,,2" "4294967295" \
				"99999999999"
		fi
		;;
	esac
}

while read -r cmd; do
	"$bin" complete --options "$cmd" > "$T/opts" || t_fail "$cmd: no option table"
	# each spelling once, none of them -h or --help (the front end's)
	dup=$(cut -d' ' -f1 "$T/opts" | tr , '\n' | { cat; echo -h; echo --help; } | sort | uniq -d)
	[ -z "$dup" ] && t_ok "$cmd: its table's spellings are its own" ||
		t_fail "$cmd: spelled twice in its table: $dup"
	while read -r names arg kind lo hi choices dflt; do
		IFS=, read -r -a sp <<< "$names"
		NOPT=$((NOPT + 1))
		TESTED[$cmd ${sp[-1]}]=1
		if [ "$arg" = - ]; then
			# a flag given a value, in its long form
			for s in "${sp[@]}"; do
				case $s in
				--*) WANT="$s takes no value" bad "$cmd $s=1" "$cmd" "$s=1" ;;
				esac
			done
			continue
		fi
		while IFS= read -r v; do
			# the value under the spelling used, quoted
			for s in "${sp[@]}"; do
				if [ "$kind" = string ]; then
					WANT="$s: the value is empty"
				elif [ "$kind" = value ]; then
					WANT="$s: "
				else
					WANT="$s: '$v'"
				fi
				WANT=$WANT bad "$cmd $s '$v'" "$cmd" "$s" "$v"
			done
			if grep -q '^--json ' "$T/opts"; then
				bad_json "$cmd ${sp[-1]} '$v'" "$cmd" "${sp[-1]}" "$v"
			fi
		done < <(values "$kind" "$lo" "$hi" "$choices" "$arg" | head -n "$SAMPLE")
		# a value missing at the end
		NOOPS=1 WANT="${sp[-1]} needs a value" bad "$cmd ${sp[-1]} without its value" "$cmd" "${sp[-1]}"
	done < "$T/opts"
done < <("$bin" complete --commands)

# the cases of the brief, word for word
WANT="--order: 'size' is not one of walk, name, inode" bad "plan --order size" plan --order size
WANT="--renumber: 'maybe' is not one of auto, all, none" bad "run --renumber maybe" run --renumber maybe
WANT="-j: '100000' is not a whole number from 1 to 1024" bad "report -j 100000" report -j 100000
WANT="--max-time: 'soon' is not a number" bad "run --max-time soon" run --max-time soon
WANT="--max-rate: '1e-300' is not a number from 0.001" bad "plan --max-rate 1e-300" plan --max-rate 1e-300
WANT="--order: 'nmae' is not one of walk, name, inode (did you mean name?)" bad "a choice mistyped" plan --order nmae
# values the filesystem cannot take, found once it is open (4 AGs)
WANT="--ag: '9' is not an AG of $T/img (it has AGs 0 to 3)" bad "plan --ag 9" plan --ag 9
WANT="--ag: '4' is not an AG" bad "run --ag 0,4" run --ag 0,4
WANT="-a: '4' is not an AG of $T/img (it has AGs 0 to 3)" bad "report -a 4" report -a 4
WANT="--path: 'no/such' is not in $T/img (not found" bad "plan --path no/such" plan --path no/such
WANT="--path: 'no/such' is not in" bad "run --path no/such" run --path no/such
WANT="--renumber all and --inode32 renumber the whole filesystem at once" \
	bad "run --passes --renumber all" run --passes --renumber all
# mistyped long options and commands
WANT="unknown option '--jsno' (did you mean --json?)" bad "a long option mistyped" report --jsno
WANT="unknown option '--max-tmie' (did you mean --max-time?)" bad "--max-tmie" run --max-tmie 5
WANT="unknown option '-Z'" bad "an unknown short option" bmap -Z
WANT="'--max' is ambiguous: --max-time --max-rate" bad "an ambiguous prefix" run --max 5
unset WANT
for c in rpeort chekc bmpa; do
	"$bin" "$c" "$T/img" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "unknown command '$c' (did you mean [a-z]*?)" "$T/err" &&
		t_ok "command $c: $(cat "$T/err")" || t_fail "command $c: exit $rc, $(cat "$T/err")"
done
"$bin" frobnicate > /dev/null 2> "$T/err"
[ $? -eq 2 ] && ! grep -q "did you mean" "$T/err" &&
	t_ok "a command far from any: no guess" || t_fail "frobnicate: $(cat "$T/err")"

# operands
check_operands() {	# NAME WANT ARGS...
	local name=$1 want=$2 rc
	shift 2
	(cd "$T/cwd" && "$bin" "$@") > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -qF -- "$want" "$T/err" &&
		t_ok "$name: $(cat "$T/err")" || t_fail "$name: exit $rc, $(cat "$T/err")"
}
check_operands "report without IMAGE" "report: IMAGE is missing" report
check_operands "undo without IMAGE" "undo: IMAGE is missing" undo "$T/cwd/u"
check_operands "bmap without PATH" "bmap: PATH is missing" bmap "$T/img"
check_operands "info with two images" "info: too many arguments: 'x'" info "$T/img" x
check_operands "an option after IMAGE" "report: '--json' after IMAGE: options go before it" report "$T/img" --json

# help: COMMAND --help and help COMMAND, every option with its default
while read -r cmd; do
	"$bin" "$cmd" --help > "$T/h1" 2>&1 && "$bin" help "$cmd" > "$T/h2" 2>&1 &&
		cmp -s "$T/h1" "$T/h2" && head -n 1 "$T/h1" | grep -q "^usage: xfsdefrag $cmd " &&
		t_ok "$cmd: --help and help $cmd" || t_fail "$cmd: help differs or fails"
	"$bin" complete --options "$cmd" | while read -r names arg kind lo hi choices dflt; do
		line=$(sed -n "/^options:/,/^\$/p" "$T/h1" | awk -v o="${names##*,}" '
			/^  -/ { on = index($0, o " ") || substr($0, length($0) - length(o) + 1) == o }
			on { printf "%s ", $0 }')
		[ -n "$line" ] || echo "FAIL $cmd: $names not in its help"
		if [ "$dflt" != - ] && ! grep -qF -- "default: $dflt" <<< "$(tr -s ' ' <<< "$line")"; then
			echo "FAIL $cmd: $names: its help does not give the default '$dflt'"
		fi
	done > "$T/hfail"
	[ -s "$T/hfail" ] && t_fail "$(head -n 1 "$T/hfail")" || t_ok "$cmd: every option in its help, with its default"
done < <("$bin" complete --commands)
"$bin" help bogus > /dev/null 2>&1
[ $? -eq 2 ] && t_ok "help of an unknown command: exit 2" || t_fail "help bogus"

# --json failures: one object, the status unchanged
cp --sparse=always "$T/img" "$T/ro.img" && chmod 444 "$T/ro.img"
cp --sparse=always "$T/img" "$T/sb.img"
printf '\xff' | dd of="$T/sb.img" bs=1 seek=200 conv=notrunc 2> /dev/null
head -c 1048576 /dev/urandom > "$T/notxfs.img"
jfail() {	# NAME STATUS CODE CMD ARGS...: the same status with and without --json
	local name=$1 st=$2 code=$3 cmd=$4 rc1 rc2
	shift 4
	(cd "$T/cwd" && "$bin" "$cmd" "$@") > /dev/null 2>&1
	rc1=$?
	rm -rf "${T:?}/cwd/"*
	(cd "$T/cwd" && "$bin" "$cmd" --json "$@") > "$T/out" 2> /dev/null
	rc2=$?
	rm -rf "${T:?}/cwd/"*
	if [ $rc1 -eq "$st" ] && [ $rc2 -eq "$st" ] && json_is "$T/out" "$code" 2> "$T/py"; then
		t_ok "$cmd --json, $name: exit $st, error $code"
	else
		t_fail "$cmd --json, $name: exit $rc1/$rc2 (want $st), $(head -c 300 "$T/out") $(tail -n 1 "$T/py")"
	fi
}
for c in report check plan run; do
	jfail "a missing file" 1 ENOENT "$c" "$T/none.img"
	jfail "not XFS" 1 - "$c" "$T/notxfs.img"
	jfail "a damaged superblock" 3 EFSBADCRC "$c" "$T/sb.img"
done
python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["error"]; sys.exit(e["structure"] != "superblock")' "$T/out" &&
	t_ok "the damaged superblock's structure is named" || t_fail "structure: $(cat "$T/out")"
jfail "a read-only image (refused)" 4 EROFS run "$T/ro.img"
# a refusal once the image is open: run's own document ends with the error
if command -v xfs_db > /dev/null; then
	cp --sparse=always "$T/img" "$T/ul.img"
	xfs_db -x -c "agi 0" -c "write -d unlinked[3] 77" "$T/ul.img" > /dev/null 2>&1
	(cd "$T/cwd" && "$bin" run "$T/ul.img") > /dev/null 2>&1
	rc1=$?
	(cd "$T/cwd" && "$bin" run --json "$T/ul.img") > "$T/out" 2> /dev/null
	rc2=$?
	if [ $rc1 -eq 4 ] && [ $rc2 -eq 4 ] && [ -z "$(ls -A "$T/cwd")" ] &&
	   python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
e = d["error"]
sys.exit(not (d["schema_version"] == 1 and e["code"].startswith("E") and
              "unlinked" in e["message"] and d["npasses"] == 0))' "$T/out"; then
		t_ok "run --json, a refusal: its document, exit 4, error $(t_json "$T/out" 'd["error"]["code"]')"
	else
		t_fail "run --json, a refusal: exit $rc1/$rc2, $(head -c 300 "$T/out")"
	fi
	rm -rf "${T:?}/cwd/"*
else
	t_skip "no xfs_db: no refusal once the image is open"
fi
if [ "$(t_imgsum "$T/img")" = "$sum0" ]; then
	t_ok "the image is as it was after every bad value"
else
	t_fail "the image changed"
fi
echo "options: $NOPT rows of the tables given bad values, $NBAD bad values in all"
t_summary t-options "$NOPT options, $NBAD bad values"
