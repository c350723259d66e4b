/*
 * A point's Morton key in a partitioned solve, and the part of a key: one
 * definition for the host's partition (partition.c) and the devices'
 * (cuda_parts_split.cu), so that both give every point the same key and
 * the same part.
 */
#ifndef GEMST_PARTS_POINT_KEY_H
#define GEMST_PARTS_POINT_KEY_H

#include "parts/region.h"
#include "parts/working.h"

/* Coordinate d of point i of coords (n * dim values of type dtype). */
static inline GEMST_HD double gemst_parts_coord(gridemst_dtype dtype, const void *coords, int dim, int64_t i, int d)
{
    if (dtype == GRIDEMST_FLOAT32)
        return (double)((const float *)coords)[i * dim + d];
    return ((const double *)coords)[i * dim + d];
}

/* Point i of coords (n * m->dim values of type dtype): its working
 * coordinates in frame f into w (w[2] = 0 in 2D), and its key in sp. */
static inline GEMST_HD uint64_t gemst_parts_key(const gemst_parts_metric *m, const gemst_frame *f,
                                                const gemst_region_space *sp, gridemst_dtype dtype,
                                                const void *coords, int64_t i, double w[3])
{
    for (int d = 0; d < 3; d++)
        w[d] = d < m->dim ? gemst_parts_working(m, f, gemst_parts_coord(dtype, coords, m->dim, i, d), d) : 0.0;
    return gemst_region_key(sp, w);
}

/* The part of a key: how many of the n_split ascending splitters are at
 * or below it. */
static inline GEMST_HD int gemst_parts_part_of(const uint64_t *split, int n_split, uint64_t key)
{
    int lo = 0, hi = n_split;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (split[mid] <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

#endif
