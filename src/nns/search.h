/*
 * FindMin1 per point: the searches of the three grid strategies, written
 * once for the CPU loops and the CUDA kernels.
 *
 *  none     gemst_nearest_foreign: the nearest point of another component.
 *  dynamic  gemst_dynamic_search: the same restricted to the query's open
 *           slabs; a slab whose nearest point turns out to be in the query's
 *           own component is closed for good (the uniqueness property: no
 *           point of that slab can give the component's shortest edge).
 *  static   gemst_knn + gemst_static_candidates, once: the query's K nearest
 *           points, of which only the first of each slab that is not the
 *           longest side of a triangle with an earlier one is kept.  These
 *           candidates hold every tree edge of the query shorter than the
 *           K-th neighbour's distance (and every tree edge, when the
 *           neighbours shadow every slab); later iterations only scan them.
 *
 * Each search may stop early (a ring cap, or the K-neighbour horizon) and
 * then returns a lower bound rb2 on the squared distance of everything it
 * did not examine, infinity when it examined enough to be exact.  Points
 * with rb2 at most their component's best edge are searched again, without
 * cap, by gemst_nearest_foreign with that edge as cutoff (the fallback).
 */
#ifndef GEMST_SEARCH_H
#define GEMST_SEARCH_H

#include "nns/walk.h"
#include "nns/edge_length.h"
#include "nns/slab.h"
#include "graph/boruvka.h"

/* Neighbours the static strategy examines per point at most (the lists'
 * size), and the candidates it keeps (measured on uniform sets with 8
 * neighbours: 2.5 on average in 2D, 3.0 in 3D, at most 6; a rare seventh
 * is dropped, which lowers the point's search bound). */
#define GEMST_KNN 8
#define GEMST_CAND_SLOTS 6

/* Neighbours the static strategy examines per point in dimension dim: all
 * GEMST_KNN in 2D, where 8 neighbours often shadow every slab
 * (gemst_knn_complete; with 6, uniform 2D 1e7 was 8% slower on an H200);
 * 6 in 3D, where no list is complete: each neighbour more costs every
 * point's search and spares only some points a fallback search.  H200,
 * 1e7 points, device ms with 8 / 6 / 5 / 4 neighbours in 3D: uniform 20.9
 * / 20.3 / 22.0 / 24.6, normal 46.3 / 40.9 / 42.3 / 45.9, blobs 97.7 /
 * 93.0 / 116 / 117, varden 157 / 141 / 130 / 123. */
static inline GEMST_HD int gemst_knn_k(int dim)
{
    return dim == 3 ? 6 : GEMST_KNN;
}

/* Rings the none and dynamic strategies search before deferring a point to
 * the fallback. */
#define GEMST_RING_CAP 2

/* The slab of grid point p seen from the query. */
static inline GEMST_HD int GEMST_FN(gemst_slab_of)(const gemst_grid *g, const gemst_query *qq, uint32_t p)
{
    return gemst_slab(g->dim, GEMST_SUB(g->x[p], qq->q[0]), GEMST_SUB(g->y[p], qq->q[1]),
                      g->dim == 3 ? GEMST_SUB(g->z[p], qq->q[2]) : (gemst_real)0);
}

/* A search's bound shared by the searches of one component (may be NULL):
 * lowered to *best when that improved, then read back; returns the bound
 * to prune with. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_share_bound)(gemst_word1 *shared, const gemst_edge_key *best,
                                                            int improved)
{
    if (!shared)
        return best->d2;
    if (improved)
        GEMST_FN(gemst_atomic_min_word1)(shared, gemst_edge_word1(best->d2));
    gemst_real s = gemst_edge_word1_value(GEMST_FN(gemst_load_word1)(shared));
    return s < best->d2 ? s : best->d2;
}

/* The nearest point of range [b, e) in another component than comp_q and in
 * a slab of `open`, if it beats *best (gemst_nearest_foreign); points
 * farther than cut are passed over, and with breaks runs of comp_q's points
 * are jumped.  Returns whether *best improved. */
static inline GEMST_HD int GEMST_FN(gemst_scan_foreign)(const gemst_grid *g, const gemst_query *qq,
                                                      const uint32_t *comp, const uint32_t *breaks, uint32_t comp_q,
                                                      uint64_t open, uint32_t b, uint32_t e, gemst_real cut,
                                                      gemst_edge_key *best, uint32_t *best_to)
{
    const int all_open = open == gemst_slab_full_mask(g->dim);
    int improved = 0;
    for (uint32_t p = b; p < e; p++) {
        if (comp[p] == comp_q) {
            p = gemst_own_run_end(breaks, p, e) - 1;
            continue;
        }
        gemst_real d2 = GEMST_FN(gemst_edge_d2_q)(g, qq, p);
        if (d2 > cut)
            continue;
        gemst_edge_key cand = gemst_edge_make(d2, qq->oid, g->oid[p]);
        if (!gemst_edge_less(cand, *best))
            continue;
        if (!all_open && !((open >> GEMST_FN(gemst_slab_of)(g, qq, p)) & 1))
            continue;
        *best = cand;
        *best_to = p;
        cut = d2;
        improved = 1;
    }
    return improved;
}

/*
 * The nearest point (in edge order) of a component other than comp_q whose
 * slab is in `open`, if it beats *best; updates *best and *best_to.
 * Searches rings 0..max_ring and returns the lower bound of what it did not
 * examine (infinity when the search is exact).  Without a ring cap
 * (INT32_MAX) it goes on by row shells after GEMST_FAR_RINGS rings, and
 * with a shared bound (gemst_share_bound; NULL: none) it prunes with that
 * too: it is then exact up to the shared bound it last read.  With breaks
 * (walk.h; may be NULL), ranges of comp_q's points are passed over unread.
 */
static inline GEMST_HD gemst_real GEMST_FN(gemst_nearest_foreign)(const gemst_grid *g, const gemst_query *qq,
                                                                const uint32_t *comp, const uint32_t *breaks,
                                                                uint32_t comp_q, uint64_t open, int max_ring,
                                                                gemst_word1 *shared, gemst_edge_key *best,
                                                                uint32_t *best_to)
{
    const gemst_own own = {breaks, comp, comp_q};
    gemst_cells top;
    gemst_walk w;
    gemst_walk_stack ws;
    uint32_t b, e;
    int r = 0, improved = 0;
    gemst_real cut = GEMST_FN(gemst_share_bound)(shared, best, 0);
    GEMST_FN(gemst_top_cells)(g, &top);
    for (;; r++) {
        GEMST_FN(gemst_walk_begin)(g, qq, r, max_ring == INT32_MAX, &w);
        while (GEMST_FN(gemst_walk_next)(g, qq, &w, &ws, &own, cut, &b, &e))
            if (GEMST_FN(gemst_scan_foreign)(g, qq, comp, breaks, comp_q, open, b, e, cut, best, best_to)) {
                cut = best->d2 < cut ? best->d2 : cut;
                improved = 1;
            }
        cut = GEMST_FN(gemst_share_bound)(shared, best, improved);
        gemst_real lb2 = GEMST_FN(gemst_ring_outer_lb2)(&top, qq->q, qq->q, qq->c, r);
        if (lb2 == GEMST_REAL_INF || lb2 > cut)
            return GEMST_REAL_INF;
        if (r >= max_ring)
            return lb2;
        if (max_ring == INT32_MAX && r >= GEMST_FAR_RINGS && cut < GEMST_REAL_INF)
            break;
    }
    for (int s = 0;; s++) {
        GEMST_FN(gemst_walk_shell_begin)(g, qq, s, r, 1, &w);
        while (GEMST_FN(gemst_walk_next)(g, qq, &w, &ws, &own, cut, &b, &e))
            if (GEMST_FN(gemst_scan_foreign)(g, qq, comp, breaks, comp_q, open, b, e, cut, best, best_to)) {
                cut = best->d2 < cut ? best->d2 : cut;
                improved = 1;
            }
        cut = GEMST_FN(gemst_share_bound)(shared, best, improved);
        if (s < r)
            continue;
        gemst_real lb2 = GEMST_FN(gemst_shell_outer_lb2)(&top, qq->q, qq->q, qq->c, s);
        if (lb2 == GEMST_REAL_INF || lb2 > cut)
            return GEMST_REAL_INF;
    }
}

/* Each slab's nearest point seen by a search (edge order; any component). */
#define gemst_slab_nearest GEMST_FN(gemst_slab_nearest)
typedef struct {
    gemst_real d2[GEMST_SLABS_3D];
    uint32_t pt[GEMST_SLABS_3D];
} gemst_slab_nearest;

/*
 * Ring search over the slabs open in `open`: each open slab's nearest point
 * goes to *sn, and the nearest point of another component that beats *best
 * to *best and *best_to.  Points farther than *best matter to neither
 * result that is used and are skipped.  The search stops when nothing
 * unexamined can beat *best, when every open slab's nearest point is
 * certain (everything farther in a slab is shadowed by it: the uniqueness
 * property), when the rings cover the grid, or after ring max_ring.
 * Returns the lower bound of the unexamined region (infinity when the grid
 * was covered): slab s's nearest point is certain when sn->d2[s] is below it
 * and at most *best.
 */
static inline GEMST_HD gemst_real GEMST_FN(gemst_slab_search)(const gemst_grid *g, const gemst_query *qq,
                                                            const uint32_t *comp, uint32_t comp_q, uint64_t open,
                                                            int max_ring, gemst_slab_nearest *sn,
                                                            gemst_edge_key *best, uint32_t *best_to)
{
    const int slabs = gemst_slab_count(g->dim);
    const gemst_own own = {NULL, comp, comp_q}; /* own points close slabs: none is skipped */
    gemst_cells top;
    GEMST_FN(gemst_top_cells)(g, &top);
    for (int s = 0; s < slabs; s++) {
        sn->d2[s] = GEMST_REAL_INF;
        sn->pt[s] = GEMST_NONE;
    }
    for (int r = 0;; r++) {
        gemst_walk w;
        gemst_walk_stack ws;
        uint32_t b, e;
        GEMST_FN(gemst_walk_begin)(g, qq, r, 0, &w);
        while (GEMST_FN(gemst_walk_next)(g, qq, &w, &ws, &own, best->d2, &b, &e)) {
            for (uint32_t p = b; p < e; p++) {
                if (p == qq->idx)
                    continue;
                gemst_real d2 = GEMST_FN(gemst_dist2_q)(g, qq, p);
                if (d2 > best->d2)
                    continue;
                int s = GEMST_FN(gemst_slab_of)(g, qq, p);
                if (!((open >> s) & 1))
                    continue;
                uint32_t po = g->oid[p];
                if (d2 < sn->d2[s] || (d2 == sn->d2[s] && po < g->oid[sn->pt[s]])) {
                    sn->d2[s] = d2;
                    sn->pt[s] = p;
                }
                if (comp[p] != comp_q) {
                    gemst_edge_key cand = gemst_edge_make(d2, qq->oid, po);
                    if (gemst_edge_less(cand, *best)) {
                        *best = cand;
                        *best_to = p;
                    }
                }
            }
        }
        gemst_real lb2 = GEMST_FN(gemst_ring_outer_lb2)(&top, qq->q, qq->q, qq->c, r);
        if (lb2 == GEMST_REAL_INF || lb2 > best->d2 || r >= max_ring)
            return lb2;
        int certain = 1;
        for (int s = 0; s < slabs && certain; s++)
            certain = !((open >> s) & 1) || (sn->d2[s] < lb2 && sn->d2[s] >= GEMST_SLAB_MIN_D2);
        if (certain)
            return lb2;
    }
}

/* Whether sn's nearest point of slab s is certain after a search that
 * returned lb2 with best as its final edge, and far enough from the query
 * to shadow the rest of its slab in computed arithmetic. */
static inline GEMST_HD int GEMST_FN(gemst_slab_certain)(const gemst_slab_nearest *sn, int s, gemst_real lb2,
                                                      const gemst_edge_key *best)
{
    return sn->pt[s] != GEMST_NONE && sn->d2[s] <= best->d2 && (lb2 == GEMST_REAL_INF || sn->d2[s] < lb2) &&
           sn->d2[s] >= GEMST_SLAB_MIN_D2;
}

/* Whether the search left nothing that can give the query's component its
 * shortest edge: it covered the region within *best, or every open slab's
 * nearest point is certain. */
static inline GEMST_HD int GEMST_FN(gemst_search_exact)(const gemst_grid *g, const gemst_slab_nearest *sn,
                                                      uint64_t open, gemst_real lb2, const gemst_edge_key *best)
{
    if (lb2 == GEMST_REAL_INF || lb2 > best->d2)
        return 1;
    for (int s = 0; s < gemst_slab_count(g->dim); s++)
        if (((open >> s) & 1) && !GEMST_FN(gemst_slab_certain)(sn, s, lb2, best))
            return 0;
    return 1;
}

/*
 * Dynamic pruning: gemst_slab_search over the slabs open in *open; slabs
 * whose nearest point is certain and lies in comp_q are closed for good (no
 * point of them can give the component its shortest edge, now or later).
 * Returns infinity when the search is exact, else its lower bound.
 */
static inline GEMST_HD gemst_real GEMST_FN(gemst_dynamic_search)(const gemst_grid *g, const gemst_query *qq,
                                                               const uint32_t *comp, uint32_t comp_q,
                                                               uint64_t *open, int max_ring,
                                                               gemst_edge_key *best, uint32_t *best_to)
{
    gemst_slab_nearest sn;
    gemst_real lb2 = GEMST_FN(gemst_slab_search)(g, qq, comp, comp_q, *open, max_ring, &sn, best, best_to);
    int exact = GEMST_FN(gemst_search_exact)(g, &sn, *open, lb2, best);
    for (int s = 0; s < gemst_slab_count(g->dim); s++)
        if (((*open >> s) & 1) && GEMST_FN(gemst_slab_certain)(&sn, s, lb2, best) && comp[sn.pt[s]] == comp_q)
            *open &= ~((uint64_t)1 << s);
    return exact ? GEMST_REAL_INF : lb2;
}

/* The caller id of a list entry's point (GEMST_NONE: an empty entry, which
 * every point precedes).  Read only to break a tie of distances, so the
 * lists hold no caller ids of their own: on the GPU those took 6 more
 * registers per thread and moves in every insertion (H100, 1e7 points,
 * static search ms with / without them: blobs 3D 30.7 / 28.5, varden 3D
 * 20.3 / 18.3, normal 3D 12.2 / 11.3, uniform 3D 6.37 / 6.02, uniform 2D
 * 4.64 / 4.46). */
static inline GEMST_HD uint32_t GEMST_FN(gemst_knn_oid)(const gemst_grid *g, uint32_t id)
{
    return id == GEMST_NONE ? UINT32_MAX : g->oid[id];
}

/* Whether (d2, caller id po) precedes list entry (ed2, eid) in edge order. */
static inline GEMST_HD int GEMST_FN(gemst_knn_before)(const gemst_grid *g, gemst_real d2, uint32_t po, gemst_real ed2,
                                                    uint32_t eid)
{
    return d2 < ed2 || (d2 == ed2 && po < GEMST_FN(gemst_knn_oid)(g, eid));
}

/* Inserts (d2, p) into the sorted list of `count` entries (K when full,
 * dropping the last).  On the GPU with fixed indices and no early exit, so
 * that the compiler keeps the lists in registers; on the CPU shifting only
 * the entries that move. */
static inline GEMST_HD void GEMST_FN(gemst_knn_insert)(const gemst_grid *g, gemst_real kd2[GEMST_KNN],
                                                     uint32_t kid[GEMST_KNN], int K, int count, gemst_real d2,
                                                     uint32_t p, uint32_t po)
{
#ifdef __CUDA_ARCH__
    (void)count;
    int placed = 0;
#pragma unroll
    for (int k = GEMST_KNN - 1; k >= 0; k--) {
        if (k >= K)
            continue;
        if (k > 0 && GEMST_FN(gemst_knn_before)(g, d2, po, kd2[k - 1], kid[k - 1])) {
            kd2[k] = kd2[k - 1];
            kid[k] = kid[k - 1];
        } else if (!placed) {
            kd2[k] = d2;
            kid[k] = p;
            placed = 1;
        }
    }
#else
    int k = count < K ? count : K - 1;
    for (; k > 0 && GEMST_FN(gemst_knn_before)(g, d2, po, kd2[k - 1], kid[k - 1]); k--) {
        kd2[k] = kd2[k - 1];
        kid[k] = kid[k - 1];
    }
    kd2[k] = d2;
    kid[k] = p;
#endif
}

/* Offers grid point p at squared distance d2 to the query's list of
 * `*count` of its K nearest points (gemst_knn). */
static inline GEMST_HD void GEMST_FN(gemst_knn_offer)(const gemst_grid *g, const gemst_query *qq, int K, gemst_real d2,
                                                    uint32_t p, gemst_real kd2[GEMST_KNN], uint32_t kid[GEMST_KNN],
                                                    int *count)
{
    if (d2 > kd2[K - 1] || p == qq->idx)
        return;
    uint32_t po = g->oid[p];
    if (!GEMST_FN(gemst_knn_before)(g, d2, po, kd2[K - 1], kid[K - 1]))
        return;
    GEMST_FN(gemst_knn_insert)(g, kd2, kid, K, *count, d2, p, po);
    if (*count < K)
        (*count)++;
}

/* Empties a list of nearest points. */
static inline GEMST_HD void GEMST_FN(gemst_knn_clear)(gemst_real kd2[GEMST_KNN], uint32_t kid[GEMST_KNN])
{
    GEMST_UNROLL
    for (int k = 0; k < GEMST_KNN; k++) {
        kd2[k] = GEMST_REAL_INF;
        kid[k] = GEMST_NONE;
    }
}

/* Goes on with the query's list of `*count` nearest points from ring r0,
 * once rings 0 .. r0 - 1 have been offered to it, until nothing farther
 * can enter it. */
static inline GEMST_HD void GEMST_FN(gemst_knn_rings)(const gemst_grid *g, const gemst_query *qq, int K, int r0,
                                                    gemst_real kd2[GEMST_KNN], uint32_t kid[GEMST_KNN], int *count)
{
    const gemst_own none = {NULL, NULL, GEMST_NONE};
    gemst_cells top;
    GEMST_FN(gemst_top_cells)(g, &top);
    for (int r = r0;; r++) {
        gemst_walk w;
        gemst_walk_stack ws;
        uint32_t b, e;
        GEMST_FN(gemst_walk_begin)(g, qq, r, 0, &w);
        while (GEMST_FN(gemst_walk_next)(g, qq, &w, &ws, &none, kd2[K - 1], &b, &e))
            for (uint32_t p = b; p < e; p++)
                GEMST_FN(gemst_knn_offer)(g, qq, K, GEMST_FN(gemst_dist2_q)(g, qq, p), p, kd2, kid, count);
        gemst_real lb2 = GEMST_FN(gemst_ring_outer_lb2)(&top, qq->q, qq->q, qq->c, r);
        if (lb2 == GEMST_REAL_INF || lb2 > kd2[K - 1])
            return;
    }
}

/* The query's K nearest points in edge order, nearest first, in kd2/kid;
 * returns how many were found (fewer than K only when the grid has fewer
 * other points).  K is gemst_knn_k(dim), an argument so that the GPU's
 * instance per dimension sees a constant and keeps the lists in
 * registers (from g->dim the static search was 20% slower). */
static inline GEMST_HD int GEMST_FN(gemst_knn)(const gemst_grid *g, const gemst_query *qq, int K,
                                             gemst_real kd2[GEMST_KNN], uint32_t kid[GEMST_KNN])
{
    int count = 0;
    GEMST_FN(gemst_knn_clear)(kd2, kid);
    GEMST_FN(gemst_knn_rings)(g, qq, K, 0, kd2, kid, &count);
    return count;
}

#define GEMST_SHADOW_MARGIN 1e-5

/* The longest distance between two working points in 2D: the diagonal of
 * the unit square in float, of [-1, 1]^2 in double (grid/grid_plan.h). */
#if GEMST_REAL_IS_DOUBLE
#define GEMST_WORKING_DIAGONAL_2D 2.82842712474619009760
#else
#define GEMST_WORKING_DIAGONAL_2D 1.41421356237309504880
#endif

/* The shadow test below (gemst_shadows_slab_2d) at both ends of its range
 * as one threshold on the slab's smallest dot product m with the
 * neighbour's offset: 2 t m - dp2 > margin t^2 is m > (dp2 + margin t^2) /
 * (2 t).  Computed once per neighbour, it serves all 8 slabs. */
static inline GEMST_HD double gemst_shadow_threshold(double dp2, double r)
{
    const double far = GEMST_WORKING_DIAGONAL_2D;
    const double near_end = (dp2 + GEMST_SHADOW_MARGIN * r * r) / (2.0 * r);
    const double far_end = (dp2 + GEMST_SHADOW_MARGIN * far * far) / (2.0 * far);
    return r > 0.0 ? (near_end > far_end ? near_end : far_end) : INFINITY;
}

/*
 * Whether a neighbour at d = (dx, dy), squared distance dp2, shadows all of
 * 2D slab s beyond distance r: every point w of the slab with |qw| >= r is
 * strictly closer to the neighbour than to q, so (q, w) is the longest edge
 * of a triangle and not in the tree.  For w = q + t*u (u a unit direction
 * of the slab) that is 2*t*(u.d) - dp2 > 0; u.d is smallest at one of the
 * slab's extreme rays, and the condition, with a relative margin that
 * outweighs rounding in the computed squared distances, only has to hold at
 * the two ends of t's range: r and the longest distance between working
 * points.
 */
static inline GEMST_HD int gemst_shadows_slab_2d(int s, double dx, double dy, double dp2, double r)
{
    return gemst_slab_min_dot_2d(s, dx, dy) > gemst_shadow_threshold(dp2, r);
}

/*
 * Whether the query's GEMST_KNN nearest points (its whole list: this is
 * only for 2D, gemst_knn_k) leave no tree edge of the
 * query beyond the farthest of them: every slab is shadowed by one.  A slab
 * in `seen` holds a neighbour at least GEMST_SLAB_MIN_D2 away and is
 * shadowed by it (the uniqueness property); the others are tried against
 * each neighbour.  Only in 2D: in 3D, 48 slabs are rarely all covered by
 * GEMST_KNN neighbours (measured: under 1% of uniform points), and trying
 * costs more than the fallback searches it would save.  Not where the
 * farthest neighbour's squared distance is below 2^24 times the smallest
 * normal number: the shadow test's relative margin must outweigh the
 * absolute rounding of subnormal squared distances (float points near the
 * box's corner).
 */
static inline GEMST_HD int GEMST_FN(gemst_knn_complete)(const gemst_grid *g, const gemst_query *qq,
                                                      const gemst_real kd2[GEMST_KNN],
                                                      const gemst_real nb[GEMST_KNN][3], uint64_t seen)
{
    if (g->dim != 2 || !(kd2[GEMST_KNN - 1] >= GEMST_MUL(GEMST_REAL_MIN, (gemst_real)0x1p24)))
        return 0;
    double dx[GEMST_KNN], dy[GEMST_KNN], threshold[GEMST_KNN];
    const double r = sqrt((double)kd2[GEMST_KNN - 1]);
    GEMST_UNROLL
    for (int i = 0; i < GEMST_KNN; i++) {
        dx[i] = (double)nb[i][0] - (double)qq->q[0];
        dy[i] = (double)nb[i][1] - (double)qq->q[1];
        threshold[i] = gemst_shadow_threshold((double)kd2[i], r);
    }
    for (int s = 0; s < GEMST_SLABS_2D; s++) {
        int shadowed = (int)((seen >> s) & 1);
        GEMST_UNROLL
        for (int i = 0; i < GEMST_KNN; i++)
            if (!shadowed)
                shadowed = gemst_slab_min_dot_2d(s, dx[i], dy[i]) > threshold[i];
        if (!shadowed)
            return 0;
    }
    return 1;
}

/*
 * Static pruning, from the query's `count` nearest points (gemst_knn with K): writes the
 * candidates to cand (at most GEMST_CAND_SLOTS) and returns how many.  A
 * neighbour is dropped when an earlier one lies in its slab (uniqueness
 * property; only an earlier one at least GEMST_SLAB_MIN_D2 away counts) or
 * is closer to it than the query (then the query's edge to it is the
 * longest of a triangle).  *rb2 is set to infinity when the
 * candidates hold every tree edge of the query (all points are neighbours,
 * or every slab is shadowed beyond the farthest neighbour); otherwise to a
 * squared distance below which they hold every tree edge: the farthest
 * neighbour's, or that of the first candidate that did not fit.
 */
static inline GEMST_HD int GEMST_FN(gemst_static_candidates)(const gemst_grid *g, const gemst_query *qq, int K,
                                                           const gemst_real kd2[GEMST_KNN],
                                                           const uint32_t kid[GEMST_KNN], int count,
                                                           uint32_t *cand, gemst_real *rb2)
{
    gemst_real nb[GEMST_KNN][3]; /* the neighbours' coordinates */
    uint64_t seen = 0;
    int kept = 0;
    gemst_real overflow = GEMST_REAL_INF;
    GEMST_UNROLL
    for (int i = 0; i < GEMST_KNN; i++) {
        if (i >= count)
            break;
        uint32_t p = kid[i];
        GEMST_FN(gemst_point_at)(g, p, nb[i]);
        uint64_t bit = (uint64_t)1 << gemst_slab(g->dim, GEMST_SUB(nb[i][0], qq->q[0]),
                                                 GEMST_SUB(nb[i][1], qq->q[1]), GEMST_SUB(nb[i][2], qq->q[2]));
        if (seen & bit)
            continue;
        if (kd2[i] >= GEMST_SLAB_MIN_D2)
            seen |= bit;
        int shadowed = 0;
        GEMST_UNROLL
        for (int j = 0; j < i; j++) {
#ifndef __CUDA_ARCH__
            if (shadowed) /* the GPU unrolls the loop whole instead */
                break;
#endif
            gemst_real wp2 = GEMST_FN(gemst_sq_dist)(g->dim, nb[j], nb[i]);
            shadowed |= wp2 < kd2[i] ||
                        (wp2 == kd2[i] && gemst_edge_less(gemst_edge_make(wp2, g->oid[kid[j]], g->oid[p]),
                                                          gemst_edge_make(kd2[i], qq->oid, g->oid[p])));
        }
        if (shadowed)
            continue;
        if (kept < GEMST_CAND_SLOTS)
            cand[kept++] = p;
        else if (overflow == GEMST_REAL_INF)
            overflow = kd2[i];
    }
    int complete = count < K || GEMST_FN(gemst_knn_complete)(g, qq, kd2, nb, seen);
    *rb2 = overflow < GEMST_REAL_INF ? overflow : complete ? GEMST_REAL_INF : kd2[K - 1];
    return kept;
}

/* Static pruning, each iteration: the best candidate of another component;
 * candidates inside the query's component are dropped for good.  Returns the
 * number of candidates left. */
static inline GEMST_HD int GEMST_FN(gemst_static_scan)(const gemst_grid *g, const gemst_query *qq,
                                                     const uint32_t *comp, uint32_t comp_q, uint32_t *cand,
                                                     int count, gemst_edge_key *best, uint32_t *best_to)
{
    int i = 0;
    while (i < count) {
        uint32_t p = cand[i];
        if (comp[p] == comp_q) {
            cand[i] = cand[--count];
            continue;
        }
        gemst_edge_key e = gemst_edge_make(GEMST_FN(gemst_dist2_q)(g, qq, p), qq->oid, g->oid[p]);
        if (gemst_edge_less(e, *best)) {
            *best = e;
            *best_to = p;
        }
        i++;
    }
    return count;
}

#endif
