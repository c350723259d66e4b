#!/bin/sh
# gridemst-segment on a real photograph: VisibleWomanHeadSlice.png, a
# cryosection of the Visible Human Project shipped with ITK's examples by
# the Debian package insighttoolkit5-examples (GEMST_SEGMENT_PHOTO names
# another image).  Skipped (77) without the file or without PNG
# support.  Checks: the exact segment count of -k, every label in range and
# every segment of at least --min-size pixels, the label file consistent
# with the colour picture, the same output across runs and thread counts,
# PNG and PPM pictures alike, --cut labels numbered densely, --json.

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"
# shellcheck source=tests/segmentlib.sh
. "$(dirname "$0")/segmentlib.sh"

photo=${GEMST_SEGMENT_PHOTO:-/usr/share/doc/insighttoolkit5-examples/examples/Data/VisibleWomanHeadSlice.png}
if [ "$png" != yes ]; then
    echo "SKIP: this build has no PNG support (libpng)"
    exit 77
fi
if [ ! -r "$photo" ]; then
    echo "SKIP: $photo is missing (Debian: apt-get install insighttoolkit5-examples)"
    exit 77
fi

k=12 size=30
run -k $k --min-size $size --threads 1 -o "$tmp/a.ppm" --labels "$tmp/a.pgm" "$photo"
expect_ok "photo -k $k"
[ "$(summary_segments)" = $k ] || fail "photo -k $k: $(summary_segments) segments"
size_line=$(sed -n '1s/.*: \([0-9]*\) x \([0-9]*\) .*/\1 \2/p' "$tmp/out")
width=${size_line% *} height=${size_line#* }
pgm16_values "$tmp/a.pgm" >"$tmp/labels"
ppm_colours "$tmp/a.ppm" >"$tmp/colours"
# every pixel labelled 0 .. k-1, each label used by at least $size pixels
awk -v k=$k -v size=$size '{ if ($1 !~ /^[0-9]+$/ || $1 >= k) bad = 1; count[$1]++; n++ }
    END { for (l = 0; l < k; l++) if (count[l] < size) bad = 1; exit bad || n != pixels }' pixels=$((width * height)) "$tmp/labels" ||
    fail "photo -k $k: labels out of range, or a segment under $size pixels"
# the first pixel of each label comes in label order
awk '!seen[$1]++ { if ($1 != next_label++) bad = 1 } END { exit bad }' "$tmp/labels" ||
    fail "photo: labels not numbered in the order of first pixels"
same_partition "$tmp/labels" "$tmp/colours" || fail "photo: the colour picture does not match the labels"
# the same with 2 threads, and again, and in PNG
run -k $k --min-size $size --threads 2 -o "$tmp/b.ppm" --labels "$tmp/b.pgm" "$photo"
expect_ok "photo 2 threads"
cmp -s "$tmp/a.pgm" "$tmp/b.pgm" && cmp -s "$tmp/a.ppm" "$tmp/b.ppm" || fail "photo: 1 and 2 threads differ"
run -k $k --min-size $size -o "$tmp/c.png" --labels "$tmp/c.pgm" "$photo"
cmp -s "$tmp/a.pgm" "$tmp/c.pgm" || fail "photo: a second run differs"
# the PNG picture holds the same pixels as the PPM: segmenting both agrees
run -k 20 --labels "$tmp/from_png.pgm" "$tmp/c.png"
expect_ok "reading our PNG"
run -k 20 --labels "$tmp/from_ppm.pgm" "$tmp/a.ppm"
cmp -s "$tmp/from_png.pgm" "$tmp/from_ppm.pgm" || fail "photo: the PNG and PPM pictures differ"
# --cut: labels 0 .. segments-1, every one used
run --cut 8 --min-size 20 --json --labels "$tmp/d.pgm" "$photo"
expect_ok "photo --cut --json"
segments=$(json_number segments "$tmp/out")
[ "$(json_number width "$tmp/out")" = "$width" ] && [ "$(json_number height "$tmp/out")" = "$height" ] ||
    fail "photo --json: wrong size: $(cat "$tmp/out")"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/out" || fail "photo --json: not JSON"
fi
[ "$(pgm16_values "$tmp/d.pgm" | sort -n -u | awk 'NR - 1 != $1 { bad = 1 } END { print bad ? -1 : NR }')" = "$segments" ] ||
    fail "photo --cut: labels are not 0 .. $segments - 1"

finish
