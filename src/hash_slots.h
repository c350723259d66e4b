/*
 * Open addressing over 2^bits slots of 64-bit keys, filled by several
 * threads at once (host or device): a key's slot is found from the key's
 * product with a large odd constant and the slots after it, a free slot
 * holds GEMST_HASH_FREE (never a key).  With at least twice as many slots
 * as keys (gemst_hash_bits) the probes stay short and a slot stays free,
 * so that every probe ends.  Used by nns auto's sample (nns/index_choice.h)
 * and the border step's cells (parts/inner.h).
 */
#ifndef GEMST_HASH_SLOTS_H
#define GEMST_HASH_SLOTS_H

#include <stdint.h>

#include "atomics.h"
#include "common.h"

#define GEMST_HASH_FREE UINT64_MAX

/* The bits of a table for n keys: at least twice as many slots, and 2. */
static inline int gemst_hash_bits(uint64_t n)
{
    int bits = 1;
    while (((uint64_t)1 << bits) < 2 * n)
        bits++;
    return bits;
}

static inline GEMST_HD uint32_t gemst_hash_home(uint64_t key, int bits)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

/* The slot of key in keys, taken for it if it had none (*taken then set). */
static inline GEMST_HD uint32_t gemst_hash_slot(uint64_t *keys, int bits, uint64_t key, int *taken)
{
    const uint32_t mask = (uint32_t)(((uint64_t)1 << bits) - 1);
    uint32_t slot = gemst_hash_home(key, bits);
    for (;;) {
        const uint64_t found = gemst_atomic_cas_u64(&keys[slot], GEMST_HASH_FREE, key);
        if (found == GEMST_HASH_FREE || found == key) {
            *taken = found == GEMST_HASH_FREE;
            return slot;
        }
        slot = (slot + 1) & mask;
    }
}

/* The slot of key in a table no thread fills any longer, or -1. */
static inline GEMST_HD int64_t gemst_hash_find(const uint64_t *keys, int bits, uint64_t key)
{
    const uint32_t mask = (uint32_t)(((uint64_t)1 << bits) - 1);
    for (uint32_t slot = gemst_hash_home(key, bits);; slot = (slot + 1) & mask) {
        if (keys[slot] == key)
            return slot;
        if (keys[slot] == GEMST_HASH_FREE)
            return -1;
    }
}

#endif
