#!/bin/sh
# doc/gridemst.1 documents the options gridemst --help prints, no more and
# no fewer; doc/gridemst.3 the functions src/gridemst.h declares, no more
# and no fewer; and both render without warnings where groff or man is
# installed (tests/testlib.sh says how it is run).

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"

page=$top_builddir/doc/gridemst.1
library=$top_builddir/doc/gridemst.3
header=$top_srcdir/src/gridemst.h

# agree WHAT SOURCE VERB DOC: the sorted names in $tmp/source and
# $tmp/doc are the same, each name missing from one side a failure.
agree() {
    if [ ! -s "$tmp/source" ] || [ ! -s "$tmp/doc" ]; then
        echo "ERROR: no $1 found in $2 or in $4"
        exit 99
    fi
    comm -23 "$tmp/source" "$tmp/doc" >"$tmp/undocumented"
    comm -13 "$tmp/source" "$tmp/doc" >"$tmp/unknown"
    while read -r name; do
        fail "$2 ${3}s $name, which $4 does not document"
    done <"$tmp/undocumented"
    while read -r name; do
        fail "$4 documents $name, which $2 does not $3"
    done <"$tmp/unknown"
}

# Options as "-o, --output" or "--json", sorted.  In --help an option's
# line starts with it, indented by two blanks (a description goes on at 26);
# in the page it is the tag line after .TP in the OPTIONS section, with
# roff's \- for each dash.
"$prog" --help >"$tmp/help" || fail "gridemst --help: exit status $?"
awk 'match($0, /^  (-[A-Za-z], |    )--[a-z0-9-]+/) { s = substr($0, 3, RLENGTH - 2); sub(/^ +/, "", s); print s }' \
    "$tmp/help" | sort >"$tmp/source"
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$page" | sed 's/\\-/-/g' |
    awk 'tag && match($0, /(-[A-Za-z], )?--[a-z0-9-]+/) { print substr($0, RSTART, RLENGTH) } { tag = $0 == ".TP" }' |
    sort >"$tmp/doc"
agree options "gridemst --help" print "$page"

# The library's functions: in the header each public declaration starts
# with GRIDEMST_API, or static inline, and its return type; in the page
# each is named in the SYNOPSIS, on a .B or .BI line, before its opening
# parenthesis.
sed -n 's/^\(GRIDEMST_API\|static inline\) [^(]*[ *]\(gridemst_[a-z0-9_]*\)(.*/\2/p' "$header" | sort >"$tmp/source"
sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$library" |
    sed -n 's/^\.BI\{0,1\} "[^(]*[ *]\(gridemst_[a-z0-9_]*\)(.*/\1/p' | sort >"$tmp/doc"
agree functions "$header" declare "$library"

# renders PAGE: the page renders without warnings (-ww, man: --warnings=w:
# every warning; -z: format, print nothing).
renders() {
    if command -v groff >/dev/null 2>&1; then
        groff -man -ww -z "$1" >"$tmp/warnings" 2>&1
    elif command -v man >/dev/null 2>&1; then
        man --warnings=w -l "$1" >/dev/null 2>"$tmp/warnings"
    else
        echo "note: neither groff nor man is installed: $1 was not rendered"
        : >"$tmp/warnings"
    fi
    if [ -s "$tmp/warnings" ]; then
        fail "$1 renders with warnings:"
        cat "$tmp/warnings"
    fi
}
renders "$page"
renders "$library"

finish
