/*
 * The CUDA backend's kernels, precision-generic (see real.h): each is a thin
 * loop over points or roots around the per-point functions the CPU backend
 * calls too (grid/grid.h, nns/search.h, graph/boruvka.h).
 */
#ifndef GEMST_CUDA_KERNELS_CUH
#define GEMST_CUDA_KERNELS_CUH

#include <cub/cub.cuh>

#include "cuda/cuda_common.cuh"
#include "grid/grid.h"
#include "grid/subgrid.h"
#include "nns/cell_fallback.h"
#include "bvh/bvh_query.h"
#include "bvh/labels.h"
#include "nns/late_bvh.h"
#include "nns/block.h"
#include "cuda/cuda_lone.cuh"

/* A list whose length is known on the device only: threads past *count
 * return.  Launches are sized by a host-side upper bound. */
#define GEMST_LIST_INDEX(a, count)                                                                                \
    uint32_t a = blockIdx.x * blockDim.x + threadIdx.x;                                                          \
    if (a >= (uint32_t)*(count))                                                                                  \
        return;

#define GEMST_INDEX(i, n)                                                                                         \
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;                                                          \
    if (i >= (n))                                                                                                 \
        return;

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

/* ---------------------------------------------------------------- Boruvka */

static __global__ void GEMST_FN(k_init)(uint32_t n, uint32_t *comp, uint32_t *link, uint32_t *active, uint32_t *roots,
                                      uint32_t *best_to, gemst_real *rb2, uint64_t *open, uint64_t all_slabs)
{
    GEMST_INDEX(i, n);
    comp[i] = link[i] = active[i] = roots[i] = i;
    best_to[i] = GEMST_NONE;
    if (rb2)
        rb2[i] = GEMST_REAL_INF;
    if (open)
        open[i] = all_slabs;
}

/* The grid searches come in three instances (CROWDED, gemst_crowded_instance):
 * with the crowded cells' path of nns/walk.h and its nested grids (2), with
 * the crowded cells' path alone (1), and without it for grids that have no
 * crowded cell (0).  There n_sub becomes the constant 0, or nest NULL, and
 * the compiler drops the path, which even unused slows the searches: the
 * crowded path by 13% (H200, normal 3D 1e7 points); the nested one keeps
 * the state of the grids around the innermost (ptxas, 3D static search:
 * 168 bytes of spill stores and a 296-byte stack frame, against 40 and 32
 * without it). */
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

/* Static pruning's search, first pass (nns/block.h): each point's K
 * nearest from the block of its cell in its grid, the main one or its
 * crowded cell's; hard[i] = 1 for the points this cannot settle, which
 * k_static_prepare searches in full. */
template <int DIM>
static __global__ void __launch_bounds__(GEMST_THREADS, 4)
    GEMST_FN(k_static_block)(gemst_grid g, uint32_t *cand, uint8_t *ncand, gemst_real *rb2, uint8_t *hard)
{
    GEMST_INDEX(i, g.n);
    g.dim = DIM;
    gemst_query qq;
    gemst_real kd2[GEMST_KNN];
    uint32_t kid[GEMST_KNN];
    const int K = gemst_knn_k(DIM);
    GEMST_FN(gemst_query_make)(&g, i, &qq);
    const int count = GEMST_FN(gemst_block_search)(&g, &qq, K, GEMST_BLOCK_MAX_POINTS, kd2, kid);
    hard[i] = count < 0;
    if (count >= 0)
        ncand[i] = (uint8_t)GEMST_FN(gemst_static_candidates)(&g, &qq, K, kd2, kid, count,
                                                             cand + (size_t)i * GEMST_CAND_SLOTS, &rb2[i]);
}

/* Static pruning's search in full, for the points of a list; a point still
 * searching after GEMST_LONE_RINGS rings goes to the lone list instead
 * (cuda_lone.cuh). */
template <int DIM, int CROWDED>
static __global__ void __launch_bounds__(GEMST_THREADS, 4)
    GEMST_FN(k_static_prepare)(gemst_grid g, const uint32_t *list, const int *n_list, uint32_t *cand,
                               uint8_t *ncand, gemst_real *rb2, uint32_t *lone, int *n_lone)
{
    GEMST_LIST_INDEX(a, n_list);
    const uint32_t i = list[a];
    GEMST_GRID_INSTANCE(g, DIM, CROWDED);
    gemst_query qq;
    gemst_real kd2[GEMST_KNN];
    uint32_t kid[GEMST_KNN];
    GEMST_FN(gemst_query_make)(&g, i, &qq);
    const int K = gemst_knn_k(DIM);
    int count = GEMST_FN(gemst_knn)(&g, &qq, K, GEMST_LONE_RINGS, kd2, kid);
    if (count < 0) {
        lone[atomicAdd(n_lone, 1)] = i;
        return;
    }
    ncand[i] = (uint8_t)GEMST_FN(gemst_static_candidates)(&g, &qq, K, kd2, kid, count,
                                                         cand + (size_t)i * GEMST_CAND_SLOTS, &rb2[i]);
}

/* Static pruning's search for the points k_static_prepare listed as lone
 * (n_list of them), one warp each (cuda_lone.cuh): where the point's
 * neighbours start and a bound on the K-th (lone_start), its K nearest from
 * there (lone_knn), then its candidates, as k_static_prepare would have
 * written them. */
template <int DIM>
static __global__ void GEMST_FN(k_static_lone)(gemst_grid g, const uint32_t *list, const int *n_list, uint32_t *cand,
                                             uint8_t *ncand, gemst_real *rb2)
{
    g.dim = DIM;
    gemst_cells top;
    GEMST_FN(gemst_top_cells)(&g, &top);
    const int K = gemst_knn_k(DIM);
    const uint32_t warps = gridDim.x * (blockDim.x / GEMST_WARP);
    for (uint32_t a = (blockIdx.x * blockDim.x + threadIdx.x) / GEMST_WARP; a < (uint32_t)*n_list; a += warps) {
        const uint32_t i = list[a];
        gemst_query qq;
        gemst_real bound2;
        gemst_real kd2[GEMST_KNN];
        uint32_t kid[GEMST_KNN];
        GEMST_FN(gemst_query_make)(&g, i, &qq);
        const int r0 = GEMST_FN(lone_start)<DIM>(&g, &top, &qq, K, &bound2);
        const int count = GEMST_FN(lone_knn)<DIM>(&g, &top, &qq, K, r0, bound2, kd2, kid);
        if (threadIdx.x % GEMST_WARP == 0)
            ncand[i] = (uint8_t)GEMST_FN(gemst_static_candidates)(&g, &qq, K, kd2, kid, count,
                                                                 cand + (size_t)i * GEMST_CAND_SLOTS, &rb2[i]);
    }
}

/* One instance per strategy (PRUNE), so that each compiles to the
 * registers its own search needs. */
template <int PRUNE, int CROWDED>
static __global__ void GEMST_FN(k_findmin1)(gemst_grid g, gemst_findmin1_state st, const uint32_t *active,
                                          const int *n_active)
{
    GEMST_LIST_INDEX(a, n_active);
    GEMST_CROWDED_PATH(g, CROWDED);
    st.prune = PRUNE;
    GEMST_FN(gemst_findmin1_point)(&g, &st, active[a]);
}

/* FindMin2: see findmin2 in cuda_solve.cuh. */
static __global__ void GEMST_FN(k_reset_roots)(const uint32_t *roots, const int *n_roots, gemst_word1 *w1, uint64_t *w2,
                                             uint32_t *win_in, uint32_t *head)
{
    GEMST_LIST_INDEX(k, n_roots);
    GEMST_FN(gemst_root_reset)(w1, w2, win_in, roots[k]);
    if (head)
        head[roots[k]] = GEMST_NONE;
}

/* The refinement's reset: the roots of the listed points (several threads
 * may write the same root's reset values). */
static __global__ void GEMST_FN(k_reset_roots_of)(const uint32_t *pts, const int *m, const uint32_t *comp, gemst_word1 *w1,
                                                uint64_t *w2, uint32_t *win_in, uint32_t *head)
{
    GEMST_LIST_INDEX(a, m);
    uint32_t r = comp[pts[a]];
    GEMST_FN(gemst_root_reset)(w1, w2, win_in, r);
    if (head)
        head[r] = GEMST_NONE;
}

static __global__ void GEMST_FN(k_list_push)(const uint32_t *pts, const int *m, const uint32_t *comp,
                                           const uint32_t *best_to, int all_roots, uint32_t *head, uint32_t *next)
{
    GEMST_LIST_INDEX(a, m);
    uint32_t q = pts[a];
    if (best_to[q] != GEMST_NONE && (!all_roots || comp[q] != q))
        gemst_list_push(head, next, comp[q], q);
}

static __global__ void GEMST_FN(k_list_min_roots)(const uint32_t *roots, const int *n_roots, const uint32_t *head,
                                                const uint32_t *next, const uint32_t *oid, const gemst_real *best_d2,
                                                const uint32_t *best_to, gemst_word1 *w1, uint64_t *w2, uint32_t *win_in,
                                                uint32_t *win_out)
{
    GEMST_LIST_INDEX(k, n_roots);
    GEMST_FN(gemst_list_min)(roots[k], head, next, oid, best_d2, best_to, w1, w2, win_in, win_out);
}

static __global__ void GEMST_FN(k_list_min_heads)(const uint32_t *pts, const int *m, const uint32_t *comp,
                                                const uint32_t *head, const uint32_t *next, const uint32_t *oid,
                                                const gemst_real *best_d2, const uint32_t *best_to, gemst_word1 *w1,
                                                uint64_t *w2, uint32_t *win_in, uint32_t *win_out)
{
    GEMST_LIST_INDEX(a, m);
    uint32_t r = comp[pts[a]];
    if (head[r] == pts[a])
        GEMST_FN(gemst_list_min)(r, head, next, oid, best_d2, best_to, w1, w2, win_in, win_out);
}

/* One pass of the atomic FindMin2 (graph/boruvka.h) over the listed points;
 * passes 1 and 2 flag in shortest[a] the points the next pass must look at
 * (the others then cost it one byte read instead of their edge and
 * components). */
static __global__ void GEMST_FN(k_atomic_pass)(int pass, int both, const uint32_t *pts, const int *m,
                                             const uint32_t *comp, const uint32_t *oid, const gemst_real *best_d2,
                                             const uint32_t *best_to, gemst_word1 *w1, uint64_t *w2, uint32_t *win_in,
                                             uint32_t *win_out, uint8_t *shortest)
{
    GEMST_LIST_INDEX(a, m);
    if (pass > 1 && !shortest[a])
        return;
    uint32_t q = pts[a];
    if (best_to[q] == GEMST_NONE) {
        if (pass == 1)
            shortest[a] = 0;
        return;
    }
    if (pass == 1)
        shortest[a] = (uint8_t)GEMST_FN(gemst_atomic_pass1)(q, comp, best_d2, best_to, both, w1);
    else if (pass == 2)
        shortest[a] = (uint8_t)GEMST_FN(gemst_atomic_pass2)(q, comp, oid, best_d2, best_to, both, w1, w2);
    else
        GEMST_FN(gemst_atomic_pass3)(q, comp, oid, best_d2, best_to, both, w1, w2, win_in, win_out);
}

/* Component breaks before their scan (nns/walk.h), into link. */
static __global__ void GEMST_FN(k_break_flags)(uint32_t n, const uint32_t *comp, uint32_t *link)
{
    GEMST_INDEX(i, n);
    link[i] = gemst_break_at(comp, i);
}

static __global__ void GEMST_FN(k_restore_links)(const uint32_t *roots, const int *n_roots, uint32_t *link)
{
    GEMST_LIST_INDEX(k, n_roots);
    link[roots[k]] = roots[k];
}

/* The fallback: which listed points need it ... */
static __global__ void GEMST_FN(k_fallback_flags)(gemst_findmin1_state st, const uint32_t *pts, const int *m,
                                                const gemst_word1 *w1, const uint64_t *w2, uint8_t *keep)
{
    GEMST_LIST_INDEX(a, m);
    keep[a] = (uint8_t)GEMST_FN(gemst_fallback_needed)(&st, w1, w2, pts[a]);
}

/* ... each listed point's task (nns/cell_fallback.h) into task[a] ... */
static __global__ void GEMST_FN(k_fallback_tasks)(gemst_grid g, gemst_findmin1_state st, const uint32_t *pts,
                                                const int *m, const gemst_word1 *w1, const uint64_t *w2,
                                                uint8_t *task)
{
    GEMST_LIST_INDEX(a, m);
    task[a] = (uint8_t)GEMST_FN(gemst_fallback_task)(&g, &st, w1, w2, pts, a);
}

/* ... and the searches: pts[a] becomes the point whose edge improved, with
 * keep[a] set (keep is task, read first). */
template <int DIM, int CROWDED>
static __global__ void __launch_bounds__(GEMST_THREADS, GEMST_WIDE_SEARCH_BLOCKS(CROWDED))
    GEMST_FN(k_fallback)(gemst_grid g, gemst_findmin1_state st, uint32_t *pts, const int *m, gemst_word1 *w1,
                         const uint32_t *win_in, const uint32_t *win_out, uint8_t *keep)
{
    GEMST_LIST_INDEX(a, m);
    GEMST_GRID_INSTANCE(g, DIM, CROWDED);
    uint32_t improved = GEMST_FN(gemst_fallback_run)(&g, &st, w1, win_in, win_out, pts, a, keep[a]);
    keep[a] = improved != GEMST_NONE;
    if (improved != GEMST_NONE)
        pts[a] = improved;
}

/* Each root hooks along its component's minimum edge and stores it; the
 * longest of the edges stored into *longest, zeroed before.  An edge past
 * edge_cap is counted but not stored: only inconsistent minima could
 * produce it, and the host reports the count. */
static __global__ void GEMST_FN(k_connect)(const uint32_t *roots, const int *n_roots, const uint32_t *win_in,
                                         const uint32_t *win_out, const gemst_word1 *w1, const uint32_t *comp,
                                         const uint32_t *oid, uint32_t *link, uint32_t *edge_count, uint32_t edge_cap,
                                         uint32_t *edge_lo, uint32_t *edge_hi, gemst_real *edge_d2,
                                         gemst_word1 *longest)
{
    typedef cub::BlockReduce<gemst_word1, GEMST_THREADS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    gemst_word1 w = 0;
    gemst_edge_key e;
    if (k < (uint32_t)*n_roots && GEMST_FN(gemst_hook)(roots[k], win_in, win_out, w1, comp, oid, link, &e)) {
        const uint32_t at = atomicAdd(edge_count, 1u);
        if (at < edge_cap) {
            GEMST_FN(gemst_store_edge)(e, at, edge_lo, edge_hi, edge_d2);
            w = gemst_edge_word1(e.d2);
        }
    }
    /* The longest edge, as a word1 (graph/edge_order.h: it orders lengths as unsigned integers), with one atomic
       per block: one per edge, on one word, made each iteration's merge 0.06 ms slower at 1e7 points (H100). */
    w = Reduce(tmp).Reduce(w, cuda::maximum<>());
    if (threadIdx.x == 0 && w > 0) {
        if (sizeof w == 8)
            atomicMax((unsigned long long *)longest, (unsigned long long)w);
        else
            atomicMax((unsigned int *)longest, (unsigned int)w);
    }
}

static __global__ void GEMST_FN(k_flatten_roots)(const uint32_t *roots, const int *n_roots, uint32_t *link)
{
    GEMST_LIST_INDEX(k, n_roots);
    gemst_flatten_root(link, roots[k]);
}

static __global__ void GEMST_FN(k_relabel)(uint32_t n, const uint32_t *link, uint32_t *comp)
{
    GEMST_INDEX(i, n);
    uint32_t r = link[comp[i]];
    if (r != comp[i])
        comp[i] = r;
}

/* Flags for the next iteration's lists; the points dropped from the active
 * list and those the fallback improved forget their edge. */
static __global__ void GEMST_FN(k_root_flags)(const uint32_t *roots, const int *n_roots, const uint32_t *link,
                                            uint8_t *keep)
{
    GEMST_LIST_INDEX(k, n_roots);
    keep[k] = link[roots[k]] == roots[k];
}

static __global__ void GEMST_FN(k_active_flags)(const uint32_t *active, const int *n_active, int prune,
                                              const uint8_t *ncand, const uint64_t *open, uint32_t *best_to,
                                              uint8_t *keep)
{
    GEMST_LIST_INDEX(a, n_active);
    uint32_t q = active[a];
    int alive = prune == GRIDEMST_PRUNE_STATIC ? ncand[q] > 0 : prune == GRIDEMST_PRUNE_DYNAMIC ? open[q] != 0 : 1;
    keep[a] = (uint8_t)alive;
    if (!alive)
        best_to[q] = GEMST_NONE;
}

static __global__ void GEMST_FN(k_forget_extra)(const uint32_t *extra, const int *n_extra, uint32_t *best_to)
{
    GEMST_LIST_INDEX(a, n_extra);
    best_to[extra[a]] = GEMST_NONE;
}

static __global__ void GEMST_FN(k_uncertain_flags)(uint32_t n, const gemst_real *rb2, uint8_t *keep)
{
    GEMST_INDEX(i, n);
    keep[i] = rb2[i] < GEMST_REAL_INF;
}

/* ---------------------------------------------------------------- edges */

/* The duplicates' edges after the unique points' tree: of length 0, or
 * dup_d2's (the mutual-reachability tree, cuda_core.cuh). */
static __global__ void GEMST_FN(k_append_dups)(uint32_t n_dup, const uint32_t *dup_lo, const uint32_t *dup_hi,
                                             const gemst_real *dup_d2, uint32_t offset, uint32_t *edge_lo,
                                             uint32_t *edge_hi, gemst_real *edge_d2)
{
    GEMST_INDEX(k, n_dup);
    edge_lo[offset + k] = dup_lo[k];
    edge_hi[offset + k] = dup_hi[k];
    edge_d2[offset + k] = dup_d2 ? dup_d2[k] : 0;
}

#endif
