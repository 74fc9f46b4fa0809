#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bash completion (cmd/xfsdefrag.bash): the script sourced and its
# function called with COMP_WORDS/COMP_CWORD set, for commands, options
# (each one the command's help lists, and each one the command accepts),
# option values (--order, --renumber), local files, and paths inside the image
# (against the fixture's recorded directory listing: odd names, escaped
# and quoted prefixes); then through a real readline in tmux, that what
# is inserted is quoted for the shell.
# Usage: t-completion.sh XFSDEFRAG
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(cd "$here/.." && pwd)
script=$top/cmd/xfsdefrag.bash
fx=$here/fixtures/aged
t_tmpdir

img=$T_TMP/aged.img
t_unpack "$fx" "$img"
mkdir -p "$T_TMP/cwd"
touch "$T_TMP/cwd/disk one.img" "$T_TMP/cwd/disk2.img" "$T_TMP/cwd/other"

# comp WORD... : run the completion for the last word; one candidate a
# line (names with newlines do not occur in the fixture) into $T_TMP/c
comp() {
	(
		cd "$T_TMP/cwd" || exit 1
		# shellcheck disable=SC1090
		. "$script"
		COMP_WORDS=("$bin" "${@:1}")
		COMP_CWORD=${COMP_COMP_CWORD:-$((${#COMP_WORDS[@]} - 1))}
		_xfsdefrag
		printf '%s\n' "${COMPREPLY[@]}"
	) 2> "$T_TMP/c.err" | sed '/^$/d' > "$T_TMP/c"
	[ -s "$T_TMP/c.err" ] && t_fail "completion wrote to stderr: $(head -n 1 "$T_TMP/c.err")"
	return 0
}

# expect WHAT FILE: the candidates, sorted, equal FILE's lines sorted
expect() {
	if diff <(LC_ALL=C sort "$T_TMP/c") <(LC_ALL=C sort "$2") > "$T_TMP/d"; then
		t_ok "$1"
	else
		t_fail "$1: $(head -n 6 "$T_TMP/d" | tr '\n' ' ')"
	fi
}

# commands: those --help lists, never the hidden ones
"$bin" --help | awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1}' \
	> "$T_TMP/cmds"
{ cat "$T_TMP/cmds"; echo help; echo --help; echo --version; } > "$T_TMP/want"
comp ""
expect "commands" "$T_TMP/want"
comp re
printf 'report\n' > "$T_TMP/want"
expect "a command's prefix" "$T_TMP/want"
comp help ""
expect "help COMMAND: the commands" "$T_TMP/cmds"

# options: every spelling the command's help lists (and --help), and
# each one accepted by the command
while read -r c; do
	comp "$c" -
	"$bin" "$c" --help 2>&1 | sed -n '/^options:/,/^$/p' |
		grep -o '^  -[-a-z0-9]*\(, --[-a-z0-9]*\)*' |
		sed 's/^  //; s/, /\n/' | grep -vx -- -h > "$T_TMP/help.opts"
	bad=
	while read -r o; do
		grep -qx -- "$o" "$T_TMP/c" || bad="$bad missing $o"
	done < "$T_TMP/help.opts"
	while read -r o; do
		grep -qx -- "$o" "$T_TMP/help.opts" || bad="$bad not-in-help $o"
		arg=
		[ -n "$("$bin" complete --options "$c" | awk -v o="$o" '
			{ n = split($1, s, ","); for (i = 1; i <= n; i++)
				if (s[i] == o && $2 != "-") print $2 }')" ] && arg=1
		# shellcheck disable=SC2086
		"$bin" "$c" "$o" ${arg:+1} --help > /dev/null 2> "$T_TMP/o.err"
		grep -q "unknown option\|takes no value" "$T_TMP/o.err" &&
			bad="$bad bogus $o"
	done < "$T_TMP/c"
	[ -z "$bad" ] && [ -s "$T_TMP/c" ] &&
		t_ok "$c: options ($(wc -l < "$T_TMP/c"))" ||
		t_fail "$c: options:$bad"
done < "$T_TMP/cmds"
comp bmap --s
printf -- '--stats\n' > "$T_TMP/want"
expect "bmap --stats is offered" "$T_TMP/want"

# the values an option takes
printf '%s\n' walk name inode > "$T_TMP/want"
for c in report plan run; do
	comp "$c" --order ""
	expect "$c --order: its values" "$T_TMP/want"
done
printf '%s\n' auto all > "$T_TMP/want"
comp run --renumber a
expect "run --renumber a: auto, all" "$T_TMP/want"
printf 'none\n' > "$T_TMP/want"
COMP_COMP_CWORD=3 comp plan --renumber n "$img"
expect "plan --renumber before the image" "$T_TMP/want"

# local files where an image or a file goes
printf '%s\n' "disk one.img" disk2.img > "$T_TMP/want"
comp info dis
expect "info: image file names" "$T_TMP/want"
comp report --html dis
expect "report --html: a file" "$T_TMP/want"
comp undo d
expect "undo: the undo file" "$T_TMP/want"
comp report --top ""
: > "$T_TMP/want"
expect "report --top: nothing to offer" "$T_TMP/want"

# paths inside the image, against the fixture's listing
# want DIR: the entries of DIR/ (paths, dangling symlinks), dirs with "/"
want() {
	python3 - "$fx" "$1" > "$T_TMP/want" <<'PY'
import subprocess, sys
fx, d = sys.argv[1], sys.argv[2]
def z(name):
    try:
        return subprocess.run(["zstd", "-dcq", "%s/%s.zst" % (fx, name)],
                              capture_output=True, check=True).stdout
    except Exception:
        return open("%s/%s" % (fx, name), "rb").read()
paths = z("paths").split(b"\0")
types = [l.split()[1] for l in z("inodes").decode().splitlines()]
try:
    dangling = open(fx + "/paths.dangling", "rb").read().split(b"\0")
except OSError:
    dangling = []
pre = (d + "/").encode() if d else b""
out = []
for i, p in enumerate(paths):
    if p and p != b"." and p.startswith(pre) and b"/" not in p[len(pre):]:
        out.append(p + (b"/" if types[i] == "d" else b""))
for p in dangling:
    if p and p.startswith(pre) and b"/" not in p[len(pre):]:
        out.append(p)
sys.stdout.buffer.write(b"".join(x + b"\n" for x in out))
PY
}
want ""
comp bmap -v "$img" ""
expect "bmap: the image's root directory" "$T_TMP/want"
want names
comp bmap "$img" names/
expect "bmap: names/ (control characters, quotes, UTF-8)" "$T_TMP/want"
want tree/d0
comp bmap -v "$img" tree/d0/
expect "bmap: a subdirectory" "$T_TMP/want"
grep '^tree/d0/s' "$T_TMP/want" > "$T_TMP/want.s"
comp bmap -v "$img" tree/d0/s
expect "bmap: a name prefix" "$T_TMP/want.s"
comp bmap "$img" 'names/dir\ with\ sp'
printf 'names/dir with space/\n' > "$T_TMP/want"
expect "bmap: a backslash-escaped prefix" "$T_TMP/want"
want "names/dir with space"
comp bmap "$img" '"names/dir with space/'
expect "bmap: an open double-quoted prefix" "$T_TMP/want"
comp bmap "$img" "'names/dir with space/"
expect "bmap: an open single-quoted prefix" "$T_TMP/want"
comp bmap -i "$img" ""
: > "$T_TMP/want"
expect "bmap -i: inode numbers, no paths" "$T_TMP/want"
comp bmap "$T_TMP/none.img" ""
expect "bmap on a missing image: nothing, quietly" "$T_TMP/want"
printf 'tree/\n' > "$T_TMP/want"
COMP_COMP_CWORD=3 comp tui --path tr "$img"
expect "tui --path before the image" "$T_TMP/want"
for c in run plan; do
	COMP_COMP_CWORD=3 comp $c --path tr "$img"
	expect "$c --path: paths inside the image" "$T_TMP/want"
done

# a real readline: what is inserted is quoted for the shell
if command -v tmux > /dev/null; then
	sock=$T_TMP/tmux.sock
	T_CLEANUP_HOOK='tmux -S "$sock" kill-server 2>/dev/null'
	tmux -S "$sock" new-session -d -x 200 -y 20 \
		"env -i HOME=$T_TMP TERM=xterm PATH=$(dirname "$bin"):/usr/bin:/bin INPUTRC=/dev/null bash --norc --noprofile"
	sleep 0.5
	tmux -S "$sock" send-keys "PS1='$ '; . '$script'; cd '$T_TMP'" Enter
	sleep 0.3
	tmux -S "$sock" send-keys "clear" Enter
	sleep 0.3
	tmux -S "$sock" send-keys "$(basename "$bin") bmap aged.img names/spa" Tab
	sleep 1
	line=$(tmux -S "$sock" capture-pane -p | grep 'bmap aged.img' | tail -n 1)
	case $line in
	*'names/space\ name'*) t_ok "readline inserts names/space\\ name" ;;
	*) t_fail "readline completion: '$line'" ;;
	esac
	tmux -S "$sock" send-keys C-u "$(basename "$bin") bmap aged.img names/dir" Tab
	sleep 1
	line=$(tmux -S "$sock" capture-pane -p | grep 'bmap aged.img' | tail -n 1)
	case $line in
	*'names/dir\ with\ space/'*) t_ok "readline inserts a directory, ready for more" ;;
	*) t_fail "readline directory completion: '$line'" ;;
	esac
	tmux -S "$sock" kill-server 2> /dev/null
else
	t_skip "tmux not installed: no readline test"
fi
t_summary completion
