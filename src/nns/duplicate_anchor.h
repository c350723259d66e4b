/*
 * Where the exact duplicates of a point join HDBSCAN*'s mutual-reachability
 * tree (precision-generic, see real.h), for a CPU loop iteration or a CUDA
 * thread.
 *
 * The solve works on the unique points; a duplicate a' of the point a (the
 * equal point of smallest id) is at mutual reachability core(a) from a, and
 * at the same length as a from every other point.  Kruskal in edge order
 * then joins a' by its first edge, (x, a') with x the smallest id at length
 * core(a) from a': a itself, or a unique point b < a with |a - b| <= core(a)
 * and core(b) <= core(a).  Every later edge of a' comes after the same edge
 * from a and closes a cycle, so the unique points' tree is unchanged.  The
 * tree joins a' to x at core(a): x is the far end of a's shortest edge in
 * the first Borůvka iteration when that edge has length core(a) and a
 * smaller id, else a.
 */
#ifndef GEMST_DUPLICATE_ANCHOR_H
#define GEMST_DUPLICATE_ANCHOR_H

#include "nns/findmin1.h"

/* The caller id the duplicates of grid point i join, read in the first
 * Borůvka iteration once every point's component (itself) holds its
 * shortest edge (win_in, win_out); the grid carries the core distances. */
static inline GEMST_HD uint32_t GEMST_FN(gemst_duplicate_anchor)(const gemst_grid *g, const uint32_t *win_in,
                                                                const uint32_t *win_out, uint32_t i)
{
    const uint32_t own = g->oid[i];
    const gemst_edge_key e = GEMST_FN(gemst_first_edge)(g, win_in, win_out, i);
    const uint32_t other = e.lo == own ? e.hi : e.lo;
    return e.d2 == g->core2[i] && other < own ? other : own;
}

#endif
