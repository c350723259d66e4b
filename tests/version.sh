#!/bin/sh
# One version everywhere: configure's (AC_INIT's, in PACKAGE_VERSION) is what
# gridemst and gridemst-segment print for --version and the man pages' title
# lines (tests/test_version checks the headers' macros and the library).

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"

[ -n "$PACKAGE_VERSION" ] || { echo "ERROR: PACKAGE_VERSION is not set"; exit 99; }
expect_line() { # WHAT GOT WANTED
    [ "$2" = "$3" ] || fail "$1 is '$2', configure's version gives '$3'"
}

expect_line "gridemst --version" "$("$prog" --version)" "gridemst $PACKAGE_VERSION"
expect_line "gridemst-segment --version" "$("$top_builddir/gridemst-segment" --version)" \
    "gridemst-segment (gridemst) $PACKAGE_VERSION"
for page in gridemst.1 gridemst.3 gridemst-segment.1; do
    th=$(sed -n '/^\.TH /{p;q;}' "$top_builddir/doc/$page")
    case $th in
    *"\"gridemst $PACKAGE_VERSION\""*) ;;
    *) fail "doc/$page's title line '$th' does not name gridemst $PACKAGE_VERSION" ;;
    esac
done
finish
