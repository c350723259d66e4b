/*
 * nns auto's choice of index on the GPU (nns/index_choice.h), precision-
 * generic: the sample's Morton codes, sorted and made distinct by CUB, and
 * the pairs sharing a cell at the two sizes counted by atomic sums; the
 * host reads the two counts and decides.  Included by cuda_solve.cuh.
 */
#include "cuda/cuda_grid_kernels.cuh"
#include "nns/index_choice.h"

/* Sample point k's code, in the frame's unit box. */
template <typename T>
static __global__ void GEMST_FN(k_sample_codes)(const T *coords, uint32_t n, uint32_t m, gemst_frame f, int dim,
                                              uint64_t *code)
{
    GEMST_INDEX(k, m);
    gemst_real p[3];
    GEMST_FN(d_working_point)(coords, dim, f, gemst_index_sample_point(n, m, k), p);
    const double w[3] = {(double)p[0], (double)p[1], (double)p[2]};
    code[k] = gemst_morton_in(dim, w, f.lo, f.unit);
}

/* The pairs of the *m sorted distinct codes sharing a cell at each of the
 * two shifts. */
static __global__ void GEMST_FN(k_sample_pairs)(const uint64_t *code, const int *m_unique, int shift0, int shift1,
                                              unsigned long long *pairs)
{
    GEMST_LIST_INDEX(i, m_unique);
    const uint32_t m = (uint32_t)*m_unique;
    const uint64_t fine = gemst_index_run_pairs(code, m, i, shift0), coarse = gemst_index_run_pairs(code, m, i, shift1);
    if (fine)
        atomicAdd(&pairs[0], (unsigned long long)fine);
    if (coarse)
        atomicAdd(&pairs[1], (unsigned long long)coarse);
}

/* Sets c->bvh: whether nns auto searches the BVH for these points (a
 * small set, or one the sample's pairs say fills fewer dimensions). */
template <typename T>
static int GEMST_FN(choose_index)(cuda_ctx *c, const T *coords, gridemst_error *err)
{
    const uint32_t n = c->n, m = GEMST_INDEX_SAMPLE;
    c->bvh = n < GEMST_INDEX_SMALL_SET;
    if (c->bvh)
        return GRIDEMST_OK;
    uint64_t *code, *sorted;
    GEMST_DALLOC(&c->mem, code, m, "the index's sample");
    GEMST_DALLOC(&c->mem, sorted, m, "the index's sample");
    GEMST_FN(k_sample_codes)<T><<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(coords, n, m, c->frame, c->pb->dim,
                                                                            code);
    GEMST_LAUNCHED();
    GEMST_CUB(c, cub::DeviceRadixSort::SortKeys(temp, temp_bytes, code, sorted, m, 0, GEMST_MORTON_BITS, c->s));
    GEMST_CUB(c, cub::DeviceSelect::Unique(temp, temp_bytes, sorted, code, CNT(c, sample_unique), m, c->s));
    int shift[2];
    gemst_index_shifts(&c->box, n, shift); /* the grid's planned side: a part's own box in a partitioned solve */
    GEMST_CU(cudaMemsetAsync(CNT(c, sample_pairs), 0, sizeof c->host->sample_pairs, c->s));
    GEMST_FN(k_sample_pairs)<<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(code, CNT(c, sample_unique), shift[0],
                                                                         shift[1], c->cnt->sample_pairs);
    GEMST_LAUNCHED();
    GEMST_TRY(GEMST_FN(read_counters)(c, err));
    gemst_dfree(&c->mem, code);
    gemst_dfree(&c->mem, sorted);
    const uint64_t pairs[2] = {c->host->sample_pairs[0], c->host->sample_pairs[1]};
    c->bvh = gemst_index_prefers_bvh(c->pb->dim, pairs);
    return GRIDEMST_OK;
}
