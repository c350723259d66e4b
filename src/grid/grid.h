/*
 * The grid as the searches see it (precision-generic; see real.h): points
 * sorted by cell in row-major cell order, their coordinates as separate
 * arrays, and cell_start[c] .. cell_start[c + 1] the points of cell c.
 *
 * Crowded cells (more than GEMST_CROWDED points, where the input is skewed)
 * carry a grid of their own, fitted to their points' box (grid/subgrid.h):
 * their points are sorted by sub-cell within the cell's range, so that the
 * searches descend into them instead of scanning every point.  A sub-cell
 * that is crowded in turn (more than GEMST_NEST_CROWDED points: a cluster
 * much smaller than its crowded cell) gets a grid of its own the same way,
 * and so on, up to GEMST_NEST_DEPTH grids inside one another.
 *
 * Both kinds are uniform cell grids (gemst_cells).  Cell c along an axis
 * covers [lo(c), lo(c + 1)) with lo(c) = origin + c * L rounded in the
 * working precision (the main grid's origin is the low corner of the box it
 * covers: the working box's, 0 in float precision (grid_plan.h), or in a
 * partitioned solve its part's).  A point's cell is
 * computed so that this holds exactly for its rounded coordinate, on both
 * backends; every lower bound derived from cell faces is then sound.
 */
#ifndef GEMST_GRID_H
#define GEMST_GRID_H

#include "real.h"
#include "grid/grid_plan.h"

/* Sub-cells of more points than this get a grid of their own (nested in
 * their crowded cell's).  Their grids are planned for a few points per
 * cell over their points' box, so only a cluster far denser than its
 * surroundings (the tiny blobs of the blobs set: tens of thousands of
 * points in a few sub-cells of a crowded cell, whose box a few points of
 * noise stretch) crowds a sub-cell this much.  H100, blobs 3D 1e7 points,
 * device ms: 95.7 without nested grids, 82.5 nesting from 128 points, 85.8
 * from 64 (compiled for 3 blocks per SM rather than 4, which alone cost
 * 2 ms); iterations 1-3, whose longest searches crossed such sub-cells,
 * 12.3 -> 4.7 ms, the static search 37.5 -> 30.6. */
#define GEMST_NEST_CROWDED 128

/* Grids inside one another at most: a crowded main cell's, and nested
 * ones below it.  Each level divides a cell into up to half its point
 * count, so a few levels resolve any density the coordinates can hold. */
#define GEMST_NEST_DEPTH 4

/* A crowded cell's grid: its geometry and where its cell table starts in
 * the grid's sub_start array (cells + 1 entries, point indices). */
#define gemst_subgrid GEMST_FN(gemst_subgrid)
typedef struct {
    gemst_real origin[3];
    gemst_real L, inv_L;
    int32_t nc[3];
    uint32_t table;
} gemst_subgrid;

/* Which cells are crowded, 64 to a word: bit j of word w is cell 64 w + j,
 * and rank the crowded cells before the word, so that a crowded cell's
 * index among them costs two loads. */
typedef struct {
    uint64_t bits;
    uint32_t rank;
} gemst_crowd_word;

#define gemst_grid GEMST_FN(gemst_grid)
typedef struct {
    int dim;
    int32_t nc[3];
    gemst_real origin[3];         /* the low corner of cell (0, 0, 0) */
    gemst_real L, inv_L;
    double unit;                  /* (coordinate - origin) * unit lies in [0, 1] (Morton codes) */
    uint32_t n;                   /* points in the grid */
    const uint32_t *cell_start;   /* cells + 1 entries */
    const gemst_real *x, *y, *z;  /* z is NULL in 2D */
    const uint32_t *oid;          /* caller's id of each point */
    uint32_t crowded;             /* cells of more points than this are crowded */
    uint32_t n_sub;               /* grids of crowded cells and sub-cells, the n_top of main cells first */
    uint32_t n_top;               /* crowded main cells */
    const uint32_t *sub_cell;     /* each grid's cell: a main cell (the first n_top, ascending), else a
                                     sub-cell's position in sub_start (ascending) */
    const gemst_crowd_word *crowd; /* the crowded main cells as a bitmap over the cells */
    const gemst_subgrid *sub;     /* the grids, in sub_cell's order */
    const uint32_t *sub_start;    /* their cell tables, one after another */
    const gemst_crowd_word *nest; /* the nested sub-cells as a bitmap over sub_start (grid n_top + rank);
                                     NULL when there are none */
    const gemst_real *core2;      /* each point's squared core distance when the tree is HDBSCAN*'s
                                     (nns/edge_length.h); NULL for the Euclidean tree */
} gemst_grid;

/* One uniform grid of cells, the main grid or a crowded cell's. */
#define gemst_cells GEMST_FN(gemst_cells)
typedef struct {
    int dim;
    gemst_real origin[3];
    gemst_real L, inv_L;
    int32_t nc[3];
    const uint32_t *start;        /* first point of each cell, cells + 1 entries */
} gemst_cells;

static inline GEMST_HD void GEMST_FN(gemst_top_cells)(const gemst_grid *g, gemst_cells *cg)
{
    cg->dim = g->dim;
    for (int d = 0; d < 3; d++) {
        cg->origin[d] = g->origin[d];
        cg->nc[d] = g->nc[d];
    }
    cg->L = g->L;
    cg->inv_L = g->inv_L;
    cg->start = g->cell_start;
}

/* The grid of the k-th crowded cell. */
static inline GEMST_HD void GEMST_FN(gemst_sub_cells)(const gemst_grid *g, uint32_t k, gemst_cells *cg)
{
    const gemst_subgrid *s = &g->sub[k];
    cg->dim = g->dim;
    for (int d = 0; d < 3; d++) {
        cg->origin[d] = s->origin[d];
        cg->nc[d] = s->nc[d];
    }
    cg->L = s->L;
    cg->inv_L = s->inv_L;
    cg->start = g->sub_start + s->table;
}

/* Whether bit k of a cell bitmap is set. */
static inline GEMST_HD int gemst_crowd_bit(const gemst_crowd_word *crowd, uint64_t k)
{
    return (int)((crowd[k / 64].bits >> (k % 64)) & 1);
}

/* Which crowded cell `cell` is (its rank in the bitmap); it must be one. */
static inline GEMST_HD uint32_t gemst_crowded_index(const gemst_crowd_word *crowd, uint32_t cell)
{
    const gemst_crowd_word w = crowd[cell / 64];
    const uint64_t below = w.bits & (((uint64_t)1 << (cell % 64)) - 1);
#ifdef __CUDA_ARCH__
    return w.rank + (uint32_t)__popcll(below);
#else
    return w.rank + (uint32_t)__builtin_popcountll(below);
#endif
}

/* The grid of the sub-cell at position t of sub_start, or -1 when it has
 * none. */
static inline GEMST_HD int32_t GEMST_FN(gemst_nested_index)(const gemst_grid *g, uint32_t t)
{
    return g->nest && gemst_crowd_bit(g->nest, t) ? (int32_t)(g->n_top + gemst_crowded_index(g->nest, t)) : -1;
}

/* The points [*b, *e) of grid k's cell: a main cell or a sub-cell. */
static inline GEMST_HD void GEMST_FN(gemst_sub_range)(const gemst_grid *g, uint32_t k, uint32_t *b, uint32_t *e)
{
    const uint32_t *start = k < g->n_top ? g->cell_start : g->sub_start;
    *b = start[g->sub_cell[k]];
    *e = start[g->sub_cell[k] + 1];
}

/* Words of the crowded-cell bitmap for a grid of `cells` cells. */
static inline GEMST_HD uint64_t gemst_crowd_words(uint64_t cells)
{
    return cells / 64 + 1;
}

/* Low face of cell c along axis d. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_cell_lo)(const gemst_cells *cg, int d, int32_t c)
{
    return GEMST_ADD(cg->origin[d], GEMST_MUL((gemst_real)c, cg->L));
}

/* The cell holding coordinate v along axis d; a v outside the grid gets the
 * nearest cell. */
static inline GEMST_HD int32_t GEMST_FN(gemst_cell_of)(const gemst_cells *cg, int d, gemst_real v)
{
    const int32_t nc = cg->nc[d];
    gemst_real guess = GEMST_MUL(GEMST_SUB(v, cg->origin[d]), cg->inv_L);
    int32_t c = !(guess > (gemst_real)0) ? 0 : guess >= (gemst_real)nc ? nc - 1 : (int32_t)guess;
    while (c > 0 && v < GEMST_FN(gemst_cell_lo)(cg, d, c))
        c--;
    while (c < nc - 1 && v >= GEMST_FN(gemst_cell_lo)(cg, d, c + 1))
        c++;
    return c;
}

static inline GEMST_HD uint32_t gemst_cell_index(const int32_t nc[3], int32_t cx, int32_t cy, int32_t cz)
{
    return (uint32_t)cx + (uint32_t)nc[0] * ((uint32_t)cy + (uint32_t)nc[1] * (uint32_t)cz);
}

/* The cell of coordinate v along axis d, or one next to it: a cheap
 * estimate for trimming searches, not for assigning points.  v may lie off
 * the grid. */
static inline GEMST_HD int32_t GEMST_FN(gemst_cell_guess)(const gemst_cells *cg, int d, gemst_real v)
{
    gemst_real guess = GEMST_MUL(GEMST_SUB(v, cg->origin[d]), cg->inv_L);
    if (!(guess > (gemst_real)0))
        return 0;
    return guess >= (gemst_real)cg->nc[d] ? cg->nc[d] - 1 : (int32_t)guess;
}

/* Cell coordinates of the point at p (p[2] is ignored in 2D): its cell, or
 * the nearest one when it lies outside the grid. */
static inline GEMST_HD void GEMST_FN(gemst_cell_coords)(const gemst_cells *cg, const gemst_real p[3], int32_t c[3])
{
    c[0] = GEMST_FN(gemst_cell_of)(cg, 0, p[0]);
    c[1] = GEMST_FN(gemst_cell_of)(cg, 1, p[1]);
    c[2] = cg->dim == 3 ? GEMST_FN(gemst_cell_of)(cg, 2, p[2]) : 0;
}

/* The main grid's origin (the low corner lo of the box it covers, in working
 * units), Morton unit, working-precision cell side and cell counts from the
 * frame and a plan, such that the last cell of each axis reaches beyond the
 * box's high corner hi in the working precision.  The box is the frame's
 * (f->lo, f->hi), or in a partitioned solve a part's within the whole set's
 * frame. */
static inline void GEMST_FN(gemst_grid_fit)(gemst_grid *g, const gemst_frame *f, const gemst_grid_plan *plan,
                                          const double lo[3], const double hi[3])
{
    gemst_cells cg;
    g->dim = plan->dim;
    g->L = (gemst_real)plan->L;
    g->inv_L = (gemst_real)(1.0 / (double)g->L);
    g->unit = f->unit;
    for (int d = 0; d < 3; d++) {
        g->nc[d] = plan->nc[d];
        g->origin[d] = (gemst_real)lo[d];
    }
    GEMST_FN(gemst_top_cells)(g, &cg);
    for (int d = 0; d < plan->dim; d++)
        while (g->nc[d] < INT32_MAX && GEMST_FN(gemst_cell_lo)(&cg, d, g->nc[d]) <= (gemst_real)hi[d])
            cg.nc[d] = ++g->nc[d];
}

/* The crowding threshold (gemst_grid.crowded) for option value v (0: the
 * default). */
static inline uint32_t gemst_crowded_threshold(int64_t v)
{
    return v <= 0 ? GEMST_CROWDED : v < (int64_t)UINT32_MAX ? (uint32_t)v : UINT32_MAX;
}

static inline uint64_t gemst_grid_cells(const int32_t nc[3])
{
    return (uint64_t)nc[0] * (uint64_t)nc[1] * (uint64_t)nc[2];
}

#endif
