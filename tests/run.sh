#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The test suite: unit tests, then every image test script (tests/t-*.sh,
# found when run.sh starts, so a new script joins by existing), against
# one xfsdefrag binary; one summary line per unit test and per script,
# each followed by its time line, and one line for the suite at the end.
#
#   run.sh --bin BIN [--unit DIR] [--asan] [--long] [--tap] [-j N]
#          [NAME...] [-- ARG...]
#
# NAME picks what runs: a script (t-check, or t-check.sh) or a unit test
# (test_records); several may be given; none: everything.  ARGs go to
# every script run (fixture names: run.sh --bin ./xfsdefrag t-check --
# aged).  T_CASE=REGEX selects cases inside the scripts (fixtures, named
# groups), T_VERBOSE=1 prints every passing check, --tap (or T_TAP=1)
# makes each script speak TAP.  Unit tests run from the top of the tree
# (they read tests/fixtures and build/fuzz/base).
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
# --asan: the sanitizer pass.  A script whose header has the line
# "# asan-pass: check-long ..." (its code paths are run under the
# sanitizers by other scripts; the line says why) is left out of it
# unless named, or unless --long is given too.
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
bin= unit= asan= long= names=() args=()
jobs=${XFSDEFRAG_TEST_JOBS:-2}
mounts=${XFSDEFRAG_TEST_MOUNTS:-2}
usage() {
	echo "usage: $0 --bin BIN [--unit DIR] [--asan] [--long] [--tap] [-j N] [NAME...] [-- ARG...]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--bin) [ $# -ge 2 ] || usage; bin=$2; shift 2 ;;
	--unit) [ $# -ge 2 ] || usage; unit=$2; shift 2 ;;
	--asan) asan=1; shift ;;
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
[ -x "$bin" ] || { echo "run.sh: no binary $bin" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
[ -z "$unit" ] || unit=$(cd "$unit" && pwd) || exit 2
export XFSDEFRAG_ASAN=$asan
if [ -n "$long" ]; then export XFSDEFRAG_TEST_LONG=1; else unset XFSDEFRAG_TEST_LONG; fi

# named NAME: was it asked for by name?
named() {
	local n
	for n in "${names[@]}"; do [ "$n" = "$1" ] && return 0; done
	return 1
}
# wanted NAME: was it asked for (or was nothing asked for)?
wanted() { [ ${#names[@]} -eq 0 ] || named "$1"; }

label=${asan:+" (asan)"}

# timed NAME CMD...: run CMD, then one line with its wall and CPU time.
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
cost() {
	if [ -n "$asan" ]; then
		case $1 in
		t-relocate|t-fixtures) echo 90 ;;
		t-safety) echo 40 ;;
		t-undo|t-precheck|t-scanio) echo 25 ;;
		t-badinput|t-check) echo 15 ;;
		t-tui|t-html|t-report|t-powercut|t-excl) echo 7 ;;
		t-live|t-wholedisk|t-completion) echo 4 ;;
		t-cli|t-layers) echo 1 ;;
		t-*) echo 100 ;;
		*) echo 0 ;;	# unit tests: seconds all together
		esac
		return
	fi
	case $1 in
	t-relocate) echo 130 ;;
	t-safety|t-excl|t-precheck|t-fixtures|t-live|t-powercut) echo 22 ;;
	t-undo|t-check|t-badinput|t-tui) echo 10 ;;
	t-scanio|t-html|t-report|t-layers|t-wholedisk) echo 5 ;;
	t-completion|t-cli) echo 2 ;;
	t-*) echo 100 ;;
	*) echo 0 ;;
	esac
}

# ---- what runs: KIND NAME PATH MOUNTS, in start order ----------------------
kind=() name=() path=() mnt=()
add() { kind+=("$1"); name+=("$2"); path+=("$3"); mnt+=("$4"); }
left=()
if [ -n "$unit" ]; then
	for t in "$unit"/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		wanted "$(basename "$t")" && add unit "$(basename "$t")" "$t" ""
	done
fi
scripts=()
for t in "$here"/t-*.sh; do
	n=$(basename "$t" .sh)
	wanted "$n" || continue
	if [ -n "$asan" ] && [ -z "$long" ] && ! named "$n" &&
	   grep -q '^# asan-pass: check-long' "$t"; then
		left+=("$n")
		continue
	fi
	scripts+=("$t")
done
if [ "$jobs" -gt 1 ]; then
	# slowest first (a stable sort: equal costs keep file order)
	mapfile -t scripts < <(for t in "${scripts[@]}"; do
		printf '%s\t%s\n' "$(cost "$(basename "$t" .sh)")" "$t"
	done | sort -s -t "$(printf '\t')" -k1,1nr | cut -f 2)
fi
for t in "${scripts[@]}"; do
	m=
	grep -Ewq 'mount|losetup|t_can_mount' "$t" && m=1
	add script "$(basename "$t" .sh)" "$t" "$m"
done
if [ ${#kind[@]} -eq 0 ]; then
	echo "run.sh: nothing matches ${names[*]}" >&2
	exit 2
fi
[ ${#left[@]} -eq 0 ] ||
	echo "run.sh$label: ${left[*]} run under the sanitizers in make check-long"

# job I: run the unit test or script number I (output on stdout/stderr)
job() {
	local i=$1 rc
	if [ "${kind[$i]}" = unit ]; then
		(cd "$top" && timed "${name[$i]}" "${path[$i]}")
		rc=$?
		[ $rc -eq 0 ] || echo "FAIL unit ${name[$i]}$label"
	else
		timed "${name[$i]}" "${path[$i]}" "$bin" "${args[@]}"
		rc=$?
	fi
	return $rc
}

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

failed=0
if [ "$jobs" -eq 1 ]; then
	for ((i = 0; i < ${#kind[@]}; i++)); do
		if [ -n "${mnt[$i]}" ]; then
			( loop_slot; job "$i" ) || failed=1
		else
			job "$i" || failed=1
		fi
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
		echo "test suite$label: interrupted"
		exit 130
	}
	trap stop INT TERM
	next=0 nmount=0 started=()
	while :; do
		while [ ${#running[@]} -lt "$jobs" ]; do
			# the first not started whose loop devices are free
			pick=
			for ((i = next; i < ${#kind[@]}; i++)); do
				[ -n "${started[$i]:-}" ] && continue
				[ -n "${mnt[$i]}" ] && [ "$nmount" -ge "$mounts" ] && continue
				pick=$i
				break
			done
			[ -n "$pick" ] || break
			started[$pick]=1
			while [ -n "${started[$next]:-}" ]; do next=$((next + 1)); done
			if [ -n "${mnt[$pick]}" ]; then
				nmount=$((nmount + 1))
				( set +m; loop_slot; job "$pick" ) < /dev/null > "$work/$pick" 2>&1 &
			else
				( set +m; job "$pick" ) < /dev/null > "$work/$pick" 2>&1 &
			fi
			running[$!]=$pick
		done
		[ ${#running[@]} -gt 0 ] || break
		done_pid=
		wait -n -p done_pid
		rc=$?
		[ -n "${done_pid:-}" ] || continue
		i=${running[$done_pid]}
		unset "running[$done_pid]"
		[ -n "${mnt[$i]}" ] && nmount=$((nmount - 1))
		cat "$work/$i"
		[ $rc -eq 0 ] || failed=1
	done
	trap - INT TERM
	rm -rf "$work"
fi
if [ $failed -ne 0 ]; then
	echo "test suite$label: FAILED"
	exit 1
fi
echo "test suite$label: all passed"
exit 0
}
