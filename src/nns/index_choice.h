/*
 * The index that nns auto searches: the uniform grid or the BVH, from the
 * number of points and how they fill space, on the GPU at the grid's cell
 * size, on the CPU at the scale of the points' neighbours (the end of this
 * comment).
 *
 * Below GEMST_INDEX_SMALL_SET points a GPU solve takes 1 to 3 ms, mostly
 * fixed costs, and the BVH's fewer passes win on every shape measured
 * (H200: uniform 2D and 3D tie at 1e5 points and favour the BVH below;
 * normal sets favour it up to 3e5): the BVH, with nothing measured.
 *
 * Above, the grid sizes its cells for points that fill their bounding box:
 * about three points per cell over the box's volume.  Points on curves or
 * surfaces, or in clusters, leave most of those cells empty and crowd into
 * the rest; the grid's searches then cross empty cells and scan crowded
 * ones, while the BVH's cost hardly depends on the points' layout.  The
 * measure is the correlation dimension (Grassberger & Procaccia 1983): the
 * pairs of points sharing a cell, counted at two sizes of cell (the grid's
 * planned side and twice it), grow by 2^D from the finer size to the
 * coarser for points that fill D dimensions.  The solve searches the BVH
 * when the measured dimension falls below the space's by more than a half
 * (curves in the plane, surfaces or curves in space, clusters), else the
 * grid.
 *
 * The pairs are counted in a sample: GEMST_INDEX_SAMPLE points evenly
 * spaced in the caller's order, with their Morton codes (bvh/morton.h)
 * sorted and equal codes counted once, so that a cell at any power-of-two
 * level is a run of equal code prefixes.  (The searches see each point
 * once: duplicates are joined before, by edges of length 0.)  A sample's
 * pair count estimates the whole set's pair fraction without bias.  When
 * either count is below GEMST_INDEX_MIN_PAIRS the measure says nothing
 * reliable (points spread so evenly that the sample's points seldom share
 * a cell), and the grid is kept.
 *
 * On the CPU the BVH's search goes a leaf of points at a time (cpu/
 * cpu_bvh_search.h): its cost is that of the leaves around each leaf within
 * its points' radii, which grows with the dimension the points fill around
 * their neighbours, not with how clusters spread them over the box.  The
 * grid's cost there follows the empty cells its searches cross, which
 * curves leave the most of.  The CPU measures the same correlation
 * dimension from the same sample at the finest cell size where the sample
 * has GEMST_INDEX_LOCAL_PAIRS pairs sharing a cell (so within the densest
 * clusters, whose points fill the space there), and searches the BVH when
 * it is below GEMST_INDEX_CPU_BVH_DIM: points along curves, in the plane
 * or in space.  Measured at 1e6 points on 2 threads (docs/experiments.md),
 * the BVH was the faster along curves (dimension 1) and the slower on
 * surfaces in space and in volumes (2 and 3), clusters included.
 */
#ifndef GEMST_INDEX_CHOICE_H
#define GEMST_INDEX_CHOICE_H

#include "common.h"
#include "grid/grid_plan.h"

#define GEMST_INDEX_SMALL_SET 100000
#define GEMST_INDEX_SAMPLE 65536
#define GEMST_INDEX_MIN_PAIRS 32
/* The CPU's pairs for a measure within 3% (Poisson: 1 / sqrt(pairs)), and
 * the dimension below which it searches the BVH: between curves and
 * surfaces. */
#define GEMST_INDEX_LOCAL_PAIRS 1024
#define GEMST_INDEX_CPU_BVH_DIM 1.5

#ifdef __cplusplus
extern "C" {
#endif

/* Point k of the sample of m of n points. */
static inline GEMST_HD uint32_t gemst_index_sample_point(uint32_t n, uint32_t m, uint32_t k)
{
    return (uint32_t)((uint64_t)k * n / m);
}

/* The ordered pairs of the sorted distinct codes [0, m) within point i's cell at the
 * level of shift (a cell: equal code >> shift): r (r - 1) at the first of a
 * run of r codes, else 0.  The run's end by binary search. */
static inline GEMST_HD uint64_t gemst_index_run_pairs(const uint64_t *code, uint32_t m, uint32_t i, int shift)
{
    const uint64_t cell = code[i] >> shift;
    if (i > 0 && code[i - 1] >> shift == cell)
        return 0;
    uint32_t lo = i + 1, hi = m;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (code[mid] >> shift == cell)
            lo = mid + 1;
        else
            hi = mid;
    }
    const uint64_t r = lo - i;
    return r * (r - 1);
}

/* The code shifts of the two cell sizes compared, for n points in frame f
 * (the box's sides in [0, 1] once scaled by f->unit): shift[0] for the
 * power-of-two level nearest the grid's planned side (gemst_grid_plan_make
 * at the default occupancy), shift[1] for the level above (cells of twice
 * the side). */
void gemst_index_shifts(const gemst_frame *f, int64_t n, int shift[2]);

/* Whether the pair counts at the finer and the coarser size (pairs[0],
 * pairs[1]) make the BVH the index for points of dimension dim. */
int gemst_index_prefers_bvh(int dim, const uint64_t pairs[2]);

/* Whether the CPU searches the BVH for points of dimension dim whose
 * sample has the m sorted distinct codes code[]. */
int gemst_index_cpu_prefers_bvh(int dim, const uint64_t *code, uint32_t m);

#ifdef __cplusplus
}
#endif

#endif
