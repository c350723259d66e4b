/*
 * The CUDA backend's last step (precision-generic, included by
 * cuda_solve.cuh): the tree, as the Boruvka loop left it and with the
 * duplicates' edges after it, put in the result's order and form on the
 * device.
 *
 *   0. right after the loop (finish_edges, cuda_solve.cuh), the loop's
 *      edges turned from the places of their ends into their ids, and
 *      their squared lengths measured (k_finish_edges);
 *   1. sort by (squared length, lo, hi): two radix sorts, by endpoints and
 *      then stably by length, each carrying the other's key;
 *   2. lengths in the caller's units, w = sqrt(d2) / scale in double, and a
 *      count of neighbours with equal w out of (u, v) order (distinct
 *      squared lengths can share a square root in double); where there are
 *      any, the sort is redone on (w, u, v);
 *   3. the total weight, summed in the library's fixed order
 *      (gemst_total_group, the CPU's order too);
 *   4. the result's form: three arrays the result owns on the device, or
 *      (u, v, w) records copied into host memory that a thread made ready
 *      during the solve (host_tree.h), or for a partitioned solve's part
 *      lo, hi and squared lengths left on the device as the partitioned
 *      solve's edges.
 *
 * Only the counters (ties, total) come to the host besides a host tree.
 */

#include "cuda/cuda_sum_groups.cuh"
#include "host_array.h"
#include "parts/parts.h"

/* The tree's edges after the loop, each read and rewritten by one thread:
 * the first `stored` (all unless the loop failed) from their ends' places
 * in g to their ids (lo, hi), and their squared lengths as the searches
 * measured them (nns/edge_length.h) into d2.  An edge shorter than the
 * working precision can hold (below GEMST_D2_TINY) offers its pair key to
 * *first (grid_plan.h). */
static __global__ void GEMST_FN(k_finish_edges)(uint32_t stored, gemst_grid g, uint32_t *edge_a, uint32_t *edge_b,
                                              gemst_real *d2, unsigned long long *first)
{
    GEMST_INDEX(e, stored);
    const uint32_t a = edge_a[e], b = edge_b[e], id_a = g.oid[a], id_b = g.oid[b];
    edge_a[e] = id_a < id_b ? id_a : id_b;
    edge_b[e] = id_a < id_b ? id_b : id_a;
    d2[e] = GEMST_FN(gemst_edge_d2)(&g, a, b);
    if (d2[e] < GEMST_D2_TINY)
        atomicMin(first, (unsigned long long)gemst_pair_key(id_a, id_b));
}

/* The final sort's keys of edge e: the unique points' tree edges (lo, hi
 * and d2), then the duplicates' edges, of length 0 or dup_d2's (the
 * mutual-reachability tree, cuda_core.cuh).  The endpoints as one word, lo
 * in the bits from `bits` up, and the length's word (edge_order.h). */
static __global__ void GEMST_FN(k_pair_keys)(uint32_t m_tree, uint32_t n_dup, int bits, const uint32_t *lo,
                                           const uint32_t *hi, const gemst_real *d2, const uint32_t *dup_lo,
                                           const uint32_t *dup_hi, const gemst_real *dup_d2, uint64_t *pair,
                                           gemst_word1 *length)
{
    GEMST_INDEX(e, m_tree + n_dup);
    if (e < m_tree) {
        pair[e] = (uint64_t)lo[e] << bits | hi[e];
        length[e] = gemst_edge_word1(d2[e]);
    } else {
        const uint32_t k = e - m_tree;
        pair[e] = (uint64_t)dup_lo[k] << bits | dup_hi[k];
        length[e] = gemst_edge_word1(dup_d2 ? dup_d2[k] : (gemst_real)0);
    }
}

/* The length of sorted edge e in the caller's units, as the host computes
 * it (both operations are correctly rounded on the device too). */
static __device__ double GEMST_FN(d_caller_length)(const gemst_word1 *length, uint32_t e, double scale)
{
    return sqrt((double)gemst_edge_word1_value(length[e])) / scale;
}

/* w[e] for every sorted edge, and in *ties how many follow an edge of the
 * same w with greater endpoints. */
static __global__ void GEMST_FN(k_caller_lengths)(uint32_t m, const gemst_word1 *length, const uint64_t *pair,
                                                double scale, double *w, int *ties)
{
    GEMST_INDEX(e, m);
    double here = GEMST_FN(d_caller_length)(length, e, scale);
    w[e] = here;
    if (e > 0 && pair[e - 1] > pair[e] && GEMST_FN(d_caller_length)(length, e - 1, scale) == here)
        atomicAdd(ties, 1);
}

static __global__ void GEMST_FN(k_host_edges)(uint32_t m, int bits, const uint64_t *pair, const double *w,
                                            gridemst_edge *out)
{
    GEMST_INDEX(e, m);
    gridemst_edge edge;
    edge.u = (uint32_t)(pair[e] >> bits);
    edge.v = (uint32_t)(pair[e] & (((uint64_t)1 << bits) - 1));
    edge.w = w[e];
    out[e] = edge;
}

static __global__ void GEMST_FN(k_device_ids)(uint32_t m, int bits, const uint64_t *pair, uint32_t *u, uint32_t *v)
{
    GEMST_INDEX(e, m);
    u[e] = (uint32_t)(pair[e] >> bits);
    v[e] = (uint32_t)(pair[e] & (((uint64_t)1 << bits) - 1));
}

/* The sorted edges as a partitioned solve keeps them. */
static __global__ void GEMST_FN(k_part_edges)(uint32_t m, int bits, const uint64_t *pair, const gemst_word1 *length,
                                            gemst_parts_edge *out)
{
    GEMST_INDEX(e, m);
    gemst_parts_edge edge;
    edge.d2 = (double)gemst_edge_word1_value(length[e]);
    edge.lo = (uint32_t)(pair[e] >> bits);
    edge.hi = (uint32_t)(pair[e] & (((uint64_t)1 << bits) - 1));
    out[e] = edge;
}

/* Bits of the largest endpoint id. */
static int GEMST_FN(id_bits)(uint32_t n)
{
    int bits = 1;
    while (bits < 32 && (uint64_t)(n - 1) >> bits)
        bits++;
    return bits;
}

/* Step 1: pair and length, sorted by (length, pair); the tree's edge
 * arrays are freed. */
static int GEMST_FN(sort_tree)(cuda_ctx *c, int bits, uint64_t **pair_out, gemst_word1 **length_out,
                              gridemst_error *err)
{
    const uint32_t m = c->n - 1;
    uint64_t *pair, *pair2;
    gemst_word1 *length, *length2;
    GEMST_DALLOC(&c->mem, pair, m, "edge sort keys");
    GEMST_DALLOC(&c->mem, pair2, m, "edge sort keys");
    GEMST_DALLOC(&c->mem, length, m, "edge sort keys");
    GEMST_DALLOC(&c->mem, length2, m, "edge sort keys");
    GEMST_FN(k_pair_keys)<<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(c->nu - 1, c->n_dup, bits, c->edge_a, c->edge_b,
                                                                      c->edge_d2, c->dup_lo, c->dup_hi, c->dup_d2,
                                                                      pair, length);
    GEMST_LAUNCHED();
    void *edges[] = {c->edge_a, c->edge_b, c->edge_d2};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        gemst_dfree(&c->mem, edges[i]);
    c->edge_a = c->edge_b = NULL;
    c->edge_d2 = NULL;
    GEMST_CUB(c, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, pair, pair2, length, length2, m, 0, 2 * bits, c->s));
    GEMST_CUB(c, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, length2, length, pair2, pair, m, 0,
                                                (int)(8 * sizeof(gemst_word1)), c->s));
    gemst_dfree(&c->mem, pair2);
    gemst_dfree(&c->mem, length2);
    *pair_out = pair;
    *length_out = length;
    return GRIDEMST_OK;
}

/* Step 2's rare case: (pair, w) sorted again by (w, pair). */
static int GEMST_FN(order_ties)(cuda_ctx *c, int bits, uint64_t *pair, double *w, gridemst_error *err)
{
    const uint32_t m = c->n - 1;
    uint64_t *pair2;
    double *w2;
    GEMST_DALLOC(&c->mem, pair2, m, "tie order keys");
    GEMST_DALLOC(&c->mem, w2, m, "tie order keys");
    GEMST_CUB(c, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, pair, pair2, w, w2, m, 0, 2 * bits, c->s));
    GEMST_CUB(c, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, w2, w, pair2, pair, m, 0, 64, c->s));
    gemst_dfree(&c->mem, pair2);
    gemst_dfree(&c->mem, w2);
    return GRIDEMST_OK;
}

/* Step 3: the total into the counters. */
static int GEMST_FN(total_weight)(cuda_ctx *c, const double *w, gridemst_error *err)
{
    uint64_t count = c->n - 1;
    const uint64_t first = (count + GEMST_TOTAL_GROUP - 1) / GEMST_TOTAL_GROUP;
    double *part[2];
    GEMST_DALLOC(&c->mem, part[0], first, "total weight sums");
    GEMST_DALLOC(&c->mem, part[1], first, "total weight sums");
    const double *in = w;
    for (int level = 0;; level++) {
        uint64_t groups = (count + GEMST_TOTAL_GROUP - 1) / GEMST_TOTAL_GROUP;
        double *out = groups == 1 ? CNT(c, total) : part[level & 1];
        gemst_k_sum_groups<<<(unsigned)((groups + GEMST_SUM_WARPS - 1) / GEMST_SUM_WARPS), 32 * GEMST_SUM_WARPS, 0,
                                 c->s>>>(count, in, out);
        GEMST_LAUNCHED();
        if (groups == 1)
            break;
        in = out;
        count = groups;
    }
    gemst_dfree(&c->mem, part[0]);
    gemst_dfree(&c->mem, part[1]);
    return GRIDEMST_OK;
}

/* Steps 2 to 4 for a tree left on the device. */
static int GEMST_FN(emit_device_tree)(cuda_ctx *c, int bits, uint64_t *pair, const gemst_word1 *length,
                                     gemst_tree *tree, gridemst_error *err)
{
    const uint32_t m = c->n - 1;
    gridemst_device_edges *out = &tree->device_edges;
    cudaMemPool_t pool = c->mem.pool;
    out->device = c->pb->ctx->device;
    GEMST_TRY(gemst_dalloc_kept(pool, c->s, (void **)&out->u, sizeof *out->u * m, "the tree's endpoints", err));
    GEMST_TRY(gemst_dalloc_kept(pool, c->s, (void **)&out->v, sizeof *out->v * m, "the tree's endpoints", err));
    GEMST_TRY(gemst_dalloc_kept(pool, c->s, (void **)&out->w, sizeof *out->w * m, "the tree's lengths", err));
    GEMST_FN(k_caller_lengths)<<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, length, pair, c->frame.scale,
                                                                           out->w, CNT(c, ties));
    GEMST_LAUNCHED();
    GEMST_TRY(GEMST_FN(read_counters)(c, err));
    if (c->host->ties)
        GEMST_TRY(GEMST_FN(order_ties)(c, bits, pair, out->w, err));
    GEMST_TRY(GEMST_FN(total_weight)(c, out->w, err));
    GEMST_FN(k_device_ids)<<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, bits, pair, out->u, out->v);
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
}

/* Steps 2 to 4 for a tree copied to host memory; `sorted` is recorded
 * before the copy. */
static int GEMST_FN(emit_host_tree)(cuda_ctx *c, int bits, uint64_t *pair, const gemst_word1 *length,
                                   cudaEvent_t sorted, gemst_tree *tree, gridemst_error *err)
{
    const uint32_t m = c->n - 1;
    double *w;
    GEMST_DALLOC(&c->mem, w, m, "the tree's lengths");
    GEMST_FN(k_caller_lengths)<<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, length, pair, c->frame.scale, w,
                                                                           CNT(c, ties));
    GEMST_LAUNCHED();
    GEMST_TRY(GEMST_FN(read_counters)(c, err));
    if (c->host->ties)
        GEMST_TRY(GEMST_FN(order_ties)(c, bits, pair, w, err));
    GEMST_TRY(GEMST_FN(total_weight)(c, w, err));
    gridemst_edge *records;
    GEMST_DALLOC(&c->mem, records, m, "the sorted tree");
    GEMST_FN(k_host_edges)<<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, bits, pair, w, records);
    GEMST_LAUNCHED();
    GEMST_CU(cudaEventRecord(sorted, c->s));
    tree->edges = gemst_host_tree_finish(&c->host_tree);
    if (!tree->edges)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %u result edges", m);
    tree->host_registered = c->host_tree.registered;
    tree->host_capacity = c->host_tree.capacity;
    c->host_tree.edges = NULL; /* the tree's now */
    /* chunk by chunk as registered (host_tree.h): a copy reaching across
       registrations would go the pageable way */
    const size_t bytes = sizeof *records * m;
    for (size_t at = 0; at < bytes; at += GEMST_PIN_CHUNK) {
        size_t len = bytes - at < GEMST_PIN_CHUNK ? bytes - at : GEMST_PIN_CHUNK;
        GEMST_CU(cudaMemcpyAsync((char *)tree->edges + at, (const char *)records + at, len, cudaMemcpyDeviceToHost,
                                 c->s));
    }
    return GRIDEMST_OK;
}

/* A partitioned solve's part (pb->raw_tree): the sorted tree as the CPU
 * backend gives it (lo, hi and the squared lengths in working units), left
 * on the device for the part's later steps (tree->part_edges, of the
 * context's pool, outliving the solve). */
static int GEMST_FN(emit_part_edges)(cuda_ctx *c, int bits, const uint64_t *pair, const gemst_word1 *length,
                                    gemst_tree *tree, gridemst_error *err)
{
    const uint32_t m = c->n - 1;
    GEMST_TRY(gemst_dalloc_kept(c->mem.pool, c->s, &tree->part_edges, sizeof(gemst_parts_edge) * m, "a part's tree",
                                err));
    GEMST_FN(k_part_edges)<<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, bits, pair, length,
                                                                       (gemst_parts_edge *)tree->part_edges);
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
}

/* Puts the tree and the duplicates' edges in the result's order and
 * form (the header comment), or for a partitioned solve's part in the CPU
 * backend's, left on the device (emit_part_edges); `sorted` is recorded once the device is done
 * with it, before a copy to the host. */
static int GEMST_FN(emit_tree)(cuda_ctx *c, cudaEvent_t sorted, gemst_tree *tree, gridemst_error *err)
{
    const uint32_t m = c->n - 1;
    const int bits = GEMST_FN(id_bits)(c->n);
    uint64_t *pair;
    gemst_word1 *length;
    GEMST_TRY(GEMST_FN(sort_tree)(c, bits, &pair, &length, err));
    if (c->pb->raw_tree) {
        GEMST_CU(cudaEventRecord(sorted, c->s));
        GEMST_TRY(GEMST_FN(emit_part_edges)(c, bits, pair, length, tree, err));
        tree->n_edges = m;
        tree->scale = c->frame.scale;
        return GRIDEMST_OK;
    }
    if (c->pb->opt.result == GRIDEMST_RESULT_DEVICE) {
        GEMST_TRY(GEMST_FN(emit_device_tree)(c, bits, pair, length, tree, err));
        GEMST_CU(cudaEventRecord(sorted, c->s));
    } else {
        GEMST_TRY(GEMST_FN(emit_host_tree)(c, bits, pair, length, sorted, tree, err));
    }
    GEMST_TRY(GEMST_FN(read_counters)(c, err));
    tree->n_edges = m;
    tree->scale = c->frame.scale;
    tree->total_weight = c->host->total;
    tree->finished = 1;
    return GRIDEMST_OK;
}
