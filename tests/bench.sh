#!/bin/sh
# Tests of the benchmark driver (benchmarks/gridemst-bench) on tiny CPU
# cases: the CSVs' shape, the floor, the repeat budget, the tree check across
# configurations and backends, usage errors; and, where python3 is, a suite
# run with benchmarks/bench.py (and its plots where gnuplot is), also with
# stand-ins for the peer programs.

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"

bench=$(cd "$top_builddir" && pwd)/benchmarks/gridemst-bench
if [ ! -x "$bench" ]; then
    echo "SKIP: $bench is not built"
    exit 77
fi
# spinning OpenMP threads make a loaded machine crawl
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
export OMP_WAIT_POLICY

# column NAME FILE: the values of column NAME of a CSV without quoted fields.
column() {
    awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$2"
}

# colnum NAME FILE: the position of column NAME in a CSV's header.
colnum() {
    head -n 1 "$2" | tr ',' '\n' | grep -n -x "$1" | cut -d: -f1
}

# rows FILE: the lines after the header.
rows() {
    echo $(($(wc -l <"$1") - 1))
}

# every prune x findmin2: 6 configurations x 2 timed solves, one tree
"$bench" --generate uniform --n 3000 --dim 3 --backend cpu --prune all --findmin2 all --repeat 2 --warmup 1 \
    -o "$tmp/runs.csv" --iterations "$tmp/iter.csv" 2>"$tmp/err"
status=$?
[ "$status" -eq 0 ] || fail "all configurations: exit status $status: $(cat "$tmp/err")"
[ "$(rows "$tmp/runs.csv")" -eq 12 ] || fail "all configurations: $(rows "$tmp/runs.csv") rows, expected 12"
fields=$(head -n 1 "$tmp/runs.csv" | awk -F, '{ print NF }')
[ "$(awk -F, -v f="$fields" 'NF != f' "$tmp/runs.csv" | wc -l)" -eq 0 ] || fail "rows with other than $fields fields"
[ "$(column same_edges "$tmp/runs.csv" | sort -u)" = 1 ] || fail "same_edges not all 1"
[ "$(column total_weight "$tmp/runs.csv" | sort -u | wc -l)" -eq 1 ] || fail "total weights differ"
[ "$(column dataset "$tmp/runs.csv" | sort -u)" = uniform-3d-3000 ] || fail "default label"
[ "$(column run "$tmp/runs.csv" | sort -u | tr '\n' ' ')" = "1 2 " ] || fail "runs not numbered 1, 2"
# the floor: given exactly for prune none, and below that solve's FindMin1
p=$(colnum prune "$tmp/runs.csv") f1=$(colnum findmin1_ms "$tmp/runs.csv") fl=$(colnum floor_ms "$tmp/runs.csv")
floors=$(awk -F, -v p="$p" -v f1="$f1" -v fl="$fl" 'NR > 1 && $p == "none" && $fl != "" && $fl > 0 && $fl <= $f1' \
    "$tmp/runs.csv" | wc -l)
others=$(awk -F, -v p="$p" -v fl="$fl" 'NR > 1 && $p != "none" && $fl != ""' "$tmp/runs.csv" | wc -l)
# the whole call is the phases and the dark time
call=$(colnum call_ms "$tmp/runs.csv") ph=$(colnum phase_ms "$tmp/runs.csv") dark=$(colnum dark_ms "$tmp/runs.csv")
[ "$(awk -F, -v c="$call" -v p="$ph" -v d="$dark" 'NR > 1 && ($c <= 0 || $p <= 0 || ($c - $p - $d) ^ 2 > 1e-6)' \
    "$tmp/runs.csv" | wc -l)" -eq 0 ] || fail "call_ms is not phase_ms + dark_ms"
[ "$floors" -eq 4 ] && [ "$others" -eq 0 ] || fail "floor_ms: $floors prune-none rows with a floor (4), $others others"
[ "$(grep -c 'x the floor' "$tmp/err")" -eq 6 ] || fail "summary: not 6 lines with the floor: $(cat "$tmp/err")"
# one iteration row per Boruvka iteration of each timed solve
iterations=$(column iterations "$tmp/runs.csv" | awk '{ s += $1 } END { print s }')
[ "$(rows "$tmp/iter.csv")" -eq "$iterations" ] ||
    fail "iterations.csv: $(rows "$tmp/iter.csv") rows, expected $iterations"
it=$(colnum iteration "$tmp/iter.csv") comp=$(colnum components "$tmp/iter.csv")
[ "$(awk -F, -v i="$it" -v c="$comp" 'NR > 1 && $i == 0 { print $c }' "$tmp/iter.csv" | sort -u)" = 3000 ] ||
    fail "iteration 0 does not start with every point its own component"

# a TSPLIB file, named after it; --max-seconds stops after one timed solve
"$bench" "$tsplib/wi29.tsp" --backend cpu --repeat 5 --max-seconds 1e-9 -q -o "$tmp/tsp.csv" 2>"$tmp/err"
status=$?
[ "$status" -eq 0 ] && [ ! -s "$tmp/err" ] || fail "wi29: exit status $status: $(cat "$tmp/err")"
[ "$(rows "$tmp/tsp.csv")" -eq 1 ] || fail "--max-seconds: $(rows "$tmp/tsp.csv") rows, expected 1"
[ "$(column dataset "$tmp/tsp.csv"),$(column n "$tmp/tsp.csv")" = wi29,29 ] || fail "wi29: label or n"

# with a GPU, both backends give the first solve's tree
if "$bench" --generate clustered --n 20000 --backend cpu,cuda --repeat 1 -q -o "$tmp/both.csv" 2>"$tmp/err"; then
    [ "$(column same_edges "$tmp/both.csv" | sort -u)" = 1 ] || fail "cpu and cuda trees differ"
    [ "$(column backend "$tmp/both.csv" | tr '\n' ' ')" = "cpu cuda " ] || fail "backends: not cpu then cuda"
elif ! grep -q "no usable CUDA device" "$tmp/err"; then
    fail "cpu,cuda: $(cat "$tmp/err")"
fi

# expect_usage NAME PATTERN ARGS...: exit status 2, nothing on standard
# output, one line "gridemst-bench: ..." matching PATTERN on standard error.
expect_usage() {
    name=$1 pattern=$2
    shift 2
    "$bench" "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -ne 2 ]; then
        fail "$name: exit status $status, expected 2"
    elif [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -Eq "^gridemst-bench: .*($pattern)" "$tmp/err"; then
        fail "$name: expected one line matching '$pattern', got: $(cat "$tmp/err")"
    elif [ -s "$tmp/out" ]; then
        fail "$name: unexpected standard output"
    fi
}
expect_usage "nns" "--nns: expected .*grid\|bvh.*got 'kd'" --generate uniform --n 100 --nns grid,kd
expect_usage "prune" "--prune: expected .*none\|dynamic\|static.*got 'sometimes'" --generate uniform --n 100 \
    --prune static,sometimes
expect_usage "no n" "--generate needs --n" --generate uniform
expect_usage "unknown option" "unknown option '--fast'" --generate uniform --n 100 --fast
expect_usage "repeat 0" "--repeat: invalid value '0'" --generate uniform --n 100 --repeat 0
expect_usage "missing file" "nothing.tsp" "$tmp/nothing.tsp"
expect_usage "bad output" "cannot write" --generate uniform --n 100 -o "$tmp/no/such/dir.csv"
expect_usage "two inputs" "more than one INPUT" a.tsp b.tsp

# the suite runner: a suite, its summary and README; plots where gnuplot is
if command -v python3 >/dev/null 2>&1; then
    if python3 "$top_srcdir/benchmarks/bench.py" run smoke --backend cpu --out "$tmp/results" --driver "$bench" \
        --repeat 2 2>"$tmp/err"; then
        summary=$tmp/results/smoke/summary.csv
        [ -s "$summary" ] && [ "$(rows "$summary")" -eq 6 ] || fail "smoke: summary.csv: $(cat "$summary")"
        [ "$(column trees_agree "$summary" | sort -u)" = yes ] || fail "smoke: trees do not agree"
        column nns "$summary" | grep -qx bvh || fail "smoke: no BVH run in summary.csv"
        grep -q "| wi29 | 29 |" "$tmp/results/smoke/summary.md" || fail "smoke: summary.md lacks wi29"
    else
        fail "bench.py run smoke: $(tail -n 3 "$tmp/err")"
    fi

    # Peers on the same points files, alternating with the driver: a stand-in
    # that prints a peer's lines with gridemst's tree weight, as ArborX (an
    # option) and as MemoGFK (its variable, which applies to the CPU suites).
    cp "$top_srcdir/tests/peer_standin.sh" "$tmp/peer" && chmod +x "$tmp/peer"
    GRIDEMST=$prog
    export GRIDEMST
    if GRIDEMST_MEMOGFK=$tmp/peer python3 "$top_srcdir/benchmarks/bench.py" run smoke --backend cpu \
        --out "$tmp/peers" --driver "$bench" --repeat 2 --blocks 2 --threads 2 --arborx "$tmp/peer" 2>"$tmp/err"; then
        peers=$tmp/peers/smoke/peers.csv summary=$tmp/peers/smoke/summary.csv
        # 3 sets x 2 peers x 2 blocks x 2 timed solves
        [ "$(rows "$peers")" -eq 24 ] || fail "peers: $(rows "$peers") rows in peers.csv, expected 24"
        [ "$(column peer "$peers" | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" = "12arborx 12memogfk " ] ||
            fail "peers: not 12 rows of each peer"
        [ "$(awk -F, 'NR > 1 { print $4 $9 }' "$peers" | sort -u | tr '\n' ' ')" = "arborx memogfk2 " ] ||
            fail "peers: MemoGFK did not get the driver's 2 threads (and ArborX no threads)"
        [ "$(column arborx_ms "$summary" | sort -u)" = 2.5 ] || fail "peers: ArborX's median is not 2.5 ms"
        [ "$(column arborx_agree "$summary" | sort -u),$(column memogfk_agree "$summary" | sort -u)" = yes,yes ] ||
            fail "peers: a peer's weight does not agree with gridemst's"
        grep -q "| gridemst ms | min | max | ArborX ms | ArborX / gridemst | MemoGFK ms | MemoGFK / gridemst |" \
            "$tmp/peers/smoke/summary.md" ||
            fail "peers: summary.md lacks the peers' columns"
        grep -q '"program": "peer"' "$tmp/peers/meta.json" && grep -q '"version": "ArborX 9.9 (abc123), Kokkos 40601"' \
            "$tmp/peers/meta.json" || fail "peers: meta.json lacks a peer's program or version"
        # per set: its points file, then driver, ArborX, MemoGFK, twice
        order=$(grep '^\$ ' "$tmp/peers/smoke/log.txt" | awk -v bench="$bench" -v peer="$tmp/peer" '
            $2 == bench { printf "D" } $2 == peer { printf($4 == "-r" ? "M" : "A") } / --save-points / { printf "S" }')
        [ "$order" = SDAMDAMSDAMDAMSDAMDAM ] || fail "peers: ran in the order $order"
    else
        fail "bench.py run smoke with peers: $(tail -n 3 "$tmp/err")"
    fi

    # A peer whose weight differs is flagged, and fails the run; ArborX's
    # variable does not apply to the CPU suites.
    PEER_SCALE=1.01 GRIDEMST_ARBORX=$tmp/nothing python3 "$top_srcdir/benchmarks/bench.py" run smoke --backend cpu \
        --out "$tmp/wrong" --driver "$bench" --repeat 1 --memogfk "$tmp/peer" 2>"$tmp/err"
    status=$?
    [ "$status" -eq 1 ] || fail "a peer's wrong weight: exit status $status, expected 1: $(tail -n 3 "$tmp/err")"
    [ "$(column memogfk_agree "$tmp/wrong/smoke/summary.csv" | sort -u)" = NO ] ||
        fail "a peer's wrong weight: not flagged in summary.csv"
    grep -q "MemoGFK weight agrees" "$tmp/wrong/smoke/summary.md" || fail "a peer's wrong weight: not in summary.md"
    if python3 "$top_srcdir/benchmarks/bench.py" run smoke --backend cpu --out "$tmp/none" --driver "$bench" \
        --arborx "$tmp/nothing" 2>"$tmp/err"; then
        fail "a missing peer program: bench.py succeeded"
    else
        grep -q "is not an executable program" "$tmp/err" || fail "a missing peer program: $(cat "$tmp/err")"
    fi
fi

finish
