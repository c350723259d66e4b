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
 * the cells the bound still reaches (a margin of two cells, and of 2^-20 of
 * the coordinates' magnitude, covers rounding in the trim and in
 * gemst_cell_guess, so only rings 3 and beyond shrink).
 *
 * The same functions walk the main grid and a crowded cell's own grid
 * (gemst_cells); in the latter the query's cell is the one nearest to it
 * when the query lies outside, which keeps every bound sound: the distance
 * to a point of a box is at least the distance from the query's projection
 * onto the box.
 *
 * Every lower bound here is shrunk by GEMST_LB_SHRINK so that it never
 * exceeds a squared distance computed for a point it bounds.
 */
#ifndef GEMST_RING_H
#define GEMST_RING_H

#include <math.h>

#include "grid/grid.h"

/* A query point: its index in the grid, caller id, coordinates, main-grid
 * cell, and squared core distance (0 without g->core2). */
#define gemst_query GEMST_FN(gemst_query)
typedef struct {
    uint32_t idx, oid;
    gemst_real q[3];
    int32_t c[3];
    gemst_real core2;
} gemst_query;

/* The query of point i without its cell (for searches that use no cells). */
static inline GEMST_HD void GEMST_FN(gemst_query_point)(const gemst_grid *g, uint32_t i, gemst_query *qq)
{
    qq->idx = i;
    qq->oid = g->oid[i];
    qq->q[0] = g->x[i];
    qq->q[1] = g->y[i];
    qq->q[2] = g->dim == 3 ? g->z[i] : (gemst_real)0;
    qq->core2 = g->core2 ? g->core2[i] : (gemst_real)0;
}

static inline GEMST_HD void GEMST_FN(gemst_query_make)(const gemst_grid *g, uint32_t i, gemst_query *qq)
{
    gemst_cells top;
    GEMST_FN(gemst_query_point)(g, i, qq);
    GEMST_FN(gemst_top_cells)(g, &top);
    GEMST_FN(gemst_cell_coords)(&top, qq->q, qq->c);
}

/* Squared distance from a to b (a[2] and b[2] unused in 2D): the one
 * formula every comparison in the solver uses. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_sq_dist)(int dim, const gemst_real a[3], const gemst_real b[3])
{
    gemst_real dx = GEMST_SUB(b[0], a[0]);
    gemst_real dy = GEMST_SUB(b[1], a[1]);
    gemst_real s = GEMST_ADD(GEMST_MUL(dx, dx), GEMST_MUL(dy, dy));
    if (dim == 3) {
        gemst_real dz = GEMST_SUB(b[2], a[2]);
        s = GEMST_ADD(s, GEMST_MUL(dz, dz));
    }
    return s;
}

/* Grid point p's coordinates (p[2] is 0 in 2D). */
static inline GEMST_HD void GEMST_FN(gemst_point_at)(const gemst_grid *g, uint32_t p, gemst_real at[3])
{
    at[0] = g->x[p];
    at[1] = g->y[p];
    at[2] = g->dim == 3 ? g->z[p] : (gemst_real)0;
}

/* Squared distance from the query to grid point p. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_dist2_q)(const gemst_grid *g, const gemst_query *qq, uint32_t p)
{
    gemst_real at[3];
    GEMST_FN(gemst_point_at)(g, p, at);
    return GEMST_FN(gemst_sq_dist)(g->dim, qq->q, at);
}

/* Squared distance between grid points a and b; equal to dist2_q for the
 * query made from a (and, by symmetry of each rounded step, from b). */
static inline GEMST_HD gemst_real GEMST_FN(gemst_dist2)(const gemst_grid *g, uint32_t a, uint32_t b)
{
    gemst_real pa[3], pb[3];
    GEMST_FN(gemst_point_at)(g, a, pa);
    GEMST_FN(gemst_point_at)(g, b, pb);
    return GEMST_FN(gemst_sq_dist)(g->dim, pa, pb);
}

/* Distance along axis d from the interval [lo, hi] (a query point's
 * coordinate, lo == hi, or a cell's extent) to cell c (0 where they meet). */
static inline GEMST_HD gemst_real GEMST_FN(gemst_axis_gap)(const gemst_cells *cg, int d, gemst_real lo,
                                                         gemst_real hi, int32_t c)
{
    gemst_real clo = GEMST_FN(gemst_cell_lo)(cg, d, c);
    if (hi < clo)
        return GEMST_SUB(clo, hi);
    gemst_real chi = GEMST_FN(gemst_cell_lo)(cg, d, c + 1);
    if (lo > chi)
        return GEMST_SUB(lo, chi);
    return (gemst_real)0;
}

/* Lower bound on the squared distance from the query box [lo, hi] to any
 * point of the grid beyond the box of cells [c - r, c + r] along an axis
 * from `first` on (infinity when there is none).  Such a point lies beyond
 * a face of that box along one axis, and inside the grid along the others:
 * a query that may lie `outside` the grid (a crowded cell's grid searched
 * from another cell) is at least as far from it as from the grid's extent
 * along them, which keeps the rings around its nearest cell from covering
 * the whole grid before the bound stops them. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_outer_lb2)(const gemst_cells *cg, const gemst_real lo[3],
                                                          const gemst_real hi[3], const int32_t c[3], int r,
                                                          int first, int outside)
{
    gemst_real off2[3] = {0, 0, 0}, all = 0; /* the query's squared distance to the grid's extent, per axis */
    GEMST_UNROLL
    for (int d = 0; d < 3; d++) {
        if (!outside || d >= cg->dim)
            break;
        const gemst_real glo = GEMST_FN(gemst_cell_lo)(cg, d, 0), ghi = GEMST_FN(gemst_cell_lo)(cg, d, cg->nc[d]);
        const gemst_real off = hi[d] < glo ? GEMST_SUB(glo, hi[d]) : lo[d] > ghi ? GEMST_SUB(lo[d], ghi) : (gemst_real)0;
        off2[d] = GEMST_MUL(off, off);
        all = GEMST_ADD(all, off2[d]);
    }
    gemst_real m = GEMST_REAL_INF;
    GEMST_UNROLL
    for (int d = 0; d < 3; d++) {
        if (d < first)
            continue;
        if (d >= cg->dim)
            break;
        const gemst_real rest = GEMST_SUB(all, off2[d]);
        if (c[d] - r > 0) {
            gemst_real gap = GEMST_SUB(lo[d], GEMST_FN(gemst_cell_lo)(cg, d, c[d] - r));
            gemst_real v = GEMST_ADD(GEMST_MUL(gap, gap), rest);
            m = v < m ? v : m;
        }
        if (c[d] + r < cg->nc[d] - 1) {
            gemst_real gap = GEMST_SUB(GEMST_FN(gemst_cell_lo)(cg, d, c[d] + r + 1), hi[d]);
            gemst_real v = GEMST_ADD(GEMST_MUL(gap, gap), rest);
            m = v < m ? v : m;
        }
    }
    if (m == GEMST_REAL_INF)
        return m;
    return GEMST_MUL(m, GEMST_LB_SHRINK);
}

/*
 * Lower bound on the squared distance from the query box [lo, hi] (a point
 * when lo == hi) whose cell, or nearest cell, is c, to any point of the
 * grid outside rings 0..r around c; infinity when those rings cover the
 * whole grid.  A box query is a cell of the same grid, or part of one.
 */
static inline GEMST_HD gemst_real GEMST_FN(gemst_ring_outer_lb2)(const gemst_cells *cg, const gemst_real lo[3],
                                                               const gemst_real hi[3], const int32_t c[3], int r)
{
    return GEMST_FN(gemst_outer_lb2)(cg, lo, hi, c, r, 0, 0);
}

/* The same for a query that may lie outside the grid (gemst_outer_lb2). */
static inline GEMST_HD gemst_real GEMST_FN(gemst_sub_ring_outer_lb2)(const gemst_cells *cg, const gemst_real lo[3],
                                                                   const gemst_real hi[3], const int32_t c[3], int r)
{
    return GEMST_FN(gemst_outer_lb2)(cg, lo, hi, c, r, 0, 1);
}

/* |v|, the same way on both backends. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_abs)(gemst_real v)
{
    return v < (gemst_real)0 ? -v : v;
}

/* Trims the cells [*xa, *xb] of a row whose y/z distance from the query box
 * is sqrt(row2) to those within squared distance bound2 of it along x.
 * lo - reach, hi + reach and gemst_cell_guess round by up to a unit in the
 * last place of the coordinates involved; in a grid far finer than that (a
 * crowded cell's, searched from far away) such a unit spans many cells.  So
 * the ends move out by 2^-20 of those coordinates' magnitude, then by two
 * cells. */
static inline GEMST_HD void GEMST_FN(gemst_row_trim)(const gemst_cells *cg, const gemst_real lo[3],
                                                   const gemst_real hi[3], gemst_real row2, gemst_real bound2,
                                                   int32_t *xa, int32_t *xb)
{
    gemst_real reach = (gemst_real)sqrt((double)GEMST_SUB(bound2, GEMST_MUL(row2, GEMST_LB_SHRINK)));
    const gemst_real size = GEMST_ADD(GEMST_ADD(GEMST_FN(gemst_abs)(lo[0]), GEMST_FN(gemst_abs)(hi[0])),
                                      GEMST_ADD(reach, GEMST_FN(gemst_abs)(cg->origin[0])));
    reach = GEMST_ADD(reach, GEMST_MUL(size, (gemst_real)0x1p-20));
    int32_t ta = GEMST_FN(gemst_cell_guess)(cg, 0, GEMST_SUB(lo[0], reach)) - 2;
    int32_t tb = GEMST_FN(gemst_cell_guess)(cg, 0, GEMST_ADD(hi[0], reach)) + 2;
    *xa = ta > *xa ? ta : *xa;
    *xb = tb < *xb ? tb : *xb;
}

/* Whether cell x of a row whose y/z distance from the query box is
 * sqrt(row2) lies wholly beyond squared distance bound2 of the box. */
static inline GEMST_HD int GEMST_FN(gemst_cell_beyond)(const gemst_cells *cg, const gemst_real lo[3],
                                                     const gemst_real hi[3], gemst_real row2, gemst_real bound2,
                                                     int32_t x)
{
    gemst_real gx = GEMST_FN(gemst_axis_gap)(cg, 0, lo[0], hi[0], x);
    return GEMST_MUL(GEMST_ADD(row2, GEMST_MUL(gx, gx)), GEMST_LB_SHRINK) > bound2;
}

/* Drops the end cells of row cells [*xa, *xb] that lie beyond bound2, cell
 * by cell (the x distance falls towards the query's column, so what stays
 * is all within reach).  For the rings' rows: the short ones near the
 * query, which gemst_row_trim leaves whole, and the margin it leaves on the
 * others; in a dense region those cells hold hundreds of points (H200, 1e7
 * points: normal 3D 67.0 -> 59.9 ms, blobs 3D 154 -> 123 ms).
 *
 * On the CPU only rows of more than GEMST_CLIP_POINTS points are clipped,
 * once their points are looked up: rows of a few points are cheaper to
 * scan than to clip (uniform 2D searches were 10% slower clipping every
 * row).  On the GPU (0) every row is clipped before the lookup: clipping
 * after it cost blobs 3D 1e7 16 ms (139 against 123 ms, with or without
 * the rows of 32 points or fewer); uniform sets pay under 1%.  The row
 * shells keep gemst_row_trim's margin: clipping theirs made the fallback's
 * widest searches slower (varden 3D 1e7: 185 -> 213 ms), and clipping in
 * the walk, only the ranges about to be scanned, slowed the search kernels
 * (normal 3D 83 ms). */
#ifdef __CUDA_ARCH__
#define GEMST_CLIP_POINTS 0
#else
#define GEMST_CLIP_POINTS 32
#endif
static inline GEMST_HD void GEMST_FN(gemst_row_clip)(const gemst_cells *cg, const gemst_real lo[3],
                                                   const gemst_real hi[3], gemst_real row2, gemst_real bound2,
                                                   int32_t *xa, int32_t *xb)
{
    while (*xa <= *xb && GEMST_FN(gemst_cell_beyond)(cg, lo, hi, row2, bound2, *xa))
        ++*xa;
    while (*xb >= *xa && GEMST_FN(gemst_cell_beyond)(cg, lo, hi, row2, bound2, *xb))
        --*xb;
}

/* Squared y/z distance from the query box to row (y, z). */
static inline GEMST_HD gemst_real GEMST_FN(gemst_row_gap2)(const gemst_cells *cg, const gemst_real lo[3],
                                                         const gemst_real hi[3], int32_t y, int32_t z)
{
    gemst_real gy = GEMST_FN(gemst_axis_gap)(cg, 1, lo[1], hi[1], y);
    gemst_real gz = cg->dim == 3 ? GEMST_FN(gemst_axis_gap)(cg, 2, lo[2], hi[2], z) : (gemst_real)0;
    return GEMST_ADD(GEMST_MUL(gy, gy), GEMST_MUL(gz, gz));
}

/* The cells of a range of points: cells xa..xb of row (y, z). */
typedef struct {
    int32_t xa, xb, y, z;
} gemst_span;

/* The points of cells [xa, xb] of row (y, z) into [*begin, *end) and the
 * cells into *span; whether there are any. */
static inline GEMST_HD int GEMST_FN(gemst_row_points)(const gemst_cells *cg, int32_t xa, int32_t xb, int32_t y,
                                                    int32_t z, uint32_t *begin, uint32_t *end, gemst_span *span)
{
    *begin = cg->start[gemst_cell_index(cg->nc, xa, y, z)];
    *end = cg->start[gemst_cell_index(cg->nc, xb, y, z) + 1];
    span->xa = xa;
    span->xb = xb;
    span->y = y;
    span->z = z;
    return *begin < *end;
}

/* Iterator over the point ranges of one ring around cell c; after each
 * range, `last` holds the cells it spans. */
#define gemst_ring GEMST_FN(gemst_ring)
typedef struct {
    int r;
    int32_t c[3];
    int32_t y, z;          /* current row */
    int32_t ylo, yhi, zhi; /* rows of the ring inside the grid */
    int part;              /* 0: row start, 1: right end next, 2: row done */
    gemst_span last;       /* cells of the range returned last */
} gemst_ring;

static inline GEMST_HD void GEMST_FN(gemst_ring_begin)(const gemst_cells *cg, const int32_t c[3], int r,
                                                     gemst_ring *it)
{
    it->r = r;
    for (int d = 0; d < 3; d++)
        it->c[d] = c[d];
    it->ylo = c[1] - r > 0 ? c[1] - r : 0;
    it->yhi = c[1] + r < cg->nc[1] - 1 ? c[1] + r : cg->nc[1] - 1;
    it->z = c[2] - r > 0 ? c[2] - r : 0;
    it->zhi = c[2] + r < cg->nc[2] - 1 ? c[2] + r : cg->nc[2] - 1;
    it->y = it->ylo;
    it->part = 0;
}

/*
 * The next non-empty range of points of the ring that may lie within
 * squared distance bound2 of the query box [lo, hi] (a point when lo ==
 * hi).  Returns 0 when the ring is done.  bound2 may shrink between calls.
 */
static inline GEMST_HD int GEMST_FN(gemst_ring_next)(const gemst_cells *cg, const gemst_real lo[3],
                                                   const gemst_real hi[3], gemst_ring *it, gemst_real bound2,
                                                   uint32_t *begin, uint32_t *end)
{
    const int r = it->r;
    const int32_t cx = it->c[0];
    while (it->z <= it->zhi) {
        const int32_t y = it->y, z = it->z;
        int32_t xa = 0, xb = -1;
        int clip_later = 0; /* a whole row, to be clipped once it shows many points */
        const int bounded = bound2 < GEMST_REAL_INF; /* no pruning while the bound is open */
        const gemst_real row2 = bounded ? GEMST_FN(gemst_row_gap2)(cg, lo, hi, y, z) : (gemst_real)0;
        if (bounded && GEMST_MUL(row2, GEMST_LB_SHRINK) > bound2) {
            it->part = 2;
        } else if (y == it->c[1] - r || y == it->c[1] + r || z == it->c[2] - r || z == it->c[2] + r) {
            /* A whole row, trimmed to the x range the bound reaches (two
             * cells of margin cover rounding in the trim, so rows shorter
             * than 7 cells cannot shrink), then clipped exactly
             * (gemst_row_clip). */
            xa = cx - r > 0 ? cx - r : 0;
            xb = cx + r < cg->nc[0] - 1 ? cx + r : cg->nc[0] - 1;
            if (r >= 3 && bounded)
                GEMST_FN(gemst_row_trim)(cg, lo, hi, row2, bound2, &xa, &xb);
            if (bounded && GEMST_CLIP_POINTS == 0)
                GEMST_FN(gemst_row_clip)(cg, lo, hi, row2, bound2, &xa, &xb);
            else
                clip_later = bounded;
            it->part = 2;
        } else {
            /* Only the two end cells of the row belong to the ring. */
            while (it->part < 2 && xb < xa) {
                int32_t x = it->part == 0 ? cx - r : cx + r;
                it->part++;
                if (x < 0 || x >= cg->nc[0])
                    continue;
                if (!bounded || !GEMST_FN(gemst_cell_beyond)(cg, lo, hi, row2, bound2, x))
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
        if (xa <= xb && GEMST_FN(gemst_row_points)(cg, xa, xb, y, z, begin, end, &it->last)) {
            if (!clip_later || *end - *begin <= GEMST_CLIP_POINTS)
                return 1;
            const int32_t xa0 = xa, xb0 = xb;
            GEMST_FN(gemst_row_clip)(cg, lo, hi, row2, bound2, &xa, &xb);
            if (xa == xa0 && xb == xb0)
                return 1;
            if (xa <= xb && GEMST_FN(gemst_row_points)(cg, xa, xb, y, z, begin, end, &it->last))
                return 1;
        }
    }
    return 0;
}

/*
 * Row shells, for searches that reach far (the fallback): shell s around
 * cell c holds the rows (y, z) with max(|y - cy|, |z - cz|) == s, each
 * taken whole along x and trimmed to the bound; a search that has covered
 * rings 0..r0 first takes only what lies beyond them in the rows of shells
 * 0..r0.  A shell costs 8s rows in 3D (2 in 2D) where the ring of the same
 * reach costs about 8s^2 cells, so wide searches through empty or
 * own-component space cost far less.  After each range, `last` holds the
 * cells it spans.
 */
#define gemst_shell GEMST_FN(gemst_shell)
typedef struct {
    int s, r0;
    int32_t c[3];
    int32_t y, z;           /* current row */
    int32_t zhi;            /* last z of the shell inside the grid */
    int part;               /* within a row: 0 first range, 1 second (shells <= r0), 2 row done */
    gemst_span last;        /* cells of the range returned last */
} gemst_shell;

static inline GEMST_HD void GEMST_FN(gemst_shell_begin)(const gemst_cells *cg, const int32_t c[3], int s, int r0,
                                                      gemst_shell *it)
{
    it->s = s;
    it->r0 = r0;
    for (int d = 0; d < 3; d++)
        it->c[d] = c[d];
    it->z = c[2] - s > 0 ? c[2] - s : 0;
    it->zhi = c[2] + s < cg->nc[2] - 1 ? c[2] + s : cg->nc[2] - 1;
    /* the first row of the plane z: its low face, or the low end of a face plane */
    it->y = c[1] - s;
    if ((it->z == c[2] - s || it->z == c[2] + s) && it->y < 0)
        it->y = 0;
    it->part = 0;
}

/* Moves the shell iterator to its next row: along y through a face plane
 * of the shell (z at distance s), else from its low row to its high row. */
static inline GEMST_HD void GEMST_FN(gemst_shell_advance)(const gemst_cells *cg, gemst_shell *it)
{
    const int s = it->s;
    const int32_t cy = it->c[1], ylast = cy + s < cg->nc[1] - 1 ? cy + s : cg->nc[1] - 1;
    it->part = 0;
    if (it->z == it->c[2] - s || it->z == it->c[2] + s) {
        if (it->y < ylast) {
            it->y++;
            return;
        }
    } else if (it->y == cy - s) {
        it->y = cy + s;
        return;
    }
    it->z++;
    it->y = cy - s;
    if ((it->z == it->c[2] - s || it->z == it->c[2] + s) && it->y < 0)
        it->y = 0;
}

/* The next non-empty range of the shell's rows that may lie within squared
 * distance bound2 of the query box [lo, hi]; 0 when the shell is done. */
static inline GEMST_HD int GEMST_FN(gemst_shell_next)(const gemst_cells *cg, const gemst_real lo[3],
                                                    const gemst_real hi[3], gemst_shell *it, gemst_real bound2,
                                                    uint32_t *begin, uint32_t *end)
{
    const int32_t cx = it->c[0];
    for (; it->z <= it->zhi; GEMST_FN(gemst_shell_advance)(cg, it)) {
        const int32_t y = it->y, z = it->z;
        if (y < 0 || y >= cg->nc[1])
            continue;
        const int bounded = bound2 < GEMST_REAL_INF;
        const gemst_real row2 = bounded ? GEMST_FN(gemst_row_gap2)(cg, lo, hi, y, z) : (gemst_real)0;
        if (bounded && GEMST_MUL(row2, GEMST_LB_SHRINK) > bound2)
            continue;
        int32_t xa = 0, xb = cg->nc[0] - 1;
        if (bounded)
            GEMST_FN(gemst_row_trim)(cg, lo, hi, row2, bound2, &xa, &xb);
        while (it->part < 2) {
            int32_t a = xa, b = xb;
            if (it->s <= it->r0) { /* the row's cells left, then right, of rings 0..r0 */
                if (it->part == 0)
                    b = b < cx - it->r0 - 1 ? b : cx - it->r0 - 1;
                else
                    a = a > cx + it->r0 + 1 ? a : cx + it->r0 + 1;
                it->part++;
            } else {
                it->part = 2;
            }
            if (a <= b && GEMST_FN(gemst_row_points)(cg, a, b, y, z, begin, end, &it->last))
                return 1;
        }
    }
    return 0;
}

/* Lower bound on the squared distance from the query box to any point of
 * the grid in rows outside shells 0..s (infinity when there are none). */
static inline GEMST_HD gemst_real GEMST_FN(gemst_shell_outer_lb2)(const gemst_cells *cg, const gemst_real lo[3],
                                                                const gemst_real hi[3], const int32_t c[3], int s)
{
    return GEMST_FN(gemst_outer_lb2)(cg, lo, hi, c, s, 1, 0);
}

/* The same for a query that may lie outside the grid (gemst_outer_lb2). */
static inline GEMST_HD gemst_real GEMST_FN(gemst_sub_shell_outer_lb2)(const gemst_cells *cg, const gemst_real lo[3],
                                                                    const gemst_real hi[3], const int32_t c[3], int s)
{
    return GEMST_FN(gemst_outer_lb2)(cg, lo, hi, c, s, 1, 1);
}

#endif
