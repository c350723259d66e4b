#include "cpu/radix_sort.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define RADIX_BITS 8
#define RADIX 256

int gemst_bits_for(uint64_t max_key)
{
    int bits = 0;
    while (bits < 64 && (max_key >> bits) != 0)
        bits++;
    return bits;
}

int gemst_radix_sort(uint64_t *keys, uint32_t *vals, size_t n, int key_bits, uint64_t *tmp_keys, uint32_t *tmp_vals,
                     int threads)
{
#ifndef _OPENMP
    threads = 1;
#endif
    if (threads < 1 || n < 65536)
        threads = 1;
    size_t *count = malloc(sizeof(size_t) * RADIX * (size_t)threads);
    if (!count)
        return -1;
    uint64_t *src_k = keys, *dst_k = tmp_keys;
    uint32_t *src_v = vals, *dst_v = tmp_vals;
    for (int shift = 0; shift < key_bits; shift += RADIX_BITS) {
        memset(count, 0, sizeof(size_t) * RADIX * (size_t)threads);
        /* Each thread takes one contiguous chunk; counting per thread, then
         * offsets ordered by (digit, thread), keeps the sort stable. */
#ifdef _OPENMP
#pragma omp parallel num_threads(threads)
#endif
        {
            int t = 0, team = 1;
#ifdef _OPENMP
            t = omp_get_thread_num();
            team = omp_get_num_threads(); /* may be fewer than asked for */
#endif
            size_t lo = n * (size_t)t / (size_t)team, hi = n * (size_t)(t + 1) / (size_t)team;
            size_t *c = count + (size_t)t * RADIX;
            for (size_t i = lo; i < hi; i++)
                c[(src_k[i] >> shift) & (RADIX - 1)]++;
#ifdef _OPENMP
#pragma omp barrier
#pragma omp single
#endif
            {
                size_t sum = 0;
                for (int d = 0; d < RADIX; d++)
                    for (int u = 0; u < team; u++) {
                        size_t v = count[(size_t)u * RADIX + d];
                        count[(size_t)u * RADIX + d] = sum;
                        sum += v;
                    }
            }
            for (size_t i = lo; i < hi; i++) {
                size_t at = c[(src_k[i] >> shift) & (RADIX - 1)]++;
                dst_k[at] = src_k[i];
                dst_v[at] = src_v[i];
            }
        }
        uint64_t *sk = src_k;
        src_k = dst_k;
        dst_k = sk;
        uint32_t *sv = src_v;
        src_v = dst_v;
        dst_v = sv;
    }
    if (src_k != keys) {
        memcpy(keys, src_k, n * sizeof *keys);
        memcpy(vals, src_v, n * sizeof *vals);
    }
    free(count);
    return 0;
}
