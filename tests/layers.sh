#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The dependency rule, checked on every #include "..." of the tree:
#   ondisk <- core/base <- core/fs <- core/model <- {core/check, core/relocate}
#   tui/ may use core/fs, core/model (and ondisk/); cmd/ may use anything.
# check and relocate never include each other.  Includes are
# folder-qualified from the top ("core/fs/fs.h"), never "../".
# Usage: layers.sh [TOP]; prints each violation, exits 1 if any.
set -u
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2

# allowed DIR: the folders a file in DIR may include from
allowed() {
	case $1 in
	ondisk)		echo "ondisk" ;;
	core/base)	echo "ondisk core/base" ;;
	core/fs)	echo "ondisk core/base core/fs" ;;
	core/model)	echo "ondisk core/base core/fs core/model" ;;
	core/check)	echo "ondisk core/base core/fs core/model core/check" ;;
	core/relocate)	echo "ondisk core/base core/fs core/model core/relocate" ;;
	tui)		echo "ondisk core/fs core/model tui" ;;
	cmd)		echo "ondisk core/base core/fs core/model core/check core/relocate tui cmd" ;;
	*)		echo "" ;;
	esac
}

bad=0 n=0
while IFS= read -r f; do
	dir=$(dirname "$f")
	ok=$(allowed "$dir")
	if [ -z "$ok" ]; then
		echo "$f: a source file outside the known folders"
		bad=1
		continue
	fi
	while IFS= read -r inc; do
		n=$((n + 1))
		case $inc in
		*../*)	echo "$f: includes \"$inc\": use the path from the top"
			bad=1; continue ;;
		esac
		idir=$(dirname "$inc")
		if [ ! -f "$inc" ]; then
			echo "$f: includes \"$inc\", which does not exist"
			bad=1; continue
		fi
		case " $ok " in
		*" $idir "*) ;;
		*) echo "$f: includes \"$inc\": $dir may not depend on $idir"
		   bad=1 ;;
		esac
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done < <(find ondisk core cmd tui -name '*.[ch]' | sort)
[ "$n" -gt 0 ] || { echo "layers.sh: no includes found under $top"; exit 2; }
exit $bad
