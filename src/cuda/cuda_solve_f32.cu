/* The CUDA backend in float32 working precision. */
#define GEMST_REAL_IS_DOUBLE 0
#include "cuda/cuda_solve.cuh"
