/*
 * The BVH on the device (nns bvh; precision-generic, included by
 * cuda_solve.cuh), as cpu_bvh.inc builds and searches it on the CPU:
 *
 *   - the build (bvh/bvh_build.h) over the unique points in Morton order
 *     (cuda_grid_build.cuh sorts them): each internal node's shape from the
 *     leaves' codes, then the boxes fitted bottom-up;
 *   - FindMin1 in the first Borůvka iteration: each point's few nearest
 *     points (bvh/bvh_knn.h), kept for the next iterations;
 *   - FindMin1 in each later iteration (bvh/labels.h, bvh/bvh_query.h):
 *     the roots' bounds reset, the bounds from Morton neighbours and the
 *     component breaks, the nodes' labels, then each point's triage
 *     (bvh/bvh_knn.h) and the searches of the points it lists; a point
 *     whose kept nearest points include one of another component, or whose
 *     lower bound exceeds its component's bound, searches nothing.
 *
 * The kernels first, then their host steps.  The late BVH (cuda_late_bvh.cuh)
 * builds the same tree over the grid's points.
 */
#include "bvh/bvh_knn.h"
#include "bvh/bvh_query.h"
#include "bvh/labels.h"

/* Each leaf's code for the build, its first point's. */
static __global__ void GEMST_FN(k_bvh_leaf_codes)(uint32_t leaves, uint32_t leaf, const uint64_t *code,
                                                uint64_t *leaf_code)
{
    GEMST_INDEX(j, leaves);
    leaf_code[j] = code[(size_t)j * leaf];
}

/* The build (bvh/bvh_build.h): the tree's shape per internal node, then the
 * boxes in two passes (node labels zeroed before), the latter in one
 * instance per dimension (DIM), where the boxes' loops unroll. */
static __global__ void GEMST_FN(k_bvh_build_node)(const uint64_t *code, gemst_bvh b)
{
    GEMST_INDEX(i, b.n - 1);
    GEMST_FN(gemst_bvh_build_node)(code, &b, i);
}

template <int DIM>
static __global__ void GEMST_FN(k_bvh_fit_small)(gemst_bvh b, gemst_grid pts)
{
    GEMST_INDEX(i, b.n - 1);
    b.dim = pts.dim = DIM;
    GEMST_FN(gemst_bvh_fit_small)(&b, &pts, i);
}

template <int DIM>
static __global__ void GEMST_FN(k_bvh_fit_large)(gemst_bvh b, gemst_grid pts)
{
    GEMST_INDEX(i, b.n - 1);
    b.dim = pts.dim = DIM;
    GEMST_FN(gemst_bvh_fit_large)(&b, &pts, i);
}

/* Per iteration (bvh/labels.h): every root's bound reset ... */
static __global__ void GEMST_FN(k_bvh_reset_bounds)(const uint32_t *roots, const int *n_roots, gemst_word1 *ub)
{
    GEMST_LIST_INDEX(k, n_roots);
    ub[roots[k]] = gemst_edge_word1(GEMST_REAL_INF);
}

/* ... each point's component renamed after the last merges (link, flat:
 * the relabel that the grid's loop runs as a pass of its own,
 * cuda_boruvka_steps.cuh), then the breaks between Morton neighbours and
 * their bounds (brk[n - 1] = 0, so that the exclusive scan over n entries
 * ends with the total).  Point j + 1's component may be renamed by its own
 * thread before or after this one reads it: link maps the new name to
 * itself, so both give the same. */
static __global__ void GEMST_FN(k_bvh_pair_bounds)(gemst_grid pts, const uint32_t *link, uint32_t *comp,
                                                 gemst_word1 *ub, uint32_t *brk)
{
    GEMST_INDEX(j, pts.n);
    const uint32_t was = comp[j], own = link[was];
    if (own != was)
        comp[j] = own;
    brk[j] = j + 1 < pts.n ? GEMST_FN(gemst_bvh_pair_bound_of)(&pts, j, own, link[comp[j + 1]], ub) : 0u;
}

/* Words of the mixed set a warp of k_bvh_labels looks at: one lane reads
 * each. */
#define GEMST_BVH_LABEL_WORDS 16

/* ... and after the scan, the labels of the nodes mixed in the last
 * iteration and of their children (gemst_bvh_label_mixed); a node that is
 * no longer mixed leaves the set.  The set is a bit per internal node, a
 * word per 32 nodes.  A warp reads GEMST_BVH_LABEL_WORDS words at once and
 * labels the nodes of each word that is not empty in turn, a lane a node;
 * its first lane writes the word back without the bits of the nodes found
 * whole.  (In the late iterations nearly every word is empty: a thread per
 * node took 30 to 40 us of each iteration at 10^7 points to find that.) */
static __global__ void GEMST_FN(k_bvh_labels)(gemst_bvh b, const uint32_t *comp, const uint32_t *brk,
                                            uint32_t *mixed)
{
    const uint32_t lane = threadIdx.x % 32, words = gemst_bvh_mixed_words(b.n);
    const uint32_t first_word = (blockIdx.x * blockDim.x + threadIdx.x) / 32 * GEMST_BVH_LABEL_WORDS;
    if (first_word >= words) /* the whole warp: blocks are whole warps */
        return;
    const uint32_t own_word =
        lane < GEMST_BVH_LABEL_WORDS && first_word + lane < words ? mixed[first_word + lane] : 0u;
    uint32_t pending = __ballot_sync(0xffffffffu, own_word != 0);
    while (pending) {
        const int k = __ffs(pending) - 1;
        pending &= pending - 1;
        const uint32_t word_id = first_word + k, word = __shfl_sync(0xffffffffu, own_word, k);
        const uint32_t i = word_id * 32 + lane;
        const int whole = i < b.n - 1 && (word >> lane & 1u) && GEMST_FN(gemst_bvh_label_mixed)(&b, comp, brk, mixed, i);
        const uint32_t found_whole = __ballot_sync(0xffffffffu, whole); /* every lane */
        if (lane == 0 && found_whole)
            mixed[word_id] = word & ~found_whole;
    }
}

/* FindMin1 of the first iteration with lists of nearest points
 * (bvh/bvh_knn.h); one instance per dimension (DIM). */
template <int DIM>
static __global__ void GEMST_FN(k_bvh_knn_first)(gemst_bvh b, gemst_grid pts, const uint32_t *comp, gemst_word1 *ub,
                                               gemst_real *best_d2, uint32_t *best_to, uint32_t *knn)
{
    GEMST_INDEX(q, b.points);
    b.dim = pts.dim = DIM;
    GEMST_FN(gemst_bvh_knn_first)(&b, &pts, comp, ub, best_d2, best_to, knn, q);
}

/* FindMin1 on the BVH in two steps.  First each point's triage
 * (bvh/bvh_knn.h): the points that search are listed, and with them the
 * points whose kept edge may be their component's shortest, which are all
 * that FindMin2 then looks at; each list is kept in (Morton) order, by a
 * block-wide scan and one atomic per block.  In the late iterations few
 * points search, scattered one or two to a warp (blobs 3D 1e7: 3% of the
 * points, in 27% of the warps, when the late BVH takes over), and a warp
 * lasts as long as its longest search ... */
static __global__ void GEMST_FN(k_bvh_triage)(gemst_bvh b, gemst_grid pts, const uint32_t *comp, gemst_word1 *ub,
                                            gemst_real *best_d2, uint32_t *best_to, uint32_t *knn, uint32_t *search,
                                            int *n_search, uint32_t *edges, int *n_edges)
{
    typedef cub::BlockScan<int, GEMST_THREADS> Scan;
    __shared__ typename Scan::TempStorage tmp;
    __shared__ int base[2];
    const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
    const int what = q < b.points ? GEMST_FN(gemst_bvh_triage)(&b, &pts, comp, ub, best_d2, best_to, knn, q)
                                  : GEMST_BVH_IDLE;
    /* one scan for both lists: a block's counts fit in 16 bits */
    static_assert(GEMST_THREADS < (1 << 16), "a block's count overflows its half of the scanned word");
    const int flags = (what == GEMST_BVH_SEARCH) | (what != GEMST_BVH_IDLE) << 16;
    int at, total;
    Scan(tmp).ExclusiveSum(flags, at, total);
    if (threadIdx.x == 0 && (total & 0xffff))
        base[0] = atomicAdd(n_search, total & 0xffff);
    if (threadIdx.x == 0 && (total >> 16))
        base[1] = atomicAdd(n_edges, total >> 16);
    __syncthreads();
    if (flags & 0xffff)
        search[base[0] + (at & 0xffff)] = q;
    if (flags >> 16)
        edges[base[1] + (at >> 16)] = q;
}

/* ... then the listed points search, side by side; one instance per
 * dimension (DIM), where the box distances unroll. */
template <int DIM>
static __global__ void GEMST_FN(k_bvh_findmin1)(gemst_bvh b, gemst_grid pts, const uint32_t *comp, gemst_word1 *ub,
                                              gemst_real *best_d2, uint32_t *best_to, const uint32_t *list,
                                              const int *n_list)
{
    GEMST_LIST_INDEX(a, n_list);
    b.dim = pts.dim = DIM;
    GEMST_FN(gemst_bvh_findmin1_point)(&b, &pts, comp, ub, best_d2, best_to, list[a]);
}

/* The tree over the unique points, in Morton order in c->g (bvh/bvh_build.h),
 * in leaves of leaf_size points (gemst_bvh_leaf_size's), from the leaves'
 * codes; the parent links are freed once the boxes are fitted. */
static int GEMST_FN(build_tree)(cuda_ctx *c, const uint64_t *leaf_code, uint32_t leaf_size, gridemst_error *err)
{
    gemst_bvh *b = &c->tree;
    b->dim = c->pb->dim;
    b->points = c->nu;
    b->leaf_size = leaf_size;
    const uint32_t n = b->n = gemst_bvh_leaves(c->nu, leaf_size);
    GEMST_DALLOC(&c->mem, b->node, n - 1, "BVH nodes"); /* the allocator's alignment is 256 bytes or more */
    GEMST_DALLOC(&c->mem, b->end, n - 1, "BVH range ends");
    GEMST_DALLOC(&c->mem, b->parent, (size_t)2 * n - 1, "BVH parent links");
    /* zero labels: the fit's visit counters */
    GEMST_CU(cudaMemsetAsync(b->node, 0, sizeof *b->node * (n - 1), c->s));
    GEMST_FN(k_bvh_build_node)<<<gemst_blocks(n - 1), GEMST_THREADS, 0, c->s>>>(leaf_code, *b);
    GEMST_LAUNCHED();
    GEMST_LAUNCH_DIM(c, k_bvh_fit_small, gemst_blocks(n - 1), *b, c->g);
    GEMST_LAUNCHED();
    GEMST_LAUNCH_DIM(c, k_bvh_fit_large, gemst_blocks(n - 1), *b, c->g);
    GEMST_LAUNCHED();
    gemst_dfree(&c->mem, b->parent);
    b->parent = NULL;
    /* every node mixed until first labelled */
    GEMST_DALLOC(&c->mem, c->mixed, gemst_bvh_mixed_words(n), "BVH mixed nodes");
    GEMST_CU(cudaMemsetAsync(c->mixed, 0xff, sizeof *c->mixed * gemst_bvh_mixed_words(n), c->s));
    return GRIDEMST_OK;
}

/* nns BVH's tree: a leaf per point (more where that would be too many
 * leaves, gemst_bvh_leaf_size), from their codes, which it then frees.
 * (The leaves' codes that larger leaves take, 8 bytes per leaf, are fewer
 * bytes than the nodes and parent links they save.) */
static int GEMST_FN(build_bvh)(cuda_ctx *c, gridemst_error *err)
{
    if (c->nu > 1) {
        const uint32_t leaf = gemst_bvh_leaf_size(c->nu, 1), leaves = gemst_bvh_leaves(c->nu, leaf);
        uint64_t *leaf_code = c->code;
        if (leaf > 1) {
            GEMST_DALLOC(&c->mem, leaf_code, leaves, "BVH codes");
            GEMST_FN(k_bvh_leaf_codes)<<<gemst_blocks(leaves), GEMST_THREADS, 0, c->s>>>(leaves, leaf, c->code,
                                                                                         leaf_code);
            GEMST_LAUNCHED();
        }
        GEMST_TRY(GEMST_FN(build_tree)(c, leaf_code, leaf, err));
        if (leaf_code != c->code)
            gemst_dfree(&c->mem, leaf_code);
    }
    gemst_dfree(&c->mem, c->code);
    c->code = NULL;
    return GRIDEMST_OK;
}

/* FindMin1 on the BVH for every point, as cpu_bvh.inc and cpu_solve.inc
 * drive it: the roots' bounds reset, then in the first iteration with
 * lists every point's nearest points; otherwise the breaks and
 * Morton-neighbour bounds, their scan, the node labels, then the searches
 * (the points that search listed in c->extra first, and those FindMin2
 * must see in c->active). */
static int GEMST_FN(bvh_findmin1)(cuda_ctx *c, gridemst_error *err)
{
    const uint32_t nu = c->nu;
    GEMST_FN(k_bvh_reset_bounds)<<<gemst_blocks(c->n_roots), GEMST_THREADS, 0, c->s>>>(c->roots, CNT(c, roots), c->ub);
    GEMST_LAUNCHED();
    if (c->knn && !c->knn_found) {
        GEMST_LAUNCH_DIM(c, k_bvh_knn_first, gemst_blocks(nu), c->tree, c->g, c->comp, c->ub, c->best_d2,
                         c->best_to, c->knn);
        GEMST_LAUNCHED();
        c->knn_found = 1;
        c->labels_wait = 1;
        return GRIDEMST_OK;
    }
    GEMST_FN(k_bvh_pair_bounds)<<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(c->g, c->link, c->comp, c->ub,
                                                                              c->brk);
    GEMST_LAUNCHED();
    if (c->labels_wait) {
        /* Right after kNN-first each component is a tree of nearest-point
         * links, of 3 to 3.4 points on average on every shape measured
         * (10^7 points): hardly a node above a leaf holds one component
         * only, so labelling every node (0.2 to 0.35 ms at 10^7 points)
         * would spare the searches next to nothing.  The labels stay
         * GEMST_NONE from the build and every node mixed, so the next
         * iteration labels them all. */
        c->labels_wait = 0;
    } else {
        /* The scratch was sized before the loop (bvh_scan_temp): no allocation here. */
        GEMST_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, c->brk, c->brk, nu, c->s));
        const uint64_t label_warps =
            (gemst_bvh_mixed_words(c->tree.n) + GEMST_BVH_LABEL_WORDS - 1) / GEMST_BVH_LABEL_WORDS;
        GEMST_FN(k_bvh_labels)<<<gemst_blocks(32 * label_warps), GEMST_THREADS, 0, c->s>>>(c->tree, c->comp, c->brk,
                                                                                          c->mixed);
        GEMST_LAUNCHED();
    }
    GEMST_CU(cudaMemsetAsync(CNT(c, searching), 0, sizeof c->host->searching, c->s));
    GEMST_CU(cudaMemsetAsync(CNT(c, active), 0, sizeof c->host->active, c->s));
    GEMST_FN(k_bvh_triage)<<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(c->tree, c->g, c->comp, c->ub, c->best_d2,
                                                                        c->best_to, c->knn, c->extra,
                                                                        CNT(c, searching), c->active,
                                                                        CNT(c, active));
    GEMST_LAUNCHED();
    GEMST_LAUNCH_DIM(c, k_bvh_findmin1, gemst_blocks(nu), c->tree, c->g, c->comp, c->ub, c->best_d2, c->best_to,
                     c->extra, CNT(c, searching));
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
}

/* The BVH's Borůvka loop keeps three arrays in the buffers of others whose
 * lives do not overlap with theirs: w1 is ub itself (FindMin2 in
 * cuda_boruvka_steps.cuh), and the label breaks (from the pair bounds to
 * the labels), the search list (from the triage to the searches) and the
 * winners' far ends (from FindMin2 to connect) take one buffer in turn.
 * Frees the arrays the grid's iterations had in their own buffers. */
static void GEMST_FN(bvh_share_buffers)(cuda_ctx *c)
{
    gemst_dfree(&c->mem, c->w1);
    gemst_dfree(&c->mem, c->extra);
    gemst_dfree(&c->mem, c->win_out);
    c->w1 = c->ub;
    c->extra = c->win_out = c->brk;
}

/* Sizes the CUB scratch for bvh_findmin1's scan once, before the loop. */
static int GEMST_FN(bvh_scan_temp)(cuda_ctx *c, gridemst_error *err)
{
    size_t bytes = 0;
    GEMST_CU(cub::DeviceScan::ExclusiveSum(NULL, bytes, c->brk, c->brk, c->nu, c->s));
    return GEMST_FN(ensure_temp)(c, bytes, err);
}
