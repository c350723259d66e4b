/*
 * The positions k of 0 .. n-1 where a condition holds, in ascending order,
 * found by all of a loop's threads: each thread counts its share's
 * positions, a prefix of the counts tells each share where its positions
 * go, and each thread writes its own.  For the lists of a part that a
 * single thread would build in one pass over every point or edge: on a
 * host of many threads that one pass would take longer than the parallel
 * steps around it.
 */
#ifndef GEMST_PARTS_POSITIONS_H
#define GEMST_PARTS_POSITIONS_H

#include <stdint.h>

#include "common.h"

/* Whether position k is listed (arg: the caller's data). */
typedef int (*gemst_position_test)(const void *arg, int64_t k);

/* The positions k < n where keep(arg, k), ascending, into out[0 .. *count)
 * (room for every listed position), on up to `threads` OpenMP threads.
 * Returns GRIDEMST_OK, or GRIDEMST_ERR_NO_MEMORY with a message. */
int gemst_parts_positions(int64_t n, gemst_position_test keep, const void *arg, int threads, uint32_t *out,
                          int64_t *count, gridemst_error *err);

#endif
