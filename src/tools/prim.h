/*
 * The independent reference: Prim's algorithm on the complete graph, O(n^2)
 * time and O(n) memory.  Used by --verify, the solver fuzzer and the tests;
 * shares no code with the solver.
 *
 * It computes what gridemst.h documents the solver to compute ("Working
 * points"), from that description alone:
 *   - double precision: every coordinate scaled by 2^-k, where the largest
 *     |coordinate| is m 2^k with m in [0.5, 1) (2^-k at most 2^1023), and
 *     squared distances ((dx dx + dy dy) + dz dz) rounded in double;
 *   - float precision: (x - min) scaled by 2^-k, where the widest side of the
 *     bounding box is m 2^k (the same cap), rounded to float, and the same
 *     squared distance rounded in float.
 * Ties are broken by the solver's edge order (squared length, smaller id,
 * larger id), under which the tree is unique: the solver must return
 * exactly these edges.  Each edge's length is sqrt(d2) / 2^-k in double, as
 * the solver reports it.
 */
#ifndef GEMST_PRIM_H
#define GEMST_PRIM_H

#include <stdint.h>

#include "gridemst.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The tree of n points (interleaved, dim 2 or 3, float or double) in the
 * given precision's working points: n - 1 edges sorted by (w, u, v) into
 * edges (caller-allocated, n - 1 entries; may be NULL), and when d2 is not
 * NULL each edge's squared length in working units (the d2 that decided
 * it) into d2[k].  Returns the total length; -1 when memory runs out; NaN
 * in float precision when a side of the bounding box is wider than the
 * largest double (the solver refuses such points).
 */
double gemst_prim_working(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_precision precision,
                          gridemst_edge *edges, double *d2);

/* The double-precision tree (gemst_prim_working with no d2). */
double gemst_prim_reference(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_edge *edges);

/* The double-precision tree under HDBSCAN*'s mutual reachability for
 * min_samples k (the plain tree for k < 2): edge (a, b) is as long as the
 * greatest of |a - b| and the two core distances, a point's core distance
 * being the k-th smallest of its distances to all n points, itself (0) and
 * its duplicates included (scikit-learn's min_samples).  k must not exceed
 * n.  Returns the total, -1 when memory runs out. */
double gemst_prim_mr_reference(const void *coords, gridemst_dtype dtype, int64_t n, int dim, int64_t min_samples,
                               gridemst_edge *edges);

/* The power of two 2^-k the working points of the precision are scaled by
 * (see above); in float precision, also the box's minimum into lo[0..dim). */
double gemst_prim_scale(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_precision precision,
                        double lo[3]);

/* Working coordinate d of point i in the precision, for the box minimum lo
 * and the scale gemst_prim_scale gives (lo is unused in double). */
double gemst_prim_working_coord(const void *coords, gridemst_dtype dtype, int dim, gridemst_precision precision,
                                const double lo[3], double scale, int64_t i, int d);

/* The squared length of edge (a, b) in working units in the precision,
 * for lo and scale as above. */
double gemst_prim_dist2(const void *coords, gridemst_dtype dtype, int dim, gridemst_precision precision,
                        const double lo[3], double scale, int64_t a, int64_t b);

/* The length of edge (a, b) in the double-precision reference, for the
 * scale gemst_prim_scale gives in double precision. */
double gemst_prim_length(const void *coords, gridemst_dtype dtype, int dim, double scale, int64_t a, int64_t b);

/* Sorts edges by (w, u, v). */
void gemst_edges_sort(gridemst_edge *edges, int64_t m);

#ifdef __cplusplus
}
#endif

#endif
