/*
 * Planning friends-of-friends on the host, in double precision: the
 * working frame of a periodic box, the squared linking length in working
 * units, and the grid of cells no narrower than the linking length
 * (fof_grid.h).
 */
#ifndef GEMST_FOF_PLAN_H
#define GEMST_FOF_PLAN_H

#include "grid/grid_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Mean points per top cell the grid is planned for by default: cells of
 * about two points, as the EMST grid's, where the linking length is
 * shorter than their side (the usual 0.2 of the mean spacing); the
 * linking length's own side where it is longer.  options.tuning.cell_occupancy
 * overrides it. */
#define GEMST_FOF_OCCUPANCY 2.0

/* Top cells of more points than this are split into sub-cells of about
 * the planned occupancy, no narrower than the linking length: a cluster
 * much denser than the mean then scans the sub-cells near each query
 * rather than its whole cell. */
#define GEMST_FOF_CROWDED 32

/* Sub-cells per axis at most (the split count is stored in a byte). */
#define GEMST_FOF_MAX_SPLIT 255

typedef struct gemst_fof_plan {
    int dim;
    int periodic;
    double t;          /* friends: squared working distance <= t */
    double min_side;   /* the narrowest side a cell may have */
    double box[3];     /* periodic: the box in working units */
    double L[3];       /* top cell side per axis (working units) */
    int32_t nc[3];     /* top cells per axis; nc[2] = 1 in 2D */
    uint64_t cells;
    double occupancy;  /* the mean points per cell planned for */
} gemst_fof_plan;

/* The frame of a periodic box [0, box[d]) (origin 0, a power-of-two scale
 * mapping the widest side below 1). */
int gemst_fof_box_frame(int dim, const double box[3], gemst_frame *f, gridemst_error *err);

/* The largest t representable in the working precision (float, or double
 * when working_double) with sqrt(t) / scale <= b: a pair whose working
 * squared distance is at most t is exactly a pair whose length as the
 * result reports it (sqrt(d2) / scale) is at most b. */
double gemst_fof_threshold2(double b, double scale, int working_double);

/* The grid for n points in frame f at squared linking length t (box: the
 * periodic box in working units, or NULL); occupancy 0 means the
 * default. */
void gemst_fof_plan_make(const gemst_frame *f, int64_t n, double t, const double *box, int working_double,
                         double occupancy, gemst_fof_plan *plan);

/* Sub-cells per axis for a top cell of `count` points (1: not split). */
int gemst_fof_split(const gemst_fof_plan *plan, uint64_t count);

#ifdef __cplusplus
}
#endif

#endif
