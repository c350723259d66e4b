/*
 * Component labels of blocks of cells (precision-generic, see real.h): a
 * coarse grid over the main grid, each block side x side cells (side x side
 * in 2D), labelled with the one component all its points lie in, or empty,
 * or mixed.
 *
 * Once clusters have merged, most fallback searches (nns/cell_fallback.h)
 * find nothing: the point lies inside its component, whose shortest
 * outgoing edge is long, and every cell within that length holds only its
 * own component's points or none.  The fallback's ring walk proves that
 * ring by ring, a row of cells at a time.  The labels prove it a block at a
 * time: when every block within the bound of a point (or of a chunk's cell)
 * is empty or its own component's, nothing of another component lies
 * within the bound, and the search is not needed.  A mixed or foreign
 * block is looked into cell by cell; a cell within the bound that holds
 * another component's point ends the proof, and the search runs as
 * before.  The proof changes no result, only which searches run.
 */
#ifndef GEMST_BLOCK_LABELS_H
#define GEMST_BLOCK_LABELS_H

#include "nns/cell_fallback.h"

#define GEMST_BLOCK_EMPTY 0xFFFFFFFFu
#define GEMST_BLOCK_MIXED 0xFFFFFFFEu

#define gemst_block_labels GEMST_FN(gemst_block_labels)
typedef struct {
    int32_t side;          /* cells per block along each axis of the grid */
    int32_t nb[3];         /* blocks along each axis (1 along z in 2D) */
    const uint32_t *label; /* each block's label, blocks in row-major order */
    const uint32_t *comp;  /* the components they were labelled from, by grid point */
    const uint32_t *breaks; /* and their breaks (nns/walk.h) */
} gemst_block_labels;

/* Cells per block side: a block holds about as many points as a fallback
 * chunk (GEMST_CHUNK) at the grid's mean occupancy, so that one label
 * stands for about the points one chunk search serves. */
static inline GEMST_HD int32_t gemst_block_side(uint32_t points, uint64_t cells, int dim)
{
    const double side = pow((double)GEMST_CHUNK * (double)cells / (double)(points ? points : 1), 1.0 / dim);
    return side < 1.5 ? 1 : (int32_t)(side + 0.5);
}

/* Blocks per axis for a grid of nc cells per axis. */
static inline GEMST_HD void gemst_block_counts(const int32_t nc[3], int dim, int32_t side, int32_t nb[3])
{
    for (int d = 0; d < 3; d++)
        nb[d] = d < dim ? (nc[d] + side - 1) / side : 1;
}

/* The label of block (bx, by, bz): the component of all its points, empty,
 * or mixed.  Rows of cells along x are contiguous point ranges; breaks
 * (nns/walk.h) tells in O(1) whether a range holds one component. */
static inline GEMST_HD uint32_t GEMST_FN(gemst_block_label)(const gemst_grid *g, const uint32_t *breaks,
                                                          const uint32_t *comp, int32_t side, int32_t bx,
                                                          int32_t by, int32_t bz)
{
    const int32_t x0 = bx * side, x1 = x0 + side < g->nc[0] ? x0 + side : g->nc[0];
    const int32_t y0 = by * side, y1 = y0 + side < g->nc[1] ? y0 + side : g->nc[1];
    const int32_t z0 = g->dim == 3 ? bz * side : 0;
    const int32_t z1 = g->dim == 3 ? (z0 + side < g->nc[2] ? z0 + side : g->nc[2]) : 1;
    uint32_t label = GEMST_BLOCK_EMPTY;
    for (int32_t z = z0; z < z1; z++)
        for (int32_t y = y0; y < y1; y++) {
            const uint32_t b = g->cell_start[gemst_cell_index(g->nc, x0, y, z)];
            const uint32_t e = g->cell_start[gemst_cell_index(g->nc, x1 - 1, y, z) + 1];
            if (b == e)
                continue;
            if (breaks[b] != breaks[e - 1] || (label != GEMST_BLOCK_EMPTY && comp[b] != label))
                return GEMST_BLOCK_MIXED;
            label = comp[b];
        }
    return label;
}

/* Gap along axis d between [lo, hi] and block k's cells (0 where they
 * meet), from the faces of its first and last cells as gemst_axis_gap. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_block_gap)(const gemst_cells *top, const gemst_block_labels *bl,
                                                          int d, gemst_real lo, gemst_real hi, int32_t k)
{
    const gemst_real below = GEMST_FN(gemst_cell_lo)(top, d, k * bl->side);
    if (hi < below)
        return GEMST_SUB(below, hi);
    const gemst_real above = GEMST_FN(gemst_cell_lo)(top, d, (k + 1) * bl->side);
    if (lo > above)
        return GEMST_SUB(lo, above);
    return (gemst_real)0;
}

/* Whether the cells of block (bx, by, bz) that may lie within squared
 * distance cut of [lo, hi] hold only comp_q's points or none: a mixed or
 * foreign block near the bound's edge, resolved a cell at a time (each
 * cell's row segment in O(1) by the breaks). */
static inline GEMST_HD int GEMST_FN(gemst_block_cells_own)(const gemst_grid *g, const gemst_cells *top,
                                                         const gemst_block_labels *bl, uint32_t comp_q,
                                                         const gemst_real lo[3], const gemst_real hi[3],
                                                         gemst_real cut, int32_t bx, int32_t by, int32_t bz)
{
    const int32_t s = bl->side;
    const int32_t x1 = bx * s + s < g->nc[0] ? bx * s + s : g->nc[0];
    const int32_t y1 = by * s + s < g->nc[1] ? by * s + s : g->nc[1];
    const int32_t z0 = g->dim == 3 ? bz * s : 0;
    const int32_t z1 = g->dim == 3 ? (z0 + s < g->nc[2] ? z0 + s : g->nc[2]) : 1;
    for (int32_t z = z0; z < z1; z++) {
        const gemst_real gz = g->dim == 3 ? GEMST_FN(gemst_axis_gap)(top, 2, lo[2], hi[2], z) : (gemst_real)0;
        const gemst_real z2 = GEMST_MUL(gz, gz);
        for (int32_t y = by * s; y < y1; y++) {
            const gemst_real gy = GEMST_FN(gemst_axis_gap)(top, 1, lo[1], hi[1], y);
            const gemst_real yz2 = GEMST_ADD(GEMST_MUL(gy, gy), z2);
            if (GEMST_MUL(yz2, GEMST_LB_SHRINK) > cut)
                continue;
            for (int32_t x = bx * s; x < x1; x++) {
                const gemst_real gx = GEMST_FN(gemst_axis_gap)(top, 0, lo[0], hi[0], x);
                if (GEMST_MUL(GEMST_ADD(GEMST_MUL(gx, gx), yz2), GEMST_LB_SHRINK) > cut)
                    continue;
                const uint32_t cell = gemst_cell_index(g->nc, x, y, z);
                const uint32_t b = g->cell_start[cell], e = g->cell_start[cell + 1];
                if (b != e && !gemst_own_range(bl->breaks, bl->comp, comp_q, b, e))
                    return 0;
            }
        }
    }
    return 1;
}

/* Whether the blocks of one row along x (labels row) that may lie within
 * squared distance cut of [lo, hi], given the row's squared y/z gap yz2,
 * are all empty or comp_q's.  The walk goes out both ways from block k0,
 * which holds lo[0], nearest first, and stops where the gap passes the
 * bound: the gap grows with every block outwards. */
static inline GEMST_HD int GEMST_FN(gemst_block_row_own)(const gemst_grid *g, const gemst_cells *top,
                                                       const gemst_block_labels *bl, uint32_t comp_q,
                                                       const gemst_real lo[3], const gemst_real hi[3],
                                                       gemst_real cut, const int32_t k0[3], int32_t by, int32_t bz,
                                                       gemst_real yz2)
{
    const uint32_t *row = bl->label + (size_t)bl->nb[0] * ((size_t)by + (size_t)bl->nb[1] * (size_t)bz);
    for (int32_t dir = -1; dir <= 1; dir += 2)
        for (int32_t x = dir < 0 ? k0[0] : k0[0] + 1; x >= 0 && x < bl->nb[0]; x += dir) {
            const gemst_real gx = GEMST_FN(gemst_block_gap)(top, bl, 0, lo[0], hi[0], x);
            if (GEMST_MUL(GEMST_ADD(GEMST_MUL(gx, gx), yz2), GEMST_LB_SHRINK) > cut)
                break;
            if (row[x] != GEMST_BLOCK_EMPTY && row[x] != comp_q &&
                !GEMST_FN(gemst_block_cells_own)(g, top, bl, comp_q, lo, hi, cut, x, by, bz))
                return 0;
        }
    return 1;
}

/* Whether the labels prove that no point of another component than comp_q
 * lies within squared distance cut of the box [lo, hi] (a point, or a cell
 * of the main grid): every block that may lie that near is empty or
 * comp_q's, or else every cell of it that may lie that near.  Rows and
 * planes of blocks are walked out from the box's block as
 * gemst_block_row_own walks a row. */
static inline GEMST_HD int GEMST_FN(gemst_block_proof)(const gemst_grid *g, const gemst_block_labels *bl,
                                                     uint32_t comp_q, const gemst_real lo[3],
                                                     const gemst_real hi[3], gemst_real cut)
{
    if (!(cut < GEMST_REAL_INF))
        return 0;
    gemst_cells top;
    GEMST_FN(gemst_top_cells)(g, &top);
    int32_t k0[3];
    GEMST_FN(gemst_cell_coords)(&top, lo, k0);
    for (int d = 0; d < 3; d++)
        k0[d] /= bl->side;
    for (int32_t dz = -1; dz <= 1; dz += 2)
        for (int32_t z = dz < 0 ? k0[2] : k0[2] + 1; z >= 0 && z < bl->nb[2]; z += dz) {
            const gemst_real gz = g->dim == 3 ? GEMST_FN(gemst_block_gap)(&top, bl, 2, lo[2], hi[2], z) : (gemst_real)0;
            const gemst_real z2 = GEMST_MUL(gz, gz);
            if (GEMST_MUL(z2, GEMST_LB_SHRINK) > cut)
                break;
            for (int32_t dy = -1; dy <= 1; dy += 2)
                for (int32_t y = dy < 0 ? k0[1] : k0[1] + 1; y >= 0 && y < bl->nb[1]; y += dy) {
                    const gemst_real gy = GEMST_FN(gemst_block_gap)(&top, bl, 1, lo[1], hi[1], y);
                    const gemst_real yz2 = GEMST_ADD(GEMST_MUL(gy, gy), z2);
                    if (GEMST_MUL(yz2, GEMST_LB_SHRINK) > cut)
                        break;
                    if (!GEMST_FN(gemst_block_row_own)(g, &top, bl, comp_q, lo, hi, cut, k0, y, z, yz2))
                        return 0;
                }
        }
    return 1;
}

/* Whether the labels settle list[a]'s fallback task (nns/cell_fallback.h)
 * without a search: nothing of another component lies within its
 * component's bound of the point, or of the chunk's cell.  With static
 * pruning the point's bound (each of the chunk's) then rises to that bound,
 * as the search would raise it. */
static inline GEMST_HD int GEMST_FN(gemst_fallback_proved)(const gemst_grid *g, const gemst_findmin1_state *st,
                                                         const gemst_block_labels *bl, gemst_word1 *w1,
                                                         const uint32_t *win_in, const uint32_t *win_out,
                                                         const uint32_t *list, uint32_t a, int task)
{
    const uint32_t q = list[a], r = st->comp[q];
    const gemst_edge_key first = GEMST_FN(gemst_first_edge)(g, win_in, win_out, r);
    const gemst_real cut = GEMST_FN(gemst_share_bound)(&w1[r], &first, 0);
    gemst_real lo[3], hi[3];
    uint32_t pb = q, pe = q + 1;
    if (task == GEMST_TASK_CHUNK) {
        int32_t c[3];
        uint32_t b, e;
        gemst_cells top;
        GEMST_FN(gemst_point_chunk)(g, q, c, &b, &e, &pb, &pe);
        GEMST_FN(gemst_top_cells)(g, &top);
        for (int d = 0; d < 3; d++) {
            lo[d] = d < g->dim ? GEMST_FN(gemst_cell_lo)(&top, d, c[d]) : (gemst_real)0;
            hi[d] = d < g->dim ? GEMST_FN(gemst_cell_lo)(&top, d, c[d] + 1) : (gemst_real)0;
        }
    } else {
        GEMST_FN(gemst_point_at)(g, q, lo);
        GEMST_FN(gemst_point_at)(g, q, hi);
    }
    if (!GEMST_FN(gemst_block_proof)(g, bl, r, lo, hi, cut))
        return 0;
    if (st->prune == GRIDEMST_PRUNE_STATIC)
        for (uint32_t p = pb; p < pe; p++)
            if (cut > st->rb2[p])
                st->rb2[p] = cut;
    return 1;
}

#endif
