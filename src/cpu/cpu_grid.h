/*
 * The CPU backend's grid (precision-generic, see real.h): unique points in
 * cell order with the cell table, and the zero-length edges joining each
 * exact duplicate to its representative (the equal point of smallest id).
 * For the BVH (options.nns) the same build sorts the points by the top bits
 * of their Morton codes instead of by cell, only to find the duplicates (the
 * BVH orders the unique points itself); there are no cells (g has no cell
 * table, stats->cells is 0).
 */
#ifndef GEMST_CPU_GRID_H
#define GEMST_CPU_GRID_H

#include "backend.h"
#include "grid/grid.h"

#define gemst_cpu_grid GEMST_FN(gemst_cpu_grid)
typedef struct {
    gemst_frame frame;
    gemst_grid g;                 /* views the arrays below */
    uint32_t nu;                  /* unique points */
    gemst_real *x, *y, *z;        /* z is NULL in 2D */
    uint32_t *oid, *cell_start;   /* cell_start: NULL for the BVH */
    uint32_t *sub_cell, *sub_start; /* crowded cells and their grids (grid.h) */
    gemst_crowd_word *crowd, *nest;
    gemst_subgrid *sub;
    uint32_t n_dup;               /* duplicate points */
    uint32_t *dup_lo, *dup_hi;    /* representative id, duplicate id */
} gemst_cpu_grid;

/* Builds the grid of pb's points with `threads` OpenMP threads; fills
 * stats->cells, crowded_cells, n_unique and n_duplicates. */
int GEMST_FN(gemst_cpu_grid_build)(const gemst_problem *pb, int threads, gemst_cpu_grid *cg, gridemst_stats *stats,
                                   gridemst_error *err);
void GEMST_FN(gemst_cpu_grid_free)(gemst_cpu_grid *cg);

#endif
