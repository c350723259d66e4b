/* The CUDA backend in float64 working precision. */
#define GEMST_REAL_IS_DOUBLE 1
#include "cuda/cuda_solve.cuh"
