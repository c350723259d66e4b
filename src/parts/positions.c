/* Ordered lists of positions, on every thread (positions.h). */
#include "parts/positions.h"

#include <stdlib.h>

int gemst_parts_positions(int64_t n, gemst_position_test keep, const void *arg, int threads, uint32_t *out,
                          int64_t *count, gridemst_error *err)
{
    threads = threads > 0 ? threads : 1;
    int64_t *base = calloc((size_t)threads + 1, sizeof *base); /* base[t]: where share t's positions go */
    if (!base)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory listing %lld positions", (long long)n);
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (int t = 0; t < threads; t++)
            for (int64_t k = n * t / threads; k < n * (t + 1) / threads; k++)
                base[t + 1] += keep(arg, k) != 0;
#pragma omp single
        for (int t = 0; t < threads; t++)
            base[t + 1] += base[t];
#pragma omp for schedule(static)
        for (int t = 0; t < threads; t++) {
            int64_t at = base[t];
            for (int64_t k = n * t / threads; k < n * (t + 1) / threads; k++)
                if (keep(arg, k))
                    out[at++] = (uint32_t)k;
        }
    }
    *count = base[threads];
    free(base);
    return GRIDEMST_OK;
}
