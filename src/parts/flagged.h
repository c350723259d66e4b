/*
 * The positions of the set flags of an array, in order, found on several
 * threads: the parallel form of a loop that appends k to a list where
 * flag[k] is set.
 */
#ifndef GEMST_PARTS_FLAGGED_H
#define GEMST_PARTS_FLAGGED_H

#include <stdint.h>

/* Each k < n with flag[k] nonzero, ascending, into at; returns their
 * count.  On `threads` threads (one: in turn). */
int64_t gemst_flagged(const uint8_t *flag, int64_t n, uint32_t *at, int threads);

#endif
