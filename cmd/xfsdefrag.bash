# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for xfsdefrag(8): commands, options, image and undo
# files, and paths inside the image for bmap and tui --path.
#
# Driven by the program itself, so it never falls behind it: the hidden
# `xfsdefrag complete` prints the commands (--commands), a command's
# option table (--options CMD: one option a line, its spellings, the
# name of its value and the values it may take) and its operands
# (--operands CMD), and the paths inside the image (complete
# [--partition N] IMAGE PREFIX reads the directory from the unmounted
# filesystem, NUL after each name).  Value kinds: IMAGE and FILE complete
# local files, PATH a path in the image, an option's fixed values
# themselves (--order walk, name or inode), anything else (N, AGNO,
# INO, ...) nothing.

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

# _xfsdefrag_usage PROG CMD: read CMD's option table into _xd_flags (all
# spellings), _xd_args (spelling -> its value's name), _xd_vals
# (spelling -> the values it may take) and _xd_pos (the operands' names,
# in order; NAME... repeats).
_xfsdefrag_usage() {
	local names arg kind lo hi choices rest n
	_xd_flags=() _xd_pos=()
	_xd_args=() _xd_vals=()
	while read -r names arg kind lo hi choices rest; do
		[[ -n $names ]] || continue
		IFS=, read -r -a n <<< "$names"
		_xd_flags+=("${n[@]}")
		[[ $arg == - ]] && continue
		for names in "${n[@]}"; do
			_xd_args[$names]=$arg
			[[ $choices != - ]] && _xd_vals[$names]=${choices//,/ }
		done
	done < <("$1" complete --options "$2" 2> /dev/null)
	read -r -a _xd_pos < <("$1" complete --operands "$2" 2> /dev/null)
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
	local -A _xd_args _xd_vals
	local i w expect= kind= image= np=0 iflag= part=
	local -a pos=()

	COMPREPLY=()
	_xfsdefrag_dequote "${COMP_WORDS[0]}"
	prog=$REPLY
	if ((cword == 1)); then
		mapfile -t COMPREPLY < <(compgen -W "$("$prog" complete --commands 2> /dev/null)
			help --help --version" -- "$cur")
		return 0
	fi
	cmd=${COMP_WORDS[1]}
	if [[ $cmd == help ]]; then
		((cword == 2)) && mapfile -t COMPREPLY < <(compgen -W \
			"$("$prog" complete --commands 2> /dev/null)" -- "$cur")
		return 0
	fi
	_xfsdefrag_usage "$prog" "$cmd"
	((${#_xd_flags[@]} + ${#_xd_pos[@]})) || return 0

	# every word but the one being completed: positionals, option args
	for ((i = 2; i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		if ((i == cword)); then
			if [[ -n $expect ]]; then
				kind=${_xd_args[$expect]}
				if [[ -n ${_xd_vals[$expect]+x} ]]; then
					mapfile -t COMPREPLY < <(compgen -W "${_xd_vals[$expect]}" -- "$cur")
					return 0
				fi
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
		--partition=*) part=${w#--partition=} ;;
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
