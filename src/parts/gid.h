/*
 * Points of the whole set in a partitioned solve: their ids, the caller's
 * indices, are 64 bits wide, since a solve over several devices may hold
 * more than 2^32 points.  Within a part, points are numbered 0 .. n - 1 in
 * the order of their ids, in 32 bits (a part holds fewer than 2^32).
 *
 * A part's ids travel and stay in 32 bits: each point's place in the slice
 * of the input it came from (partition.c, cuda_parts_split.cu).  The slices
 * are runs of consecutive ids and send their points in slice order, each
 * slice's in id order, so a part's points from slice s are a run of its
 * numbers; its runs (gemst_id_runs) turn a number and its place back into
 * the id.
 */
#ifndef GEMST_PARTS_GID_H
#define GEMST_PARTS_GID_H

#include <stdint.h>

#include "common.h"

/* The most slices, as parts (parts.h) and devices (devices.h). */
#define GEMST_MAX_SLICES 64

/* A point's id in the whole set. */
typedef uint64_t gemst_gid;

/* An edge between points of the whole set: the squared length the solver
 * computes, and the ends' ids, lo < hi. */
typedef struct gemst_gid_edge {
    double d2;
    gemst_gid lo, hi;
} gemst_gid_edge;

/* The edge order (graph/edge_order.h): length, then lo, then hi. */
static inline GEMST_HD int gemst_gid_edge_less(const gemst_gid_edge *a, const gemst_gid_edge *b)
{
    if (a->d2 != b->d2)
        return a->d2 < b->d2;
    return a->lo != b->lo ? a->lo < b->lo : a->hi < b->hi;
}

/* A part's runs: its numbers start[s] .. start[s + 1] - 1 came from slice
 * s, whose first id is first[s]. */
typedef struct gemst_id_runs {
    int slices;
    int64_t start[GEMST_MAX_SLICES + 1];
    int64_t first[GEMST_MAX_SLICES];
} gemst_id_runs;

/* Part p's runs, from the points each slice sent each part (count[s * P +
 * p], P slices) and each slice's first id. */
static inline void gemst_id_runs_make(gemst_id_runs *r, const int64_t *count, int P, int p, const int64_t *first)
{
    r->slices = P;
    r->start[0] = 0;
    for (int s = 0; s < P; s++) {
        r->start[s + 1] = r->start[s] + count[(int64_t)s * P + p];
        r->first[s] = first[s];
    }
}

/* The id of the part's point number i, at `place` in its slice. */
static inline GEMST_HD gemst_gid gemst_id_of(const gemst_id_runs *r, int64_t i, uint32_t place)
{
    int lo = 0, hi = r->slices - 1; /* the last run that starts at or before i */
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (r->start[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    return (gemst_gid)(r->first[lo] + (int64_t)place);
}

#endif
