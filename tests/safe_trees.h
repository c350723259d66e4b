/*
 * Trees of the safe edges' tests (tests/test_safe_edges.c on the host,
 * tests/test_cuda_contract.c on a device): random forests over n points in
 * the edge order, and the plain serial Kruskal marking that the proof in
 * docs/partitioned.md states, with the components of the safe edges, as
 * independent references.
 *
 * The trees are random (every point hooked to an earlier one, the labels
 * shuffled), paths and stars (one root shared by a whole batch), and
 * forests; lengths continuous or drawn from a few values, so that equal
 * lengths occur.
 */
#ifndef GEMST_TESTS_SAFE_TREES_H
#define GEMST_TESTS_SAFE_TREES_H

#include <stdint.h>
#include <stdlib.h>

#include "testutil.h"
#include "parts/parts.h"

typedef enum { SHAPE_RANDOM, SHAPE_PATH, SHAPE_STAR, SHAPE_FOREST, SHAPE_COUNT } shape;

static const char *const shape_name[] = {"random tree", "path", "star", "forest"};

static inline int cmp_edge(const void *a, const void *b)
{
    const gemst_parts_edge *x = a, *y = b;
    return gemst_parts_edge_less(x, y) ? -1 : gemst_parts_edge_less(y, x);
}

/* A value from a few levels (ties) or continuous. */
static inline double draw(uint64_t *rng, int levels)
{
    return levels > 0 ? (double)rng_below(rng, (uint64_t)levels) : rng_unit(rng);
}

/* A forest of the shape over n points, in the edge order; *m edges. */
static inline gemst_parts_edge *make_tree(shape sh, int64_t n, int levels, uint64_t *rng, int64_t *m)
{
    uint32_t *label = xcalloc((size_t)n, sizeof *label);
    for (int64_t i = 0; i < n; i++)
        label[i] = (uint32_t)i;
    for (int64_t i = n - 1; i > 0; i--) { /* shuffled, so that the ends' numbers are far apart */
        const int64_t j = (int64_t)rng_below(rng, (uint64_t)i + 1);
        const uint32_t t = label[i];
        label[i] = label[j];
        label[j] = t;
    }
    gemst_parts_edge *e = xcalloc((size_t)(n > 1 ? n - 1 : 1), sizeof *e);
    int64_t k = 0;
    for (int64_t i = 1; i < n; i++) {
        const int64_t to = sh == SHAPE_PATH ? i - 1 : sh == SHAPE_STAR ? 0 : (int64_t)rng_below(rng, (uint64_t)i);
        if (sh == SHAPE_FOREST && rng_below(rng, 8) == 0)
            continue;
        const uint32_t a = label[i], b = label[to];
        e[k++] = (gemst_parts_edge){draw(rng, levels), a < b ? a : b, a < b ? b : a};
    }
    qsort(e, (size_t)k, sizeof *e, cmp_edge);
    free(label);
    *m = k;
    return e;
}

static inline uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

/* The serial Kruskal's marking. */
static inline void reference_safe(const gemst_parts_edge *e, int64_t m, const double *low_in, int64_t n,
                                  uint8_t *safe)
{
    uint32_t *parent = xcalloc((size_t)n, sizeof *parent);
    double *low = xcalloc((size_t)n, sizeof *low);
    for (int64_t i = 0; i < n; i++) {
        parent[i] = (uint32_t)i;
        low[i] = low_in[i];
    }
    for (int64_t k = 0; k < m; k++) {
        const uint32_t a = find(parent, e[k].lo), b = find(parent, e[k].hi);
        safe[k] = e[k].d2 < low[a] || e[k].d2 < low[b];
        parent[a] = b;
        low[b] = low[a] < low[b] ? low[a] : low[b];
    }
    free(parent);
    free(low);
}

/* The components of the safe edges, numbered in the order of their first
 * points. */
static inline uint32_t reference_components(const gemst_parts_edge *e, int64_t m, const uint8_t *safe, int64_t n,
                                     uint32_t *comp)
{
    uint32_t *parent = xcalloc((size_t)n, sizeof *parent), *number = xcalloc((size_t)n, sizeof *number);
    for (int64_t i = 0; i < n; i++) {
        parent[i] = (uint32_t)i;
        number[i] = UINT32_MAX;
    }
    for (int64_t k = 0; k < m; k++)
        if (safe[k])
            parent[find(parent, e[k].lo)] = find(parent, e[k].hi);
    uint32_t count = 0;
    for (int64_t i = 0; i < n; i++) {
        const uint32_t r = find(parent, (uint32_t)i);
        if (number[r] == UINT32_MAX)
            number[r] = count++;
        comp[i] = number[r];
    }
    free(parent);
    free(number);
    return count;
}

/* Whether the rounds rule's fixed point holds for the marking `safe`: no
 * component of the marked edges has a least incident unmarked edge
 * shorter than its smallest low.  -1 when it holds, else such an edge. */
static inline int64_t rounds_unfinished(const gemst_parts_edge *e, int64_t m, const double *low, int64_t n,
                                       const uint8_t *safe)
{
    uint32_t *comp = xcalloc((size_t)n, sizeof *comp);
    const uint32_t count = reference_components(e, m, safe, n, comp);
    double *least = xcalloc((size_t)count + 1, sizeof *least);
    uint8_t *has = xcalloc((size_t)count + 1, 1);
    int64_t *first = xcalloc((size_t)count + 1, sizeof *first);
    for (uint32_t c = 0; c < count; c++)
        first[c] = -1;
    for (int64_t i = 0; i < n; i++) {
        const uint32_t c = comp[i];
        least[c] = has[c] && least[c] <= low[i] ? least[c] : low[i];
        has[c] = 1;
    }
    for (int64_t k = m - 1; k >= 0; k--) /* the least incident unmarked edge: the first in the order */
        if (!safe[k]) {
            first[comp[e[k].lo]] = k;
            first[comp[e[k].hi]] = k;
        }
    int64_t bad = -1;
    for (uint32_t c = 0; c < count && bad < 0; c++)
        if (first[c] >= 0 && e[first[c]].d2 < least[c])
            bad = first[c];
    free(comp);
    free(least);
    free(has);
    free(first);
    return bad;
}

#endif
