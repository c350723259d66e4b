/*
 * The CPU backend's BVH (precision-generic, see real.h): the build over the
 * grid build's unique points in Morton order, and the per-iteration labels
 * and bounds.  The per-index work is in src/bvh/, shared with CUDA.
 */
#ifndef GEMST_CPU_BVH_H
#define GEMST_CPU_BVH_H

#include "backend.h"
#include "bvh/bvh.h"
#include "graph/edge_order.h"

/* Builds the BVH of the pts->n points of pts (more than leaf_size), whose
 * Morton codes ascend, in leaves of leaf_size points: code[j] is leaf j's,
 * that of its first point.  `threads` OpenMP threads.  b->parent stays
 * allocated (the solver frees it once the boxes are fitted). */
int GEMST_FN(gemst_cpu_bvh_build)(const gemst_grid *pts, const uint64_t *code, uint32_t leaf_size, int threads,
                                  gemst_bvh *b, gridemst_error *err);
void GEMST_FN(gemst_cpu_bvh_free)(gemst_bvh *b);

/* The labels of b's internal nodes for the components comp[] (bvh/labels.h),
 * and in ub[r] for each of the n_roots roots r the shortest edge between
 * Morton neighbours of r's component and another (infinity when none);
 * brk holds b->points entries of scratch. */
void GEMST_FN(gemst_cpu_bvh_labels)(gemst_bvh *b, const gemst_grid *pts, const uint32_t *comp, const uint32_t *roots,
                                    uint32_t n_roots, uint32_t *brk, gemst_word1 *ub, int threads);

#endif
