/*
 * nns auto's choice of index on the GPU (nns/index_choice.h), precision-
 * generic: one kernel adds the sample's codes to the hash tables and sums
 * each block's pairs at the two sizes into two counters; the host reads
 * them and decides.  Included by cuda_solve.cuh.
 */
#include "cuda/cuda_grid_kernels.cuh"
#include "nns/index_choice.h"

/* Sample point k's code, in the frame's unit box, added to the tables;
 * each block's pairs sharing a cell and distinct codes summed into
 * counts[0] and counts[1]. */
template <typename T>
static __global__ void GEMST_FN(k_sample_pairs)(const T *coords, uint32_t n, uint32_t m, gemst_frame f, int dim,
                                              gemst_index_tables t, int shift, unsigned long long *counts)
{
    typedef cub::BlockReduce<unsigned long long, GEMST_THREADS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    gemst_index_counts mine = {0, 0};
    if (k < m) {
        gemst_real p[3];
        GEMST_FN(d_working_point)(coords, dim, f, (uint32_t)gemst_index_sample_point(n, m, k), p);
        const double w[3] = {(double)p[0], (double)p[1], (double)p[2]};
        gemst_index_add(&t, gemst_morton_in(dim, w, f.lo, f.unit), shift, &mine);
    }
    const uint64_t each[2] = {mine.pairs, mine.distinct};
    for (int s = 0; s < 2; s++) {
        const unsigned long long sum = Reduce(tmp).Sum((unsigned long long)each[s]);
        if (threadIdx.x == 0 && sum)
            atomicAdd(&counts[s], sum);
        __syncthreads(); /* tmp is reused */
    }
}

/* Sets c->bvh: whether nns auto searches the BVH for these points (a
 * small set, or one whose density contrast the sample measures above an
 * even fill's), and stats->density_contrast. */
template <typename T>
static int GEMST_FN(choose_index)(cuda_ctx *c, const T *coords, gridemst_stats *stats, gridemst_error *err)
{
    const uint32_t n = c->n;
    c->bvh = n < GEMST_INDEX_SMALL_SET;
    if (c->bvh)
        return GRIDEMST_OK;
    /* the grid's planned side: a part's own box in a partitioned solve */
    const int shift = gemst_index_shift(&c->box, n);
    const uint32_t m = gemst_index_sample_size(&c->box, n);
    const int bits = gemst_hash_bits(m);
    const size_t slots = (size_t)1 << bits;
    uint64_t *keys;
    uint32_t *counts;
    GEMST_DALLOC(&c->mem, keys, 2 * slots, "the index's sample");
    GEMST_DALLOC(&c->mem, counts, slots, "the index's sample");
    GEMST_CU(cudaMemsetAsync(keys, 0xff, sizeof *keys * 2 * slots, c->s)); /* GEMST_HASH_FREE */
    GEMST_CU(cudaMemsetAsync(counts, 0, sizeof *counts * slots, c->s));
    GEMST_CU(cudaMemsetAsync(CNT(c, sample_counts), 0, sizeof c->host->sample_counts, c->s));
    const gemst_index_tables t = {keys, keys + slots, counts, bits};
    GEMST_FN(k_sample_pairs)<T><<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(
        coords, n, m, c->frame, c->pb->dim, t, shift, c->cnt->sample_counts);
    GEMST_LAUNCHED();
    GEMST_TRY(GEMST_FN(read_counters)(c, err));
    gemst_dfree(&c->mem, keys);
    gemst_dfree(&c->mem, counts);
    const gemst_index_counts measured = {c->host->sample_counts[0], c->host->sample_counts[1]};
    stats->density_contrast = gemst_index_contrast(&c->box, shift, measured);
    c->bvh = gemst_index_prefers_bvh(stats->density_contrast);
    return GRIDEMST_OK;
}
