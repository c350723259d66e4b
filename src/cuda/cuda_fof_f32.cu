/* The CUDA backend's friends-of-friends in float32 working precision. */
#define GEMST_REAL_IS_DOUBLE 0
#include "cuda/cuda_fof.cuh"
