#!/bin/sh
# gridemst under valgrind memcheck (CPU backend): no memory error and no
# definite leak on a few inputs, good and bad (tests/testlib.sh says how it
# is run).  Skipped without valgrind and in a sanitizer build.

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"

if ! command -v valgrind >/dev/null 2>&1; then
    echo "SKIP: valgrind is not installed"
    exit 77
fi
if [ "${GEMST_SANITIZERS:-no}" = yes ]; then
    echo "SKIP: valgrind does not run sanitizer builds"
    exit 77
fi

# OpenMP's runtime keeps its thread pool alive at exit: one thread keeps the
# reports short ("possibly lost" blocks of the runtime do not fail the test).
OMP_NUM_THREADS=1
export OMP_NUM_THREADS
# Without OMP_WAIT_POLICY the tool would execute itself again to set it,
# and that program would run outside valgrind.
OMP_WAIT_POLICY=passive
export OMP_WAIT_POLICY

# With shared libraries gridemst is a libtool wrapper script: libtool runs
# valgrind on the real program instead.
libtool=
if [ -f "$top_builddir/libtool" ]; then
    libtool="$top_builddir/libtool --mode=execute"
fi

# memcheck NAME STATUS PROGRAM ARGS...: PROGRAM ARGS... under valgrind exits
# with STATUS, with no memory error and no definite leak (valgrind's own
# status 9).
memcheck() {
    name=$1 want=$2
    shift 2
    # shellcheck disable=SC2086
    $libtool valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
        --track-origins=yes --num-callers=30 --log-file="$tmp/valgrind.log" \
        "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -eq 9 ]; then
        fail "$name: valgrind reports errors:"
        cat "$tmp/valgrind.log"
    elif [ "$status" -ne "$want" ]; then
        fail "$name: exit status $status, expected $want: $(head -c 300 "$tmp/err")"
        cat "$tmp/valgrind.log"
    fi
}

# check NAME STATUS ARGS...: memcheck of gridemst --backend cpu ARGS...
check() {
    name=$1 want=$2
    shift 2
    memcheck "$name" "$want" "$prog" --backend cpu "$@"
}

if [ -f "$tsplib/berlin52.tsp" ]; then
    check "TSPLIB berlin52" 0 "$tsplib/berlin52.tsp" --verify
else
    echo "note: $tsplib/berlin52.tsp missing, TSPLIB check skipped"
fi

check "generated 3D, --verify --json" 0 --generate clustered --n 500 --dim 3 --verify --json

# Each FindMin1 strategy, with the other options varied along the way.
check "--prune none" 0 --generate uniform --n 2000 --prune none --findmin2 list -o "$tmp/tree.csv"
check "--prune dynamic" 0 --generate normal --n 2000 --prune dynamic --precision double -o "$tmp/tree.csv"
check "--prune static" 0 --generate lattice --n 2000 --prune static --save-points "$tmp/points.bin" \
    -o "$tmp/tree.csv"

printf '0 0\n1 2\n3 x4\n' >"$tmp/bad.txt"
check "non-numeric token" 2 "$tmp/bad.txt"
grep -q 'bad.txt:3' "$tmp/err" || fail "non-numeric token: no error naming line 3: $(cat "$tmp/err")"

: >"$tmp/empty.txt"
check "empty file" 0 "$tmp/empty.txt" --json

# Solves stopped by their progress callback at each of their reports free
# all they made (tests/test_cancel on 2000 points).
if [ -x "$top_builddir/tests/test_cancel" ]; then
    memcheck "cancelled solves" 0 "$top_builddir/tests/test_cancel" 2000
else
    echo "note: tests/test_cancel is not built, cancelled solves not checked"
fi

finish
