/*
 * The CPU backend's BVH (precision-generic, see real.h): the build over
 * points in Morton order (the late BVH's, nns/late_bvh.h), the build that
 * rearranges the points in K-d order (nns BVH's, cpu_bvh_kd.inc), and the
 * per-iteration labels and bounds.  The per-index work is in src/bvh/,
 * shared with CUDA; the CPU adds a record per leaf (its box and label,
 * cpu/cpu_bvh_search.h), which its search reads instead of the leaf's
 * points.
 */
#ifndef GEMST_CPU_BVH_H
#define GEMST_CPU_BVH_H

#include "backend.h"
#include "bvh/bvh.h"
#include "graph/edge_order.h"
#include "cpu/cpu_bvh_search.h"

#define gemst_cpu_bvh GEMST_FN(gemst_cpu_bvh)
typedef struct {
    gemst_bvh bvh;
    gemst_cpu_leaf *leaf; /* bvh.n leaf records */
} gemst_cpu_bvh;

/* Builds the BVH of the pts->n >= 2 points of pts, whose Morton codes
 * code[] ascend, in leaves of leaf_size points (at most
 * GEMST_CPU_BVH_LEAF_MAX; fewer where the points would not fill two
 * leaves, more where single points would make more than
 * GEMST_BVH_MAX_LEAVES leaves): code[] is overwritten, code[j] becoming
 * leaf j's, that of its first point.  `threads` OpenMP threads.
 * t->bvh.parent stays allocated: the searches go up from their leaf
 * (cpu_bvh_search.h). */
int GEMST_FN(gemst_cpu_bvh_build)(const gemst_grid *pts, uint64_t *code, uint32_t leaf_size, int threads,
                                  gemst_cpu_bvh *t, gridemst_error *err);
void GEMST_FN(gemst_cpu_bvh_free)(gemst_cpu_bvh *t);

/* The arrays a point view reads, which the K-d build rearranges. */
#define gemst_cpu_point_arrays GEMST_FN(gemst_cpu_point_arrays)
typedef struct {
    gemst_real *x, *y, *z; /* z NULL in 2D */
    uint32_t *oid;
} gemst_cpu_point_arrays;

/* Builds the BVH of the pts->n >= 2 points of pts, whose arrays are
 * `arrays`, over the points in K-d order (cpu_bvh_kd.inc): the points are
 * rearranged in place, so that each leaf's run of leaf_size points (the
 * rule of gemst_cpu_bvh_build) is a cell of a K-d split.  `threads` OpenMP
 * threads. */
int GEMST_FN(gemst_cpu_bvh_build_kd)(const gemst_grid *pts, gemst_cpu_point_arrays arrays, uint32_t leaf_size,
                                     int threads, gemst_cpu_bvh *t, gridemst_error *err);

/* The labels of the tree's internal nodes and leaves for the components
 * comp[] (bvh/labels.h), and in ub[r] for each of the n_roots roots r the
 * shortest edge between neighbours in the points' order (Morton or K-d)
 * of r's component and another (infinity when none); brk holds points
 * entries of scratch. */
void GEMST_FN(gemst_cpu_bvh_labels)(gemst_cpu_bvh *tree, const gemst_grid *pts, const uint32_t *comp,
                                    const uint32_t *roots, uint32_t n_roots, uint32_t *brk, gemst_word1 *ub,
                                    int threads);

#endif
