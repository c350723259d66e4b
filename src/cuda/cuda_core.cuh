/*
 * HDBSCAN*'s mutual-reachability tree on the CUDA backend
 * (options.min_samples >= 2; precision-generic, included by cuda_solve.cuh
 * after cuda_ctx), as cpu_core.inc does it on the CPU:
 *
 *   1. the copies each unique point stands for, through a map from caller
 *      ids to points, and each duplicate's representative;
 *   2. every unique point's core distance (nns/core_dist.h on the grid,
 *      bvh/bvh_core.h on the BVH), one thread per point, each with its
 *      heap in a slice of one scratch array;
 *   3. in the first Borůvka iteration, the point each duplicate joins
 *      (nns/duplicate_anchor.h), written over its edge's lower end.
 *
 * Borůvka itself runs unchanged: the grid carries the core distances
 * (g.core2), and its searches measure edges by them (nns/edge_length.h).
 */

#include "bvh/bvh_core.h"
#include "nns/duplicate_anchor.h"

/* A core distance search's heap holds min_samples entries at most.  Up
 * to this many, it lives in the thread's local memory, which the hardware
 * lays out so that a warp's threads reading the same entry read adjacent
 * words; larger heaps in slices of a scratch array (a slice's entries are
 * adjacent, a warp's reads scattered), for one resident thread of the
 * device each at most, fewer where they would take more than
 * GEMST_CORE_HEAP_BYTES (a min_samples of thousands). */
#define GEMST_CORE_LOCAL_HEAP 32
#define GEMST_CORE_HEAP_BYTES ((size_t)256 << 20)

/* Step 1: at[oid[i]] = i for every unique point, whose copies start at 1 ... */
static __global__ void GEMST_FN(k_core_at)(uint32_t nu, const uint32_t *oid, uint32_t *at, uint32_t *mult)
{
    GEMST_INDEX(i, nu);
    at[oid[i]] = i;
    mult[i] = 1;
}

/* ... then each duplicate's representative, which counts it. */
static __global__ void GEMST_FN(k_core_copies)(uint32_t n_dup, const uint32_t *dup_lo, const uint32_t *at,
                                             uint32_t *dup_rep, uint32_t *mult)
{
    GEMST_INDEX(k, n_dup);
    const uint32_t rep = at[dup_lo[k]];
    dup_rep[k] = rep;
    atomicAdd(&mult[rep], 1u);
}

/* The heap's entries of thread t: its local arrays (LOCAL), or its slice
 * of the scratch. */
#define GEMST_CORE_HEAP_ARRAYS(LOCAL, t, k, heap_d2, heap_copies, hd, hc)                                        \
    gemst_real local_d2_[(LOCAL) ? GEMST_CORE_LOCAL_HEAP : 1];                                                  \
    uint32_t local_copies_[(LOCAL) ? GEMST_CORE_LOCAL_HEAP : 1];                                                \
    gemst_real *hd = (LOCAL) ? local_d2_ : (heap_d2) + (size_t)(t) * (k);                                       \
    uint32_t *hc = (LOCAL) ? local_copies_ : (heap_copies) + (size_t)(t) * (k)

/* A thread's heap for point q's search, on its entries: the copies it
 * needs beyond q's own. */
static __device__ __forceinline__ void GEMST_FN(d_core_heap)(gemst_core_heap *h, gemst_real *hd, uint32_t *hc,
                                                            uint32_t k, const uint32_t *mult, uint32_t q)
{
    const uint32_t own = gemst_copies(mult, q);
    GEMST_FN(gemst_core_heap_init)(h, hd, hc, k > own ? k - own : 0);
}

/* Step 2 on the grid: the points in grid order, strided over the
 * launch's first `threads` threads, one heap each; one instance per
 * dimension and grid shape (DIM, CROWDED: a wide search, as
 * k_static_prepare's) and heap place (LOCAL). */
template <int DIM, int CROWDED, int LOCAL>
static __global__ void __launch_bounds__(GEMST_THREADS, GEMST_WIDE_SEARCH_BLOCKS(CROWDED))
    GEMST_FN(k_core_grid)(gemst_grid g, const uint32_t *mult, uint32_t k, uint32_t threads, gemst_real *heap_d2,
                          uint32_t *heap_copies, gemst_real *core2)
{
    GEMST_INDEX(t, threads);
    GEMST_GRID_INSTANCE(g, DIM, CROWDED);
    GEMST_CORE_HEAP_ARRAYS(LOCAL, t, k, heap_d2, heap_copies, hd, hc);
    for (uint32_t q = t; q < g.n; q += threads) {
        gemst_core_heap h;
        gemst_query qq;
        GEMST_FN(d_core_heap)(&h, hd, hc, k, mult, q);
        GEMST_FN(gemst_query_make)(&g, q, &qq);
        core2[q] = GEMST_FN(gemst_core_dist2_grid)(&g, &qq, mult, &h);
    }
}

/* Step 2 on the BVH (nns bvh), the points in Morton order; one instance
 * per dimension (DIM, as k_bvh_findmin1) and heap place (LOCAL). */
template <int DIM, int LOCAL>
static __global__ void GEMST_FN(k_core_bvh)(gemst_bvh b, gemst_grid pts, const uint32_t *mult, uint32_t k,
                                          uint32_t threads, gemst_real *heap_d2, uint32_t *heap_copies,
                                          gemst_real *core2)
{
    GEMST_INDEX(t, threads);
    b.dim = pts.dim = DIM;
    GEMST_CORE_HEAP_ARRAYS(LOCAL, t, k, heap_d2, heap_copies, hd, hc);
    for (uint32_t q = t; q < pts.n; q += threads) {
        gemst_core_heap h;
        gemst_query qq;
        GEMST_FN(d_core_heap)(&h, hd, hc, k, mult, q);
        GEMST_FN(gemst_query_point)(&pts, q, &qq);
        core2[q] = GEMST_FN(gemst_core_dist2_bvh)(&b, &pts, &qq, mult, &h);
    }
}

/* Each duplicate's edge length: its representative's core distance. */
static __global__ void GEMST_FN(k_dup_lengths)(uint32_t n_dup, const uint32_t *dup_rep, const gemst_real *core2,
                                             gemst_real *dup_d2)
{
    GEMST_INDEX(k, n_dup);
    dup_d2[k] = core2[dup_rep[k]];
}

/* Step 3: the point each duplicate joins, as a caller id, over the lower
 * end of its edge (its representative's id until then). */
static __global__ void GEMST_FN(k_dup_anchors)(uint32_t n_dup, gemst_grid g, const uint32_t *dup_rep,
                                             const uint32_t *win_in, const uint32_t *win_out, uint32_t *dup_lo)
{
    GEMST_INDEX(k, n_dup);
    dup_lo[k] = GEMST_FN(gemst_duplicate_anchor)(&g, win_in, win_out, dup_rep[k]);
}

/* The threads of a core distance search with its heaps in a scratch
 * array: the device's resident threads, fewer for large heaps, and no
 * more than the points. */
static int GEMST_FN(core_threads)(const cuda_ctx *c, uint32_t k, uint32_t *threads, gridemst_error *err)
{
    int sms = 0, per_sm = 0;
    GEMST_CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c->pb->ctx->device));
    GEMST_CU(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, c->pb->ctx->device));
    uint64_t t = (uint64_t)sms * (uint64_t)per_sm;
    const uint64_t fit = GEMST_CORE_HEAP_BYTES / ((uint64_t)k * (sizeof(gemst_real) + 4));
    t = t < fit ? t : fit;
    t = t < c->nu ? t : c->nu;
    *threads = t > 0 ? (uint32_t)t : 1u;
    return GRIDEMST_OK;
}

/* k_core_grid's instance for the dimension and the grid's shape, inside
 * launch_core. */
#define GEMST_LAUNCH_CORE_GRID(DIM, CROWDED)                                                                    \
    GEMST_FN(k_core_grid)<DIM, CROWDED, LOCAL><<<b, GEMST_THREADS, 0, c->s>>>(c->g, mult, k, threads, heap_d2, \
                                                                              heap_copies, c->core2)

/* Step 2's kernel in its instance for the index, the dimension, the
 * grid's shape, and the heaps' place (LOCAL). */
template <int LOCAL>
static void GEMST_FN(launch_core)(const cuda_ctx *c, const uint32_t *mult, uint32_t k, uint32_t threads,
                                  gemst_real *heap_d2, uint32_t *heap_copies)
{
    const unsigned b = gemst_blocks(threads);
    const int dim3 = c->g.dim == 3, crowded = c->bvh ? 0 : GEMST_FN(crowded_instance)(c);
    if (c->bvh && dim3)
        GEMST_FN(k_core_bvh)<3, LOCAL><<<b, GEMST_THREADS, 0, c->s>>>(c->tree, c->g, mult, k, threads, heap_d2,
                                                                     heap_copies, c->core2);
    else if (c->bvh)
        GEMST_FN(k_core_bvh)<2, LOCAL><<<b, GEMST_THREADS, 0, c->s>>>(c->tree, c->g, mult, k, threads, heap_d2,
                                                                     heap_copies, c->core2);
    else if (dim3 && crowded == 2)
        GEMST_LAUNCH_CORE_GRID(3, 2);
    else if (dim3 && crowded == 1)
        GEMST_LAUNCH_CORE_GRID(3, 1);
    else if (dim3)
        GEMST_LAUNCH_CORE_GRID(3, 0);
    else if (crowded == 2)
        GEMST_LAUNCH_CORE_GRID(2, 2);
    else if (crowded == 1)
        GEMST_LAUNCH_CORE_GRID(2, 1);
    else
        GEMST_LAUNCH_CORE_GRID(2, 0);
}

/* Steps 1 and 2: the core distances into c->core2, which the grid then
 * carries; with duplicates, their representatives and edge lengths. */
static int GEMST_FN(core_distances)(cuda_ctx *c, gridemst_error *err)
{
    const uint32_t nu = c->nu, k = (uint32_t)c->pb->opt.min_samples;
    uint32_t *mult = NULL, threads;
    if (c->n_dup) {
        uint32_t *at;
        GEMST_DALLOC(&c->mem, at, c->n, "the duplicates' representatives");
        GEMST_DALLOC(&c->mem, mult, nu, "point copies");
        GEMST_FN(k_core_at)<<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(nu, c->g.oid, at, mult);
        GEMST_LAUNCHED();
        GEMST_FN(k_core_copies)<<<gemst_blocks(c->n_dup), GEMST_THREADS, 0, c->s>>>(c->n_dup, c->dup_lo, at,
                                                                                  c->dup_rep, mult);
        GEMST_LAUNCHED();
        gemst_dfree(&c->mem, at);
    }
    gemst_real *heap_d2 = NULL;
    uint32_t *heap_copies = NULL;
    if (k <= GEMST_CORE_LOCAL_HEAP) {
        threads = nu;
        GEMST_FN(launch_core)<1>(c, mult, k, threads, NULL, NULL);
    } else {
        GEMST_TRY(GEMST_FN(core_threads)(c, k, &threads, err));
        GEMST_DALLOC(&c->mem, heap_d2, (size_t)threads * k, "core distance searches");
        GEMST_DALLOC(&c->mem, heap_copies, (size_t)threads * k, "core distance searches");
        GEMST_FN(launch_core)<0>(c, mult, k, threads, heap_d2, heap_copies);
    }
    GEMST_LAUNCHED();
    gemst_dfree(&c->mem, heap_d2);
    gemst_dfree(&c->mem, heap_copies);
    gemst_dfree(&c->mem, mult);
    if (c->n_dup) {
        GEMST_FN(k_dup_lengths)<<<gemst_blocks(c->n_dup), GEMST_THREADS, 0, c->s>>>(c->n_dup, c->dup_rep, c->core2,
                                                                                  c->dup_d2);
        GEMST_LAUNCHED();
    }
    c->g.core2 = c->core2;
    return GRIDEMST_OK;
}

/* Step 3, in the first Borůvka iteration once FindMin2 is done. */
static int GEMST_FN(duplicate_anchors)(cuda_ctx *c, gridemst_error *err)
{
    GEMST_FN(k_dup_anchors)<<<gemst_blocks(c->n_dup), GEMST_THREADS, 0, c->s>>>(c->n_dup, c->g, c->dup_rep, c->win_in,
                                                                              c->win_out, c->dup_lo);
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
}

/* Device bytes the mutual-reachability tree adds at its peak, per point:
 * core distances, copies, each duplicate's representative and length
 * (erring high: as many as points), the map from caller ids during step 1;
 * on the grid, the late BVH from the first iteration with a leaf per point
 * (nns/late_bvh.h): its nodes, label breaks, bounds and sort; and the
 * searches' heaps where they take a scratch array. */
static size_t GEMST_FN(core_bytes_needed)(const gemst_problem *pb)
{
    if (pb->opt.min_samples < 2)
        return 0;
    const size_t R = sizeof(gemst_real), n = (size_t)pb->n;
    size_t per_point = R + 4 + 4 + R + 4;
    if (pb->opt.nns != GRIDEMST_NNS_BVH) /* the grid's late BVH, possibly */
        per_point += GEMST_BVH_NODE_BYTES + 4 + 8 + 2 * 8 + 2 * 4;
    return n * per_point + (pb->opt.min_samples > GEMST_CORE_LOCAL_HEAP ? GEMST_CORE_HEAP_BYTES : 0);
}
