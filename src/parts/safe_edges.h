/*
 * The safe edges of a part's tree (step 4 of a partitioned solve,
 * docs/partitioned.md), found in parallel, and the components they join.
 */
#ifndef GEMST_PARTS_SAFE_EDGES_H
#define GEMST_PARTS_SAFE_EDGES_H

#include "parts/parts.h"

/*
 * tree[0 .. m): a forest over points 0 .. n-1 in the edge order; low[i]:
 * point i's gap, rounded down.  Sets safe[k] to 1 where Kruskal over the
 * tree, reaching edge k between components S1 and S2 of the edges before
 * it, finds k shorter than every low of S1 or every low of S2; to 0
 * otherwise.  With up to `threads` OpenMP threads.  Returns GRIDEMST_OK,
 * or GRIDEMST_ERR_NO_MEMORY with a message.
 */
int gemst_safe_edges(const gemst_parts_edge *tree, int64_t m, const double *low, int64_t n, int threads,
                     uint8_t *safe, gridemst_error *err);

/*
 * The same tree and lows, and the rounds rule (safe_rounds.c): safe[k] is
 * 1 where edge k is marked by Boruvka rounds over the tree, each component
 * of the edges marked in earlier rounds picking its least incident
 * unmarked edge (the least position), marked when shorter than the
 * component's smallest low, until a round marks none; 0 otherwise.  It
 * marks the edges gemst_safe_edges marks (safe_rounds.c says why).
 * Serial: the reference of the rounds on a device (device_contract.h).
 * Returns GRIDEMST_OK, or GRIDEMST_ERR_NO_MEMORY with a message.
 */
int gemst_safe_edges_rounds(const gemst_parts_edge *tree, int64_t m, const double *low, int64_t n, uint8_t *safe,
                            gridemst_error *err);

/*
 * The components of the edges k of tree[0 .. m) where safe[k]: comp[i] is
 * point i's, numbered from 0 in the order of their smallest points, and
 * *n_comp their number.  With up to `threads` OpenMP threads.
 */
int gemst_safe_components(const gemst_parts_edge *tree, int64_t m, const uint8_t *safe, int64_t n, int threads,
                          uint32_t *comp, uint32_t *n_comp, gridemst_error *err);

#endif
