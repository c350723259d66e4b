#!/bin/sh
# Tests of the gridemst tool on careless input and hostile environments:
# byte-order marks and header lines, standard input, float rounding, output
# files that cannot be written, memory limits and OpenMP's wait policy
# (tests/testlib.sh says how it is run).

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"
# shellcheck source=tests/clilib.sh
. "$(dirname "$0")/clilib.sh"

# A python3 for independent reference values, where there is one.
python=
command -v python3 >/dev/null 2>&1 && python=python3

# --------------------------------------------------------------- header lines and byte-order marks

# A UTF-8 byte-order mark before the first point: 3 points, not 2.
printf '\357\273\2771 2\n3 4\n5 6\n' >"$tmp/bom.txt"
run "$tmp/bom.txt" --json
expect_ok "byte-order mark"
[ "$(json_value n "$tmp/out")" = 3 ] || fail "byte-order mark: n is $(json_value n "$tmp/out"), expected 3"

# ... and before a TSPLIB keyword, which it used to hide ("NODE_COORD_SECTION before DIMENSION").
printf '\357\273\277DIMENSION : 2\nEDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 3 4\nEOF\n' >"$tmp/bom.tsp"
run "$tmp/bom.tsp" -q -o "$tmp/bom.csv"
expect_ok "TSPLIB with a byte-order mark"
[ "$(cat "$tmp/bom.csv")" = "0,1,5" ] || fail "TSPLIB with a byte-order mark: tree $(cat "$tmp/bom.csv")"

# A mistyped number on the first line is an error naming the line and the
# field, not a header that drops the point.
printf 'l.5 2\n3 4\n5 6\n' >"$tmp/typo.txt"
expect_error "typo on line 1" "typo.txt:1: field 1 is not a number: 'l.5'" "$tmp/typo.txt"
printf '1.5x 2\n3 4\n5 6\n' >"$tmp/typo2.txt"
expect_error "typo on line 1 (digits first)" "typo2.txt:1: field 1 is not a number: '1.5x'" "$tmp/typo2.txt"
printf '1 2\n3 4x\n' >"$tmp/typo3.txt"
expect_error "typo on line 2" "typo3.txt:2: field 2 is not a number: '4x'" "$tmp/typo3.txt"

# A header is said once, quoted, on standard error.
printf '# survey\nlon, lat\n1 2\n3 4\n' >"$tmp/header.txt"
run "$tmp/header.txt" -q
if [ "$status" -ne 0 ] || [ "$(lines "$tmp/err")" -ne 1 ] ||
    [ "$(cat "$tmp/err")" != "gridemst: note: $tmp/header.txt:2: read as a header line, not a point: 'lon, lat'" ]; then
    fail "header note: status $status, stderr: $(cat "$tmp/err")"
fi

# --------------------------------------------------------------- standard input

printf '0 0\n3 4\n0 8\n' >"$tmp/three.txt"
"$prog" -q -o "$tmp/three.csv" "$tmp/three.txt" || fail "three points from a file"
"$prog" -q -o - - <"$tmp/three.txt" >"$tmp/out" 2>"$tmp/err"
status=$?
expect_ok "INPUT -"
cmp -s "$tmp/out" "$tmp/three.csv" || fail "INPUT -: another tree than from the file: $(cat "$tmp/out")"

# TSPLIB from its first keyword line; --format binary for binary.
"$prog" - --json <"$tmp/bom.tsp" >"$tmp/out" 2>"$tmp/err"
status=$?
expect_ok "INPUT - (TSPLIB)"
[ "$(json_value format "$tmp/out")" = tsplib ] || fail "INPUT - (TSPLIB): format $(json_value format "$tmp/out")"
[ "$(json_value input "$tmp/out")" = - ] || fail "INPUT - (TSPLIB): input $(json_value input "$tmp/out")"
"$prog" -q "$tmp/three.txt" --save-points "$tmp/three.bin" || fail "--save-points of three points"
"$prog" -q --format binary -o - - <"$tmp/three.bin" >"$tmp/out" 2>"$tmp/err"
status=$?
expect_ok "INPUT - --format binary"
cmp -s "$tmp/out" "$tmp/three.csv" || fail "INPUT - --format binary: another tree: $(cat "$tmp/out")"
printf '0 0\n1 x\n' | "$prog" - >"$tmp/out" 2>"$tmp/err"
[ "$(cat "$tmp/err")" = "gridemst: (standard input):2: field 2 is not a number: 'x'" ] ||
    fail "INPUT -: error message: $(cat "$tmp/err")"

# --------------------------------------------------------------- the binary format's extended header

# More than 2^31 - 1 points take a 16-byte header: the count word -1, dim,
# then an int64 count.  A header promising 3e9 points (36 GB) in a file of
# 40 bytes is truncated, and said so before anything is allocated for the
# promised points: a named file by its size (it is mapped), a pipe by
# reading in steps, here within 150 MB of address space (AddressSanitizer
# needs more).
# extended_header COUNT DIM: the 16 bytes, COUNT as 8 and DIM as 1 octal escapes.
extended_header() {
    # shellcheck disable=SC2059 # the escapes are the format's own
    printf "\377\377\377\377$2\000\000\000$1"
}
{ extended_header '\000\136\320\262\000\000\000\000' '\003'; head -c 24 /dev/zero; } >"$tmp/huge.bin"
expect_error "extended header, truncated file" "huge.bin: truncated: expected 36000000016 bytes, found 40\$" \
    "$tmp/huge.bin"
limit=:
[ "${GEMST_SANITIZERS:-no}" = yes ] || limit='ulimit -v 150000'
# shellcheck disable=SC2002
cat "$tmp/huge.bin" | (eval "$limit" && exec "$prog" --format binary -) >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" -ne 2 ] ||
    [ "$(cat "$tmp/err")" != "gridemst: (standard input): truncated: expected 36000000016 bytes, found 40" ]; then
    fail "extended header, truncated pipe: status $status: $(cat "$tmp/err")"
fi

# An extended header whose count fits the 8-byte one is malformed: each set
# has one encoding.
{ extended_header '\003\000\000\000\000\000\000\000' '\002'; head -c 24 /dev/zero; } >"$tmp/three_ext.bin"
malformed="malformed header: the extended header counts 3 points; up to 2147483647 take the 8-byte header"
expect_error "extended header of 3 points" "three_ext.bin: $malformed\$" "$tmp/three_ext.bin"
# shellcheck disable=SC2002
cat "$tmp/three_ext.bin" | "$prog" --format binary - >"$tmp/out" 2>"$tmp/err"
[ "$(cat "$tmp/err")" = "gridemst: (standard input): $malformed" ] ||
    fail "extended header of 3 points, piped: $(cat "$tmp/err")"

# --------------------------------------------------------------- float rounding

# float_counts FILE: "ROUNDED MERGED" as --precision float's rounding does
# them (gridemst.h: translated to the bounding-box minimum, scaled by a power
# of two that maps the widest side below 1, rounded to float32), computed in
# Python: points with a coordinate that changes, and points equal after
# rounding to an earlier point that differs before.
float_counts() {
    "$python" - "$1" <<'PY'
import math, struct, sys
pts = [tuple(float(v) for v in line.split()) for line in open(sys.argv[1]) if line.strip()]
dim = len(pts[0])
lo = [min(p[d] for p in pts) for d in range(dim)]
widest = max(max(p[d] for p in pts) - lo[d] for d in range(dim))
scale = 2.0 ** -math.frexp(widest)[1] if widest > 0 else 1.0
f32 = lambda t: struct.unpack("f", struct.pack("f", t))[0]
work = [tuple(f32((p[d] - lo[d]) * scale) for d in range(dim)) for p in pts]
rounded = sum(any(work[i][d] != (pts[i][d] - lo[d]) * scale for d in range(dim)) for i in range(len(pts)))
first = {}
merged = 0
for p, w in zip(pts, work):
    if w in first and first[w] != p:
        merged += 1
    first.setdefault(w, p)
print(rounded, merged)
PY
}

# Decimal fractions round, but no two points become one: no warning, and
# the JSON says what rounding did.
printf '0.1 0.2\n0.3 0.4\n0.7 0.1\n' >"$tmp/decimal.txt"
run "$tmp/decimal.txt"
expect_ok "decimal fractions in float"
run "$tmp/decimal.txt" --json
if [ -n "$python" ]; then
    # shellcheck disable=SC2046
    set -- $(float_counts "$tmp/decimal.txt")
    grep -q "\"float_rounding\": {\"rounded_points\": $1, \"merged_points\": $2}" "$tmp/out" ||
        fail "decimal fractions: expected rounded $1, merged $2: $(grep -o '"float_rounding": [^}]*}' "$tmp/out")"
fi
run "$tmp/decimal.txt" --json --precision double
grep -q '"float_rounding": null' "$tmp/out" || fail "double precision: float_rounding is not null"

# 1e8 + 1 and 1e8 + 2 need 27 bits: in float32 they fall onto 1e8, and the
# tree joins them by zero-length edges.  That is warned about.
printf '0 0\n100000000 0\n100000001 0\n100000002 0\n' >"$tmp/merged.txt"
run "$tmp/merged.txt" -q
if [ "$status" -ne 0 ] || [ "$(lines "$tmp/err")" -ne 1 ] ||
    ! grep -q "^gridemst: warning: float precision merged [0-9]* points\? with other points" "$tmp/err"; then
    fail "merged points: expected one warning, got status $status: $(cat "$tmp/err")"
fi
run "$tmp/merged.txt" --json
if [ -n "$python" ]; then
    # shellcheck disable=SC2046
    set -- $(float_counts "$tmp/merged.txt")
    [ "$2" -gt 0 ] || fail "merged points: the reference merges none"
    grep -q "\"float_rounding\": {\"rounded_points\": $1, \"merged_points\": $2}" "$tmp/out" ||
        fail "merged points: expected rounded $1, merged $2: $(grep -o '"float_rounding": [^}]*}' "$tmp/out")"
    grep -q "merged $2 point" "$tmp/err" || fail "merged points: the warning does not count $2: $(cat "$tmp/err")"
fi
run "$tmp/merged.txt" --precision double
expect_ok "merged points in double"

# --------------------------------------------------------------- output files

# Output files are claimed before the input is read: an unwritable one fails
# first, at once.
expect_error "-o /proc/x" "/proc/x: cannot write: No such file or directory" -o /proc/x "$tmp/missing.txt"
expect_error "-o into a missing directory" "$tmp/none/x.csv: cannot write" --generate uniform --n 1e5 \
    -o "$tmp/none/x.csv"
expect_error "-o a directory" "$tmp: cannot write: Is a directory" --generate uniform --n 10 -o "$tmp"
expect_error "--labels unwritable, -o fine" "$tmp/none/l.txt: cannot write" --cut 1 -o "$tmp/tree1.csv" \
    --labels "$tmp/none/l.txt" "$tmp/three.txt"
[ -e "$tmp/tree1.csv" ] && fail "an output claimed before a failing one was left behind"

# A failed run leaves no file behind that it created, and an existing one as
# it was.
printf 'keep\n' >"$tmp/old.csv"
expect_error "bad input with outputs" "typo.txt:1" -o "$tmp/new.csv" --linkage "$tmp/new.linkage" \
    --save-points "$tmp/new.bin" --cut 1 --labels "$tmp/old.csv" "$tmp/typo.txt"
for f in new.csv new.linkage new.bin; do
    [ -e "$tmp/$f" ] && fail "bad input: $f was left behind"
done
[ "$(cat "$tmp/old.csv")" = keep ] || fail "bad input: an existing output was changed"
printf '9e307 0\n-9e307 0\n' >"$tmp/span.txt"
expect_error "failed solve with -o" "span more than the largest double" -o "$tmp/new.csv" "$tmp/span.txt"
[ -e "$tmp/new.csv" ] && fail "failed solve: new.csv was left behind"
# devices are written as before
run "$tmp/three.txt" -q -o /dev/null
expect_ok "-o /dev/null"

# --------------------------------------------------------------- memory

expect_usage "--n 5e9" "--n 5000000000: more than 2\\^32 - 2 points" --generate uniform --n 5e9
expect_usage "--n 9e9 --devices 0,1" "--n 9000000000: more than 2 \\(2\\^32 - 2\\) points, the most a solve over 2 devices" \
    --generate uniform --n 9e9 --devices 0,1
expect_usage "--n 3e11 --devices all" "--n 3e11: more than 64 \\(2\\^32 - 2\\) points" --generate uniform --n 3e11 --devices all
expect_usage "--n 4294967295" "more than 2\\^32 - 2 points" --generate uniform --n 4294967295

# An address-space limit (ulimit -v) is memory the process may not use: a
# generated set that cannot fit is refused before it is made, a file's
# points by the solver before it allocates.  AddressSanitizer needs more
# address space than any such limit leaves.
if [ "${GEMST_SANITIZERS:-no}" != yes ]; then
    (ulimit -v 200000 && exec "$prog" --generate uniform --n 1e7 --backend cpu) >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -ne 2 ] || ! grep -q "^gridemst: --generate: 10000000 points need about [0-9]* bytes of host memory" \
        "$tmp/err"; then
        fail "generate beyond ulimit -v: status $status: $(cat "$tmp/err")"
    fi
    "$prog" --generate uniform --n 1e6 -q --save-points "$tmp/million.bin" || fail "saving a million points"
    (ulimit -v 150000 && exec "$prog" "$tmp/million.bin" --backend cpu) >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -ne 2 ] || ! grep -q "^gridemst: 1000000 points need about [0-9]* bytes of host memory" "$tmp/err"; then
        fail "solve beyond ulimit -v: status $status: $(cat "$tmp/err")"
    fi
fi

# --------------------------------------------------------------- OpenMP wait policy

if can_see_policy; then
    [ "$(policy_seen "" "$prog" -q)" = passive ] || fail "OMP_WAIT_POLICY unset: the tool did not wait passively"
    [ "$(policy_seen active "$prog" -q)" = active ] || fail "OMP_WAIT_POLICY=active: the user's policy was not kept"
fi

finish
