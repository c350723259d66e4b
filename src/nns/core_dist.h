/*
 * Core distances for HDBSCAN*'s mutual reachability (nns/edge_length.h),
 * per point, for a CPU loop iteration or a CUDA thread (precision-generic,
 * see real.h).
 *
 * The core distance of point q for min_samples k is the distance to its
 * k-th nearest point counting q itself (scikit-learn's definition), and
 * exact duplicates count as points at distance 0.  The searches run over
 * the unique points, each standing for its `mult` copies (itself and its
 * duplicates): q's own copies cover the first mult[q] of the k, and the
 * nearest other unique points the rest, `need` = k - mult[q] copies.
 *
 * The nearest points are kept in a max-heap of squared distances with the
 * copies at each, no larger than needed: a farther entry is dropped as
 * soon as the nearer ones hold `need` copies without it.  The heap's top is
 * then the core distance so far, and the bound of the search (a point at
 * that distance or beyond changes nothing).  The heap's arrays are the
 * caller's: need + 1 entries.
 */
#ifndef GEMST_CORE_DIST_H
#define GEMST_CORE_DIST_H

#include "nns/walk.h"

#define gemst_core_heap GEMST_FN(gemst_core_heap)
typedef struct {
    gemst_real *d2;    /* a max-heap of squared distances, need + 1 entries */
    uint32_t *copies;  /* the copies at each */
    uint32_t count;    /* entries */
    uint32_t held;     /* copies held */
    uint32_t need;     /* copies wanted */
} gemst_core_heap;

static inline GEMST_HD void GEMST_FN(gemst_core_heap_init)(gemst_core_heap *h, gemst_real *d2, uint32_t *copies,
                                                         uint32_t need)
{
    h->d2 = d2;
    h->copies = copies;
    h->count = 0;
    h->held = 0;
    h->need = need;
}

/* The squared core distance so far: the farthest entry once the heap holds
 * `need` copies, else infinity (0 when none are needed). */
static inline GEMST_HD gemst_real GEMST_FN(gemst_core_bound)(const gemst_core_heap *h)
{
    if (h->need == 0)
        return 0;
    return h->held >= h->need ? h->d2[0] : GEMST_REAL_INF;
}

/* Swaps entries i and j of the heap. */
static inline GEMST_HD void GEMST_FN(gemst_core_swap)(gemst_core_heap *h, uint32_t i, uint32_t j)
{
    const gemst_real t = h->d2[i];
    const uint32_t c = h->copies[i];
    h->d2[i] = h->d2[j];
    h->copies[i] = h->copies[j];
    h->d2[j] = t;
    h->copies[j] = c;
}

/* Removes the farthest entry. */
static inline GEMST_HD void GEMST_FN(gemst_core_pop)(gemst_core_heap *h)
{
    h->held -= h->copies[0];
    h->count--;
    h->d2[0] = h->d2[h->count];
    h->copies[0] = h->copies[h->count];
    for (uint32_t i = 0;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->count && h->d2[l] > h->d2[m])
            m = l;
        if (r < h->count && h->d2[r] > h->d2[m])
            m = r;
        if (m == i)
            return;
        GEMST_FN(gemst_core_swap)(h, i, m);
        i = m;
    }
}

/* Offers `copies` points at squared distance d2. */
static inline GEMST_HD void GEMST_FN(gemst_core_offer)(gemst_core_heap *h, gemst_real d2, uint32_t copies)
{
    if (!(d2 < GEMST_FN(gemst_core_bound)(h)))
        return;
    uint32_t i = h->count++;
    h->d2[i] = d2;
    h->copies[i] = copies;
    h->held += copies;
    while (i > 0 && h->d2[(i - 1) / 2] < h->d2[i]) {
        GEMST_FN(gemst_core_swap)(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    while (h->held - h->copies[0] >= h->need)
        GEMST_FN(gemst_core_pop)(h);
}

/* The copies grid point p stands for. */
static inline GEMST_HD uint32_t gemst_copies(const uint32_t *mult, uint32_t p)
{
    return mult ? mult[p] : 1;
}

/*
 * The squared core distance of grid point qq->idx: a ring search over the
 * grid (nns/walk.h) for the nearest unique points, until the rings left lie
 * beyond the heap's bound or the grid is covered.  mult: each unique
 * point's copies (NULL: one each); h: the heap, initialized with the
 * copies needed beyond the query's own.  Infinity when the grid holds
 * fewer points than needed.
 */
static inline GEMST_HD gemst_real GEMST_FN(gemst_core_dist2_grid)(const gemst_grid *g, const gemst_query *qq,
                                                                const uint32_t *mult, gemst_core_heap *h)
{
    const gemst_own none = {NULL, NULL, GEMST_NONE};
    gemst_cells top;
    GEMST_FN(gemst_top_cells)(g, &top);
    for (int r = 0; h->need > 0; r++) {
        gemst_walk w;
        gemst_walk_stack ws;
        uint32_t b, e;
        GEMST_FN(gemst_walk_begin)(g, qq, r, 0, &w);
        while (GEMST_FN(gemst_walk_next)(g, qq, &w, &ws, &none, GEMST_FN(gemst_core_bound)(h), &b, &e))
            for (uint32_t p = b; p < e; p++)
                if (p != qq->idx)
                    GEMST_FN(gemst_core_offer)(h, GEMST_FN(gemst_dist2_q)(g, qq, p), gemst_copies(mult, p));
        const gemst_real lb2 = GEMST_FN(gemst_ring_outer_lb2)(&top, qq->q, qq->q, qq->c, r);
        if (lb2 == GEMST_REAL_INF || lb2 > GEMST_FN(gemst_core_bound)(h))
            break;
    }
    return GEMST_FN(gemst_core_bound)(h);
}

#endif
