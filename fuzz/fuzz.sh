#!/bin/sh
# `make fuzz`: builds the libFuzzer harnesses of the point-set readers with
# clang and runs each for FUZZ_SECONDS on a fresh copy of its seed corpus.
# Everything goes to fuzz/ in the build directory: the harnesses, and for
# each harness run/NAME/ with the grown corpus, the log and any crash input.
# Exit 0 when no harness found anything, 1 otherwise.
#
# Environment (Makefile.am sets it): top_srcdir, top_builddir, CLANG,
# FUZZ_SECONDS, FUZZ_FLAGS (more libFuzzer options; later ones win, so
# FUZZ_FLAGS=-timeout=5 relaxes the hang limit).

top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
CLANG=${CLANG:-clang}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
harnesses="tsplib text binary"

# The readers and what they call, compiled into every harness.
sources="src/util.c src/tools/pointset.c src/tools/lines.c src/tools/tsplib.c src/tools/tsplib_metric.c src/tools/text.c
src/tools/binary.c"
# -fno-sanitize-recover: UBSan findings abort (libFuzzer saves the input)
# instead of printing and going on.
cflags="-std=c11 -g -O1 -Wall -Wextra -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
-D_POSIX_C_SOURCE=200809L -I$top_srcdir/src -I$top_builddir -I$top_builddir/src"

out=$top_builddir/fuzz

build() {
    srcs=
    for s in $sources; do
        srcs="$srcs $top_srcdir/$s"
    done
    echo "  CLANG    fuzz/fuzz_$1"
    # shellcheck disable=SC2086 # word splitting of the flag and file lists is meant
    "$CLANG" $cflags -o "$out/fuzz_$1" "$top_srcdir/fuzz/fuzz_$1.c" $srcs -lm
}

# run NAME: fuzzes one harness; the committed corpus is only read.
run() {
    dir=$out/run/$1
    rm -rf "$dir" && mkdir -p "$dir/corpus" || return 1
    cp "$top_srcdir/fuzz/corpus/$1/"* "$dir/corpus/" && chmod -R u+w "$dir" || return 1
    echo "  FUZZ     fuzz_$1 for $FUZZ_SECONDS s (log: fuzz/run/$1/log)"
    # -timeout=1: an input read for more than a second is a hang.
    # shellcheck disable=SC2086
    if ! "$out/fuzz_$1" -max_total_time="$FUZZ_SECONDS" -timeout=1 -print_final_stats=1 \
        -artifact_prefix="$dir/" $FUZZ_FLAGS "$dir/corpus" >"$dir/log" 2>&1; then
        tail -n 40 "$dir/log" >&2
        echo "make fuzz: fuzz_$1 failed; the input is saved in fuzz/run/$1/ (crash-*, leak-*, oom-*, timeout-*)" >&2
        return 1
    fi
    # the last status line: executions, coverage (cov), features (ft), corpus
    grep '^#[0-9]*[[:space:]]*DONE' "$dir/log" | tail -n 1
    grep '^stat::number_of_executed_units' "$dir/log"
}

if ! command -v "$CLANG" >/dev/null 2>&1; then
    echo "make fuzz: '$CLANG' not found; the fuzzers need clang with libFuzzer" \
        "(Debian: apt-get install clang), or name one with make fuzz CLANG=..." >&2
    exit 1
fi
mkdir -p "$out" || exit 1
for h in $harnesses; do
    build "$h" || exit 1
done
failed=
for h in $harnesses; do
    run "$h" || failed="$failed $h"
done
if [ -n "$failed" ]; then
    echo "make fuzz: FAILED:$failed" >&2
    exit 1
fi
echo "make fuzz: no crash, leak or hang in $FUZZ_SECONDS s per harness"
