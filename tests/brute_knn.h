/*
 * A query's K nearest points by brute force, for the tests of the K-nearest
 * searches (precision-generic: include after real.h's GEMST_REAL_IS_DOUBLE
 * and nns/search.h).  Distances come from gemst_dist2, the one formula the
 * solver compares, and ties go to the smaller caller id (edge order).
 */
#ifndef GEMST_TEST_BRUTE_KNN_H
#define GEMST_TEST_BRUTE_KNN_H

#include "nns/search.h"

typedef struct {
    gemst_real d2;
    uint32_t oid, p; /* caller id, grid point */
} neighbour;

static inline int neighbour_less(neighbour a, neighbour b)
{
    return a.d2 < b.d2 || (a.d2 == b.d2 && a.oid < b.oid);
}

/* The K nearest other points of grid point q in edge order (K =
 * gemst_knn_k), by insertion; returns how many. */
static inline int brute_knn(const gemst_grid *g, uint32_t q, neighbour nb[GEMST_KNN])
{
    const int K = gemst_knn_k(g->dim);
    int count = 0;
    for (uint32_t p = 0; p < g->n; p++) {
        if (p == q)
            continue;
        const neighbour x = {GEMST_FN(gemst_dist2)(g, q, p), g->oid[p], p};
        if (count == K && !neighbour_less(x, nb[K - 1]))
            continue;
        int k = count < K ? count++ : K - 1;
        for (; k > 0 && neighbour_less(x, nb[k - 1]); k--)
            nb[k] = nb[k - 1];
        nb[k] = x;
    }
    return count;
}

#endif
