/* The k-d tree's build, and points added to it. */
#include "parts/kdtree.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* Points per leaf. */
#define LEAF 8

/* Subtrees of more points than this are built as tasks of their own. */
#define TASK_POINTS 16384

/* order[b .. e) rearranged so that position k holds the point of rank k
 * along axis d (quickselect), the smaller ones before it. */
static void select_rank(const double *w, uint32_t *order, int64_t b, int64_t e, int64_t k, int d)
{
    while (e - b > 1) {
        const int64_t mid = b + (e - b) / 2;
        const double x = w[3 * (size_t)order[b] + d], y = w[3 * (size_t)order[mid] + d],
                     z = w[3 * (size_t)order[e - 1] + d];
        const double pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
        int64_t i = b, j = e - 1;
        while (i <= j) { /* Hoare's partition */
            while (w[3 * (size_t)order[i] + d] < pivot)
                i++;
            while (w[3 * (size_t)order[j] + d] > pivot)
                j--;
            if (i <= j) {
                uint32_t t = order[i];
                order[i++] = order[j];
                order[j--] = t;
            }
        }
        if (k <= j)
            e = j + 1;
        else if (k >= i)
            b = i;
        else
            return;
    }
}

/* The box of the points order[b .. e). */
static gemst_box points_box(const gemst_kdtree *t, const double *w, int64_t b, int64_t e)
{
    gemst_box box;
    for (int d = 0; d < 3; d++) {
        box.lo[d] = INFINITY;
        box.hi[d] = -INFINITY;
    }
    for (int64_t k = b; k < e; k++)
        for (int d = 0; d < 3; d++) {
            const double v = w[3 * (size_t)t->order[k] + d];
            box.lo[d] = v < box.lo[d] ? v : box.lo[d];
            box.hi[d] = v > box.hi[d] ? v : box.hi[d];
        }
    return box;
}

/* Node `at`, the subtree of order[b .. e).  Subtrees are built
 * concurrently: a node's children take the next free indices when its own
 * build has split it, so that they come after it. */
static void build(gemst_kdtree *t, const double *w, uint32_t at, int64_t b, int64_t e)
{
    gemst_kd_node *nd = &t->node[at];
    nd->box = points_box(t, w, b, e);
    nd->begin = (uint32_t)b;
    nd->end = (uint32_t)e;
    nd->left = nd->right = GEMST_NONE;
    if (e - b <= LEAF)
        return;
    int axis = 0;
    for (int d = 1; d < 3; d++)
        if (nd->box.hi[d] - nd->box.lo[d] > nd->box.hi[axis] - nd->box.lo[axis])
            axis = d;
    const int64_t mid = b + (e - b) / 2;
    select_rank(w, t->order, b, e, mid, axis);
    const uint32_t left = (uint32_t)__atomic_fetch_add(&t->n_node, 2, __ATOMIC_RELAXED);
    nd->left = left;
    nd->right = left + 1;
    /* the node array is never moved during a build */
#pragma omp task if (e - b > TASK_POINTS) default(shared)
    build(t, w, left, b, mid);
    build(t, w, left + 1, mid, e);
#pragma omp taskwait
}

/* Room for `more` nodes beyond those of the tree. */
static int reserve_nodes(gemst_kdtree *t, int64_t more)
{
    if (t->n_node + more <= t->cap_node)
        return 0;
    const int64_t want = t->n_node + more > 2 * t->cap_node ? t->n_node + more : 2 * t->cap_node;
    gemst_kd_node *node = realloc(t->node, sizeof *node * (size_t)want);
    if (!node)
        return -1;
    t->node = node;
    t->cap_node = want;
    return 0;
}

/* The most nodes of a subtree built over n points: its leaves hold LEAF / 2
 * points or more, so it has fewer than 4 n / LEAF + 2. */
static int64_t most_nodes(int64_t n)
{
    return 4 * (n / LEAF + 1);
}

/* The subtrees of the nodes at[0 .. m) over their points, on up to
 * `threads` threads. */
static void build_all(gemst_kdtree *t, const double *w, const uint32_t *at, int64_t m, int threads)
{
#pragma omp parallel num_threads(threads)
#pragma omp single
    for (int64_t k = 0; k < m; k++) {
        uint32_t node = at[k], b = t->node[node].begin, e = t->node[node].end;
#pragma omp task if (e - b > TASK_POINTS) default(shared) firstprivate(node, b, e)
        build(t, w, node, b, e);
    }
}

int gemst_kdtree_build(gemst_kdtree *t, const double *w, int64_t n, int threads, gridemst_error *err)
{
    gemst_kdtree_free(t);
    t->order = malloc(sizeof *t->order * (size_t)(n > 0 ? n : 1));
    if (!t->order || reserve_nodes(t, most_nodes(n)) != 0) {
        gemst_kdtree_free(t);
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for a k-d tree of %lld points",
                          (long long)n);
    }
    for (int64_t k = 0; k < n; k++)
        t->order[k] = (uint32_t)k;
    if (n == 0)
        return GRIDEMST_OK;
    const uint32_t root = 0;
    t->n_node = 1;
    t->node[0] = (gemst_kd_node){{{0, 0, 0}, {0, 0, 0}}, 0, (uint32_t)n, GEMST_NONE, GEMST_NONE};
    build_all(t, w, &root, 1, threads);
    return GRIDEMST_OK;
}

/* The leaf that point p joins: from the root, the child whose box is
 * nearer (the left one at a tie). */
static uint32_t leaf_for(const gemst_kdtree *t, const double p[3])
{
    const gemst_box q = gemst_point_box(p);
    uint32_t k = 0;
    while (t->node[k].left != GEMST_NONE) {
        const gemst_kd_node *nd = &t->node[k];
        const double dl = gemst_box_dist2(&t->node[nd->left].box, &q),
                     dr = gemst_box_dist2(&t->node[nd->right].box, &q);
        k = dr < dl ? nd->right : nd->left;
    }
    return k;
}

/* The smallest box holding a and b. */
static gemst_box box_union(const gemst_box *a, const gemst_box *b)
{
    gemst_box u;
    for (int d = 0; d < 3; d++) {
        u.lo[d] = a->lo[d] < b->lo[d] ? a->lo[d] : b->lo[d];
        u.hi[d] = a->hi[d] > b->hi[d] ? a->hi[d] : b->hi[d];
    }
    return u;
}

/* Every node's range moved by the points to be added before it (added[k]:
 * those under node k), each leaf's points copied to their new place in
 * order, at the start of its new range: the new starts from the old
 * ranges, parents first, then every node moved at once. */
static void move_ranges(gemst_kdtree *t, const uint32_t *added, uint32_t *begin, uint32_t *order, int threads)
{
    begin[0] = 0;
    for (int64_t k = 0; k < t->n_node; k++) {
        const gemst_kd_node *nd = &t->node[k];
        if (nd->left != GEMST_NONE) {
            const gemst_kd_node *l = &t->node[nd->left];
            begin[nd->left] = begin[k];
            begin[nd->right] = begin[k] + (l->end - l->begin) + added[nd->left];
        }
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t k = 0; k < t->n_node; k++) {
        gemst_kd_node *nd = &t->node[k];
        const uint32_t size = nd->end - nd->begin;
        if (nd->left == GEMST_NONE)
            memcpy(order + begin[k], t->order + nd->begin, sizeof *order * size);
        nd->begin = begin[k];
        nd->end = begin[k] + size + added[k];
    }
}

/*
 * Points n .. n + m - 1 (n: the tree's points) into the leaves leaf_for
 * gives them: every node's range moved by the points added before it (the
 * order array rewritten, leaf by leaf), the boxes on their paths grown,
 * and each leaf of more than LEAF points split by a build of its own.
 * Returns -1 when out of memory, the tree unchanged.
 */
static int insert(gemst_kdtree *t, const double *w, int64_t m, int threads)
{
    const int64_t nodes = t->n_node, n = t->node[0].end;
    uint32_t *leaf = malloc(sizeof *leaf * (size_t)m), *touched = malloc(sizeof *touched * (size_t)m);
    uint32_t *order = malloc(sizeof *order * (size_t)(n + m)), *begin = malloc(sizeof *begin * (size_t)nodes);
    uint32_t *added = calloc((size_t)nodes, sizeof *added);
    /* a split leaf of s points (at most LEAF + its additions) takes fewer than most_nodes(s) new nodes */
    if (!leaf || !touched || !order || !begin || !added || reserve_nodes(t, 8 * m + most_nodes(m)) != 0) {
        free(leaf);
        free(touched);
        free(order);
        free(begin);
        free(added);
        return -1;
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t k = 0; k < m; k++)
        leaf[k] = leaf_for(t, w + 3 * (size_t)(n + k));
    int64_t n_touched = 0;
    for (int64_t k = 0; k < m; k++)
        if (added[leaf[k]]++ == 0)
            touched[n_touched++] = leaf[k];
    for (int64_t k = nodes - 1; k >= 0; k--) /* children first */
        if (t->node[k].left != GEMST_NONE)
            added[k] = added[t->node[k].left] + added[t->node[k].right];
    move_ranges(t, added, begin, order, threads);
    for (int64_t k = 0; k < m; k++) /* after each leaf's old points, in order */
        order[t->node[leaf[k]].end - added[leaf[k]]--] = (uint32_t)(n + k);
    free(t->order);
    t->order = order;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t j = 0; j < n_touched; j++) {
        gemst_kd_node *nd = &t->node[touched[j]];
        nd->box = points_box(t, w, nd->begin, nd->end);
    }
    int64_t split = 0;
    for (int64_t j = 0; j < n_touched; j++) {
        const gemst_kd_node *nd = &t->node[touched[j]];
        if (nd->end - nd->begin > LEAF)
            touched[split++] = touched[j];
    }
    for (int64_t k = nodes - 1; k >= 0; k--) { /* children first; added[k] is still set for inner nodes */
        gemst_kd_node *nd = &t->node[k];
        if (nd->left != GEMST_NONE && added[k] > 0)
            nd->box = box_union(&t->node[nd->left].box, &t->node[nd->right].box);
    }
    build_all(t, w, touched, split, threads);
    free(leaf);
    free(touched);
    free(begin);
    free(added);
    return 0;
}

/* The tree's greatest depth (the root's: 0), with depth[k] node k's. */
static int max_depth(const gemst_kdtree *t, int *depth)
{
    int most = 0;
    depth[0] = 0;
    for (int64_t k = 0; k < t->n_node; k++) { /* parents first */
        const gemst_kd_node *nd = &t->node[k];
        most = depth[k] > most ? depth[k] : most;
        if (nd->left != GEMST_NONE)
            depth[nd->left] = depth[nd->right] = depth[k] + 1;
    }
    return most;
}

int gemst_kdtree_add(gemst_kdtree *t, const double *w, int64_t n, int threads, gridemst_error *err)
{
    const int64_t had = t->n_node > 0 ? t->node[0].end : 0, m = n - had;
    if (m == 0)
        return GRIDEMST_OK;
    /* the split planes stop fitting once the additions are a large share of the points */
    if (2 * m > had)
        return gemst_kdtree_build(t, w, n, threads, err);
    int *depth = NULL;
    if (insert(t, w, m, threads) != 0 || !(depth = malloc(sizeof *depth * (size_t)t->n_node)))
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for a k-d tree of %lld points",
                          (long long)n);
    const int deep = max_depth(t, depth) > GEMST_KD_MAX_DEPTH;
    free(depth);
    return deep ? gemst_kdtree_build(t, w, n, threads, err) : GRIDEMST_OK;
}

void gemst_kdtree_free(gemst_kdtree *t)
{
    free(t->order);
    free(t->node);
    t->order = NULL;
    t->node = NULL;
    t->n_node = t->cap_node = 0;
}
