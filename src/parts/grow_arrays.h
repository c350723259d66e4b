/*
 * Parallel arrays of one length, grown together: a part's store, the
 * boundary's per-point state, a halo.
 */
#ifndef GEMST_PARTS_GROW_ARRAYS_H
#define GEMST_PARTS_GROW_ARRAYS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Grows the `count` arrays *arrays[k], of bytes[k] bytes an entry and
 * *cap entries each, to hold want entries, when they hold fewer: to at
 * least twice *cap, so that growing by a few entries at a time costs
 * amortized constant time per entry.  Returns 0, or -1 out of memory (*cap
 * then unchanged: every array still holds at least that many). */
static inline int gemst_grow_arrays(void **const arrays[], const size_t bytes[], size_t count, int64_t *cap,
                                    int64_t want)
{
    if (want <= *cap)
        return 0;
    const int64_t room = want > 2 * *cap ? want : 2 * *cap;
    for (size_t k = 0; k < count; k++) {
        void *more = realloc(*arrays[k], bytes[k] * (size_t)room);
        if (!more)
            return -1;
        *arrays[k] = more;
    }
    *cap = room;
    return 0;
}

#endif
