/* Single linkage from a tree, as the clustering functions share it. */
#ifndef GEMST_LINKAGE_H
#define GEMST_LINKAGE_H

#include "common.h"

/* Copies the caller's result into *tree, in the library's layout (its
 * struct_size checked); fails with GRIDEMST_ERR_INVALID_ARGUMENT unless it
 * is a spanning tree of tree->n points whose edges are u < v < n with
 * weights >= 0 in increasing order. */
int gemst_tree_argument(const gridemst_result *caller, gridemst_result *tree, gridemst_error *err);

/* The n - 1 merges of a checked tree, in edge order, into rows (SciPy's
 * linkage matrix).  Without first_v (NULL) each row lists the smaller
 * cluster id first; with it, row e lists first the cluster of edge e's
 * endpoint v when first_v[e] is set, else u's. */
int gemst_linkage_rows(const gridemst_result *tree, const uint8_t *first_v, gridemst_merge *rows,
                       gridemst_error *err);

#endif
