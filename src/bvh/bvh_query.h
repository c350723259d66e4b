/*
 * FindMin1 on the BVH (precision-generic, see real.h; layout in bvh.h): the
 * nearest point of another component, by a depth-first traversal with an
 * explicit stack of fixed size and a cutoff radius (Prokopenko et al. 2022,
 * Algorithm 2), for one CPU loop iteration or one CUDA thread.
 *
 * The radius starts at the component's upper bound ub (labels.h): its
 * shortest outgoing edge is no longer, so a point whose nearest foreign
 * point lies beyond it cannot give that edge, and finds nothing.  Nodes
 * farther than the radius and subtrees labelled with the query's component
 * are skipped; the nearer child is visited first; each point found shrinks
 * the radius to its distance.  Comparisons keep equal distances in (d2 <=
 * radius), and candidates are compared in edge order, so ties resolve as in
 * the grid searches.  Edge lengths are gemst_edge_d2_q's (nns/edge_length.h)
 * and box distances never exceed them (gemst_bvh_box_dist2): the search is
 * exact.
 */
#ifndef GEMST_BVH_QUERY_H
#define GEMST_BVH_QUERY_H

#include "bvh/bvh_stack.h"
#include "nns/edge_length.h"
#include "graph/boruvka.h"

/* The nearest point (in edge order) of a component other than comp_q
 * within squared distance radius of the query, if it beats *best; updates
 * *best and *best_to.  When it finds none, returns the least squared
 * distance of the nodes and points it passed over as farther than the
 * radius (infinity when none): every foreign point is at least that far.
 * (The radius only shrinks when a point is found.)  Each internal node's
 * record is read once, whole, when its parent is entered: its label and box
 * decide whether to enter it, and its split_flags, pushed, give its
 * children when it is. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_bvh_nearest_foreign)(const gemst_bvh *b, const gemst_grid *pts,
                                                              const uint32_t *comp, const gemst_query *qq,
                                                              uint32_t comp_q, gemst_real radius,
                                                              gemst_edge_key *best, uint32_t *best_to)
{
    gemst_bvh_stack stack;
    gemst_real beyond = GEMST_REAL_INF;
    const gemst_bvh_node root = GEMST_FN(gemst_bvh_load)(b->node, 0);
    if (root.label == comp_q)
        return beyond;
    if (best->d2 < radius)
        radius = best->d2;
    uint32_t split_flags = root.split_flags;
    gemst_real entered_d2 = 0;
    int entering = 1;
    GEMST_FN(gemst_bvh_stack_start)(&stack);
    while (GEMST_FN(gemst_bvh_next)(&stack, &entering, &split_flags, &entered_d2)) {
        if (entered_d2 > radius) /* the radius shrank since the push */
            continue;
        uint32_t child[2], push[2];
        gemst_real push_d2[2];
        int np = 0;
        gemst_bvh_split_children(b->n, split_flags, child);
        GEMST_UNROLL
        for (int k = 0; k < 2; k++) {
            uint32_t id = child[k];
            if (gemst_bvh_is_leaf(b->n, id)) {
                uint32_t first, end;
                GEMST_FN(gemst_bvh_leaf_points)(b, id, &first, &end);
                for (uint32_t p = first; p < end; p++) {
                    if (comp[p] == comp_q)
                        continue;
                    gemst_real d2 = GEMST_FN(gemst_edge_d2_q)(pts, qq, p);
                    if (d2 > radius) {
                        beyond = d2 < beyond ? d2 : beyond;
                        continue;
                    }
                    gemst_edge_key cand = gemst_edge_make(d2, qq->oid, pts->oid[p]);
                    if (gemst_edge_less(cand, *best)) {
                        *best = cand;
                        *best_to = p;
                        radius = d2;
                    }
                }
                continue;
            }
            const gemst_bvh_node r = GEMST_FN(gemst_bvh_load)(b->node, id);
            if (r.label != comp_q) {
                gemst_real d2 = GEMST_FN(gemst_bvh_box_dist2)(b->dim, &r, qq->q);
                if (d2 <= radius) {
                    push[np] = r.split_flags;
                    push_d2[np++] = d2;
                } else {
                    beyond = d2 < beyond ? d2 : beyond;
                }
            }
        }
        entering = GEMST_FN(gemst_bvh_descend)(&stack, push, push_d2, np, &split_flags, &entered_d2);
    }
    return beyond;
}

/* Whether q's last nearest foreign point is still foreign, so still its
 * nearest (the foreign points only become fewer): then best_d2[q] is that
 * edge's length, else a lower bound on q's nearest foreign distance. */
static inline GEMST_HD int gemst_bvh_keeps_nearest(const uint32_t *comp, const uint32_t *best_to, uint32_t q)
{
    const uint32_t prev = best_to[q];
    return prev != GEMST_NONE && comp[prev] != comp[q];
}

/*
 * FindMin1 for point q: its nearest foreign point within its component's
 * bound, into best_d2[q] and best_to[q] (GEMST_NONE when none).  An edge
 * found leaves both its components, and lowers both their bounds at once
 * (the paper's Optimization 2 carried through the iteration), so that the
 * points searched after it search less.  Bounds are read and lowered while
 * other points search: any value read is a valid bound, and the result
 * does not depend on the timing (each component's shortest edge is always
 * found by its inner endpoint).
 *
 * Between iterations best_to[q] and best_d2[q] hold what q's last search
 * found.  When the point found is still in another component, it is still
 * q's nearest foreign point (the foreign points only become fewer): no
 * search.  Otherwise best_d2[q] is a lower bound on q's nearest foreign
 * distance (0 at first): the distance found, or after a search in vain the
 * least distance of what it passed over (subtrees it skipped as q's own
 * component stay q's own).  The bound stays valid as components merge (the
 * foreign points only become fewer), and when it exceeds the component's
 * bound ub, q cannot give the component's shortest edge: no search.  Late iterations, where
 * most points lie deep inside large components, are mostly such points.
 */
static inline GEMST_HD void GEMST_FN(gemst_bvh_findmin1_point)(const gemst_bvh *b, const gemst_grid *pts,
                                                             const uint32_t *comp, gemst_word1 *ub,
                                                             gemst_real *best_d2, uint32_t *best_to, uint32_t q)
{
    const uint32_t r = comp[q];
    const gemst_real radius = gemst_edge_word1_value(GEMST_FN(gemst_load_word1)(&ub[r]));
    gemst_edge_key best = gemst_edge_none();
    uint32_t to = GEMST_NONE;
    if (gemst_bvh_keeps_nearest(comp, best_to, q)) {
        to = best_to[q];
        best.d2 = best_d2[q];
    } else if (!(best_d2[q] > radius)) {
        gemst_query qq;
        GEMST_FN(gemst_query_point)(pts, q, &qq);
        gemst_real beyond = GEMST_FN(gemst_bvh_nearest_foreign)(b, pts, comp, &qq, r, radius, &best, &to);
        best_d2[q] = to == GEMST_NONE ? beyond : best.d2;
    }
    if (to != GEMST_NONE) {
        gemst_word1 w = gemst_edge_word1(best.d2);
        GEMST_FN(gemst_atomic_min_word1)(&ub[r], w);
        GEMST_FN(gemst_atomic_min_word1)(&ub[comp[to]], w);
    }
    best_to[q] = to;
}

#endif
