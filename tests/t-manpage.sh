#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The man page against the program: every command's option table (the
# one that parses its options, prints its help and feeds the completion:
# xfsdefrag complete --options) and the page's SYNOPSIS and the option
# list of the command's section hold the same options, each of a
# command's fixed values (--order walk|name|inode) is named in its
# section; the page is clean for mandoc -Tlint, and renders without the
# mistakes lint does not see (a request run into the text before it,
# "followed..TP"; words run together by an alternating-font macro whose
# argument holds spaces).  And the README: the commands of its first
# screen are the ones CI runs (.ci/run), and it stays a user's page.
# Usage: t-manpage.sh XFSDEFRAG
# asan-pass: check-long (the page and the tables, not memory: one pass)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bin=$(t_bin "${1:-}")
top=$(cd "$here/.." && pwd)
page=$top/man/xfsdefrag.8
t_tmpdir

# the tables: one file per command, as complete --options prints them
"$bin" complete --commands > "$T_TMP/cmds" || t_fail "complete --commands failed"
[ -s "$T_TMP/cmds" ] || t_fail "no commands listed"
while read -r c; do
	"$bin" complete --options "$c" > "$T_TMP/opts.$c" ||
		t_fail "complete --options $c failed"
done < "$T_TMP/cmds"

python3 - "$page" "$T_TMP" > "$T_TMP/report" <<'PY'
import re, sys
page, tmp = sys.argv[1], sys.argv[2]
src = open(page, encoding="utf-8").read().split("\n")
cmds = open(tmp + "/cmds").read().split()

def spellings(line):
    """Option spellings written on a man source line: \-x, \-\-name."""
    return set(s.replace("\\-", "-") for s in
               re.findall(r"(?<![\w\\])(\\-\\-[a-z0-9][a-z0-9\\-]*|\\-[a-zA-Z0-9])(?![a-z0-9])",
                          line))

def section(name):
    out, on = [], False
    for l in src:
        if l.startswith(".SH "):
            on = l[4:].strip('"') == name
            continue
        if on:
            out.append(l)
    return out

# SYNOPSIS: the block of each ".B xfsdefrag CMD" (bmap has two forms)
syn, cur = {}, None
for l in section("SYNOPSIS"):
    m = re.match(r"\.B xfsdefrag (\S+)$", l)
    if m:
        cur = m.group(1)
        syn.setdefault(cur, set())
        continue
    if cur:
        syn[cur] |= spellings(l)

# COMMANDS: a command's part starts at a top-level .TP whose tag line
# names it (.BI "CMD " ... or .BI "CMD "); within it, the tag line after
# every .TP is where options are listed
body, cur, depth, prev_tp = {}, None, 0, False
for l in section("COMMANDS"):
    if l.startswith(".RS"):
        depth += 1
    elif l.startswith(".RE"):
        depth -= 1
    m = re.match(r'\.BI "(\S+) ', l)
    if prev_tp and depth == 0 and m and m.group(1) in cmds:
        cur = m.group(1)
        body[cur] = {"tags": set(), "text": []}
    elif cur and prev_tp and depth > 0:
        body[cur]["tags"] |= spellings(l)
    if cur:
        body[cur]["text"].append(l)
    prev_tp = l.startswith(".TP")

checked = bad = 0
for c in cmds:
    rows = [l.split(" ", 6) for l in open("%s/opts.%s" % (tmp, c)).read().split("\n") if l]
    table = set()
    synform = set()
    for r in rows:
        names = r[0].split(",")
        table |= set(names)
        synform.add(names[0])
    s, b = syn.get(c), body.get(c)
    if s is None:
        print("FAIL %s: no SYNOPSIS entry" % c); bad += 1; continue
    if b is None:
        print("FAIL %s: no section under COMMANDS" % c); bad += 1; continue
    for o in sorted(synform - s):
        print("FAIL %s: %s is in the table, not in the SYNOPSIS" % (c, o)); bad += 1
    for o in sorted(s - table):
        print("FAIL %s: %s is in the SYNOPSIS, not in the table" % (c, o)); bad += 1
    for o in sorted(table - b["tags"]):
        print("FAIL %s: %s is in the table, not in the section's option list" % (c, o)); bad += 1
    for o in sorted(b["tags"] - table):
        print("FAIL %s: %s is in the section's option list, not in the table" % (c, o)); bad += 1
    text = "\n".join(b["text"])
    for r in rows:
        if r[5] != "-":
            for v in r[5].split(","):
                if not re.search(r"\b%s\b" % re.escape(v), text):
                    print("FAIL %s: %s's value %s is not named in its section" % (c, r[0], v)); bad += 1
    checked += len(rows)
    print("ok %s: %d options" % (c, len(rows)))
print("checked %d options of %d commands" % (checked, len(cmds)))
PY
while read -r l; do
	case $l in
	ok*) t_ok "${l#ok }" ;;
	FAIL*) t_fail "${l#FAIL }" ;;
	checked*) echo "$l" ;;
	esac
done < "$T_TMP/report"
grep -q '^checked [1-9]' "$T_TMP/report" || t_fail "no option checked"

# the help of every command lists what its table has
while read -r c; do
	n=$(wc -l < "$T_TMP/opts.$c")
	h=$("$bin" "$c" --help | sed -n '/^options:/,/^$/p' | grep -c '^  -')
	[ "$h" -eq $((n + 1)) ] && t_ok "$c --help: $n options and --help" ||
		t_fail "$c --help lists $h options, its table $n (+ --help)"
done < "$T_TMP/cmds"

# lint, and what lint does not see in the rendered page.  Lint fails on
# every level, STYLE included (-W all): the STYLE messages mandoc gives a
# man(7) page (whitespace at the end of a line, a text line longer than
# 80 bytes, an unterminated quoted argument, fill mode set twice, a
# typo in a section name...) each name a line to fix, and the page has
# none; those that depend on the machine (a referenced manual not
# installed) are mdoc(7)'s only, never this page's.
if command -v mandoc > /dev/null; then
	if mandoc -Tlint -W all "$page" > "$T_TMP/lint" 2>&1 && [ ! -s "$T_TMP/lint" ]; then
		t_ok "mandoc -Tlint -W all: no warning"
	else
		t_fail "mandoc -Tlint: $(head -n 3 "$T_TMP/lint")"
	fi
	MANWIDTH=80 mandoc -Tascii "$page" | col -b > "$T_TMP/page.txt"
	# a request name as a word of the text: run into the line before
	# ("followed..TP"), or made text by an escape or a leading space
	if grep -nE '(^|[[:alnum:])[:space:]])\.\.?(TP|PP|IP|LP|RS|RE|SH|SS|B|I|BR|BI|IB|IR|RB|RI|br|nf|fi|sp)\b' \
		"$T_TMP/page.txt" > "$T_TMP/runin"; then
		t_fail "a request run into the text: $(head -n 2 "$T_TMP/runin" | tr -s ' ')"
	else
		t_ok "no request run into the text"
	fi
	# no English word here is 25 letters long: such a token is words
	# run together
	if grep -noE "[[:alpha:]']{25,}" "$T_TMP/page.txt" > "$T_TMP/long"; then
		t_fail "words run together: $(head -n 3 "$T_TMP/long" | tr '\n' ' ')"
	else
		t_ok "no words run together"
	fi
else
	t_fail "mandoc is not installed (.ci/run-deps installs it)"
fi

# the README's two commands for a fresh machine: the install, the demo
# (a Makefile target) and the test command .ci/run runs
readme=$top/README.md
sed -n '/^```sh$/,/^```$/p' "$readme" | sed 's/ *#.*//' | grep -v '^```' \
	> "$T_TMP/readme.cmds"
if grep -qx '\.ci/run-deps && make demo' "$T_TMP/readme.cmds" &&
   grep -q '^demo:' "$top/Makefile"; then
	t_ok "README: .ci/run-deps && make demo, a target of the Makefile"
else
	t_fail "README: no '.ci/run-deps && make demo' (or no demo target): $(tr '\n' ';' < "$T_TMP/readme.cmds")"
fi
if grep -qx '\.ci/run-deps && make check' "$T_TMP/readme.cmds" &&
   grep -qx '\.ci/run-deps' "$top/.ci/run" &&
   grep -qE '^[^#]*(^| )make check( |$)' "$top/.ci/run"; then
	t_ok "README: .ci/run-deps && make check, as .ci/run runs them"
else
	t_fail "README's test command is not the one .ci/run runs"
fi
n=$(wc -l < "$readme")
[ "$n" -le 200 ] && t_ok "README: a user's page, $n lines" ||
	t_fail "README: $n lines (the details go to the man page, bench/RESULTS.md, core/README.md)"
t_summary t-manpage
