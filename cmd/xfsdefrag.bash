# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for xfsdefrag(8): commands, options, image and undo
# files, and paths inside the image for bmap and tui --path.
#
# Driven by the program itself, so it never falls behind it: commands
# come from `xfsdefrag --help`, each command's options and arguments from
# its usage line (`xfsdefrag CMD --help`: "[-n N]" is an option taking N,
# "[--json]" a flag, bare words are positional), and paths inside the
# image from the hidden `xfsdefrag complete [--partition N] IMAGE
# PREFIX`, which reads the directory from the unmounted filesystem
# (NUL-separated names).
# Argument kinds: IMAGE and FILE complete local files, PATH a path in
# the image, anything else (N, AGNO, INO, ...) nothing.

# _xfsdefrag_dequote WORD: what the shell would make of a typed word
# (backslashes and quotes removed, a leading ~/ expanded), in REPLY;
# without eval, so nothing typed is ever run.
_xfsdefrag_dequote() {
	local s=$1 out= c q= i
	for ((i = 0; i < ${#s}; i++)); do
		c=${s:i:1}
		if [[ $q == "'" ]]; then
			if [[ $c == "'" ]]; then q=; else out+=$c; fi
		elif [[ $q == '"' ]]; then
			if [[ $c == '"' ]]; then
				q=
			elif [[ $c == '\' ]] && ((i + 1 < ${#s})); then
				((i++))
				out+=${s:i:1}
			else
				out+=$c
			fi
		else
			case $c in
			"'" | '"') q=$c ;;
			'\') ((i++)); out+=${s:i:1} ;;
			*) out+=$c ;;
			esac
		fi
	done
	[[ $out == '~/'* ]] && out=$HOME/${out#'~/'}
	REPLY=$out
}

# _xfsdefrag_usage PROG CMD: parse CMD's usage line into _xd_flags (all
# options), _xd_args (option -> its argument's name) and _xd_pos (the
# positional arguments' names, in order; NAME... repeats).
_xfsdefrag_usage() {
	local u tok opt arg alt=
	_xd_flags=() _xd_pos=()
	_xd_args=()
	u=$("$1" "$2" --help 2>&1 | sed -n '1s/^usage: [^ ]* [^ ]* *//p')
	# "[-v[v]]" is -v or -vv
	u=$(sed 's/\[\(-[A-Za-z]\)\[\([A-Za-z]\)\]\]/[\1] [\1\2]/g' <<< "$u")
	while IFS= read -r tok; do
		case $tok in
		'['*)
			tok=${tok#[}
			tok=${tok%]}
			read -r opt arg <<< "$tok"
			_xd_flags+=("$opt")
			[[ -n $arg ]] && _xd_args[$opt]=$arg
			;;
		'|') alt=1 ;;	# "| -i INO...": another form, its flag
		-*) _xd_flags+=("$tok") ;;
		*) [[ -z $alt ]] && _xd_pos+=("$tok") ;;
		esac
	done < <(grep -o '\[[^]]*\]\|[^][ ]\+' <<< "$u")
}

# _xfsdefrag_files CUR: local files (images, undo files, HTML output).
_xfsdefrag_files() {
	_xfsdefrag_dequote "$1"
	compopt -o filenames 2> /dev/null
	mapfile -t COMPREPLY < <(compgen -f -- "$REPLY")
}

# _xfsdefrag_inside PROG IMAGE CUR [PARTITION]: paths inside the image
# (partition PARTITION of it when that is given).
_xfsdefrag_inside() {
	local img=$2
	local -a part=()
	_xfsdefrag_dequote "$img"
	img=$REPLY
	[[ -r $img ]] || return 0
	[[ -n ${4:-} ]] && part=(--partition "$4")
	_xfsdefrag_dequote "$3"
	mapfile -d '' COMPREPLY < <("$1" complete "${part[@]}" "$img" "$REPLY" 2> /dev/null)
	# readline quotes what it inserts; a directory waits for more
	compopt -o filenames 2> /dev/null
	if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == */ ]]; then
		compopt -o nospace 2> /dev/null
	fi
}

_xfsdefrag() {
	local cword=$COMP_CWORD cur=${COMP_WORDS[COMP_CWORD]} prog cmd
	local -a _xd_flags _xd_pos
	local -A _xd_args
	local i w expect= kind= image= np=0 iflag= part=
	local -a pos=()

	COMPREPLY=()
	_xfsdefrag_dequote "${COMP_WORDS[0]}"
	prog=$REPLY
	if ((cword == 1)); then
		mapfile -t COMPREPLY < <(compgen -W "$("$prog" --help 2> /dev/null |
			awk '/^commands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
			--help --version" -- "$cur")
		return 0
	fi
	cmd=${COMP_WORDS[1]}
	_xfsdefrag_usage "$prog" "$cmd"
	((${#_xd_flags[@]} + ${#_xd_pos[@]})) || return 0

	# every word but the one being completed: positionals, option args
	for ((i = 2; i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		if ((i == cword)); then
			if [[ -n $expect ]]; then
				kind=${_xd_args[$expect]}
				expect=
			elif [[ $cur != -* ]]; then
				kind=@$np	# the np-th positional
				((np++))
			fi
			continue
		fi
		if [[ -n $expect ]]; then
			[[ $expect == --partition ]] && part=$w
			expect=
			continue
		fi
		case $w in
		-?*)
			[[ -n ${_xd_args[$w]+x} ]] && expect=$w
			[[ $w == -i || ($w == -[a-z]*i* && $w != --*) ]] && iflag=1
			;;
		*)
			pos+=("$w")
			((np++))
			;;
		esac
	done
	if [[ -z $kind ]]; then
		[[ $cur == -* ]] &&
			mapfile -t COMPREPLY < <(compgen -W "${_xd_flags[*]} --help" -- "$cur")
		return 0
	fi
	# the image, wherever it is on the line
	for ((i = 0; i < ${#_xd_pos[@]} && i < ${#pos[@]}; i++)); do
		[[ ${_xd_pos[i]} == IMAGE ]] && image=${pos[i]}
	done
	if [[ $kind == @* ]]; then
		i=${kind#@}
		if ((i < ${#_xd_pos[@]})); then
			kind=${_xd_pos[i]}
		elif [[ ${_xd_pos[-1]} == *... ]]; then
			kind=${_xd_pos[-1]}
		else
			return 0
		fi
	fi
	case ${kind%...} in
	IMAGE | FILE) _xfsdefrag_files "$cur" ;;
	PATH)
		[[ -n $iflag ]] && return 0	# bmap -i: inode numbers
		[[ -n $image ]] && _xfsdefrag_inside "$prog" "$image" "$cur" "$part"
		;;
	esac
	return 0
}
complete -F _xfsdefrag xfsdefrag
