/*
 * The static search's block: the cells of rings 0 and 1 around a query's
 * cell (3 x 3 x 3 in 3D, 3 x 3 in 2D) in a grid of cells, the main one or
 * a crowded cell's.  The block is the same for every point of a cell, and
 * it is at most 9 rows of cells, each one contiguous range of points, so
 * that its points can be offered to a query's list of nearest points
 * (gemst_knn) with none of the ring walk's bookkeeping (bounds, trims,
 * clips, descents into crowded cells, per range).  When what lies outside
 * the block is farther than the list's K-th point, the list is the query's
 * K nearest, as gemst_knn finds them: the lists hold the K nearest in edge
 * order, whatever order the points come in (test_grid checks both against
 * a brute force).
 *
 * On the CPU the points of a cell share its block's rows; on the GPU the
 * threads of a warp run one loop over their blocks' rows, where the ring
 * walk's branches left most of a warp's threads idle (ncu, H200, uniform
 * 3D 1e7 points: 10.7 of 32 threads of a warp active on average).
 */
#ifndef GEMST_BLOCK_H
#define GEMST_BLOCK_H

#include "nns/search.h"
#include "grid/subgrid.h"

/* Rows of a block at most: 3 x 3 in 3D, 3 in 2D. */
#define GEMST_BLOCK_ROWS 9

static inline GEMST_HD int gemst_block_rows_in(int dim)
{
    return dim == 3 ? GEMST_BLOCK_ROWS : 3;
}

/*
 * The rows of the block around cell c of grid cg into [b[k], e[k]) (row k
 * is y = c[1] + k % 3 - 1, and in 3D z = c[2] + k / 3 - 1; rows outside
 * the grid are empty).  Returns how many points the block holds, or
 * UINT32_MAX when a row holds more than `limit` (it may hold a crowded
 * cell, or a nested sub-cell, which only the walk searches through its own
 * grid).
 */
static inline GEMST_HD uint32_t GEMST_FN(gemst_block_rows)(const gemst_cells *cg, const int32_t c[3], uint32_t limit,
                                                         uint32_t b[GEMST_BLOCK_ROWS], uint32_t e[GEMST_BLOCK_ROWS])
{
    const int32_t xa = c[0] > 0 ? c[0] - 1 : 0, xb = c[0] < cg->nc[0] - 1 ? c[0] + 1 : cg->nc[0] - 1;
    uint32_t total = 0;
    int over = 0;
    GEMST_UNROLL
    for (int k = 0; k < GEMST_BLOCK_ROWS; k++) {
        const int32_t y = c[1] + k % 3 - 1, z = cg->dim == 3 ? c[2] + k / 3 - 1 : 0;
        b[k] = e[k] = 0;
        if (k >= gemst_block_rows_in(cg->dim) || y < 0 || y >= cg->nc[1] || z < 0 || z >= cg->nc[2])
            continue;
        b[k] = cg->start[gemst_cell_index(cg->nc, xa, y, z)];
        e[k] = cg->start[gemst_cell_index(cg->nc, xb, y, z) + 1];
        total += e[k] - b[k];
        over |= e[k] - b[k] > limit;
    }
    return over ? UINT32_MAX : total;
}

/* The row length beyond which a row of the main grid may hold a crowded
 * cell (gemst_block_rows' limit there). */
static inline GEMST_HD uint32_t GEMST_FN(gemst_main_row_limit)(const gemst_grid *g)
{
    return g->n_sub > 0 ? g->crowded : UINT32_MAX;
}

/* The query's list of its K nearest points (gemst_knn) among the block's
 * rows [b[k], e[k]); returns how many it holds. */
static inline GEMST_HD int GEMST_FN(gemst_block_knn)(const gemst_grid *g, const gemst_query *qq, int K,
                                                   const uint32_t b[GEMST_BLOCK_ROWS],
                                                   const uint32_t e[GEMST_BLOCK_ROWS], gemst_real kd2[GEMST_KNN],
                                                   uint32_t kid[GEMST_KNN])
{
    int count = 0;
    GEMST_FN(gemst_knn_clear)(kd2, kid);
    GEMST_UNROLL
    for (int k = 0; k < GEMST_BLOCK_ROWS; k++)
        for (uint32_t p = b[k]; p < e[k]; p++)
            GEMST_FN(gemst_knn_offer)(g, qq, K, GEMST_FN(gemst_dist2_q)(g, qq, p), p, kd2, kid, &count);
    return count;
}

/* Whether nothing outside a block can enter a list whose K-th squared
 * distance is kd2_k, lb2 being the lower bound of what lies outside. */
static inline GEMST_HD int GEMST_FN(gemst_block_done)(gemst_real lb2, gemst_real kd2_k)
{
    return lb2 == GEMST_REAL_INF || lb2 > kd2_k;
}

/*
 * The grid whose block a query searches, for the GPU's block pass: its
 * main cell's, or when that cell is crowded, the cell's own grid (and then
 * the query's sub-cell in it).  Writes the grid to *cg and the query's cell
 * in it to c; *limit is the row length beyond which a row may hold a cell
 * with a grid of its own; *lb_out is a lower bound on the squared distance
 * to every point outside that grid (outside the crowded cell: the main
 * grid's ring 0 around it; infinity for the main grid).
 */
static inline GEMST_HD void GEMST_FN(gemst_block_grid)(const gemst_grid *g, const gemst_query *qq, gemst_cells *cg,
                                                     int32_t c[3], uint32_t *limit, gemst_real *lb_out)
{
    GEMST_FN(gemst_top_cells)(g, cg);
    for (int d = 0; d < 3; d++)
        c[d] = qq->c[d];
    *limit = GEMST_FN(gemst_main_row_limit)(g);
    *lb_out = GEMST_REAL_INF;
    if (g->n_sub == 0)
        return;
    const uint32_t cell = gemst_cell_index(g->nc, qq->c[0], qq->c[1], qq->c[2]);
    if (g->cell_start[cell + 1] - g->cell_start[cell] <= g->crowded)
        return;
    *lb_out = GEMST_FN(gemst_ring_outer_lb2)(cg, qq->q, qq->q, qq->c, 0);
    GEMST_FN(gemst_sub_cells)(g, gemst_crowded_index(g->crowd, cell), cg);
    GEMST_FN(gemst_cell_coords)(cg, qq->q, c);
    *limit = g->nest ? GEMST_NEST_CROWDED : UINT32_MAX;
}

/* Blocks of more points than this are left to the walk by the GPU's block
 * pass: the block's scan costs each of its points, the walk only those
 * near the query (H200, 1e7 points, static search ms with a limit of 160 /
 * 320: uniform 3D 5.10 / 5.10, normal 3D 9.77 / 9.71; blobs 3D 1e6 3.53 /
 * 3.80). */
#define GEMST_BLOCK_MAX_POINTS 160

/* Whether the GPU's block pass pays on a main grid planned for `occupancy`
 * points per cell, with cells crowded from `crowded` points: a block is
 * 3^dim cells of that occupancy, or of GEMST_SUB_OCCUPANCY where the main
 * cells are planned crowded (their own grids hold the blocks).  Blocks of
 * more than GEMST_BLOCK_MAX_POINTS go to the walk, so where the typical
 * block is that large, the pass costs every point and settles few.  H200,
 * 1e7 points, static search ms with / without the pass: varden 3D (cells
 * of 24; 20% settled) 19.35 / 17.53, uniform 3D with cells of 6 or 8
 * points 9.26 / 7.41 and 8.24 / 7.77, uniform 2D with 24 6.11 / 5.84. */
static inline int gemst_block_pass_pays(int dim, double occupancy, uint32_t crowded)
{
    const double per_cell = occupancy > (double)crowded ? GEMST_SUB_OCCUPANCY : occupancy;
    return per_cell * (dim == 3 ? 27.0 : 9.0) <= (double)GEMST_BLOCK_MAX_POINTS;
}

/* The GPU's block pass for one query (gemst_knn's result from the block of
 * gemst_block_grid): returns how many nearest points it wrote to kd2/kid,
 * or -1 when the block cannot settle them (a row that may hold a grid of
 * its own, more than max_points points, or a nearer point possibly outside
 * the block) and the query needs the walk. */
static inline GEMST_HD int GEMST_FN(gemst_block_search)(const gemst_grid *g, const gemst_query *qq, int K,
                                                      uint32_t max_points, gemst_real kd2[GEMST_KNN],
                                                      uint32_t kid[GEMST_KNN])
{
    gemst_cells cg;
    int32_t c[3];
    uint32_t limit, b[GEMST_BLOCK_ROWS], e[GEMST_BLOCK_ROWS];
    gemst_real lb_out;
    GEMST_FN(gemst_block_grid)(g, qq, &cg, c, &limit, &lb_out);
    if (GEMST_FN(gemst_block_rows)(&cg, c, limit, b, e) > max_points)
        return -1;
    const int count = GEMST_FN(gemst_block_knn)(g, qq, K, b, e, kd2, kid);
    const gemst_real lb2 = GEMST_FN(gemst_ring_outer_lb2)(&cg, qq->q, qq->q, c, 1);
    return GEMST_FN(gemst_block_done)(lb_out < lb2 ? lb_out : lb2, kd2[K - 1]) ? count : -1;
}

#endif
