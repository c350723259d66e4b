/*
 * A point's gap (contract.c): its squared distance to the other parts'
 * regions, the keys outside its part's range.  The gaps come cell by cell:
 * the part's points in Morton order fall into runs of one dyadic cell of a
 * level where cells hold about GEMST_GAP_CELL_POINTS points at the whole
 * set's mean density.  A cell farther from the other parts' regions than
 * GEMST_GAP_NEAR_SIDES of its sides gives its points its own distance (a
 * lower bound that loses little so far away); only the points of the cells
 * nearer are measured one by one.
 *
 * One definition for the host (parts/gaps.c) and the devices
 * (cuda/cuda_parts_gaps.cu), so that both give every point the same gap.
 */
#ifndef GEMST_PARTS_GAP_H
#define GEMST_PARTS_GAP_H

#include "parts/region_dist.h"

#define GEMST_GAP_CELL_POINTS 16
#define GEMST_GAP_NEAR_SIDES 2

/* Whether position k of the keys sorted ascending starts a cell of `level`. */
static inline GEMST_HD int gemst_gap_starts_cell(int dim, int level, const uint64_t *key, int64_t k)
{
    return k == 0 || gemst_region_cell(dim, key[k], level) != gemst_region_cell(dim, key[k - 1], level);
}

/* The gap that the cell of `level` holding key gives all its points, or
 * -1 when it is near the other parts' regions (own: the part's range) and
 * its points are measured one by one. */
static inline GEMST_HD double gemst_gap_of_cell(const gemst_region_space *sp, gemst_key_range own, uint64_t key,
                                                int level)
{
    gemst_box box;
    gemst_region_cell_box(sp, key, level, &box);
    const double side = box.hi[0] - box.lo[0],
                 far = GEMST_REGION_MUL(GEMST_REGION_MUL(GEMST_REGION_MUL(GEMST_GAP_NEAR_SIDES, side),
                                                         GEMST_GAP_NEAR_SIDES),
                                        side);
    const double whole = gemst_region_outside_dist2(sp, &box, own);
    return whole >= far ? whole : -1.0;
}

/* The gap of the point of working coordinates w in a cell whose
 * gemst_gap_of_cell is cell_gap. */
static inline GEMST_HD double gemst_gap_of_point(const gemst_region_space *sp, gemst_key_range own, double cell_gap,
                                                 const double w[3])
{
    if (cell_gap >= 0.0)
        return cell_gap;
    const gemst_box at = gemst_point_box(w);
    return gemst_region_outside_dist2(sp, &at, own);
}

#endif
