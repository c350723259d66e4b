/*
 * The bounding box of the caller's points on a device, float or double,
 * and the first of them with a non-finite coordinate: for the frame of a
 * single device's solve (cuda_grid_build.cuh, cuda_fof.cuh) and of a slice
 * of a solve over several devices (cuda_parts_split.cu).
 */
#ifndef GEMST_CUDA_BBOX_CUH
#define GEMST_CUDA_BBOX_CUH

#include <cub/cub.cuh>

#include "cuda/cuda_common.cuh"

/* Per-block bounding box and first non-finite point of the caller's
 * coordinates; reduced across blocks by gemst_cuda_bbox. */
#define GEMST_BBOX_BLOCKS 1024
typedef struct {
    double lo[3], hi[3];
    long long bad; /* smallest index of a point with a NaN or infinite coordinate, or n */
} gemst_bbox;

template <typename T>
static __global__ void k_bbox(const T *coords, int64_t n, int dim, gemst_bbox *out)
{
    typedef cub::BlockReduce<double, GEMST_THREADS> ReduceD;
    typedef cub::BlockReduce<long long, GEMST_THREADS> ReduceL;
    __shared__ union {
        typename ReduceD::TempStorage d;
        typename ReduceL::TempStorage l;
    } tmp;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    long long bad = n;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        GEMST_UNROLL /* over 3 axes, not dim: lo and hi stay in registers (d_working_point) */
        for (int d = 0; d < 3; d++) {
            if (d >= dim)
                break;
            double v = (double)coords[i * dim + d];
            if (!isfinite(v)) {
                bad = i < bad ? i : bad;
                continue;
            }
            lo[d] = fmin(lo[d], v);
            hi[d] = fmax(hi[d], v);
        }
    for (int d = 0; d < 3; d++) {
        double l = ReduceD(tmp.d).Reduce(lo[d], cuda::minimum<>());
        __syncthreads();
        double h = ReduceD(tmp.d).Reduce(hi[d], cuda::maximum<>());
        __syncthreads();
        if (threadIdx.x == 0) {
            out[blockIdx.x].lo[d] = l;
            out[blockIdx.x].hi[d] = h;
        }
    }
    long long b = ReduceL(tmp.l).Reduce(bad, cuda::minimum<>());
    if (threadIdx.x == 0)
        out[blockIdx.x].bad = b;
}

/* The bounding box of n caller points on the device (k_bbox, then the
 * blocks' boxes reduced here); GRIDEMST_ERR_INPUT naming the first point
 * with a non-finite coordinate. */
template <typename T>
static int gemst_cuda_bbox(gemst_dmem *mem, cudaStream_t s, const T *coords, int64_t n, int dim, double lo[3],
                                    double hi[3], gridemst_error *err)
{
    unsigned blocks = gemst_blocks((uint64_t)n);
    if (blocks > GEMST_BBOX_BLOCKS)
        blocks = GEMST_BBOX_BLOCKS;
    gemst_bbox *d_part, part[GEMST_BBOX_BLOCKS];
    GEMST_DALLOC(mem, d_part, blocks, "the bounding box");
    k_bbox<T><<<blocks, GEMST_THREADS, 0, s>>>(coords, n, dim, d_part);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(part, d_part, sizeof *part * blocks, cudaMemcpyDeviceToHost, s));
    GEMST_CU(cudaStreamSynchronize(s));
    gemst_dfree(mem, d_part);
    long long bad = n;
    for (int d = 0; d < 3; d++) {
        lo[d] = d < dim ? INFINITY : 0.0;
        hi[d] = d < dim ? -INFINITY : 0.0;
    }
    for (unsigned b = 0; b < blocks; b++) {
        for (int d = 0; d < dim; d++) {
            lo[d] = part[b].lo[d] < lo[d] ? part[b].lo[d] : lo[d];
            hi[d] = part[b].hi[d] > hi[d] ? part[b].hi[d] : hi[d];
        }
        bad = part[b].bad < bad ? part[b].bad : bad;
    }
    if (bad < n)
        return gemst_fail(err, GRIDEMST_ERR_INPUT, "point %lld has a non-finite coordinate", bad);
    return GRIDEMST_OK;
}

#endif
