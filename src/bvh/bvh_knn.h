/*
 * Each point's GEMST_BVH_KNN nearest points, found on the BVH in Borůvka's
 * first iteration and kept to serve the next ones (precision-generic, see
 * real.h; the traversal as bvh_query.h's).
 *
 * In the first iteration every point is its own component, and its
 * FindMin1 is its nearest point.  A search for its few nearest costs
 * little more (the same nodes near it), and their list serves later
 * iterations without a search: for a fixed end q the edge order (squared
 * length, lo, hi) orders the other ends by (squared length, id), so the
 * list is a prefix of all other points in the order FindMin1 compares, and
 * its first point of another component is q's nearest foreign point,
 * exactly.  Only when every listed point has joined q's component does q
 * search the tree, with the last listed length as a lower bound on its
 * nearest foreign distance (bvh_query.h's best_d2).
 *
 * The first iteration joins every point to its nearest (each component's
 * shortest edge), so a point's row keeps the others, its 2nd to
 * GEMST_BVH_KNN-th nearest: GEMST_BVH_KNN_ROW point indices.  A row whose
 * first entry is GEMST_NONE is spent (all its points in q's component),
 * and stays so: components only grow.
 */
#ifndef GEMST_BVH_KNN_H
#define GEMST_BVH_KNN_H

#include "bvh/bvh_query.h"
#include "nns/search.h"

/* At most GEMST_KNN (nns/search.h, whose lists these are).  With the lists
 * seeded from a Morton window, 4 took as long as 5 or less on 3D shapes and
 * up to 2% longer on clustered 2D points, with a row 4 bytes a point
 * shorter (H200, 1e7 points); 3 took longer, 8 longer still. */
#define GEMST_BVH_KNN 4
#define GEMST_BVH_KNN_ROW (GEMST_BVH_KNN - 1)

/* The points about a point in Morton order that seed its list, so that
 * its search starts with a radius near its final one: points near in
 * Morton order are mostly near in space, and the nearest few of a run of
 * them lie nearer than its farthest.  (H200, 1e7 points of eight shapes:
 * the first search took 6 to 13% less time than with the farthest of the
 * GEMST_BVH_KNN points about it as its first radius; 16 points gave a
 * shorter first search than 8 or 32 on every shape.) */
#define GEMST_BVH_KNN_WINDOW 16

/* Offers the GEMST_BVH_KNN_WINDOW points about point qq->idx in Morton
 * order (all the others, when there are not that many) to its list
 * kd2/kid, emptied first, of *count points, and gives their index range
 * [*lo, *hi] (the query's own index among them). */
static inline GEMST_HD void GEMST_FN(gemst_knn_window)(const gemst_grid *pts, const gemst_query *qq,
                                                     gemst_real kd2[GEMST_KNN], uint32_t kid[GEMST_KNN], int *count,
                                                     uint32_t *lo, uint32_t *hi)
{
    const uint32_t others = pts->n - 1 < GEMST_BVH_KNN_WINDOW ? pts->n - 1 : GEMST_BVH_KNN_WINDOW;
    const uint32_t last_lo = pts->n - 1 - others;
    uint32_t first = qq->idx > others / 2 ? qq->idx - others / 2 : 0;
    first = first < last_lo ? first : last_lo;
    GEMST_FN(gemst_knn_clear)(kd2, kid);
    *count = 0;
    for (uint32_t p = first; p <= first + others; p++)
        if (p != qq->idx)
            GEMST_FN(gemst_knn_offer)(pts, qq, GEMST_BVH_KNN, GEMST_FN(gemst_edge_d2_q)(pts, qq, p), p, kd2, kid,
                                      count);
    *lo = first;
    *hi = first + others;
}

/* The GEMST_BVH_KNN nearest points of qq (other than itself) in edge order
 * into kd2/kid (nns/search.h's lists; infinity and GEMST_NONE past the
 * last when there are fewer points), which hold *count points already:
 * those of index lo to hi, offered by gemst_knn_window.  A depth-first
 * traversal whose radius is the list's farthest length, offering the
 * other points it meets.  Component labels play no part: in the first
 * iteration no subtree holds only q. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_k_nearest)(const gemst_bvh *b, const gemst_grid *pts,
                                                        const gemst_query *qq, uint32_t lo, uint32_t hi,
                                                        gemst_real kd2[GEMST_KNN], uint32_t kid[GEMST_KNN],
                                                        int *count)
{
    gemst_bvh_stack stack;
    uint32_t split_flags = GEMST_FN(gemst_bvh_load)(b->node, 0).split_flags;
    gemst_real entered_d2 = 0;
    int entering = 1;
    GEMST_FN(gemst_bvh_stack_start)(&stack);
    while (GEMST_FN(gemst_bvh_next)(&stack, &entering, &split_flags, &entered_d2)) {
        if (entered_d2 > kd2[GEMST_BVH_KNN - 1])
            continue;
        uint32_t child[2], push[2];
        gemst_real push_d2[2];
        int np = 0;
        gemst_bvh_split_children(b->n, split_flags, child);
        GEMST_UNROLL
        for (int k = 0; k < 2; k++) {
            if (gemst_bvh_is_leaf(b->n, child[k])) {
                uint32_t first, end;
                GEMST_FN(gemst_bvh_leaf_points)(b, child[k], &first, &end);
                for (uint32_t p = first; p < end; p++)
                    if (p < lo || p > hi)
                        GEMST_FN(gemst_knn_offer)(pts, qq, GEMST_BVH_KNN, GEMST_FN(gemst_edge_d2_q)(pts, qq, p), p,
                                                  kd2, kid, count);
                continue;
            }
            const gemst_bvh_node r = GEMST_FN(gemst_bvh_load)(b->node, child[k]);
            const gemst_real d2 = GEMST_FN(gemst_bvh_box_dist2)(b->dim, &r, qq->q);
            if (d2 <= kd2[GEMST_BVH_KNN - 1]) {
                push[np] = r.split_flags;
                push_d2[np++] = d2;
            }
        }
        entering = GEMST_FN(gemst_bvh_descend)(&stack, push, push_d2, np, &split_flags, &entered_d2);
    }
}

/* FindMin1 of the first iteration for point q, every point its own
 * component: the nearest as bvh_query.h's search would give it (best_d2,
 * best_to, both ends' bounds), and the next nearest into row knn[q]. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_knn_first)(const gemst_bvh *b, const gemst_grid *pts,
                                                        const uint32_t *comp, gemst_word1 *ub, gemst_real *best_d2,
                                                        uint32_t *best_to, uint32_t *knn, uint32_t q)
{
    gemst_query qq;
    gemst_real kd2[GEMST_KNN];
    uint32_t kid[GEMST_KNN];
    uint32_t lo, hi;
    int count;
    GEMST_FN(gemst_query_point)(pts, q, &qq);
    GEMST_FN(gemst_knn_window)(pts, &qq, kd2, kid, &count, &lo, &hi);
    GEMST_FN(gemst_bvh_k_nearest)(b, pts, &qq, lo, hi, kd2, kid, &count);
    GEMST_UNROLL
    for (int j = 0; j < GEMST_BVH_KNN_ROW; j++)
        knn[(size_t)q * GEMST_BVH_KNN_ROW + j] = kid[j + 1];
    best_to[q] = kid[0];
    best_d2[q] = kd2[0];
    if (kid[0] != GEMST_NONE) {
        const gemst_word1 w = gemst_edge_word1(kd2[0]);
        GEMST_FN(gemst_atomic_min_word1)(&ub[comp[q]], w);
        GEMST_FN(gemst_atomic_min_word1)(&ub[comp[kid[0]]], w);
    }
}

/* In a later iteration, for a point q that keeps no nearest foreign point
 * (gemst_bvh_keeps_nearest; its nearest, and the listed points before the
 * one it kept last, are then in its component): its row's first point of
 * another component becomes its nearest (best_to, best_d2), which
 * bvh_query.h's FindMin1 then keeps.  When the row holds none, it is spent,
 * and its farthest length raises q's lower bound. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_knn_next)(const gemst_grid *pts, const uint32_t *comp,
                                                       gemst_real *best_d2, uint32_t *best_to, uint32_t *knn,
                                                       uint32_t q)
{
    uint32_t *row = knn + (size_t)q * GEMST_BVH_KNN_ROW;
    if (row[0] == GEMST_NONE)
        return;
    const uint32_t own = comp[q];
    gemst_query qq;
    GEMST_FN(gemst_query_point)(pts, q, &qq);
    for (int j = 0; j < GEMST_BVH_KNN_ROW; j++) {
        const uint32_t p = row[j];
        if (comp[p] != own) {
            best_to[q] = p;
            best_d2[q] = GEMST_FN(gemst_edge_d2_q)(pts, &qq, p);
            return;
        }
    }
    const gemst_real last = GEMST_FN(gemst_edge_d2_q)(pts, &qq, row[GEMST_BVH_KNN_ROW - 1]);
    best_d2[q] = last > best_d2[q] ? last : best_d2[q];
    row[0] = GEMST_NONE;
}

/* What FindMin1 asks of point q this iteration, decided before any search
 * (the CUDA backend lists the points that search first, so that its
 * searching threads run side by side rather than one to a warp among
 * points that search nothing, and lists the points FindMin2 must see):
 *
 *   GEMST_BVH_IDLE    q's lower bound exceeds its component's bound ub: q
 *                     cannot give its component's shortest edge (ub only
 *                     falls), and its kept point and list of nearest
 *                     points wait for a later iteration; or q keeps an edge
 *                     that another edge already beats at both its ends;
 *   GEMST_BVH_OFFERS  q keeps a nearest foreign point, from its list
 *                     (gemst_bvh_knn_next, knn may be NULL) or its last
 *                     search: its edge lowers both components' bounds and
 *                     may be the shortest of one;
 *   GEMST_BVH_SEARCH  q searches the tree (gemst_bvh_findmin1_point).
 *
 * A component's shortest edge is never missed: its inner endpoint's lower
 * bound is at most that edge's length, itself at most ub. */
enum { GEMST_BVH_IDLE, GEMST_BVH_OFFERS, GEMST_BVH_SEARCH };

static inline GEMST_HD int GEMST_FN(gemst_bvh_triage)(const gemst_bvh *b, const gemst_grid *pts, const uint32_t *comp,
                                                    gemst_word1 *ub, gemst_real *best_d2, uint32_t *best_to,
                                                    uint32_t *knn, uint32_t q)
{
    const uint32_t r = comp[q];
    if (best_d2[q] > gemst_edge_word1_value(GEMST_FN(gemst_load_word1)(&ub[r])))
        return GEMST_BVH_IDLE;
    if (knn && !gemst_bvh_keeps_nearest(comp, best_to, q))
        GEMST_FN(gemst_bvh_knn_next)(pts, comp, best_d2, best_to, knn, q); /* may raise the lower bound */
    if (!gemst_bvh_keeps_nearest(comp, best_to, q))
        return best_d2[q] > gemst_edge_word1_value(GEMST_FN(gemst_load_word1)(&ub[r])) ? GEMST_BVH_IDLE
                                                                                       : GEMST_BVH_SEARCH;
    GEMST_FN(gemst_bvh_findmin1_point)(b, pts, comp, ub, best_d2, best_to, q);
    /* both bounds are now at most w: an edge at w is still the shortest so far at that end */
    const gemst_word1 w = gemst_edge_word1(best_d2[q]);
    return !(GEMST_FN(gemst_load_word1)(&ub[r]) < w) || !(GEMST_FN(gemst_load_word1)(&ub[comp[best_to[q]]]) < w)
               ? GEMST_BVH_OFFERS
               : GEMST_BVH_IDLE;
}

#endif
