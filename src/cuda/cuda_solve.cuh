/*
 * The CUDA backend, precision-generic: included by cuda_solve_f32.cu and
 * cuda_solve_f64.cu after GEMST_REAL_IS_DOUBLE is set.
 *
 * The whole solve runs on the device: bounding box, cell sort, duplicate
 * removal, cell table (nns BVH: Morton sort, duplicate removal, the tree's
 * build), the Boruvka loop and the final edge sort.  Inside an
 * iteration the host only reads one small block of counters at its end
 * (edges so far, list lengths), which also tells it the next launch sizes.
 * Structure and order of steps follow the CPU backend (cpu_solve.inc).
 *
 * The steps are in files by concern, included in the order their calls
 * need; this one runs them (run, below):
 *
 *   cuda_state.cuh          the solve's context, and what every step uses
 *   cuda_input.cuh          the input points on the device
 *   cuda_core.cuh           core distances (the mutual-reachability tree)
 *   cuda_subgrid.cuh        the crowded cells' grids
 *   cuda_index_choice.cuh   nns auto's choice of the grid or the BVH
 *   cuda_grid_build.cuh     the grid, or the BVH's Morton order; duplicates
 *   cuda_bvh.cuh            the BVH: its build, and FindMin1 on it
 *   cuda_boruvka_steps.cuh  FindMin2, connect and union, flatten
 *   cuda_search.cuh         FindMin1 on the grid, and its fallback
 *   cuda_late_bvh.cuh       the grid's points moved into a BVH, late
 *   cuda_boruvka.cuh        the Borůvka loop
 *   cuda_tree_out.cuh       the tree in the result's order and form
 */
#include "cuda/cuda_state.cuh"
#include "cuda/cuda_input.cuh"
#include "cuda/cuda_core.cuh"
#include "cuda/cuda_subgrid.cuh"
#include "cuda/cuda_index_choice.cuh"
#include "cuda/cuda_grid_build.cuh"
#include "cuda/cuda_bvh.cuh"
#include "cuda/cuda_boruvka_steps.cuh"
#include "cuda/cuda_search.cuh"
#include "cuda/cuda_late_bvh.cuh"
#include "cuda/cuda_boruvka.cuh"
#include "cuda/cuda_tree_out.cuh"

/* The tree's edges so far (all unless the loop failed) named by their ids,
 * with their squared lengths in best_d2's buffer, which becomes edge_d2;
 * fails where the working precision cannot hold one of those lengths
 * (grid_plan.h, GEMST_D2_TINY), the reason to give also where such points
 * led Boruvka into inconsistent minima. */
static int GEMST_FN(finish_edges)(cuda_ctx *c, gridemst_error *err)
{
    const uint32_t stored = c->host->edges < c->nu - 1 ? c->host->edges : c->nu - 1;
    unsigned long long *first;
    GEMST_TRY(GEMST_FN(no_pair)(c, &first, err));
    c->edge_d2 = c->best_d2;
    c->best_d2 = NULL;
    if (stored > 0) {
        GEMST_FN(k_finish_edges)<<<gemst_blocks(stored), GEMST_THREADS, 0, c->s>>>(stored, c->g, c->edge_a, c->edge_b,
                                                                                  c->edge_d2, first);
        GEMST_LAUNCHED();
    }
    return GEMST_FN(too_close)(c, first, err);
}

/* ---------------------------------------------------------------- entry */

static int GEMST_FN(run)(cuda_ctx *c, cudaEvent_t ev[6], gemst_tree *tree, gridemst_stats *stats,
                        gridemst_error *err)
{
    const gemst_problem *pb = c->pb;
    c->n = (uint32_t)pb->n;
    c->bvh = pb->opt.nns == GRIDEMST_NNS_BVH;
    c->prune = pb->opt.tuning.prune;
    int device, sms, threads_per_sm;
    GEMST_CU(cudaGetDevice(&device));
    GEMST_CU(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    GEMST_CU(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
    c->resident_blocks = (unsigned)sms * (unsigned)(threads_per_sm / GEMST_THREADS);
    stats->late_bvh_iteration = -1;
    if (pb->opt.result == GRIDEMST_RESULT_HOST && !pb->raw_tree)
        gemst_host_tree_start(&c->host_tree, pb->n - 1, pb->opt.threads, pb->ctx);
    GEMST_DALLOC(&c->mem, c->cnt, 1, "counters");
    GEMST_CU(cudaMemsetAsync(c->cnt, 0, sizeof *c->cnt, c->s));
    const void *coords;
    void *uploaded;
    GEMST_CU(cudaEventRecord(ev[0], c->s));
    GEMST_TRY(gemst_input_on_device(&c->mem, pb, &coords, &uploaded, err));
    GEMST_CU(cudaEventRecord(ev[1], c->s));
    if (pb->dtype == GRIDEMST_FLOAT32)
        GEMST_TRY(GEMST_FN(build_grid)<float>(c, (const float *)coords, stats, err));
    else
        GEMST_TRY(GEMST_FN(build_grid)<double>(c, (const double *)coords, stats, err));
    gemst_dfree(&c->mem, uploaded);
    /* The sorts' scratch (a copy of their keys and values) is not needed
     * again at that size: the Boruvka loop's own is far smaller.  It goes
     * before the BVH's nodes, the solve's largest array, are allocated:
     * left alive between the points compacted past their duplicates, it
     * split the pool's free memory, and the pool grew by the nodes' size
     * (blobs 3D, 1e8 points: 3.2 GB, 124.5 instead of 117.8 bytes a point). */
    gemst_dfree(&c->mem, c->temp);
    c->temp = NULL;
    c->temp_bytes = 0;
    if (c->bvh)
        GEMST_TRY(GEMST_FN(build_bvh)(c, err));
    GEMST_CU(cudaEventRecord(ev[2], c->s));
    GEMST_CU(cudaEventSynchronize(ev[2]));
    GEMST_TRY(GEMST_FN(add_time)(ev[0], ev[1], &stats->time_ms.upload, err));
    GEMST_TRY(GEMST_FN(add_time)(ev[1], ev[2], &stats->time_ms.grid, err));
    GEMST_TRY(gemst_progress(&pb->opt, "grid", 0, c->nu, err));
    GEMST_TRY(GEMST_FN(alloc_state)(c, err));
    if (c->core2) { /* a search before the loop, as static pruning's: preparation, and FindMin1's */
        GEMST_CU(cudaEventRecord(ev[0], c->s));
        GEMST_TRY(GEMST_FN(core_distances)(c, err));
        GEMST_CU(cudaEventRecord(ev[1], c->s));
        GEMST_CU(cudaEventSynchronize(ev[1]));
        GEMST_TRY(GEMST_FN(add_time)(ev[0], ev[1], &stats->time_ms.prepare, err));
        stats->time_ms.findmin1 = stats->time_ms.prepare;
    }
    int rc = c->nu > 1 ? GEMST_FN(boruvka)(c, ev, stats, err) : GRIDEMST_OK;
    GEMST_CU(cudaEventRecord(ev[0], c->s)); /* the edges' phase, from the loop's end */
    /* Points too close together for the precision are the reason to give,
     * also where they led Boruvka into inconsistent minima. */
    if (c->nu > 1 && (rc == GRIDEMST_OK || rc == GRIDEMST_ERR_INTERNAL)) {
        int tiny = GEMST_FN(finish_edges)(c, err);
        rc = tiny != GRIDEMST_OK ? tiny : rc;
    }
    if (rc != GRIDEMST_OK)
        return rc;
    GEMST_TRY(gemst_progress(&pb->opt, "edges", stats->iterations, 1, err));
    GEMST_FN(free_state)(c);
    GEMST_TRY(GEMST_FN(emit_tree)(c, ev[1], tree, err));
    GEMST_CU(cudaEventRecord(ev[2], c->s));
    GEMST_CU(cudaEventSynchronize(ev[2]));
    GEMST_TRY(GEMST_FN(add_time)(ev[0], ev[1], &stats->time_ms.edges, err));
    return GEMST_FN(add_time)(ev[1], ev[2], &stats->time_ms.download, err);
}

/* Frees what a failed solve made of the result. */
static void GEMST_FN(drop_tree)(cuda_ctx *c, gemst_tree *tree)
{
    void *device[] = {tree->device_edges.u, tree->device_edges.v, tree->device_edges.w, tree->part_edges};
    for (size_t i = 0; i < sizeof device / sizeof device[0]; i++)
        if (device[i])
            gemst_dmem_release(&c->mem, device[i]);
    memset(&tree->device_edges, 0, sizeof tree->device_edges);
    tree->part_edges = NULL;
    if (tree->host_registered)
        gemst_host_tree_free_pinned(tree->edges, tree->host_capacity);
    else
        free(tree->edges);
    tree->edges = NULL;
    tree->host_registered = 0;
    gemst_tree_free(tree);
}

/* The solve on its context (pb->ctx): its stream, events, pool and
 * staging; the device's work is done when it returns. */
extern "C" int GEMST_FN(gemst_cuda_solve)(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats,
                                         gridemst_error *err)
{
    gridemst_context *ctx = pb->ctx;
    int previous = 0;
    GEMST_CU(cudaGetDevice(&previous));
    snprintf(stats->device_name, sizeof stats->device_name, "%s", ctx->device_name);
    /* from here on every return goes through the cudaSetDevice(previous) below */
    GEMST_CU(cudaSetDevice(ctx->device));
    cuda_ctx c;
    memset(&c, 0, sizeof c);
    c.pb = pb;
    c.s = (cudaStream_t)ctx->stream;
    c.host = (GEMST_FN(counters) *)ctx->staging;
    memset(c.host, 0, sizeof *c.host); /* no copy is in flight: the last solve waited for its stream */
    gemst_dmem_init(&c.mem, (cudaMemPool_t)ctx->pool, c.s);
    int rc = GEMST_FN(run)(&c, (cudaEvent_t *)ctx->events, tree, stats, err);
    cudaStreamSynchronize(c.s);
    stats->peak_device_bytes = (int64_t)gemst_dmem_peak(&c.mem);
    stats->device_bytes_reserved = (int64_t)gemst_dmem_reserved(&c.mem);
    gemst_dfree_all(&c.mem);
    gemst_host_tree_discard(&c.host_tree); /* the tree's array when the solve failed before taking it */
    if (rc != GRIDEMST_OK)
        GEMST_FN(drop_tree)(&c, tree);
    cudaSetDevice(previous);
    return rc;
}
