#!/bin/sh
# Tests of gridemst-segment (tests/testlib.sh says how it is run):
#  * a synthetic image of known regions with noise, in every netpbm form,
#    whose regions must come back exactly, small specks merged into the
#    region a brute-force nearest-pixel search names;
#  * the same cut by the gridemst tool on the same points (its own
#    clustering code) as an independent reference;
#  * brightness and colour distances from the documented formulas;
#  * colour features: regions of one luma and different colours, which
#    luma cannot tell apart and rgb and lab must;
#  * the default smallest segment, a thousandth of the image;
#  * bad input and bad usage: one line "gridemst-segment: ..." and status 2.
# tests/segment_photo.sh segments a real photograph; tests/segment_jpeg.sh
# reads JPEG.

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"
# shellcheck source=tests/segmentlib.sh
. "$(dirname "$0")/segmentlib.sh"

# ---------------------------------------------------------------- synthetic image
# synth MODE SPECKS OUT: a 120 x 80 plain PNM (MODE grey: P2, colour: P3)
# of four regions: background (level 60), a rectangle (120) holding a disc
# (170), and a disc (0), with noise of -3 .. 3 per sample (a fixed
# Park-Miller sequence); in colour, level L is (L + 20, L, L - 20).  With
# SPECKS = 1, three 2 x 2 specks of levels 255, 0 and 200 lie in the small
# disc, the rectangle and the background.  Writes $tmp/truth (each pixel's
# region 0 .. 3, specks ignored) and $tmp/expect (the regions, each speck
# given the region of the pixel nearest to it in (x, y, luma): the region
# across its lightest tree edge).
synth() {
    awk -v mode="$1" -v specks="$2" -v truth="$tmp/truth" -v expect="$tmp/expect" '
    function noise() { state = (state * 16807) % 2147483647; return state % 7 - 3 }
    function clamp(v) { return v < 0 ? 0 : v > 255 ? 255 : v }
    BEGIN {
        W = 120; H = 80; state = 12345
        level[0] = 60; level[1] = 120; level[2] = 170; level[3] = 0
        ns = specks ? 3 : 0
        sx[1] = 34; sy[1] = 29; sl[1] = 255
        sx[2] = 56; sy[2] = 40; sl[2] = 0
        sx[3] = 110; sy[3] = 70; sl[3] = 200
        print (mode == "grey" ? "P2" : "P3"); print W, H; print 255
        for (y = 0; y < H; y++) {
            line = ""
            for (x = 0; x < W; x++) {
                r = 0
                if (x >= 10 && x < 60 && y >= 10 && y < 50) r = 1
                if ((x - 35) ^ 2 + (y - 30) ^ 2 <= 144) r = 2
                if ((x - 90) ^ 2 + (y - 40) ^ 2 <= 324) r = 3
                L = level[r]; id = r
                for (s = 1; s <= ns; s++)
                    if (x >= sx[s] && x <= sx[s] + 1 && y >= sy[s] && y <= sy[s] + 1) { L = sl[s]; id = 3 + s }
                i = y * W + x
                region[i] = r; class[i] = id
                if (mode == "grey") {
                    v = clamp(L + noise()); Y[i] = v; line = line " " v
                } else {
                    R = clamp(L + 20 + noise()); G = clamp(L + noise()); B = clamp(L - 20 + noise())
                    Y[i] = (299 * R + 587 * G + 114 * B) / 1000; line = line " " R " " G " " B
                }
            }
            print substr(line, 2)
        }
        # each speck: the nearest pixel outside it, by brute force
        for (s = 1; s <= ns; s++) {
            best = second = -1
            for (i = 0; i < W * H; i++) {
                if (class[i] != 3 + s) continue
                for (j = 0; j < W * H; j++) {
                    if (class[j] == 3 + s) continue
                    d = (i % W - j % W) ^ 2 + (int(i / W) - int(j / W)) ^ 2 + (Y[i] - Y[j]) ^ 2
                    if (!((class[j]) in m) || d < m[class[j]]) m[class[j]] = d
                }
            }
            for (c in m) {
                if (best < 0 || m[c] < m[best]) { second = best; best = c }
                else if (second < 0 || m[c] < m[second]) second = c
            }
            # the reference must be clear-cut: a region, well ahead of the rest
            if (best > 3 || sqrt(m[second]) - sqrt(m[best]) < 5) {
                print "synth: speck " s " is not clear-cut" > "/dev/stderr"; exit 99
            }
            nearest[3 + s] = best
            delete m
        }
        for (i = 0; i < W * H; i++) {
            print region[i] > truth
            print (class[i] > 3 ? nearest[class[i]] : class[i]) > expect
        }
    }'
}

# to_binary PLAIN MAXVAL: the plain PNM PLAIN (maxval 255, no comments) as
# binary PGM or PPM at MAXVAL, a multiple of 255 (samples times MAXVAL / 255:
# two bytes each, most significant first, above 255), with a comment in the
# header.
to_binary() {
    perl -e 'local $/; my ($magic, $w, $h, undef, @v) = split " ", <STDIN>; my $f = $ARGV[0] / 255;
        binmode STDOUT;
        print(($magic eq "P2" ? "P5" : "P6") . "\n# converted\n$w $h\n$ARGV[0]\n");
        print $ARGV[0] > 255 ? pack("n*", map { $_ * $f } @v) : pack("C*", @v);' "$2" <"$1"
}

# segment_as_truth NAME FILE EXPECT ARGS...: segmenting FILE with ARGS gives
# the partition in the file EXPECT.
segment_as_truth() {
    name=$1 file=$2 want=$3
    shift 3
    run "$@" --labels "$tmp/labels.pgm" "$file"
    expect_ok "$name" || return
    pgm16_values "$tmp/labels.pgm" >"$tmp/labels"
    same_partition "$tmp/labels" "$want" || fail "$name: the segments are not the regions"
}

if synth grey 0 >"$tmp/grey.pgm"; then
    cp "$tmp/truth" "$tmp/truth.grey"
    to_binary "$tmp/grey.pgm" 255 >"$tmp/grey8.pgm"
    to_binary "$tmp/grey.pgm" 510 >"$tmp/grey510.pgm"
    to_binary "$tmp/grey.pgm" 65535 >"$tmp/grey16.pgm"
    segment_as_truth "grey P2 -k 4" "$tmp/grey.pgm" "$tmp/truth.grey" -k 4
    [ "$(summary_segments)" = 4 ] || fail "grey P2 -k 4: summary says $(summary_segments) segments"
    # noise within a region: steps up to sqrt(1 + 6^2) = 6.1; between regions at least sqrt(1 + 44^2)
    segment_as_truth "grey P2 --cut 20" "$tmp/grey.pgm" "$tmp/truth.grey" --cut 20
    # --cut depends on the brightness scale, which must not depend on the maxval
    segment_as_truth "grey P5 8-bit --cut 20" "$tmp/grey8.pgm" "$tmp/truth.grey" --cut 20
    segment_as_truth "grey P5 maxval 510 --cut 20" "$tmp/grey510.pgm" "$tmp/truth.grey" --cut 20
    segment_as_truth "grey P5 maxval 65535 --cut 20" "$tmp/grey16.pgm" "$tmp/truth.grey" --cut 20
    # lambda scales brightness: at 0.1 a step of 44 levels between regions is
    # 4.4 < 20 (the halves below test other values)
    for lambda_segments in 0.1:1 1:4; do
        run --cut 20 --lambda "${lambda_segments%:*}" "$tmp/grey.pgm"
        [ "$(summary_segments)" = "${lambda_segments#*:}" ] ||
            fail "--cut 20 --lambda ${lambda_segments%:*}: $(summary_segments) segments"
    done
    run -k 5 --labels "$tmp/labels.pgm" "$tmp/grey.pgm"
    pgm16_values "$tmp/labels.pgm" >"$tmp/labels"
    same_partition "$tmp/labels" "$tmp/truth.grey" && fail "-k 5: the 4 regions"

    # the same cut by the gridemst tool's own clustering, on the same points
    awk 'NR == 2 { w = $1 } NR > 3 { for (i = 1; i <= NF; i++) { print n % w, int(n / w), $i; n++ } }' \
        "$tmp/grey.pgm" >"$tmp/points.txt"
    for cut in "--clusters 7" "--cut 3"; do
        if "$prog" $cut --labels "$tmp/ref" "$tmp/points.txt" >/dev/null 2>&1; then
            set -- $cut
            [ "$1" = --clusters ] && set -- -k "$2"
            run "$@" --min-size 1 --labels "$tmp/labels.pgm" "$tmp/grey.pgm"
            pgm16_values "$tmp/labels.pgm" >"$tmp/labels"
            cmp -s "$tmp/labels" "$tmp/ref" || fail "$*: labels differ from gridemst $cut"
        else
            fail "gridemst $cut failed"
        fi
    done
else
    fail "cannot make the grey test image"
fi

if synth colour 0 >"$tmp/colour.ppm"; then
    to_binary "$tmp/colour.ppm" 255 >"$tmp/colour8.ppm"
    to_binary "$tmp/colour.ppm" 510 >"$tmp/colour16.ppm"
    for features in luma rgb lab; do
        segment_as_truth "colour P3 -k 4 --features $features" "$tmp/colour.ppm" "$tmp/truth" -k 4 --features $features
    done
    segment_as_truth "colour P6 8-bit --cut 20" "$tmp/colour8.ppm" "$tmp/truth" --cut 20 --features luma
    segment_as_truth "colour P6 maxval 510 --cut 20" "$tmp/colour16.ppm" "$tmp/truth" --cut 20 --features luma
    # lab of the same image at another maxval is the same
    segment_as_truth "colour P6 maxval 510 lab --cut 20" "$tmp/colour16.ppm" "$tmp/truth" --cut 20 --features lab
else
    fail "cannot make the colour test image"
fi

# The colour of a pixel, from the documented formulas: two halves, black
# and one colour (or grey), are one segment when cut just above the length
# of the edge between them, sqrt(1 + lambda^2 |c|^2) with c the colour
# coordinates (black's are 0 in every kind), and two just below it.  Each
# case: features, magic, maxval, lambda, then the grey level or R G B.
for case in "luma P3 255 1 200 0 0" "luma P3 255 1 0 100 0" "luma P3 255 1 0 0 250" "luma P2 510 1 200" \
    "luma P2 255 0.25 200" "luma P3 1000 3 300 500 100" "rgb P3 255 1 200 0 0" "rgb P3 1000 0.5 300 500 100" \
    "rgb P2 255 1 200" "lab P3 255 1 200 0 0" "lab P3 255 1 0 100 0" "lab P3 255 2 10 20 250" \
    "lab P3 1000 0.5 300 500 100" "lab P2 255 1 200"; do
    set -- $case
    features=$1 magic=$2 maxval=$3 lambda=$4
    shift 4
    awk -v magic="$magic" -v maxval="$maxval" -v c="$*" 'BEGIN {
        print magic; print 8, 2; print maxval
        zero = magic == "P2" ? "0" : "0 0 0"
        for (y = 0; y < 2; y++) for (x = 0; x < 8; x++) print x < 4 ? zero : c }' >"$tmp/halves.pnm"
    w=$(awk -v features="$features" -v lambda="$lambda" -v maxval="$maxval" -v r="$1" -v g="${2:-}" -v b="${3:-}" '
        function linear(v) { return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ^ 2.4 }
        function f(t) { return t > (6 / 29) ^ 3 ? t ^ (1 / 3) : t / (3 * (6 / 29) ^ 2) + 4 / 29 }
        BEGIN {
        if (g == "") {
            c2 = (r * 255 / maxval) ^ 2 # a grey image: its grey level alone
        } else if (features == "luma") {
            c2 = ((0.299 * r + 0.587 * g + 0.114 * b) * 255 / maxval) ^ 2
        } else if (features == "rgb") {
            c2 = ((r * 255 / maxval) ^ 2 + (g * 255 / maxval) ^ 2 + (b * 255 / maxval) ^ 2)
        } else { # sRGB to CIE XYZ (D65) to L*a*b*, times 2.55
            R = linear(r / maxval); G = linear(g / maxval); B = linear(b / maxval)
            X = (0.4124564 * R + 0.3575761 * G + 0.1804375 * B) / 0.95047
            Y = 0.2126729 * R + 0.7151522 * G + 0.0721750 * B
            Z = (0.0193339 * R + 0.1191920 * G + 0.9503041 * B) / 1.08883
            L = 116 * f(Y) - 16; A = 500 * (f(X) - f(Y)); Bs = 200 * (f(Y) - f(Z))
            c2 = 2.55 ^ 2 * (L ^ 2 + A ^ 2 + Bs ^ 2)
        }
        printf "%.6f", sqrt(1 + lambda ^ 2 * c2) }')
    for cut_segments in "$(awk -v w="$w" 'BEGIN { print w - 0.01 }'):2" "$(awk -v w="$w" 'BEGIN { print w + 0.01 }'):1"; do
        run --cut "${cut_segments%:*}" --features "$features" --lambda "$lambda" "$tmp/halves.pnm"
        [ "$(summary_segments)" = "${cut_segments#*:}" ] ||
            fail "colour of $case: --cut ${cut_segments%:*} gives $(summary_segments) segments"
    done
done

# Regions of one luma in different colours (three_colours): luma sees one
# flat region; rgb and lab must give the three back (each region's colours
# are far apart in every coordinate but luma).
three_colours >"$tmp/oneluma.ppm"
# the three colours have one luma, 299 R + 587 G + 114 B
[ "$(awk 'BEGIN { print 299 * 100 + 587 * 120 + 114 * 140, 299 * 6 + 587 * 184 + 114 * 57, 299 * 204 + 587 * 88 + 114 * 32 }')" = \
    "116300 116300 116300" ] || fail "one luma: the colours differ in luma"
for features in rgb lab; do
    segment_as_truth "one luma --features $features -k 3" "$tmp/oneluma.ppm" "$tmp/truth" -k 3 --features $features
done
run -k 3 --features luma --labels "$tmp/labels.pgm" "$tmp/oneluma.ppm"
pgm16_values "$tmp/labels.pgm" >"$tmp/labels"
same_partition "$tmp/labels" "$tmp/truth" && fail "one luma --features luma -k 3: the regions, which luma cannot see"

# The default smallest segment is a thousandth of the image, rounded up;
# --min-size P% is P percent of it.  Each case: width, height, option, the
# pixels expected (computed here).
for case in "120 80 none" "101 77 none" "30 20 none" "120 80 2.5%" "101 77 0.37%" "120 80 100%"; do
    set -- $case
    awk -v w="$1" -v h="$2" 'BEGIN { print "P2"; print w, h; print 255; for (i = 0; i < w * h; i++) print (i * 7) % 256 }' \
        >"$tmp/size.pgm"
    want=$(awk -v n=$(($1 * $2)) -v p="$3" 'BEGIN { p = p == "none" ? 0.1 : p + 0; m = p * n / 100
        m = m == int(m) ? m : int(m) + 1; print m < 1 ? 1 : m }')
    if [ "$3" = none ]; then run -k 2 --json "$tmp/size.pgm"; else run -k 2 --json --min-size "$3" "$tmp/size.pgm"; fi
    [ "$status" -eq 0 ] && [ "$(json_number min_size "$tmp/out")" = "$want" ] ||
        fail "min size of a $1 x $2 image with $3: $(json_number min_size "$tmp/out"), expected $want"
done

# specks: cut first without --min-size (so -k 4 is not the regions), merged
# into the region across their lightest tree edge with it; two of the three
# join a region other than the one around them
if synth grey 1 >"$tmp/specks.pgm"; then
    [ "$(paste -d ' ' "$tmp/truth" "$tmp/expect" | awk '$1 != $2' | wc -l)" -eq 8 ] ||
        fail "specks: expected two specks to join a region other than their own"
    run -k 4 --min-size 1 --labels "$tmp/labels.pgm" "$tmp/specks.pgm"
    pgm16_values "$tmp/labels.pgm" >"$tmp/labels"
    same_partition "$tmp/labels" "$tmp/expect" && fail "specks -k 4: the regions without --min-size"
    segment_as_truth "specks -k 4 --min-size 10" "$tmp/specks.pgm" "$tmp/expect" -k 4 --min-size 10
    segment_as_truth "specks --cut 20 --min-size 5" "$tmp/specks.pgm" "$tmp/expect" --cut 20 --min-size 5
    # no edge has 5000 pixels on both sides (the background is the only region
    # that large): one segment, and a warning
    run -k 3 --min-size 5000 "$tmp/specks.pgm"
    [ "$status" -eq 0 ] && [ "$(summary_segments)" = 1 ] && grep -q "warning: made 1 of the 3 segments asked" "$tmp/err" ||
        fail "specks -k 3 --min-size 5000: expected 1 segment and a warning, got $(summary_segments): $(cat "$tmp/err")"
else
    fail "cannot make the speck test image"
fi

# ---------------------------------------------------------------- errors
printf 'P5\n4 4\n255\n0123456789' >"$tmp/truncated.pgm"
printf 'P2\n2 2\n255\n1 2 3\n' >"$tmp/truncated_plain.pgm"
printf 'hello, world\n' >"$tmp/magic.pgm"
printf 'P2\n2 2\n0\n0 0 0 0\n' >"$tmp/maxval0.pgm"
printf 'P2\n2 2\n100\n0 0 101 0\n' >"$tmp/above.pgm"
printf 'P1\n2 2\n0 1 1 0\n' >"$tmp/bitmap.pbm"
printf 'P2\n0 2\n255\n' >"$tmp/empty.pgm"
printf 'P2\n# size next\n2 x\n255\n' >"$tmp/badheader.pgm"
printf 'P5\n4000000000 4000000000\n255\n' >"$tmp/huge.pgm"
printf 'P2\n123456789012345678901234567890 0\n255\n' >"$tmp/long.pgm"
expect_error "missing file" "$tmp/none.pgm: cannot open: No such file" -k 2 "$tmp/none.pgm"
expect_error "truncated PNM" "truncated.pgm: truncated raster: 10 of 16 bytes" -k 2 "$tmp/truncated.pgm"
expect_error "truncated plain PNM" "truncated_plain.pgm: truncated raster: 3 of 4 samples" -k 2 "$tmp/truncated_plain.pgm"
expect_error "wrong magic" "magic.pgm: not a PNM, PNG or JPEG image" -k 2 "$tmp/magic.pgm"
expect_error "maxval 0" "maxval0.pgm: bad header: maxval 0" -k 2 "$tmp/maxval0.pgm"
expect_error "sample above maxval" "above.pgm: bad raster: sample 2 exceeds maxval 100" -k 2 "$tmp/above.pgm"
expect_error "bitmap" "bitmap.pbm: PBM bitmaps \\(P1\\) are not supported" -k 2 "$tmp/bitmap.pbm"
expect_error "no pixels" "empty.pgm: the image has no pixels" -k 2 "$tmp/empty.pgm"
expect_error "bad header" "badheader.pgm: bad header: the height is not a decimal number" -k 2 "$tmp/badheader.pgm"
# the sizes as the file writes them, not clamped to the limit
expect_error "huge header" "huge.pgm: image too large: 4000000000 x 4000000000 pixels \(at most 2147483647\)" -k 2 \
    "$tmp/huge.pgm"
expect_error "long header number" "long.pgm: the image has no pixels \(12345678901234567890\.\.\. x 0\)" -k 2 \
    "$tmp/long.pgm"
: >"$tmp/null.pgm"
expect_error "empty file" "null.pgm: empty file" -k 2 "$tmp/null.pgm"
expect_error "unknown option" "unknown option '--frobnicate'" --frobnicate -k 2 "$tmp/grey.pgm"
expect_error "unknown short option" "unknown option '-z'" -z -k 2 "$tmp/grey.pgm"
expect_error "grouped unknown option" "unknown option '-q'" -qk 2 "$tmp/grey.pgm"
expect_error "missing value" "option '--lambda' needs a value" -k 2 "$tmp/grey.pgm" --lambda
expect_error "missing -k value" "option '-k/--segments' needs a value" "$tmp/grey.pgm" -k
expect_error "flag with a value" "option '--json' takes no value" --json=yes -k 2 "$tmp/grey.pgm"
expect_error "-k 0" "-k: expected an integer >= 1, got '0'" -k 0 "$tmp/grey.pgm"
expect_error "lambda 0" "--lambda: expected a number > 0" -k 2 --lambda 0 "$tmp/grey.pgm"
for size in 0 0% 101% % abc% 1.5 -3%; do
    expect_error "min size $size" "--min-size: expected a pixel count >= 1 or a percentage in \(0, 100\]%, got '$size'" \
        -k 2 --min-size "$size" "$tmp/grey.pgm"
done
expect_error "features hsv" "--features: expected luma, rgb or lab, got 'hsv'" -k 2 --features hsv "$tmp/grey.pgm"
expect_error "lambda nan" "--lambda: expected a number > 0" -k 2 --lambda nan "$tmp/grey.pgm"
expect_error "no cut" "give -k K or --cut D" "$tmp/grey.pgm"
expect_error "two cuts" "give either -k or --cut" -k 2 --cut 3 "$tmp/grey.pgm"
expect_error "no input" "no INPUT" -k 2
expect_error "bad backend" "--backend: expected auto, cpu or cuda" --backend gpu -k 2 "$tmp/grey.pgm"
expect_error "unwritable output" "/nonexistent/x.ppm: cannot open for writing" -k 2 -o /nonexistent/x.ppm "$tmp/grey.pgm"
# --cut 0 leaves every pixel alone (no two are at distance 0): too many labels for a 16-bit PGM
awk 'BEGIN { print "P2"; print 300, 300; print 255; for (i = 0; i < 90000; i++) print 0 }' >"$tmp/flat.pgm"
expect_error "labels overflow" "labels.pgm: 90000 segments do not fit in a 16-bit PGM" --cut 0 --min-size 1 \
    --labels "$tmp/labels.pgm" "$tmp/flat.pgm"
if [ "$png" = no ]; then
    printf '\211PNG\r\n\032\n' >"$tmp/fake.png"
    expect_error "PNG input without libpng" "fake.png: PNG input needs libpng" -k 2 "$tmp/fake.png"
    expect_error "PNG output without libpng" "x.png: PNG output needs libpng" -k 2 -o "$tmp/x.png" "$tmp/grey.pgm"
else
    printf '\211PNG\r\n\032\nnot really' >"$tmp/fake.png"
    expect_error "bad PNG" "fake.png: bad PNG: " -k 2 "$tmp/fake.png"
fi

# OpenMP threads wait passively unless the user says otherwise.
if can_see_policy; then
    [ "$(policy_seen "" "$seg" -k 2)" = passive ] || fail "OMP_WAIT_POLICY unset: the tool did not wait passively"
    [ "$(policy_seen active "$seg" -k 2)" = active ] || fail "OMP_WAIT_POLICY=active: the user's policy was not kept"
fi

run --help
[ "$status" -eq 0 ] && grep -q "^Usage: gridemst-segment" "$tmp/out" || fail "--help"
run --version
[ "$status" -eq 0 ] && grep -q "^gridemst-segment (gridemst) [0-9]" "$tmp/out" || fail "--version"

finish
