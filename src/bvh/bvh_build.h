/*
 * The BVH build, per index, for an OpenMP loop or a CUDA kernel
 * (precision-generic, see real.h; layout in bvh.h):
 *
 *  1. gemst_bvh_build_node for every internal node i (Karras 2012,
 *     Algorithm 2): its leaf range's end, split (with its children's leaf
 *     flags) and the parent links of its two children, from the sorted
 *     Morton codes alone.
 *  2. The boxes, in two passes (the labels zeroed before):
 *     a. gemst_bvh_fit_small for every internal node: a node over at most
 *        GEMST_BVH_FIT_SCAN points takes its box from its points.  These
 *        are nearly all the nodes, each independent of the others.
 *     b. then gemst_bvh_fit_large for every internal node: each larger
 *        node starts a walk up for each of its children that already has
 *        its box (a leaf, or a node of pass a).  The first walk to reach a
 *        node stops there, the second computes the node's box from both
 *        children and goes on, so that every box is computed once, after
 *        its children's.
 *     (One walk up from every leaf, as Karras fits, cost an atomic and two
 *     fences per node; walks from the few larger nodes cost them only there.)
 *     The walks count their arrivals in the nodes' labels (zeroed before);
 *     both passes leave every label GEMST_NONE, which names no component,
 *     so that a search before the first labelling (labels.h) skips nothing.
 *
 * Equal codes of distinct points: the keys compared are the codes extended
 * by the leaf index (Karras' augmented keys), so every pair of leaves
 * differs and the tree is well formed whatever the codes.
 *
 * Depth: along a root-to-leaf path the internal nodes' common prefix lengths
 * (gemst_bvh_delta of their range ends) strictly increase and stay below
 * 64 + 32, so a path holds at most GEMST_BVH_MAX_DEPTH internal nodes.
 */
#ifndef GEMST_BVH_BUILD_H
#define GEMST_BVH_BUILD_H

#include "bvh/bvh.h"
#include "bvh/morton.h"
#include "atomics.h"

#define GEMST_BVH_MAX_DEPTH 96

/* Length of the common prefix of the augmented keys of leaves i and j;
 * -1 when j is out of range. */
static inline GEMST_HD int gemst_bvh_delta(const uint64_t *code, uint32_t n, int64_t i, int64_t j)
{
    if (j < 0 || j >= (int64_t)n)
        return -1;
    uint64_t x = code[i] ^ code[j];
    if (x)
        return gemst_clz64(x);
    return 64 + gemst_clz32((uint32_t)i ^ (uint32_t)j);
}

/* Internal node i (0 <= i < b->n - 1) of tree b over leaves with the
 * codes code[]: range end, split, and its children's parent links. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_build_node)(const uint64_t *code, const gemst_bvh *b, uint32_t i)
{
    const uint32_t n = b->n;
    /* The direction of the range: towards the neighbour sharing more. */
    const int64_t d = gemst_bvh_delta(code, n, i, (int64_t)i + 1) > gemst_bvh_delta(code, n, i, (int64_t)i - 1) ? 1 : -1;
    const int dmin = gemst_bvh_delta(code, n, i, (int64_t)i - d);
    /* The range's length: an upper bound by doubling, then binary search. */
    int64_t lmax = 2;
    while (gemst_bvh_delta(code, n, i, (int64_t)i + lmax * d) > dmin)
        lmax *= 2;
    int64_t l = 0;
    for (int64_t t = lmax / 2; t >= 1; t /= 2)
        if (gemst_bvh_delta(code, n, i, (int64_t)i + (l + t) * d) > dmin)
            l += t;
    const int64_t j = (int64_t)i + l * d;
    /* The split: the last leaf sharing more than the whole range with i. */
    const int dnode = gemst_bvh_delta(code, n, i, j);
    int64_t s = 0;
    for (int64_t div = 2;; div *= 2) {
        int64_t t = (l + div - 1) / div;
        if (gemst_bvh_delta(code, n, i, (int64_t)i + (s + t) * d) > dnode)
            s += t;
        if (t == 1)
            break;
    }
    const uint32_t gamma = (uint32_t)((int64_t)i + s * d + (d < 0 ? -1 : 0));
    const uint32_t e = (uint32_t)j, split_flags = gemst_bvh_pack_split(gamma, i < e ? i : e, i < e ? e : i);
    b->end[i] = e;
    b->node[i].split_flags = split_flags;
    uint32_t child[2];
    gemst_bvh_split_children(n, split_flags, child);
    b->parent[child[0]] = i;
    b->parent[child[1]] = i;
    if (i == 0)
        b->parent[0] = GEMST_NONE;
}

/* The box of the points [first, end) (end > first). */
static inline GEMST_HD void GEMST_FN(gemst_bvh_points_box)(int dim, const gemst_grid *pts, uint32_t first, uint32_t end,
                                                         gemst_real lo[3], gemst_real hi[3])
{
    GEMST_UNROLL
    for (int d = 0; d < 3; d++) {
        if (d >= dim)
            break;
        const gemst_real *axis = d == 0 ? pts->x : d == 1 ? pts->y : pts->z;
        lo[d] = hi[d] = axis[first];
        for (uint32_t p = first + 1; p < end; p++) {
            const gemst_real v = axis[p];
            lo[d] = lo[d] < v ? lo[d] : v;
            hi[d] = hi[d] > v ? hi[d] : v;
        }
    }
}

/* The box of node id: an internal node's record, a leaf's points'. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_box)(const gemst_bvh *b, const gemst_grid *pts, uint32_t id,
                                                  gemst_real lo[3], gemst_real hi[3])
{
    if (!gemst_bvh_is_leaf(b->n, id)) {
        GEMST_UNROLL
        for (int d = 0; d < 3; d++) {
            if (d >= b->dim)
                break;
            lo[d] = b->node[id].lo[d];
            hi[d] = b->node[id].hi[d];
        }
        return;
    }
    uint32_t first, end;
    GEMST_FN(gemst_bvh_leaf_points)(b, id, &first, &end);
    GEMST_FN(gemst_bvh_points_box)(b->dim, pts, first, end, lo, hi);
}

/* Internal nodes over at most this many points take their box from their
 * points (a warp's width: a warp's nodes read overlapping runs of points). */
#define GEMST_BVH_FIT_SCAN 32

/* The points [*first, *end) of internal node i. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_node_points)(const gemst_bvh *b, uint32_t i, uint32_t *first,
                                                         uint32_t *end)
{
    uint32_t first_leaf, last_leaf, unused;
    gemst_bvh_range(b->end, i, &first_leaf, &last_leaf);
    GEMST_FN(gemst_bvh_leaf_points)(b, gemst_bvh_leaf_id(b->n, first_leaf), first, &unused);
    GEMST_FN(gemst_bvh_leaf_points)(b, gemst_bvh_leaf_id(b->n, last_leaf), &unused, end);
}

/* Whether node id has its box before pass b: a leaf, or an internal node
 * of pass a. */
static inline GEMST_HD int GEMST_FN(gemst_bvh_fit_scans)(const gemst_bvh *b, uint32_t id)
{
    if (gemst_bvh_is_leaf(b->n, id))
        return 1;
    uint32_t first, end;
    GEMST_FN(gemst_bvh_node_points)(b, id, &first, &end);
    return end - first <= GEMST_BVH_FIT_SCAN;
}

/* Pass a for internal node i: its box from its points, if it has few. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_fit_small)(gemst_bvh *b, const gemst_grid *pts, uint32_t i)
{
    uint32_t first, end;
    GEMST_FN(gemst_bvh_node_points)(b, i, &first, &end);
    if (end - first > GEMST_BVH_FIT_SCAN)
        return;
    gemst_real lo[3], hi[3];
    GEMST_FN(gemst_bvh_points_box)(b->dim, pts, first, end, lo, hi);
    GEMST_UNROLL
    for (int d = 0; d < 3; d++) {
        if (d >= b->dim)
            break;
        b->node[i].lo[d] = lo[d];
        b->node[i].hi[d] = hi[d];
    }
    b->node[i].label = GEMST_NONE; /* no walk up counts here */
}

/* A walk up that arrives at internal node k from one of its children. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_fit_up)(gemst_bvh *b, const gemst_grid *pts, uint32_t k)
{
    for (; k != GEMST_NONE; k = b->parent[k]) {
        /* The fences order this walk's box writes before the counter and the
         * sibling's box writes before the reads below. */
        gemst_fence();
        if (gemst_atomic_add_u32(&b->node[k].label, 1) == 0)
            return;
        gemst_fence();
        uint32_t child[2];
        gemst_real lo[2][3], hi[2][3];
        GEMST_FN(gemst_bvh_children)(b->n, b->node, k, child);
        GEMST_FN(gemst_bvh_box)(b, pts, child[0], lo[0], hi[0]);
        GEMST_FN(gemst_bvh_box)(b, pts, child[1], lo[1], hi[1]);
        GEMST_UNROLL
        for (int d = 0; d < 3; d++) {
            if (d >= b->dim)
                break;
            b->node[k].lo[d] = lo[0][d] < lo[1][d] ? lo[0][d] : lo[1][d];
            b->node[k].hi[d] = hi[0][d] > hi[1][d] ? hi[0][d] : hi[1][d];
        }
        b->node[k].label = GEMST_NONE; /* both walks have counted */
    }
}

/* Pass b for internal node i (after pass a for every node): a walk up from
 * i for each child of a larger node i that has its box. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_fit_large)(gemst_bvh *b, const gemst_grid *pts, uint32_t i)
{
    if (GEMST_FN(gemst_bvh_fit_scans)(b, i))
        return;
    uint32_t child[2];
    GEMST_FN(gemst_bvh_children)(b->n, b->node, i, child);
    for (int k = 0; k < 2; k++)
        if (GEMST_FN(gemst_bvh_fit_scans)(b, child[k]))
            GEMST_FN(gemst_bvh_fit_up)(b, pts, i);
}

#endif
