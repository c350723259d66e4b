/* The CUDA backend's friends-of-friends in float64 working precision. */
#define GEMST_REAL_IS_DOUBLE 1
#include "cuda/cuda_fof.cuh"
