/*
 * Steps 1 and 2 of a partitioned solve on the devices (parts/devices.h):
 * each part's slice of the input copied to its device and boxed there (for
 * the whole set's frame), then sorted by key there, its points packed by
 * part, and sent device to device over NCCL.  The keys and the
 * parts of keys are point_key.h's, the host's partition's own functions,
 * and the host picks the splitters from the samples (partition.c), so the
 * parts are exactly the host's.
 */
#include <cub/cub.cuh>

#include "cuda/cuda_bbox.cuh"
#include "cuda/cuda_devices.cuh"
#include "cuda/cuda_download.cuh"
#include "cuda/cuda_upload.h"

/* The splitters, passed by value to the kernels. */
typedef struct {
    uint64_t key[GEMST_MAX_DEVICES];
} splitters;

static __global__ void k_slice_keys(gemst_parts_metric m, gemst_frame f, gemst_region_space sp, gridemst_dtype dtype,
                                    const void *coords, int64_t n, uint64_t *key)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double w[3];
        key[i] = gemst_parts_key(&m, &f, &sp, dtype, coords, i, w);
    }
}

/* The k-th of n_sample regular samples of n sorted keys: the one of rank
 * (2k + 1) n / (2 n_sample), as partition.c's slices take them. */
static __global__ void k_samples(const uint64_t *sorted, int64_t n, int64_t n_sample, uint64_t *sample)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n_sample)
        sample[k] = sorted[(2 * k + 1) * n / (2 * n_sample)];
}

/* Each point's part, its index (the values the sort by part carries),
 * and how many points each part gets. */
static __global__ void k_parts(const uint64_t *key, int64_t n, splitters split, int n_split, uint8_t *part,
                               uint32_t *index, unsigned long long *count)
{
    __shared__ unsigned long long here[GEMST_MAX_DEVICES];
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < GEMST_MAX_DEVICES)
        here[threadIdx.x] = 0;
    __syncthreads();
    if (i < n) {
        const int q = gemst_parts_part_of(split.key, n_split, key[i]);
        part[i] = (uint8_t)q;
        index[i] = (uint32_t)i;
        atomicAdd(&here[q], 1ull);
    }
    __syncthreads();
    if (threadIdx.x <= n_split && here[threadIdx.x] > 0)
        atomicAdd(&count[threadIdx.x], here[threadIdx.x]);
}

/* The slice's points' places in it and their coordinates in the order of
 * `order`. */
template <typename T>
static __global__ void k_pack(const uint32_t *order, int64_t n, int dim, const T *xyz, uint32_t *place_out,
                              T *xyz_out)
{
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        const int64_t i = order[k];
        place_out[k] = (uint32_t)i;
        for (int d = 0; d < dim; d++)
            xyz_out[k * dim + d] = xyz[i * dim + d];
    }
}

static size_t point_bytes(const gemst_device_part *dp)
{
    return (size_t)dp->dim * (dp->dtype == GRIDEMST_FLOAT32 ? sizeof(float) : sizeof(double));
}

extern "C" int gemst_devices_slice_box(gemst_devices *d, int p, gridemst_dtype dtype, int dim, const void *coords,
                                       int64_t first, int64_t n, int threads, double box[6], gridemst_error *err)
{
    gemst_device_scope keep; /* the caller's device back on return */
    gemst_device_part *dp = &d->part[p];
    const cudaStream_t s = gemst_devices_stream(d, p);
    GEMST_CU(cudaSetDevice(d->ordinal[p]));
    dp->dtype = dtype;
    dp->dim = dim;
    dp->first = first;
    dp->m = n;
    const size_t bytes = point_bytes(dp) * (size_t)n;
    GEMST_TRY(gemst_dalloc(&dp->mem, &dp->slice, bytes, "a slice of the points", err));
    if (n == 0)
        return GRIDEMST_OK;
    GEMST_TRY(gemst_upload(dp->slice, (const char *)coords + point_bytes(dp) * (size_t)first, bytes, s, threads, err));
    if (dtype == GRIDEMST_FLOAT32)
        return gemst_cuda_bbox<float>(&dp->mem, s, (const float *)dp->slice, n, dim, box, box + 3, err);
    return gemst_cuda_bbox<double>(&dp->mem, s, (const double *)dp->slice, n, dim, box, box + 3, err);
}

extern "C" int gemst_devices_slice_keys(gemst_devices *d, int p, const gemst_parts_metric *m, const gemst_frame *f,
                                        const gemst_region_space *sp, int64_t n_sample, uint64_t *sample,
                                        gridemst_error *err)
{
    gemst_device_scope keep; /* the caller's device back on return */
    gemst_device_part *dp = &d->part[p];
    const cudaStream_t s = gemst_devices_stream(d, p);
    GEMST_CU(cudaSetDevice(d->ordinal[p]));
    const int64_t n = dp->m; /* the slice that gemst_devices_slice_box copied */
    uint64_t *sorted, *d_sample;
    GEMST_DALLOC(&dp->mem, dp->key, n, "the slice's keys");
    GEMST_DALLOC(&dp->mem, sorted, n, "the slice's sorted keys");
    GEMST_DALLOC(&dp->mem, d_sample, n_sample, "the slice's samples");
    if (n > 0) {
        k_slice_keys<<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, s>>>(*m, *f, *sp, dp->dtype, dp->slice, n,
                                                                         dp->key);
        GEMST_LAUNCHED();
        size_t temp_bytes = 0;
        void *temp;
        GEMST_CU(cub::DeviceRadixSort::SortKeys(NULL, temp_bytes, dp->key, sorted, n, 0, 64, s));
        GEMST_TRY(gemst_dalloc(&dp->mem, &temp, temp_bytes, "sorting the slice's keys", err));
        GEMST_CU(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, dp->key, sorted, n, 0, 64, s));
        gemst_dfree(&dp->mem, temp);
    }
    if (n_sample > 0) {
        k_samples<<<gemst_blocks((uint64_t)n_sample), GEMST_THREADS, 0, s>>>(sorted, n, n_sample, d_sample);
        GEMST_LAUNCHED();
        GEMST_CU(cudaMemcpyAsync(sample, d_sample, sizeof *sample * (size_t)n_sample, cudaMemcpyDeviceToHost, s));
    }
    GEMST_CU(cudaStreamSynchronize(s));
    gemst_dfree(&dp->mem, sorted);
    gemst_dfree(&dp->mem, d_sample);
    return GRIDEMST_OK;
}

extern "C" int gemst_devices_slice_pack(gemst_devices *d, int p, const uint64_t *split, int n_split, int64_t *row,
                                        gridemst_error *err)
{
    gemst_device_scope keep; /* the caller's device back on return */
    gemst_device_part *dp = &d->part[p];
    const cudaStream_t s = gemst_devices_stream(d, p);
    const int64_t n = dp->m;
    GEMST_CU(cudaSetDevice(d->ordinal[p]));
    splitters sp;
    memset(&sp, 0, sizeof sp);
    memcpy(sp.key, split, sizeof *split * (size_t)n_split);
    int bits = 1; /* the parts' numbers, 0 .. n_split */
    while (((int64_t)1 << bits) <= n_split)
        bits++;
    uint8_t *part, *part2;
    uint32_t *index, *order;
    unsigned long long *count;
    GEMST_DALLOC(&dp->mem, count, n_split + 1, "the slice's counts by part");
    GEMST_DALLOC(&dp->peer_mem, dp->send_id, n, "the slice's ids to send");
    GEMST_TRY(gemst_dalloc(&dp->peer_mem, &dp->send_xyz, point_bytes(dp) * (size_t)n, "the slice's points to send",
                           err));
    GEMST_CU(cudaMemsetAsync(count, 0, sizeof *count * (size_t)(n_split + 1), s));
    if (n > 0) {
        GEMST_DALLOC(&dp->mem, part, n, "the slice's parts");
        GEMST_DALLOC(&dp->mem, part2, n, "the slice's sorted parts");
        GEMST_DALLOC(&dp->mem, index, n, "the slice's indices");
        GEMST_DALLOC(&dp->mem, order, n, "the slice's order by part");
        k_parts<<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, s>>>(dp->key, n, sp, n_split, part, index, count);
        GEMST_LAUNCHED();
        /* radix sorts are stable: each part's points stay in id order */
        size_t temp_bytes = 0;
        void *temp;
        GEMST_CU(cub::DeviceRadixSort::SortPairs(NULL, temp_bytes, part, part2, index, order, n, 0, bits, s));
        GEMST_TRY(gemst_dalloc(&dp->mem, &temp, temp_bytes, "sorting the slice by part", err));
        GEMST_CU(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, part, part2, index, order, n, 0, bits, s));
        if (dp->dtype == GRIDEMST_FLOAT32)
            k_pack<float><<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, s>>>(
                order, n, dp->dim, (const float *)dp->slice, dp->send_id, (float *)dp->send_xyz);
        else
            k_pack<double><<<gemst_blocks((uint64_t)n), GEMST_THREADS, 0, s>>>(
                order, n, dp->dim, (const double *)dp->slice, dp->send_id, (double *)dp->send_xyz);
        GEMST_LAUNCHED();
        void *done[] = {temp, part, part2, index, order};
        for (size_t k = 0; k < sizeof done / sizeof done[0]; k++)
            gemst_dfree(&dp->mem, done[k]);
    }
    unsigned long long got[GEMST_MAX_DEVICES];
    GEMST_CU(cudaMemcpyAsync(got, count, sizeof *count * (size_t)(n_split + 1), cudaMemcpyDeviceToHost, s));
    GEMST_CU(cudaStreamSynchronize(s));
    for (int q = 0; q <= n_split; q++)
        row[q] = (int64_t)got[q];
    gemst_dfree(&dp->mem, count);
    gemst_dfree(&dp->mem, dp->key);
    gemst_dfree(&dp->mem, dp->slice);
    dp->key = NULL;
    dp->slice = NULL;
    return GRIDEMST_OK;
}

extern "C" int gemst_devices_send_points(gemst_devices *d, const int64_t *count, gridemst_error *err)
{
    gemst_device_scope keep; /* the caller's device back on return */
    const int P = d->count;
    GEMST_TRY(gemst_devices_send_counts(d, count, P, err));
    gemst_device_records kinds[2];
    kinds[0].size = sizeof(uint32_t);
    kinds[1].size = point_bytes(&d->part[0]);
    int64_t first[GEMST_MAX_DEVICES];
    for (int s = 0; s < P; s++)
        first[s] = d->part[s].first;
    for (int p = 0; p < P; p++) {
        gemst_device_part *dp = &d->part[p];
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        gemst_id_runs_make(&dp->runs, count, P, p, first);
        dp->n = dp->runs.start[P];
        GEMST_DALLOC(&dp->peer_mem, dp->id, dp->n, "a part's ids");
        GEMST_TRY(gemst_dalloc(&dp->peer_mem, &dp->xyz, point_bytes(dp) * (size_t)dp->n, "a part's points", err));
        kinds[0].send[p] = (char *)dp->send_id;
        kinds[0].recv[p] = (char *)dp->id;
        kinds[1].send[p] = (char *)dp->send_xyz;
        kinds[1].recv[p] = (char *)dp->xyz;
    }
    GEMST_TRY(gemst_devices_transfer(d, count, 0, kinds, 2, err));
    for (int p = 0; p < P; p++) {
        gemst_device_part *dp = &d->part[p];
        GEMST_CU(cudaSetDevice(d->ordinal[p]));
        gemst_dfree(&dp->peer_mem, dp->send_id);
        gemst_dfree(&dp->peer_mem, dp->send_xyz);
        dp->send_id = NULL;
        dp->send_xyz = NULL;
    }
    return GRIDEMST_OK;
}

/* The part's ids from their places and its runs. */
static __global__ void k_ids(const uint32_t *place, int64_t n, gemst_id_runs runs, gemst_gid *id)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        id[i] = gemst_id_of(&runs, i, place[i]);
}

extern "C" int gemst_devices_part_ids(gemst_devices *d, int p, gemst_gid *id, int threads, gridemst_error *err)
{
    gemst_device_scope keep; /* the caller's device back on return */
    gemst_device_part *dp = &d->part[p];
    GEMST_CU(cudaSetDevice(d->ordinal[p]));
    if (dp->n == 0)
        return GRIDEMST_OK;
    gemst_gid *ids;
    GEMST_DALLOC(&dp->mem, ids, dp->n, "a part's ids");
    k_ids<<<gemst_blocks((uint64_t)dp->n), GEMST_THREADS, 0, gemst_devices_stream(d, p)>>>(dp->id, dp->n, dp->runs,
                                                                                         ids);
    GEMST_LAUNCHED();
    gemst_download down;
    int rc = gemst_download_open(&down, gemst_devices_stream(d, p), threads, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_download_copy(&down, id, ids, sizeof *id * (size_t)dp->n, err);
    gemst_download_close(&down);
    gemst_dfree(&dp->mem, ids);
    return rc; /* the places stay on the device too, for the tree's assembly there */
}

extern "C" const void *gemst_devices_part_coords(const gemst_devices *d, int p)
{
    return d->part[p].xyz;
}

extern "C" const uint32_t *gemst_devices_part_places(const gemst_devices *d, int p)
{
    return d->part[p].id;
}

extern "C" const gemst_id_runs *gemst_devices_part_runs(const gemst_devices *d, int p)
{
    return &d->part[p].runs;
}
