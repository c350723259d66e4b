/*
 * A k-d tree over points (working coordinates, 3 per point): median splits
 * along the widest axis of each node's box down to leaves of a few points.
 * A parent comes before its children in the node array, so going through
 * it backwards visits children first (the subtrees are built concurrently:
 * the nodes' places vary from build to build, the tree does not).  Users
 * keep their own per-node data beside it (halo.c: the components of a
 * node's points).
 *
 * Points added to a tree go down to the leaves whose boxes are nearest,
 * the boxes on their way grow, and leaves grown past their size are split:
 * the cost follows the points added (and a pass over the nodes and the
 * order array), not a new build.  A tree is built anew when the additions
 * outnumber half its points, or when it grows deeper than
 * GEMST_KD_MAX_DEPTH.
 */
#ifndef GEMST_PARTS_KDTREE_H
#define GEMST_PARTS_KDTREE_H

#include <stdint.h>

#include "gridemst.h"
#include "parts/region.h"

typedef struct gemst_kd_node {
    gemst_box box;           /* its points' box */
    uint32_t begin, end;     /* its points: order[begin .. end) */
    uint32_t left, right;    /* children; GEMST_NONE for a leaf */
} gemst_kd_node;

typedef struct gemst_kdtree {
    uint32_t *order;         /* the points in the tree's order */
    gemst_kd_node *node;
    int64_t n_node, cap_node;
} gemst_kdtree;

/* The deepest a tree gets (its searches' stacks hold a path and its
 * siblings): a built tree of fewer than 2^32 points is 32 levels deep at
 * most, and additions that make it deeper than this rebuild it. */
#define GEMST_KD_MAX_DEPTH 48

/* The tree of the n points at w (replacing what *t held), with up to
 * `threads` OpenMP threads. */
int gemst_kdtree_build(gemst_kdtree *t, const double *w, int64_t n, int threads, gridemst_error *err);

/* The points of w from the tree's own count to n - 1 added to the tree
 * (built when it has none), with up to `threads` OpenMP threads. */
int gemst_kdtree_add(gemst_kdtree *t, const double *w, int64_t n, int threads, gridemst_error *err);

void gemst_kdtree_free(gemst_kdtree *t);

#endif
