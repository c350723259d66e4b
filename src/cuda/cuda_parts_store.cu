/*
 * A part's boundary store filled from its device (parts/device_store.h):
 * the arrays the gaps and the contraction left there (cuda_parts_kept.cuh)
 * gathered in gap order, a fill's points only, and copied to host memory.
 */
#include "cuda/cuda_parts_kept.cuh"
#include "parts/device_store.h"

/* The positions the end's first scan reads, doubled at each scan after it:
 * a fill takes a few percent of a part, and a scan of the whole rest of it
 * at every fill would read each point's gap each time. */
#define END_SCAN ((int64_t)1 << 16)

/* The least position k of [from, to) whose point's gap is not up to limit,
 * into *first by an atomic minimum (the host's test: a NaN limit holds no
 * gap). */
static __global__ void k_first_beyond(const double *gap, const uint32_t *by_gap, int64_t from, int64_t to,
                                      double limit, unsigned long long *first)
{
    const int64_t k = from + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < to && !(gap[by_gap[k]] <= limit))
        atomicMin(first, (unsigned long long)k);
}

/* Positions from .. from + count - 1 of the order by gap: each point's
 * number, component plus base, cell, gap and working coordinates, and
 * its id where the ids are on the device (place not NULL). */
static __global__ void k_rows(const uint32_t *by_gap, const uint32_t *comp, const uint32_t *cell_of,
                              const double *gap, const double *w, const uint32_t *place, gemst_id_runs runs,
                              int64_t from, int64_t count, uint32_t base, uint32_t *at_out, uint32_t *comp_out,
                              uint32_t *cell_out, double *gap_out, double *w_out, gemst_gid *id_out)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count)
        return;
    const uint32_t q = by_gap[from + k];
    at_out[k] = q;
    if (place)
        id_out[k] = gemst_id_of(&runs, q, place[q]);
    comp_out[k] = comp[q] + base;
    cell_out[k] = cell_of[q];
    gap_out[k] = gap[q];
    for (int d = 0; d < 3; d++)
        w_out[3 * k + d] = w[3 * (size_t)q + d];
}

/* The components plus base of count points, and their ids where the ids
 * are on the device (place not NULL). */
static __global__ void k_comps(const uint32_t *comp, const uint32_t *place, gemst_id_runs runs,
                               const uint32_t *point, int64_t count, uint32_t base, uint32_t *out, gemst_gid *id_out)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) {
        const uint32_t q = point[k];
        out[k] = comp[q] + base;
        if (place)
            id_out[k] = gemst_id_of(&runs, q, place[q]);
    }
}

/* Scans of doubling length from `from` on, until one holds a point beyond
 * limit (each a kernel and a 8-byte copy back). */
static int find_end(gemst_device_gaps *g, int64_t from, double limit, int64_t *end, gridemst_error *err)
{
    const cudaStream_t s = g->mem.s;
    unsigned long long *first;
    GEMST_DALLOC(&g->mem, first, 1, "the end of a part's store");
    *end = g->n > from ? g->n : from;
    for (int64_t at = from, scan = END_SCAN; at < g->n; at += scan, scan *= 2) {
        const int64_t to = g->n - at > scan ? at + scan : g->n;
        unsigned long long found = (unsigned long long)to; /* pageable: copied out before the call returns */
        GEMST_CU(cudaMemcpyAsync(first, &found, sizeof found, cudaMemcpyHostToDevice, s));
        k_first_beyond<<<gemst_blocks((uint64_t)(to - at)), GEMST_THREADS, 0, s>>>(g->gap, g->by_gap, at, to,
                                                                                  limit, first);
        GEMST_LAUNCHED();
        GEMST_CU(cudaMemcpyAsync(&found, first, sizeof found, cudaMemcpyDeviceToHost, s));
        GEMST_CU(cudaStreamSynchronize(s));
        if (found < (unsigned long long)to) {
            *end = (int64_t)found;
            break;
        }
    }
    gemst_dfree(&g->mem, first);
    return GRIDEMST_OK;
}

static int gather_rows(gemst_device_gaps *g, int64_t from, int64_t count, uint32_t comp_base,
                       const gemst_store_rows *to, gridemst_error *err)
{
    const cudaStream_t s = g->mem.s;
    uint32_t *at, *comp, *cell;
    gemst_gid *id = NULL;
    double *gap, *w;
    if (g->id)
        GEMST_DALLOC(&g->mem, id, count, "a part's store");
    GEMST_DALLOC(&g->mem, at, count, "a part's store");
    GEMST_DALLOC(&g->mem, comp, count, "a part's store");
    GEMST_DALLOC(&g->mem, cell, count, "a part's store");
    GEMST_DALLOC(&g->mem, gap, count, "a part's store");
    GEMST_DALLOC(&g->mem, w, 3 * count, "a part's store");
    k_rows<<<gemst_blocks((uint64_t)count), GEMST_THREADS, 0, s>>>(g->by_gap, g->comp, g->cell_of, g->gap, g->w,
                                                                  g->id, g->runs, from, count, comp_base, at, comp,
                                                                  cell, gap, w, id);
    GEMST_LAUNCHED();
    if (id)
        GEMST_TRY(gemst_download_copy(&g->down, to->id, id, sizeof *id * (size_t)count, err));
    GEMST_TRY(gemst_download_copy(&g->down, to->at, at, sizeof *at * (size_t)count, err));
    GEMST_TRY(gemst_download_copy(&g->down, to->comp, comp, sizeof *comp * (size_t)count, err));
    GEMST_TRY(gemst_download_copy(&g->down, to->cell, cell, sizeof *cell * (size_t)count, err));
    GEMST_TRY(gemst_download_copy(&g->down, to->gap, gap, sizeof *gap * (size_t)count, err));
    GEMST_TRY(gemst_download_copy(&g->down, to->w, w, sizeof *w * 3 * (size_t)count, err));
    void *done[] = {at, comp, cell, gap, w, id};
    for (size_t k = 0; k < sizeof done / sizeof done[0]; k++)
        gemst_dfree(&g->mem, done[k]);
    return GRIDEMST_OK;
}

static int gather_comps(gemst_device_gaps *g, const uint32_t *point, int64_t count, uint32_t comp_base,
                        uint32_t *comp, gemst_gid *id, gridemst_error *err)
{
    const cudaStream_t s = g->mem.s;
    uint32_t *at, *out;
    gemst_gid *id_out = NULL;
    GEMST_DALLOC(&g->mem, at, count, "the points of a part's uncertain edges");
    GEMST_DALLOC(&g->mem, out, count, "the components of a part's uncertain edges");
    if (g->id)
        GEMST_DALLOC(&g->mem, id_out, count, "the ids of a part's uncertain edges");
    GEMST_CU(cudaMemcpyAsync(at, point, sizeof *at * (size_t)count, cudaMemcpyHostToDevice, s));
    k_comps<<<gemst_blocks((uint64_t)count), GEMST_THREADS, 0, s>>>(g->comp, g->id, g->runs, at, count, comp_base,
                                                                   out, id_out);
    GEMST_LAUNCHED();
    GEMST_TRY(gemst_download_copy(&g->down, comp, out, sizeof *out * (size_t)count, err));
    if (id_out)
        GEMST_TRY(gemst_download_copy(&g->down, id, id_out, sizeof *id * (size_t)count, err));
    gemst_dfree(&g->mem, at);
    gemst_dfree(&g->mem, out);
    gemst_dfree(&g->mem, id_out);
    return GRIDEMST_OK;
}

/* The points' arrays kept on the device, and the device selected. */
static int usable(const gemst_device_gaps *g, const gemst_device_scope &on, gridemst_error *err)
{
    if (!on.ok)
        return gemst_fail(err, GRIDEMST_ERR_CUDA, "cannot select CUDA device %d", g->ctx->device);
    if (!g->by_gap || !g->comp)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "a part's store filled from a device that kept no points");
    return GRIDEMST_OK;
}

extern "C" int gemst_device_store_end(gemst_device_gaps *g, int64_t from, double limit, int64_t *end,
                                      gridemst_error *err)
{
    *end = from;
    gemst_device_scope on(g->ctx->device);
    GEMST_TRY(usable(g, on, err));
    return find_end(g, from, limit, end, err);
}

extern "C" int gemst_device_store_rows(gemst_device_gaps *g, int64_t from, int64_t end, uint32_t comp_base,
                                       const gemst_store_rows *to, gridemst_error *err)
{
    gemst_device_scope on(g->ctx->device);
    GEMST_TRY(usable(g, on, err));
    if (from < 0 || end > g->n || from > end)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "a part's store of positions %lld to %lld of %lld",
                          (long long)from, (long long)end, (long long)g->n);
    return end > from ? gather_rows(g, from, end - from, comp_base, to, err) : GRIDEMST_OK;
}

extern "C" int gemst_device_store_comps(gemst_device_gaps *g, const uint32_t *point, int64_t count,
                                        uint32_t comp_base, uint32_t *comp, gemst_gid *id, gridemst_error *err)
{
    gemst_device_scope on(g->ctx->device);
    GEMST_TRY(usable(g, on, err));
    return count > 0 ? gather_comps(g, point, count, comp_base, comp, id, err) : GRIDEMST_OK;
}

extern "C" void gemst_device_store_use_ids(gemst_device_gaps *g, const uint32_t *place, const gemst_id_runs *runs)
{
    g->id = place;
    g->runs = *runs;
}

extern "C" int gemst_device_store_has_ids(const gemst_device_gaps *g)
{
    return g->id != NULL;
}
