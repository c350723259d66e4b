/*
 * K-d ring search on the grid (Qiao & Creput 2021, section 3.2).
 *
 * Ring r around the query's cell holds the cells at Chebyshev distance r.
 * A ring is visited as rows along x: a row whose y (and z) index is at
 * distance r is taken whole, other rows contribute only their two end
 * cells.  Searching the query's own cell first (ring 0) lets dense regions
 * fill a search's bound at once, so that most of ring 1 is skipped there.
 * Cells of a row are consecutive in the row-major cell table, so a whole row
 * is one contiguous range of points.  Rows and row ends that cannot hold a
 * point within the current bound are skipped, and whole rows are trimmed to
 * the cells the bound still reaches (two cells of margin cover rounding in
 * the trim and in gemst_cell_guess, so only rings 3 and beyond shrink).
 *
 * Every lower bound here is shrunk by GEMST_LB_SHRINK so that it never
 * exceeds a squared distance computed for a point it bounds.
 */
#ifndef GEMST_RING_H
#define GEMST_RING_H

#include <math.h>

#include "grid/grid.h"

/* A query point: its index in the grid, caller id, coordinates and cell. */
#define gemst_query GEMST_FN(gemst_query)
typedef struct {
    uint32_t idx, oid;
    gemst_real q[3];
    int32_t c[3];
} gemst_query;

/* The query of point i without its cell (for searches that use no cells). */
static inline GEMST_HD void GEMST_FN(gemst_query_point)(const gemst_grid *g, uint32_t i, gemst_query *qq)
{
    qq->idx = i;
    qq->oid = g->oid[i];
    qq->q[0] = g->x[i];
    qq->q[1] = g->y[i];
    qq->q[2] = g->dim == 3 ? g->z[i] : (gemst_real)0;
}

static inline GEMST_HD void GEMST_FN(gemst_query_make)(const gemst_grid *g, uint32_t i, gemst_query *qq)
{
    GEMST_FN(gemst_query_point)(g, i, qq);
    GEMST_FN(gemst_cell_coords)(g, qq->q[0], qq->q[1], qq->q[2], qq->c);
}

/* Squared distance from the query to grid point p: the one formula every
 * comparison in the solver uses. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_dist2_q)(const gemst_grid *g, const gemst_query *qq, uint32_t p)
{
    gemst_real dx = GEMST_SUB(g->x[p], qq->q[0]);
    gemst_real dy = GEMST_SUB(g->y[p], qq->q[1]);
    gemst_real s = GEMST_ADD(GEMST_MUL(dx, dx), GEMST_MUL(dy, dy));
    if (g->dim == 3) {
        gemst_real dz = GEMST_SUB(g->z[p], qq->q[2]);
        s = GEMST_ADD(s, GEMST_MUL(dz, dz));
    }
    return s;
}

/* Squared distance between grid points a and b; equal to dist2_q for the
 * query made from a (and, by symmetry of each rounded step, from b). */
static inline GEMST_HD gemst_real GEMST_FN(gemst_dist2)(const gemst_grid *g, uint32_t a, uint32_t b)
{
    gemst_real dx = GEMST_SUB(g->x[b], g->x[a]);
    gemst_real dy = GEMST_SUB(g->y[b], g->y[a]);
    gemst_real s = GEMST_ADD(GEMST_MUL(dx, dx), GEMST_MUL(dy, dy));
    if (g->dim == 3) {
        gemst_real dz = GEMST_SUB(g->z[b], g->z[a]);
        s = GEMST_ADD(s, GEMST_MUL(dz, dz));
    }
    return s;
}

/* Distance along one axis from coordinate v to cell c (0 inside the cell). */
static inline GEMST_HD gemst_real GEMST_FN(gemst_axis_gap)(const gemst_grid *g, gemst_real v, int32_t c)
{
    gemst_real lo = GEMST_FN(gemst_cell_lo)(g, c);
    if (v < lo)
        return GEMST_SUB(lo, v);
    gemst_real hi = GEMST_FN(gemst_cell_lo)(g, c + 1);
    if (v > hi)
        return GEMST_SUB(v, hi);
    return (gemst_real)0;
}

/* Lower bound on the squared distance from the query to any point outside
 * rings 0..r; infinity when those rings cover the whole grid. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_ring_outer_lb2)(const gemst_grid *g, const gemst_query *qq, int r)
{
    gemst_real m = GEMST_REAL_INF;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int d = 0; d < 3; d++) {
        if (d >= g->dim)
            break;
        int32_t c = qq->c[d];
        if (c - r > 0) {
            gemst_real gap = GEMST_SUB(qq->q[d], GEMST_FN(gemst_cell_lo)(g, c - r));
            m = gap < m ? gap : m;
        }
        if (c + r < g->nc[d] - 1) {
            gemst_real gap = GEMST_SUB(GEMST_FN(gemst_cell_lo)(g, c + r + 1), qq->q[d]);
            m = gap < m ? gap : m;
        }
    }
    if (m == GEMST_REAL_INF)
        return m;
    return GEMST_MUL(GEMST_MUL(m, m), GEMST_LB_SHRINK);
}

/* Iterator over the point ranges of one ring. */
#define gemst_ring GEMST_FN(gemst_ring)
typedef struct {
    int r;
    int32_t y, z;          /* current row */
    int32_t ylo, yhi, zhi; /* rows of the ring inside the grid */
    int part;              /* 0: row start, 1: right end next, 2: row done */
} gemst_ring;

static inline GEMST_HD void GEMST_FN(gemst_ring_begin)(const gemst_grid *g, const gemst_query *qq, int r,
                                                     gemst_ring *it)
{
    it->r = r;
    it->ylo = qq->c[1] - r > 0 ? qq->c[1] - r : 0;
    it->yhi = qq->c[1] + r < g->nc[1] - 1 ? qq->c[1] + r : g->nc[1] - 1;
    it->z = qq->c[2] - r > 0 ? qq->c[2] - r : 0;
    it->zhi = qq->c[2] + r < g->nc[2] - 1 ? qq->c[2] + r : g->nc[2] - 1;
    it->y = it->ylo;
    it->part = 0;
}

/* Cells [xa, xb] of the row (y, z) as a range of points [*begin, *end). */
static inline GEMST_HD void GEMST_FN(gemst_row_range)(const gemst_grid *g, int32_t xa, int32_t xb, int32_t y,
                                                    int32_t z, uint32_t *begin, uint32_t *end)
{
    *begin = g->cell_start[gemst_cell_index(g->nc, xa, y, z)];
    *end = g->cell_start[gemst_cell_index(g->nc, xb, y, z) + 1];
}

/*
 * The next non-empty range of points of the ring that may lie within
 * squared distance bound2 of the query.  Returns 0 when the ring is done.
 * bound2 may shrink between calls.
 */
static inline GEMST_HD int GEMST_FN(gemst_ring_next)(const gemst_grid *g, const gemst_query *qq, gemst_ring *it,
                                                   gemst_real bound2, uint32_t *begin, uint32_t *end)
{
    const int r = it->r;
    const int32_t cx = qq->c[0];
    while (it->z <= it->zhi) {
        const int32_t y = it->y, z = it->z;
        int32_t xa = 0, xb = -1;
        const int bounded = bound2 < GEMST_REAL_INF; /* no pruning while the bound is open */
        gemst_real row2 = 0;
        if (bounded) {
            gemst_real gy = GEMST_FN(gemst_axis_gap)(g, qq->q[1], y);
            gemst_real gz = g->dim == 3 ? GEMST_FN(gemst_axis_gap)(g, qq->q[2], z) : (gemst_real)0;
            row2 = GEMST_ADD(GEMST_MUL(gy, gy), GEMST_MUL(gz, gz));
        }
        if (bounded && GEMST_MUL(row2, GEMST_LB_SHRINK) > bound2) {
            it->part = 2;
        } else if (y == qq->c[1] - r || y == qq->c[1] + r || z == qq->c[2] - r || z == qq->c[2] + r) {
            /* A whole row, trimmed to the x range the bound reaches (two
             * cells of margin cover rounding in the trim, so rows shorter
             * than 7 cells cannot shrink). */
            xa = cx - r > 0 ? cx - r : 0;
            xb = cx + r < g->nc[0] - 1 ? cx + r : g->nc[0] - 1;
            if (r >= 3 && bounded) {
                gemst_real reach = (gemst_real)sqrt((double)GEMST_SUB(bound2, GEMST_MUL(row2, GEMST_LB_SHRINK)));
                int32_t ta = GEMST_FN(gemst_cell_guess)(g, GEMST_SUB(qq->q[0], reach), g->nc[0]) - 2;
                int32_t tb = GEMST_FN(gemst_cell_guess)(g, GEMST_ADD(qq->q[0], reach), g->nc[0]) + 2;
                xa = ta > xa ? ta : xa;
                xb = tb < xb ? tb : xb;
            }
            it->part = 2;
        } else {
            /* Only the two end cells of the row belong to the ring. */
            while (it->part < 2 && xb < xa) {
                int32_t x = it->part == 0 ? cx - r : cx + r;
                it->part++;
                if (x < 0 || x >= g->nc[0])
                    continue;
                gemst_real gx = bounded ? GEMST_FN(gemst_axis_gap)(g, qq->q[0], x) : (gemst_real)0;
                if (!bounded || GEMST_MUL(GEMST_ADD(row2, GEMST_MUL(gx, gx)), GEMST_LB_SHRINK) <= bound2)
                    xa = xb = x;
            }
        }
        if (it->part >= 2) {
            it->part = 0;
            if (++it->y > it->yhi) {
                it->y = it->ylo;
                it->z++;
            }
        }
        if (xa <= xb) {
            GEMST_FN(gemst_row_range)(g, xa, xb, y, z, begin, end);
            if (*begin < *end)
                return 1;
        }
    }
    return 0;
}

#endif
