#!/bin/sh
# A stand-in for a peer program (tests/bench.sh): takes ArborX's arguments
# (FILE [R]) or MemoGFK's (FILE -r R), and prints a peer's lines, with the
# tree's weight from gridemst ($GRIDEMST) times $PEER_SCALE (default 1) and
# the threads it was given (PARLAY_NUM_THREADS) in its first line.
file=$1
shift
[ "$1" = -r ] && shift
repeat=${1:-5}
# shellcheck disable=SC2046
set -- $(od -An -t d4 -N 8 "$file")
weight=$("$GRIDEMST" "$file" --json --backend cpu | sed 's/.*"total_weight": \([^,]*\),.*/\1/' |
    awk -v s="${PEER_SCALE:-1}" '{ printf "%.17g", $1 * s }')
echo "peer_standin: file=$file threads=${PARLAY_NUM_THREADS:-none} ArborX 9.9 (abc123) Kokkos 40601"
i=0
while [ "$i" -lt "$repeat" ]; do
    echo "run $i: 2.5 ms"
    i=$((i + 1))
done
echo "median_ms=2.5 min_ms=2.5 n=$1 dim=$2 edges=$(($1 - 1)) total_weight=$weight"
