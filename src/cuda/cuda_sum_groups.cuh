/*
 * The sums of a tree's lengths in the order of GEMST_TOTAL_GROUP (common.h)
 * on a device: each group of consecutive lengths added in order.  Used by
 * the solver's total (cuda_tree_out.cuh) and by the assembly of a
 * partitioned solve's tree on several devices (cuda_parts_assemble.cu).
 */
#ifndef GEMST_CUDA_SUM_GROUPS_CUH
#define GEMST_CUDA_SUM_GROUPS_CUH

#include "cuda/cuda_common.cuh"

/* Warps per block of gemst_k_sum_groups: a group's values take 8 KB of shared
 * memory per warp. */
#define GEMST_SUM_WARPS 4

/* out[g] = the sum of in[g * GEMST_TOTAL_GROUP ...] over one group, added
 * in order (gemst_total_group), for groups g < ceil(count /
 * GEMST_TOTAL_GROUP).  A warp per group: its lanes read the group's values
 * into shared memory, 32 adjacent values a load, all loads in flight at
 * once, and its first lane adds them in order.  (A thread reading its own
 * group, loads 8 KB apart, waited for each load in turn: 0.25 ms over the
 * three levels of 10^7 edges.) */
static __global__ void gemst_k_sum_groups(uint64_t count, const double *in, double *out)
{
    __shared__ double values[GEMST_SUM_WARPS][GEMST_TOTAL_GROUP];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint64_t groups = (count + GEMST_TOTAL_GROUP - 1) / GEMST_TOTAL_GROUP;
    const uint64_t g = (uint64_t)blockIdx.x * GEMST_SUM_WARPS + warp;
    if (g >= groups) /* the whole warp */
        return;
    const uint64_t first = g * GEMST_TOTAL_GROUP;
    const uint32_t size = count - first < GEMST_TOTAL_GROUP ? (uint32_t)(count - first) : GEMST_TOTAL_GROUP;
    double *group = values[warp];
    GEMST_UNROLL
    for (uint32_t k = 0; k < GEMST_TOTAL_GROUP; k += 32)
        if (k + lane < size)
            group[k + lane] = in[first + k + lane];
    __syncwarp();
    if (lane == 0) {
        double s = 0.0;
        for (uint32_t k = 0; k < size; k++)
            s = __dadd_rn(s, group[k]);
        out[g] = s;
    }
}

#endif
