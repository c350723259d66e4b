#!/bin/sh
# JPEG input of gridemst-segment (tests/testlib.sh says how it is run).
# Without libjpeg, JPEG files are refused with a message that says so.  With
# it, on JPEG files made here by cjpeg (Debian: libjpeg-turbo-progs) from a
# synthetic image (tests/segmentlib.sh, three_colours):
#  * baseline, progressive and grey JPEG segment exactly as the pixels that
#    djpeg decodes from them, written as PNM;
#  * the image's regions come back through the compression;
#  * truncated and corrupt files, and CMYK ones (made by python3 with PIL,
#    when it has it), are refused with one line and status 2.

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"
# shellcheck source=tests/segmentlib.sh
. "$(dirname "$0")/segmentlib.sh"

if [ "$jpeg" != yes ]; then
    printf '\377\330\377\340 not really' >"$tmp/fake.jpg"
    expect_error "JPEG without libjpeg" "fake.jpg: JPEG input needs libjpeg" -k 2 "$tmp/fake.jpg"
    finish
fi
if ! command -v cjpeg >/dev/null 2>&1 || ! command -v djpeg >/dev/null 2>&1; then
    echo "SKIP: cjpeg and djpeg are missing (Debian: apt-get install libjpeg-turbo-progs)"
    exit 77
fi

three_colours >"$tmp/three.ppm"
cjpeg -quality 90 "$tmp/three.ppm" >"$tmp/base.jpg" &&
    cjpeg -quality 90 -progressive "$tmp/three.ppm" >"$tmp/progressive.jpg" &&
    cjpeg -quality 90 -grayscale "$tmp/three.ppm" >"$tmp/grey.jpg" || fail "cjpeg failed"

# same_as_djpeg NAME ARGS...: the JPEG $tmp/NAME.jpg and djpeg's decoding of
# it give the same labels with ARGS.
same_as_djpeg() {
    name=$1
    shift
    djpeg -pnm "$tmp/$name.jpg" >"$tmp/$name.pnm" || fail "djpeg $name.jpg failed"
    run "$@" --labels "$tmp/from_jpeg.pgm" "$tmp/$name.jpg"
    expect_ok "$name.jpg $*" || return
    run "$@" --labels "$tmp/from_pnm.pgm" "$tmp/$name.pnm"
    expect_ok "$name.pnm $*" || return
    cmp -s "$tmp/from_jpeg.pgm" "$tmp/from_pnm.pgm" || fail "$name.jpg $*: the labels differ from djpeg's pixels'"
}
for features in luma lab; do
    same_as_djpeg base -k 5 --min-size 1 --features $features
    same_as_djpeg progressive -k 5 --min-size 1 --features $features
done
same_as_djpeg grey --cut 3 --min-size 1
run -k 2 "$tmp/grey.jpg"
sed -n 1p "$tmp/out" | grep -q ": 90 x 60 grey," || fail "grey.jpg: not read as a 90 x 60 grey image: $(cat "$tmp/out")"

# the regions through the compression, with colour at full resolution:
# chroma subsampled 2 x 2 (cjpeg's default) blurs each colour edge into a
# gradient that single linkage follows from one region into the next
cjpeg -quality 90 -sample 1x1 "$tmp/three.ppm" >"$tmp/full.jpg" || fail "cjpeg -sample 1x1 failed"
for features in rgb lab; do
    run -k 3 --min-size 1% --features $features --labels "$tmp/labels.pgm" "$tmp/full.jpg"
    expect_ok "regions of full.jpg --features $features"
    pgm16_values "$tmp/labels.pgm" >"$tmp/labels"
    same_partition "$tmp/labels" "$tmp/truth" || fail "full.jpg -k 3 --features $features: the segments are not the regions"
done

# damaged files
size=$(wc -c <"$tmp/base.jpg")
head -c $((size / 2)) "$tmp/base.jpg" >"$tmp/half.jpg"
printf '\377\330\377' >"$tmp/start.jpg"
# a restart marker in the middle of the entropy-coded data, which has none
{ head -c $((size - 200)) "$tmp/base.jpg"; printf '\377\323'; tail -c 198 "$tmp/base.jpg"; } >"$tmp/marker.jpg"
expect_error "truncated JPEG" "half.jpg: bad JPEG: truncated file" -k 2 "$tmp/half.jpg"
expect_error "JPEG start alone" "start.jpg: bad JPEG: truncated file" -k 2 "$tmp/start.jpg"
expect_error "corrupt JPEG" "marker.jpg: bad JPEG: Corrupt JPEG data" -k 2 "$tmp/marker.jpg"
if python3 -c 'import PIL' >/dev/null 2>&1; then
    python3 -c 'import sys; from PIL import Image; Image.open(sys.argv[1]).convert("CMYK").save(sys.argv[2])' \
        "$tmp/three.ppm" "$tmp/cmyk.jpg" || fail "PIL could not write a CMYK JPEG"
    expect_error "CMYK JPEG" "cmyk.jpg: CMYK JPEG images are not supported" -k 2 "$tmp/cmyk.jpg"
else
    echo "note: python3 has no PIL (Debian: python3-pil): CMYK not tested"
fi

finish
