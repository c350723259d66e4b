/*
 * Each slot's least candidate, on several threads, in four passes over
 * the candidates.  A slot's least length is an atomic minimum of the
 * lengths' ordered bits (+INFINITY, no candidate, last); among that length's
 * candidates, the least lower id is another; among those, the least higher
 * id a third; among those, the first candidate's position a fourth.  The
 * edge order is total, so the minima do not depend on the threads.
 */
#include <stdlib.h>
#include <string.h>

#include "atomics.h"
#include "parts/grow_arrays.h"
#include "parts/least.h"

static uint64_t len_bits(const gemst_cand *c)
{
    return gemst_order_bits(c->e.d2);
}

static void offer_in_turn(gemst_cand *best, const gemst_cand *cand, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        if (cand[k].slot != GEMST_NONE && gemst_gid_edge_less(&cand[k].e, &best[cand[k].slot].e))
            best[cand[k].slot] = cand[k];
}

int gemst_least_per_slot(gemst_cand *best, uint32_t n_slots, const gemst_cand *cand, int64_t n,
                         gemst_least_scratch *scratch, int threads)
{
    if (threads <= 1) {
        offer_in_turn(best, cand, n);
        return 0;
    }
    void **const arrays[] = {(void **)&scratch->len, (void **)&scratch->lo, (void **)&scratch->hi,
                             (void **)&scratch->win};
    const size_t bytes[] = {sizeof(uint64_t), sizeof(uint64_t), sizeof(uint64_t), sizeof(uint64_t)};
    if (gemst_grow_arrays(arrays, bytes, 4, &scratch->cap, n_slots) != 0)
        return -1;
    uint64_t *len = scratch->len, *lo = scratch->lo, *hi = scratch->hi, *win = scratch->win;
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (uint32_t s = 0; s < n_slots; s++)
            len[s] = len_bits(&best[s]);
#pragma omp for schedule(static)
        for (int64_t k = 0; k < n; k++)
            if (cand[k].slot != GEMST_NONE)
                gemst_atomic_min_u64(&len[cand[k].slot], len_bits(&cand[k]));
#pragma omp for schedule(static)
        for (uint32_t s = 0; s < n_slots; s++)
            lo[s] = len_bits(&best[s]) == len[s] ? best[s].e.lo : UINT64_MAX;
#pragma omp for schedule(static)
        for (int64_t k = 0; k < n; k++) {
            const uint32_t s = cand[k].slot;
            if (s != GEMST_NONE && len_bits(&cand[k]) == len[s])
                gemst_atomic_min_u64(&lo[s], cand[k].e.lo);
        }
#pragma omp for schedule(static)
        for (uint32_t s = 0; s < n_slots; s++)
            hi[s] = len_bits(&best[s]) == len[s] && best[s].e.lo == lo[s] ? best[s].e.hi : UINT64_MAX;
#pragma omp for schedule(static)
        for (int64_t k = 0; k < n; k++) {
            const uint32_t s = cand[k].slot;
            if (s != GEMST_NONE && len_bits(&cand[k]) == len[s] && cand[k].e.lo == lo[s])
                gemst_atomic_min_u64(&hi[s], cand[k].e.hi);
        }
#pragma omp for schedule(static)
        for (uint32_t s = 0; s < n_slots; s++)
            win[s] = UINT64_MAX;
#pragma omp for schedule(static)
        for (int64_t k = 0; k < n; k++) {
            const uint32_t s = cand[k].slot;
            if (s != GEMST_NONE && len_bits(&cand[k]) == len[s] && cand[k].e.lo == lo[s] && cand[k].e.hi == hi[s])
                gemst_atomic_min_u64(&win[s], (uint64_t)k);
        }
#pragma omp for schedule(static)
        for (uint32_t s = 0; s < n_slots; s++) {
            const int kept = len_bits(&best[s]) == len[s] && best[s].e.lo == lo[s] && best[s].e.hi == hi[s];
            if (win[s] != UINT64_MAX && !kept)
                best[s] = cand[win[s]];
        }
    }
    return 0;
}

void gemst_least_scratch_free(gemst_least_scratch *scratch)
{
    free(scratch->len);
    free(scratch->lo);
    free(scratch->hi);
    free(scratch->win);
    memset(scratch, 0, sizeof *scratch);
}
