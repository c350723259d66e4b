/*
 * The result's edge array: allocated (and paged in) before a backend runs,
 * filled from a host tree, summed, and put in (w, u, v) order.  The work is
 * spread over OpenMP threads; nothing here depends on their number.
 */
#ifndef GEMST_RESULT_EDGES_H
#define GEMST_RESULT_EDGES_H

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* m edges of host memory, every page touched once by the threads that will
 * fill it (a fresh allocation otherwise faults page by page inside one
 * copy); NULL when out of memory. */
gridemst_edge *gemst_edges_alloc(int64_t m, int threads);

/* out[e] from the host tree's edge e: the ids, and w = sqrt(d2) / scale. */
void gemst_edges_from_tree(const gemst_tree *tree, gridemst_edge *out, int threads);

/* The sum of the weights in the order of GEMST_TOTAL_GROUP (common.h), the
 * same for every thread count and backend; 0, or -1 when out of memory. */
int gemst_edges_total(const gridemst_edge *edges, int64_t m, int threads, double *total);

/* The same total from the sums of its first level's groups (the
 * GEMST_TOTAL_GROUP values of each, added in order), `groups` of them. */
int gemst_group_sums_total(const double *sums, int64_t groups, int threads, double *total);

/* Edges come sorted by squared length; each run of equal w is put in (u, v)
 * order (see solve.c). */
void gemst_edges_order_ties(gridemst_edge *edges, int64_t m, int threads);

/* A host tree (lo, hi, d2) in the result's form: tree->edges in caller
 * units, ties in (u, v) order, the total; finished. */
int gemst_finish_host_tree(gemst_tree *tree, int threads, gridemst_error *err);

#ifdef __cplusplus
}
#endif

#endif
