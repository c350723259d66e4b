/*
 * The parts' trees kept on their devices, and the whole set's tree put
 * together there (parts/device_assemble.h).
 */
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_merge.cuh>
#include <cub/device/device_merge_sort.cuh>

#include "cuda/cuda_devices.cuh"
#include "cuda/cuda_download.cuh"
#include "cuda/cuda_parts_steps.cuh"
#include "cuda/cuda_sum_groups.cuh"
#include "host_tree.h"
#include "parts/device_assemble.h"
#include "result_edges.h"

/* Regular samples of each device's edges for the splitters. */
#define ASSEMBLE_SAMPLES 256

/* The contraction's mark of a safe edge (cuda_parts_contract.cu). */
#define MARK_SAFE 1

/* An edge of the result as the devices sort and send it: its ids and w. */
typedef struct {
    double w;
    gemst_gid u, v;
} result_edge;

/* The result's order: w, then u, then v. */
struct result_less {
    __host__ __device__ bool operator()(const result_edge &a, const result_edge &b) const
    {
        if (a.w != b.w)
            return a.w < b.w;
        return a.u != b.u ? a.u < b.u : a.v < b.v;
    }
};

/* The splitters, passed by value to the kernels. */
typedef struct {
    result_edge at[GEMST_MAX_DEVICES];
} splitters;

extern "C" int gemst_devices_keep_tree(gemst_devices *d, int p, void *edges, int64_t m, const gemst_parts_edge **tree,
                                       gridemst_error *err)
{
    gemst_device_part *dp = &d->part[p];
    GEMST_TRY(gemst_dadopt(&dp->mem, edges, sizeof *dp->tree * (size_t)(m > 0 ? m : 1), err));
    dp->tree = (gemst_parts_edge *)edges;
    dp->n_tree = m;
    *tree = dp->tree;
    return GRIDEMST_OK;
}

extern "C" int gemst_devices_tree_marks(gemst_devices *d, int p, uint8_t **marks, gridemst_error *err)
{
    gemst_device_scope keep(d->ordinal[p]);
    if (!keep.ok)
        return gemst_fail(err, GRIDEMST_ERR_CUDA, "cannot select CUDA device %d", d->ordinal[p]);
    gemst_device_part *dp = &d->part[p];
    GEMST_DALLOC(&dp->mem, dp->mark, dp->n_tree > 0 ? dp->n_tree : 1, "a part's safe edges");
    *marks = dp->mark;
    return GRIDEMST_OK;
}

/* m edges on part p's device into host memory (to), on `threads` host
 * threads. */
static int download_edges(gemst_devices *d, int p, const gemst_parts_edge *from, int64_t m, gemst_parts_edge *to,
                          int threads, gridemst_error *err)
{
    gemst_download down;
    int rc = gemst_download_open(&down, gemst_devices_stream(d, p), threads, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_download_copy(&down, to, from, sizeof *to * (size_t)m, err);
    gemst_download_close(&down);
    return rc;
}

extern "C" int gemst_devices_tree_to_host(gemst_devices *d, int p, gemst_parts_edge *to, int threads,
                                          gridemst_error *err)
{
    gemst_device_scope keep(d->ordinal[p]);
    if (!keep.ok)
        return gemst_fail(err, GRIDEMST_ERR_CUDA, "cannot select CUDA device %d", d->ordinal[p]);
    gemst_device_part *dp = &d->part[p];
    const int rc = download_edges(d, p, dp->tree, dp->n_tree, to, threads, err);
    if (rc == GRIDEMST_OK) { /* the host's assembly reads the host's copy */
        gemst_dfree(&dp->mem, dp->tree);
        dp->tree = NULL;
    }
    return rc;
}

extern "C" int gemst_devices_take_edges(gemst_devices *d, int p, void *edges, int64_t m, gemst_parts_edge *to,
                                        int threads, gridemst_error *err)
{
    gemst_device_scope keep(d->ordinal[p]);
    if (!keep.ok)
        return gemst_fail(err, GRIDEMST_ERR_CUDA, "cannot select CUDA device %d", d->ordinal[p]);
    gemst_device_part *dp = &d->part[p];
    GEMST_TRY(gemst_dadopt(&dp->mem, edges, sizeof *to * (size_t)(m > 0 ? m : 1), err));
    const int rc = download_edges(d, p, (const gemst_parts_edge *)edges, m, to, threads, err);
    gemst_dfree(&dp->mem, edges);
    return rc;
}

static __global__ void k_safe_flags(const uint8_t *mark, int64_t m, uint32_t *flag)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m)
        flag[k] = mark[k] == MARK_SAFE;
}

/* The safe edges in the whole set's ids (from the part's places and runs),
 * with w as the host computes it (sqrt and division are correctly rounded
 * on the device too), in the tree's order (rank: the flags' inclusive
 * count). */
static __global__ void k_safe_edges(const gemst_parts_edge *tree, const uint32_t *flag, const uint32_t *rank,
                                    const uint32_t *place, gemst_id_runs runs, int64_t m, double scale,
                                    result_edge *out)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m && flag[k]) {
        const gemst_parts_edge e = tree[k];
        result_edge r;
        r.w = sqrt(e.d2) / scale;
        r.u = gemst_id_of(&runs, e.lo, place[e.lo]);
        r.v = gemst_id_of(&runs, e.hi, place[e.hi]);
        out[rank[k] - 1] = r;
    }
}

/* *count += the edges out of the result's order after their neighbour. */
static __global__ void k_disorder(const result_edge *e, int64_t n, int *count)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k > 0 && k < n && result_less()(e[k], e[k - 1]))
        atomicAdd(count, 1);
}

/* The k-th of n_sample regular samples of n sorted edges. */
static __global__ void k_samples(const result_edge *e, int64_t n, int n_sample, result_edge *sample)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n_sample)
        sample[k] = e[(2 * (int64_t)k + 1) * n / (2 * n_sample)];
}

/* The first of n sorted edges not before a splitter. */
static __host__ __device__ int64_t first_not_before(const result_edge *e, int64_t n, const result_edge &key)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (result_less()(e[mid], key))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static __global__ void k_cuts(const result_edge *e, int64_t n, splitters split, int n_split, int64_t *cut)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n_split)
        cut[j] = first_not_before(e, n, split.at[j]);
}

/* The edges in the result's form, and their lengths alone (for the sums). */
static __global__ void k_result_edges(const result_edge *e, int64_t n, gridemst_edge *out, double *w)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        gridemst_edge r;
        r.u = e[k].u;
        r.v = e[k].v;
        r.w = e[k].w;
        out[k] = r;
        w[k] = r.w;
    }
}

/* The edges as the three arrays of a share left on the device (ids below
 * 2^32: a device result holds no more points, solve.c). */
static __global__ void k_share_arrays(const result_edge *e, int64_t n, uint32_t *u, uint32_t *v, double *w)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        u[k] = (uint32_t)e[k].u;
        v[k] = (uint32_t)e[k].v;
        w[k] = e[k].w;
    }
}

/* What the assembly holds per device. */
typedef struct {
    result_edge *edge;      /* its part's safe edges, sorted (NCCL sends them: peer memory) */
    int64_t n_edge;
    result_edge *got;       /* what it received, then merged */
    int64_t n_got;
    int64_t run[GEMST_MAX_DEVICES + 2]; /* where each sender's run starts in got, the boundary's last */
} device_share;

/* Sorts n edges at e by the result's order, on dp's stream. */
static int sort_edges(gemst_device_part *dp, result_edge *e, int64_t n, gridemst_error *err)
{
    size_t bytes = 0;
    void *temp;
    GEMST_CU(cub::DeviceMergeSort::SortKeys(NULL, bytes, e, n, result_less(), dp->mem.s));
    GEMST_TRY(gemst_dalloc(&dp->mem, &temp, bytes, "sorting a part's tree", err));
    GEMST_CU(cub::DeviceMergeSort::SortKeys(temp, bytes, e, n, result_less(), dp->mem.s));
    gemst_dfree(&dp->mem, temp);
    return GRIDEMST_OK;
}

/* Part p's safe edges into sh->edge, in the result's order; its tree, marks
 * and ids freed. */
static int safe_edges(gemst_devices *d, int p, double scale, device_share *sh, gridemst_error *err)
{
    gemst_device_part *dp = &d->part[p];
    const cudaStream_t s = dp->mem.s;
    const int64_t m = dp->n_tree;
    sh->n_edge = 0;
    if (m > 0) {
        uint32_t *flag, *rank, total = 0;
        GEMST_DALLOC(&dp->mem, flag, m, "a part's safe edges");
        GEMST_DALLOC(&dp->mem, rank, m, "a part's safe edges");
        k_safe_flags<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(dp->mark, m, flag);
        GEMST_LAUNCHED();
        GEMST_TRY(gemst_inclusive_count(&dp->mem, flag, rank, m, "a part's safe edges", err));
        GEMST_CU(cudaMemcpyAsync(&total, rank + m - 1, sizeof total, cudaMemcpyDeviceToHost, s));
        GEMST_CU(cudaStreamSynchronize(s));
        sh->n_edge = total;
        GEMST_DALLOC(&dp->peer_mem, sh->edge, total > 0 ? total : 1, "a part's safe edges");
        k_safe_edges<<<gemst_blocks((uint64_t)m), GEMST_THREADS, 0, s>>>(dp->tree, flag, rank, dp->id, dp->runs, m,
                                                                         scale, sh->edge);
        GEMST_LAUNCHED();
        gemst_dfree(&dp->mem, flag);
        gemst_dfree(&dp->mem, rank);
    } else {
        GEMST_DALLOC(&dp->peer_mem, sh->edge, 1, "a part's safe edges");
    }
    gemst_dfree(&dp->mem, dp->tree);
    gemst_dfree(&dp->mem, dp->mark);
    gemst_dfree(&dp->peer_mem, dp->id);
    dp->tree = NULL;
    dp->mark = NULL;
    dp->id = NULL;
    if (sh->n_edge < 2)
        return GRIDEMST_OK;
    /* distinct squared lengths may share a square root: such runs, rare, are sorted */
    int *disorder, out_of_order = 0;
    GEMST_DALLOC(&dp->mem, disorder, 1, "a part's safe edges");
    GEMST_CU(cudaMemsetAsync(disorder, 0, sizeof *disorder, s));
    k_disorder<<<gemst_blocks((uint64_t)sh->n_edge), GEMST_THREADS, 0, s>>>(sh->edge, sh->n_edge, disorder);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(&out_of_order, disorder, sizeof out_of_order, cudaMemcpyDeviceToHost, s));
    GEMST_CU(cudaStreamSynchronize(s));
    gemst_dfree(&dp->mem, disorder);
    return out_of_order ? sort_edges(dp, sh->edge, sh->n_edge, err) : GRIDEMST_OK;
}

static int host_less(const void *a, const void *b)
{
    const result_edge *x = (const result_edge *)a, *y = (const result_edge *)b;
    return result_less()(*x, *y) ? -1 : result_less()(*y, *x) ? 1 : 0;
}

/* The P - 1 splitters from every device's samples. */
static int pick_splitters(gemst_devices *d, const device_share *sh, splitters *split, gridemst_error *err)
{
    const int P = d->count;
    result_edge *all = (result_edge *)malloc(sizeof *all * ASSEMBLE_SAMPLES * (size_t)P);
    if (!all)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    int64_t n_all = 0;
    int rc = GRIDEMST_OK;
    for (int p = 0; p < P && rc == GRIDEMST_OK; p++) {
        gemst_device_part *dp = &d->part[p];
        const int n_sample = sh[p].n_edge < ASSEMBLE_SAMPLES ? (int)sh[p].n_edge : ASSEMBLE_SAMPLES;
        if (n_sample == 0)
            continue;
        result_edge *sample = NULL;
        cudaError_t e = cudaSetDevice(d->ordinal[p]);
        if (e == cudaSuccess)
            rc = gemst_dalloc(&dp->mem, (void **)&sample, sizeof *sample * n_sample, "a part's samples", err);
        if (rc != GRIDEMST_OK)
            break;
        if (e == cudaSuccess) {
            k_samples<<<gemst_blocks((uint64_t)n_sample), GEMST_THREADS, 0, dp->mem.s>>>(sh[p].edge, sh[p].n_edge,
                                                                                          n_sample, sample);
            e = cudaGetLastError();
        }
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(all + n_all, sample, sizeof *sample * n_sample, cudaMemcpyDeviceToHost, dp->mem.s);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(dp->mem.s);
        if (e != cudaSuccess)
            rc = gemst_cuda_fail(err, e, "sampling a part's tree", __FILE__, __LINE__);
        gemst_dfree(&dp->mem, sample);
        n_all += n_sample;
    }
    if (rc == GRIDEMST_OK) {
        qsort(all, (size_t)n_all, sizeof *all, host_less);
        memset(split, 0, sizeof *split);
        for (int j = 1; j < P; j++) /* with no samples at all every range but the last is empty */
            split->at[j - 1] = n_all > 0 ? all[(n_all * j) / P] : (result_edge){0.0, 0, 0};
    }
    free(all);
    return rc;
}

/* Part p's count of edges in each device's range into row (P of them). */
static int cut_edges(gemst_devices *d, int p, const splitters *split, const device_share *sh, int64_t *row,
                     gridemst_error *err)
{
    gemst_device_part *dp = &d->part[p];
    const int P = d->count;
    int64_t start[GEMST_MAX_DEVICES + 1], *d_start; /* where each range starts among the edges */
    start[0] = 0;
    start[P] = sh->n_edge;
    GEMST_DALLOC(&dp->mem, d_start, P - 1, "a part's ranges");
    k_cuts<<<1, GEMST_MAX_DEVICES, 0, dp->mem.s>>>(sh->edge, sh->n_edge, *split, P - 1, d_start);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(start + 1, d_start, sizeof *d_start * (size_t)(P - 1), cudaMemcpyDeviceToHost,
                             dp->mem.s));
    GEMST_CU(cudaStreamSynchronize(dp->mem.s));
    gemst_dfree(&dp->mem, d_start);
    for (int q = 0; q < P; q++)
        row[q] = start[q + 1] - start[q];
    return GRIDEMST_OK;
}

/* n edges at e sorted on dp's device (millions of them: the host's qsort
 * took a second), waited for. */
static int sort_through_device(gemst_device_part *dp, result_edge *e, int64_t n, gridemst_error *err)
{
    if (n < 2)
        return GRIDEMST_OK;
    result_edge *on_device;
    GEMST_DALLOC(&dp->mem, on_device, n, "sorting the boundary's edges");
    GEMST_CU(cudaMemcpyAsync(on_device, e, sizeof *e * (size_t)n, cudaMemcpyHostToDevice, dp->mem.s));
    GEMST_TRY(sort_edges(dp, on_device, n, err));
    GEMST_CU(cudaMemcpyAsync(e, on_device, sizeof *e * (size_t)n, cudaMemcpyDeviceToHost, dp->mem.s));
    GEMST_CU(cudaStreamSynchronize(dp->mem.s));
    gemst_dfree(&dp->mem, on_device);
    return GRIDEMST_OK;
}

/* The boundary's edges as result edges, sorted on the first device, and
 * where each device's range starts among them (bcut, P + 1 entries). */
static int boundary_edges(gemst_devices *d, const gemst_gid_edge *boundary, int64_t n, double scale,
                          const splitters *split, result_edge **sorted, int64_t *bcut, gridemst_error *err)
{
    const int P = d->count;
    result_edge *e = (result_edge *)malloc(sizeof *e * (size_t)(n > 0 ? n : 1));
    if (!e)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    for (int64_t k = 0; k < n; k++) {
        e[k].w = sqrt(boundary[k].d2) / scale;
        e[k].u = boundary[k].lo;
        e[k].v = boundary[k].hi;
    }
    cudaError_t ce = cudaSetDevice(d->ordinal[0]);
    const int rc = ce == cudaSuccess ? sort_through_device(&d->part[0], e, n, err)
                                     : gemst_cuda_fail(err, ce, "selecting a device", __FILE__, __LINE__);
    if (rc != GRIDEMST_OK) {
        free(e);
        return rc;
    }
    bcut[0] = 0;
    bcut[P] = n;
    for (int j = 1; j < P; j++)
        bcut[j] = first_not_before(e, n, split->at[j - 1]);
    *sorted = e;
    return GRIDEMST_OK;
}

/* Device p's runs in sh->got merged into one, on its stream. */
static int merge_runs(gemst_device_part *dp, device_share *sh, int runs, gridemst_error *err)
{
    result_edge *other;
    GEMST_DALLOC(&dp->mem, other, sh->n_got > 0 ? sh->n_got : 1, "merging a part's share of the tree");
    result_edge *from = sh->got, *to = other;
    while (runs > 1) {
        int merged = 0;
        for (int r = 0; r < runs; r += 2, merged++) {
            const int64_t a = sh->run[r], b = sh->run[r + 1], end = r + 1 < runs ? sh->run[r + 2] : b;
            if (r + 1 < runs && end > a) {
                size_t bytes = 0;
                void *temp;
                GEMST_CU(cub::DeviceMerge::MergeKeys(NULL, bytes, from + a, b - a, from + b, end - b, to + a,
                                                     result_less(), dp->mem.s));
                GEMST_TRY(gemst_dalloc(&dp->mem, &temp, bytes, "merging a part's share of the tree", err));
                GEMST_CU(cub::DeviceMerge::MergeKeys(temp, bytes, from + a, b - a, from + b, end - b, to + a,
                                                     result_less(), dp->mem.s));
                gemst_dfree(&dp->mem, temp);
            } else if (b > a) { /* the odd run out */
                GEMST_CU(cudaMemcpyAsync(to + a, from + a, sizeof *to * (size_t)(b - a), cudaMemcpyDeviceToDevice,
                                         dp->mem.s));
            }
            sh->run[merged] = a;
        }
        sh->run[merged] = sh->run[runs];
        runs = merged;
        result_edge *t = from;
        from = to;
        to = t;
    }
    if (from != sh->got)
        GEMST_CU(cudaMemcpyAsync(sh->got, from, sizeof *from * (size_t)sh->n_got, cudaMemcpyDeviceToDevice,
                                 dp->mem.s));
    gemst_dfree(&dp->mem, other);
    return GRIDEMST_OK;
}

/* The sums of the length groups (GEMST_TOTAL_GROUP, common.h) that lie
 * whole within a device's share of the m edges, its n lengths w from
 * position at: into sums (host memory, a group each), each marked in
 * `summed`. */
static int sum_groups(gemst_device_part *dp, const double *w, int64_t n, int64_t at, int64_t m, double *sums,
                      uint8_t *summed, gridemst_error *err)
{
    const int64_t G = GEMST_TOTAL_GROUP, first = (at + G - 1) / G;
    const int64_t end = at + n == m ? (m + G - 1) / G : (at + n) / G; /* the last group ends at m */
    if (end <= first)
        return GRIDEMST_OK;
    const int64_t count = (end * G < m ? end * G : m) - first * G;
    double *d_sums;
    GEMST_DALLOC(&dp->mem, d_sums, end - first, "the tree's length sums");
    gemst_k_sum_groups<<<(unsigned)((end - first + GEMST_SUM_WARPS - 1) / GEMST_SUM_WARPS), 32 * GEMST_SUM_WARPS, 0,
                         dp->mem.s>>>((uint64_t)count, w + (first * G - at), d_sums);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(sums + first, d_sums, sizeof *d_sums * (size_t)(end - first), cudaMemcpyDeviceToHost,
                             dp->mem.s));
    memset(summed + first, 1, (size_t)(end - first));
    gemst_dfree(&dp->mem, d_sums);
    return GRIDEMST_OK;
}

/* Device p's merged share as the result's edges into out + at (host
 * memory, registered in chunks from out when `registered`) and its
 * groups' sums, queued on its stream. */
static int copy_share(gemst_device_part *dp, const device_share *sh, gridemst_edge *out, int64_t at, int64_t m,
                      int registered, double *sums, uint8_t *summed, gridemst_edge **staged, gridemst_error *err)
{
    const int64_t n = sh->n_got;
    *staged = NULL;
    if (n == 0)
        return GRIDEMST_OK;
    double *w;
    GEMST_DALLOC(&dp->mem, *staged, n, "a part's share of the tree");
    GEMST_DALLOC(&dp->mem, w, n, "a part's share of the tree");
    k_result_edges<<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, dp->mem.s>>>(sh->got, n, *staged, w);
    GEMST_LAUNCHED();
    GEMST_TRY(sum_groups(dp, w, n, at, m, sums, summed, err));
    gemst_dfree(&dp->mem, w);
    /* chunk by chunk as registered (host_tree.h): a copy reaching across
       registrations would go the pageable way */
    const size_t first = sizeof *out * (size_t)at, end = first + sizeof *out * (size_t)n;
    for (size_t from = first; from < end;) {
        size_t to = registered ? (from / GEMST_PIN_CHUNK + 1) * GEMST_PIN_CHUNK : end;
        to = to < end ? to : end;
        GEMST_CU(cudaMemcpyAsync((char *)out + from, (const char *)*staged + (from - first), to - from,
                                 cudaMemcpyDeviceToHost, dp->mem.s));
        from = to;
    }
    return GRIDEMST_OK;
}

/* Device p's share *kept of the tree's edges first .. first + n - 1:
 * its three arrays of n entries from the device's context's pool, outside
 * the assembly's allocations, and the context's reference, which the
 * share holds; no arrays for none. */
static int make_share(gemst_devices *d, int p, int64_t first, int64_t n, gemst_device_share *kept,
                      gridemst_error *err)
{
    kept->first = first;
    kept->edges.device = d->ordinal[p];
    if (n == 0)
        return GRIDEMST_OK;
    GEMST_CU(cudaSetDevice(d->ordinal[p]));
    gemst_context_retain(d->ctx[p]);
    kept->ctx = d->ctx[p];
    gridemst_device_edges *e = &kept->edges;
    const gemst_dmem *mem = &d->part[p].mem;
    GEMST_TRY(gemst_dalloc_kept(mem->pool, mem->s, (void **)&e->u, sizeof *e->u * (size_t)n, "the tree's endpoints",
                                err));
    GEMST_TRY(gemst_dalloc_kept(mem->pool, mem->s, (void **)&e->v, sizeof *e->v * (size_t)n, "the tree's endpoints",
                                err));
    GEMST_TRY(gemst_dalloc_kept(mem->pool, mem->s, (void **)&e->w, sizeof *e->w * (size_t)n, "the tree's lengths",
                                err));
    kept->n_edges = n;
    return GRIDEMST_OK;
}

/* Device p's merged share left there as *kept, and its groups' sums,
 * queued on its stream. */
static int keep_share(gemst_devices *d, int p, const device_share *sh, int64_t at, int64_t m, double *sums,
                      uint8_t *summed, gemst_device_share *kept, gridemst_error *err)
{
    gemst_device_part *dp = &d->part[p];
    const int64_t n = sh->n_got;
    GEMST_TRY(make_share(d, p, at, n, kept, err));
    if (n == 0)
        return GRIDEMST_OK;
    const gridemst_device_edges *e = &kept->edges;
    k_share_arrays<<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, dp->mem.s>>>(sh->got, n, e->u, e->v, e->w);
    GEMST_LAUNCHED();
    return sum_groups(dp, e->w, n, at, m, sums, summed, err);
}

/* The lengths of edges first .. first + count - 1 of the whole tree, from
 * the devices' copies (host memory out, or the kept shares), into w. */
static int lengths_of(gemst_devices *d, const gridemst_edge *out, const gemst_device_share *kept, int64_t first,
                      int64_t count, double *w, gridemst_error *err)
{
    if (out) {
        for (int64_t k = 0; k < count; k++)
            w[k] = out[first + k].w;
        return GRIDEMST_OK;
    }
    for (int p = 0; p < d->count; p++) {
        const int64_t lo = kept[p].first > first ? kept[p].first : first;
        const int64_t end = kept[p].first + kept[p].n_edges, hi = end < first + count ? end : first + count;
        if (lo < hi) {
            GEMST_CU(cudaSetDevice(d->ordinal[p]));
            GEMST_CU(cudaMemcpy(w + (lo - first), kept[p].edges.w + (lo - kept[p].first),
                                sizeof *w * (size_t)(hi - lo), cudaMemcpyDeviceToHost));
        }
    }
    return GRIDEMST_OK;
}

/* Into sums, the groups of the m lengths that no device summed whole
 * (they straddle two devices' shares: one at most between two). */
static int sum_other_groups(gemst_devices *d, const gridemst_edge *out, const gemst_device_share *kept, int64_t m,
                            double *sums, const uint8_t *summed, gridemst_error *err)
{
    const int64_t G = GEMST_TOTAL_GROUP;
    double w[GEMST_TOTAL_GROUP];
    for (int64_t g = 0; g * G < m; g++)
        if (!summed[g]) {
            const int64_t count = m - g * G < G ? m - g * G : G;
            GEMST_TRY(lengths_of(d, out, kept, g * G, count, w, err));
            double s = 0.0;
            for (int64_t e = 0; e < count; e++)
                s += w[e];
            sums[g] = s;
        }
    return GRIDEMST_OK;
}

/* The whole set's tree into out (host memory, registered or not), or
 * with out NULL left on the devices in the shares of kept. */
static int assemble(gemst_devices *d, const gemst_gid_edge *boundary, int64_t n_boundary, int64_t n_points,
                    double scale, gridemst_edge *out, int registered, gemst_device_share *kept, device_share *sh,
                    double *sums, uint8_t *summed, gridemst_error *err)
{
    const int P = d->count;
    for (int p = 0; p < P; p++) {
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        GEMST_TRY(safe_edges(d, p, scale, &sh[p], err));
    }
    splitters split;
    GEMST_TRY(pick_splitters(d, sh, &split, err));
    int64_t count[GEMST_MAX_DEVICES * GEMST_MAX_DEVICES], bcut[GEMST_MAX_DEVICES + 1];
    for (int p = 0; p < P; p++) {
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        GEMST_TRY(cut_edges(d, p, &split, &sh[p], count + (size_t)p * P, err));
    }
    result_edge *bedge = NULL;
    GEMST_TRY(boundary_edges(d, boundary, n_boundary, scale, &split, &bedge, bcut, err));
    int rc = GRIDEMST_OK;
    gemst_device_records kinds;
    kinds.size = sizeof(result_edge);
    int64_t total = 0;
    for (int p = 0; p < P && rc == GRIDEMST_OK; p++) {
        gemst_device_part *dp = &d->part[p];
        sh[p].run[0] = 0;
        for (int s = 0; s < P; s++)
            sh[p].run[s + 1] = sh[p].run[s] + count[(size_t)s * P + p];
        sh[p].n_got = sh[p].run[P] + bcut[p + 1] - bcut[p];
        sh[p].run[P + 1] = sh[p].n_got;
        total += sh[p].n_got;
        cudaError_t e = cudaSetDevice(d->ordinal[p]);
        if (e != cudaSuccess)
            rc = gemst_cuda_fail(err, e, "selecting a device", __FILE__, __LINE__);
        if (rc == GRIDEMST_OK)
            rc = gemst_dalloc(&dp->peer_mem, (void **)&sh[p].got, sizeof(result_edge) * (size_t)(sh[p].n_got + 1),
                              "a part's share of the tree", err);
        if (rc == GRIDEMST_OK && bcut[p + 1] > bcut[p])
            e = cudaMemcpyAsync(sh[p].got + sh[p].run[P], bedge + bcut[p],
                                sizeof *bedge * (size_t)(bcut[p + 1] - bcut[p]), cudaMemcpyHostToDevice, dp->mem.s);
        if (rc == GRIDEMST_OK && e != cudaSuccess)
            rc = gemst_cuda_fail(err, e, "copying the boundary's edges", __FILE__, __LINE__);
        kinds.send[p] = (char *)sh[p].edge;
        kinds.recv[p] = (char *)sh[p].got;
    }
    if (rc == GRIDEMST_OK && total != n_points - 1)
        rc = gemst_fail(err, GRIDEMST_ERR_INTERNAL, "the partitioned solve found %lld edges for %lld points",
                        (long long)total, (long long)n_points);
    if (rc == GRIDEMST_OK)
        rc = gemst_devices_transfer(d, count, 0, &kinds, 1, err); /* waits for the boundary's copies too */
    free(bedge);
    gridemst_edge *staged[GEMST_MAX_DEVICES] = {0};
    int64_t at = 0;
    for (int p = 0; p < P && rc == GRIDEMST_OK; p++) {
        gemst_device_part *dp = &d->part[p];
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        gemst_dfree(&dp->peer_mem, sh[p].edge);
        sh[p].edge = NULL;
        rc = merge_runs(dp, &sh[p], P + 1, err);
        if (rc == GRIDEMST_OK && out)
            rc = copy_share(dp, &sh[p], out, at, n_points - 1, registered, sums, summed, &staged[p], err);
        else if (rc == GRIDEMST_OK)
            rc = keep_share(d, p, &sh[p], at, n_points - 1, sums, summed, &kept[p], err);
        at += sh[p].n_got;
    }
    for (int p = 0; p < P; p++) { /* every queued copy lands before a return */
        gemst_device_part *dp = &d->part[p];
        cudaError_t e = cudaSetDevice(d->ordinal[p]);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(dp->mem.s);
        if (e != cudaSuccess && rc == GRIDEMST_OK)
            rc = gemst_cuda_fail(err, e, out ? "copying the tree to host memory" : "putting the tree together",
                                 __FILE__, __LINE__);
        gemst_dfree(&dp->mem, staged[p]);
        gemst_dfree(&dp->peer_mem, sh[p].got);
        gemst_dfree(&dp->peer_mem, sh[p].edge);
    }
    if (rc == GRIDEMST_OK)
        rc = sum_other_groups(d, out, kept, n_points - 1, sums, summed, err);
    return rc;
}

/* Edges first .. first + count - 1 of the host tree `edges` as device
 * p's share *kept (host arrays of the share's form copied there). */
static int upload_share(gemst_devices *d, int p, const gridemst_edge *edges, int64_t first, int64_t count,
                        gemst_device_share *kept, gridemst_error *err)
{
    GEMST_TRY(make_share(d, p, first, count, kept, err));
    if (count == 0)
        return GRIDEMST_OK;
    const gridemst_device_edges *e = &kept->edges;
    const cudaStream_t s = d->part[p].mem.s;
    const size_t n = (size_t)count;
    uint32_t *u = (uint32_t *)malloc(sizeof *u * n), *v = (uint32_t *)malloc(sizeof *v * n);
    double *w = (double *)malloc(sizeof *w * n);
    int rc = u && v && w ? GRIDEMST_OK : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    for (size_t k = 0; rc == GRIDEMST_OK && k < n; k++) {
        u[k] = (uint32_t)edges[first + (int64_t)k].u;
        v[k] = (uint32_t)edges[first + (int64_t)k].v;
        w[k] = edges[first + (int64_t)k].w;
    }
    const void *from[] = {u, v, w};
    void *to[] = {e->u, e->v, e->w};
    const size_t bytes[] = {sizeof *u * n, sizeof *v * n, sizeof *w * n};
    for (int a = 0; a < 3 && rc == GRIDEMST_OK; a++) {
        cudaError_t ce = cudaMemcpyAsync(to[a], from[a], bytes[a], cudaMemcpyHostToDevice, s);
        if (ce == cudaSuccess)
            ce = cudaStreamSynchronize(s);
        if (ce != cudaSuccess)
            rc = gemst_cuda_fail(err, ce, "copying the tree to its devices", __FILE__, __LINE__);
    }
    free(u);
    free(v);
    free(w);
    return rc;
}

extern "C" int gemst_devices_share_edges(gemst_devices *d, gemst_tree *tree, gridemst_error *err)
{
    gemst_device_scope back; /* the caller's device back on return */
    gemst_device_share *kept = (gemst_device_share *)calloc((size_t)d->count, sizeof *kept);
    if (!kept)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    const int64_t m = tree->n_edges;
    int rc = GRIDEMST_OK;
    for (int p = 0; p < d->count && rc == GRIDEMST_OK; p++) {
        const int64_t first = m * p / d->count, end = m * (p + 1) / d->count;
        rc = upload_share(d, p, tree->edges, first, end - first, &kept[p], err);
    }
    if (rc != GRIDEMST_OK) {
        gemst_free_device_shares(kept, d->count);
        return rc;
    }
    tree->share = kept;
    tree->n_shares = d->count;
    free(tree->edges); /* from gemst_edges_alloc, not registered */
    tree->edges = NULL;
    return GRIDEMST_OK;
}

extern "C" void gemst_devices_ready_tree(gemst_devices *d, int64_t m, int threads)
{
    gemst_host_tree_start(&d->room, m, threads, d->ctx[0]);
}

extern "C" int gemst_devices_assemble(gemst_devices *d, const gemst_gid_edge *boundary, int64_t n_boundary,
                                      int64_t n_points, double scale, int threads, int keep, gemst_tree *tree,
                                      gridemst_error *err)
{
    gemst_device_scope back; /* the caller's device back on return */
    const int64_t m = n_points - 1;
    gridemst_edge *out = NULL;
    gemst_device_share *kept = NULL;
    if (keep)
        kept = (gemst_device_share *)calloc((size_t)d->count, sizeof *kept);
    else
        out = gemst_host_tree_finish(&d->room);
    if (!out && !kept)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld result edges", (long long)m);
    /* the total in the library's order: each device sums the groups of lengths within its share */
    const int64_t groups = (m + GEMST_TOTAL_GROUP - 1) / GEMST_TOTAL_GROUP;
    device_share *sh = (device_share *)calloc((size_t)d->count, sizeof *sh);
    double *sums = (double *)malloc(sizeof *sums * (size_t)(groups > 0 ? groups : 1));
    uint8_t *summed = (uint8_t *)calloc((size_t)(groups > 0 ? groups : 1), 1);
    int rc = sh && sums && summed ? assemble(d, boundary, n_boundary, n_points, scale, out, d->room.registered, kept,
                                             sh, sums, summed, err)
                                  : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    if (rc == GRIDEMST_OK && gemst_group_sums_total(sums, groups, threads, &tree->total_weight) != 0)
        rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory summing the tree");
    free(sh);
    free(sums);
    free(summed);
    if (rc != GRIDEMST_OK) {
        gemst_free_device_shares(kept, kept ? d->count : 0);
        return rc;
    }
    if (kept) {
        tree->share = kept;
        tree->n_shares = d->count;
    } else {
        tree->edges = out;
        tree->host_registered = d->room.registered;
        tree->host_capacity = d->room.capacity;
        d->room.edges = NULL; /* the tree's now */
    }
    tree->n_edges = m;
    tree->finished = 1;
    return GRIDEMST_OK;
}
