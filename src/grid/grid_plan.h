/*
 * Planning the grid and the working frame, on the host in double precision.
 *
 * The working frame maps a caller coordinate x of dimension d to
 *     (x - origin[d]) * scale,   scale a power of two,
 * so that every working coordinate lies in [0, 1].  Scaling by a power of
 * two is exact; it keeps huge and tiny coordinates away from overflow and
 * underflow.  The grid then cuts [0, extent] into cubic cells of side L
 * chosen from the target mean occupancy.
 */
#ifndef GEMST_GRID_PLAN_H
#define GEMST_GRID_PLAN_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gemst_frame {
    int dim;
    double origin[3];   /* bounding-box minimum */
    double scale;       /* power of two */
    double extent[3];   /* (max - min) * scale, each in [0, 1] */
} gemst_frame;

typedef struct gemst_grid_plan {
    int dim;
    int32_t nc[3];      /* cells per axis; nc[2] = 1 in 2D */
    double L;           /* cell side in working units */
    uint64_t cells;     /* nc[0] * nc[1] * nc[2] */
} gemst_grid_plan;

/* Default target mean occupancy (points per cell) for the dimension. */
double gemst_default_occupancy(int dim);

/* The frame of a bounding box of finite coordinates; GRIDEMST_ERR_INPUT when
 * the box is wider than the largest double along an axis (its extent
 * overflows, and no frame or distance could represent it). */
int gemst_frame_make(int dim, const double bbox_min[3], const double bbox_max[3], gemst_frame *f,
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

/* How n points fill a grid at the default cell size: the share of its
 * cells that hold points, and the mean over points of their cell's count
 * with the grid's cells and with cells of twice the side (2 x 2 x 2 of
 * them in 3D, 2 x 2 in 2D). */
typedef struct gemst_grid_fill {
    int64_t n;
    double occupied;
    double weighted, weighted2;
} gemst_grid_fill;

/* Where the points are many, leave most of their box empty (a normal
 * distribution's tails, clusters in empty space) and their density varies
 * smoothly at the cell size (the counts grow with coarser cells, rather
 * than sitting in clusters finer than a cell), coarse cells whose dense
 * parts get grids of their own make the static search faster
 * (benchmarks/README.md): returns 1 and the mean occupancy and crowding
 * threshold for them, or 0 to keep the default. */
int gemst_grid_coarse(int dim, const gemst_grid_fill *fill, double *occupancy, int64_t *crowded);

/* By default, cells with more points than this get a grid of their own
 * (gemst_grid.crowded, grid.h).  Below it a scan of the cell's points is
 * cheaper than a descent into its grid (H200: normal 3D 1e7 points, whose
 * densest cells hold about 250, searched 15% slower with a threshold of 32
 * than with none). */
#define GEMST_CROWDED 512

/* Below this many points the choice saved little and cost a second cell
 * sort (TSPLIB instances of 2000-10000 points: up to 0.9 ms slower). */
#define GEMST_COARSE_MIN_POINTS 500000

/* Where the default cells are kept, whether the points sit in clusters much
 * finer than a cell (blobs, small seed-spreader sets): as many points as
 * gemst_grid_coarse needs, and a point's cell holding GEMST_CLUSTERED_WEIGHTED
 * points or more on average.  Then cells of more than GEMST_CLUSTERED_CROWDED
 * points get a grid of their own, rather than of more than GEMST_CROWDED:
 * the GPU's threads diverge over long scans of a cell's points
 * (benchmarks/README.md). */
#define GEMST_CLUSTERED_WEIGHTED 64.0
#define GEMST_CLUSTERED_CROWDED 128
int gemst_grid_clustered(const gemst_grid_fill *fill);

#ifdef __cplusplus
}
#endif

#endif
