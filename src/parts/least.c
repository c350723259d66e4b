/*
 * Each slot's least candidate, on several threads, in three passes over
 * the candidates.  A slot's least length is an atomic minimum of the
 * lengths' ordered bits (+INFINITY, no candidate, last); among that length's
 * candidates, the least ends (lower id, then higher id: one word) are
 * another; among those, the first candidate's position a third.  The
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

static uint64_t ends_word(const gemst_cand *c)
{
    return (uint64_t)c->e.lo << 32 | c->e.hi;
}

static void offer_in_turn(gemst_cand *best, const gemst_cand *cand, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        if (cand[k].slot != GEMST_NONE && gemst_parts_edge_less(&cand[k].e, &best[cand[k].slot].e))
            best[cand[k].slot] = cand[k];
}

int gemst_least_per_slot(gemst_cand *best, uint32_t n_slots, const gemst_cand *cand, int64_t n,
                         gemst_least_scratch *scratch, int threads)
{
    if (threads <= 1) {
        offer_in_turn(best, cand, n);
        return 0;
    }
    void **const arrays[] = {(void **)&scratch->len, (void **)&scratch->ends, (void **)&scratch->win};
    const size_t bytes[] = {sizeof(uint64_t), sizeof(uint64_t), sizeof(uint64_t)};
    if (gemst_grow_arrays(arrays, bytes, 3, &scratch->cap, n_slots) != 0)
        return -1;
    uint64_t *len = scratch->len, *ends = scratch->ends, *win = scratch->win;
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
        for (uint32_t s = 0; s < n_slots; s++) {
            ends[s] = len_bits(&best[s]) == len[s] ? ends_word(&best[s]) : UINT64_MAX;
            win[s] = UINT64_MAX;
        }
#pragma omp for schedule(static)
        for (int64_t k = 0; k < n; k++) {
            const uint32_t s = cand[k].slot;
            if (s != GEMST_NONE && len_bits(&cand[k]) == len[s])
                gemst_atomic_min_u64(&ends[s], ends_word(&cand[k]));
        }
#pragma omp for schedule(static)
        for (int64_t k = 0; k < n; k++) {
            const uint32_t s = cand[k].slot;
            if (s != GEMST_NONE && len_bits(&cand[k]) == len[s] && ends_word(&cand[k]) == ends[s])
                gemst_atomic_min_u64(&win[s], (uint64_t)k);
        }
#pragma omp for schedule(static)
        for (uint32_t s = 0; s < n_slots; s++) {
            const int kept = len_bits(&best[s]) == len[s] && ends_word(&best[s]) == ends[s];
            if (win[s] != UINT64_MAX && !kept)
                best[s] = cand[win[s]];
        }
    }
    return 0;
}

void gemst_least_scratch_free(gemst_least_scratch *scratch)
{
    free(scratch->len);
    free(scratch->ends);
    free(scratch->win);
    memset(scratch, 0, sizeof *scratch);
}
