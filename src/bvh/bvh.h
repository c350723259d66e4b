/*
 * The linear BVH over the unique points (precision-generic, see real.h):
 * its node layout and what the build, the label reduction and the query
 * share.  Karras 2012, "Maximizing parallelism in the construction of BVHs,
 * octrees, and k-d trees"; used as in the ArborX single-tree EMST
 * (Prokopenko et al. 2022).
 *
 * The leaves are runs of leaf_size consecutive points (the last one may be
 * shorter) of the point view (a gemst_grid whose x, y, z, oid are in
 * Morton order; its cell fields are unused): single points for the GPU's
 * nns BVH, GEMST_CPU_BVH_LEAF for the CPU's (cpu/cpu_bvh_search.h),
 * GEMST_LATE_BVH_LEAF for the BVH of the grid's later Borůvka iterations
 * (nns/late_bvh.h).  There are n leaves and n - 1 internal nodes; node ids
 * put the internal nodes first:
 *     internal node i      id i,          0 <= i < n - 1 (the root is 0)
 *     leaf j               id n - 1 + j,  0 <= j < n
 * Internal node i covers the leaves [min(i, end), max(i, end)] (one end of
 * a Karras node's range is its own index) and splits them after leaf split:
 * its children are the nodes covering [first, split] and [split + 1, last],
 * each a leaf when its range is one leaf, else the internal node with the
 * same index as the range's end next to the split.  Siblings that are both
 * internal are neighbours in memory.
 *
 * An internal node keeps what a traversal reads of it together (36 bytes
 * in float, 64 in double): its range end and split, its label, and its
 * bounding box.  A leaf has no record: its box is its points'.  Boxes are
 * exact minima and maxima of stored coordinates.
 */
#ifndef GEMST_BVH_H
#define GEMST_BVH_H

#include "grid/grid.h"

#define gemst_bvh_node GEMST_FN(gemst_bvh_node)
typedef struct {
    uint32_t end;             /* the far end of the node's leaf range */
    uint32_t split;           /* the last leaf of its left child */
    uint32_t label;           /* the component of all its leaves, else GEMST_NONE (labels.h);
                                 the build's visit counter before */
    gemst_real lo[3], hi[3];  /* bounding box (z unused in 2D) */
} gemst_bvh_node;

#define gemst_bvh GEMST_FN(gemst_bvh)
typedef struct {
    int dim;
    uint32_t n;              /* leaves, >= 2 */
    uint32_t points;         /* points in the leaves */
    uint32_t leaf_size;      /* points per leaf but the last */
    gemst_bvh_node *node;    /* n - 1 internal nodes */
    uint32_t *parent;        /* 2n - 1, by node id (GEMST_NONE for the root); needed by the build only */
} gemst_bvh;

static inline GEMST_HD uint32_t gemst_bvh_leaf_id(uint32_t n, uint32_t j)
{
    return n - 1 + j;
}

static inline GEMST_HD int gemst_bvh_is_leaf(uint32_t n, uint32_t id)
{
    return id >= n - 1;
}

/* The points [*first, *end) of the leaf with node id. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_leaf_points)(const gemst_bvh *b, uint32_t id, uint32_t *first,
                                                          uint32_t *end)
{
    const uint64_t j = id - (b->n - 1), e = (j + 1) * b->leaf_size;
    *first = (uint32_t)(j * b->leaf_size);
    *end = e < b->points ? (uint32_t)e : b->points;
}

/* The leaf range [*first, *last] of internal node i. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_range)(const gemst_bvh_node *node, uint32_t i, uint32_t *first,
                                                    uint32_t *last)
{
    uint32_t e = node[i].end;
    *first = i < e ? i : e;
    *last = i < e ? e : i;
}

/* The ids of internal node i's children. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_children)(uint32_t n, const gemst_bvh_node *node, uint32_t i,
                                                       uint32_t child[2])
{
    uint32_t first, last, s = node[i].split;
    GEMST_FN(gemst_bvh_range)(node, i, &first, &last);
    child[0] = s == first ? gemst_bvh_leaf_id(n, s) : s;
    child[1] = s + 1 == last ? gemst_bvh_leaf_id(n, s + 1) : s + 1;
}

/*
 * Squared distance from q to internal node i's box, computed with the
 * operations of gemst_dist2_q (ring.h) in the same order: per axis the gap
 * to the box (0 inside), squared, then summed.  Rounding is monotone and
 * every point p of the box is at least as far along each axis as the box
 * face (|p - q| >= the gap, exactly), so the result never exceeds the
 * computed squared distance of any point of the box: no margin is needed.
 */
static inline GEMST_HD gemst_real GEMST_FN(gemst_bvh_box_dist2)(const gemst_bvh *b, uint32_t i, const gemst_real q[3])
{
    const gemst_real *lo = b->node[i].lo, *hi = b->node[i].hi;
    gemst_real s = 0;
    GEMST_UNROLL
    for (int d = 0; d < 3; d++) {
        if (d >= b->dim)
            break;
        /* the greater of the two gaps, or 0: one of the three values the
           tests q < lo, q > hi would pick, without their branches */
        const gemst_real below = GEMST_SUB(lo[d], q[d]), above = GEMST_SUB(q[d], hi[d]);
        gemst_real gap = below > above ? below : above;
        gap = gap > (gemst_real)0 ? gap : (gemst_real)0;
        gemst_real t = GEMST_MUL(gap, gap);
        s = d == 0 ? t : GEMST_ADD(s, t);
    }
    return s;
}

#endif
