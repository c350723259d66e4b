# Shared start of the shell tests (tests/cli.sh, tests/valgrind.sh), sourced
# by them.  Run by automake with top_builddir and top_srcdir set; a test
# exits 0 pass, 1 fail, 77 skip, 99 hard error.
#
# Sets prog (the gridemst command), tsplib (the TSPLIB directory) and tmp (a
# scratch directory removed at exit), skips when gridemst is not built, and
# defines fail and finish.
# shellcheck shell=sh disable=SC2034

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
prog=$(cd "$top_builddir" && pwd)/gridemst
tsplib=$top_srcdir/tsplib

if [ ! -x "$prog" ]; then
    echo "SKIP: $prog is not built"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gridemst-$(basename "$0" .sh).XXXXXX") || exit 99
trap 'rm -rf "$tmp"' 0
trap 'exit 1' 1 2 15

failures=0
# fail MESSAGE: reports a failed check; the test goes on.
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# finish: ends the test, failed when any check failed.
finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures check(s) failed"
        exit 1
    fi
    echo "all checks passed"
    exit 0
}
