/*
 * The CUDA solve's state (precision-generic, included by cuda_solve.cuh):
 * the context of one solve (cuda_ctx: the grid or the BVH, the Borůvka
 * arrays as in cpu_solve.inc, the tree's edges) and the counters the host
 * reads once per iteration; with the small helpers every step uses: CUB's
 * scratch, list selection, the counters' copies, the kernels' instances
 * for the grid at hand, the views FindMin1 takes of the state, and event
 * timing.
 */
#include "backend.h"
#include "context.h"
#include "host_tree.h"
#include "cuda/cuda_kernels.cuh"
#include "bvh/bvh.h"
#include "nns/findmin1.h"

/* Counters the host reads once per iteration. */
typedef struct {
    uint32_t edges;            /* tree edges emitted */
    int extra;                 /* points the fallback improved */
    int active, roots;         /* list lengths after compaction */
    int uncertain, crowded, hard; /* list lengths of one-time selections */
    int searching;             /* points whose BVH search runs this iteration */
    gemst_word1 longest;       /* the iteration's longest edge */
    int ties;                  /* final tree: equal lengths out of (u, v) order */
    double total;              /* final tree: its total weight */
    unsigned long long sample_counts[2]; /* nns auto's pairs sharing a cell and distinct codes (nns/index_choice.h) */
} GEMST_FN(counters);
static_assert(sizeof(GEMST_FN(counters)) <= GEMST_STAGING_BYTES, "the counters fit the context's staging");

#define cuda_ctx GEMST_FN(cuda_ctx)
typedef struct {
    const gemst_problem *pb;
    cudaStream_t s;
    gemst_dmem mem;
    void *temp;                /* CUB scratch */
    size_t temp_bytes;
    GEMST_FN(counters) * cnt;  /* device */
    GEMST_FN(counters) * host; /* last read (the context's pinned staging) */
    unsigned resident_blocks;  /* blocks of GEMST_THREADS the device runs at once (gemst_list_blocks) */
    /* grid */
    gemst_frame frame;
    gemst_frame box;           /* the frame with the extent of the box the grid covers ... */
    double box_lo[3], box_hi[3]; /* ... from box_lo to box_hi (working units): the frame's, or a
                                  partitioned solve's part's own box in the whole set's frame */
    gemst_grid g;              /* device arrays */
    uint32_t n, nu, n_dup, cells;
    double occupancy;          /* the main grid's planned points per cell */
    uint32_t *dup_lo, *dup_hi;
    uint32_t *sub_cell, *sub_start; /* crowded cells and their grids (grid.h) */
    gemst_crowd_word *crowd, *nest;
    gemst_subgrid *sub;
    /* BVH (nns bvh, or the late BVH): FindMin1 searches the tree; no pruning, no fallback */
    int bvh;
    gridemst_prune prune;      /* the strategy in force: none once the late BVH took over */
    uint64_t *code;            /* the unique points' Morton codes, until the tree is built */
    gemst_bvh tree;            /* device node array (and parent links during the build) */
    uint32_t *brk;             /* scanned label breaks (bvh/labels.h) */
    uint32_t *mixed;           /* a bit per internal node of the BVH: its points were in several components when
                                  last labelled, or it was never labelled (bvh/labels.h) */
    gemst_word1 *ub;           /* each root's bound on its shortest outgoing edge */
    uint32_t *knn;             /* each point's nearest points, rows of GEMST_BVH_KNN_ROW (bvh/bvh_knn.h); NULL: none */
    int knn_found;             /* whether the first iteration has filled them */
    int labels_wait;           /* the BVH's next iteration searches without labelling first */
    /* Boruvka state, as in cpu_solve.inc */
    uint32_t *comp, *link, *best_to, *win_in, *win_out, *head, *next, *cand;
    uint32_t *active;          /* with the BVH, the points whose edge FindMin2 sees (the triage's list) */
    uint32_t *roots, *uncertain;
    uint32_t *extra;           /* the fallback's list; with the BVH, the points whose search runs */
    uint8_t *ncand, *keep;
    gemst_real *best_d2, *rb2;
    gemst_word1 *w1;           /* with the BVH, ub itself (FindMin2 in cuda_boruvka_steps.cuh) */
    uint64_t *w2, *open;
    uint32_t *edge_a, *edge_b; /* the tree's edges: in the loop, their ends' places in g (renamed when the points
                                  move); after it, their ids lo and hi (finish_edges, cuda_tree_out.cuh) */
    gemst_real *edge_d2;       /* their squared lengths, measured after the loop into best_d2's buffer: the loop
                                  holds no array of them */
    uint32_t n_active, n_roots, n_uncertain; /* exact at the start of an iteration */
    uint32_t *breaks;          /* component breaks (nns/walk.h), kept in link; NULL when not counted */
    /* mutual reachability (options.min_samples >= 2; cuda_core.cuh), else NULL */
    gemst_real *core2;         /* squared core distances, which the grid carries (g.core2) */
    uint32_t *dup_rep;         /* each duplicate's representative (grid point) */
    gemst_real *dup_d2;        /* each duplicate's edge length */
    gemst_host_tree host_tree; /* a host result's array, made ready during the solve */
} cuda_ctx;

/* Device pointer to a counter field. */
#define CNT(c, field) (&(c)->cnt->field)

static int GEMST_FN(ensure_temp)(cuda_ctx *c, size_t bytes, gridemst_error *err)
{
    if (bytes <= c->temp_bytes)
        return GRIDEMST_OK;
    gemst_dfree(&c->mem, c->temp);
    c->temp = NULL;
    c->temp_bytes = 0;
    GEMST_TRY(gemst_dalloc(&c->mem, &c->temp, bytes, "sort scratch", err));
    c->temp_bytes = bytes;
    return GRIDEMST_OK;
}

/* CUB's two-call pattern: size the scratch, then run. */
#define GEMST_CUB(c, call_with_temp)                                                                              \
    do {                                                                                                          \
        size_t gemst_need_ = 0;                                                                                   \
        void *temp = NULL;                                                                                        \
        size_t temp_bytes = 0;                                                                                    \
        GEMST_CU(call_with_temp);                                                                                 \
        gemst_need_ = temp_bytes;                                                                                 \
        GEMST_TRY(GEMST_FN(ensure_temp)((c), gemst_need_, err));                                                 \
        temp = (c)->temp;                                                                                         \
        temp_bytes = (c)->temp_bytes;                                                                             \
        GEMST_CU(call_with_temp);                                                                                 \
    } while (0)

/* Keeps, in place, the entries of list[0..n) whose keep flag is set; the
 * count goes to *d_count. */
static int GEMST_FN(select)(cuda_ctx *c, uint32_t *list, int *d_count, uint32_t n, gridemst_error *err)
{
    GEMST_CUB(c, cub::DeviceSelect::Flagged(temp, temp_bytes, list, c->keep, d_count, n, c->s));
    return GRIDEMST_OK;
}

/* Sets a counter on the device, and its host copy.  The copy goes from a
 * variable of this call: an asynchronous copy from pageable memory reads it
 * before returning, while the pinned staging may change before the copy
 * runs. */
static int GEMST_FN(set_counter)(cuda_ctx *c, int *field, int *host_field, int value, gridemst_error *err)
{
    *host_field = value;
    GEMST_CU(cudaMemcpyAsync(field, &value, sizeof value, cudaMemcpyHostToDevice, c->s));
    return GRIDEMST_OK;
}

static int GEMST_FN(read_counters)(cuda_ctx *c, gridemst_error *err)
{
    GEMST_CU(cudaMemcpyAsync(c->host, c->cnt, sizeof *c->host, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    return GRIDEMST_OK;
}

/* Launches a kernel in its instance for the grid's dimension (a template
 * parameter DIM, 3 or 2). */
#define GEMST_LAUNCH_DIM(c, kernel, blocks, ...)                                                                \
    do {                                                                                                      \
        if ((c)->g.dim == 3)                                                                                  \
            GEMST_FN(kernel)<3><<<(blocks), GEMST_THREADS, 0, (c)->s>>>(__VA_ARGS__);                         \
        else                                                                                                  \
            GEMST_FN(kernel)<2><<<(blocks), GEMST_THREADS, 0, (c)->s>>>(__VA_ARGS__);                         \
    } while (0)

/* The launch of a GEMST_LIST_LOOP kernel over a list of at most `bound`. */
static unsigned GEMST_FN(list_blocks)(const cuda_ctx *c, uint64_t bound)
{
    const unsigned b = gemst_blocks(bound);
    return b < c->resident_blocks ? b : c->resident_blocks;
}

/* The instance of the grid searches for the grid (cuda_kernels.cuh's
 * GEMST_CROWDED_PATH). */
static int GEMST_FN(crowded_instance)(const cuda_ctx *c)
{
    return c->g.n_sub == 0 ? 0 : c->g.nest ? 2 : 1;
}

/* Launches a wide search kernel (k_static_prepare, k_fallback) in its
 * instance for the grid's dimension and crowded cells (cuda_search.cuh). */
#define GEMST_LAUNCH_WIDE(c, kernel, blocks, ...)                                                               \
    do {                                                                                                      \
        const int gemst_crowded_ = GEMST_FN(crowded_instance)(c);                                             \
        if ((c)->g.dim == 3 && gemst_crowded_ == 2)                                                           \
            GEMST_FN(kernel)<3, 2><<<(blocks), GEMST_THREADS, 0, (c)->s>>>(__VA_ARGS__);                      \
        else if ((c)->g.dim == 3 && gemst_crowded_ == 1)                                                      \
            GEMST_FN(kernel)<3, 1><<<(blocks), GEMST_THREADS, 0, (c)->s>>>(__VA_ARGS__);                      \
        else if ((c)->g.dim == 3)                                                                             \
            GEMST_FN(kernel)<3, 0><<<(blocks), GEMST_THREADS, 0, (c)->s>>>(__VA_ARGS__);                      \
        else if (gemst_crowded_ == 2)                                                                         \
            GEMST_FN(kernel)<2, 2><<<(blocks), GEMST_THREADS, 0, (c)->s>>>(__VA_ARGS__);                      \
        else if (gemst_crowded_ == 1)                                                                         \
            GEMST_FN(kernel)<2, 1><<<(blocks), GEMST_THREADS, 0, (c)->s>>>(__VA_ARGS__);                      \
        else                                                                                                  \
            GEMST_FN(kernel)<2, 0><<<(blocks), GEMST_THREADS, 0, (c)->s>>>(__VA_ARGS__);                      \
    } while (0)

/* The uncertain list of none and dynamic pruning is the active list. */
static const uint32_t *GEMST_FN(uncertain_list)(const cuda_ctx *c, const int **count, uint32_t *bound)
{
    if (c->prune == GRIDEMST_PRUNE_STATIC) {
        *count = CNT(c, uncertain);
        *bound = c->n_uncertain;
        return c->uncertain;
    }
    *count = CNT(c, active);
    *bound = c->n_active;
    return c->active;
}

/* The per-point arrays, as the shared FindMin1 functions see them. */
static gemst_findmin1_state GEMST_FN(findmin1_state)(const cuda_ctx *c)
{
    gemst_findmin1_state st = {(int)c->prune,         c->comp,    c->breaks,  c->cand,
                               c->ncand,             c->open,    c->rb2,     c->best_d2,
                               c->best_to};
    return st;
}

/* Accumulates the time between two recorded events into *ms. */
static int GEMST_FN(add_time)(cudaEvent_t a, cudaEvent_t b, double *ms, gridemst_error *err)
{
    float t = 0.0f;
    GEMST_CU(cudaEventElapsedTime(&t, a, b));
    *ms += t;
    return GRIDEMST_OK;
}
