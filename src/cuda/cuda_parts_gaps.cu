/*
 * A part's gaps on its device (parts/device_gaps.h): the host's sub-steps
 * (parts/gaps.c) as kernels and CUB sorts, over the part's coordinates in
 * device memory.  The arithmetic is the host's own, GEMST_HD
 * (parts/point_key.h: working coordinates and keys; parts/gap.h and
 * parts/region_dist.h: cells and gaps), and both sorts are stable radix
 * sorts over all 64 bits of their keys, as the host's, so every array is
 * the host's bit for bit.
 */
#include <cub/cub.cuh>
#include <stdlib.h>

#include "cuda/cuda_parts_kept.cuh"
#include "cuda/cuda_parts_steps.cuh"
#include "parts/device_gaps.h"
#include "parts/gap.h"
#include "parts/point_key.h"

#define BOX_WARP 32

/* Each point's working coordinates and key, and its index (the values the
 * sort by key carries). */
static __global__ void k_working(gemst_parts_metric m, gemst_frame f, gemst_region_space sp, gridemst_dtype dtype,
                                 const void *coords, int64_t n, double *w, uint64_t *key, uint32_t *index)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        key[i] = gemst_parts_key(&m, &f, &sp, dtype, coords, i, w + 3 * i);
        index[i] = (uint32_t)i;
    }
}

/* 1 where position k of the sorted keys starts a cell, else 0. */
static __global__ void k_heads(const uint64_t *sorted, int64_t n, int dim, int level, uint32_t *head)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        head[k] = (uint32_t)gemst_gap_starts_cell(dim, level, sorted, k);
}

/* Each cell's first position (rank: the heads' inclusive sum, a cell's
 * number plus one), and n after the last. */
static __global__ void k_cell_starts(const uint32_t *head, const uint32_t *rank, int64_t n, uint32_t *cell_start)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n && head[k])
        cell_start[rank[k] - 1] = (uint32_t)k;
    if (k == n - 1)
        cell_start[rank[k]] = (uint32_t)n;
}

/* Each cell's keys' prefix and the gap it gives its points (-1: none). */
static __global__ void k_cell_gaps(const uint64_t *sorted, const uint32_t *cell_start, int64_t cells,
                                   gemst_region_space sp, gemst_key_range own, int level, uint64_t *cell_key,
                                   double *cell_gap)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r < cells) {
        const uint64_t key = sorted[cell_start[r]];
        cell_key[r] = gemst_region_cell(sp.dim, key, level);
        cell_gap[r] = gemst_gap_of_cell(&sp, own, key, level);
    }
}

/* Each cell's box of its points, a warp a cell (a cell may hold many
 * points).  Minima and maxima are exact in any order: the host's boxes. */
static __global__ void k_cell_boxes(const double *w, const uint32_t *by_key, const uint32_t *cell_start,
                                    int64_t cells, gemst_box *box)
{
    const int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / BOX_WARP;
    const int lane = (int)(threadIdx.x % BOX_WARP);
    if (r >= cells) /* the whole warp */
        return;
    const int64_t b = cell_start[r], e = cell_start[r + 1];
    const double *first = w + 3 * (size_t)by_key[b];
    double lo[3] = {first[0], first[1], first[2]}, hi[3] = {first[0], first[1], first[2]};
    for (int64_t k = b + lane; k < e; k += BOX_WARP) {
        const double *at = w + 3 * (size_t)by_key[k];
        for (int d = 0; d < 3; d++) {
            lo[d] = at[d] < lo[d] ? at[d] : lo[d];
            hi[d] = at[d] > hi[d] ? at[d] : hi[d];
        }
    }
    for (int step = BOX_WARP / 2; step > 0; step /= 2)
        for (int d = 0; d < 3; d++) {
            const double l = __shfl_xor_sync(0xffffffffu, lo[d], step), h = __shfl_xor_sync(0xffffffffu, hi[d], step);
            lo[d] = l < lo[d] ? l : lo[d];
            hi[d] = h > hi[d] ? h : hi[d];
        }
    if (lane == 0)
        for (int d = 0; d < 3; d++) {
            box[r].lo[d] = lo[d];
            box[r].hi[d] = hi[d];
        }
}

/* Each point's cell and gap, from its position k in key order. */
static __global__ void k_point_gaps(const double *w, const uint32_t *by_key, const uint32_t *rank,
                                    const double *cell_gap, int64_t n, gemst_region_space sp, gemst_key_range own,
                                    uint32_t *cell_of, double *gap)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        const uint32_t i = by_key[k], r = rank[k] - 1;
        cell_of[i] = r;
        gap[i] = gemst_gap_of_point(&sp, own, cell_gap[r], w + 3 * (size_t)i);
    }
}

static __global__ void k_iota(uint32_t *index, int64_t n)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        index[i] = (uint32_t)i;
}

/* A stable sort of (key, value) pairs on all 64 bits of the keys. */
static int sort_pairs(gemst_dmem *mem, cub::DoubleBuffer<uint64_t> &keys, cub::DoubleBuffer<uint32_t> &values,
                      int64_t n, const char *what, gridemst_error *err)
{
    size_t bytes = 0;
    void *temp;
    GEMST_CU(cub::DeviceRadixSort::SortPairs(NULL, bytes, keys, values, n, 0, 64, mem->s));
    GEMST_TRY(gemst_dalloc(mem, &temp, bytes, what, err));
    GEMST_CU(cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, n, 0, 64, mem->s));
    gemst_dfree(mem, temp);
    return GRIDEMST_OK;
}

/* The kernels queued on s so far, waited for: their time into *ms. */
static int wait_kernels(cudaStream_t s, double *t0, double *ms, gridemst_error *err)
{
    GEMST_CU(cudaStreamSynchronize(s));
    *ms += gemst_lap_ms(t0);
    return GRIDEMST_OK;
}

/* The cells' arrays, from the points sorted by key and their cells'
 * ranks; the cells' gaps into *cell_gap. */
static int cells(gemst_device_gaps *g, const gemst_gaps_task *t, const double *w, const uint64_t *sorted,
                 const uint32_t *by_key, const uint32_t *head, const uint32_t *rank, double **cell_gap,
                 gridemst_error *err)
{
    const int64_t n = t->n, m = g->n_cells;
    const cudaStream_t s = g->mem.s;
    GEMST_DALLOC(&g->mem, g->cell_start, m + 1, "the part's cells");
    GEMST_DALLOC(&g->mem, g->cell_key, m, "the part's cells' keys");
    GEMST_DALLOC(&g->mem, g->cell_box, m, "the part's cells' boxes");
    GEMST_DALLOC(&g->mem, *cell_gap, m, "the part's cells' gaps");
    k_cell_starts<<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, s>>>(head, rank, n, g->cell_start);
    GEMST_LAUNCHED();
    k_cell_gaps<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(sorted, g->cell_start, m, t->space, t->own,
                                                                   t->level, g->cell_key, *cell_gap);
    GEMST_LAUNCHED();
    k_cell_boxes<<<gemst_blocks((uint64_t)m * BOX_WARP), GEMST_THREADS, 0, s>>>(w, by_key, g->cell_start, m,
                                                                           g->cell_box);
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
}

static int run(const gemst_gaps_task *t, const gemst_gaps_points *points, gemst_device_gaps *g,
               gemst_gaps_times *times, gridemst_error *err)
{
    const int64_t n = t->n;
    const cudaStream_t s = g->mem.s;
    double t0 = gemst_now_ms();
    const unsigned blocks = gemst_blocks((uint64_t)n);
    double *w, *cell_gap;
    uint64_t *key[2];
    uint32_t *index[2], *cell_of;
    GEMST_DALLOC(&g->mem, w, 3 * n, "the part's working coordinates");
    GEMST_DALLOC(&g->mem, key[0], n, "the part's keys");
    GEMST_DALLOC(&g->mem, key[1], n, "the part's keys, sorted");
    GEMST_DALLOC(&g->mem, index[0], n, "the part's order by key");
    GEMST_DALLOC(&g->mem, index[1], n, "the part's order by key");
    k_working<<<blocks, GEMST_THREADS, 0, s>>>(t->metric, t->frame, t->space, t->dtype, t->coords, n, w, key[0],
                                               index[0]);
    GEMST_LAUNCHED();
    cub::DoubleBuffer<uint64_t> keys(key[0], key[1]);
    cub::DoubleBuffer<uint32_t> by_key(index[0], index[1]);
    GEMST_TRY(sort_pairs(&g->mem, keys, by_key, n, "sorting the part's points by key", err));

    /* the cells: runs of one cell among the sorted keys; the keys' other buffer holds the heads and their sum */
    const uint64_t *sorted = keys.Current();
    uint32_t *head = (uint32_t *)keys.Alternate(), *rank = head + n;
    k_heads<<<blocks, GEMST_THREADS, 0, s>>>(sorted, n, t->metric.dim, t->level, head);
    GEMST_LAUNCHED();
    GEMST_TRY(gemst_inclusive_count(&g->mem, head, rank, n, "numbering the part's cells", err));
    uint32_t count;
    GEMST_CU(cudaMemcpyAsync(&count, rank + n - 1, sizeof count, cudaMemcpyDeviceToHost, s));
    GEMST_CU(cudaStreamSynchronize(s));
    g->n_cells = count;
    GEMST_TRY(cells(g, t, w, sorted, by_key.Current(), head, rank, &cell_gap, err));

    GEMST_DALLOC(&g->mem, g->gap, n, "the part's gaps");
    double *gap = g->gap;
    GEMST_DALLOC(&g->mem, cell_of, n, "the part's points' cells");
    k_point_gaps<<<blocks, GEMST_THREADS, 0, s>>>(w, by_key.Current(), rank, cell_gap, n, t->space, t->own, cell_of,
                                                  gap);
    GEMST_LAUNCHED();
    GEMST_TRY(wait_kernels(s, &t0, &times->device_ms, err));
    GEMST_TRY(gemst_download_open(&g->down, s, t->threads, err)); /* its pinned chunks: for the cells' copies too */
    if (points) {
        GEMST_TRY(gemst_download_copy(&g->down, points->w, w, sizeof *w * 3 * (size_t)n, err));
        GEMST_TRY(gemst_download_copy(&g->down, points->gap, gap, sizeof *gap * (size_t)n, err));
        GEMST_TRY(gemst_download_copy(&g->down, points->by_key, by_key.Current(), sizeof(uint32_t) * (size_t)n, err));
        GEMST_TRY(gemst_download_copy(&g->down, points->cell_of, cell_of, sizeof *cell_of * (size_t)n, err));
        times->copy_ms += gemst_lap_ms(&t0);
    }

    if (!points) { /* the contraction numbers its points in this order */
        GEMST_DALLOC(&g->mem, g->by_key, n, "the part's order by key");
        GEMST_CU(cudaMemcpyAsync(g->by_key, by_key.Current(), sizeof *g->by_key * (size_t)n,
                                 cudaMemcpyDeviceToDevice, s));
    }
    /* the points by gap: non-negative doubles order as their bits.  The buffers of the sort by key, read
       before on this stream (the order by key: copied above, or not needed), become the sort's; the gaps stay */
    uint32_t *order = by_key.Alternate();
    k_iota<<<blocks, GEMST_THREADS, 0, s>>>(order, n);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(keys.Current(), gap, sizeof *gap * (size_t)n, cudaMemcpyDeviceToDevice, s));
    cub::DoubleBuffer<uint64_t> gap_bits(keys.Current(), keys.Alternate());
    cub::DoubleBuffer<uint32_t> by_gap(order, by_key.Current());
    GEMST_TRY(sort_pairs(&g->mem, gap_bits, by_gap, n, "sorting the part's points by gap", err));
    GEMST_TRY(wait_kernels(s, &t0, &times->device_ms, err));
    if (points) {
        GEMST_TRY(
            gemst_download_copy(&g->down, points->by_gap, by_gap.Current(), sizeof(uint32_t) * (size_t)n, err));
        times->copy_ms += gemst_lap_ms(&t0);
    } else { /* kept for the store */
        g->w = w;
        g->cell_of = cell_of;
        g->by_gap = by_gap.Current();
    }
    void *done[] = {w, key[0], key[1], index[0], index[1], cell_of, cell_gap};
    for (size_t k = 0; k < sizeof done / sizeof done[0]; k++)
        if (done[k] != g->w && done[k] != g->cell_of && done[k] != g->by_gap) /* g's: NULL unless kept */
            gemst_dfree(&g->mem, done[k]);
    if (!points) /* room for the contraction's components, once the sorts' buffers are gone */
        GEMST_DALLOC(&g->mem, g->comp, n, "the part's points' components");
    return GRIDEMST_OK;
}

extern "C" int gemst_device_gaps_run(gridemst_context *ctx, const gemst_gaps_task *t, const gemst_gaps_points *points,
                                     gemst_device_gaps **out, int64_t *n_cells, gemst_gaps_times *times,
                                     gridemst_error *err)
{
    *out = NULL;
    *n_cells = 0;
    if (t->n < 1)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "the gaps of a part of %lld points", (long long)t->n);
    gemst_device_gaps *g = (gemst_device_gaps *)calloc(1, sizeof *g);
    if (!g)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    g->ctx = ctx;
    g->n = t->n;
    int rc;
    {
        gemst_device_scope on(ctx->device);
        gemst_dmem_init(&g->mem, (cudaMemPool_t)ctx->pool, (cudaStream_t)ctx->stream);
        rc = on.ok ? run(t, points, g, times, err)
                   : gemst_fail(err, GRIDEMST_ERR_CUDA, "cannot select CUDA device %d", ctx->device);
    }
    if (rc != GRIDEMST_OK) {
        gemst_device_gaps_free(g);
        return rc;
    }
    *out = g;
    *n_cells = g->n_cells;
    return GRIDEMST_OK;
}

static int copy_cells(gemst_device_gaps *g, const gemst_gaps_cells *to, gridemst_error *err)
{
    const size_t m = (size_t)g->n_cells;
    if (to->cell_start)
        GEMST_TRY(
            gemst_download_copy(&g->down, to->cell_start, g->cell_start, sizeof *g->cell_start * (m + 1), err));
    GEMST_TRY(gemst_download_copy(&g->down, to->cell_key, g->cell_key, sizeof *g->cell_key * m, err));
    GEMST_TRY(gemst_download_copy(&g->down, to->cell_box, g->cell_box, sizeof *g->cell_box * m, err));
    void *copied[] = {g->cell_start, g->cell_key, g->cell_box}; /* read by nothing on the device after */
    for (size_t k = 0; k < sizeof copied / sizeof copied[0]; k++)
        gemst_dfree(&g->mem, copied[k]);
    g->cell_start = NULL;
    g->cell_key = NULL;
    g->cell_box = NULL;
    return GRIDEMST_OK;
}

extern "C" int gemst_device_gaps_cells(gemst_device_gaps *g, const gemst_gaps_cells *cells, gemst_gaps_times *times,
                                       gridemst_error *err)
{
    gemst_device_scope on(g->ctx->device);
    if (!on.ok)
        return gemst_fail(err, GRIDEMST_ERR_CUDA, "cannot select CUDA device %d", g->ctx->device);
    const double t0 = gemst_now_ms();
    const int rc = copy_cells(g, cells, err);
    times->copy_ms += gemst_now_ms() - t0;
    return rc;
}

extern "C" const double *gemst_device_gaps_gap(const gemst_device_gaps *g)
{
    return g->gap;
}

extern "C" uint32_t *gemst_device_gaps_comp(gemst_device_gaps *g)
{
    return g->comp;
}

extern "C" const uint32_t *gemst_device_gaps_by_key(const gemst_device_gaps *g)
{
    return g->by_key;
}

extern "C" void gemst_device_gaps_drop_by_key(gemst_device_gaps *g)
{
    if (!g->by_key)
        return;
    gemst_device_scope on(g->ctx->device);
    if (on.ok)
        gemst_dfree(&g->mem, g->by_key);
    (void)cudaGetLastError(); /* freeing: nothing to report to */
    g->by_key = NULL;
}

extern "C" void gemst_device_gaps_free(gemst_device_gaps *g)
{
    if (!g)
        return;
    {
        gemst_device_scope on(g->ctx->device);
        gemst_download_close(&g->down);
        if (on.ok)
            gemst_dfree_all(&g->mem);
        (void)cudaGetLastError(); /* freeing: nothing to report to */
    }
    free(g);
}
