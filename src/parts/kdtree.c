/* The k-d tree's build. */
#include "parts/kdtree.h"

#include <math.h>
#include <stdlib.h>

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

/* The subtree of order[b .. e); returns its node's index.  Subtrees are
 * built concurrently: a node takes the next free index when its build
 * starts, after its parent's. */
static uint32_t build(gemst_kdtree *t, const double *w, int64_t b, int64_t e)
{
    const uint32_t at = (uint32_t)__atomic_fetch_add(&t->n_node, 1, __ATOMIC_RELAXED);
    gemst_kd_node *nd = &t->node[at];
    for (int d = 0; d < 3; d++) {
        nd->box.lo[d] = INFINITY;
        nd->box.hi[d] = -INFINITY;
    }
    for (int64_t k = b; k < e; k++)
        for (int d = 0; d < 3; d++) {
            const double v = w[3 * (size_t)t->order[k] + d];
            nd->box.lo[d] = v < nd->box.lo[d] ? v : nd->box.lo[d];
            nd->box.hi[d] = v > nd->box.hi[d] ? v : nd->box.hi[d];
        }
    nd->begin = (uint32_t)b;
    nd->end = (uint32_t)e;
    nd->left = nd->right = GEMST_NONE;
    if (e - b <= LEAF)
        return at;
    int axis = 0;
    for (int d = 1; d < 3; d++)
        if (nd->box.hi[d] - nd->box.lo[d] > nd->box.hi[axis] - nd->box.lo[axis])
            axis = d;
    const int64_t mid = b + (e - b) / 2;
    select_rank(w, t->order, b, e, mid, axis);
    /* the node array is never moved */
#pragma omp task if (e - b > TASK_POINTS) default(shared)
    nd->left = build(t, w, b, mid);
    nd->right = build(t, w, mid, e);
#pragma omp taskwait
    return at;
}

int gemst_kdtree_build(gemst_kdtree *t, const double *w, int64_t n, int threads, gridemst_error *err)
{
    gemst_kdtree_free(t);
    /* leaves hold LEAF / 2 points or more: fewer than 4 n / LEAF + 2 nodes */
    const int64_t most = 4 * (n / LEAF + 1);
    t->order = malloc(sizeof *t->order * (size_t)(n > 0 ? n : 1));
    t->node = malloc(sizeof *t->node * (size_t)most);
    if (!t->order || !t->node) {
        gemst_kdtree_free(t);
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for a k-d tree of %lld points",
                          (long long)n);
    }
    for (int64_t k = 0; k < n; k++)
        t->order[k] = (uint32_t)k;
    t->n_node = 0;
#pragma omp parallel num_threads(threads)
#pragma omp single
    if (n > 0)
        build(t, w, 0, n);
    return GRIDEMST_OK;
}

void gemst_kdtree_free(gemst_kdtree *t)
{
    free(t->order);
    free(t->node);
    t->order = NULL;
    t->node = NULL;
    t->n_node = 0;
}
