/*
 * The border step's test of inner points (inner.h) on the host, part by
 * part, as the devices run it (cuda/cuda_parts_border.cu): each part makes
 * the cells of its own points within the round's limit, the parts' cells
 * are merged into the round's, and each part tests its own points against
 * them.  Only the cells (16 bytes each: a key, the least and the greatest
 * component) and the points kept then travel, not every point within the
 * limit.  The merged cells are those of all the points at once (a cell's
 * least and greatest component over every part), so the points kept are
 * the same.
 */
#ifndef GEMST_PARTS_BORDER_CELLS_H
#define GEMST_PARTS_BORDER_CELLS_H

#include "parts/inner.h"

/* Bytes a cell travels as. */
#define GEMST_BORDER_CELL_BYTES (sizeof(uint64_t) + 2 * sizeof(uint32_t))

/* The cells of m points: their cell keys key[] and components comp[]
 * (the keys ascending, each cell's least and greatest component) into
 * *cells, whose arrays the call allocates; on `threads` threads.  Returns
 * 0, or -1 out of host memory. */
int gemst_border_cells_of(const uint64_t *key, const uint32_t *comp, int64_t m, int threads,
                          gemst_inner_cells *cells);

/* The cells of n_parts parts' points merged, as gemst_border_cells_of. */
int gemst_border_cells_merge(const gemst_inner_cells *part, int n_parts, int threads, gemst_inner_cells *merged);

void gemst_border_cells_free(gemst_inner_cells *cells);

/* The cells in a hash table for the test (inner.h), its arrays allocated
 * by the call.  Returns 0, or -1 out of host memory. */
int gemst_border_table_make(const gemst_inner_cells *cells, int threads, gemst_inner_table *table);

void gemst_border_table_free(gemst_inner_table *table);

#endif
