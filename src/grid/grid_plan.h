/*
 * Planning the grid and the working frame, on the host in double precision.
 *
 * The working frame maps a caller coordinate x of dimension d to the
 * working coordinate
 *     (x - origin[d]) * scale,   scale a power of two,
 * then rounded to the working precision.  Scaling by a power of two is
 * exact (barring underflow); it keeps huge and tiny coordinates away from
 * overflow and underflow.
 *   - Double precision: origin 0, and scale puts the largest |coordinate|
 *     in [0.5, 1).  Nothing is translated, because translation rounds once
 *     the points span more than 2^53 times their spacing: the squared
 *     distances are those of the coordinates as given.
 *   - Float precision: origin is the bounding-box minimum, and scale puts
 *     the box's widest side in [0.5, 1), so that float's 24 bits resolve
 *     the box rather than its distance from 0.
 * The scale is at most 2^1023 (a box of subnormal coordinates).  The grid
 * then cuts the working box [lo, hi] into cubic cells of side L chosen from
 * the target mean occupancy, from the corner lo.
 */
#ifndef GEMST_GRID_PLAN_H
#define GEMST_GRID_PLAN_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest scale a frame uses, 2^1023: the largest power of two a double
 * holds. */
#define GEMST_MAX_SCALE_EXP 1023

/* In double precision the main grid's cells are at least this many times
 * the largest |working coordinate| wide: 4 units in the last place or more,
 * so that the faces origin + c L, rounded, rise with c.  (In float precision
 * the grid starts at 0 and its faces c L keep their relative precision.) */
#define GEMST_MIN_SIDE_F64 0x1p-50

typedef struct gemst_frame {
    int dim;
    double origin[3];   /* subtracted before scaling: 0 (double), the box's minimum (float) */
    double scale;       /* power of two */
    double lo[3], hi[3]; /* the bounding box in working units (before rounding to the working precision) */
    double extent[3];   /* hi - lo, each in [0, 1] (float) or [0, 2) (double) */
    double min_side;    /* the smallest cell side of the main grid (0: none) */
    double unit;        /* power of two: (w - lo) * unit lies in [0, 1] for a working coordinate w (Morton codes) */
    int exact_double;   /* the working precision is double */
} gemst_frame;

/* The working coordinate of caller coordinate v along axis d, in double
 * (the caller rounds it to the working precision).  Adding 0 turns -0 into
 * +0, so that equal points have equal bits (duplicates are found by
 * hashing them); on the devices the product and the sum are rounded one by
 * one as on the host (a fused multiply-add would keep the sign of a
 * product that underflows to 0). */
static inline GEMST_HD double gemst_frame_working(const gemst_frame *f, double v, int d)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(__dmul_rn(v - f->origin[d], f->scale), 0.0);
#else
    return (v - f->origin[d]) * f->scale + 0.0;
#endif
}

typedef struct gemst_grid_plan {
    int dim;
    int32_t nc[3];      /* cells per axis; nc[2] = 1 in 2D */
    double L;           /* cell side in working units */
    uint64_t cells;     /* nc[0] * nc[1] * nc[2] */
} gemst_grid_plan;

/*
 * Where the working precision cannot hold a squared distance.  Two
 * distinct points have no exact tree in double precision when their
 * working squared distance is subnormal or 0 (their coordinates differ by
 * less than 2^-511 times the largest |coordinate|): double would order it
 * by rounding errors, not as the coordinates given.  So are two points that
 * become equal once scaled (a coordinate underflows).  In float precision,
 * whose tree is that of the float working points, points equal once
 * rounded are duplicates (documented), and subnormal squared distances are
 * ordered as the float arithmetic gives them; but distinct working points
 * at squared distance 0 (closer than 2^-75 times the box's widest side,
 * which only points near its minimum corner can be) would tie with the
 * duplicates' zero-length edges, which join each duplicate to the smallest
 * id of the points equal to it, not of the points at distance 0.  The solve
 * refuses such pairs (real.h: GEMST_D2_TINY).  They need not be looked for
 * among all pairs: the tree joins each point to its nearest (the path
 * between them has no longer edge), so if there is one, some tree edge
 * between unique points, or some duplicate's edge, is one.  Each backend
 * checks those, and names the pair of smallest (lo, hi) ids.
 */

/* The key of a pair of caller ids, ordered by (smaller, larger). */
static inline GEMST_HD uint64_t gemst_pair_key(uint32_t a, uint32_t b)
{
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

/* Fails with GRIDEMST_ERR_INPUT naming the pair of a gemst_pair_key, too
 * close together for the working precision of frame f. */
int gemst_too_close(const gemst_frame *f, uint64_t pair, gridemst_error *err);

/* Default target mean occupancy (points per cell) for the dimension. */
double gemst_default_occupancy(int dim);

/* The frame of a bounding box of finite coordinates for the working
 * precision (exact_double: double, else float); in float precision
 * GRIDEMST_ERR_INPUT when the box is wider than the largest double along an
 * axis (its translated coordinates would overflow). */
int gemst_frame_make(int dim, const double bbox_min[3], const double bbox_max[3], int exact_double, gemst_frame *f,
                     gridemst_error *err);

/* Cell size and counts for n points spread over the frame's extent.  Axes
 * with an extent much thinner than a cell get one cell, so that degenerate
 * inputs (a plane in 3D, a line, a 1e9 x 1 strip) get the cell count asked
 * for.  The cell count stays below 2^32 and below a few cells per point. */
void gemst_grid_plan_make(const gemst_frame *f, int64_t n, double occupancy, gemst_grid_plan *plan);

/*
 * Skewed inputs: after a first cell sort, weighted = the mean over points of
 * their cell's point count (sum of squared counts / n).  When it exceeds
 * the target occupancy severalfold, *plan gets smaller cells (at most
 * GEMST_SKEW_CELLS_PER_POINT per point) and 1 is returned: sort again.
 * Returns 0 when the plan is kept.
 */
#define GEMST_SKEW_CELLS_PER_POINT 2
int gemst_grid_plan_refine(const gemst_frame *f, int64_t n, double occupancy, double weighted, gemst_grid_plan *plan);

/* By default, cells with more points than this get a grid of their own
 * (gemst_grid.crowded, grid.h; options.tuning.crowded_cell sets another).  Below it a scan
 * of the cell's points is cheaper than a descent into its grid (H200:
 * normal 3D 1e7 points, whose densest cells hold about 250, searched 15%
 * slower with a threshold of 32 than with none). */
#define GEMST_CROWDED 512

#ifdef __cplusplus
}
#endif

#endif
