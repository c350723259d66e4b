/*
 * The safe edges of a part's tree, in parallel: Kruskal in batches.
 *
 * The test (contract.c, docs/partitioned.md) asks, for each tree edge k
 * in the edge order, for the smallest low (gap rounded down) of each of
 * the two components that the edges before k leave at k's ends.  Kruskal
 * answers it one edge after another, through a union-find over all the
 * part's points: random accesses, one after the other.  Here the edges go
 * in batches of BATCH consecutive edges, each in three parallel passes
 * and one short serial one:
 *
 *   1. find    every end's root in the union-find of the edges before the
 *              batch (concurrent finds: no link happens in this pass, so
 *              path halving only shortens paths to the same roots), and
 *              each root met tags one of its ends, its slot;
 *   2. slots   each end reads its root's slot; each slot takes its root's
 *              smallest low;
 *   3. serial  Kruskal over the batch's edges with a union-find over the
 *              slots: at edge j, the slots' components are exactly the
 *              components of the edges before j (those before the batch,
 *              joined by the batch's edges before j), and their smallest
 *              lows are the minima over them; the test is Kruskal's own,
 *              so the safe edges are exactly Kruskal's.  The slots, at
 *              most 2 BATCH of them, stay in the cache;
 *   4. link    each slot's root is hooked under its slot component's
 *              root, which takes the component's smallest low (each root
 *              has one slot: no two threads write one word).
 *
 * The random accesses into the whole part (passes 1, 2 and 4) run on every
 * thread; the serial pass touches only the batch's slots.  The result does
 * not depend on the number of threads.  On one thread, or for a tree of
 * one batch, the passes would only add work: Kruskal then runs on the
 * points themselves, the whole tree as one batch whose slots are its
 * points.
 *
 * The safe components then come from a concurrent union-find that hooks
 * the larger root under the smaller (compare-and-swap), so that a root is
 * its component's smallest point, and a prefix count of the roots numbers
 * them in that order.
 */
#include "parts/safe_edges.h"

#include <stddef.h>
#include <stdlib.h>

#include "atomics.h"
#include "host_array.h"
#include "graph/union_find.h"

/* Edges per batch: the serial pass's slots (20 bytes each, two an edge)
 * stay within the last-level cache, and the threads meet at a barrier
 * only four times per batch, while each parallel pass shares tens of
 * thousands of finds. */
#define BATCH 65536

/* A point's state in the union-find of the edges before the batch, in
 * one cache line's quarter: a find's last access brings its root's tag
 * and low along. */
typedef struct {
    uint32_t parent;
    uint32_t tag;   /* at a root met in the batch: one of its slots */
    double low;     /* at a root: its component's smallest low */
} point_state;

/* The root of x in the union-find of the edges before the batch, halving
 * the path: other threads halve the same paths at the same time (no link
 * happens during the pass); every value read is an ancestor of x. */
static uint32_t find_state(point_state *pt, uint32_t x)
{
    for (;;) {
        const uint32_t p = gemst_load_relaxed(&pt[x].parent);
        if (p == x)
            return x;
        const uint32_t g = gemst_load_relaxed(&pt[p].parent);
        if (g != p)
            gemst_store_relaxed(&pt[x].parent, g);
        x = g;
    }
}

/* The union-find of the edges before the batch, and the batch's slots. */
typedef struct {
    point_state *pt;    /* per point */
    uint32_t *root;     /* per slot (2 j: edge j's lo, 2 j + 1: its hi): the end's root */
    uint32_t *first;    /* per slot: the slot its root tagged */
    uint32_t *up;       /* per tagged slot: the union-find over the batch's edges so far */
    double *slot_low;   /* per tagged slot: at a slot root, its component's smallest low */
} batches;

/* Kruskal over edges e[0 .. len) on the union-find up, whose roots carry
 * their components' smallest lows: the ends of edge j are the elements
 * end[2 j] and end[2 j + 1] (the batch's slots), or with end NULL its own
 * lo and hi (the points: the whole tree in one batch). */
static void kruskal(const gemst_parts_edge *e, int64_t len, const uint32_t *end, uint32_t *up, double *low,
                    uint8_t *safe)
{
    for (int64_t j = 0; j < len; j++) {
        const uint32_t a = gemst_parts_find(up, end ? end[2 * j] : e[j].lo),
                       b = gemst_parts_find(up, end ? end[2 * j + 1] : e[j].hi);
        safe[j] = e[j].d2 < low[a] || e[j].d2 < low[b];
        up[a] = b;
        low[b] = low[a] < low[b] ? low[a] : low[b];
    }
}

/* Pass 3: Kruskal over the batch's edges on its slots; every tagged slot
 * then points at its root. */
static void batch_kruskal(batches *s, const gemst_parts_edge *e, int64_t len, uint8_t *safe)
{
    kruskal(e, len, s->first, s->up, s->slot_low, safe);
    for (int64_t k = 0; k < 2 * len; k++)
        if (s->first[k] == (uint32_t)k)
            s->up[k] = gemst_parts_find(s->up, (uint32_t)k);
}

static void mark(batches *s, const gemst_parts_edge *tree, int64_t m, const double *low, int64_t n, int threads,
                 uint8_t *safe)
{
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            s->pt[i] = (point_state){(uint32_t)i, 0, low[i]};
        }
        for (int64_t b = 0; b < m; b += BATCH) {
            const gemst_parts_edge *e = tree + b;
            const int64_t len = m - b < BATCH ? m - b : BATCH;
#pragma omp for schedule(static)
            for (int64_t j = 0; j < len; j++) { /* 1. find */
                const uint32_t lo = find_state(s->pt, e[j].lo), hi = find_state(s->pt, e[j].hi);
                s->root[2 * j] = lo;
                s->root[2 * j + 1] = hi;
                gemst_store_relaxed(&s->pt[lo].tag, (uint32_t)(2 * j));
                gemst_store_relaxed(&s->pt[hi].tag, (uint32_t)(2 * j + 1));
            }
#pragma omp for schedule(static)
            for (int64_t k = 0; k < 2 * len; k++) { /* 2. slots */
                const uint32_t f = gemst_load_relaxed(&s->pt[s->root[k]].tag);
                s->first[k] = f;
                s->up[k] = (uint32_t)k;
                if (f == (uint32_t)k)
                    s->slot_low[k] = s->pt[s->root[k]].low;
            }
#pragma omp single
            batch_kruskal(s, e, len, safe + b); /* 3. serial */
#pragma omp for schedule(static)
            for (int64_t k = 0; k < 2 * len; k++) { /* 4. link */
                if (s->first[k] != (uint32_t)k)
                    continue;
                const uint32_t top = s->up[k];
                s->pt[s->root[k]].parent = s->root[top];
                if (top == (uint32_t)k)
                    s->pt[s->root[k]].low = s->slot_low[k];
            }
        }
    }
}

/* On one thread the batches' passes would only add work: Kruskal over the
 * whole tree at once, its points its slots. */
static int mark_serially(const gemst_parts_edge *tree, int64_t m, const double *low, int64_t n, uint8_t *safe,
                         gridemst_error *err)
{
    uint32_t *up = gemst_host_array(sizeof *up * (size_t)(n > 0 ? n : 1));
    double *least = gemst_host_array(sizeof *least * (size_t)(n > 0 ? n : 1));
    const int ok = up && least;
    for (int64_t i = 0; ok && i < n; i++) {
        up[i] = (uint32_t)i;
        least[i] = low[i];
    }
    if (ok)
        kruskal(tree, m, NULL, up, least, safe);
    free(up);
    free(least);
    return ok ? GRIDEMST_OK
              : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the safe edges of %lld points",
                           (long long)n);
}

int gemst_safe_edges(const gemst_parts_edge *tree, int64_t m, const double *low, int64_t n, int threads,
                     uint8_t *safe, gridemst_error *err)
{
    if (threads <= 1 || m <= BATCH)
        return mark_serially(tree, m, low, n, safe, err);
    const size_t points = (size_t)(n > 0 ? n : 1), slots = 2 * BATCH;
    batches s = {gemst_host_array(sizeof *s.pt * points), malloc(sizeof *s.root * slots), malloc(sizeof *s.first * slots),
                 malloc(sizeof *s.up * slots), malloc(sizeof *s.slot_low * slots)};
    const int ok = s.pt && s.root && s.first && s.up && s.slot_low;
    if (ok)
        mark(&s, tree, m, low, n, threads, safe);
    free(s.pt);
    free(s.root);
    free(s.first);
    free(s.up);
    free(s.slot_low);
    return ok ? GRIDEMST_OK
              : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the safe edges of %lld points",
                           (long long)n);
}

int gemst_safe_components(const gemst_parts_edge *tree, int64_t m, const uint8_t *safe, int64_t n, int threads,
                          uint32_t *comp, uint32_t *n_comp, gridemst_error *err)
{
    uint32_t *parent = gemst_host_array(sizeof *parent * (size_t)(n > 0 ? n : 1));
    int64_t *base = calloc((size_t)threads + 1, sizeof *base);
    if (!parent || !base) {
        free(parent);
        free(base);
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the safe components of %lld points",
                          (long long)n);
    }
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; i++)
            parent[i] = (uint32_t)i;
#pragma omp for schedule(static)
        for (int64_t k = 0; k < m; k++)
            if (safe[k])
                gemst_uf_unite(parent, tree[k].lo, tree[k].hi);
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; i++)
            comp[i] = gemst_uf_find(parent, (uint32_t)i);
        /* the roots numbered in order: each thread's share of the points counts its roots, then numbers them */
#pragma omp for schedule(static)
        for (int t = 0; t < threads; t++) {
            for (int64_t i = n * t / threads; i < n * (t + 1) / threads; i++)
                base[t + 1] += comp[i] == (uint32_t)i;
        }
#pragma omp single
        for (int t = 0; t < threads; t++)
            base[t + 1] += base[t];
#pragma omp for schedule(static)
        for (int t = 0; t < threads; t++) {
            int64_t next = base[t];
            for (int64_t i = n * t / threads; i < n * (t + 1) / threads; i++)
                if (comp[i] == (uint32_t)i)
                    parent[i] = (uint32_t)next++;
        }
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; i++)
            comp[i] = parent[comp[i]];
    }
    *n_comp = (uint32_t)base[threads];
    free(parent);
    free(base);
    return GRIDEMST_OK;
}
