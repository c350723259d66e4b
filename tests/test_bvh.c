/*
 * The BVH (src/bvh/, src/cpu/cpu_bvh.h), double instance: Morton codes
 * against a bit-by-bit interleave, the tree's structure, the labels and
 * bounds against their definitions, and the nearest-foreign query and the
 * CPU's search a leaf at a time (cpu/cpu_bvh_search.h) against a brute
 * force over all points, with gemst_dist2_q for distances (the one formula
 * the solver compares), for every leaf size the solver builds; so are the
 * lists of nearest points of kNN-first, the CPU's and the GPU's
 * (bvh/bvh_knn.h), and their use.  Point sets are sorted by Morton code here
 * (qsort by (code, index)), not by the solver's build.  The whole solver
 * with the BVH is tested against Prim and the grid in test_emst.
 */
#define GEMST_REAL_IS_DOUBLE 1

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "bvh/morton.h"
#include "bvh/bvh_build.h"
#include "bvh/labels.h"
#include "bvh/bvh_query.h"
#include "bvh/bvh_knn.h"
#include "cpu/cpu_bvh.h"
#include "nns/late_bvh.h"

#define INF ((double)INFINITY)

/* ----------------------------------------------------------------- Morton codes */

/* Bit b of axis d's quantised value goes to bit b * dim + d. */
static uint64_t naive_morton(int dim, const uint64_t q[3])
{
    const int bits = dim == 2 ? 32 : 21;
    uint64_t code = 0;
    for (int b = 0; b < bits; b++)
        for (int d = 0; d < dim; d++)
            code |= ((q[d] >> b) & 1) << (b * dim + d);
    return code;
}

START_TEST(test_morton)
{
    /* Quantisation: floor(v 2^bits), the top value for v = 1. */
    REQUIRE(gemst_morton_quantize(0.0, 32) == 0 && gemst_morton_quantize(1.0, 32) == 0xffffffffull &&
                gemst_morton_quantize(0.5, 21) == (1u << 20) && gemst_morton_quantize(1.0 - 0x1p-53, 21) == 0x1fffff &&
                gemst_morton_quantize(0x1p-32, 32) == 1 && gemst_morton_quantize(0x1p-33, 32) == 0,
            "quantisation");
    uint64_t seed = 12345;
    for (int k = 0; k < 100000; k++) {
        int dim = 2 + k % 2, bits = dim == 2 ? 32 : 21;
        double v[3] = {0, 0, 0};
        uint64_t q[3] = {0, 0, 0};
        for (int d = 0; d < dim; d++) {
            v[d] = k < 8 ? (double)((k >> d) & 1) : rng_unit(&seed);
            q[d] = gemst_morton_quantize(v[d], bits);
            REQUIRE(q[d] < ((uint64_t)1 << bits) && (double)q[d] <= v[d] * ldexp(1.0, bits) &&
                        (v[d] == 1.0 || v[d] * ldexp(1.0, bits) < (double)q[d] + 1),
                    "quantize(%.17g, %d) = %llu", v[d], bits, (unsigned long long)q[d]);
        }
        uint64_t got = gemst_morton(dim, v[0], v[1], v[2]), want = naive_morton(dim, q);
        REQUIRE(got == want, "%dD (%.17g, %.17g, %.17g): %016llx, interleaved %016llx", dim, v[0], v[1], v[2],
                (unsigned long long)got, (unsigned long long)want);
    }
}
END_TEST

/* ----------------------------------------------------------------- point sets in Morton order */

typedef struct {
    char name[64];
    int dim;
    uint32_t n;
    double *x, *y, *z;
    uint32_t *oid;
    uint64_t *code;
    uint32_t leaf;        /* points per leaf */
    int leaf_size_index;  /* the size asked for: leaf_sizes[leaf_size_index] */
    gemst_grid g; /* the point view the BVH functions read */
} tset;

/* The leaf sizes a set is tried with: single points (the GPU's, and the
 * CPU's late BVH for mutual reachability), 3 (a size that divides no set
 * evenly), the late BVH's (nns/late_bvh.h) and the CPU's nns BVH's. */
static const uint32_t leaf_sizes[] = {1, 3, GEMST_LATE_BVH_LEAF, GEMST_CPU_BVH_LEAF};
#define L_COUNT ((int)(sizeof leaf_sizes / sizeof leaf_sizes[0]))

typedef enum {
    T_UNIFORM_2D,
    T_UNIFORM_3D,
    T_SAME_CODE_3D,  /* every point within 2^-22 of the centre: one code, distinct points */
    T_MIXED_2D,      /* half uniform, half within 2^-34 of the origin (equal codes in runs) */
    T_LATTICE_3D,    /* a 10 x 10 x 10 lattice: equal coordinates on every axis */
    T_TWO,           /* n = 2 */
    T_THREE_SAME,    /* n = 3, one code */
    T_CURVE_3D,      /* within 10^-3 of a helix: a curve, where the CPU searches its BVH */
    T_COUNT
} tset_kind;

static const uint64_t *sort_codes; /* qsort's context */

static int cmp_by_code(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (sort_codes[a] != sort_codes[b])
        return sort_codes[a] < sort_codes[b] ? -1 : 1;
    return (a > b) - (a < b);
}

/* A set of its kind's points, n of them (0: the kind's own count). */
static tset make_tset_n(tset_kind kind, int layout, uint32_t points)
{
    static const char *names[] = {"uniform 2D", "uniform 3D", "one code 3D", "mixed 2D", "lattice 3D", "two points",
                                  "three points, one code", "helix 3D"};
    static const uint32_t sizes[] = {3000, 3000, 500, 2000, 1000, 2, 3, 2000};
    tset t;
    memset(&t, 0, sizeof t);
    snprintf(t.name, sizeof t.name, "%s", names[kind]);
    t.n = points ? points : sizes[kind];
    t.dim = kind == T_UNIFORM_2D || kind == T_MIXED_2D || kind == T_TWO ? 2 : 3;
    const uint32_t n = t.n;
    double *c = xcalloc((size_t)n * 3, sizeof *c);
    uint64_t seed = 777 + (uint64_t)kind, *code = xcalloc(n, sizeof *code);
    for (uint32_t i = 0; i < n; i++) {
        double *p = &c[3 * i];
        if (kind == T_CURVE_3D) { /* four turns of radius 0.4, rising by 1 */
            const double turns = 4, a = 2 * turns * 3.14159265358979323846 * rng_unit(&seed);
            p[0] = 0.5 + 0.4 * cos(a) + 1e-3 * rng_unit(&seed);
            p[1] = 0.5 + 0.4 * sin(a) + 1e-3 * rng_unit(&seed);
            p[2] = a / (2 * turns * 3.14159265358979323846) + 1e-3 * rng_unit(&seed);
        }
        for (int d = 0; d < t.dim && kind != T_CURVE_3D; d++) {
            double u = rng_unit(&seed);
            switch (kind) {
            case T_SAME_CODE_3D: p[d] = 0.5 + ldexp(u, -22); break;
            case T_THREE_SAME: p[d] = 0.25 + ldexp((double)((i + d) % 3), -30); break;
            case T_MIXED_2D: p[d] = i % 2 ? ldexp(u, -34) : u; break;
            case T_LATTICE_3D: p[d] = (double)(i / (d == 0 ? 1 : d == 1 ? 10 : 100) % 10) / 9.0; break;
            default: p[d] = u; break;
            }
        }
        code[i] = gemst_morton(t.dim, p[0], p[1], p[2]);
    }
    uint32_t *order = xcalloc(n, sizeof *order);
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    sort_codes = code;
    qsort(order, n, sizeof *order, cmp_by_code);
    t.x = xcalloc(n, sizeof *t.x);
    t.y = xcalloc(n, sizeof *t.y);
    t.z = t.dim == 3 ? xcalloc(n, sizeof *t.z) : NULL;
    t.oid = xcalloc(n, sizeof *t.oid);
    t.code = xcalloc(n, sizeof *t.code);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t i = order[j];
        t.x[j] = c[3 * i];
        t.y[j] = c[3 * i + 1];
        if (t.z)
            t.z[j] = c[3 * i + 2];
        t.oid[j] = i;
        t.code[j] = code[i];
    }
    /* the build's: no more than fill two leaves */
    t.leaf_size_index = layout;
    t.leaf = leaf_sizes[layout] < n / 2 + n % 2 ? leaf_sizes[layout] : n / 2 + n % 2;
    t.g.dim = t.dim;
    t.g.n = n;
    t.g.x = t.x;
    t.g.y = t.y;
    t.g.z = t.z;
    t.g.oid = t.oid;
    free(c);
    free(code);
    free(order);
    return t;
}

static tset make_tset(tset_kind kind, int layout)
{
    return make_tset_n(kind, layout, 0);
}

static void free_tset(tset *t)
{
    free(t->x);
    free(t->y);
    free(t->z);
    free(t->oid);
    free(t->code);
}

/* The points [*first, *end) of leaves first .. last. */
static void leaf_positions(const tset *t, uint32_t first, uint32_t last, uint32_t *b, uint32_t *e)
{
    *b = first * t->leaf;
    *e = (last + 1) * t->leaf < t->n ? (last + 1) * t->leaf : t->n;
}

/* The tree of t's points: over the Morton order, or with kd over the
 * points rearranged in K-d order (cpu_bvh_kd.inc; t's arrays follow). */
static void build_ok(tset *t, int threads, int kd, gemst_cpu_bvh *tree)
{
    gridemst_error err = {0};
    uint64_t *code = xcalloc(t->n, sizeof *code); /* the build overwrites them */
    memcpy(code, t->code, sizeof *code * t->n);
    const uint32_t leaf = leaf_sizes[t->leaf_size_index];
    const gemst_cpu_point_arrays arrays = {t->x, t->y, t->z, t->oid};
    REQUIRE((kd ? GEMST_FN(gemst_cpu_bvh_build_kd)(&t->g, arrays, leaf, threads, tree, &err)
                : GEMST_FN(gemst_cpu_bvh_build)(&t->g, code, leaf, threads, tree, &err)) == GRIDEMST_OK,
            "%s: %s", t->name, err.message);
    REQUIRE(tree->bvh.leaf_size == t->leaf, "%s: leaves of %u points, %u expected", t->name, tree->bvh.leaf_size,
            t->leaf);
    free(code);
}

static double coord(const tset *t, uint32_t j, int d)
{
    return d == 0 ? t->x[j] : d == 1 ? t->y[j] : t->z[j];
}

/* ----------------------------------------------------------------- structure */

/*
 * From the root, every node is reached exactly once (so every leaf once),
 * each child's parent link names the node it was reached from, the
 * children's leaf ranges split the node's range in two at its split, each
 * child named by the record's split and leaf flags is the leaf or the
 * internal node of its part of the range (from the range ends), paths
 * are at most GEMST_BVH_MAX_DEPTH internal nodes long, and each box is the
 * exact bounding box of its leaves' points, hence contains its children's
 * boxes.
 */
static void check_structure(const tset *tp, const gemst_cpu_bvh *treep)
{
    const tset t = *tp;
    const gemst_cpu_bvh tree = *treep;
    const uint32_t n = (t.n + t.leaf - 1) / t.leaf, nodes = 2 * n - 1;
    const gemst_bvh b = tree.bvh;
    REQUIRE(b.n == n && b.points == t.n && b.dim == t.dim && b.parent[0] == GEMST_NONE, "%s: header", t.name);
    REQUIRE(sizeof *b.node == 64 && (uintptr_t)b.node % 16 == 0, "%s: records of %zu bytes at %p", t.name,
            sizeof *b.node, (void *)b.node);
    uint32_t *seen = xcalloc(nodes, sizeof *seen), *depth = xcalloc(nodes, sizeof *depth);
    uint32_t *stack = xcalloc(nodes, sizeof *stack), top = 0;
    stack[top++] = 0;
    seen[0] = 1;
    while (top > 0) {
        uint32_t i = stack[--top], child[2], first, last;
        REQUIRE(!gemst_bvh_is_leaf(n, i), "%s: internal node expected", t.name);
        const gemst_bvh_node *nd = &b.node[i];
        const uint32_t split = gemst_bvh_split(nd->split_flags);
        gemst_bvh_range(b.end, i, &first, &last);
        REQUIRE(first <= split && split < last && last < n, "%s: node %u covers [%u, %u], split %u", t.name, i,
                first, last, split);
        REQUIRE(depth[i] < GEMST_BVH_MAX_DEPTH, "%s: node %u at depth %u", t.name, i, depth[i]);
        GEMST_FN(gemst_bvh_children)(n, b.node, i, child);
        for (int k = 0; k < 2; k++) {
            uint32_t id = child[k], cf = k == 0 ? first : split + 1, cl = k == 0 ? split : last;
            REQUIRE(id < nodes && seen[id] == 0, "%s: node %u reached twice (or out of range)", t.name, id);
            seen[id] = 1;
            depth[id] = depth[i] + 1;
            REQUIRE(b.parent[id] == i, "%s: parent of %u is %u, reached from %u", t.name, id, b.parent[id], i);
            if (gemst_bvh_is_leaf(n, id)) {
                REQUIRE(cf == cl && id - (n - 1) == cf, "%s: leaf %u for range [%u, %u]", t.name, id, cf, cl);
                continue;
            }
            uint32_t f2, l2;
            gemst_bvh_range(b.end, id, &f2, &l2);
            REQUIRE(f2 == cf && l2 == cl, "%s: node %u covers [%u, %u], its part of %u is [%u, %u]", t.name, id, f2,
                    l2, i, cf, cl);
            stack[top++] = id;
        }
        /* The box: exact over the leaves' points, and around each child's box. */
        /* The fit's arrival counts gone: no label names a component before the first labelling. */
        REQUIRE(nd->label == GEMST_NONE, "%s: node %u labelled %u after the build", t.name, i, nd->label);
        const double *lo = nd->lo, *hi = nd->hi;
        double clo[2][3], chi[2][3];
        uint32_t kb, ke;
        leaf_positions(&t, first, last, &kb, &ke);
        GEMST_FN(gemst_bvh_box)(&b, &t.g, child[0], clo[0], chi[0]);
        GEMST_FN(gemst_bvh_box)(&b, &t.g, child[1], clo[1], chi[1]);
        for (int d = 0; d < t.dim; d++) {
            double mn = INF, mx = -INF;
            for (uint32_t k = kb; k < ke; k++) {
                mn = fmin(mn, coord(&t, k, d));
                mx = fmax(mx, coord(&t, k, d));
            }
            REQUIRE(lo[d] == mn && hi[d] == mx, "%s: node %u axis %d box [%g, %g], leaves [%g, %g]", t.name, i, d,
                    lo[d], hi[d], mn, mx);
            for (int k = 0; k < 2; k++)
                REQUIRE(clo[k][d] >= lo[d] && chi[k][d] <= hi[d] && clo[k][d] <= chi[k][d],
                        "%s: child %u of %u sticks out on axis %d", t.name, child[k], i, d);
        }
    }
    for (uint32_t id = 0; id < nodes; id++)
        REQUIRE(seen[id] == 1, "%s: node %u never reached", t.name, id);
    /* The CPU's leaf records: each leaf's exact box. */
    for (uint32_t j = 0; j < n; j++) {
        uint32_t kb, ke;
        leaf_positions(&t, j, j, &kb, &ke);
        for (int d = 0; d < t.dim; d++) {
            double mn = INF, mx = -INF;
            for (uint32_t k = kb; k < ke; k++) {
                mn = fmin(mn, coord(&t, k, d));
                mx = fmax(mx, coord(&t, k, d));
            }
            REQUIRE(tree.leaf[j].lo[d] == mn && tree.leaf[j].hi[d] == mx,
                    "%s: leaf %u axis %d box [%g, %g], points [%g, %g]", t.name, j, d, tree.leaf[j].lo[d],
                    tree.leaf[j].hi[d], mn, mx);
        }
    }
    free(seen);
    free(depth);
    free(stack);
}

/* Builds set t's tree (K-d when kd) on `threads` threads, checks it as
 * above and frees both. */
static void check_built(tset *t, int threads, int kd)
{
    gemst_cpu_bvh tree;
    build_ok(t, threads, kd, &tree);
    check_structure(t, &tree);
    GEMST_FN(gemst_cpu_bvh_free)(&tree);
    free_tset(t);
}

START_TEST(test_structure)
{
    tset t = make_tset((tset_kind)(_i / 2 % T_COUNT), _i / (2 * T_COUNT));
    check_built(&t, 1 + _i % 2, 0);
}
END_TEST

/*
 * The K-d build (cpu_bvh_kd.inc): the points rearranged, each with its own
 * coordinates and id; the tree well formed as above; each internal node's
 * children apart along one axis, the left no greater than the right (so
 * that on points without ties no two leaves' boxes overlap); and no
 * deeper than a halving of the leaves gives.
 */
START_TEST(test_kd_structure)
{
    tset t = make_tset((tset_kind)(_i / 2 % T_COUNT), _i / (2 * T_COUNT));
    const uint32_t m = t.n;
    double *given = xcalloc((size_t)m * 3, sizeof *given); /* by caller id */
    for (uint32_t j = 0; j < m; j++)
        for (int d = 0; d < t.dim; d++)
            given[3 * (size_t)t.oid[j] + d] = coord(&t, j, d);
    gemst_cpu_bvh tree;
    build_ok(&t, 1 + _i % 2, 1, &tree);
    uint8_t *placed = xcalloc(m, 1);
    for (uint32_t j = 0; j < m; j++) {
        const uint32_t id = t.oid[j];
        REQUIRE(id < m && !placed[id], "%s: id %u at %u twice or out of range", t.name, id, j);
        placed[id] = 1;
        for (int d = 0; d < t.dim; d++)
            REQUIRE(coord(&t, j, d) == given[3 * (size_t)id + d], "%s: point %u moved without its coordinates",
                    t.name, id);
    }
    check_structure(&t, &tree);
    const gemst_bvh *b = &tree.bvh;
    int deepest = 0;
    for (uint32_t j = 0; j < b->n; j++) {
        int depth = 0;
        for (uint32_t k = b->parent[gemst_bvh_leaf_id(b->n, j)]; k != GEMST_NONE; k = b->parent[k])
            depth++;
        deepest = depth > deepest ? depth : deepest;
    }
    int halvings = 0;
    while ((1u << halvings) < b->n)
        halvings++;
    REQUIRE(deepest == halvings, "%s: %u leaves %d deep", t.name, b->n, deepest);
    for (uint32_t i = 0; i + 1 < b->n; i++) {
        uint32_t child[2];
        double lo[2][3], hi[2][3];
        GEMST_FN(gemst_bvh_children)(b->n, b->node, i, child);
        for (int k = 0; k < 2; k++)
            GEMST_FN(gemst_bvh_box)(b, &t.g, child[k], lo[k], hi[k]);
        int apart = 0;
        for (int d = 0; d < t.dim; d++)
            apart |= hi[0][d] <= lo[1][d];
        REQUIRE(apart, "%s: node %u's children overlap on every axis", t.name, i);
    }
    const int no_ties = t.n > 3 && (_i / 2 % T_COUNT == T_UNIFORM_2D || _i / 2 % T_COUNT == T_UNIFORM_3D ||
                                    _i / 2 % T_COUNT == T_CURVE_3D);
    for (uint32_t j = 0; no_ties && j < b->n; j++)
        for (uint32_t k = j + 1; k < b->n; k++) {
            int apart = 0;
            for (int d = 0; d < t.dim; d++)
                apart |= tree.leaf[j].hi[d] < tree.leaf[k].lo[d] || tree.leaf[k].hi[d] < tree.leaf[j].lo[d];
            REQUIRE(apart, "%s: leaves %u and %u overlap", t.name, j, k);
        }
    free(given);
    free(placed);
    GEMST_FN(gemst_cpu_bvh_free)(&tree);
    free_tset(&t);
}
END_TEST

/* The K-d build of sets large enough for its parallel splits (tasks over
 * ranges of more than CPU_KD_TASK_POINTS points), on 1 and 2 threads: a
 * well-formed tree, each node's box exact. */
START_TEST(test_kd_large)
{
    const tset_kind kinds[] = {T_UNIFORM_3D, T_MIXED_2D, T_LATTICE_3D};
    tset t = make_tset_n(kinds[_i / 2], L_COUNT - 1, 200000);
    check_built(&t, 1 + _i % 2, 1);
}
END_TEST

/*
 * Trees too large to build here: the leaf size keeps the leaves within
 * GEMST_BVH_MAX_LEAVES, and is the least that does; and the record's split
 * and leaf flags give the children of the largest ranges and splits such a
 * tree can have: the leaf of a one-leaf part, else the internal node with
 * the index of the part's end next to the split.
 */
START_TEST(test_large_trees)
{
    const uint64_t max = (uint64_t)1 << 30;
    const uint32_t points[] = {2, 3, 1000, (uint32_t)max - 1, (uint32_t)max, (uint32_t)max + 1, (uint32_t)(2 * max),
                               (uint32_t)(3 * max), (uint32_t)(3 * max) + 1, UINT32_MAX - 1};
    const uint32_t wanted[] = {1, 2, 3, 4, 16};
    for (size_t a = 0; a < sizeof points / sizeof points[0]; a++)
        for (size_t w = 0; w < sizeof wanted / sizeof wanted[0]; w++) {
            const uint64_t p = points[a], leaf = gemst_bvh_leaf_size(points[a], wanted[w]);
            const uint64_t leaves = (p + leaf - 1) / leaf;
            REQUIRE(leaf >= wanted[w] && leaves <= max && leaves == gemst_bvh_leaves(points[a], (uint32_t)leaf) &&
                        (leaf == wanted[w] || (p + leaf - 2) / (leaf - 1) > max),
                    "%llu points, leaves of %u asked: %llu points each, %llu leaves", (unsigned long long)p,
                    wanted[w], (unsigned long long)leaf, (unsigned long long)leaves);
        }
    const uint32_t n = (uint32_t)max;
    uint64_t seed = 4321;
    for (int k = 0; k < 100000; k++) {
        /* a range [first, last] of at least two leaves and its split s: at
           the top of the index space, then random (short ones often) */
        const uint32_t top[4][3] = {{n - 2, n - 1, n - 2}, {0, n - 1, 0}, {0, n - 1, n - 2}, {1, n - 1, n - 3}};
        uint32_t first, last, s;
        if (k < 4) {
            first = top[k][0];
            last = top[k][1];
            s = top[k][2];
        } else {
            first = (uint32_t)rng_below(&seed, n - 1);
            const uint32_t room = n - 1 - first;
            last = first + 1 + (uint32_t)rng_below(&seed, k % 3 && room > 2 ? 2 : room);
            s = first + (uint32_t)rng_below(&seed, last - first);
        }
        const uint32_t want[2] = {s == first ? n - 1 + s : s, s + 1 == last ? n + s : s + 1};
        uint32_t child[2];
        const uint32_t split_flags = gemst_bvh_pack_split(s, first, last);
        gemst_bvh_split_children(n, split_flags, child);
        REQUIRE(gemst_bvh_split(split_flags) == s && child[0] == want[0] && child[1] == want[1],
                "range [%u, %u] split at %u: children %u, %u, expected %u, %u", first, last, s, child[0], child[1],
                want[0], want[1]);
    }
}
END_TEST

/* ----------------------------------------------------------------- labels and bounds */

typedef enum { C_SINGLETONS, C_ONE, C_RUNS, C_RANDOM, C_HALVES, C_COUNT } comp_kind;

/* Components: comp[j] is a root, a point with comp[root] = root; roots
 * listed in roots[0 .. *n_roots). */
static void make_comps(comp_kind kind, uint32_t n, uint64_t seed, uint32_t *comp, uint32_t *roots, uint32_t *n_roots)
{
    uint32_t k = 1 + (uint32_t)rng_below(&seed, n < 12 ? n : 12), run_root = 0;
    for (uint32_t j = 0; j < n; j++) {
        switch (kind) {
        case C_SINGLETONS: comp[j] = j; break;
        case C_ONE: comp[j] = 0; break;
        case C_RUNS: /* Morton runs of random length: whole subtrees share labels */
            if (j == 0 || rng_below(&seed, 40) == 0)
                run_root = j;
            comp[j] = run_root;
            break;
        case C_RANDOM: comp[j] = (uint32_t)rng_below(&seed, k); break; /* roots 0 .. k - 1 */
        default: comp[j] = j < n / 2 ? 0 : n / 2; break;
        }
    }
    if (kind == C_RANDOM)
        for (uint32_t r = 0; r < k; r++)
            comp[r] = r;
    *n_roots = 0;
    for (uint32_t j = 0; j < n; j++)
        if (comp[j] == j)
            roots[(*n_roots)++] = j;
}

/* Every internal node's label is its leaves' common component or none, and
 * each root's bound is the shortest edge between Morton neighbours of its
 * component and another (infinity when it has none). */
START_TEST(test_labels)
{
    const int i = _i % (T_COUNT * C_COUNT * L_COUNT), kd = _i / (T_COUNT * C_COUNT * L_COUNT);
    tset t = make_tset((tset_kind)(i / C_COUNT % T_COUNT), i / (C_COUNT * T_COUNT));
    const comp_kind ck = (comp_kind)(i % C_COUNT);
    const uint32_t n = t.n;
    gemst_cpu_bvh tree;
    build_ok(&t, 2, kd, &tree);
    const gemst_bvh b = tree.bvh;
    uint32_t *comp = xcalloc(n, sizeof *comp), *roots = xcalloc(n, sizeof *roots), n_roots;
    uint32_t *brk = xcalloc(n, sizeof *brk);
    gemst_word1 *ub = xcalloc(n, sizeof *ub);
    make_comps(ck, n, 99 + (uint64_t)i, comp, roots, &n_roots);
    GEMST_FN(gemst_cpu_bvh_labels)(&tree, &t.g, comp, roots, n_roots, brk, ub, 2);
    for (uint32_t i = 0; i + 1 < b.n; i++) {
        uint32_t first, last, kb, ke, want;
        gemst_bvh_range(b.end, i, &first, &last);
        leaf_positions(&t, first, last, &kb, &ke);
        want = comp[kb];
        for (uint32_t k = kb; k < ke; k++)
            if (comp[k] != comp[kb])
                want = GEMST_NONE;
        REQUIRE(b.node[i].label == want, "%s, comps %d: node %u over [%u, %u] labelled %u, leaves say %u", t.name,
                (int)ck, i, first, last, b.node[i].label, want);
    }
    for (uint32_t j = 0; j < b.n; j++) {
        uint32_t kb, ke, want;
        leaf_positions(&t, j, j, &kb, &ke);
        want = comp[kb];
        for (uint32_t k = kb; k < ke; k++)
            if (comp[k] != comp[kb])
                want = GEMST_NONE;
        REQUIRE(tree.leaf[j].label == want, "%s, comps %d: leaf %u labelled %u, its points say %u", t.name, (int)ck,
                j, tree.leaf[j].label, want);
    }
    for (uint32_t k = 0; k < n_roots; k++) {
        uint32_t r = roots[k];
        double want = INF;
        for (uint32_t k = 0; k + 1 < n; k++) {
            if ((comp[k] == r) != (comp[k + 1] == r))
                want = fmin(want, GEMST_FN(gemst_dist2)(&t.g, k, k + 1));
        }
        REQUIRE(gemst_edge_word1_value(ub[r]) == want, "%s, comps %d: root %u bound %.17g, neighbours %.17g", t.name,
                (int)ck, r, gemst_edge_word1_value(ub[r]), want);
    }
    free(comp);
    free(roots);
    free(brk);
    free(ub);
    GEMST_FN(gemst_cpu_bvh_free)(&tree);
    free_tset(&t);
}
END_TEST

/* ----------------------------------------------------------------- the query */

/* The nearest foreign point of q by brute force, in edge order, and its
 * squared distance (GEMST_NONE, infinity when there is none). */
static uint32_t brute_nearest(const tset *t, const uint32_t *comp, uint32_t q, double *d2)
{
    gemst_query qq;
    gemst_edge_key best = gemst_edge_none();
    uint32_t to = GEMST_NONE;
    GEMST_FN(gemst_query_point)(&t->g, q, &qq);
    for (uint32_t p = 0; p < t->n; p++) {
        if (comp[p] == comp[q])
            continue;
        gemst_edge_key e = gemst_edge_make(GEMST_FN(gemst_dist2_q)(&t->g, &qq, p), t->oid[q], t->oid[p]);
        if (gemst_edge_less(e, best)) {
            best = e;
            to = p;
        }
    }
    *d2 = best.d2;
    return to;
}

/*
 * For every point and component pattern: without a radius the query finds
 * the brute-force nearest foreign point; with a radius it finds it exactly
 * when it lies within (ties included), and otherwise returns a bound that
 * exceeds the radius (or is infinity: nothing passed over) and no foreign
 * point beats.  The radii tried are the
 * nearest distance itself (a tie), and just below and above it.
 */
START_TEST(test_query)
{
    tset t = make_tset((tset_kind)(_i / C_COUNT % T_COUNT), _i / (C_COUNT * T_COUNT));
    const comp_kind ck = (comp_kind)(_i % C_COUNT);
    const uint32_t n = t.n;
    gemst_cpu_bvh tree;
    build_ok(&t, 1, 0, &tree);
    const gemst_bvh b = tree.bvh;
    uint32_t *comp = xcalloc(n, sizeof *comp), *roots = xcalloc(n, sizeof *roots), n_roots;
    uint32_t *brk = xcalloc(n, sizeof *brk);
    gemst_word1 *ub = xcalloc(n, sizeof *ub);
    make_comps(ck, n, 7 + (uint64_t)_i, comp, roots, &n_roots);
    GEMST_FN(gemst_cpu_bvh_labels)(&tree, &t.g, comp, roots, n_roots, brk, ub, 1);
    for (uint32_t q = 0; q < n; q++) {
        double want_d2;
        uint32_t want = brute_nearest(&t, comp, q, &want_d2);
        gemst_query qq;
        GEMST_FN(gemst_query_point)(&t.g, q, &qq);
        double radii[4] = {INF, want_d2, nextafter(want_d2, 0.0), nextafter(want_d2, INF)};
        for (int k = 0; k < 4; k++) {
            gemst_edge_key best = gemst_edge_none();
            uint32_t to = GEMST_NONE;
            double beyond = GEMST_FN(gemst_bvh_nearest_foreign)(&b, &t.g, comp, &qq, comp[q], radii[k], &best, &to);
            int within = want != GEMST_NONE && want_d2 <= radii[k];
            REQUIRE(to == (within ? want : GEMST_NONE) && (!within || best.d2 == want_d2),
                    "%s, comps %d: point %u, radius %.17g: found %u at %.17g, brute force %u at %.17g", t.name,
                    (int)ck, q, radii[k], to, best.d2, want, want_d2);
            REQUIRE(within || ((beyond > radii[k] || beyond == INF) && beyond <= want_d2),
                    "%s, comps %d: point %u, radius %.17g: bound %.17g, nearest foreign at %.17g", t.name, (int)ck, q,
                    radii[k], beyond, want_d2);
        }
    }
    free(comp);
    free(roots);
    free(brk);
    free(ub);
    GEMST_FN(gemst_cpu_bvh_free)(&tree);
    free_tset(&t);
}
END_TEST

/*
 * The CPU's FindMin1 a leaf at a time (gemst_cpu_bvh_findmin1_leaf), every
 * leaf in turn, with each component's bound from the labels' Morton
 * neighbours (and, in a second round, infinite): a point whose search may
 * reach its brute-force nearest foreign point (no farther than its
 * component's bound after all searches, which only lower it) finds it,
 * ties in edge order included; a point that finds nothing keeps a lower
 * bound on that distance; every component's shortest outgoing edge is
 * found; and the bounds end at the components' shortest edges found.
 */
START_TEST(test_leaf_search)
{
    const int i = _i % (T_COUNT * C_COUNT * L_COUNT), kd = _i / (T_COUNT * C_COUNT * L_COUNT);
    tset t = make_tset((tset_kind)(i / C_COUNT % T_COUNT), i / (C_COUNT * T_COUNT));
    const comp_kind ck = (comp_kind)(i % C_COUNT);
    const uint32_t n = t.n;
    gemst_cpu_bvh tree;
    build_ok(&t, 1, kd, &tree);
    uint32_t *comp = xcalloc(n, sizeof *comp), *roots = xcalloc(n, sizeof *roots), n_roots;
    uint32_t *brk = xcalloc(n, sizeof *brk), *best_to = xcalloc(n, sizeof *best_to), *want = xcalloc(n, sizeof *want);
    double *best_d2 = xcalloc(n, sizeof *best_d2), *want_d2 = xcalloc(n, sizeof *want_d2);
    gemst_word1 *ub = xcalloc(n, sizeof *ub);
    make_comps(ck, n, 31 + (uint64_t)i, comp, roots, &n_roots);
    for (uint32_t q = 0; q < n; q++)
        want[q] = brute_nearest(&t, comp, q, &want_d2[q]);
    for (int round = 0; round < 2; round++) {
        GEMST_FN(gemst_cpu_bvh_labels)(&tree, &t.g, comp, roots, n_roots, brk, ub, 1);
        for (uint32_t k = 0; round == 1 && k < n_roots; k++)
            ub[roots[k]] = gemst_edge_word1(INF);
        for (uint32_t q = 0; q < n; q++) {
            best_to[q] = GEMST_NONE;
            best_d2[q] = 0;
        }
        for (uint32_t j = 0; j < tree.bvh.n; j++)
            GEMST_FN(gemst_cpu_bvh_findmin1_leaf)(&tree.bvh, tree.leaf, &t.g, comp, ub, best_d2, best_to, NULL, j);
        for (uint32_t q = 0; q < n; q++) {
            const double bound = gemst_edge_word1_value(ub[comp[q]]);
            if (best_to[q] != GEMST_NONE)
                REQUIRE(best_to[q] == want[q] && best_d2[q] == want_d2[q],
                        "%s, comps %d, round %d: point %u found %u at %.17g, brute force %u at %.17g", t.name,
                        (int)ck, round, q, best_to[q], best_d2[q], want[q], want_d2[q]);
            else
                REQUIRE((want[q] == GEMST_NONE || want_d2[q] > bound) && best_d2[q] <= want_d2[q],
                        "%s, comps %d, round %d: point %u found nothing (bound %.17g, lower bound %.17g), brute "
                        "force %u at %.17g",
                        t.name, (int)ck, round, q, bound, best_d2[q], want[q], want_d2[q]);
        }
        for (uint32_t k = 0; k < n_roots; k++) {
            const uint32_t r = roots[k];
            double shortest = INF, found = INF;
            for (uint32_t q = 0; q < n; q++)
                if (comp[q] == r) {
                    shortest = fmin(shortest, want_d2[q]);
                    found = best_to[q] != GEMST_NONE ? fmin(found, best_d2[q]) : found;
                }
            REQUIRE(found == shortest && gemst_edge_word1_value(ub[r]) <= shortest,
                    "%s, comps %d, round %d: root %u: shortest edge %.17g, found %.17g, bound %.17g", t.name,
                    (int)ck, round, r, shortest, found, gemst_edge_word1_value(ub[r]));
        }
    }
    free(comp);
    free(roots);
    free(brk);
    free(best_to);
    free(want);
    free(best_d2);
    free(want_d2);
    free(ub);
    GEMST_FN(gemst_cpu_bvh_free)(&tree);
    free_tset(&t);
}
END_TEST

/* ----------------------------------------------------------------- kNN-first */

/* Whether point a precedes point b from point q: by squared distance, then
 * caller id. */
static int before_from(const tset *t, uint32_t q, uint32_t a, uint32_t b)
{
    if (b == GEMST_NONE)
        return 1;
    const double da = GEMST_FN(gemst_dist2)(&t->g, q, a), db = GEMST_FN(gemst_dist2)(&t->g, q, b);
    return da < db || (da == db && t->oid[a] < t->oid[b]);
}

/* The K first other points from q in that order, by brute force. */
static void brute_knn(const tset *t, uint32_t q, int K, uint32_t *out)
{
    for (int e = 0; e < K; e++)
        out[e] = GEMST_NONE;
    for (uint32_t p = 0; p < t->n; p++) {
        if (p == q || !before_from(t, q, p, out[K - 1]))
            continue;
        int e = K - 1;
        for (; e > 0 && before_from(t, q, p, out[e - 1]); e--)
            out[e] = out[e - 1];
        out[e] = p;
    }
}

/* One FindMin1 pass a leaf at a time with kNN-first's lists, checked as in
 * test_leaf_search against the brute force; counts the points whose list
 * gave their edge and those whose list ran out. */
static void knn_first_pass(const tset *t, gemst_cpu_bvh *tree, const gemst_cpu_knn_first *kf, const uint32_t *comp,
                           const uint32_t *roots, uint32_t n_roots, int infinite_bounds, const char *what,
                           uint32_t *from_list, uint32_t *ran_out)
{
    const uint32_t n = t->n;
    uint32_t *brk = xcalloc(n, sizeof *brk), *best_to = xcalloc(n, sizeof *best_to);
    double *best_d2 = xcalloc(n, sizeof *best_d2);
    gemst_word1 *ub = xcalloc(n, sizeof *ub);
    uint8_t *at_before = xcalloc(n, 1);
    GEMST_FN(gemst_cpu_bvh_labels)(tree, &t->g, comp, roots, n_roots, brk, ub, 1);
    for (uint32_t k = 0; infinite_bounds && k < n_roots; k++)
        ub[roots[k]] = gemst_edge_word1(INF);
    for (uint32_t q = 0; q < n; q++) {
        best_to[q] = GEMST_NONE;
        best_d2[q] = 0;
        at_before[q] = kf->at[q];
    }
    for (uint32_t j = 0; j < tree->bvh.n; j++)
        GEMST_FN(gemst_cpu_bvh_findmin1_leaf)(&tree->bvh, tree->leaf, &t->g, comp, ub, best_d2, best_to, kf, j);
    for (uint32_t q = 0; q < n; q++) {
        double want_d2;
        const uint32_t want = brute_nearest(t, comp, q, &want_d2);
        const double bound = gemst_edge_word1_value(ub[comp[q]]);
        if (best_to[q] != GEMST_NONE)
            REQUIRE(best_to[q] == want && best_d2[q] == want_d2,
                    "%s: point %u found %u at %.17g, brute force %u at %.17g", what, q, best_to[q], best_d2[q], want,
                    want_d2);
        else
            REQUIRE((want == GEMST_NONE || want_d2 > bound) && best_d2[q] <= want_d2,
                    "%s: point %u found nothing (bound %.17g, lower bound %.17g), brute force %u at %.17g", what, q,
                    bound, best_d2[q], want, want_d2);
        *from_list += kf->at[q] < kf->K && best_to[q] == kf->id[(size_t)q * kf->K + kf->at[q]];
        *ran_out += at_before[q] < kf->K && kf->at[q] == kf->K;
    }
    free(brk);
    free(best_to);
    free(best_d2);
    free(ub);
    free(at_before);
}

/*
 * kNN-first (cpu/cpu_bvh_search.h): each point's list holds its K nearest
 * other points in edge order, as a sort of all points by (squared
 * distance, caller id) gives them, ties at the K-th distance included
 * (lattice, one Morton code); then FindMin1 with the lists, with every
 * point its own component (the first iteration) and then with each
 * component pattern, finds each point's brute-force nearest foreign point
 * wherever its search may reach it, and keeps valid lower bounds
 * elsewhere.  On Morton runs (components of about 40 points, compact in
 * space where the points spread: uniform, lattice) both paths run: points
 * whose list holds a foreign point, and points whose whole list lies in
 * their component.
 */
START_TEST(test_knn_first)
{
    const int i = _i % (T_COUNT * C_COUNT * L_COUNT), kd = _i / (T_COUNT * C_COUNT * L_COUNT);
    tset t = make_tset((tset_kind)(i / C_COUNT % T_COUNT), i / (C_COUNT * T_COUNT));
    const comp_kind ck = (comp_kind)(i % C_COUNT);
    const uint32_t n = t.n;
    gemst_cpu_bvh tree;
    build_ok(&t, 1, kd, &tree);
    gemst_cpu_knn_first kf = {xcalloc((size_t)n * GEMST_CPU_KNN_FIRST, sizeof(uint32_t)), xcalloc(n, 1),
                              GEMST_CPU_KNN_FIRST};
    memset(kf.at, 0xff, n);
    for (uint32_t j = 0; j < tree.bvh.n; j++)
        GEMST_FN(gemst_cpu_bvh_knn_leaf)(&tree.bvh, tree.leaf, &t.g, &kf, j);
    for (uint32_t q = 0; ck == C_SINGLETONS && q < n; q++) { /* the lists do not depend on the components */
        uint32_t want_list[GEMST_CPU_KNN_FIRST];
        brute_knn(&t, q, kf.K, want_list);
        REQUIRE(kf.at[q] == 0, "%s: point %u's scan starts at %u", t.name, q, kf.at[q]);
        for (uint32_t e = 0; e < (uint32_t)kf.K; e++) {
            const uint32_t want = want_list[e], got = kf.id[(size_t)q * kf.K + e];
            REQUIRE(got == want, "%s, leaves of %u: point %u's %u-th nearest is %u (at %.17g), brute force: %u (at %.17g)",
                    t.name, t.leaf, q, e, got, got == GEMST_NONE ? INF : GEMST_FN(gemst_dist2)(&t.g, q, got), want,
                    want == GEMST_NONE ? INF : GEMST_FN(gemst_dist2)(&t.g, q, want));
        }
    }
    uint32_t *comp = xcalloc(n, sizeof *comp), *roots = xcalloc(n, sizeof *roots), n_roots;
    uint32_t from_list = 0, ran_out = 0;
    char what[160];
    make_comps(C_SINGLETONS, n, 0, comp, roots, &n_roots);
    snprintf(what, sizeof what, "%s, leaves of %u, singletons", t.name, t.leaf);
    knn_first_pass(&t, &tree, &kf, comp, roots, n_roots, 0, what, &from_list, &ran_out);
    REQUIRE(n < 2 || (from_list == n && ran_out == 0), "%s: %u of %u points took their nearest from the list", what,
            from_list, n);
    make_comps(ck, n, 41 + (uint64_t)i, comp, roots, &n_roots);
    for (int round = 0; round < 2; round++) {
        from_list = ran_out = 0;
        snprintf(what, sizeof what, "%s, leaves of %u, comps %d, round %d", t.name, t.leaf, (int)ck, round);
        knn_first_pass(&t, &tree, &kf, comp, roots, n_roots, round, what, &from_list, &ran_out);
        const tset_kind kind = (tset_kind)(i / C_COUNT % T_COUNT);
        if (ck == C_RUNS && round == 0 && (kind == T_UNIFORM_2D || kind == T_UNIFORM_3D || kind == T_LATTICE_3D))
            REQUIRE(from_list > 0 && ran_out > 0, "%s: %u points took their edge from the list, %u ran out of it",
                    what, from_list, ran_out);
    }
    free(comp);
    free(roots);
    free(kf.id);
    free(kf.at);
    GEMST_FN(gemst_cpu_bvh_free)(&tree);
    free_tset(&t);
}
END_TEST

/*
 * The GPU's lists (bvh/bvh_knn.h), first iteration (every point its own component): each
 * point's nearest in best_to/best_d2 and the next ones in its row are the
 * brute force's GEMST_BVH_KNN first in edge order (ties by ids; lattices
 * tie nearly every distance).  Then, under each component pattern, for
 * every point whose nearest is in its component (as after the first
 * iteration), a row that holds a point of another component gives the
 * brute-force nearest foreign point; one that does not is spent and
 * leaves a lower bound no greater than that point's distance.
 */
START_TEST(test_bvh_knn)
{
    tset t = make_tset((tset_kind)(_i / C_COUNT % T_COUNT), _i / (C_COUNT * T_COUNT));
    const comp_kind ck = (comp_kind)(_i % C_COUNT);
    const uint32_t n = t.n;
    gemst_cpu_bvh tree;
    build_ok(&t, 1, 0, &tree);
    uint32_t *comp = xcalloc(n, sizeof *comp), *roots = xcalloc(n, sizeof *roots), n_roots;
    uint32_t *best_to = xcalloc(n, sizeof *best_to), *knn = xcalloc((size_t)n * GEMST_BVH_KNN_ROW, sizeof *knn);
    double *best_d2 = xcalloc(n, sizeof *best_d2);
    gemst_word1 *ub = xcalloc(n, sizeof *ub);
    for (uint32_t q = 0; q < n; q++) {
        comp[q] = q;
        ub[q] = gemst_edge_word1(INF);
    }
    for (uint32_t q = 0; q < n; q++) {
        uint32_t want[GEMST_BVH_KNN];
        GEMST_FN(gemst_bvh_knn_first)(&tree.bvh, &t.g, comp, ub, best_d2, best_to, knn, q);
        brute_knn(&t, q, GEMST_BVH_KNN, want);
        REQUIRE(want[0] == GEMST_NONE || best_d2[q] == GEMST_FN(gemst_dist2)(&t.g, q, want[0]),
                "%s: point %u's nearest at %.17g", t.name, q, best_d2[q]);
        for (int k = 0; k < GEMST_BVH_KNN; k++) {
            const uint32_t got = k == 0 ? best_to[q] : knn[(size_t)q * GEMST_BVH_KNN_ROW + k - 1];
            REQUIRE(got == want[k], "%s: point %u's nearest #%d is %u, brute force %u", t.name, q, k, got, want[k]);
        }
        if (best_to[q] != GEMST_NONE)
            REQUIRE(gemst_edge_word1_value(ub[q]) <= best_d2[q] && gemst_edge_word1_value(ub[best_to[q]]) <= best_d2[q],
                    "%s: point %u's nearest does not bound both ends' components", t.name, q);
    }
    make_comps(ck, n, 53 + (uint64_t)_i, comp, roots, &n_roots);
    for (uint32_t q = 0; n > GEMST_BVH_KNN && q < n; q++) {
        const uint32_t nearest = best_to[q];
        if (comp[nearest] != comp[q])
            continue;
        double want_d2;
        const uint32_t want = brute_nearest(&t, comp, q, &want_d2);
        uint32_t *row = &knn[(size_t)q * GEMST_BVH_KNN_ROW], saved[GEMST_BVH_KNN_ROW], foreign = 0;
        const double saved_d2 = best_d2[q];
        memcpy(saved, row, sizeof saved);
        for (int j = 0; j < GEMST_BVH_KNN_ROW; j++)
            foreign |= comp[row[j]] != comp[q];
        GEMST_FN(gemst_bvh_knn_next)(&t.g, comp, best_d2, best_to, knn, q);
        if (foreign)
            REQUIRE(best_to[q] == want && best_d2[q] == want_d2,
                    "%s, comps %d: point %u's row gave %u at %.17g, brute force %u at %.17g", t.name, (int)ck, q,
                    best_to[q], best_d2[q], want, want_d2);
        else
            REQUIRE(best_to[q] == nearest && row[0] == GEMST_NONE && best_d2[q] <= want_d2 &&
                        best_d2[q] == GEMST_FN(gemst_dist2)(&t.g, q, saved[GEMST_BVH_KNN_ROW - 1]),
                    "%s, comps %d: point %u's row spent: kept %u, lower bound %.17g, brute force %u at %.17g", t.name,
                    (int)ck, q, best_to[q], best_d2[q], want, want_d2);
        memcpy(row, saved, sizeof saved); /* as the first iteration left them, for the next point */
        best_to[q] = nearest;
        best_d2[q] = saved_d2;
    }
    free(comp);
    free(roots);
    free(best_to);
    free(knn);
    free(best_d2);
    free(ub);
    GEMST_FN(gemst_cpu_bvh_free)(&tree);
    free_tset(&t);
}
END_TEST

/* ----------------------------------------------------------------- memory */

/* The BVH solve computes its memory need before allocating: a cap below it
 * is refused with a clear message, a generous one is not, and a cap
 * between the two needs tells the BVH's need from the grid's. */
START_TEST(test_memory_cap)
{
    const int64_t n = 100000;
    double *c = xcalloc((size_t)n * 3, sizeof *c);
    uint64_t seed = 5;
    for (int64_t i = 0; i < n * 3; i++)
        c[i] = rng_unit(&seed);
    gridemst_options o;
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    gridemst_options_init(&o);
    o.backend = GRIDEMST_BACKEND_CPU;
    o.nns = GRIDEMST_NNS_BVH;
    o.precision = GRIDEMST_PRECISION_DOUBLE;
    o.max_host_bytes = 1 << 20;
    REQUIRE(gridemst_solve(c, GRIDEMST_FLOAT64, n, 3, &o, &r, &err) == GRIDEMST_ERR_NO_MEMORY &&
                strstr(err.message, "bytes of host memory") != NULL,
            "1 MiB cap: %s", err.message);
    REQUIRE(r.n_edges == 0 && r.edges == NULL, "a refused job left a result");
    /* The need as the message states it, then just enough. */
    unsigned long long need = 0;
    REQUIRE(sscanf(strstr(err.message, "need about ") + strlen("need about "), "%llu", &need) == 1 && need > 0,
            "no need in: %s", err.message);
    o.max_host_bytes = (int64_t)need - 1;
    REQUIRE(gridemst_solve(c, GRIDEMST_FLOAT64, n, 3, &o, &r, &err) == GRIDEMST_ERR_NO_MEMORY, "need - 1: %d",
            err.code);
    o.max_host_bytes = (int64_t)need;
    REQUIRE(gridemst_solve(c, GRIDEMST_FLOAT64, n, 3, &o, &r, &err) == GRIDEMST_OK, "need: %s", err.message);
    REQUIRE(r.n_edges == n - 1, "%lld edges", (long long)r.n_edges);
    gridemst_result_free(&r);
    /* The grid's need is its own. */
    o.nns = GRIDEMST_NNS_GRID;
    o.max_host_bytes = 1 << 20;
    REQUIRE(gridemst_solve(c, GRIDEMST_FLOAT64, n, 3, &o, &r, &err) == GRIDEMST_ERR_NO_MEMORY, "grid: %d", err.code);
    unsigned long long grid_need = 0;
    REQUIRE(sscanf(strstr(err.message, "need about ") + strlen("need about "), "%llu", &grid_need) == 1 &&
                grid_need != need,
            "grid need %llu, bvh need %llu", grid_need, need);
    free(c);
}
END_TEST

/* When the grid hands over to the late BVH (nns/late_bvh.h and
 * gridemst_options.tuning.late_bvh): forced from an iteration, never, or
 * by the CPU's rule, which takes a wide fallback reaching far; the CUDA
 * backend's gemst_late_bvh_forced only when forced. */
START_TEST(test_late_bvh_rule)
{
    const uint32_t nu = 1000000;
    const uint64_t wide = nu / GEMST_LATE_BVH_FALLBACKS;
    const double far = GEMST_LATE_BVH_REACH;
    const struct {
        int option, iteration;
        uint32_t nu;
        uint64_t fallbacks;
        double reach;
        int due, forced;
    } cases[] = {
        {0, 5, nu, wide, far, 1, 0},                  /* wide and far */
        {0, 5, nu, wide - 1, far, 0, 0},              /* not quite wide */
        {0, 5, nu, wide, far - 0.1, 0, 0},            /* not quite far */
        {0, 0, nu, nu, 100.0, 0, 0},                  /* never before iteration 1 */
        {0, 5, 2 * GEMST_LATE_BVH_LEAF, 8, 100.0, 0, 0}, /* two leaves or fewer */
        {-1, 5, nu, nu, 100.0, 0, 0},                 /* never */
        {3, 2, nu, 0, 0.0, 0, 0},                     /* forced from iteration 3 */
        {3, 3, nu, 0, 0.0, 1, 1},
        {3, 4, nu, nu, 100.0, 1, 1},
        {3, 4, 2 * GEMST_LATE_BVH_LEAF, 0, 0.0, 0, 0}, /* forced, but two leaves or fewer */
        {1, 1, 2 * GEMST_LATE_BVH_LEAF + 1, 0, 0.0, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        REQUIRE(gemst_late_bvh_due(cases[i].option, cases[i].iteration, cases[i].nu, cases[i].fallbacks,
                                   cases[i].reach) == cases[i].due,
                "case %zu: due", i);
        REQUIRE(gemst_late_bvh_forced(cases[i].option, cases[i].iteration, cases[i].nu) == cases[i].forced,
                "case %zu: forced", i);
    }
}
END_TEST

/* ----------------------------------------------------------------- suite */

static Suite *bvh_suite(void)
{
    Suite *s = suite_create("bvh");
    TCase *tc = tcase_create("bvh");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_morton);
    tcase_add_loop_test(tc, test_structure, 0, 2 * T_COUNT * L_COUNT);
    tcase_add_loop_test(tc, test_kd_structure, 0, 2 * T_COUNT * L_COUNT);
    tcase_add_loop_test(tc, test_kd_large, 0, 6);
    tcase_add_test(tc, test_large_trees);
    tcase_add_loop_test(tc, test_labels, 0, 2 * T_COUNT * C_COUNT * L_COUNT);
    tcase_add_loop_test(tc, test_query, 0, T_COUNT * C_COUNT * L_COUNT);
    tcase_add_loop_test(tc, test_leaf_search, 0, 2 * T_COUNT * C_COUNT * L_COUNT);
    tcase_add_loop_test(tc, test_knn_first, 0, 2 * T_COUNT * C_COUNT * L_COUNT);
    tcase_add_loop_test(tc, test_bvh_knn, 0, T_COUNT * C_COUNT * L_COUNT);
    tcase_add_test(tc, test_memory_cap);
    tcase_add_test(tc, test_late_bvh_rule);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(bvh_suite());
}
