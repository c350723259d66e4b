/* Stable parallel LSD radix sort for the CPU backend. */
#ifndef GEMST_RADIX_SORT_H
#define GEMST_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

/*
 * Sorts keys[0..n) with their values, stably, looking only at the low
 * key_bits bits of each key.  tmp_keys and tmp_vals hold n entries each.
 * Uses up to `threads` OpenMP threads.  Returns 0, or -1 when a scratch allocation fails (the arrays are then
 * unchanged or fully sorted, never half-permuted).
 */
int gemst_radix_sort(uint64_t *keys, uint32_t *vals, size_t n, int key_bits, uint64_t *tmp_keys, uint32_t *tmp_vals,
                     int threads);

/* Number of bits needed to hold max_key. */
int gemst_bits_for(uint64_t max_key);

#endif
