/*
 * The linear BVH over the unique points (precision-generic, see real.h):
 * its node layout and what the build, the label reduction and the query
 * share.  Karras 2012, "Maximizing parallelism in the construction of BVHs,
 * octrees, and k-d trees"; used as in the ArborX single-tree EMST
 * (Prokopenko et al. 2022).
 *
 * The leaves are runs of leaf_size consecutive points (the last one may be
 * shorter) of the point view (a gemst_grid whose x, y, z, oid are in
 * Morton order, or for the CPU's nns BVH in K-d order, cpu/cpu_bvh_kd.inc;
 * its cell fields are unused): single points for the GPU's
 * nns BVH (more above GEMST_BVH_MAX_LEAVES points), GEMST_CPU_BVH_LEAF for the CPU's (cpu/cpu_bvh_search.h),
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
 * An internal node keeps what a traversal reads of it in one record of 32
 * bytes in float (64 in double), aligned to 16 bytes so that the GPU reads
 * it whole in two (four) 16-byte loads: its bounding box, its label, and
 * its split with one bit per child telling whether that child is a leaf, so
 * that the children's ids come from the record alone.  The split takes the
 * word's low 30 bits: a tree has at most GEMST_BVH_MAX_LEAVES leaves, and
 * gemst_bvh_leaf_size makes the leaves larger where single points would be
 * too many.  The range's far end, which the build and the labels need and a
 * traversal does not, is kept in an array of its own.  A leaf has no
 * record: its box is its points'.  Boxes are exact minima and maxima of
 * stored coordinates.
 */
#ifndef GEMST_BVH_H
#define GEMST_BVH_H

#include <string.h>

#include "grid/grid.h"

/* The most leaves a tree may have: its splits are below it, in 30 bits. */
#define GEMST_BVH_MAX_LEAVES ((uint32_t)1 << 30)
#define GEMST_BVH_SPLIT_MASK (GEMST_BVH_MAX_LEAVES - 1)
#define GEMST_BVH_LEFT_LEAF ((uint32_t)1 << 31)  /* the left child is a leaf */
#define GEMST_BVH_RIGHT_LEAF ((uint32_t)1 << 30) /* the right child is a leaf */

#define gemst_bvh_node GEMST_FN(gemst_bvh_node)
typedef struct __attribute__((aligned(16))) {
    gemst_real lo[3];     /* bounding box (z unused in 2D) */
    uint32_t label;       /* the component of all its leaves, else GEMST_NONE (labels.h);
                             the build's visit counter before */
    gemst_real hi[3];
    uint32_t split_flags; /* the last leaf of its left child, with GEMST_BVH_LEFT_LEAF
                             and GEMST_BVH_RIGHT_LEAF (gemst_bvh_pack_split) */
} gemst_bvh_node;

/* Bytes per internal node: its record and its range end. */
#define GEMST_BVH_NODE_BYTES (sizeof(gemst_bvh_node) + sizeof(uint32_t))

#define gemst_bvh GEMST_FN(gemst_bvh)
typedef struct {
    int dim;
    uint32_t n;              /* leaves, >= 2 and <= GEMST_BVH_MAX_LEAVES */
    uint32_t points;         /* points in the leaves */
    uint32_t leaf_size;      /* points per leaf but the last */
    gemst_bvh_node *node;    /* n - 1 internal nodes, 16-byte aligned */
    uint32_t *end;           /* n - 1: the far end of each internal node's leaf range */
    uint32_t *parent;        /* 2n - 1, by node id (GEMST_NONE for the root); for the build, and the
                                CPU's searches up from a leaf */
} gemst_bvh;

/* The points per leaf of a tree over `points` points that asks for leaves
 * of `wanted`: that many, or the fewest that keep the leaves within
 * GEMST_BVH_MAX_LEAVES (at most 4, for up to 2^32 points). */
static inline GEMST_HD uint32_t gemst_bvh_leaf_size(uint32_t points, uint32_t wanted)
{
    const uint32_t least = (uint32_t)(((uint64_t)points + GEMST_BVH_MAX_LEAVES - 1) / GEMST_BVH_MAX_LEAVES);
    return wanted > least ? wanted : least;
}

/* The leaves' count for `points` points in leaves of leaf_size points. */
static inline GEMST_HD uint32_t gemst_bvh_leaves(uint32_t points, uint32_t leaf_size)
{
    return (uint32_t)(((uint64_t)points + leaf_size - 1) / leaf_size);
}

static inline GEMST_HD uint32_t gemst_bvh_leaf_id(uint32_t n, uint32_t j)
{
    return n - 1 + j;
}

static inline GEMST_HD int gemst_bvh_is_leaf(uint32_t n, uint32_t id)
{
    return id >= n - 1;
}

/* 32-bit words of a bit per internal node of a tree of n leaves. */
static inline GEMST_HD uint32_t gemst_bvh_mixed_words(uint32_t n)
{
    return (n - 1 + 31) / 32;
}

/* The points [*first, *end) of the leaf with node id. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_leaf_points)(const gemst_bvh *b, uint32_t id, uint32_t *first,
                                                          uint32_t *end)
{
    const uint64_t j = id - (b->n - 1), e = (j + 1) * b->leaf_size;
    *first = (uint32_t)(j * b->leaf_size);
    *end = e < b->points ? (uint32_t)e : b->points;
}

/* The leaf range [*first, *last] of internal node i (one end is i). */
static inline GEMST_HD void gemst_bvh_range(const uint32_t *end, uint32_t i, uint32_t *first, uint32_t *last)
{
    uint32_t e = end[i];
    *first = i < e ? i : e;
    *last = i < e ? e : i;
}

/* The record's split_flags for split s of the leaf range [first, last]: a
 * child is a leaf when its part of the range is one leaf. */
static inline GEMST_HD uint32_t gemst_bvh_pack_split(uint32_t s, uint32_t first, uint32_t last)
{
    return s | (s == first ? GEMST_BVH_LEFT_LEAF : 0) | (s + 1 == last ? GEMST_BVH_RIGHT_LEAF : 0);
}

/* The split in a record's split_flags. */
static inline GEMST_HD uint32_t gemst_bvh_split(uint32_t split_flags)
{
    return split_flags & GEMST_BVH_SPLIT_MASK;
}

/* The ids of the children of the internal node whose record holds
 * split_flags, in a tree of n leaves. */
static inline GEMST_HD void gemst_bvh_split_children(uint32_t n, uint32_t split_flags, uint32_t child[2])
{
    const uint32_t s = gemst_bvh_split(split_flags);
    child[0] = split_flags & GEMST_BVH_LEFT_LEAF ? gemst_bvh_leaf_id(n, s) : s;
    child[1] = split_flags & GEMST_BVH_RIGHT_LEAF ? gemst_bvh_leaf_id(n, s + 1) : s + 1;
}

/* The ids of internal node i's children. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_children)(uint32_t n, const gemst_bvh_node *node, uint32_t i,
                                                       uint32_t child[2])
{
    gemst_bvh_split_children(n, node[i].split_flags, child);
}

/* Internal node id's record, read whole for a search: on the GPU in 16-byte
 * loads through the read-only data cache, valid as long as nothing writes
 * the records while the kernel runs (the labels are written before the
 * searches, by a kernel of their own; the build must not use it). */
static inline GEMST_HD gemst_bvh_node GEMST_FN(gemst_bvh_load)(const gemst_bvh_node *node, uint32_t id)
{
#ifdef __CUDA_ARCH__
    gemst_bvh_node r;
    const uint4 *from = (const uint4 *)(node + id);
    GEMST_UNROLL
    for (int k = 0; k < (int)(sizeof r / sizeof(uint4)); k++) {
        const uint4 v = __ldg(from + k);
        memcpy((char *)&r + k * sizeof v, &v, sizeof v);
    }
    return r;
#else
    return node[id];
#endif
}

/*
 * Squared distance from q to the box of a node's record r, computed with
 * the operations of gemst_dist2_q (ring.h) in the same order: per axis the
 * gap to the box (0 inside), squared, then summed.  Rounding is monotone and
 * every point p of the box is at least as far along each axis as the box
 * face (|p - q| >= the gap, exactly), so the result never exceeds the
 * computed squared distance of any point of the box: no margin is needed.
 */
static inline GEMST_HD gemst_real GEMST_FN(gemst_bvh_box_dist2)(int dim, const gemst_bvh_node *r,
                                                              const gemst_real q[3])
{
    const gemst_real *lo = r->lo, *hi = r->hi;
    gemst_real s = 0;
    GEMST_UNROLL
    for (int d = 0; d < 3; d++) {
        if (d >= dim)
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
