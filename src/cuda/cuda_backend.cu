/* The CUDA backend's entry points: device discovery and the precision
 * dispatch. */
#include <cuda_runtime.h>

#include "backend.h"

extern "C" int gridemst_cuda_device_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError(); /* no driver or no device: not an error here */
        return 0;
    }
    return count;
}

extern "C" int gemst_cuda_solve(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err)
{
    if (pb->opt.precision == GRIDEMST_PRECISION_DOUBLE)
        return gemst_cuda_solve_f64(pb, tree, stats, err);
    return gemst_cuda_solve_f32(pb, tree, stats, err);
}
