#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The dependency rule, checked on every #include "..." of the tree:
#   ondisk <- core/base <- core/fs <- core/model <- {core/check, core/relocate}
#   core/fs <- core/undo <- core/relocate (the undo journal: no model)
#   {core/check, core/relocate} <- core/run (the safe-write sequence)
#   tui/ may use core/fs, core/model (and ondisk/); cmd/ may use anything
#   but the test aids; tests/aids/ (the test binary) anything at all, and
#   nothing of the product may include it.
# check and relocate never include each other.  Includes are
# folder-qualified from the top ("core/fs/fs.h"), never "../".
# Usage: layers.sh [TOP]; prints each violation, exits 1 if any.
set -u
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2

# allowed DIR: ok= the folders a file in DIR may include from (set in
# this shell, not printed: a subshell per file and include made the
# check take seconds)
allowed() {
	case $1 in
	ondisk)		ok="ondisk" ;;
	core/base)	ok="ondisk core/base" ;;
	core/fs)	ok="ondisk core/base core/fs" ;;
	core/model)	ok="ondisk core/base core/fs core/model" ;;
	core/check)	ok="ondisk core/base core/fs core/model core/check" ;;
	core/undo)	ok="ondisk core/base core/fs core/undo" ;;
	core/relocate)	ok="ondisk core/base core/fs core/model core/undo core/relocate" ;;
	core/run)	ok="ondisk core/base core/fs core/model core/check core/undo core/relocate core/run" ;;
	tui)		ok="ondisk core/fs core/model tui" ;;
	cmd)		ok="ondisk core/base core/fs core/model core/check core/undo core/relocate core/run tui cmd" ;;
	tests/aids)	ok="ondisk core/base core/fs core/model core/check core/undo core/relocate core/run tui cmd tests/aids" ;;
	*)		ok="" ;;
	esac
}
# dir_of VAR PATH: VAR= what dirname(1) prints for PATH (no slash: ".")
dir_of() {
	case $2 in
	*/*)	printf -v "$1" '%s' "${2%/*}" ;;
	*)	printf -v "$1" '%s' . ;;
	esac
}

bad=0 n=0
dirs=(ondisk core cmd tui)
[ -d tests/aids ] && dirs+=(tests/aids)
mapfile -t files < <(find "${dirs[@]}" -name '*.[ch]' | sort)
for f in "${files[@]}"; do
	dir_of dir "$f"
	allowed "$dir"
	[ -n "$ok" ] && continue
	echo "$f: a source file outside the known folders"
	bad=1
done
# every include as FILE<tab>INCLUDE, one awk over all the files
while IFS=$'\t' read -r f inc; do
	dir_of dir "$f"
	allowed "$dir"
	[ -n "$ok" ] || continue
	n=$((n + 1))
	case $inc in
	*../*)	echo "$f: includes \"$inc\": use the path from the top"
		bad=1; continue ;;
	esac
	dir_of idir "$inc"
	if [ ! -f "$inc" ]; then
		echo "$f: includes \"$inc\", which does not exist"
		bad=1; continue
	fi
	case " $ok " in
	*" $idir "*) ;;
	*) echo "$f: includes \"$inc\": $dir may not depend on $idir"
	   bad=1 ;;
	esac
done < <([ ${#files[@]} -eq 0 ] || awk '
	/^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"/ {
		s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s)
		print FILENAME "\t" s }' "${files[@]}")
[ "$n" -gt 0 ] || { echo "layers.sh: no includes found under $top"; exit 2; }
exit $bad
