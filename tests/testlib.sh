# Shared start of the shell tests (tests/cli.sh, tests/valgrind.sh), sourced
# by them.  Run by automake with top_builddir and top_srcdir set; a test
# exits 0 pass, 1 fail, 77 skip, 99 hard error.
#
# Sets prog (the gridemst command), tsplib (the TSPLIB directory) and tmp (a
# scratch directory removed at exit), skips when gridemst is not built, and
# defines fail, finish and the OpenMP wait policy probe policy_seen.
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

# can_see_policy: policy_seen works here (/proc and mkfifo).
can_see_policy() {
    [ -r /proc/self/environ ] && command -v mkfifo >/dev/null 2>&1
}

# policy_seen VALUE COMMAND...: runs COMMAND with OMP_WAIT_POLICY set to
# VALUE (unset when VALUE is empty) and a FIFO as its last argument, and
# prints OMP_WAIT_POLICY as the environment the running program was started
# with has it (/proc/PID/environ), once it has opened its input; the input
# is empty.
policy_seen() {
    value=$1
    shift
    rm -f "$tmp/fifo"
    mkfifo "$tmp/fifo" || return
    if [ -z "$value" ]; then
        env -u OMP_WAIT_POLICY "$@" "$tmp/fifo" >/dev/null 2>&1 &
    else
        env OMP_WAIT_POLICY="$value" "$@" "$tmp/fifo" >/dev/null 2>&1 &
    fi
    pid=$!
    seen=
    tries=0
    while [ -z "$seen" ] && [ $tries -lt 100 ]; do
        seen=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | sed -n 's/^OMP_WAIT_POLICY=//p')
        [ -n "$seen" ] || sleep 0.1
        tries=$((tries + 1))
    done
    # the empty input, written once the program opens it; the writer is
    # left waiting only when the program never opened its input
    : >"$tmp/fifo" &
    writer=$!
    wait $pid
    kill $writer 2>/dev/null
    echo "$seen"
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
