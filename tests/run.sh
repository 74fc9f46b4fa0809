#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The test suite: unit tests, then every image test script (tests/t-*.sh,
# found when run.sh starts, so a new script joins by existing), against
# one xfsdefrag binary, or two at once (the release and the sanitizer
# build); one summary line per unit test and per script, each followed
# by its time line, and one line per binary for the suite at the end.
#
#   run.sh --bin BIN [--unit DIR] [--asan] [--asan-bin BIN [--asan-unit DIR]]
#          [--long] [--tap] [-j N] [NAME...] [-- ARG...]
#
# NAME picks what runs: a script (t-check, or t-check.sh) or a unit test
# (test_records); several may be given; none: everything.  ARGs go to
# every script run (fixture names: run.sh --bin ./xfsdefrag t-check --
# aged).  T_CASE=REGEX selects cases inside the scripts (fixtures, named
# groups), T_VERBOSE=1 prints every passing check, --tap (or T_TAP=1)
# makes each script speak TAP.  Unit tests run from the top of the tree
# (they read tests/fixtures and build/fuzz/base).
#
# --asan: BIN is the sanitizer build.  --asan-bin BIN (and --asan-unit
# DIR): run the sanitizer build's pass too, in the same queue, so that
# the long scripts of both passes overlap (what make check does).  A
# script whose header has the line "# asan-pass: check-long ..." (its
# code paths run under the sanitizers elsewhere; the line says why) is
# left out of the sanitizer pass unless named, or unless --long is given.
#
# -j N (or XFSDEFRAG_TEST_JOBS=N; default 2, the cores CI has): N unit
# tests and scripts at once, slowest first; each one's output is printed
# whole when it ends, in the order they end.  -j 1 runs them one after
# the other in file order, their output as it comes.  Scripts that may
# use loop devices (their text says mount or losetup) also take one of
# XFSDEFRAG_TEST_MOUNTS (default 2) machine-wide slots, a flock(1) lock
# in /tmp/xfsdefrag-loop-slots, so however many suites run at once they
# hold at most that many such scripts, each using at most 2 devices.
#
# --long (exported as XFSDEFRAG_TEST_LONG=1): the make check-long pass;
# every script runs, and scripts run their full repetitions where make
# check runs a sample (each says which).
#
# The time line of each ("time NAME: wall W s, cpu C s (user U, sys S)")
# gives CPU time (user+sys of it and its children), the figure that holds
# on a loaded machine, besides wall time.

# All of it one block, which bash reads whole before it runs any: editing
# this file while a suite runs cannot change what the running one does.
{
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
bin= unit= asan= abin= aunit= long= names=() args=()
jobs=${XFSDEFRAG_TEST_JOBS:-2}
mounts=${XFSDEFRAG_TEST_MOUNTS:-2}
usage() {
	echo "usage: $0 --bin BIN [--unit DIR] [--asan] [--asan-bin BIN [--asan-unit DIR]] [--long] [--tap] [-j N] [NAME...] [-- ARG...]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--bin) [ $# -ge 2 ] || usage; bin=$2; shift 2 ;;
	--unit) [ $# -ge 2 ] || usage; unit=$2; shift 2 ;;
	--asan) asan=1; shift ;;
	--asan-bin) [ $# -ge 2 ] || usage; abin=$2; shift 2 ;;
	--asan-unit) [ $# -ge 2 ] || usage; aunit=$2; shift 2 ;;
	--long) long=1; shift ;;
	--tap) export T_TAP=1; shift ;;
	-j) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
	-j*) jobs=${1#-j}; shift ;;
	--) shift; args=("$@"); break ;;
	-*) usage ;;
	*) names+=("${1%.sh}"); shift ;;
	esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -j wants a number, not '$jobs'" >&2; exit 2; }
[[ $mounts =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: XFSDEFRAG_TEST_MOUNTS wants a number" >&2; exit 2; }
[ -z "$abin" ] || [ -z "$asan" ] || usage
[ -n "$abin" ] || [ -z "$aunit" ] || usage
if [ -n "$long" ]; then export XFSDEFRAG_TEST_LONG=1; else unset XFSDEFRAG_TEST_LONG; fi

# The passes: P = 0 (BIN), 1 (the sanitizer build of --asan-bin)
pbin=() punit=() pasan=() plabel=() pfail=()
pass() {	# BIN UNIT-DIR ASAN
	local b=$1 u=$2
	[ -x "$b" ] || { echo "run.sh: no binary $b" >&2; exit 2; }
	b=$(cd "$(dirname "$b")" && pwd)/$(basename "$b")
	[ -z "$u" ] || u=$(cd "$u" && pwd) || exit 2
	pbin+=("$b") punit+=("$u") pasan+=("$3") plabel+=("${3:+ (asan)}") pfail+=(0)
}
pass "$bin" "$unit" "$asan"
[ -z "$abin" ] || pass "$abin" "$aunit" 1

# named NAME: was it asked for by name?
named() {
	local n
	for n in "${names[@]}"; do [ "$n" = "$1" ] && return 0; done
	return 1
}
# wanted NAME: was it asked for (or was nothing asked for)?
wanted() { [ ${#names[@]} -eq 0 ] || named "$1"; }

# timed NAME CMD...: run CMD, then one line with its wall and CPU time
# ($label: the pass's).
timed() {
	local name=$1 rc tf w u s
	shift
	tf=$(mktemp "${TMPDIR:-/tmp}/xfsdefrag-time.XXXXXX")
	{ TIMEFORMAT='%R %U %S'; time "$@" 2>&3; } 3>&2 2>"$tf"
	rc=$?
	read -r w u s < "$tf"
	rm -f "$tf"
	awk -v n="$name$label" -v w="$w" -v u="$u" -v s="$s" 'BEGIN {
		printf "time %s: wall %.1f s, cpu %.1f s (user %.1f, sys %.1f)\n",
		       n, w, u + s, u, s }'
	return $rc
}

# About the CPU seconds each script takes in this pass of make check
# (measured 2026-12-01 on the 2-core VM): the slowest start first, so the
# last to end is a short one.  A script not listed (a new one) counts as
# slow: it starts early, which costs nothing if it is fast.
cost() {	# NAME ASAN
	if [ -n "$2" ]; then
		case $1 in
		t-relocate) echo 95 ;;	# the most wall time: mounts
		t-modern) echo 40 ;;
		t-fixtures) echo 90 ;;
		t-safety) echo 40 ;;
		t-undo|t-precheck|t-scanio) echo 25 ;;
		t-badinput|t-check) echo 15 ;;
		t-tui|t-html|t-report|t-powercut|t-excl) echo 7 ;;
		t-live|t-wholedisk|t-completion) echo 4 ;;
		t-cli|t-layers|t-hddemu) echo 1 ;;
		t-*) echo 100 ;;
		*) echo 0 ;;	# unit tests: seconds all together
		esac
		return
	fi
	case $1 in
	t-relocate) echo 130 ;;
	t-modern) echo 30 ;;
	t-safety|t-excl|t-precheck|t-fixtures|t-live|t-powercut) echo 22 ;;
	t-undo|t-check|t-badinput|t-tui) echo 10 ;;
	t-scanio|t-html|t-report|t-layers|t-wholedisk) echo 5 ;;
	t-completion|t-cli|t-hddemu) echo 2 ;;
	t-*) echo 100 ;;
	*) echo 0 ;;
	esac
}

# ---- what runs: KIND NAME PATH MOUNTS PASS COST, then in start order --------
kind=() name=() path=() mnt=() jpass=() jcost=()
add() {
	kind+=("$1") name+=("$2") path+=("$3") mnt+=("$4") jpass+=("$5")
	jcost+=("$(cost "$2" "${pasan[$5]}")")
}
for ((p = 0; p < ${#pbin[@]}; p++)); do
	if [ -n "${punit[$p]}" ]; then
		for t in "${punit[$p]}"/*; do
			[ -f "$t" ] && [ -x "$t" ] || continue
			wanted "$(basename "$t")" && add unit "$(basename "$t")" "$t" "" $p
		done
	fi
	left=()
	for t in "$here"/t-*.sh; do
		n=$(basename "$t" .sh)
		wanted "$n" || continue
		if [ -n "${pasan[$p]}" ] && [ -z "$long" ] && ! named "$n" &&
		   grep -q '^# asan-pass: check-long' "$t"; then
			left+=("$n")
			continue
		fi
		m=
		grep -Ewq 'mount|losetup|t_can_mount' "$t" && m=1
		add script "$n" "$t" "$m" $p
	done
	[ ${#left[@]} -eq 0 ] ||
		echo "run.sh${plabel[$p]}: ${left[*]} run under the sanitizers in make check-long"
done
if [ ${#kind[@]} -eq 0 ]; then
	echo "run.sh: nothing matches ${names[*]}" >&2
	exit 2
fi
# the start order: as listed with -j 1 (each pass in turn), else the
# slowest first (a stable sort: equal costs keep that order)
order=()
for ((i = 0; i < ${#kind[@]}; i++)); do order+=("$i"); done
if [ "$jobs" -gt 1 ]; then
	mapfile -t order < <(for i in "${order[@]}"; do
		echo "${jcost[$i]} $i"
	done | sort -s -k1,1nr | cut -d' ' -f 2)
fi

# job I: run the unit test or script number I (output on stdout/stderr),
# in a subshell of its own: the pass's binary, label and environment
job() (
	local i=$1 rc p=${jpass[$1]}
	label=${plabel[$p]}
	export XFSDEFRAG_ASAN=${pasan[$p]}
	[ -z "${mnt[$i]}" ] || loop_slot
	if [ "${kind[$i]}" = unit ]; then
		(cd "$top" && timed "${name[$i]}" "${path[$i]}")
		rc=$?
		[ $rc -eq 0 ] || echo "FAIL unit ${name[$i]}$label"
	else
		timed "${name[$i]}" "${path[$i]}" "${pbin[$p]}" "${args[@]}"
		rc=$?
	fi
	return $rc
)

# loop_slot: hold one of the machine's $mounts loop-device slots until
# this (sub)shell and its children end
loop_slot() {
	local d=/tmp/xfsdefrag-loop-slots i fd
	mkdir -p "$d" 2>/dev/null && chmod 1777 "$d" 2>/dev/null
	while :; do
		for ((i = 1; i <= mounts; i++)); do
			exec {fd}>>"$d/slot.$i" || continue
			flock -n "$fd" && return 0
			exec {fd}>&-
		done
		sleep 1
	done
}

if [ "$jobs" -eq 1 ]; then
	for i in "${order[@]}"; do
		job "$i" || pfail[${jpass[$i]}]=1
	done
else
	# Each job runs in a process group of its own (set -m), so an
	# interrupt reaches all of it; its output waits in a file.
	set -m
	work=$(mktemp -d "${TMPDIR:-/tmp}/xfsdefrag-run.XXXXXX")
	declare -A running=()	# pid -> job number
	stop() {
		local p
		set +m	# no job notices
		for p in "${!running[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done
		wait
		rm -rf "$work"
		echo "test suite: interrupted"
		exit 130
	}
	trap stop INT TERM
	next=0 nmount=0 started=()
	while :; do
		while [ ${#running[@]} -lt "$jobs" ]; do
			# the first not started whose loop devices are free
			pick=
			for ((k = next; k < ${#order[@]}; k++)); do
				[ -n "${started[$k]:-}" ] && continue
				[ -n "${mnt[${order[$k]}]}" ] && [ "$nmount" -ge "$mounts" ] && continue
				pick=$k
				break
			done
			[ -n "$pick" ] || break
			started[$pick]=1
			while [ -n "${started[$next]:-}" ]; do next=$((next + 1)); done
			i=${order[$pick]}
			[ -z "${mnt[$i]}" ] || nmount=$((nmount + 1))
			( set +m; job "$i" ) < /dev/null > "$work/$i" 2>&1 &
			running[$!]=$i
		done
		[ ${#running[@]} -gt 0 ] || break
		done_pid=
		wait -n -p done_pid
		rc=$?
		[ -n "$done_pid" ] || continue
		i=${running[$done_pid]}
		unset "running[$done_pid]"
		[ -z "${mnt[$i]}" ] || nmount=$((nmount - 1))
		cat "$work/$i"
		[ $rc -eq 0 ] || pfail[${jpass[$i]}]=1
	done
	trap - INT TERM
	rm -rf "$work"
fi
rc=0
for ((p = 0; p < ${#pbin[@]}; p++)); do
	if [ "${pfail[$p]}" -ne 0 ]; then
		echo "test suite${plabel[$p]}: FAILED"
		rc=1
	else
		echo "test suite${plabel[$p]}: all passed"
	fi
done
exit $rc
}
