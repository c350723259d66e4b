/*
 * What the CUDA backend's kernels share, precision-generic (see real.h):
 * the launches' thread indexes, the grid searches' instances, and a few
 * generic kernels (iota, gather, scatter).  The kernels themselves are
 * with the steps that launch them, each a thin loop over points or roots
 * around the per-point functions the CPU backend calls too (grid/, nns/,
 * bvh/, graph/): cuda_grid_kernels.cuh, cuda_subgrid.cuh, cuda_bvh.cuh,
 * cuda_search.cuh, cuda_boruvka_steps.cuh, cuda_boruvka.cuh,
 * cuda_late_bvh.cuh, cuda_core.cuh, cuda_tree_out.cuh.
 */
#ifndef GEMST_CUDA_KERNELS_CUH
#define GEMST_CUDA_KERNELS_CUH

#include <cub/cub.cuh>

#include "cuda/cuda_common.cuh"
#include "real.h"

/* A list whose length is known on the device only: threads past *count
 * return.  Launches are sized by a host-side upper bound. */
#define GEMST_LIST_INDEX(a, count)                                                                                \
    uint32_t a = blockIdx.x * blockDim.x + threadIdx.x;                                                          \
    if (a >= (uint32_t)*(count))                                                                                  \
        return;

/* The same, where the list is often far shorter than its bound: a launch of
 * the blocks the device runs at once (gemst_list_blocks), each thread
 * striding over the list, rather than one of blocks for the bound, most of
 * which would start only to return. */
#define GEMST_LIST_LOOP(a, count)                                                                                 \
    for (uint32_t a = blockIdx.x * blockDim.x + threadIdx.x, a##_end_ = (uint32_t)*(count); a < a##_end_;       \
         a += gridDim.x * blockDim.x)

#define GEMST_INDEX(i, n)                                                                                         \
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;                                                          \
    if (i >= (n))                                                                                                 \
        return;

/* The grid searches come in three instances (CROWDED, which
 * crowded_instance in cuda_state.cuh picks): with the crowded cells' path
 * of nns/walk.h and its nested grids (2), with the crowded cells' path
 * alone (1), and without it for grids that have no crowded cell (0).
 * There n_sub becomes the constant 0, or nest NULL, and the compiler drops
 * the path, which even unused slows the searches: the crowded path by 13%
 * (H200, normal 3D 1e7 points); the nested one keeps the state of the grids
 * around the innermost (ptxas, 3D static search: 168 bytes of spill stores
 * and a 296-byte stack frame, against 40 and 32 without it). */
#define GEMST_CROWDED_PATH(g, CROWDED)                                                                            \
    ((g).n_sub = (CROWDED) ? (g).n_sub : 0u, (g).nest = (CROWDED) == 2 ? (g).nest : NULL)

/* The two widest searches, the static one and the fallback, also come in
 * one instance per dimension (DIM), where every test of g.dim folds away,
 * and are compiled for more resident blocks of GEMST_THREADS per SM than
 * their registers allowed (the crowded fallback used 104, 2 blocks): H200,
 * 1e7 points, device time of uniform 3D 24.1 -> 23.1 ms, normal 3D 51.0 ->
 * 48.9, blobs 3D 114 -> 99, varden 3D 180 -> 159.  The fallback without the
 * crowded path keeps 3 blocks (72 registers): with 4, normal 3D's
 * iterations were 1.4 ms slower. */
#define GEMST_GRID_INSTANCE(g, DIM, CROWDED) (GEMST_CROWDED_PATH(g, CROWDED), (g).dim = (DIM))
#define GEMST_WIDE_SEARCH_BLOCKS(CROWDED) ((CROWDED) ? 4 : 3)

/* ---------------------------------------------------------------- generic */

static __global__ void GEMST_FN(k_iota)(uint32_t n, uint32_t *out)
{
    GEMST_INDEX(i, n);
    out[i] = i;
}

/* tmp[a] = v[from[a]]: the values in sorted order ... */
template <typename T>
static __global__ void GEMST_FN(k_gather)(uint32_t m, const uint32_t *from, const T *v, T *tmp)
{
    GEMST_INDEX(a, m);
    tmp[a] = v[from[a]];
}

/* ... and back into their places: v[to[a]] = tmp[a]. */
template <typename T>
static __global__ void GEMST_FN(k_scatter)(uint32_t m, const uint32_t *to, const T *tmp, T *v)
{
    GEMST_INDEX(a, m);
    v[to[a]] = tmp[a];
}

#endif
