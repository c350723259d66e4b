#!/bin/sh
# Friends-of-friends (--fof, --fof-b, --box, --groups) against references
# made otherwise: the labels and tree edges of --cut D on the whole tree, and
# where SciPy is installed the connected components of cKDTree.query_pairs
# (with boxsize in a periodic box) and a group catalogue computed from its
# partition.  tests/testlib.sh says how it is run.

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"

# run ARGS...: runs gridemst; stdout in $tmp/out, stderr in $tmp/err, status in $status.
run() {
    "$prog" "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
}

# ok NAME: the last run succeeded.
ok() {
    [ "$status" -eq 0 ] || fail "$1: exit status $status: $(head -c 300 "$tmp/err")"
}

# usage NAME PATTERN ARGS...: exit status 2 with a message matching PATTERN.
usage() {
    name=$1 pattern=$2
    shift 2
    run "$@"
    [ "$status" -eq 2 ] && grep -Eq "^gridemst: .*($pattern)" "$tmp/err" ||
        fail "$name: expected exit status 2 and '$pattern', got $status: $(cat "$tmp/err")"
}

# The sets, as text files (exact decimal coordinates): generated ones saved
# through the binary format, and small hand-made ones.
points() { # NAME GENERATOR-ARGS...
    name=$1
    shift
    run --generate "$@" -q --save-points "$tmp/$name.bin"
    ok "generate $name"
}
points uniform uniform --n 3000 --dim 3 --seed 3
points blobs blobs --n 4000 --dim 3 --seed 5
points clustered2d clustered --n 3000 --dim 2 --seed 7
# duplicates: a 2D set where every point appears one to four times
awk 'BEGIN { srand(11); for (i = 0; i < 700; i++) { x = int(rand() * 400) / 16; y = int(rand() * 400) / 16;
    k = 1 + int(rand() * 4); for (j = 0; j < k; j++) print x, y } }' >"$tmp/dups.txt"
# a lattice: every nearest pair at exactly distance 1, the linking length
awk 'BEGIN { for (x = 0; x < 12; x++) for (y = 0; y < 12; y++) for (z = 0; z < 3; z++) print x, y, z * 1.5 }' \
    >"$tmp/lattice.txt"
# a periodic lattice: 0 .. 11 along each axis, whose neighbours across the
# faces of a box of 12 are also at exactly 1 (and at 1.5 in a box of 12.5)
awk 'BEGIN { for (x = 0; x < 12; x++) for (y = 0; y < 12; y++) for (z = 0; z < 12; z++) print x, y, z }' \
    >"$tmp/lattice12.txt"
# the faces of the unit box: points at 0, just below 1 and at 1 (which wraps to 0)
awk 'BEGIN { srand(13); for (i = 0; i < 1500; i++) { for (d = 0; d < 3; d++) { r = rand();
    v[d] = r < 0.2 ? 0 : r < 0.4 ? 1 - int(rand() * 64) / 4096 : r < 0.45 ? 1 : int(rand() * 4096) / 4096 }
    print v[0], v[1], v[2] } }' >"$tmp/faces.txt"

# --fof D gives --cut D's labels (same numbering) and the tree's edges <= D.
same_as_cut() { # NAME D ARGS...
    name=$1 d=$2
    shift 2
    run "$@" --fof "$d" --labels "$tmp/fof.labels" -o "$tmp/fof.csv" -q
    ok "$name: --fof $d"
    run "$@" --cut "$d" --labels "$tmp/cut.labels" -o "$tmp/tree.csv" -q
    ok "$name: --cut $d"
    cmp -s "$tmp/fof.labels" "$tmp/cut.labels" || fail "$name: --fof $d and --cut $d label differently"
    awk -F, -v d="$d" '$3 <= d + 0' "$tmp/tree.csv" >"$tmp/tree.cut"
    cmp -s "$tmp/fof.csv" "$tmp/tree.cut" || fail "$name: the forest at $d is not the tree's edges <= $d"
    [ -s "$tmp/fof.labels" ] || fail "$name: no labels written"
}
for precision in float double; do
    same_as_cut "uniform $precision" 0.02 "$tmp/uniform.bin" --precision $precision
    same_as_cut "uniform $precision" 0.05 "$tmp/uniform.bin" --precision $precision
    same_as_cut "blobs $precision" 0.004 "$tmp/blobs.bin" --precision $precision
    same_as_cut "clustered 2D $precision" 0.01 "$tmp/clustered2d.bin" --precision $precision
    same_as_cut "duplicates $precision" 0.1 "$tmp/dups.txt" --precision $precision
    same_as_cut "duplicates $precision" 0 "$tmp/dups.txt" --precision $precision
    same_as_cut "lattice at exactly D $precision" 1 "$tmp/lattice.txt" --precision $precision
done
same_as_cut "uniform, 2 threads, min size" 0.05 "$tmp/uniform.bin" --threads 2 --min-cluster-size 3

# Identical output across thread counts and runs.
for set in uniform.bin blobs.bin faces.txt; do
    box=
    [ "$set" = faces.txt ] && box="--box 1"
    # shellcheck disable=SC2086
    for threads in 1 2 2; do
        run "$tmp/$set" --fof 0.01 $box --threads "$threads" -o "$tmp/f$threads.csv" --labels "$tmp/l$threads.txt" -q
        ok "$set threads $threads"
        cmp -s "$tmp/f1.csv" "$tmp/f$threads.csv" && cmp -s "$tmp/l1.txt" "$tmp/l$threads.txt" ||
            fail "$set: different forest or labels with $threads threads"
    done
done

# JSON and summary.
run "$tmp/uniform.bin" --fof 0.05 --min-cluster-size 2 --json
ok "--fof --json"
tr ',' '\n' <"$tmp/out" | grep -q '"groups": [0-9]' || fail "--json: no groups"
tr ',' '\n' <"$tmp/out" | grep -q '"noise_points": [0-9]' || fail "--json: no noise_points"
run "$tmp/uniform.bin" --fof-b 0.2
ok "--fof-b summary"
grep -q "^friends-of-friends at linking length .*: [0-9]* groups" "$tmp/out" || fail "--fof-b: no summary line"

# Bad usage and bad input.
usage "--box alone" "--box needs --fof" --box 1 "$tmp/uniform.bin"
usage "--groups alone" "--groups needs --fof" --groups "$tmp/g.csv" "$tmp/uniform.bin"
usage "--fof with --cut" "--cut does not apply with --fof" --fof 1 --cut 1 "$tmp/uniform.bin"
usage "--fof with --verify" "--verify does not apply" --fof 1 --verify "$tmp/uniform.bin"
usage "--fof and --fof-b" "either --fof or --fof-b" --fof 1 --fof-b 0.2 "$tmp/uniform.bin"
usage "--fof -1" "--fof: expected a number >= 0" --fof -1 "$tmp/uniform.bin"
usage "--box 0" "--box: expected a number > 0" --fof 0.1 --box 0 "$tmp/uniform.bin"
usage "linking length of half the box" "less than half the periodic box" --fof 0.5 --box 1 "$tmp/uniform.bin"
printf '1 2\n3 2\n' >"$tmp/flat.txt"
usage "--fof-b without volume" "no volume" --fof-b 0.2 "$tmp/flat.txt"
usage "--fof on the cuda backend" "cpu backend only|without CUDA" --fof 0.1 --backend cuda "$tmp/uniform.bin"

# Against SciPy: the partition of cKDTree.query_pairs(D) (boxsize L in a
# periodic box) with connected components, and the group catalogue.
scipy_python=
for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import scipy.spatial, scipy.sparse.csgraph' 2>/dev/null; then
        scipy_python=$py
        break
    fi
done
if [ -z "$scipy_python" ]; then
    echo "note: python3 with SciPy not found, the cKDTree references are skipped"
    finish
fi
cat >"$tmp/ref.py" <<'PY'
import sys
import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree

benchmarks, points_file, d, box, min_size, labels_file, groups_file = sys.argv[1:8]
d, box, min_size = float(d), float(box), int(min_size)
sys.path.insert(0, benchmarks)
from gemstbench.points_file import read_points

if points_file.endswith(".bin"):
    pts = read_points(points_file).astype(np.float64)
else:
    pts = np.loadtxt(points_file, ndmin=2)
n, dim = pts.shape
if box > 0:
    pts = np.mod(pts, box)
tree = cKDTree(pts, boxsize=box if box > 0 else None)
pairs = tree.query_pairs(d, output_type="ndarray")
graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
_, comp = connected_components(graph, directed=False)
ours = np.loadtxt(labels_file, dtype=np.int64, ndmin=1)
sizes = np.bincount(comp)
# the reference's labels, numbered as ours: by each group's first point, small groups -1
want = np.full(n, -1)
first = {}
for i in range(n):
    c = comp[i]
    if sizes[c] >= min_size and c not in first:
        first[c] = len(first)
    want[i] = first.get(c, -1)
assert np.array_equal(ours, want), "labels differ from cKDTree's partition (%d points)" % np.sum(ours != want)
if groups_file == "-":
    sys.exit(0)
# the catalogue: each group unwrapped around its first point; in a periodic
# box only groups that this leaves narrower than a quarter of the box are
# checked (a group may span the whole box, and then has no one centre)
cat = np.loadtxt(groups_file, delimiter=",", skiprows=1, ndmin=2)
assert len(cat) == len(first), "catalogue has %d groups, expected %d" % (len(cat), len(first))
assert np.all(np.diff(cat[:, 1]) <= 0), "catalogue not sorted by size"
checked = 0
for row in cat:
    members = np.flatnonzero(want == int(row[0]))
    assert len(members) == row[1], "group %d: size" % row[0]
    p = pts[members]
    if box > 0:
        p = p[0] + (p - p[0]) - box * np.round((p - p[0]) / box)
    centre = p.mean(axis=0)
    if box > 0:
        centre = np.mod(centre, box)
    extent = p.max(axis=0) - p.min(axis=0)
    if box > 0 and np.any(extent >= box / 4):
        continue
    checked += 1
    assert np.allclose(row[2:2 + dim], centre, rtol=0, atol=1e-9), "group %d: centre %s, expected %s" % (
        row[0], row[2:2 + dim], centre)
    assert np.allclose(row[2 + dim:], extent, rtol=0, atol=1e-9), "group %d: extent" % row[0]
assert checked >= len(cat) // 2, "only %d of %d groups checked" % (checked, len(cat))
PY
against_scipy() { # NAME SET D BOX MIN-SIZE [ARGS...]
    name=$1 set=$2 d=$3 box=$4 min=$5
    shift 5
    boxarg=
    [ "$box" != 0 ] && boxarg="--box $box"
    # shellcheck disable=SC2086
    run "$tmp/$set" --fof "$d" $boxarg --min-cluster-size "$min" --precision double --labels "$tmp/labels.txt" \
        --groups "$tmp/groups.csv" -q "$@"
    ok "$name"
    "$scipy_python" "$tmp/ref.py" "$top_srcdir/benchmarks" "$tmp/$set" "$d" "$box" "$min" "$tmp/labels.txt" \
        "$tmp/groups.csv" >"$tmp/scipy" 2>&1 || fail "$name: disagrees with cKDTree: $(tail -n 2 "$tmp/scipy")"
}
against_scipy "uniform" uniform.bin 0.02 0 1
against_scipy "uniform, min size 2" uniform.bin 0.05 0 2
against_scipy "uniform, periodic" uniform.bin 0.05 1 1
against_scipy "uniform, periodic, 2 threads" uniform.bin 0.08 1 2 --threads 2
against_scipy "blobs" blobs.bin 0.004 0 1
against_scipy "blobs, periodic" blobs.bin 0.01 1 5
against_scipy "clustered 2D" clustered2d.bin 0.01 0 1
against_scipy "clustered 2D, periodic" clustered2d.bin 0.02 1 1
against_scipy "duplicates" dups.txt 0.1 0 1
against_scipy "duplicates, periodic" dups.txt 0.3 25 1
against_scipy "lattice at exactly D" lattice.txt 1 0 1
against_scipy "periodic lattice at exactly D" lattice12.txt 1 12 1
against_scipy "periodic lattice, wider box" lattice12.txt 1 12.5 1
against_scipy "periodic lattice below D" lattice12.txt 0.999 12 1
against_scipy "box faces" faces.txt 0.004 1 1
against_scipy "box faces, wide" faces.txt 0.05 1 1
against_scipy "box faces, float" faces.txt 0.004 1 1 --precision float
finish
