/*
 * The grid of a crowded cell (grid.h), fitted to the box of its points.
 *
 * The main grid's cell size follows the mean density over the bounding
 * box, so on skewed inputs (dense clusters, the centre of a normal
 * distribution) a few cells hold most points, and a search that scans such
 * a cell costs its whole count, for every point in it.  A crowded cell
 * therefore gets cells of its own, of a side chosen for GEMST_SUB_OCCUPANCY
 * points per cell over its points' box, and its points are sorted by them.
 * A cluster far smaller than its crowded cell still crowds a few of those
 * cells (the box of a tiny blob and a few points of noise around it is the
 * noise's); such sub-cells get a grid of their own in turn (grid.h).
 */
#ifndef GEMST_SUBGRID_H
#define GEMST_SUBGRID_H

#include <math.h>

#include "grid/grid.h"

#define GEMST_SUB_OCCUPANCY 2.0

/* Smallest cell side, relative to the largest working coordinate's
 * magnitude in the box: 64 units in the last place, so that cell faces
 * stay distinct.  Never below the smallest normal number of the working
 * precision either: a subnormal side would lose its precision (a box of
 * subnormal coordinates gets one cell). */
#if GEMST_REAL_IS_DOUBLE
#define GEMST_SUB_MIN_SIDE 0x1p-47
#else
#define GEMST_SUB_MIN_SIDE 0x1p-18
#endif

/* Cells per axis of side L over extent e, at least 1 and at most cap. */
static inline GEMST_HD double gemst_sub_axis_cells(double e, double L, double cap)
{
    double c = floor(e / L) + 1.0;
    return c < cap ? c : cap;
}

/*
 * The grid of a crowded cell whose count points lie in the box [lo, hi]:
 * origin lo, side L for about GEMST_SUB_OCCUPANCY points per cell over the
 * box (an axis much thinner than L gets one cell), at most count / 2 cells
 * before the last cell of each axis is made to reach past hi in the working
 * precision.  The table offset is the caller's to set (0 here: a planned
 * grid is copied whole before it has one).
 */
static inline GEMST_HD void GEMST_FN(gemst_subgrid_plan)(int dim, const gemst_real lo[3], const gemst_real hi[3],
                                                       uint32_t count, gemst_subgrid *sg)
{
    double e[3] = {0.0, 0.0, 0.0}, top = 0.0;
    int wide[3] = {0, 0, 0};
    for (int d = 0; d < dim; d++) {
        e[d] = (double)hi[d] - (double)lo[d];
        wide[d] = e[d] > 0.0;
        top = fmax(top, fmax(fabs((double)lo[d]), fabs((double)hi[d])));
    }
    const double least = fmax(top * GEMST_SUB_MIN_SIDE, (double)GEMST_REAL_MIN);
    const double cap = (double)(count / 2) > 1.0 ? (double)(count / 2) : 1.0;
    const double target = (double)count / GEMST_SUB_OCCUPANCY;
    double L = least;
    for (int round = 0; round < 3; round++) {
        double volume = 1.0;
        int k = 0, changed = 0;
        for (int d = 0; d < dim; d++)
            if (wide[d]) {
                volume *= e[d];
                k++;
            }
        if (k == 0)
            break;
        L = pow(volume / target, 1.0 / k);
        for (int d = 0; d < dim; d++)
            if (wide[d] && e[d] < L) {
                wide[d] = 0;
                changed = 1;
            }
        if (!changed)
            break;
    }
    if (!(L >= least))
        L = least;
    /* L is a normal number, so each step grows it, and the box is finite.
     * The counts are not capped per axis here: one axis of cap cells would
     * pass for all of them, and the faces would then be extended past the
     * cap to reach hi. */
    for (;;) {
        double cells = 1.0;
        for (int d = 0; d < dim; d++)
            cells *= floor(e[d] / L) + 1.0;
        if (cells <= cap)
            break;
        L *= 1.25;
    }
    gemst_cells cg;
    cg.dim = dim;
    cg.L = (gemst_real)L;
    cg.inv_L = (gemst_real)(1.0 / (double)cg.L);
    for (int d = 0; d < 3; d++) {
        cg.origin[d] = d < dim ? lo[d] : (gemst_real)0;
        cg.nc[d] = d < dim ? (int32_t)gemst_sub_axis_cells(e[d], (double)cg.L, cap) : 1;
        while (d < dim && cg.nc[d] < INT32_MAX && GEMST_FN(gemst_cell_lo)(&cg, d, cg.nc[d]) <= hi[d])
            cg.nc[d]++;
        sg->origin[d] = cg.origin[d];
        sg->nc[d] = cg.nc[d];
    }
    sg->L = cg.L;
    sg->inv_L = cg.inv_L;
    sg->table = 0;
}

/* Entries of a sub-grid's cell table. */
static inline GEMST_HD uint32_t GEMST_FN(gemst_subgrid_table_size)(const gemst_subgrid *sg)
{
    return (uint32_t)sg->nc[0] * (uint32_t)sg->nc[1] * (uint32_t)sg->nc[2] + 1;
}

/* Whether a planned grid divides its cell at all (more than one cell): a
 * nested grid that does not would only deepen the searches. */
static inline GEMST_HD int GEMST_FN(gemst_subgrid_divides)(const gemst_subgrid *sg)
{
    return GEMST_FN(gemst_subgrid_table_size)(sg) > 2;
}

/* The sub-cell of the point at p in the crowded cell's grid cg. */
static inline GEMST_HD uint32_t GEMST_FN(gemst_sub_cell_of)(const gemst_cells *cg, const gemst_real p[3])
{
    int32_t c[3];
    GEMST_FN(gemst_cell_coords)(cg, p, c);
    return gemst_cell_index(cg->nc, c[0], c[1], c[2]);
}

#endif
