#!/bin/sh
# Tests of the gridemst command-line tool: options, outputs, exit statuses
# and error messages (tests/testlib.sh says how it is run).

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"

# shellcheck source=tests/clilib.sh
. "$(dirname "$0")/clilib.sh"

# --------------------------------------------------------------- help, version

run --help
expect_ok "--help"
for opt in output json format generate n dim seed backend nns prune findmin2 precision threads device occupancy \
    crowded late-bvh partitions verify save-points linkage clusters cut min-cluster-size labels min-samples hdbscan \
    cluster-selection cluster-selection-epsilon allow-single-cluster max-cluster-size probabilities outlier-scores \
    condensed-tree quiet help version; do
    grep -Eq -- " --$opt( |$)" "$tmp/out" || fail "--help does not mention --$opt"
done
for opt in "-o, --output" "-q, --quiet" "-h, --help" "-V, --version"; do
    grep -Fq -- "$opt" "$tmp/out" || fail "--help does not mention $opt"
done
run -h
expect_ok "-h"

run --version
expect_ok "--version"
grep -Eq '^gridemst [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out" || fail "--version printed: $(cat "$tmp/out")"

# --------------------------------------------------------------- generated sets, JSON

keys="input format n dim edges total_weight backend nns prune findmin2 precision threads device iterations \
n_unique n_duplicates cells cell_side cell_occupancy crowded_cell crowded_cells nested_cells fallback_searches \
late_bvh_iteration peak_device_bytes time_ms total solve upload grid findmin1 merge \
mfeatures_per_s"
for dim in 2 3; do
    name="--generate uniform --dim $dim --json"
    run --generate uniform --n 1000 --dim $dim --backend cpu --json
    expect_ok "$name"
    expect_json "$name" "$tmp/out"
    [ "$(lines "$tmp/out")" -eq 1 ] || fail "$name: not one line"
    for key in $keys; do
        grep -q "\"$key\": " "$tmp/out" || fail "$name: no \"$key\""
    done
    [ "$(json_value n "$tmp/out")" = 1000 ] || fail "$name: n is not 1000"
    [ "$(json_value dim "$tmp/out")" = "$dim" ] || fail "$name: dim is not $dim"
    [ "$(json_value edges "$tmp/out")" = 999 ] || fail "$name: edges is not 999"
    [ "$(json_value format "$tmp/out")" = generated ] || fail "$name: format is not generated"
    [ "$(json_value input "$tmp/out")" = "generate:uniform:n=1000:dim=$dim:seed=1" ] || fail "$name: input label"
done

run --generate clustered --n=1e3 --dim=3 --seed=7 --json
expect_ok "--n=1e3"
[ "$(json_value n "$tmp/out")" = 1000 ] || fail "--n=1e3 did not give 1000 points"

# --------------------------------------------------------------- edges CSV

for kind in uniform normal clustered lattice blobs shells planes tori filaments; do
    run --generate $kind --n 2000 --dim 3 -q -o "$tmp/$kind.csv"
    expect_ok "-o with $kind"
    [ -s "$tmp/out" ] && fail "-q printed on stdout"
    expect_tree "-o with $kind" "$tmp/$kind.csv" 2000
done

# -o - keeps standard output for the tree: the summary goes to standard error.
run --generate uniform --n 300 -o - --verify
[ "$status" -eq 0 ] || fail "-o -: exit status $status"
expect_tree "-o -" "$tmp/out" 300
grep -q '^verify: ok' "$tmp/err" || fail "-o -: the summary did not go to stderr"

# --------------------------------------------------------------- --verify

for gen in "uniform --dim 2" "lattice --dim 3" "clustered --dim 2"; do
    for prune in none dynamic static; do
        for findmin2 in list atomic; do
            for precision in float double; do
                name="--verify $gen --prune $prune --findmin2 $findmin2 --precision $precision"
                # shellcheck disable=SC2086
                run --generate $gen --n 700 --prune $prune --findmin2 $findmin2 --precision $precision --verify
                expect_ok "$name"
                grep -q '^verify: ok (Prim reference total ' "$tmp/out" || fail "$name: $(cat "$tmp/out")"
            done
        done
    done
done

# the surfaces and the filaments, in each dimension they have
for gen in "shells --dim 2" "shells --dim 3" "planes --dim 2" "planes --dim 3" "tori --dim 3" "filaments --dim 2" \
    "filaments --dim 3"; do
    # shellcheck disable=SC2086
    run --generate $gen --n 4000 --verify
    expect_ok "--verify $gen"
    grep -q '^verify: ok (Prim reference total ' "$tmp/out" || fail "--verify $gen: $(cat "$tmp/out")"
done

for gen in "uniform --dim 2" "lattice --dim 3" "clustered --dim 2"; do
    for precision in float double; do
        name="--verify $gen --nns bvh --precision $precision"
        # shellcheck disable=SC2086
        run --generate $gen --n 700 --nns bvh --precision $precision --verify
        expect_ok "$name"
        grep -q '^verify: ok (Prim reference total ' "$tmp/out" || fail "$name: $(cat "$tmp/out")"
    done
done

# The BVH reports itself, no pruning and no cells, on the CPU.
run --generate uniform --n 1000 --nns bvh --prune dynamic --json
expect_ok "--nns bvh --json"
expect_json "--nns bvh --json" "$tmp/out"
for kv in nns=bvh prune=none cells=0 backend=cpu; do
    [ "$(json_value "${kv%%=*}" "$tmp/out")" = "${kv#*=}" ] || fail "--nns bvh --json: ${kv%%=*} is not ${kv#*=}"
done

run --generate normal --n 500 --dim 3 --verify --json
expect_ok "--verify --json"
expect_json "--verify --json" "$tmp/out"
grep -q '"verify": {"checked": true, "against": "prim", "ok": true, ' "$tmp/out" || fail "--verify --json: $(cat "$tmp/out")"

# above 20000 points, the edges only
for precision in float double; do
    run --generate blobs --dim 3 --n 20001 --precision $precision --verify
    expect_ok "--verify --n 20001 --precision $precision"
    grep -q '^verify: ok (n > 20000, the edges only' "$tmp/out" ||
        fail "--verify with n > 20000, $precision: $(cat "$tmp/out")"
done
run --generate uniform --n 20001 --verify --json
expect_ok "--verify --n 20001 --json"
grep -q '"verify": {"checked": true, "against": "edges", "ok": true, "reference_weight": null' "$tmp/out" ||
    fail "--verify --n 20001 --json: $(cat "$tmp/out")"
run --generate uniform --n 20001 --min-samples 3 --verify
expect_ok "--verify skipped"
grep -q '^verify: skipped (n > 20000' "$tmp/out" || fail "--verify of a mutual-reachability tree with n > 20000 was not skipped"

# --------------------------------------------------------------- identical trees

for gen in "uniform --dim 2" "lattice --dim 3"; do
    # shellcheck disable=SC2086
    "$prog" --generate $gen --n 3000 -q -o "$tmp/ref.csv" || fail "reference tree for $gen"
    for variant in "--prune none" "--prune dynamic" "--findmin2 atomic" "--threads 1" "--threads 2" \
        "--occupancy 0.5" "--occupancy 8" "--occupancy 8 --crowded 4" "--backend cpu" "--nns grid" "--nns bvh" "--nns bvh --findmin2 list" \
        "--late-bvh 2" "--late-bvh never"; do
        # shellcheck disable=SC2086
        run --generate $gen --n 3000 -q -o "$tmp/variant.csv" $variant
        expect_ok "$gen $variant"
        cmp -s "$tmp/ref.csv" "$tmp/variant.csv" || fail "$gen: $variant gives a different tree"
    done
done

# The late BVH takes over where asked, and says so; by default it waits.
run --generate clustered --n 3000 --dim 3 --backend cpu --nns grid --json --late-bvh 2
expect_ok "--late-bvh 2 --json"
[ "$(json_value late_bvh_iteration "$tmp/out")" = 2 ] || fail "--late-bvh 2: late_bvh_iteration $(json_value late_bvh_iteration "$tmp/out")"
run --generate uniform --n 3000 --dim 3 --backend cpu --json
[ "$(json_value late_bvh_iteration "$tmp/out")" = -1 ] || fail "uniform: the late BVH took over at $(json_value late_bvh_iteration "$tmp/out")"

# --save-points writes the generated float32 points; reading them back gives the same tree.
run --generate blobs --n 2500 --dim 3 -q -o "$tmp/ref.csv" --save-points "$tmp/points.bin"
expect_ok "--save-points"
run "$tmp/points.bin" -q -o "$tmp/variant.csv"
expect_ok "reading --save-points output"
cmp -s "$tmp/ref.csv" "$tmp/variant.csv" || fail "the saved points give a different tree"
# --save-points - writes them to standard output, and the summary goes to standard error.
run --generate blobs --n 2500 --dim 3 --save-points -
[ "$status" -eq 0 ] || fail "--save-points -: exit status $status"
cmp -s "$tmp/out" "$tmp/points.bin" || fail "--save-points - wrote other bytes than --save-points FILE"
grep -q 'edges' "$tmp/err" || fail "--save-points -: the summary did not go to stderr"
cp "$tmp/points.bin" "$tmp/points.data"
run --format binary "$tmp/points.data" -q -o "$tmp/variant.csv"
expect_ok "--format binary"
cmp -s "$tmp/ref.csv" "$tmp/variant.csv" || fail "--format binary gives a different tree"

# --------------------------------------------------------------- small and odd inputs

: >"$tmp/empty.txt"
run "$tmp/empty.txt" --json -o "$tmp/empty.csv" --verify
expect_ok "empty file"
[ "$(json_value edges "$tmp/out")" = 0 ] || fail "empty file: edges is not 0"
if [ ! -f "$tmp/empty.csv" ] || [ -s "$tmp/empty.csv" ]; then
    fail "empty file: the CSV is not an empty file"
fi

printf '1.5 2.5\n' >"$tmp/one.txt"
run "$tmp/one.txt" --verify -o "$tmp/one.csv"
expect_ok "one point"
grep -q '^gridemst: 1 point (2D, 0 duplicates) -> 0 edges' "$tmp/out" || fail "one point: $(cat "$tmp/out")"
grep -q '^verify: ok' "$tmp/out" || fail "one point: verify"
[ ! -s "$tmp/one.csv" ] || fail "one point: the CSV is not empty"

run --generate uniform --n 0 --json
expect_ok "--n 0"
[ "$(json_value edges "$tmp/out")" = 0 ] || fail "--n 0: edges is not 0"

printf 'x,y\n0,0\n3,4\n3,4\n0,0\n6,8\n' >"$tmp/dups.csv"
run "$tmp/dups.csv" --verify -o "$tmp/dups.out"
expect_ok_header "duplicates"
grep -q '^gridemst: 5 points (2D, 2 duplicates) -> 4 edges, total weight 10$' "$tmp/out" ||
    fail "duplicates: $(head -n 1 "$tmp/out")"

# A file name that needs escaping in JSON (quote, backslash, tab).
odd="$tmp/odd \"name\\	x.txt"
printf '0 0\n1 1\n' >"$odd"
run "$odd" --json
expect_ok "odd file name"
expect_json "odd file name" "$tmp/out"
grep -Fq 'odd \"name\\\tx.txt", ' "$tmp/out" || fail "odd file name not escaped: $(cat "$tmp/out")"
if command -v python3 >/dev/null 2>&1 &&
    [ "$(python3 -c 'import json, sys; print(json.load(sys.stdin)["input"])' <"$tmp/out")" != "$odd" ]; then
    fail "odd file name does not read back from the JSON"
fi

# --------------------------------------------------------------- TSPLIB

if [ -f "$tsplib/berlin52.tsp" ]; then
    run "$tsplib/berlin52.tsp" --json --verify
    expect_ok "TSPLIB"
    expect_json "TSPLIB" "$tmp/out"
    [ "$(json_value format "$tmp/out")" = tsplib ] || fail "TSPLIB: format"
    [ "$(json_value tsplib_name "$tmp/out")" = berlin52 ] || fail "TSPLIB: tsplib_name"
    [ "$(json_value edge_weight_type "$tmp/out")" = EUC_2D ] || fail "TSPLIB: edge_weight_type"
    json_value tsplib_weight "$tmp/out" | grep -Eq '^[0-9]+$' || fail "TSPLIB: tsplib_weight is not an integer"
    grep -q '"verify": {"checked": true, "against": "prim", "ok": true' "$tmp/out" || fail "TSPLIB: verify"
    run "$tsplib/berlin52.tsp"
    expect_ok "TSPLIB summary"
    grep -Eq '^tsplib weight \(EUC_2D\): [0-9]+$' "$tmp/out" || fail "TSPLIB summary: $(cat "$tmp/out")"
else
    echo "note: $tsplib/berlin52.tsp missing, TSPLIB checks skipped"
fi

# A metric the Euclidean tree says nothing about: a warning, and a null weight.
cat >"$tmp/man4.tsp" <<'EOF'
NAME : man4
TYPE : TSP
DIMENSION : 4
EDGE_WEIGHT_TYPE : MAN_2D
NODE_COORD_SECTION
1 0 0
2 3 4
3 6 8
4 0 1
EOF
run "$tmp/man4.tsp" --json
[ "$status" -eq 0 ] || fail "MAN_2D: exit status $status"
expect_json "MAN_2D" "$tmp/out"
[ "$(json_value tsplib_weight "$tmp/out")" = null ] || fail "MAN_2D: tsplib_weight is not null"
if [ "$(lines "$tmp/err")" -ne 1 ] || ! grep -q '^gridemst: warning: .*MAN_2D' "$tmp/err"; then
    fail "MAN_2D: expected one warning line, got: $(cat "$tmp/err")"
fi

# Option spellings: an attached short value, --option=VALUE, and "--"
# before an INPUT whose name starts with a dash.
cp "$tmp/dups.csv" "$tmp/-dash.csv"
(cd "$tmp" && "$prog" -q -oattached.csv --format=auto -- -dash.csv) >"$tmp/out" 2>"$tmp/err"
status=$?
expect_ok_header "-oFILE and --"
expect_tree "-oFILE and --" "$tmp/attached.csv" 5

# --------------------------------------------------------------- single linkage, flat clusters

# Two groups of unit-spaced points 10 apart and a far point: the merges and
# clusters below are worked out by hand from the tree 0-1, 1-4, 2-3 (1),
# 0-2 (10), 3-5 (sqrt(40^2 + 49^2)).
printf '0 0\n0 1\n10 0\n10 1\n0 2\n50 50\n' >"$tmp/six.txt"
far=$(awk 'BEGIN { printf "%.17g", sqrt(40 * 40 + 49 * 49) }')
printf '0,1,1,2\n4,6,1,3\n2,3,1,2\n7,8,10,5\n5,9,%s,6\n' "$far" >"$tmp/six.linkage"
run "$tmp/six.txt" -q --linkage "$tmp/linkage.csv"
expect_ok "--linkage"
awk -F, 'NR == FNR { want[FNR] = $0; next }
    { split(want[FNR], w, ",") }
    $1 != w[1] || $2 != w[2] || $4 != w[4] || ($3 - w[3]) ^ 2 > 1e-20 || FNR > 5 { bad = 1 }
    END { exit bad || FNR != 5 }' "$tmp/six.linkage" "$tmp/linkage.csv" ||
    fail "--linkage: got $(cat "$tmp/linkage.csv")"

# check_labels NAME EXPECTED ARGS...: the labels written by gridemst ARGS
# --labels FILE are EXPECTED (space separated), and the summary line counts
# the clusters and noise points.
check_labels() {
    name=$1 want=$2
    shift 2
    run "$tmp/six.txt" --labels "$tmp/labels.txt" "$@"
    expect_ok "$name"
    got=$(tr '\n' ' ' <"$tmp/labels.txt")
    [ "$got" = "$want " ] || fail "$name: labels $got, expected $want"
    clusters=$(echo "$want" | tr ' ' '\n' | grep -v -- -1 | sort -u | wc -l | tr -d ' ')
    noise=$(echo "$want" | tr ' ' '\n' | grep -c -- -1)
    grep -Eq "^clusters: $clusters \($noise noise points?\) in [0-9.]+ ms$" "$tmp/out" || fail "$name: summary $(cat "$tmp/out")"
}
check_labels "--cut 1.5" "0 0 1 1 0 2" --cut 1.5
check_labels "--cut 1 (a pair at the distance is linked)" "0 0 1 1 0 2" --cut 1
check_labels "--cut 0.5" "0 1 2 3 4 5" --cut 0.5
check_labels "--cut 100" "0 0 0 0 0 0" --cut 100
check_labels "--clusters 1" "0 0 0 0 0 0" --clusters 1
check_labels "--clusters 2" "0 0 0 0 0 1" --clusters 2
check_labels "--clusters 3" "0 0 1 1 0 2" --clusters 3
check_labels "--clusters 3 --min-cluster-size 2" "0 0 1 1 0 -1" --clusters 3 --min-cluster-size 2
check_labels "--clusters 30 (more than n)" "0 1 2 3 4 5" --clusters 30
check_labels "--cut 1.5 --min-cluster-size 3" "0 0 -1 -1 0 -1" --cut 1.5 --min-cluster-size 3

run "$tmp/six.txt" --cut 1.5 --min-cluster-size 2 --json
expect_ok "--cut --json"
expect_json "--cut --json" "$tmp/out"
[ "$(json_value clusters "$tmp/out")" = 2 ] || fail "--cut --json: clusters is not 2"
[ "$(json_value noise_points "$tmp/out")" = 1 ] || fail "--cut --json: noise_points is not 1"
run "$tmp/six.txt" --json
grep -q '"clusters"' "$tmp/out" && fail "--json without clustering reports clusters"

# HDBSCAN*: the mutual-reachability tree (checked against Prim by --verify),
# its weight in the JSON, one line per point in each file, the clusters and
# noise in the summary and the JSON.
run --generate blobs --n 3000 --min-samples 10 --verify --json
expect_ok "--min-samples --verify"
[ "$(json_value ok "$tmp/out")" = true ] || fail "--min-samples --verify: $(cat "$tmp/out")"
[ "$(json_value prune "$tmp/out")" = none ] || fail "--min-samples: the grid must search with prune none"
mr_weight=$(json_value total_weight "$tmp/out")
run --generate blobs --n 3000 --hdbscan --min-cluster-size 10 --json --labels "$tmp/hl.txt" \
    --probabilities "$tmp/hp.txt" --outlier-scores "$tmp/ho.txt" --condensed-tree "$tmp/hc.csv"
expect_ok "--hdbscan --json"
expect_json "--hdbscan --json" "$tmp/out"
[ "$(json_value total_weight "$tmp/out")" = "$mr_weight" ] ||
    fail "--hdbscan: total_weight is not that of the tree of --min-samples 10 (the default min_samples)"
for f in hl.txt hp.txt ho.txt; do
    [ "$(lines "$tmp/$f")" -eq 3000 ] || fail "--hdbscan: $f has $(lines "$tmp/$f") lines"
done
clusters=$(grep -v -- -1 "$tmp/hl.txt" | sort -u | wc -l | tr -d ' ')
[ "$(json_value clusters "$tmp/out")" = "$clusters" ] || fail "--hdbscan --json: clusters is not $clusters"
[ "$(json_value noise_points "$tmp/out")" = "$(grep -c -- -1 "$tmp/hl.txt")" ] || fail "--hdbscan: noise_points"
awk -F, 'NF != 4 || $1 < 3000 { exit 1 }' "$tmp/hc.csv" || fail "--condensed-tree: not rows parent,child,lambda,size"
run --generate blobs --n 3000 --hdbscan --min-cluster-size 10
expect_ok "--hdbscan summary"
grep -Eq "^clusters: $clusters \([0-9]+ noise points?\) in [0-9.]+ ms$" "$tmp/out" ||
    fail "--hdbscan summary: $(cat "$tmp/out")"
expect_error "--min-samples with --partitions" "mutual-reachability" --generate uniform --n 100 --min-samples 5 --partitions 2
expect_error "--min-samples above n" "exceeds the number of points" --generate uniform --n 10 --min-samples 11

# --labels - keeps standard output for the labels; the summary goes to stderr.
run "$tmp/six.txt" --clusters 2 --labels -
[ "$status" -eq 0 ] || fail "--labels -: exit status $status"
[ "$(tr '\n' ' ' <"$tmp/out")" = "0 0 0 0 0 1 " ] || fail "--labels -: $(cat "$tmp/out")"
grep -Eq '^clusters: 2 \(0 noise points\) in [0-9.]+ ms$' "$tmp/err" || fail "--labels -: the summary did not go to stderr"
run "$tmp/six.txt" --linkage -
[ "$status" -eq 0 ] || fail "--linkage -: exit status $status"
[ "$(lines "$tmp/out")" -eq 5 ] || fail "--linkage -: $(cat "$tmp/out")"

# Against SciPy's single linkage, where SciPy is installed: the same merge
# heights and sizes (the merge order among equal heights may differ), and
# the same friends-of-friends partition at several linking lengths.  The
# python3 on PATH may be one without SciPy beside the system's that has it.
scipy_python=
for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import scipy.cluster.hierarchy' 2>/dev/null; then
        scipy_python=$py
        break
    fi
done
if [ -n "$scipy_python" ]; then
    for gen in "clustered --dim 2" "uniform --dim 3" "lattice --dim 2"; do
        # shellcheck disable=SC2086
        run --generate $gen --n 1500 -q --save-points "$tmp/pts.bin" --linkage "$tmp/linkage.csv" --cut 0.01 \
            --labels "$tmp/labels.txt"
        expect_ok "$gen: linkage for SciPy"
        "$scipy_python" - "$top_srcdir/benchmarks" "$tmp/pts.bin" "$tmp/linkage.csv" "$tmp/labels.txt" \
            >"$tmp/scipy" 2>&1 <<'PY' ||
import sys
import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage

benchmarks, points_file, linkage_file, labels_file = sys.argv[1:5]
sys.path.insert(0, benchmarks)
from gemstbench.points_file import read_points

pts = read_points(points_file).astype(np.float64)
ours = np.loadtxt(linkage_file, delimiter=",", ndmin=2)
ref = linkage(pts, method="single")
heights = np.sort(ref[:, 2])
assert np.allclose(ours[:, 2], heights, rtol=1e-6, atol=0), "merge heights differ"
assert np.all(np.diff(ours[:, 2]) >= 0), "merge heights are not nondecreasing"
# once all merges of a height are done the partition is unique: the largest
# cluster so far agrees
ends = np.flatnonzero(np.append(np.diff(ref[:, 2]) > 0, True))
largest_ours = np.maximum.accumulate(ours[:, 3])[ends]
largest_ref = np.maximum.accumulate(ref[:, 3])[ends]
assert np.array_equal(largest_ours, largest_ref), "cluster sizes differ"
labels = np.loadtxt(labels_file, dtype=np.int64)
flat = fcluster(ref, 0.01, criterion="distance")
pairs = set(zip(labels.tolist(), flat.tolist()))
assert len(pairs) == len(set(labels.tolist())) == len(set(flat.tolist())), "--cut 0.01 partition differs"
PY
            fail "$gen: disagrees with SciPy: $(tail -n 3 "$tmp/scipy")"
    done
else
    echo "note: python3 with SciPy not found, the SciPy cross-check is skipped"
fi

# --------------------------------------------------------------- errors

expect_error "missing file" "No such file" "$tmp/missing.txt"
expect_error "directory" "directory" "$tmp"
printf '1 2\n3 4 5\n' >"$tmp/mixed.txt"
expect_error "mixed columns" "mixed.txt:2" "$tmp/mixed.txt"
printf '1 2\nnan 4\n' >"$tmp/nan.txt"
expect_error "NaN" "nan.txt:2" "$tmp/nan.txt"
printf '1 2 3 4\n5 6 7 8\n' >"$tmp/four.txt"
expect_error "4 columns" "four.txt" "$tmp/four.txt"
printf '9e307 0\n-9e307 0\n' >"$tmp/span.txt"
expect_error "span beyond the largest double" "span more than the largest double" "$tmp/span.txt"
printf '8e307 8e307\n-8e307 -8e307\n' >"$tmp/far.txt"
expect_error "distance beyond the largest double" "farther apart than the largest double" "$tmp/far.txt" \
    --precision double
expect_error "unwritable -o" "/nonexistent/dir/x.csv" --generate uniform --n 10 -o /nonexistent/dir/x.csv
expect_error "unwritable --save-points" "/nonexistent/dir/p.bin" --generate uniform --n 10 \
    --save-points /nonexistent/dir/p.bin
printf '1 2\n' >"$tmp/short.bin"
expect_error "truncated binary file" "short.bin" "$tmp/short.bin"

expect_usage "unknown option" "unknown option '--bogus'" --bogus
expect_usage "unknown short option" "unknown option '-x'" -x "$tmp/one.txt"
expect_usage "missing value" "needs a value" --generate uniform --n
expect_usage "value for a flag" "takes no value" --json=yes "$tmp/one.txt"
expect_usage "--threads x" "--threads" --threads x "$tmp/one.txt"
expect_usage "--threads -1" "--threads" --threads -1 "$tmp/one.txt"
expect_usage "--n -5" "--n" --generate uniform --n -5
expect_usage "--n 1.5" "--n" --generate uniform --n 1.5
expect_usage "--n nan" "--n" --generate uniform --n nan
expect_usage "--dim 4" "--dim: expected 2 or 3" --generate uniform --n 10 --dim 4
expect_usage "--seed x" "--seed" --generate uniform --n 10 --seed x
expect_usage "--occupancy -1" "--occupancy" --occupancy -1 "$tmp/one.txt"
expect_usage "--crowded -1" "--crowded" --crowded -1 "$tmp/one.txt"
expect_usage "--late-bvh 0" "--late-bvh: expected auto, never or an iteration K >= 1 \(iteration 0 always" \
    --late-bvh 0 "$tmp/one.txt"
expect_usage "--late-bvh soon" "--late-bvh: expected auto, never or an iteration K >= 1" --late-bvh soon "$tmp/one.txt"
expect_usage "--crowded 1.5" "--crowded" --crowded 1.5 "$tmp/one.txt"
expect_usage "--device x" "--device" --device x "$tmp/one.txt"
expect_usage "--prune bogus" "--prune: expected none\|dynamic\|static" --prune bogus "$tmp/one.txt"
expect_usage "--nns bogus" "--nns: expected auto\|grid\|bvh" --nns bogus "$tmp/one.txt"
expect_usage "--findmin2 bogus" "--findmin2" --findmin2 bogus "$tmp/one.txt"
expect_usage "--precision bogus" "--precision" --precision bogus "$tmp/one.txt"
expect_usage "--backend bogus" "--backend" --backend bogus "$tmp/one.txt"
expect_usage "--format bogus" "--format" --format bogus "$tmp/one.txt"
expect_usage "--generate bogus" "--generate" --generate bogus --n 10
expect_error "tori in 2D" "tori generator makes 3D points only" --generate tori --n 10 --dim 2
expect_usage "INPUT and --generate" "not both" --generate uniform --n 10 "$tmp/one.txt"
expect_usage "no input" "no INPUT" --json
expect_usage "two inputs" "more than one INPUT" "$tmp/one.txt" "$tmp/empty.txt"
expect_usage "--generate without --n" "needs --n" --generate uniform
expect_usage "--dim without --generate" "--dim applies only with --generate" --dim 3 "$tmp/one.txt"
expect_usage "--json with -o -" "standard output" --json -o - "$tmp/one.txt"
expect_usage "--labels - with -o -" "standard output" --labels - --cut 1 -o - "$tmp/one.txt"
expect_usage "--linkage - with --json" "standard output" --linkage - --json "$tmp/one.txt"
expect_usage "--save-points - with -o -" "standard output" --save-points - -o - "$tmp/one.txt"
expect_usage "--clusters with --cut" "only one of --clusters, --cut and --hdbscan" --clusters 2 --cut 1 "$tmp/one.txt"
expect_usage "--hdbscan with --cut" "only one of" --hdbscan --min-cluster-size 5 --cut 1 "$tmp/one.txt"
expect_usage "--hdbscan alone" "--hdbscan needs --min-cluster-size" --hdbscan "$tmp/one.txt"
expect_usage "--hdbscan --min-cluster-size 1" "M >= 2" --hdbscan --min-cluster-size 1 "$tmp/one.txt"
expect_usage "--probabilities alone" "--probabilities needs --hdbscan" --probabilities "$tmp/p.txt" "$tmp/one.txt"
expect_usage "--allow-single-cluster alone" "--allow-single-cluster needs --hdbscan" --allow-single-cluster \
    "$tmp/one.txt"
expect_usage "--cluster-selection bogus" "--cluster-selection: expected eom\|leaf" --hdbscan --min-cluster-size 5 \
    --cluster-selection bogus "$tmp/one.txt"
expect_usage "--min-samples 0" "--min-samples" --min-samples 0 "$tmp/one.txt"
expect_usage "--max-cluster-size 0" "--max-cluster-size" --hdbscan --min-cluster-size 5 --max-cluster-size 0 \
    "$tmp/one.txt"
expect_usage "--cluster-selection-epsilon -1" "--cluster-selection-epsilon" --hdbscan --min-cluster-size 5 \
    --cluster-selection-epsilon -1 "$tmp/one.txt"
expect_usage "--outlier-scores - with --json" "standard output" --hdbscan --min-cluster-size 5 --outlier-scores - \
    --json "$tmp/one.txt"
expect_usage "--labels alone" "--labels needs" --labels "$tmp/labels.txt" "$tmp/one.txt"
expect_usage "--min-cluster-size alone" "--min-cluster-size needs" --min-cluster-size 2 "$tmp/one.txt"
expect_usage "--clusters 0" "--clusters" --clusters 0 "$tmp/one.txt"
expect_usage "--cut -1" "--cut" --cut -1 "$tmp/one.txt"
expect_usage "--cut nan" "--cut" --cut nan "$tmp/one.txt"
expect_usage "--min-cluster-size -1" "--min-cluster-size" --min-cluster-size -1 --cut 1 "$tmp/one.txt"
expect_error "unwritable --labels" "/nonexistent/dir/l.txt" --cut 1 --labels /nonexistent/dir/l.txt "$tmp/one.txt"
expect_error "unwritable --linkage" "/nonexistent/dir/k.csv" --linkage /nonexistent/dir/k.csv "$tmp/one.txt"

# Progress: on a terminal, a run of over a second shows its iterations on
# standard error, each line overwriting the last, ended by a newline before
# the summary.  script(1) gives the tool a pseudo-terminal (skipped without it).
if command -v script >/dev/null 2>&1; then
    script -qec "'$prog' --generate uniform --n 2e6 --backend cpu --threads 1 -o /dev/null" "$tmp/typescript" \
        >"$tmp/tty" 2>&1
    status=$?
    if [ "$status" -ne 0 ]; then
        fail "progress on a terminal: exit status $status: $(head -c 300 "$tmp/tty")"
    elif ! grep -q "gridemst: iteration 1, [0-9]* components left" "$tmp/tty" ||
        ! grep -q "gridemst: iteration [0-9]*, 1 component left" "$tmp/tty"; then
        fail "progress on a terminal: no iteration lines in: $(head -c 300 "$tmp/tty")"
    elif ! tr '\r' '\n' <"$tmp/tty" | grep -q "^gridemst: 2000000 points"; then
        fail "progress on a terminal: the summary does not start a line: $(head -c 300 "$tmp/tty")"
    fi
fi

# Partitions: the same tree as one part (auto means the CPU here), a line on
# the parts in the summary, an object in the JSON; the CUDA backend and
# more than 64 parts are refused.
run --generate blobs --n 3000 --dim 3 --backend cpu -o "$tmp/one_part.csv"
expect_ok "blobs, one part"
for parts in 2 5; do
    run --generate blobs --n 3000 --dim 3 --partitions $parts -o "$tmp/parts.csv"
    expect_ok "--partitions $parts"
    cmp -s "$tmp/one_part.csv" "$tmp/parts.csv" || fail "--partitions $parts: a tree other than one part's"
    grep -q "^partitions $parts (" "$tmp/out" || fail "--partitions $parts: no partitions line: $(cat "$tmp/out")"
done
run --generate uniform --n 2000 --partitions 3 --json
expect_ok "--partitions 3 --json"
expect_json "--partitions 3 --json" "$tmp/out"
for key in partitions parts largest_part smallest_part components halo_points halo_rounds searches kept_answers \
    exchanged_bytes local_trees search halo devices; do
    grep -q "\"$key\": " "$tmp/out" || fail "--partitions 3 --json: no \"$key\""
done
[ "$(json_value parts "$tmp/out")" = 3 ] || fail "--partitions 3 --json: parts is not 3"
[ "$(json_value backend "$tmp/out")" = cpu ] || fail "--partitions 3 --json: backend is not cpu"
expect_error "--partitions 65" "partitions must be from 0 to 64" --generate uniform --n 100 --partitions 65
expect_usage "--partitions -1" "--partitions" --partitions -1 --generate uniform --n 100

# --devices: a list of device numbers or all (tests/test_multigpu solves on them)
expect_usage "--devices 0,,1" "device numbers separated by commas" --generate uniform --n 100 --devices 0,,1
expect_usage "--devices x" "'x' in 'x' is not a device number" --generate uniform --n 100 --devices x
expect_usage "--devices -1" "is not a device number" --generate uniform --n 100 --devices 0,-1
expect_error "--devices on the cpu" "devices are for the cuda backend" --generate uniform --n 100 --devices all \
    --backend cpu
run --generate uniform --n 100 --backend cuda
if [ "$status" -ne 0 ]; then # no GPU here: several devices are refused, saying why
    expect_error "--devices without GPUs" "without CUDA|no usable CUDA device" --generate uniform --n 100 \
        --devices 0,1
    expect_error "--devices one twice without GPUs" "without CUDA|no usable CUDA device" --generate uniform \
        --n 100 --devices 0,0
    expect_error "--partitions with cuda without GPUs" "without CUDA|no usable CUDA device" --generate uniform \
        --n 100 --partitions 2 --backend cuda
fi

# CUDA: fine where a GPU is present, else exit 2 with a clear message.
run --generate uniform --n 100 --backend cuda
if [ "$status" -ne 0 ]; then
    expect_error "--backend cuda" "without CUDA|CUDA device" --generate uniform --n 100 --backend cuda
fi
# The BVH on CUDA: likewise.
run --generate uniform --n 100 --backend cuda --nns bvh
if [ "$status" -ne 0 ]; then
    expect_error "--backend cuda --nns bvh" "without CUDA|CUDA device" --generate uniform --n 100 --backend cuda --nns bvh
fi

finish
