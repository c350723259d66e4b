/*
 * One Boruvka iteration after FindMin1, per component root and per point,
 * written once for the CPU loops and the CUDA kernels (Qiao & Creput 2021,
 * Algorithms 3-6).
 *
 * State, indexed by point (grid order):
 *   comp[i]     root of i's component (a point index)
 *   link[r]     for a root: itself, or the root it hooks to this iteration
 *   best_d2[i], best_to[i]   FindMin1: i's edge out of its component
 *   w1[r], w2[r]             FindMin2: root r's shortest outgoing edge as
 *                            two ordered words (edge_order.h)
 *   win_in[r], win_out[r]    that edge's endpoints inside and outside r's
 *                            component
 */
#ifndef GEMST_BORUVKA_H
#define GEMST_BORUVKA_H

#include "graph/edge_order.h"
#include "atomics.h"

/* A word other threads may lower at the same time (any value read is a
 * valid bound). */
static inline GEMST_HD gemst_word1 GEMST_FN(gemst_load_word1)(const gemst_word1 *p)
{
#if GEMST_REAL_IS_DOUBLE
    return gemst_load_relaxed_u64(p);
#else
    return gemst_load_relaxed(p);
#endif
}

/* Lowers *p to v; returns 0 when v is above the word, so can never be its
 * minimum.  A plain read first spares the atomic when v is not below the
 * word (which only falls, so any value read bounds it): in the late
 * iterations millions of points lower the words of a few roots, and
 * atomics on one address are serialised. */
static inline GEMST_HD int GEMST_FN(gemst_atomic_min_word1)(gemst_word1 *p, gemst_word1 v)
{
    const gemst_word1 seen = GEMST_FN(gemst_load_word1)(p);
    if (v < seen)
#if GEMST_REAL_IS_DOUBLE
        gemst_atomic_min_u64(p, v);
#else
        gemst_atomic_min_u32(p, v);
#endif
    return v <= seen;
}

static inline GEMST_HD gemst_edge_key GEMST_FN(gemst_point_edge)(const uint32_t *oid, const gemst_real *best_d2,
                                                               const uint32_t *best_to, uint32_t q)
{
    return gemst_edge_make(best_d2[q], oid[q], oid[best_to[q]]);
}

/* The edge FindMin2 found for root r (the empty edge when none). */
static inline GEMST_HD gemst_edge_key GEMST_FN(gemst_root_edge)(const gemst_word1 *w1, const uint64_t *w2, uint32_t r)
{
    return gemst_edge_from_words(w1[r], w2[r]);
}

static inline GEMST_HD void GEMST_FN(gemst_root_reset)(gemst_word1 *w1, uint64_t *w2, uint32_t *win_in, uint32_t r)
{
    if (w1) /* NULL: w1 holds the minima already (the CUDA BVH's bounds) */
        w1[r] = gemst_edge_word1(GEMST_REAL_INF);
    w2[r] = UINT64_MAX;
    win_in[r] = GEMST_NONE;
}

/* FindMin2 by linked list, Algorithm 3: a point with an edge whose root is
 * another point pushes itself onto the root's list. */
static inline GEMST_HD void gemst_list_push(uint32_t *head, uint32_t *next, uint32_t root, uint32_t q)
{
    uint32_t old = gemst_load_relaxed(&head[root]);
    for (;;) {
        next[q] = old;
        uint32_t seen = gemst_atomic_cas_u32(&head[root], old, q);
        if (seen == old)
            return;
        old = seen;
    }
}

/* Algorithm 4: root r walks its list (and itself) and keeps the minimum.
 * Without lists (head NULL) r's own edge is taken: right when every
 * component is one point whose edge is its exact nearest neighbour (no edge
 * touching r can be shorter). */
static inline GEMST_HD void GEMST_FN(gemst_list_min)(uint32_t r, const uint32_t *head, const uint32_t *next,
                                                   const uint32_t *oid, const gemst_real *best_d2,
                                                   const uint32_t *best_to, gemst_word1 *w1, uint64_t *w2,
                                                   uint32_t *win_in, uint32_t *win_out)
{
    gemst_edge_key best = gemst_edge_none();
    uint32_t winner = GEMST_NONE;
    if (best_to[r] != GEMST_NONE) {
        best = GEMST_FN(gemst_point_edge)(oid, best_d2, best_to, r);
        winner = r;
    }
    for (uint32_t q = head ? head[r] : GEMST_NONE; q != GEMST_NONE; q = next[q]) {
        gemst_edge_key e = GEMST_FN(gemst_point_edge)(oid, best_d2, best_to, q);
        if (gemst_edge_less(e, best)) {
            best = e;
            winner = q;
        }
    }
    w1[r] = gemst_edge_word1(best.d2);
    w2[r] = gemst_edge_word2(best);
    win_in[r] = winner;
    win_out[r] = winner == GEMST_NONE ? GEMST_NONE : best_to[winner];
}

/* Whether FindMin2 may take each root's own edge (gemst_list_min without
 * lists): every component is still one point (roots == points), and
 * FindMin1 gave each its exact nearest neighbour (nn_exact: static
 * pruning, whose candidates always hold it, or the BVH's exact search). */
static inline GEMST_HD int gemst_own_edges_suffice(uint32_t roots, uint32_t points, int nn_exact)
{
    return roots == points && nn_exact;
}

/*
 * FindMin2 by atomic minimum, in three passes over the points with an edge:
 * the squared length, then the endpoint ids among equal lengths, then the
 * endpoints of the edge that matches both.  A point's edge (q, t) leaves
 * q's component and t's: with `both` it competes for t's component too,
 * which gives a component whose shortest edge is known only to the other
 * side a bound at once (and often its answer).
 */
/* Returns 0 when q's edge is longer than a value seen in both its
 * components' words: it cannot be their shortest, and passes 2 and 3 may
 * pass q over. */
static inline GEMST_HD int GEMST_FN(gemst_atomic_pass1)(uint32_t q, const uint32_t *comp, const gemst_real *best_d2,
                                                      const uint32_t *best_to, int both, gemst_word1 *w1)
{
    gemst_word1 k1 = gemst_edge_word1(best_d2[q]);
    int may = GEMST_FN(gemst_atomic_min_word1)(&w1[comp[q]], k1);
    if (both)
        may |= GEMST_FN(gemst_atomic_min_word1)(&w1[comp[best_to[q]]], k1);
    return may;
}

/* Returns whether q's edge has its component's (or far component's)
 * shortest length: only such points can win in pass 3. */
static inline GEMST_HD int GEMST_FN(gemst_atomic_pass2)(uint32_t q, const uint32_t *comp, const uint32_t *oid,
                                                      const gemst_real *best_d2, const uint32_t *best_to, int both,
                                                      const gemst_word1 *w1, uint64_t *w2)
{
    gemst_word1 k1 = gemst_edge_word1(best_d2[q]);
    uint64_t k2 = gemst_edge_word2(GEMST_FN(gemst_point_edge)(oid, best_d2, best_to, q));
    int shortest = 0;
    for (int side = 0; side <= both; side++) {
        uint32_t r = comp[side ? best_to[q] : q];
        if (k1 == w1[r]) {
            gemst_atomic_min_u64(&w2[r], k2);
            shortest = 1;
        }
    }
    return shortest;
}

static inline GEMST_HD void GEMST_FN(gemst_atomic_pass3)(uint32_t q, const uint32_t *comp, const uint32_t *oid,
                                                       const gemst_real *best_d2, const uint32_t *best_to,
                                                       int both, const gemst_word1 *w1, const uint64_t *w2,
                                                       uint32_t *win_in, uint32_t *win_out)
{
    gemst_edge_key e = GEMST_FN(gemst_point_edge)(oid, best_d2, best_to, q);
    gemst_word1 k1 = gemst_edge_word1(e.d2);
    uint64_t k2 = gemst_edge_word2(e);
    for (int side = 0; side <= both; side++) {
        uint32_t in = side ? best_to[q] : q, out = side ? q : best_to[q];
        uint32_t r = comp[in];
        /* The same edge may arrive from both ends; the first one records it. */
        if (k1 == w1[r] && k2 == w2[r] && gemst_atomic_cas_u32(&win_in[r], GEMST_NONE, in) == GEMST_NONE)
            win_out[r] = out;
    }
}

/* Connect and union, Algorithm 5: root r hooks to the component at the
 * other end of its shortest edge, unless the two components chose the same
 * edge and r is the smaller root (which stays a root; the other hooks to
 * it).  Returns whether r hooked, with the edge it emits in *e. */
static inline GEMST_HD int GEMST_FN(gemst_hook)(uint32_t r, const uint32_t *win_in, const uint32_t *win_out,
                                              const gemst_word1 *w1, const uint32_t *comp, const uint32_t *oid,
                                              uint32_t *link, gemst_edge_key *e)
{
    uint32_t w = win_in[r];
    if (w == GEMST_NONE)
        return 0;
    uint32_t t = win_out[r];
    uint32_t s = comp[t];
    int mutual = win_in[s] == t && win_out[s] == w;
    if (mutual && r < s)
        return 0;
    link[r] = s;
    *e = gemst_edge_make(gemst_edge_word1_value(w1[r]), oid[w], oid[t]);
    return 1;
}

static inline GEMST_HD void GEMST_FN(gemst_store_edge)(gemst_edge_key e, uint32_t at, uint32_t *edge_lo,
                                                     uint32_t *edge_hi, gemst_real *edge_d2)
{
    edge_lo[at] = e.lo;
    edge_hi[at] = e.hi;
    edge_d2[at] = e.d2;
}

/* Flatten, Algorithm 6, with path halving so that long hook chains (equal
 * spacing on a line or lattice) cost O(log n) steps, not their length.
 * Threads halve shared paths concurrently; the compare-and-swap keeps a
 * halving step from overwriting a link another thread already pointed
 * closer to the root (e.g. at the root itself), so once flatten_root(r) has
 * stored r's root, link[r] stays the root. */
static inline GEMST_HD uint32_t gemst_find_root(uint32_t *link, uint32_t x)
{
    for (;;) {
        uint32_t y = gemst_load_relaxed(&link[x]);
        if (y == x)
            return x;
        uint32_t z = gemst_load_relaxed(&link[y]);
        if (z == y)
            return y;
        gemst_atomic_cas_u32(&link[x], y, z);
        x = z;
    }
}

static inline GEMST_HD void gemst_flatten_root(uint32_t *link, uint32_t r)
{
    gemst_store_relaxed(&link[r], gemst_find_root(link, r));
}

/* After a merge: every emitted edge hooked one root to another, so the
 * roots went down by exactly the edges added, unless the hooks held a
 * cycle (which path halving collapses into one root): inconsistent minima,
 * a bug that the caller reports instead of returning a wrong tree. */
static inline int gemst_merge_consistent(uint32_t roots_before, uint32_t roots_after, uint32_t edges_added)
{
    return (uint64_t)roots_after + edges_added == roots_before;
}

#endif
