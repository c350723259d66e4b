# Shared start of the gridemst-segment tests (tests/segment.sh,
# tests/segment_photo.sh, tests/segment_jpeg.sh), sourced after
# tests/testlib.sh: sets seg (the command), png (yes when it reads and
# writes PNG) and jpeg (yes when it reads JPEG), skips when it is not built,
# and defines the helpers below.
# shellcheck shell=sh disable=SC2034

seg=$(cd "$top_builddir" && pwd)/gridemst-segment
if [ ! -x "$seg" ]; then
    echo "SKIP: $seg is not built"
    exit 77
fi
LC_ALL=C
export LC_ALL

# run ARGS...: runs gridemst-segment; stdout in $tmp/out, stderr in $tmp/err, status in $status.
run() {
    "$seg" "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
}

# expect_ok NAME: the last run succeeded with nothing on stderr.
expect_ok() {
    if [ "$status" -ne 0 ] || [ -s "$tmp/err" ]; then
        fail "$1: exit status $status: $(head -c 300 "$tmp/err")"
        return 1
    fi
}

# expect_error NAME PATTERN ARGS...: status 2, nothing on stdout, and one
# line "gridemst-segment: ..." matching PATTERN (grep -E) on stderr, plus the
# hint "Try 'gridemst-segment --help'." after a usage error.
expect_error() {
    name=$1 pattern=$2
    shift 2
    run "$@"
    if [ "$status" -ne 2 ]; then
        fail "$name: exit status $status, expected 2: $(head -c 300 "$tmp/err")"
    elif ! head -n 1 "$tmp/err" | grep -Eq "^gridemst-segment: .*($pattern)"; then
        fail "$name: expected an error matching '$pattern', got: $(cat "$tmp/err")"
    elif [ "$(sed -n '2,$p' "$tmp/err")" != "" ] && [ "$(sed -n '2,$p' "$tmp/err")" != "Try 'gridemst-segment --help'." ]; then
        fail "$name: more than one line on stderr: $(cat "$tmp/err")"
    elif [ -s "$tmp/out" ]; then
        fail "$name: unexpected standard output"
    fi
}

# summary_segments: the segment count of the last run's summary.
summary_segments() {
    sed -n 's/^segments: \([0-9]*\) .*/\1/p' "$tmp/out"
}

# json_number KEY FILE: the number KEY of the JSON object in FILE.
json_number() {
    sed -n "s/.*\"$1\": \([0-9.eE+-]*\).*/\1/p" "$2"
}

# pgm16_values FILE: the samples of a binary 16-bit PGM written by the tool
# (three header lines), one per line.
pgm16_values() {
    tail -c +$(($(head -n 3 "$1" | wc -c) + 1)) "$1" | od -An -v -tu1 |
        awk '{ for (i = 1; i <= NF; i++) if (n++ % 2 == 0) hi = $i; else print hi * 256 + $i }'
}

# ppm_colours FILE: the pixels of a binary PPM written by the tool, "r,g,b" per line.
ppm_colours() {
    tail -c +$(($(head -n 3 "$1" | wc -c) + 1)) "$1" | od -An -v -tu1 |
        awk '{ for (i = 1; i <= NF; i++) { c[n++ % 3] = $i; if (n % 3 == 0) print c[0] "," c[1] "," c[2] } }'
}

# same_partition A B: files of one label per line, the same length, that
# split the lines the same way (equal up to renaming the labels).
same_partition() {
    [ "$(wc -l <"$1")" -eq "$(wc -l <"$2")" ] && [ -s "$1" ] &&
        paste -d ' ' "$1" "$2" | awk '{
            if (($1) in ab && ab[$1] != $2) bad = 1
            if (($2) in ba && ba[$2] != $1) bad = 1
            ab[$1] = $2; ba[$2] = $1
        } END { exit bad }'
}

# three_colours: a 90 x 60 plain PPM (maxval 255) of three regions, a
# background, a rectangle and a disc, in three colours of one luma, with
# Park-Miller noise of -3 .. 3 on each sample; each pixel's region 0 .. 2
# in $tmp/truth.
three_colours() {
    awk -v truth="$tmp/truth" 'BEGIN {
        state = 777; W = 90; H = 60
        split("100 120 140", col0); split("6 184 57", col1); split("204 88 32", col2)
        print "P3"; print W, H; print 255
        for (y = 0; y < H; y++) for (x = 0; x < W; x++) {
            r = (x >= 8 && x < 40 && y >= 8 && y < 50) ? 1 : ((x - 65) ^ 2 + (y - 30) ^ 2 <= 225) ? 2 : 0
            print r > truth
            for (k = 1; k <= 3; k++) {
                state = (state * 16807) % 2147483647
                v = (r == 0 ? col0[k] : r == 1 ? col1[k] : col2[k]) + state % 7 - 3
                printf "%d%s", (v < 0 ? 0 : v > 255 ? 255 : v), (k < 3 ? " " : "\n")
            }
        } }'
}

png=no
"$seg" --help | grep -q "^PNG support: yes" && png=yes
jpeg=no
"$seg" --help | grep -q "^JPEG support: yes" && jpeg=yes
