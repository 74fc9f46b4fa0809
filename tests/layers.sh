#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The dependency rule, checked on every #include "..." of the tree:
#   ondisk <- core/base <- core/fs <- core/model <- {core/check, core/relocate}
#   core/fs <- core/undo <- core/relocate (the undo journal: no model)
#   {core/check, core/relocate} <- core/run (the safe-write sequence)
#   tui/ may use core/fs, core/model (and ondisk/); html/ (the HTML
#   report of report and plan) core/base, fs, model and relocate (and
#   ondisk/), never cmd/ or tui/; cmd/ may use anything but the test aids; tests/aids/ (the test binary) anything at all, and
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
	html)		ok="ondisk core/base core/fs core/model core/relocate html" ;;
	cmd)		ok="ondisk core/base core/fs core/model core/check core/undo core/relocate core/run tui html cmd" ;;
	tests/aids)	ok="ondisk core/base core/fs core/model core/check core/undo core/relocate core/run tui html cmd tests/aids" ;;
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
dirs=(ondisk core cmd tui html)
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

# ondisk/ owns every field offset: outside it, no byte-order access
# (od_get_be32, be32toh, bswap_32, ntohl, ...) and no literal offset of 2
# or more into a byte buffer (raw[82], buf + 108, rec + 16 * i): name the
# field with an ondisk accessor or constant.  Byte buffers are the names
# declared uint8_t or unsigned char, pointer or array, in the function
# (a line starting with "}" ends one); comments and strings are left out.
# [0], [1] and + 1 stay allowed (the first bytes of a name).
if [ ${#files[@]} -gt 0 ]; then
	mapfile -t outside < <(printf '%s\n' "${files[@]}" | grep -v '^ondisk/')
	[ ${#outside[@]} -eq 0 ] || awk '
	FNR == 1 { split("", bytes); incomment = 0 }
	{
		line = $0; s = ""
		while (line != "") {
			if (incomment) {
				i = index(line, "*/")
				if (!i)
					break
				line = substr(line, i + 2); incomment = 0
				continue
			}
			i = index(line, "/*")
			if (!i) {
				s = s line
				break
			}
			s = s substr(line, 1, i - 1) " "
			line = substr(line, i + 2); incomment = 1
		}
		sub(/\/\/.*/, "", s)
		gsub(/"([^"\\]|\\.)*"/, "\"\"", s)
		gsub(/\047([^\047\\]|\\.)*\047/, "0", s)
		if (s ~ /^}/)
			split("", bytes)
		# byte buffers declared here (not arrays of pointers)
		t = s
		while (match(t, /(uint8_t|unsigned char)[ \t]+(const[ \t]+)?\*?[ \t]*(const[ \t]+)?[A-Za-z_][A-Za-z_0-9]*[ \t]*\[?/)) {
			d = substr(t, RSTART, RLENGTH); t = substr(t, RSTART + RLENGTH)
			if (d ~ /\*.*\[$/)
				continue
			sub(/[ \t]*\[?$/, "", d); sub(/.*[* \t]/, "", d)
			bytes[d] = 1
		}
		if (s ~ /(^|[^A-Za-z_0-9])(od_(get|put)_(be|le)(16|32|64)|(be|le)(16|32|64)toh|hto(be|le)(16|32|64)|bswap_(16|32|64)|__builtin_bswap(16|32|64)|ntoh[sl]|hton[sl])[ \t]*\(/) {
			print FILENAME ":" FNR ": a byte-order access outside ondisk/: " $0
			bad = 1
			next
		}
		# array declarations are no accesses
		gsub(/(uint8_t|unsigned char|\*)[ \t]*[A-Za-z_][A-Za-z_0-9]*[ \t]*\[[^]]*\][ \t]*[;,=)]/, "", s)
		for (b in bytes)
			if (s ~ ("(^|[^A-Za-z_0-9.>])" b "[ \t]*\\[[ \t]*([2-9]|[1-9][0-9])") ||
			    s ~ ("(^|[^A-Za-z_0-9.>])" b "[ \t]*\\+[ \t]*([2-9]|[1-9][0-9])")) {
				print FILENAME ":" FNR ": a literal offset into " b " outside ondisk/: " $0
				bad = 1
				break
			}
	}
	END { exit bad }' "${outside[@]}" || bad=1
fi
exit $bad
