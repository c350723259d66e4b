/*
 * Component labels on the BVH, once per Boruvka iteration before the queries
 * (precision-generic, see real.h; layout in bvh.h).  The leaves are runs of
 * points in the view's order (Morton or K-d), so the points of any node
 * are a contiguous run, and the run is all in one component exactly when
 * no two neighbouring points inside it differ in component.  Hence:
 *
 *  1. gemst_bvh_pair_bound for every point k < points - 1: whether the
 *     points k and k + 1 are in different components (a break), and when
 *     they are, the edge between them bounds both components' shortest
 *     outgoing edge from above (the ArborX Morton-neighbour bounds): its
 *     squared length goes into both components' ub by atomic minimum (ub
 *     reset to infinity at every root before).
 *  2. The exclusive prefix sum of the breaks (the backend's scan):
 *     brk[k] = breaks before point k, for 0 <= k < points.
 *  3. gemst_bvh_node_label for every internal node: its points' common
 *     component when brk is equal at both ends of its run, else
 *     GEMST_NONE.  A query skips a subtree labelled with its own component
 *     (subtree skipping); a leaf's points are compared one by one.
 *
 * This is the label reduction of the paper (there bottom-up over parent
 * links with atomics) as a scan: no atomics, no parent links, and the breaks
 * that give the bounds give the labels too.
 *
 * The GPU labels only the nodes whose labels a search may still read
 * (gemst_bvh_label_mixed).  A search enters a node from its parent and
 * skips a node labelled with its own component, so a node under a parent
 * labelled with one component is entered only by searches from other
 * components, for which any label but theirs does the same.  A node whose
 * points are all in one component stays so (components only merge), so
 * after it is labelled it needs its label again only while its parent is
 * mixed: to follow its component's new name as components merge.  Each
 * iteration therefore labels the nodes that were mixed in the last one,
 * and the whole internal children of those still mixed.  A label left behind
 * names a component that merged since into another of a different root,
 * which no point's comp names any more (comp holds roots): no search skips
 * on it.  Until the first labelling every label is GEMST_NONE (the builds
 * leave it so) and every node mixed: the GPU's loop labels first in the
 * second iteration after kNN-first (cuda_bvh.cuh), when components first
 * hold whole subtrees.
 */
#ifndef GEMST_BVH_LABELS_H
#define GEMST_BVH_LABELS_H

#include "bvh/bvh.h"
#include "nns/edge_length.h"
#include "graph/boruvka.h"

/* Whether points k and k + 1, of components a and c, lie in different
 * components; if so, their squared distance bounds both components' ub. */
static inline GEMST_HD uint32_t GEMST_FN(gemst_bvh_pair_bound_of)(const gemst_grid *pts, uint32_t k, uint32_t a,
                                                                uint32_t c, gemst_word1 *ub)
{
    if (a == c)
        return 0;
    gemst_word1 w = gemst_edge_word1(GEMST_FN(gemst_edge_d2)(pts, k, k + 1));
    GEMST_FN(gemst_atomic_min_word1)(&ub[a], w);
    GEMST_FN(gemst_atomic_min_word1)(&ub[c], w);
    return 1;
}

/* The same for the components in comp. */
static inline GEMST_HD uint32_t GEMST_FN(gemst_bvh_pair_bound)(const gemst_grid *pts, const uint32_t *comp, uint32_t k,
                                                             gemst_word1 *ub)
{
    return GEMST_FN(gemst_bvh_pair_bound_of)(pts, k, comp[k], comp[k + 1], ub);
}

/* Internal node i's label from the scanned breaks. */
static inline GEMST_HD uint32_t GEMST_FN(gemst_bvh_node_label)(const gemst_bvh *b, const uint32_t *comp,
                                                             const uint32_t *brk, uint32_t i)
{
    uint32_t first, last, k0, k1, end;
    gemst_bvh_range(b->end, i, &first, &last);
    GEMST_FN(gemst_bvh_leaf_points)(b, gemst_bvh_leaf_id(b->n, first), &k0, &end);
    GEMST_FN(gemst_bvh_leaf_points)(b, gemst_bvh_leaf_id(b->n, last), &k1, &end);
    return brk[k0] == brk[end - 1] ? comp[k0] : GEMST_NONE;
}

/* Whether internal node i's bit is set in the words `mixed`. */
static inline GEMST_HD int gemst_bvh_is_mixed(const uint32_t *mixed, uint32_t i)
{
    return (mixed[i / 32] >> (i % 32)) & 1u;
}

/* Internal node i's label, and while it is mixed the labels of its
 * internal children that were whole before (above; a mixed child labels
 * itself); whether i's points are all in one component.  Run for the
 * mixed nodes at once, each clearing its bit once it labelled itself
 * whole, a node may see its child's bit cleared in the same pass or not:
 * both label the child alike. */
static inline GEMST_HD int GEMST_FN(gemst_bvh_label_mixed)(const gemst_bvh *b, const uint32_t *comp,
                                                         const uint32_t *brk, const uint32_t *mixed, uint32_t i)
{
    const uint32_t label = GEMST_FN(gemst_bvh_node_label)(b, comp, brk, i);
    b->node[i].label = label;
    if (label != GEMST_NONE)
        return 1;
    uint32_t child[2];
    GEMST_FN(gemst_bvh_children)(b->n, b->node, i, child);
    for (int k = 0; k < 2; k++)
        if (!gemst_bvh_is_leaf(b->n, child[k]) && !gemst_bvh_is_mixed(mixed, child[k]))
            b->node[child[k]].label = GEMST_FN(gemst_bvh_node_label)(b, comp, brk, child[k]);
    return 0;
}

#endif
