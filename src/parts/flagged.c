/*
 * gemst_flagged: each thread counts the flags of its stretch, the counts
 * summed before it give where its positions go, and it writes them.
 */
#include "parts/flagged.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* The most threads one call splits the work among. */
#define MOST_THREADS 256

int64_t gemst_flagged(const uint8_t *flag, int64_t n, uint32_t *at, int threads)
{
    int64_t count[MOST_THREADS + 1] = {0};
    int used = 1;
#pragma omp parallel num_threads(threads < MOST_THREADS ? threads : MOST_THREADS) if (threads > 1)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
        const int t = 0, T = 1;
#endif
        const int64_t stretch = (n + T - 1) / T;
        const int64_t from = t * stretch < n ? t * stretch : n, to = from + stretch < n ? from + stretch : n;
        int64_t mine = 0;
        for (int64_t k = from; k < to; k++)
            mine += flag[k] != 0;
        count[t + 1] = mine;
#pragma omp barrier
#pragma omp single
        {
            used = T;
            for (int u = 0; u < T; u++)
                count[u + 1] += count[u];
        }
        int64_t m = count[t];
        for (int64_t k = from; k < to; k++)
            if (flag[k])
                at[m++] = (uint32_t)k;
    }
    return count[used];
}
