/*
 * The total order on edges (DESIGN.md, exactness rule 1): by squared length,
 * then smaller endpoint id, then larger endpoint id, where ids are the
 * caller's point indices.  Under it the minimum spanning tree is unique and
 * every selection in the solver is deterministic.
 */
#ifndef GEMST_EDGE_ORDER_H
#define GEMST_EDGE_ORDER_H

#include "real.h"

/* An edge as the solver compares it: squared length and the caller's ids of
 * its endpoints, lo < hi. */
typedef struct {
    gemst_real d2;
    uint32_t lo, hi;
} gemst_edge_key;

static inline GEMST_HD gemst_edge_key gemst_edge_make(gemst_real d2, uint32_t a, uint32_t b)
{
    gemst_edge_key e;
    e.d2 = d2;
    e.lo = a < b ? a : b;
    e.hi = a < b ? b : a;
    return e;
}

/* The empty edge: greater than every real edge. */
static inline GEMST_HD gemst_edge_key gemst_edge_none(void)
{
    gemst_edge_key e;
    e.d2 = GEMST_REAL_INF;
    e.lo = UINT32_MAX;
    e.hi = UINT32_MAX;
    return e;
}

static inline GEMST_HD int gemst_edge_less(gemst_edge_key a, gemst_edge_key b)
{
    if (a.d2 != b.d2)
        return a.d2 < b.d2;
    if (a.lo != b.lo)
        return a.lo < b.lo;
    return a.hi < b.hi;
}

/* The edge as two words ordered like the edge, for atomic minima: the
 * squared length's bits (non-negative IEEE values order as integers; 32 or
 * 64 bits with the working precision), then (lo << 32 | hi). */
#if GEMST_REAL_IS_DOUBLE
typedef uint64_t gemst_word1;
#else
typedef uint32_t gemst_word1;
#endif

static inline GEMST_HD gemst_word1 gemst_edge_word1(gemst_real d2)
{
#if GEMST_REAL_IS_DOUBLE
    union { double d; uint64_t u; } c;
    c.d = d2;
    return c.u;
#else
    union { float f; uint32_t u; } c;
    c.f = d2;
    return c.u;
#endif
}

static inline GEMST_HD gemst_real gemst_edge_word1_value(gemst_word1 w)
{
#if GEMST_REAL_IS_DOUBLE
    union { double d; uint64_t u; } c;
    c.u = w;
    return c.d;
#else
    union { float f; uint32_t u; } c;
    c.u = w;
    return c.f;
#endif
}

static inline GEMST_HD uint64_t gemst_edge_word2(gemst_edge_key e)
{
    return ((uint64_t)e.lo << 32) | e.hi;
}

static inline GEMST_HD gemst_edge_key gemst_edge_from_words(gemst_word1 w1, uint64_t w2)
{
    gemst_edge_key e;
    e.d2 = gemst_edge_word1_value(w1);
    e.lo = (uint32_t)(w2 >> 32);
    e.hi = (uint32_t)w2;
    return e;
}

#endif
