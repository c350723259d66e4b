/*
 * A solver's tree against the independent reference (tools/prim.h), edge
 * by edge: what --verify checks.
 */
#ifndef GEMST_TREE_CHECK_H
#define GEMST_TREE_CHECK_H

#include <stdint.h>

#include "gridemst.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gemst_tree_check {
    double reference_weight; /* the reference tree's total length */
    double max_abs_diff;     /* the largest |w - reference w| over the two sorted length lists */
    double tolerance;        /* the largest per-edge tolerance applied */
    char reason[256];        /* why the tree failed; empty when it passed */
} gemst_tree_check;

/*
 * Checks the m edges a solve in the given precision returned for n points
 * (interleaved, dim 2 or 3) against Prim's tree of the double-precision
 * working points (gemst_prim_working):
 *   - shape: n - 1 edges u < v between point ids, in (w, u, v) order, with
 *     no cycle;
 *   - lengths: the two sorted lists of lengths (the same for every minimum
 *     spanning tree of a graph) agree position by position within the
 *     rounding of one distance evaluation in the solve's precision: none in
 *     double, where the solver evaluates the reference's own squared
 *     distances; in float, the rounding of the working coordinates to float
 *     and of the arithmetic (gemst_tree_tolerance);
 *   - edges: in double precision the two trees are identical.  In float, an
 *     edge the reference tree lacks closes a cycle with it; it must tie,
 *     within that rounding, with the longest reference edge on the cycle
 *     (which rounding let it replace).  Where lengths are unique beyond
 *     rounding, the edges are therefore the reference's.
 * Returns 1 when the tree passes, 0 when it fails (out->reason says why),
 * -1 when memory runs out.
 */
int gemst_check_tree(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_precision precision,
                     const gridemst_edge *edges, int64_t m, gemst_tree_check *out);

/*
 * What can be checked of a tree too large for Prim, in time linear in n
 * and on every thread: n - 1 edges u < v between point ids, in (w, u, v)
 * order, each as long as its ends lie apart (exactly in double precision,
 * within gemst_tree_tolerance in float).  It proves neither that the edges
 * make no cycle nor that the tree is minimal.  Returns 1 when the tree
 * passes, 0 when it fails (out->reason says why; out->reference_weight is
 * 0), -1 when memory runs out.
 */
int gemst_check_edges(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_precision precision,
                      const gridemst_edge *edges, int64_t m, gemst_tree_check *out);

/* The rounding of one distance evaluation of length w in the precision, in
 * the caller's units, for points whose float working frame has the scale
 * float_scale (gemst_prim_scale): 0 in double; in float, each coordinate's
 * rounding to float (half a unit in the last place of [0, 1], 2^-25, moves
 * a length by up to sqrt(dim) 2^-24 working units), the rounding of the
 * float arithmetic (below (dim + 3) 2^-24 w, relative) and float underflow
 * of tiny squared lengths (2^-62 working units). */
double gemst_tree_tolerance(int dim, gridemst_precision precision, double float_scale, double w);

#ifdef __cplusplus
}
#endif

#endif
