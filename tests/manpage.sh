#!/bin/sh
# doc/gridemst.1 documents the options gridemst --help prints, no more and
# no fewer, and renders without warnings where groff or man is installed
# (tests/testlib.sh says how it is run).

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"

page=$top_builddir/doc/gridemst.1

# Options as "-o, --output" or "--json", sorted.  In --help an option's
# line starts with it, indented by two blanks (a description goes on at 26);
# in the page it is the tag line after .TP in the OPTIONS section, with
# roff's \- for each dash.
"$prog" --help >"$tmp/help" || fail "gridemst --help: exit status $?"
awk 'match($0, /^  (-[A-Za-z], |    )--[a-z0-9-]+/) { s = substr($0, 3, RLENGTH - 2); sub(/^ +/, "", s); print s }' \
    "$tmp/help" | sort >"$tmp/help_options"
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$page" | sed 's/\\-/-/g' |
    awk 'tag && match($0, /(-[A-Za-z], )?--[a-z0-9-]+/) { print substr($0, RSTART, RLENGTH) } { tag = $0 == ".TP" }' |
    sort >"$tmp/page_options"
if [ ! -s "$tmp/help_options" ] || [ ! -s "$tmp/page_options" ]; then
    echo "ERROR: no options found in gridemst --help or in $page"
    exit 99
fi
comm -23 "$tmp/help_options" "$tmp/page_options" >"$tmp/undocumented"
comm -13 "$tmp/help_options" "$tmp/page_options" >"$tmp/unknown"
while read -r option; do
    fail "gridemst --help prints $option, which $page does not document"
done <"$tmp/undocumented"
while read -r option; do
    fail "$page documents $option, which gridemst --help does not print"
done <"$tmp/unknown"

# -ww (man: --warnings=w): every warning; -z: format, print nothing.
if command -v groff >/dev/null 2>&1; then
    groff -man -ww -z "$page" >"$tmp/warnings" 2>&1
elif command -v man >/dev/null 2>&1; then
    man --warnings=w -l "$page" >/dev/null 2>"$tmp/warnings"
else
    echo "note: neither groff nor man is installed: the page was not rendered"
    : >"$tmp/warnings"
fi
if [ -s "$tmp/warnings" ]; then
    fail "$page renders with warnings:"
    cat "$tmp/warnings"
fi

finish
