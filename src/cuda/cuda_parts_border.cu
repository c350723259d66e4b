/*
 * A round of the border step over parts on devices (parts/device_border.h):
 * B's points gathered from the parts' kept arrays (cuda_parts_kept.cuh),
 * copied to the first part's device, sorted by id and solved there; its
 * tree's edges between safe components come to host memory.
 */
#include <cub/cub.cuh>

#include "cuda/cuda_devices.cuh"
#include "cuda/cuda_download.cuh"
#include "cuda/cuda_parts_kept.cuh"
#include "parts/device_border.h"
#include "parts/inner.h"

/* Points 0 .. count - 1 of the order by gap: each one's id, component
 * plus base and dim working coordinates. */
static __global__ void k_border_rows(const uint32_t *by_gap, const uint32_t *comp, const double *w,
                                     const uint32_t *place, gemst_id_runs runs, int64_t count, uint32_t base, int dim,
                                     gemst_gid *id_out, uint32_t *comp_out, double *w_out)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count)
        return;
    const uint32_t q = by_gap[k];
    id_out[k] = gemst_id_of(&runs, q, place[q]);
    comp_out[k] = comp[q] + base;
    for (int d = 0; d < dim; d++)
        w_out[dim * k + d] = w[3 * (size_t)q + d];
}

static __global__ void k_border_iota(uint32_t *index, int64_t n)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        index[i] = (uint32_t)i;
}

/* B's points in the order of their ids: from[k] is the k-th's row. */
static __global__ void k_border_order(const uint32_t *from, int64_t m, int dim, const uint32_t *comp, const double *w,
                                      uint32_t *comp_out, double *w_out)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    const uint32_t r = from[k];
    comp_out[k] = comp[r];
    for (int d = 0; d < dim; d++)
        w_out[dim * k + d] = w[dim * (size_t)r + d];
}

/* 1 where a tree edge joins different safe components. */
static __global__ void k_border_flags(const gemst_parts_edge *tree, int64_t m, const uint32_t *comp, uint32_t *flag)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m)
        flag[k] = comp[tree[k].lo] != comp[tree[k].hi];
}

/* The flagged edges at their ranks (the flags' exclusive count), in ids
 * and components. */
static __global__ void k_border_between(const gemst_parts_edge *tree, int64_t m, const uint32_t *flag,
                                        const uint32_t *rank, const gemst_gid *id, const uint32_t *comp,
                                        gemst_store_edge *out)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m || !flag[k])
        return;
    const gemst_parts_edge e = tree[k];
    out[rank[k]] = gemst_store_edge{{e.d2, id[e.lo], id[e.hi]}, comp[e.lo], comp[e.hi]};
}

/* Each row's cell key (inner.h) and component as Kruskal left them. */
static __global__ void k_inner_keys(const double *w, const uint32_t *comp, const uint32_t *root, int64_t m, int dim,
                                    double side, uint64_t *key, uint32_t *comp_out)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    int64_t q[3];
    gemst_inner_cell(w + dim * k, dim, side, q);
    key[k] = gemst_inner_key(q);
    comp_out[k] = root[comp[k]];
}

/* 1 where a run of equal keys (sorted) starts. */
static __global__ void k_inner_starts(const uint64_t *key, int64_t m, uint32_t *start)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m)
        start[k] = k == 0 || key[k] != key[k - 1];
}

/* Each cell's key and the least and greatest component of its points
 * (lo and hi set to all ones and zeros before). */
static __global__ void k_inner_cells(const uint64_t *key, const uint32_t *comp, const uint32_t *start,
                                     const uint32_t *cell, int64_t m, uint64_t *cell_key, uint32_t *lo, uint32_t *hi)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    const uint32_t c = cell[k] + start[k] - 1; /* the exclusive count of starts, plus this one's */
    if (start[k])
        cell_key[c] = key[k];
    atomicMin(&lo[c], comp[k]);
    atomicMax(&hi[c], comp[k]);
}

/* 1 for the rows that are not inner. */
static __global__ void k_inner_keep(const double *w, const uint32_t *comp, int64_t m, int dim, double side,
                                    gemst_inner_cells cells, uint32_t *keep)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    int64_t q[3];
    gemst_inner_cell(w + dim * k, dim, side, q);
    keep[k] = !gemst_inner_alone(&cells, q, dim, comp[k]);
}

/* The kept rows at their ranks. */
static __global__ void k_inner_compact(const uint32_t *keep, const uint32_t *rank, int64_t m, int dim,
                                       const gemst_gid *id, const uint32_t *comp, const double *w, gemst_gid *id_out,
                                       uint32_t *comp_out, double *w_out)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m || !keep[k])
        return;
    const uint32_t j = rank[k];
    id_out[j] = id[k];
    comp_out[j] = comp[k];
    for (int d = 0; d < dim; d++)
        w_out[dim * (size_t)j + d] = w[dim * (size_t)k + d];
}

/* The exclusive count of the m flags into rank, and their sum. */
static int count_flags(gemst_dmem *mem, const uint32_t *flag, uint32_t *rank, int64_t m, int64_t *sum,
                       gridemst_error *err)
{
    const cudaStream_t s = mem->s;
    size_t bytes = 0;
    void *temp;
    GEMST_CU(cub::DeviceScan::ExclusiveSum(NULL, bytes, flag, rank, m, s));
    GEMST_TRY(gemst_dalloc(mem, &temp, bytes, "counting the points near the borders", err));
    GEMST_CU(cub::DeviceScan::ExclusiveSum(temp, bytes, flag, rank, m, s));
    gemst_dfree(mem, temp);
    uint32_t last[2] = {0, 0};
    GEMST_CU(cudaMemcpyAsync(&last[0], rank + m - 1, sizeof last[0], cudaMemcpyDeviceToHost, s));
    GEMST_CU(cudaMemcpyAsync(&last[1], flag + m - 1, sizeof last[1], cudaMemcpyDeviceToHost, s));
    GEMST_CU(cudaStreamSynchronize(s));
    *sum = (int64_t)last[0] + last[1];
    return GRIDEMST_OK;
}

extern "C" int gemst_device_border_ready(const gemst_device_gaps *g)
{
    return g && g->by_gap && g->comp && g->w && g->id;
}

/* B's points on the first part's device, their rows in part order. */
struct border_rows {
    int64_t m;
    gemst_gid *id;
    uint32_t *comp;
    double *w;
};

/* Part p's held points by gap, gathered on its device into `buf` (held
 * ids, then dim * held coordinates, then held components), then copied
 * into the first part's rows from row `at`. */
static int copy_rows(gemst_devices *d, gemst_device_gaps *g, int p, int64_t held, uint32_t base, int dim, char *buf,
                     int64_t at, border_rows *rows, gridemst_error *err)
{
    gemst_gid *id = (gemst_gid *)buf;
    double *w = (double *)(id + held);
    uint32_t *comp = (uint32_t *)(w + dim * held);
    const cudaStream_t s = gemst_devices_stream(d, p);
    k_border_rows<<<gemst_blocks((uint64_t)held), GEMST_THREADS, 0, s>>>(g->by_gap, g->comp, g->w, g->id, g->runs,
                                                                        held, base, dim, id, comp, w);
    GEMST_LAUNCHED();
    GEMST_CU(cudaStreamSynchronize(s));
    const cudaStream_t s0 = gemst_devices_stream(d, 0);
    const int from = d->ordinal[p], to = d->ordinal[0];
    GEMST_CU(cudaMemcpyPeerAsync(rows->id + at, to, id, from, sizeof *id * (size_t)held, s0));
    GEMST_CU(cudaMemcpyPeerAsync(rows->comp + at, to, comp, from, sizeof *comp * (size_t)held, s0));
    GEMST_CU(cudaMemcpyPeerAsync(rows->w + dim * at, to, w, from, sizeof *w * (size_t)(dim * held), s0));
    GEMST_CU(cudaStreamSynchronize(s0));
    return GRIDEMST_OK;
}

/* The same with the buffer on part p's device (cudaMalloc: the first
 * part's device copies from it), freed after. */
static int rows_of_part(gemst_devices *d, gemst_device_gaps *g, int p, int64_t held, uint32_t base, int dim,
                        int64_t at, border_rows *rows, gridemst_error *err)
{
    gemst_device_part *dp = &d->part[p];
    gemst_device_scope on(d->ordinal[p]);
    if (!on.ok)
        return gemst_fail(err, GRIDEMST_ERR_CUDA, "cannot select CUDA device %d", d->ordinal[p]);
    const size_t bytes = (sizeof(gemst_gid) + sizeof(double) * dim + sizeof(uint32_t)) * (size_t)held;
    void *buf;
    GEMST_TRY(gemst_dalloc(&dp->peer_mem, &buf, bytes, "a part's points near the borders", err));
    const int rc = copy_rows(d, g, p, held, base, dim, (char *)buf, at, rows, err);
    gemst_dfree(&dp->peer_mem, buf); /* on p's device: cudaFree waits for the copies */
    return rc;
}

/* B in the order of its ids on the first part's device: ids, components
 * and working coordinates (dim a point), in its memory (mem). */
static int sorted_points(gemst_dmem *mem, const border_rows *rows, int dim, uint64_t most_id, gemst_gid **id,
                         uint32_t **comp, double **w, gridemst_error *err)
{
    const int64_t m = rows->m;
    const cudaStream_t s = mem->s;
    uint32_t *row, *from;
    GEMST_DALLOC(mem, *id, m, "the points near the borders by id");
    GEMST_DALLOC(mem, row, m, "the points near the borders by id");
    GEMST_DALLOC(mem, from, m, "the points near the borders by id");
    k_border_iota<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(row, m);
    GEMST_LAUNCHED();
    int bits = 1;
    while (bits < 64 && most_id >> bits)
        bits++;
    size_t bytes = 0;
    void *temp;
    GEMST_CU(cub::DeviceRadixSort::SortPairs(NULL, bytes, rows->id, *id, row, from, m, 0, bits, s));
    GEMST_TRY(gemst_dalloc(mem, &temp, bytes, "sorting the points near the borders", err));
    GEMST_CU(cub::DeviceRadixSort::SortPairs(temp, bytes, rows->id, *id, row, from, m, 0, bits, s));
    gemst_dfree(mem, temp);
    gemst_dfree(mem, row);
    GEMST_DALLOC(mem, *comp, m, "the points near the borders by id");
    GEMST_DALLOC(mem, *w, dim * m, "the points near the borders by id");
    k_border_order<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(from, m, dim, rows->comp, rows->w, *comp, *w);
    GEMST_LAUNCHED();
    gemst_dfree(mem, from);
    return GRIDEMST_OK;
}

/* The tree's edges between safe components, into host memory. */
static int between_components(gemst_dmem *mem, const gemst_parts_edge *tree, int64_t m, const gemst_gid *id,
                              const uint32_t *comp, int threads, gemst_store_edge **between, int64_t *n_between,
                              gridemst_error *err)
{
    const cudaStream_t s = mem->s;
    uint32_t *flag, *rank;
    gemst_store_edge *out;
    GEMST_DALLOC(mem, flag, m, "the border's tree's edges between components");
    GEMST_DALLOC(mem, rank, m, "the border's tree's edges between components");
    k_border_flags<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(tree, m, comp, flag);
    GEMST_LAUNCHED();
    GEMST_TRY(count_flags(mem, flag, rank, m, n_between, err));
    GEMST_DALLOC(mem, out, *n_between, "the border's tree's edges between components");
    k_border_between<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(tree, m, flag, rank, id, comp, out);
    GEMST_LAUNCHED();
    *between = (gemst_store_edge *)malloc(sizeof **between * (size_t)(*n_between > 0 ? *n_between : 1));
    if (!*between)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld edges", (long long)*n_between);
    gemst_download down;
    int rc = gemst_download_open(&down, s, threads, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_download_copy(&down, *between, out, sizeof *out * (size_t)*n_between, err);
    gemst_download_close(&down);
    return rc;
}

/* The rows less their inner points (inner.h), their order kept. */
static int drop_inner(gemst_dmem *mem, border_rows *rows, int dim, const gemst_border_inner *inner,
                      gridemst_error *err)
{
    const cudaStream_t s = mem->s;
    const int64_t m = rows->m;
    if (m == 0)
        return GRIDEMST_OK;
    uint32_t *root, *comp, *comp_sorted, *start, *cell, *lo, *hi, *keep, *rank;
    uint64_t *key, *key_sorted, *cell_key;
    GEMST_DALLOC(mem, root, inner->n_comp, "the components near the borders");
    GEMST_CU(cudaMemcpyAsync(root, inner->root, sizeof *root * (size_t)inner->n_comp, cudaMemcpyHostToDevice, s));
    GEMST_DALLOC(mem, key, m, "the cells near the borders");
    GEMST_DALLOC(mem, comp, m, "the cells near the borders");
    k_inner_keys<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(rows->w, rows->comp, root, m, dim, inner->side,
                                                                    key, comp);
    GEMST_LAUNCHED();
    GEMST_DALLOC(mem, key_sorted, m, "the cells near the borders");
    GEMST_DALLOC(mem, comp_sorted, m, "the cells near the borders");
    size_t bytes = 0;
    void *temp;
    GEMST_CU(cub::DeviceRadixSort::SortPairs(NULL, bytes, key, key_sorted, comp, comp_sorted, m, 0, 64, s));
    GEMST_TRY(gemst_dalloc(mem, &temp, bytes, "sorting the cells near the borders", err));
    GEMST_CU(cub::DeviceRadixSort::SortPairs(temp, bytes, key, key_sorted, comp, comp_sorted, m, 0, 64, s));
    gemst_dfree(mem, temp);
    GEMST_DALLOC(mem, start, m, "the cells near the borders");
    GEMST_DALLOC(mem, cell, m, "the cells near the borders");
    k_inner_starts<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(key_sorted, m, start);
    GEMST_LAUNCHED();
    int64_t n_cells = 0;
    GEMST_TRY(count_flags(mem, start, cell, m, &n_cells, err));
    GEMST_DALLOC(mem, cell_key, n_cells, "the cells near the borders");
    GEMST_DALLOC(mem, lo, n_cells, "the cells near the borders");
    GEMST_DALLOC(mem, hi, n_cells, "the cells near the borders");
    GEMST_CU(cudaMemsetAsync(lo, 0xff, sizeof *lo * (size_t)n_cells, s));
    GEMST_CU(cudaMemsetAsync(hi, 0, sizeof *hi * (size_t)n_cells, s));
    k_inner_cells<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(key_sorted, comp_sorted, start, cell, m,
                                                                     cell_key, lo, hi);
    GEMST_LAUNCHED();
    gemst_dfree(mem, key_sorted);
    gemst_dfree(mem, comp_sorted);
    gemst_dfree(mem, start);
    gemst_dfree(mem, cell);
    GEMST_DALLOC(mem, keep, m, "the points near the borders kept");
    GEMST_DALLOC(mem, rank, m, "the points near the borders kept");
    const gemst_inner_cells cells = {cell_key, lo, hi, n_cells};
    k_inner_keep<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(rows->w, comp, m, dim, inner->side, cells, keep);
    GEMST_LAUNCHED();
    int64_t kept = 0;
    GEMST_TRY(count_flags(mem, keep, rank, m, &kept, err));
    border_rows out = {kept, NULL, NULL, NULL};
    GEMST_DALLOC(mem, out.id, kept, "the points near the borders kept");
    GEMST_DALLOC(mem, out.comp, kept, "the points near the borders kept");
    GEMST_DALLOC(mem, out.w, dim * kept, "the points near the borders kept");
    k_inner_compact<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(keep, rank, m, dim, rows->id, rows->comp,
                                                                       rows->w, out.id, out.comp, out.w);
    GEMST_LAUNCHED();
    void *done[] = {root, key, comp, cell_key, lo, hi, keep, rank, rows->id, rows->comp, rows->w};
    for (size_t k = 0; k < sizeof done / sizeof done[0]; k++)
        gemst_dfree(mem, done[k]);
    *rows = out;
    return GRIDEMST_OK;
}

/* The round, its buffers on the first part's device in mem. */
static int round_on(gemst_devices *d, gemst_dmem *mem, gemst_device_gaps *const *gaps, const int64_t *held,
                    const uint32_t *comp_base, const gemst_border_inner *inner, const gemst_problem *solve,
                    int threads, gemst_store_edge **between, int64_t *n_between, int64_t *n_points,
                    gridemst_error *err)
{
    const int dim = solve->dim;
    border_rows rows = {0, NULL, NULL, NULL};
    for (int p = 0; p < d->count; p++)
        rows.m += held[p];
    GEMST_DALLOC(mem, rows.id, rows.m, "the points near the borders");
    GEMST_DALLOC(mem, rows.comp, rows.m, "the points near the borders");
    GEMST_DALLOC(mem, rows.w, dim * rows.m, "the points near the borders");
    int64_t at = 0;
    for (int p = 0; p < d->count; at += held[p], p++)
        if (held[p] > 0)
            GEMST_TRY(rows_of_part(d, gaps[p], p, held[p], comp_base[p], dim, at, &rows, err));
    GEMST_TRY(drop_inner(mem, &rows, dim, inner, err));
    *n_points = rows.m;
    if (rows.m < 2 || rows.m > inner->most)
        return GRIDEMST_OK;
    gemst_gid *id;
    uint32_t *comp;
    double *w;
    GEMST_TRY(sorted_points(mem, &rows, dim, (uint64_t)(solve->n - 1), &id, &comp, &w, err));
    gemst_dfree(mem, rows.id);
    gemst_dfree(mem, rows.comp);
    gemst_dfree(mem, rows.w);
    gemst_problem lp = *solve;
    lp.coords = w;
    lp.on_device = 1;
    lp.dtype = GRIDEMST_FLOAT64;
    lp.n = rows.m;
    lp.raw_tree = 1;
    gemst_tree tree;
    gridemst_stats st;
    memset(&tree, 0, sizeof tree);
    memset(&st, 0, sizeof st);
    GEMST_TRY(gemst_cuda_solve(&lp, &tree, &st, err));
    GEMST_TRY(gemst_dadopt(mem, tree.part_edges, sizeof(gemst_parts_edge) * (size_t)tree.n_edges, err));
    gemst_dfree(mem, w);
    return between_components(mem, (const gemst_parts_edge *)tree.part_edges, tree.n_edges, id, comp, threads,
                              between, n_between, err);
}

extern "C" int gemst_devices_border_round(gemst_devices *d, gemst_device_gaps *const *gaps, const int64_t *held,
                                          const uint32_t *comp_base, const gemst_border_inner *inner,
                                          const gemst_problem *solve, int threads, gemst_store_edge **between,
                                          int64_t *n_between, int64_t *n_points, gridemst_error *err)
{
    *between = NULL;
    *n_between = 0;
    *n_points = 0;
    int64_t m = 0; /* the points within the limit */
    for (int p = 0; p < d->count; p++)
        m += held[p];
    if (m < 2) { /* nothing to solve, nor to leave out */
        *n_points = m;
        return GRIDEMST_OK;
    }
    if (m > UINT32_MAX)
        return gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "%lld points near the parts' borders", (long long)m);
    gemst_device_scope on(d->ordinal[0]);
    if (!on.ok)
        return gemst_fail(err, GRIDEMST_ERR_CUDA, "cannot select CUDA device %d", d->ordinal[0]);
    gemst_dmem mem;
    gemst_dmem_init(&mem, (cudaMemPool_t)d->ctx[0]->pool, gemst_devices_stream(d, 0));
    const int rc = round_on(d, &mem, gaps, held, comp_base, inner, solve, threads, between, n_between, n_points, err);
    gemst_dfree_all(&mem);
    if (rc != GRIDEMST_OK) {
        free(*between);
        *between = NULL;
        *n_between = 0;
    }
    return rc;
}
