/*
 * The grid as the searches see it (precision-generic; see real.h): points
 * sorted by cell in row-major cell order, their coordinates as separate
 * arrays, and cell_start[c] .. cell_start[c + 1] the points of cell c.
 *
 * Cell c along an axis covers [lo(c), lo(c + 1)) with lo(c) = c * L rounded
 * in the working precision.  A point's cell is computed so that this holds
 * exactly for its rounded coordinate, on both backends; every lower bound
 * derived from cell faces is then sound.
 */
#ifndef GEMST_GRID_H
#define GEMST_GRID_H

#include "real.h"
#include "grid/grid_plan.h"

#define gemst_grid GEMST_FN(gemst_grid)
typedef struct {
    int dim;
    int32_t nc[3];
    gemst_real L, inv_L;
    uint32_t n;                   /* points in the grid */
    const uint32_t *cell_start;   /* cells + 1 entries */
    const gemst_real *x, *y, *z;  /* z is NULL in 2D */
    const uint32_t *oid;          /* caller's id of each point */
} gemst_grid;

/* Low face of cell c along an axis. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_cell_lo)(const gemst_grid *g, int32_t c)
{
    return GEMST_MUL((gemst_real)c, g->L);
}

/* The cell holding coordinate v (>= 0) along an axis with nc cells. */
static inline GEMST_HD int32_t GEMST_FN(gemst_cell_of)(const gemst_grid *g, gemst_real v, int32_t nc)
{
    gemst_real guess = GEMST_MUL(v, g->inv_L);
    int32_t c = guess >= (gemst_real)nc ? nc - 1 : (int32_t)guess;
    if (c < 0)
        c = 0;
    while (c > 0 && v < GEMST_FN(gemst_cell_lo)(g, c))
        c--;
    while (c < nc - 1 && v >= GEMST_FN(gemst_cell_lo)(g, c + 1))
        c++;
    return c;
}

static inline GEMST_HD uint32_t gemst_cell_index(const int32_t nc[3], int32_t cx, int32_t cy, int32_t cz)
{
    return (uint32_t)cx + (uint32_t)nc[0] * ((uint32_t)cy + (uint32_t)nc[1] * (uint32_t)cz);
}

/* The cell of coordinate v, or one next to it: a cheap estimate for
 * trimming searches, not for assigning points.  v may lie off the grid. */
static inline GEMST_HD int32_t GEMST_FN(gemst_cell_guess)(const gemst_grid *g, gemst_real v, int32_t nc)
{
    gemst_real guess = GEMST_MUL(v, g->inv_L);
    if (!(guess > (gemst_real)0))
        return 0;
    return guess >= (gemst_real)nc ? nc - 1 : (int32_t)guess;
}

/* Cell coordinates of a point at (px, py, pz); pz is ignored in 2D. */
static inline GEMST_HD void GEMST_FN(gemst_cell_coords)(const gemst_grid *g, gemst_real px, gemst_real py,
                                                      gemst_real pz, int32_t c[3])
{
    c[0] = GEMST_FN(gemst_cell_of)(g, px, g->nc[0]);
    c[1] = GEMST_FN(gemst_cell_of)(g, py, g->nc[1]);
    c[2] = g->dim == 3 ? GEMST_FN(gemst_cell_of)(g, pz, g->nc[2]) : 0;
}

/* Working-precision cell side and cell counts from a plan, such that the last
 * cell of each axis reaches beyond max_coord[axis] in the working precision. */
static inline void GEMST_FN(gemst_grid_fit)(gemst_grid *g, const gemst_grid_plan *plan, const gemst_real max_coord[3])
{
    g->dim = plan->dim;
    g->L = (gemst_real)plan->L;
    g->inv_L = (gemst_real)(1.0 / (double)g->L);
    for (int d = 0; d < 3; d++) {
        g->nc[d] = plan->nc[d];
        if (d < plan->dim)
            while (g->nc[d] < INT32_MAX && GEMST_FN(gemst_cell_lo)(g, g->nc[d]) <= max_coord[d])
                g->nc[d]++;
    }
}

static inline uint64_t gemst_grid_cells(const int32_t nc[3])
{
    return (uint64_t)nc[0] * (uint64_t)nc[1] * (uint64_t)nc[2];
}

#endif
