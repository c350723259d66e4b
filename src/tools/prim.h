/*
 * The independent reference: Prim's algorithm on the complete graph, in
 * double precision, O(n^2) time and O(n) memory.  Used by --verify and the
 * tests; shares no code with the solver.
 */
#ifndef GEMST_PRIM_H
#define GEMST_PRIM_H

#include <stdint.h>

#include "gridemst.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Minimum spanning tree of n points (interleaved, dim 2 or 3, float or
 * double) under Euclidean distance computed in double from the given
 * coordinates.  Ties are broken by the solver's edge order (squared length,
 * smaller id, larger id), so on inputs without near-ties the edges are the
 * same as the solver's.  Writes n - 1 edges sorted by (w, u, v) to edges
 * (caller-allocated, n - 1 entries; may be NULL) and returns the total
 * length, or a negative value when memory runs out.
 */
double gemst_prim_reference(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_edge *edges);

/*
 * Squared core distances for HDBSCAN*'s mutual reachability: for each point
 * the k-th smallest of its squared distances to all n points, itself (0)
 * and its duplicates included (scikit-learn's definition of min_samples k),
 * into core2[0..n).  Returns 0, or -1 when memory runs out.
 */
int gemst_core_reference(const void *coords, gridemst_dtype dtype, int64_t n, int dim, int64_t k, double *core2);

/* gemst_prim_reference under mutual reachability for min_samples (the plain
 * Euclidean tree for min_samples < 2): edge (a, b) is as long as the greatest
 * of |a - b| and the two core distances.  k must not exceed n. */
double gemst_prim_mr_reference(const void *coords, gridemst_dtype dtype, int64_t n, int dim, int64_t min_samples,
                               gridemst_edge *edges);

/* Sorts edges by (w, u, v). */
void gemst_edges_sort(gridemst_edge *edges, int64_t m);

#ifdef __cplusplus
}
#endif

#endif
