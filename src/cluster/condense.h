/*
 * HDBSCAN*'s condensed tree from a spanning tree (Campello et al. 2013;
 * the runt pruning of scikit-learn's and the hdbscan package's
 * _condense_tree): the single-linkage hierarchy walked from its root in
 * breadth-first order, where a split into two children of at least
 * min_cluster_size points makes two new clusters, and the points of a
 * smaller child fall out of the cluster at that merge's lambda.
 */
#ifndef GEMST_CONDENSE_H
#define GEMST_CONDENSE_H

#include "common.h"

typedef struct {
    int64_t n;                        /* points; cluster ids are n (the root), n + 1, ... */
    int64_t n_rows;
    gridemst_condensed_row *rows;     /* owned */
    int64_t n_clusters;               /* the root included */
} gemst_condensed;

/*
 * The condensed tree of a checked tree of n >= 2 points for
 * min_cluster_size >= 2, rows in scikit-learn's order: the hierarchy's
 * nodes visited breadth first from the root, each merge listing first the
 * side of point 0 (gemst_oriented_linkage), new clusters numbered in that
 * order.  Returns GRIDEMST_OK, or an error code with *err.
 */
int gemst_condense(const gridemst_result *tree, int64_t min_cluster_size, gemst_condensed *out, gridemst_error *err);

void gemst_condensed_free(gemst_condensed *c);

#endif
