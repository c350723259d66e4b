/*
 * nns auto's choice of index on the GPU (nns/index_choice.h), precision-
 * generic: one kernel adds the sample's codes to the hash tables and sums
 * each block's pairs at the two sizes into two counters; the host reads
 * them and decides.  Included by cuda_solve.cuh.
 */
#include "cuda/cuda_grid_kernels.cuh"
#include "nns/index_choice.h"

/* Sample point k's code, in the frame's unit box, added to the tables;
 * each block's pairs at the two sizes summed into pairs[0] and pairs[1]. */
template <typename T>
static __global__ void GEMST_FN(k_sample_pairs)(const T *coords, uint32_t n, gemst_frame f, int dim,
                                              gemst_index_tables t, int shift0, int shift1,
                                              unsigned long long *pairs)
{
    typedef cub::BlockReduce<unsigned long long, GEMST_THREADS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t mine[2] = {0, 0};
    if (k < GEMST_INDEX_SAMPLE) {
        gemst_real p[3];
        GEMST_FN(d_working_point)(coords, dim, f, gemst_index_sample_point(n, GEMST_INDEX_SAMPLE, k), p);
        const double w[3] = {(double)p[0], (double)p[1], (double)p[2]};
        const int shift[2] = {shift0, shift1};
        gemst_index_add(&t, gemst_morton_in(dim, w, f.lo, f.unit), shift, mine);
    }
    for (int s = 0; s < 2; s++) {
        const unsigned long long sum = Reduce(tmp).Sum((unsigned long long)mine[s]);
        if (threadIdx.x == 0 && sum)
            atomicAdd(&pairs[s], sum);
        __syncthreads(); /* tmp is reused */
    }
}

/* Sets c->bvh: whether nns auto searches the BVH for these points (a
 * small set, or one the sample's pairs say fills fewer dimensions). */
template <typename T>
static int GEMST_FN(choose_index)(cuda_ctx *c, const T *coords, gridemst_error *err)
{
    const uint32_t n = c->n;
    c->bvh = n < GEMST_INDEX_SMALL_SET;
    if (c->bvh)
        return GRIDEMST_OK;
    uint64_t *keys;
    uint32_t *counts;
    GEMST_DALLOC(&c->mem, keys, 3 * (size_t)GEMST_INDEX_SLOTS, "the index's sample");
    GEMST_DALLOC(&c->mem, counts, 2 * (size_t)GEMST_INDEX_SLOTS, "the index's sample");
    GEMST_CU(cudaMemsetAsync(keys, 0xff, sizeof *keys * 3 * GEMST_INDEX_SLOTS, c->s)); /* GEMST_INDEX_FREE */
    GEMST_CU(cudaMemsetAsync(counts, 0, sizeof *counts * 2 * GEMST_INDEX_SLOTS, c->s));
    GEMST_CU(cudaMemsetAsync(CNT(c, sample_pairs), 0, sizeof c->host->sample_pairs, c->s));
    const gemst_index_tables t = {keys,
                                  {keys + GEMST_INDEX_SLOTS, keys + 2 * GEMST_INDEX_SLOTS},
                                  {counts, counts + GEMST_INDEX_SLOTS}};
    int shift[2];
    gemst_index_shifts(&c->box, n, shift); /* the grid's planned side: a part's own box in a partitioned solve */
    GEMST_FN(k_sample_pairs)<T><<<gemst_blocks(GEMST_INDEX_SAMPLE), GEMST_THREADS, 0, c->s>>>(
        coords, n, c->frame, c->pb->dim, t, shift[0], shift[1], c->cnt->sample_pairs);
    GEMST_LAUNCHED();
    GEMST_TRY(GEMST_FN(read_counters)(c, err));
    gemst_dfree(&c->mem, keys);
    gemst_dfree(&c->mem, counts);
    const uint64_t pairs[2] = {c->host->sample_pairs[0], c->host->sample_pairs[1]};
    c->bvh = gemst_index_prefers_bvh(c->pb->dim, pairs);
    return GRIDEMST_OK;
}
