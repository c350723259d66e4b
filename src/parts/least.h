/*
 * The boundary Boruvka's candidate edges (boundary.c), and each live
 * component's least one taken from many candidates on several threads.
 */
#ifndef GEMST_PARTS_LEAST_H
#define GEMST_PARTS_LEAST_H

#include <string.h>

#include "parts/parts.h"

/* A candidate edge of a component. */
typedef struct gemst_cand {
    gemst_gid_edge e;
    uint32_t slot;      /* the component's place in the live list (GEMST_NONE: no candidate) */
    uint32_t to;        /* the safe component at the far end */
} gemst_cand;

/* A double's bits, mapped so that doubles compare as these words do
 * (NaN aside): atomic minima and maxima of doubles on 64-bit words. */
static inline uint64_t gemst_order_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b >> 63 ? ~b : b | UINT64_C(1) << 63;
}

static inline double gemst_order_value(uint64_t w)
{
    const uint64_t b = w >> 63 ? w & ~(UINT64_C(1) << 63) : ~w;
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* Room of four words a slot for gemst_least_per_slot. */
typedef struct gemst_least_scratch {
    uint64_t *len, *lo, *hi, *win;
    int64_t cap;
} gemst_least_scratch;

/*
 * best[s] becomes the least, in the edge order, of best[s] and the
 * candidates cand[k] (k < n) of slot s, for each slot s < n_slots; on
 * equal edges the one that came first stays (best[s] before any cand).
 * The result is that of offering the candidates one by one in order,
 * whatever the threads.  Returns 0, or -1 out of host memory (best then
 * as it was).
 */
int gemst_least_per_slot(gemst_cand *best, uint32_t n_slots, const gemst_cand *cand, int64_t n,
                         gemst_least_scratch *scratch, int threads);

void gemst_least_scratch_free(gemst_least_scratch *scratch);

#endif
