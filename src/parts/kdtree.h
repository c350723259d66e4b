/*
 * A k-d tree over points (working coordinates, 3 per point): median splits
 * along the widest axis of each node's box down to leaves of a few points.
 * A parent comes before its children in the node array, so going through
 * it backwards visits children first (the subtrees are built concurrently:
 * the nodes' places vary from build to build, the tree does not).  Users keep their own per-node data
 * beside it (halo.c: the components of a node's points).
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
    int64_t n_node;
} gemst_kdtree;

/* The tree of the n points at w (replacing what *t held), with up to
 * `threads` OpenMP threads. */
int gemst_kdtree_build(gemst_kdtree *t, const double *w, int64_t n, int threads, gridemst_error *err);

void gemst_kdtree_free(gemst_kdtree *t);

#endif
