/*
 * The late BVH (precision-generic, see real.h): from some Borůvka iteration
 * on, the grid index with static pruning stops searching the grid and
 * searches a BVH over the grid's points instead (bvh/, as nns BVH does).
 *
 * Why: once clusters have merged into a few large components, a
 * component's shortest outgoing edge spans the gap to the next cluster,
 * and every point of its rim must show that nothing of another component
 * lies nearer.  The grid's searches visit every cell within that reach,
 * nearly all of them the point's own component's; the BVH skips a subtree
 * that holds only the point's component at once.  Measured on an H100,
 * 1e7 points, iterations 5 to 9 of blobs 3D took 17.1 ms of grid searches
 * and 6.0 of BVH searches; varden 3D's last iteration 14.2 against 1.1.
 * On uniform and normal sets the grid's late iterations are the cheaper
 * (0.3-0.9 ms against 0.5-2.2), and nothing is switched.  The CPU
 * backend switches by a rule (gemst_late_bvh_due); the CUDA backend only
 * when asked (gemst_late_bvh_forced), and for HDBSCAN*'s tree
 * (gemst_late_bvh_mutual).
 *
 * The grid is not searched again: the points (coordinates, ids, component
 * labels and links) move into Morton order, so that a leaf's points, and
 * the queries of neighbouring threads, are neighbours in memory.  The
 * tree's leaves are runs of GEMST_LATE_BVH_LEAF points, so that it fits in
 * the memory the static search's candidates leave behind (bvh.h: a node's
 * record and range end, 36 bytes in float, per 4 points, 4 for the label
 * breaks and 4 for the bounds, against 24 + 1 + 4 + 4 freed; the sort's
 * codes and order and the move's scratch come and go before the nodes).
 *
 * The BVH search skips a point whose lower bound (best_d2, bvh_query.h)
 * exceeds its component's bound.  At the switch that bound comes from the
 * static search (gemst_late_bvh_bound): without it every point searched
 * in the first iteration, which cost more than the grid's searches (H100,
 * blobs 3D 1e7: 9.1 ms against 7.2).
 */
#ifndef GEMST_LATE_BVH_H
#define GEMST_LATE_BVH_H

#include <math.h>

#include "nns/findmin1.h"
#include "bvh/morton.h"

#define GEMST_LATE_BVH_LEAF 4

/* The CPU backend's rule (option 0): switch after an iteration whose
 * fallback searched from at least one point in GEMST_LATE_BVH_FALLBACKS
 * and that added an edge GEMST_LATE_BVH_REACH times the mean spacing of
 * the points or longer (the side of a cube holding one point, were they
 * spread evenly over the grid's cells).  A component's shortest outgoing
 * edge never gets shorter as it grows, so the next iteration's searches
 * reach as far, from as many points: the gaps between the merged clusters
 * are wide for the grid.  Measured (H100, and the CPU's 2 cores), those
 * reach 6 to 90 spacings on varden sets, where the switch paid, and at
 * most 4.6 on blobs, uniform and normal sets, where it did not or was not
 * needed.  The CUDA backend has no rule: its grid serves only sets that
 * fill their box evenly (nns auto), whose gaps stay narrow, and the BVH
 * index serves the others from the start. */
#define GEMST_LATE_BVH_FALLBACKS 8
#define GEMST_LATE_BVH_REACH 8.0

/* An edge of the given length in mean spacings, for nu points in `cells`
 * cells of the given side in dim dimensions (lengths in any one unit). */
static inline double gemst_late_bvh_reach(double length, double side, uint64_t cells, uint32_t nu, int dim)
{
    return length / (side * pow((double)cells / (double)nu, 1.0 / dim));
}

/* Whether an explicit option K >= 1 (gridemst_options.tuning.late_bvh)
 * switches before `iteration` (counted from 0) of a solve of nu points:
 * from iteration K on, where the tree has more than two leaves. */
static inline GEMST_HD int gemst_late_bvh_forced(int option, int iteration, uint32_t nu)
{
    return option > 0 && iteration >= option && nu > 2 * GEMST_LATE_BVH_LEAF;
}

/* The CPU backend's choice before `iteration` of a solve of nu points,
 * after an iteration whose fallback searched from `fallbacks` points and
 * whose longest edge reached `reach` mean spacings (gemst_late_bvh_reach):
 * the rule above for option 0, gemst_late_bvh_forced otherwise (-1:
 * never). */
static inline GEMST_HD int gemst_late_bvh_due(int option, int iteration, uint32_t nu, uint64_t fallbacks,
                                              double reach)
{
    if (option != 0)
        return gemst_late_bvh_forced(option, iteration, nu);
    return iteration >= 1 && nu > 2 * GEMST_LATE_BVH_LEAF && fallbacks >= nu / GEMST_LATE_BVH_FALLBACKS &&
           reach >= GEMST_LATE_BVH_REACH;
}

/* Whether the grid index hands HDBSCAN*'s mutual-reachability tree
 * (`mutual`: the grid carries core distances) to the late BVH from the
 * first iteration on: the grid computes the core distances, for which its
 * ring search is the faster than the BVH's traversal, and the BVH runs
 * Borůvka, where the grid's plain ring search (prune none: the slab
 * pruning does not hold for this length) falls back from millions of
 * points.  Each point's lower bound is its core distance.  CPU time of
 * the whole run, one thread, blobs 1e6 points, min_samples 10: 2D 5.9 s
 * with the grid's ring search, 2.8 with this switch, 3.1-4.0 with nns BVH;
 * 3D 9.7, 5.0 and 5.9.  option as gridemst_options.tuning.late_bvh: -1 keeps the
 * grid's ring search, K >= 1 switches before iteration K. */
static inline GEMST_HD int gemst_late_bvh_mutual(int option, int mutual, int iteration, uint32_t nu)
{
    return mutual && option >= 0 && iteration == option && nu > 2 * GEMST_LATE_BVH_LEAF;
}

/* The Morton code of grid point k in the grid's box. */
static inline GEMST_HD uint64_t GEMST_FN(gemst_late_bvh_code)(const gemst_grid *g, uint32_t k)
{
    const double p[3] = {(double)g->x[k], (double)g->y[k], g->dim == 3 ? (double)g->z[k] : 0.0};
    const double lo[3] = {(double)g->origin[0], (double)g->origin[1], (double)g->origin[2]};
    return gemst_morton_in(g->dim, p, lo, g->unit);
}

/* Grid point q's lower bound at the switch: every tree edge from q to
 * another component is at least this long.  Its static candidates hold
 * every tree edge shorter than rb2 (search.h), so the bound is rb2, or the
 * nearest candidate in another component when nearer.  (The scan drops the
 * candidates in q's component, as gemst_static_scan does.) */
static inline GEMST_HD gemst_real GEMST_FN(gemst_late_bvh_bound)(const gemst_grid *g, const gemst_findmin1_state *st,
                                                               uint32_t q)
{
    gemst_query qq;
    gemst_edge_key best = gemst_edge_none();
    uint32_t to = GEMST_NONE;
    GEMST_FN(gemst_query_point)(g, q, &qq);
    GEMST_FN(gemst_static_scan)(g, &qq, st->comp, st->comp[q], st->cand + (size_t)q * GEMST_CAND_SLOTS, st->ncand[q],
                                &best, &to);
    return best.d2 < st->rb2[q] ? best.d2 : st->rb2[q];
}

/* Point k's label after the move (its point order[k] moved to k; inv is
 * the inverse of order): a label is a point. */
static inline GEMST_HD uint32_t gemst_late_bvh_relabel(const uint32_t *order, const uint32_t *inv,
                                                       const uint32_t *label, uint32_t k)
{
    return inv[label[order[k]]];
}

/* Points per leaf: GEMST_LATE_BVH_LEAF, or 1 for the mutual-reachability
 * tree, which frees no static state to fit in and whose searches were the
 * faster with single points (CPU time of the whole run as above: 2D 2.8 s
 * against 3.7 with leaves of 4, 3D 5.0 against 6.8). */
static inline GEMST_HD uint32_t gemst_late_bvh_leaf(int mutual)
{
    return mutual ? 1 : GEMST_LATE_BVH_LEAF;
}

#endif
