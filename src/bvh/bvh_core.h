/*
 * Core distances on the BVH (precision-generic, see real.h; the heap and
 * the definition in nns/core_dist.h): a depth-first traversal with the
 * heap's bound as radius, the nearer child first, as the nearest-foreign
 * search (bvh_query.h) walks the tree (its stack holds the entered nodes'
 * split_flags).
 */
#ifndef GEMST_BVH_CORE_H
#define GEMST_BVH_CORE_H

#include "bvh/bvh_query.h"
#include "nns/core_dist.h"

/* The squared core distance of point qq->idx of the BVH b over pts (as
 * gemst_core_dist2_grid). */
static inline GEMST_HD gemst_real GEMST_FN(gemst_core_dist2_bvh)(const gemst_bvh *b, const gemst_grid *pts,
                                                               const gemst_query *qq, const uint32_t *mult,
                                                               gemst_core_heap *h)
{
    gemst_bvh_stack stack;
    if (h->need == 0)
        return 0;
    uint32_t split_flags = GEMST_FN(gemst_bvh_load)(b->node, 0).split_flags;
    gemst_real entered_d2 = 0;
    int entering = 1;
    GEMST_FN(gemst_bvh_stack_start)(&stack);
    while (GEMST_FN(gemst_bvh_next)(&stack, &entering, &split_flags, &entered_d2)) {
        if (!(entered_d2 < GEMST_FN(gemst_core_bound)(h)))
            continue;
        uint32_t child[2], push[2];
        gemst_real push_d2[2];
        int np = 0;
        gemst_bvh_split_children(b->n, split_flags, child);
        for (int k = 0; k < 2; k++) {
            if (gemst_bvh_is_leaf(b->n, child[k])) {
                uint32_t first, end;
                GEMST_FN(gemst_bvh_leaf_points)(b, child[k], &first, &end);
                for (uint32_t p = first; p < end; p++)
                    if (p != qq->idx)
                        GEMST_FN(gemst_core_offer)(h, GEMST_FN(gemst_dist2_q)(pts, qq, p), gemst_copies(mult, p));
                continue;
            }
            const gemst_bvh_node r = GEMST_FN(gemst_bvh_load)(b->node, child[k]);
            gemst_real d2 = GEMST_FN(gemst_bvh_box_dist2)(b->dim, &r, qq->q);
            if (d2 < GEMST_FN(gemst_core_bound)(h)) {
                push[np] = r.split_flags;
                push_d2[np++] = d2;
            }
        }
        entering = GEMST_FN(gemst_bvh_descend)(&stack, push, push_d2, np, &split_flags, &entered_d2);
    }
    return GEMST_FN(gemst_core_bound)(h);
}

#endif
