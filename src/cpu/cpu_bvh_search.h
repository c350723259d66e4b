/*
 * FindMin1 on the CPU's BVH, a leaf of queries at a time (precision-
 * generic, see real.h; the tree's layout in bvh/bvh.h).
 *
 * The GPU searches the tree once per point, from leaves of one point.  On
 * a CPU the walk down the tree costs more than the distances at its end
 * (most of the time goes to loading node boxes), so here the points of a
 * leaf, a run of neighbours (a cell of a K-d split, cpu/cpu_bvh_kd.inc, or
 * for the late BVH a run in Morton order), walk the tree together: their
 * own leaf first, which sets most radii, then one traversal with the box of
 * the leaf's searching points, pruned at the largest of their radii, and
 * at each leaf reached, each point's distances to the leaf's points
 * computed in one loop over its coordinate arrays (which the compiler
 * vectorizes).  Leaves carry a box and a component label like the internal
 * nodes (gemst_cpu_leaf), so that a leaf of the query's component, or one
 * beyond its radius, is passed over whole.  Measured at 1e6 points on 2
 * threads, leaves of 16 points were the fastest along curves, where the CPU
 * searches this tree (nns/index_choice.h): 8 and 32 were up to 10% and 30%
 * slower, single points twice as slow (docs/experiments.md).
 *
 * Each point follows gemst_bvh_findmin1_point's rules (bvh_query.h), so
 * the tree is the same: which points search, their radii (the component's
 * bound ub, then the distance found), the edge order among candidates (d2
 * <= radius keeps equal distances), the bounds lowered by each edge found,
 * and after a search in vain a lower bound on the point's nearest foreign
 * distance in best_d2: every node passed over as farther than the largest
 * radius is at that box-to-box distance or more from each of the points,
 * so the least such distance, with the point's own distances passed over,
 * bounds it from below.  Box-to-box distances are computed per axis from
 * the boxes' faces with the operations and order of gemst_dist2_q (ring.h):
 * rounding is monotone, so they never exceed the computed distance of two
 * points of the boxes.
 */
#ifndef GEMST_CPU_BVH_SEARCH_H
#define GEMST_CPU_BVH_SEARCH_H

#include "bvh/bvh_query.h"
#include "nns/search.h"

/* The leaf size the CPU's BVH (nns BVH) is built with, and the largest
 * any CPU BVH may have (the late BVH's, nns/late_bvh.h, is smaller). */
#define GEMST_CPU_BVH_LEAF 16
#define GEMST_CPU_BVH_LEAF_MAX 32

/* What the CPU keeps of a leaf beside the shared nodes: its points' box
 * and their common component (GEMST_NONE when they differ). */
#define gemst_cpu_leaf GEMST_FN(gemst_cpu_leaf)
typedef struct {
    gemst_real lo[3], hi[3];
    uint32_t label;
} gemst_cpu_leaf;

/* The K nearest points of a leaf's points, while they search (kNN-first,
 * below): per point its list, nearest first in edge order, and its length. */
#define gemst_cpu_group_knn GEMST_FN(gemst_cpu_group_knn)
typedef struct {
    int K;
    gemst_real kd2[GEMST_CPU_BVH_LEAF_MAX][GEMST_KNN];
    uint32_t kid[GEMST_CPU_BVH_LEAF_MAX][GEMST_KNN];
    int count[GEMST_CPU_BVH_LEAF_MAX];
} gemst_cpu_group_knn;

/* A leaf's points searching together: their indices, components and
 * queries, and per point the radius, the best edge found, its far end and
 * the least distance passed over; or, with knn, their K nearest points of
 * any component. */
#define gemst_cpu_group GEMST_FN(gemst_cpu_group)
typedef struct {
    uint32_t n;
    uint32_t q[GEMST_CPU_BVH_LEAF_MAX], comp[GEMST_CPU_BVH_LEAF_MAX], to[GEMST_CPU_BVH_LEAF_MAX];
    gemst_query qq[GEMST_CPU_BVH_LEAF_MAX];
    gemst_real radius[GEMST_CPU_BVH_LEAF_MAX], beyond[GEMST_CPU_BVH_LEAF_MAX];
    gemst_edge_key best[GEMST_CPU_BVH_LEAF_MAX];
    gemst_real lo[3], hi[3]; /* the box of the points */
    uint32_t label;          /* their common component, else GEMST_NONE */
    gemst_real reach;        /* the largest radius */
    gemst_real passed;       /* the least box distance passed over */
    gemst_cpu_group_knn *knn; /* NULL: each point's nearest foreign point */
} gemst_cpu_group;

/* Squared distance between the boxes [alo, ahi] and [blo, bhi] (a point is
 * a box with lo == hi). */
static inline gemst_real GEMST_FN(gemst_cpu_box_gap2)(int dim, const gemst_real *alo, const gemst_real *ahi,
                                                     const gemst_real *blo, const gemst_real *bhi)
{
    gemst_real s = 0;
    for (int d = 0; d < dim; d++) {
        const gemst_real below = blo[d] - ahi[d], above = alo[d] - bhi[d];
        gemst_real gap = below > above ? below : above;
        gap = gap > (gemst_real)0 ? gap : (gemst_real)0;
        s = d == 0 ? gap * gap : s + gap * gap;
    }
    return s;
}

/* Squared edge lengths (nns/edge_length.h) from the query to the points
 * [first, first + m) into d2: one pass over each coordinate array. */
static inline void GEMST_FN(gemst_cpu_leaf_d2)(const gemst_grid *pts, const gemst_query *qq, uint32_t first, uint32_t m,
                                               gemst_real *restrict d2)
{
    const gemst_real *restrict x = pts->x + first, *restrict y = pts->y + first;
    const gemst_real qx = qq->q[0], qy = qq->q[1], qz = qq->q[2];
    if (pts->dim == 3) {
        const gemst_real *restrict z = pts->z + first;
        for (uint32_t k = 0; k < m; k++) {
            const gemst_real dx = x[k] - qx, dy = y[k] - qy, dz = z[k] - qz;
            d2[k] = (dx * dx + dy * dy) + dz * dz;
        }
    } else {
        for (uint32_t k = 0; k < m; k++) {
            const gemst_real dx = x[k] - qx, dy = y[k] - qy;
            d2[k] = dx * dx + dy * dy;
        }
    }
    if (pts->core2)
        for (uint32_t k = 0; k < m; k++)
            d2[k] = gemst_reach2(d2[k], qq->core2, pts->core2[first + k]);
}

/* The group's points against the points [first, end) of a leaf, for their
 * lists of K nearest points (any component): each point's radius is its
 * K-th squared distance. */
static inline void GEMST_FN(gemst_cpu_group_knn_scan)(gemst_cpu_group *g, const gemst_cpu_leaf *lf,
                                                      const gemst_grid *pts, uint32_t first, uint32_t end)
{
    gemst_cpu_group_knn *k = g->knn;
    gemst_real reach = 0;
    for (uint32_t a = 0; a < g->n; a++) {
        const gemst_query *qq = &g->qq[a];
        if (!(GEMST_FN(gemst_cpu_box_gap2)(pts->dim, qq->q, qq->q, lf->lo, lf->hi) > g->radius[a])) {
            gemst_real d2[GEMST_CPU_BVH_LEAF_MAX];
            GEMST_FN(gemst_cpu_leaf_d2)(pts, qq, first, end - first, d2);
            for (uint32_t p = first; p < end; p++)
                GEMST_FN(gemst_knn_offer)(pts, qq, k->K, d2[p - first], p, k->kd2[a], k->kid[a], &k->count[a]);
            g->radius[a] = k->kd2[a][k->K - 1];
        }
        reach = g->radius[a] > reach ? g->radius[a] : reach;
    }
    g->reach = reach;
}

/* The group's points against the points of leaf j: each point's nearest
 * foreign point there within its radius, if it beats its best (or with
 * g->knn, gemst_cpu_group_knn_scan). */
static inline void GEMST_FN(gemst_cpu_group_scan)(gemst_cpu_group *g, const gemst_bvh *b, const gemst_cpu_leaf *leaf,
                                                  const gemst_grid *pts, const uint32_t *comp, uint32_t j)
{
    uint32_t first, end;
    GEMST_FN(gemst_bvh_leaf_points)(b, gemst_bvh_leaf_id(b->n, j), &first, &end);
    if (g->knn) {
        GEMST_FN(gemst_cpu_group_knn_scan)(g, &leaf[j], pts, first, end);
        return;
    }
    gemst_real reach = 0;
    for (uint32_t a = 0; a < g->n; a++) {
        const gemst_query *qq = &g->qq[a];
        gemst_real radius = g->radius[a];
        if (leaf[j].label != g->comp[a]) {
            const gemst_real box = GEMST_FN(gemst_cpu_box_gap2)(pts->dim, qq->q, qq->q, leaf[j].lo, leaf[j].hi);
            if (box > radius) {
                g->beyond[a] = box < g->beyond[a] ? box : g->beyond[a];
            } else {
                /* in locals through the loop: through g, each point's update waited for the last one's store */
                gemst_real d2[GEMST_CPU_BVH_LEAF_MAX], beyond = g->beyond[a];
                gemst_edge_key best = g->best[a];
                uint32_t to = g->to[a];
                const uint32_t own = g->comp[a];
                GEMST_FN(gemst_cpu_leaf_d2)(pts, qq, first, end - first, d2);
                for (uint32_t p = first; p < end; p++) {
                    const gemst_real e = d2[p - first];
                    if (comp[p] == own)
                        continue;
                    if (e > radius) {
                        beyond = e < beyond ? e : beyond;
                        continue;
                    }
                    const gemst_edge_key cand = gemst_edge_make(e, qq->oid, pts->oid[p]);
                    if (gemst_edge_less(cand, best)) {
                        best = cand;
                        to = p;
                        radius = e;
                    }
                }
                g->beyond[a] = beyond;
                g->best[a] = best;
                g->to[a] = to;
                g->radius[a] = radius;
            }
        }
        reach = radius > reach ? radius : reach;
    }
    g->reach = reach;
}

/* Whether the group's search enters node c (a leaf's node id too): not
 * when all its points lie in the group's component, nor when its box lies
 * beyond the group's reach (which the least distance passed over
 * records); its box distance goes to *d2. */
static inline int GEMST_FN(gemst_cpu_group_enters)(gemst_cpu_group *g, const gemst_bvh *b, const gemst_cpu_leaf *leaf,
                                                   uint32_t c, gemst_real *d2)
{
    const uint32_t n = b->n;
    const int is_leaf = gemst_bvh_is_leaf(n, c);
    const gemst_real *lo = is_leaf ? leaf[c - (n - 1)].lo : b->node[c].lo;
    const gemst_real *hi = is_leaf ? leaf[c - (n - 1)].hi : b->node[c].hi;
    if (g->label != GEMST_NONE && (is_leaf ? leaf[c - (n - 1)].label : b->node[c].label) == g->label)
        return 0;
    *d2 = GEMST_FN(gemst_cpu_box_gap2)(b->dim, g->lo, g->hi, lo, hi);
    if (*d2 <= g->reach)
        return 1;
    g->passed = *d2 < g->passed ? *d2 : g->passed;
    return 0;
}

/* The group's search of the subtree of node `top`, entered at box
 * distance top_d2: depth first, the nearer child first, pruned at the
 * group's reach, skipping subtrees labelled with the component all its
 * points share and the leaves first..last, which the group has scanned
 * already (gemst_cpu_group_window). */
static inline void GEMST_FN(gemst_cpu_group_descend)(gemst_cpu_group *g, const gemst_bvh *b, const gemst_cpu_leaf *leaf,
                                                     const gemst_grid *pts, const uint32_t *comp, uint32_t top,
                                                     gemst_real top_d2, uint32_t first, uint32_t last)
{
    gemst_bvh_stack stack;
    const uint32_t n = b->n;
    uint32_t id = top;
    gemst_real entered_d2 = top_d2;
    int entering = 1;
    GEMST_FN(gemst_bvh_stack_start)(&stack);
    while (GEMST_FN(gemst_bvh_next)(&stack, &entering, &id, &entered_d2)) {
        if (entered_d2 > g->reach) { /* the reach shrank since the push */
            g->passed = entered_d2 < g->passed ? entered_d2 : g->passed;
            continue;
        }
        if (gemst_bvh_is_leaf(n, id)) {
            if (id - (n - 1) < first || id - (n - 1) > last)
                GEMST_FN(gemst_cpu_group_scan)(g, b, leaf, pts, comp, id - (n - 1));
            continue;
        }
        uint32_t child[2], push[2];
        gemst_real push_d2[2];
        int np = 0;
        GEMST_FN(gemst_bvh_children)(n, b->node, id, child);
        for (int k = 0; k < 2; k++)
            if (GEMST_FN(gemst_cpu_group_enters)(g, b, leaf, child[k], &push_d2[np]))
                push[np++] = child[k];
        entering = GEMST_FN(gemst_bvh_descend)(&stack, push, push_d2, np, &id, &entered_d2);
    }
}

/*
 * The group's search of the whole tree but its leaves first..last, which
 * hold its own leaf j: from the leaf up, the sibling of each node on the
 * way to the root, the subtrees nearest in the tree first.  These subtrees
 * are all the others, and a descent from the root would test both
 * children on that way where this tests one (1e6 points along curves, one
 * thread: 2% less time on filaments 3D, 1% on 2D; docs/experiments.md).
 */
static inline void GEMST_FN(gemst_cpu_group_search)(gemst_cpu_group *g, const gemst_bvh *b, const gemst_cpu_leaf *leaf,
                                                    const gemst_grid *pts, const uint32_t *comp, uint32_t j,
                                                    uint32_t first, uint32_t last)
{
    if (g->label != GEMST_NONE && b->node[0].label == g->label)
        return;
    uint32_t id = gemst_bvh_leaf_id(b->n, j);
    for (uint32_t up = b->parent[id]; up != GEMST_NONE; id = up, up = b->parent[up]) {
        uint32_t child[2];
        gemst_real d2;
        GEMST_FN(gemst_bvh_children)(b->n, b->node, up, child);
        const uint32_t sibling = child[0] == id ? child[1] : child[0];
        if (GEMST_FN(gemst_cpu_group_enters)(g, b, leaf, sibling, &d2))
            GEMST_FN(gemst_cpu_group_descend)(g, b, leaf, pts, comp, sibling, d2, first, last);
    }
}

/* The group of leaf j against its leaf and the leaves either side of it
 * in the points' order, before its search: most of its points' nearest points
 * lie there, so that the search starts with tight radii (the window the
 * GPU seeds its lists with, bvh_knn.h).  The leaves scanned go to *first
 * and *last.  At 1e6 points along curves the first iteration's search
 * then visited a third fewer nodes and half the point-leaf pairs
 * (docs/experiments.md). */
static inline void GEMST_FN(gemst_cpu_group_window)(gemst_cpu_group *g, const gemst_bvh *b, const gemst_cpu_leaf *leaf,
                                                    const gemst_grid *pts, const uint32_t *comp, uint32_t j,
                                                    uint32_t *first, uint32_t *last)
{
    GEMST_FN(gemst_cpu_group_scan)(g, b, leaf, pts, comp, j);
    *first = *last = j;
    if (j > 0)
        GEMST_FN(gemst_cpu_group_scan)(g, b, leaf, pts, comp, --*first);
    if (j + 1 < b->n)
        GEMST_FN(gemst_cpu_group_scan)(g, b, leaf, pts, comp, ++*last);
}

/*
 * kNN-first: in Borůvka's first iteration every point's search collects
 * its K nearest other points instead of the nearest only, nearest first in
 * edge order (squared length, then caller id: for edges sharing the point,
 * the edge order, graph/edge_order.h).  A list is a prefix of all other
 * points in that order, ties at the K-th length included (those of larger
 * ids are left out).  Components only grow, so in a later iteration the
 * first listed point in another component is exactly the point's nearest
 * foreign point, and a list whose points all lie in the point's component
 * stays so and bounds its nearest foreign distance from below by the K-th
 * squared length.  `at` keeps where each list's scan stopped (K once it
 * ran out): the entries before lie in the point's component for good.
 * Not for mutual reachability, whose lengths do not follow the Euclidean
 * order.  K ids and one byte per point.
 *
 * K is GEMST_CPU_KNN_FIRST.  At 1e6 points along curves (where the CPU
 * searches this tree), lists of 8 made the first iteration's search about
 * twice as long as the nearest point's alone, and the next iteration's 3 to
 * 6 times shorter; 8 used less time than 4 or none on every such set
 * (docs/experiments.md).
 */
#define GEMST_CPU_KNN_FIRST GEMST_KNN
typedef struct {
    uint32_t *id; /* K per point: grid point ids, GEMST_NONE past the last */
    uint8_t *at;  /* per point: the entry its last scan stopped at */
    int K;        /* at most GEMST_KNN */
} gemst_cpu_knn_first;

/* The K nearest other points of leaf j's points into kf (the first
 * iteration, before any search): the leaf's own points first, then one
 * traversal pruned at the largest K-th distance. */
static inline void GEMST_FN(gemst_cpu_bvh_knn_leaf)(const gemst_bvh *b, const gemst_cpu_leaf *leaf,
                                                    const gemst_grid *pts, const gemst_cpu_knn_first *kf, uint32_t j)
{
    gemst_cpu_group g;
    gemst_cpu_group_knn k;
    uint32_t first, end;
    GEMST_FN(gemst_bvh_leaf_points)(b, gemst_bvh_leaf_id(b->n, j), &first, &end);
    g.n = end - first;
    g.knn = &k;
    g.label = GEMST_NONE;
    g.reach = GEMST_REAL_INF;
    g.passed = GEMST_REAL_INF;
    k.K = kf->K;
    for (int d = 0; d < 3; d++) {
        g.lo[d] = leaf[j].lo[d];
        g.hi[d] = leaf[j].hi[d];
    }
    for (uint32_t a = 0; a < g.n; a++) {
        GEMST_FN(gemst_query_point)(pts, first + a, &g.qq[a]);
        g.radius[a] = GEMST_REAL_INF;
        GEMST_FN(gemst_knn_clear)(k.kd2[a], k.kid[a]);
        k.count[a] = 0;
    }
    uint32_t window_first, window_last;
    GEMST_FN(gemst_cpu_group_window)(&g, b, leaf, pts, NULL, j, &window_first, &window_last);
    GEMST_FN(gemst_cpu_group_search)(&g, b, leaf, pts, NULL, j, window_first, window_last);
    for (uint32_t a = 0; a < g.n; a++) {
        uint32_t *id = kf->id + (size_t)(first + a) * (size_t)kf->K;
        for (int e = 0; e < kf->K; e++)
            id[e] = k.kid[a][e];
        kf->at[first + a] = 0;
    }
}

/* Point q's first listed point in another component (kNN-first, above):
 * its nearest foreign point.  GEMST_NONE when its whole list lies in its
 * component; best_d2[q], its lower bound, is then raised to the list's
 * last squared length (infinity when the list holds every other point). */
static inline uint32_t GEMST_FN(gemst_cpu_knn_first_foreign)(const gemst_cpu_knn_first *kf, const gemst_grid *pts,
                                                             const uint32_t *comp, gemst_real *best_d2, uint32_t q)
{
    const uint32_t *id = kf->id + (size_t)q * (size_t)kf->K;
    int e = kf->at[q];
    if (e >= kf->K)
        return GEMST_NONE;
    for (; e < kf->K && id[e] != GEMST_NONE; e++)
        if (comp[id[e]] != comp[q]) {
            kf->at[q] = (uint8_t)e;
            return id[e];
        }
    kf->at[q] = (uint8_t)kf->K;
    const gemst_real last = e == kf->K ? GEMST_FN(gemst_edge_d2)(pts, q, id[kf->K - 1]) : GEMST_REAL_INF;
    best_d2[q] = last > best_d2[q] ? last : best_d2[q];
    return GEMST_NONE;
}

/*
 * FindMin1 for the points of leaf j, by gemst_bvh_findmin1_point's rules
 * (bvh_query.h): a point keeping its nearest foreign point,
 * or whose lower bound exceeds its component's bound, does not search; the
 * others search together.  With kf (kNN-first, above; NULL: none), a point
 * whose list holds a foreign point takes it without a search, and one
 * whose list ran out has its lower bound raised first.  Each edge found
 * lowers the bounds of both its components.
 */
static inline void GEMST_FN(gemst_cpu_bvh_findmin1_leaf)(const gemst_bvh *b, const gemst_cpu_leaf *leaf,
                                                         const gemst_grid *pts, const uint32_t *comp, gemst_word1 *ub,
                                                         gemst_real *best_d2, uint32_t *best_to,
                                                         const gemst_cpu_knn_first *kf, uint32_t j)
{
    gemst_cpu_group g;
    uint32_t first, end;
    GEMST_FN(gemst_bvh_leaf_points)(b, gemst_bvh_leaf_id(b->n, j), &first, &end);
    g.n = 0;
    g.reach = 0;
    g.passed = GEMST_REAL_INF;
    g.knn = NULL;
    for (uint32_t q = first; q < end; q++) {
        const uint32_t r = comp[q];
        const gemst_real radius = gemst_edge_word1_value(GEMST_FN(gemst_load_word1)(&ub[r]));
        if (gemst_bvh_keeps_nearest(comp, best_to, q)) {
            const gemst_word1 w = gemst_edge_word1(best_d2[q]);
            GEMST_FN(gemst_atomic_min_word1)(&ub[r], w);
            GEMST_FN(gemst_atomic_min_word1)(&ub[comp[best_to[q]]], w);
            continue;
        }
        best_to[q] = GEMST_NONE;
        const uint32_t listed = kf ? GEMST_FN(gemst_cpu_knn_first_foreign)(kf, pts, comp, best_d2, q) : GEMST_NONE;
        if (listed != GEMST_NONE) {
            best_to[q] = listed;
            best_d2[q] = GEMST_FN(gemst_edge_d2)(pts, q, listed);
            const gemst_word1 w = gemst_edge_word1(best_d2[q]);
            GEMST_FN(gemst_atomic_min_word1)(&ub[r], w);
            GEMST_FN(gemst_atomic_min_word1)(&ub[comp[listed]], w);
            continue;
        }
        if (best_d2[q] > radius)
            continue;
        const uint32_t a = g.n++;
        g.q[a] = q;
        g.comp[a] = r;
        g.to[a] = GEMST_NONE;
        g.radius[a] = radius;
        g.beyond[a] = GEMST_REAL_INF;
        g.best[a] = gemst_edge_none();
        GEMST_FN(gemst_query_point)(pts, q, &g.qq[a]);
        for (int d = 0; d < 3; d++) {
            g.lo[d] = a == 0 || g.qq[a].q[d] < g.lo[d] ? g.qq[a].q[d] : g.lo[d];
            g.hi[d] = a == 0 || g.qq[a].q[d] > g.hi[d] ? g.qq[a].q[d] : g.hi[d];
        }
        g.label = a == 0 || g.label == r ? r : GEMST_NONE;
        g.reach = radius > g.reach ? radius : g.reach;
    }
    if (g.n == 0)
        return;
    GEMST_FN(gemst_cpu_group_scan)(&g, b, leaf, pts, comp, j);
    GEMST_FN(gemst_cpu_group_search)(&g, b, leaf, pts, comp, j, j, j);
    for (uint32_t a = 0; a < g.n; a++) {
        const uint32_t q = g.q[a], to = g.to[a];
        best_to[q] = to;
        if (to == GEMST_NONE) { /* the larger of the two lower bounds */
            const gemst_real beyond = g.beyond[a] < g.passed ? g.beyond[a] : g.passed;
            best_d2[q] = beyond > best_d2[q] ? beyond : best_d2[q];
            continue;
        }
        best_d2[q] = g.best[a].d2;
        const gemst_word1 w = gemst_edge_word1(g.best[a].d2);
        GEMST_FN(gemst_atomic_min_word1)(&ub[g.comp[a]], w);
        GEMST_FN(gemst_atomic_min_word1)(&ub[comp[to]], w);
    }
}

#endif
