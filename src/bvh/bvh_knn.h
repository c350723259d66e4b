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

/* At most GEMST_KNN (nns/search.h, whose lists these are).  From 3 to 5
 * every shape's whole call took less time (H200, 1e7 points), 8 more. */
#define GEMST_BVH_KNN 5
#define GEMST_BVH_KNN_ROW (GEMST_BVH_KNN - 1)

/* The squared distance within which point qq->idx certainly has its
 * GEMST_BVH_KNN nearest: the farthest of the GEMST_BVH_KNN points about it in
 * Morton order (the points are in Morton order), infinity when there are
 * not that many others. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_knn_seed_radius)(const gemst_grid *pts, const gemst_query *qq)
{
    if (pts->n <= GEMST_BVH_KNN)
        return GEMST_REAL_INF;
    const uint32_t last_first = pts->n - 1 - GEMST_BVH_KNN;
    uint32_t first = qq->idx > GEMST_BVH_KNN / 2 ? qq->idx - GEMST_BVH_KNN / 2 : 0;
    first = first < last_first ? first : last_first;
    gemst_real radius = 0;
    for (uint32_t p = first; p <= first + GEMST_BVH_KNN; p++) {
        if (p == qq->idx)
            continue;
        const gemst_real d2 = GEMST_FN(gemst_edge_d2_q)(pts, qq, p);
        radius = d2 > radius ? d2 : radius;
    }
    return radius;
}

/* The GEMST_BVH_KNN nearest points of qq (other than itself) in edge order
 * into kd2/kid (nns/search.h's lists; infinity and GEMST_NONE past the
 * last when there are fewer points): a depth-first traversal whose radius
 * is the list's farthest length once it is full, and never above `radius`
 * (a length within which GEMST_BVH_KNN points are known to lie).  Component
 * labels play no part: in the first iteration no subtree holds only q. */
static inline GEMST_HD void GEMST_FN(gemst_bvh_k_nearest)(const gemst_bvh *b, const gemst_grid *pts,
                                                        const gemst_query *qq, gemst_real radius,
                                                        gemst_real kd2[GEMST_KNN], uint32_t kid[GEMST_KNN])
{
    gemst_bvh_stack stack;
    int count = 0;
    GEMST_FN(gemst_knn_clear)(kd2, kid);
    uint32_t split_flags = GEMST_FN(gemst_bvh_load)(b->node, 0).split_flags;
    gemst_real entered_d2 = 0;
    int entering = 1;
    GEMST_FN(gemst_bvh_stack_start)(&stack);
    while (GEMST_FN(gemst_bvh_next)(&stack, &entering, &split_flags, &entered_d2)) {
        gemst_real bound = kd2[GEMST_BVH_KNN - 1] < radius ? kd2[GEMST_BVH_KNN - 1] : radius;
        if (entered_d2 > bound)
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
                for (uint32_t p = first; p < end; p++) {
                    const gemst_real d2 = GEMST_FN(gemst_edge_d2_q)(pts, qq, p);
                    if (d2 <= radius)
                        GEMST_FN(gemst_knn_offer)(pts, qq, GEMST_BVH_KNN, d2, p, kd2, kid, &count);
                }
                bound = kd2[GEMST_BVH_KNN - 1] < radius ? kd2[GEMST_BVH_KNN - 1] : radius;
                continue;
            }
            const gemst_bvh_node r = GEMST_FN(gemst_bvh_load)(b->node, child[k]);
            const gemst_real d2 = GEMST_FN(gemst_bvh_box_dist2)(b->dim, &r, qq->q);
            if (d2 <= bound) {
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
    GEMST_FN(gemst_query_point)(pts, q, &qq);
    GEMST_FN(gemst_bvh_k_nearest)(b, pts, &qq, GEMST_FN(gemst_knn_seed_radius)(pts, &qq), kd2, kid);
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

#endif
