/*
 * The length of a candidate tree edge, as every search for a point's
 * nearest point of another component measures it (precision-generic, see
 * real.h): the squared Euclidean distance, or, when the grid carries core
 * distances (gridemst_options.min_samples >= 2), HDBSCAN*'s mutual
 * reachability, squared:
 *
 *     d_mr(a, b)^2 = max(core(a)^2, core(b)^2, |a - b|^2)
 *
 * compared in the working precision like the Euclidean lengths, so the
 * edge order (graph/edge_order.h) and Borůvka are unchanged.
 *
 * What stays sound for this length: every lower bound on |a - b| (ring and
 * box bounds, the BVH's) bounds d_mr(a, b), which is never shorter; and no
 * edge of a is shorter than core(a), so a search need not look for one
 * below it.  What does not: the slab uniqueness argument (nns/slab.h,
 * static and dynamic pruning).  For p nearest to q in a slab and w farther
 * in it, |p - w| < |q - w| does not make (q, w) the longest edge of the
 * triangle under d_mr: core(p) may exceed d_mr(q, w), and then both (q, p)
 * and (p, w) are longer than (q, w).  The solver therefore runs the grid's
 * plain ring search (prune none) or the BVH for this length.
 */
#ifndef GEMST_EDGE_LENGTH_H
#define GEMST_EDGE_LENGTH_H

#include "nns/ring.h"

/* The greatest of a squared distance and two squared core distances. */
static inline GEMST_HD gemst_real gemst_reach2(gemst_real d2, gemst_real core_a, gemst_real core_b)
{
    const gemst_real c = core_a > core_b ? core_a : core_b;
    return d2 > c ? d2 : c;
}

/* The squared length of edge (query, grid point p). */
static inline GEMST_HD gemst_real GEMST_FN(gemst_edge_d2_q)(const gemst_grid *g, const gemst_query *qq, uint32_t p)
{
    const gemst_real d2 = GEMST_FN(gemst_dist2_q)(g, qq, p);
    return g->core2 ? gemst_reach2(d2, qq->core2, g->core2[p]) : d2;
}

/* The squared length of edge (grid points a, b); equal to gemst_edge_d2_q
 * for the query made from a. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_edge_d2)(const gemst_grid *g, uint32_t a, uint32_t b)
{
    const gemst_real d2 = GEMST_FN(gemst_dist2)(g, a, b);
    return g->core2 ? gemst_reach2(d2, g->core2[a], g->core2[b]) : d2;
}

#endif
