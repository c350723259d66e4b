/* CUDA device discovery. */
#include <cuda_runtime.h>

#include "common.h"

extern "C" int gridemst_cuda_device_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError(); /* no driver or no device: not an error here */
        return 0;
    }
    return count;
}
