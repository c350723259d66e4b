/* The CUDA backend's entry points: device discovery, checks and copies of
 * a caller's device input, and the precision dispatch. */
#include <cuda_runtime.h>

#include "backend.h"
#include "cuda/cuda_common.cuh"

extern "C" int gridemst_cuda_device_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError(); /* no driver or no device: not an error here */
        return 0;
    }
    return count;
}

extern "C" int gemst_cuda_check_device_input(const void *p, int device, gridemst_error *err)
{
    cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "coords: not a CUDA pointer (%s)",
                          cudaGetErrorString(e));
    }
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                          "coords is %s memory, not device memory: use gridemst_solve for host points",
                          a.type == cudaMemoryTypeHost ? "pinned host" : "host");
    if (a.type == cudaMemoryTypeDevice && a.device != device)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                          "coords is memory of CUDA device %d, but the options name device %d", a.device, device);
    return GRIDEMST_OK;
}

extern "C" int gemst_cuda_download(const gridemst_options *opt, const void *d_src, void *dst, size_t bytes,
                                   gridemst_error *err)
{
    cudaStream_t s = (cudaStream_t)opt->cuda_stream;
    GEMST_CU(cudaMemcpyAsync(dst, d_src, bytes, cudaMemcpyDeviceToHost, s));
    GEMST_CU(cudaStreamSynchronize(s));
    return GRIDEMST_OK;
}

extern "C" int gemst_cuda_copy_to_host(int device, const void *d_src, void *dst, size_t bytes, gridemst_error *err)
{
    int previous = 0;
    GEMST_CU(cudaGetDevice(&previous));
    GEMST_CU(cudaSetDevice(device));
    cudaError_t e = cudaMemcpy(dst, d_src, bytes, cudaMemcpyDeviceToHost);
    cudaSetDevice(previous);
    GEMST_CU(e);
    return GRIDEMST_OK;
}

extern "C" int gemst_cuda_register_host(void *p, size_t bytes, int device)
{
    /* portable: pinned for every device's context; the device is set first
       so that a thread new to CUDA does not start a context on device 0 */
    if (cudaSetDevice(device) == cudaSuccess && cudaHostRegister(p, bytes, cudaHostRegisterPortable) == cudaSuccess)
        return 0;
    (void)cudaGetLastError(); /* the copy then goes through pageable memory */
    return -1;
}

extern "C" void gemst_cuda_unregister_host(void *p)
{
    if (cudaHostUnregister(p) != cudaSuccess)
        (void)cudaGetLastError();
}

extern "C" int gemst_cuda_solve(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err)
{
    if (pb->opt.precision == GRIDEMST_PRECISION_DOUBLE)
        return gemst_cuda_solve_f64(pb, tree, stats, err);
    return gemst_cuda_solve_f32(pb, tree, stats, err);
}

extern "C" int gemst_cuda_fof(const gemst_fof_problem *fp, int64_t min_size, int64_t *labels, int64_t *n_groups,
                              gridemst_error *err)
{
    if (fp->pb.opt.precision == GRIDEMST_PRECISION_DOUBLE)
        return gemst_cuda_fof_f64(fp, min_size, labels, n_groups, err);
    return gemst_cuda_fof_f32(fp, min_size, labels, n_groups, err);
}
