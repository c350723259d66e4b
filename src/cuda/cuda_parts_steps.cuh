/*
 * Helpers of a partitioned solve's steps on a part's device (the gaps,
 * cuda_parts_gaps.cu; the contraction, cuda_parts_contract.cu): their
 * timers and their prefix counts.
 */
#ifndef GEMST_CUDA_PARTS_STEPS_CUH
#define GEMST_CUDA_PARTS_STEPS_CUH

#include <cub/cub.cuh>

#include "cuda/cuda_common.cuh"

/* The milliseconds since *t0, which becomes now. */
static inline double gemst_lap_ms(double *t0)
{
    const double now = gemst_now_ms(), ms = now - *t0;
    *t0 = now;
    return ms;
}

/* rank = the inclusive sum of flag[0 .. count) (count >= 1), on mem's
 * stream; its scratch named by `what`. */
static inline int gemst_inclusive_count(gemst_dmem *mem, const uint32_t *flag, uint32_t *rank, int64_t count,
                                        const char *what, gridemst_error *err)
{
    size_t bytes = 0;
    void *temp;
    GEMST_CU(cub::DeviceScan::InclusiveSum(NULL, bytes, flag, rank, count, mem->s));
    GEMST_TRY(gemst_dalloc(mem, &temp, bytes, what, err));
    GEMST_CU(cub::DeviceScan::InclusiveSum(temp, bytes, flag, rank, count, mem->s));
    gemst_dfree(mem, temp);
    return GRIDEMST_OK;
}

#endif
