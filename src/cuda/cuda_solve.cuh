/*
 * The CUDA backend, precision-generic: included by cuda_solve_f32.cu and
 * cuda_solve_f64.cu after GEMST_REAL_IS_DOUBLE is set.
 *
 * The whole solve runs on the device: bounding box, cell sort, duplicate
 * removal, cell table (nns BVH: Morton sort, duplicate removal, the tree's
 * build), the Boruvka loop and the final edge sort.  Inside an
 * iteration the host only reads one small block of counters at its end
 * (edges so far, list lengths), which also tells it the next launch sizes.
 * Structure and order of steps follow the CPU backend (cpu_solve.inc).
 */
#include <thrust/iterator/counting_iterator.h>

#include "backend.h"
#include "context.h"
#include "host_tree.h"
#include "cuda/cuda_kernels.cuh"
#include "bvh/bvh.h"

/* Default target points per cell.  The GPU's searches are fastest near 3
 * (H200, uniform 1e6-1e8, 2D and 3D: 2-8% faster than at the CPU's 2, and
 * 1-4 fewer bytes per point); the CPU point-weighted refinement is not used
 * here: finer cells slowed normal and clustered sets by 50%. */
#define GEMST_CUDA_OCCUPANCY 3.0

/* Counters the host reads once per iteration. */
typedef struct {
    uint32_t edges;            /* tree edges emitted */
    int extra;                 /* points the fallback improved */
    int active, roots;         /* list lengths after compaction */
    int uncertain, crowded, hard, lone; /* list lengths of one-time selections */
    int searching;             /* points whose BVH search runs this iteration */
    gemst_word1 longest;       /* the iteration's longest edge */
    int ties;                  /* final tree: equal lengths out of (u, v) order */
    double total;              /* final tree: its total weight */
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
    int clustered;             /* points in clusters much finer than the cells (gemst_grid_clustered) */
    /* BVH (nns bvh, or the late BVH): FindMin1 searches the tree; no pruning, no fallback */
    int bvh;
    gridemst_prune prune;      /* the strategy in force: none once the late BVH took over */
    uint64_t *code;            /* the unique points' Morton codes, until the tree is built */
    gemst_bvh tree;            /* device node array (and parent links during the build) */
    uint32_t *brk;             /* scanned label breaks (bvh/labels.h) */
    gemst_word1 *ub;           /* each root's bound on its shortest outgoing edge */
    /* Boruvka state, as in cpu_solve.inc */
    uint32_t *comp, *link, *best_to, *win_in, *win_out, *head, *next, *cand;
    uint32_t *active, *roots, *uncertain;
    uint32_t *extra;           /* the fallback's list; with the BVH, the points whose search runs */
    uint8_t *ncand, *keep;
    gemst_real *best_d2, *rb2;
    gemst_word1 *w1;
    uint64_t *w2, *open;
    uint32_t *edge_lo, *edge_hi;
    gemst_real *edge_d2;
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

/* Launches a kernel in its instance for the grid's dimension (a template
 * parameter DIM, 3 or 2). */
#define GEMST_LAUNCH_DIM(c, kernel, blocks, ...)                                                                \
    do {                                                                                                      \
        if ((c)->g.dim == 3)                                                                                  \
            GEMST_FN(kernel)<3><<<(blocks), GEMST_THREADS, 0, (c)->s>>>(__VA_ARGS__);                         \
        else                                                                                                  \
            GEMST_FN(kernel)<2><<<(blocks), GEMST_THREADS, 0, (c)->s>>>(__VA_ARGS__);                         \
    } while (0)

static int GEMST_FN(crowded_instance)(const cuda_ctx *c);
#include "cuda/cuda_core.cuh"

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

/* ---------------------------------------------------------------- grid */

template <typename T>
static int GEMST_FN(bbox)(cuda_ctx *c, const T *coords, double lo[3], double hi[3], gridemst_error *err)
{
    return GEMST_FN(gemst_cuda_bbox)<T>(&c->mem, c->s, coords, c->pb->n, c->pb->dim, lo, hi, err);
}

/* Bytes of device memory the solve needs at its peak, for n points and the
 * given cell count (an estimate erring high; see the CUDA issue's memory
 * budget in docs/experiments.md). */
static size_t GEMST_FN(bytes_needed)(const gemst_problem *pb, uint64_t cells)
{
    const size_t R = sizeof(gemst_real), n = (size_t)pb->n;
    size_t input = (size_t)pb->dim * (pb->dtype == GRIDEMST_FLOAT32 ? 4 : 8);
    size_t per_point = (size_t)pb->dim * R + 4          /* coordinates, ids */
                       + 8 * 4 + 2 * R + 2 * 8          /* comp link best_to win_in/out extra, 2 lists, best_d2 rb2,
                                                           w1 w2 */
                       + 2 * 4 + 1                      /* list heads and links, keep flags */
                       + 2 * 4 + R;                     /* edges */
    per_point += 2; /* crowded cells' tables: at most one entry per two points */
    if (pb->opt.tuning.prune == GRIDEMST_PRUNE_STATIC)
        per_point += GEMST_CAND_SLOTS * 4 + 1 + 4;
    if (pb->opt.tuning.prune == GRIDEMST_PRUNE_DYNAMIC)
        per_point += 8;
    if (pb->on_device) /* not copied */
        input = 0;
    return n * (per_point + input) + (size_t)(cells + 1) * 4 + GEMST_FN(core_bytes_needed)(pb) + ((size_t)64 << 20);
}

/* The same for the BVH, phase by phase (erring high): the Morton sort (codes
 * and ids, and CUB's copies of both), duplicate removal (at worst through
 * the crowded path), the tree's build, the Boruvka loop with the tree. */
static size_t GEMST_FN(bvh_bytes_needed)(const gemst_problem *pb)
{
    const size_t R = sizeof(gemst_real), n = (size_t)pb->n, P = (size_t)pb->dim * R;
    const size_t node = sizeof(gemst_bvh_node); /* n - 1 internal nodes */
    size_t input = pb->on_device ? 0 : (size_t)pb->dim * (pb->dtype == GRIDEMST_FLOAT32 ? 4 : 8);
    size_t sort = 2 * 8 + 2 * 4 + 8 + 4;
    size_t dedupe = 8 + 4 + 2 * P + 3 * 4 + 4 + 8 + 4 + 8 /* codes, ids, coordinates twice, runs, table,
                                                           links, ranks, unique codes and ids, duplicate edges */
                    + 4 + 4 + 16 + 4 + 12;                /* the crowded path's lists, keys and sort */
    size_t build = input + (sort > dedupe ? sort : dedupe);
    size_t tree = P + 4 + 8 + node + 2 * 4 + 8;          /* points, codes, nodes, parent links, duplicate edges */
    size_t boruvka = P + 4 + node                         /* points, nodes */
                     + 8 * 4 + 1 + R + 2 * 8 + 2 * 4     /* labels ... lists, keep flags, best_d2, w1 w2, list links */
                     + 4 + 8                              /* label breaks, bounds */
                     + 2 * 4 + R + 8;                     /* tree edges, duplicate edges */
    size_t peak = build > tree ? build : tree;
    peak = peak > boruvka ? peak : boruvka;
    return n * peak + GEMST_FN(core_bytes_needed)(pb) + ((size_t)64 << 20);
}

/* Refuses a job whose estimate (need) exceeds the free device memory or the
 * caller's cap, before its big allocations. */
static int GEMST_FN(check_device_memory)(cuda_ctx *c, size_t need, gridemst_error *err)
{
    const gemst_problem *pb = c->pb;
    size_t free_b = 0, total_b = 0;
    GEMST_CU(cudaMemGetInfo(&free_b, &total_b));
    size_t usable = free_b + gemst_dmem_held(&c->mem);
    if (pb->opt.max_device_bytes > 0 && (size_t)pb->opt.max_device_bytes < usable)
        usable = (size_t)pb->opt.max_device_bytes;
    if (need > usable)
        return gemst_fail(err, GRIDEMST_ERR_DEVICE_MEMORY,
                          "%lld points need about %zu bytes of device memory; %zu may be used (%zu of %zu free)",
                          (long long)pb->n, need, usable, free_b + gemst_dmem_held(&c->mem), total_b);
    return GRIDEMST_OK;
}

/* Representatives of points in crowded cells (more than GEMST_SMALL_CELL
 * points, e.g. many copies of few points): those points are sorted by
 * (cell, coordinate hash), stably, and each takes the first equal point of
 * its run.  Nothing to do for typical inputs. */
static int GEMST_FN(crowded_duplicates)(cuda_ctx *c, uint32_t n, const uint32_t *key, const gemst_real *x,
                                       const gemst_real *y, const gemst_real *z, const uint8_t *crowded,
                                       uint32_t *rep, gridemst_error *err)
{
    uint32_t *all, *pos, *pos2;
    GEMST_DALLOC(&c->mem, all, n, "crowded points");
    GEMST_DALLOC(&c->mem, pos, n, "crowded points");
    GEMST_FN(k_iota)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(n, all);
    GEMST_LAUNCHED();
    GEMST_CUB(c, cub::DeviceSelect::Flagged(temp, temp_bytes, all, crowded, pos, CNT(c, crowded), n, c->s));
    GEMST_TRY(GEMST_FN(read_counters)(c, err));
    const uint32_t m = (uint32_t)c->host->crowded;
    if (m > 0) {
        uint64_t *k64, *k64b;
        GEMST_DALLOC(&c->mem, k64, m, "crowded keys");
        GEMST_DALLOC(&c->mem, k64b, m, "crowded keys");
        GEMST_DALLOC(&c->mem, pos2, m, "crowded points");
        GEMST_FN(k_crowded_keys)<<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(pos, CNT(c, crowded), key, x, y, z,
                                                                             k64);
        GEMST_LAUNCHED();
        GEMST_CUB(c, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, k64, k64b, pos, pos2, m, 0, 64, c->s));
        GEMST_FN(k_dup_crowded)<<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(pos2, k64b, CNT(c, crowded), x, y, z,
                                                                            rep);
        GEMST_LAUNCHED();
        gemst_dfree(&c->mem, k64);
        gemst_dfree(&c->mem, k64b);
        gemst_dfree(&c->mem, pos2);
    }
    gemst_dfree(&c->mem, all);
    gemst_dfree(&c->mem, pos);
    return GRIDEMST_OK;
}

/* The grid's cells for the frame's box and the given occupancy and
 * crowding threshold, checking the device memory its cell table needs. */
static int GEMST_FN(fit_grid)(cuda_ctx *c, double occupancy, int64_t crowded,
                              gridemst_stats *stats, gridemst_error *err)
{
    const gemst_problem *pb = c->pb;
    gemst_grid_plan plan;
    gemst_grid_plan_make(&c->box, pb->n, occupancy, &plan);
    gemst_grid *g = &c->g;
    memset(g, 0, sizeof *g);
    GEMST_FN(gemst_grid_fit)(g, &c->frame, &plan, c->box_lo, c->box_hi);
    g->crowded = gemst_crowded_threshold(crowded);
    stats->cell_occupancy = c->occupancy = occupancy;
    stats->crowded_cell = g->crowded;
    uint64_t cells = gemst_grid_cells(g->nc);
    if (cells >= (uint64_t)UINT32_MAX)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "grid of %llu cells exceeds 32-bit cell indices",
                          (unsigned long long)cells);
    c->cells = (uint32_t)cells;
    stats->cells = (int64_t)cells;
    stats->cell_side = (double)g->L / c->frame.scale;
    return GEMST_FN(check_device_memory)(c, GEMST_FN(bytes_needed)(pb, cells), err);
}

/* A pair too close together for the working precision (grid_plan.h),
 * from a check kernel launched with no_pair: fails naming the pair it left
 * there (UINT64_MAX: none), and frees it. */
static int GEMST_FN(too_close)(cuda_ctx *c, unsigned long long *no_pair, gridemst_error *err)
{
    unsigned long long first = 0;
    GEMST_CU(cudaMemcpyAsync(&first, no_pair, sizeof first, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    gemst_dfree(&c->mem, no_pair);
    return first == UINT64_MAX ? GRIDEMST_OK : gemst_too_close(&c->frame, (uint64_t)first, err);
}

/* A device word holding UINT64_MAX, for a check kernel. */
static int GEMST_FN(no_pair)(cuda_ctx *c, unsigned long long **word, gridemst_error *err)
{
    GEMST_DALLOC(&c->mem, *word, 1, "a check of tiny distances");
    GEMST_CU(cudaMemsetAsync(*word, 0xff, sizeof **word, c->s));
    return GRIDEMST_OK;
}

/* Sort by cell (stable: points of a cell stay in caller-id order): each
 * point's cell into *key, its caller id into *oid. */
template <typename T>
static int GEMST_FN(sort_by_cell)(cuda_ctx *c, const T *coords, uint32_t **key_out, uint32_t **oid_out,
                                 gridemst_error *err)
{
    const uint32_t n = c->n;
    uint32_t *key, *val, *key2, *oid;
    GEMST_DALLOC(&c->mem, key, n, "cell keys");
    GEMST_DALLOC(&c->mem, val, n, "cell keys");
    GEMST_DALLOC(&c->mem, key2, n, "cell keys");
    GEMST_DALLOC(&c->mem, oid, n, "point ids");
    GEMST_FN(k_cell_keys)<T><<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(coords, n, c->frame, c->g, key, val);
    GEMST_LAUNCHED();
    int end_bit = 1;
    while (end_bit < 32 && (c->cells - 1) >> end_bit)
        end_bit++;
    GEMST_CUB(c, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, key, key2, val, oid, n, 0, end_bit, c->s));
    gemst_dfree(&c->mem, key);
    gemst_dfree(&c->mem, val);
    *key_out = key2;
    *oid_out = oid;
    return GRIDEMST_OK;
}

/* The BVH's sort by Morton code (stable: points of equal codes stay in
 * caller-id order): the sorted codes into c->code, caller ids into *oid,
 * and into *run each point's run of equal codes, numbered from 0, which
 * plays the cell's part in duplicate removal; *runs runs in all. */
template <typename T>
static int GEMST_FN(sort_by_code)(cuda_ctx *c, const T *coords, uint32_t **run_out, uint32_t *runs,
                                 uint32_t **oid_out, gridemst_error *err)
{
    const uint32_t n = c->n;
    uint64_t *code, *code2;
    uint32_t *val, *oid, *run;
    GEMST_DALLOC(&c->mem, code, n, "Morton codes");
    GEMST_DALLOC(&c->mem, val, n, "Morton codes");
    GEMST_DALLOC(&c->mem, code2, n, "Morton codes");
    GEMST_DALLOC(&c->mem, oid, n, "point ids");
    GEMST_FN(k_morton_keys)<T><<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(coords, n, c->frame, c->pb->dim, code,
                                                                           val);
    GEMST_LAUNCHED();
    GEMST_CUB(c, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, code, code2, val, oid, n, 0, GEMST_MORTON_BITS,
                                                c->s));
    gemst_dfree(&c->mem, code);
    gemst_dfree(&c->mem, val);
    GEMST_DALLOC(&c->mem, run, n, "code runs");
    GEMST_FN(k_code_run_starts)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(code2, n, run);
    GEMST_LAUNCHED();
    GEMST_CUB(c, cub::DeviceScan::InclusiveSum(temp, temp_bytes, run, run, n, c->s)); /* in place */
    uint32_t last = 0;
    GEMST_CU(cudaMemcpyAsync(&last, run + n - 1, sizeof last, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    *runs = last + 1;
    c->code = code2;
    *run_out = run;
    *oid_out = oid;
    return GRIDEMST_OK;
}

/* cell_start[k] = the first point of a cell >= k (n for k = keys), from n
 * points sorted by cell (key): the ends of the non-empty cells
 * (k_cell_ends) in a table of zeros, then a running maximum for the empty
 * ones.  (Each point that starts a cell filled the entries back to the
 * previous one before: a long run of empty cells, the corners of a normal
 * distribution's box, was one thread's, 0.6 ms at 1e7 points.) */
static int GEMST_FN(cell_table)(cuda_ctx *c, const uint32_t *key, uint32_t n, uint32_t keys, uint32_t *cell_start,
                               gridemst_error *err)
{
    GEMST_CU(cudaMemsetAsync(cell_start, 0, sizeof *cell_start * ((size_t)keys + 1), c->s));
    GEMST_FN(k_cell_ends)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(key, n, cell_start);
    GEMST_LAUNCHED();
    GEMST_CUB(c, cub::DeviceScan::InclusiveScan(temp, temp_bytes, cell_start + 1, cell_start + 1,
                                               cuda::maximum<uint32_t>{}, keys, c->s)); /* in place */
    return GRIDEMST_OK;
}

/* How the n points fill the grid (grid_plan.h), from its cell table. */
static int GEMST_FN(grid_fill)(cuda_ctx *c, const uint32_t *cell_start, gemst_grid_fill *fill, gridemst_error *err)
{
    unsigned long long *sums, host[3];
    GEMST_DALLOC(&c->mem, sums, 3, "the grid's fill");
    GEMST_CU(cudaMemsetAsync(sums, 0, sizeof host, c->s));
    const gemst_grid *g = &c->g;
    const uint64_t coarse = (uint64_t)((g->nc[0] + 1) / 2) * ((g->nc[1] + 1) / 2) * (g->dim == 3 ? (g->nc[2] + 1) / 2 : 1);
    GEMST_FN(k_grid_fill)<<<gemst_blocks(coarse), GEMST_THREADS, 0, c->s>>>(cell_start, *g, sums);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(host, sums, sizeof host, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    gemst_dfree(&c->mem, sums);
    fill->n = c->n;
    fill->occupied = (double)host[0] / (double)c->cells;
    fill->weighted = (double)host[1] / (double)c->n;
    fill->weighted2 = (double)host[2] / (double)c->n;
    return GRIDEMST_OK;
}

/* From the points sorted by key (cells, or runs of equal codes; keys
 * distinct values, each a contiguous run of points, cell_start their table
 * (cell_table); ids oid): working coordinates, duplicate removal, the
 * unique points into c->g (and their codes into c->code for the BVH, else
 * the cell table), and the duplicates' edges.  Frees key and oid (and the
 * table for the BVH). */
template <typename T>
static int GEMST_FN(unique_points)(cuda_ctx *c, const T *coords, uint32_t *key, uint32_t keys, uint32_t *cell_start,
                                  uint32_t *oid, gridemst_stats *stats, gridemst_error *err)
{
    const int dim = c->pb->dim;
    const uint32_t n = c->n;
    gemst_grid *g = &c->g;
    gemst_real *x, *y, *z = NULL;
    GEMST_DALLOC(&c->mem, x, n, "coordinates");
    GEMST_DALLOC(&c->mem, y, n, "coordinates");
    if (dim == 3)
        GEMST_DALLOC(&c->mem, z, n, "coordinates");
    GEMST_FN(k_gather_working)<T><<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(coords, n, c->frame, dim, oid, x, y, z);
    GEMST_LAUNCHED();

    /* Duplicates: within small cells by comparison, within crowded cells
     * after a sort by (cell, coordinate hash). */
    uint32_t *rep, *rank;
    uint8_t *crowded;
    GEMST_DALLOC(&c->mem, rep, n, "duplicate links");
    GEMST_DALLOC(&c->mem, crowded, n, "duplicate flags");
    GEMST_FN(k_dup_small)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(key, cell_start, n, x, y, z, rep, crowded);
    GEMST_LAUNCHED();
    GEMST_TRY(GEMST_FN(crowded_duplicates)(c, n, key, x, y, z, crowded, rep, err));
    gemst_dfree(&c->mem, crowded);

    uint32_t *flag, tail[2];
    GEMST_DALLOC(&c->mem, flag, n, "unique flags");
    GEMST_DALLOC(&c->mem, rank, n, "unique ranks");
    GEMST_FN(k_unique_flags)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(rep, n, flag);
    GEMST_LAUNCHED();
    GEMST_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, flag, rank, n, c->s));
    GEMST_CU(cudaMemcpyAsync(&tail[0], rank + n - 1, sizeof tail[0], cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaMemcpyAsync(&tail[1], flag + n - 1, sizeof tail[1], cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    gemst_dfree(&c->mem, flag);
    uint32_t nu = tail[0] + tail[1];
    c->nu = nu;
    c->n_dup = n - nu;
    stats->n_unique = nu;
    stats->n_duplicates = n - nu;
#if GEMST_REAL_IS_DOUBLE
    if (c->n_dup) {
        unsigned long long *first;
        GEMST_TRY(GEMST_FN(no_pair)(c, &first, err));
        GEMST_FN(k_merged_distinct)<T><<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(coords, dim, n, oid, rep, first);
        GEMST_LAUNCHED();
        GEMST_TRY(GEMST_FN(too_close)(c, first, err));
    }
#endif

    /* Without duplicates (the usual case) the points stay where they are,
     * and so does their cell table. */
    uint32_t *ukey = key, *uoid = oid;
    gemst_real *ux = x, *uy = y, *uz = z;
    if (c->n_dup) {
        GEMST_DALLOC(&c->mem, ukey, nu, "cell keys");
        GEMST_DALLOC(&c->mem, uoid, nu, "point ids");
        GEMST_DALLOC(&c->mem, ux, nu, "coordinates");
        GEMST_DALLOC(&c->mem, uy, nu, "coordinates");
        if (dim == 3)
            GEMST_DALLOC(&c->mem, uz, nu, "coordinates");
        GEMST_DALLOC(&c->mem, c->dup_lo, c->n_dup, "duplicate edges");
        GEMST_DALLOC(&c->mem, c->dup_hi, c->n_dup, "duplicate edges");
        GEMST_FN(k_compact_unique)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(n, rep, rank, key, oid, x, y, z, ukey,
                                                                               uoid, ux, uy, uz, c->dup_lo, c->dup_hi);
        GEMST_LAUNCHED();
        if (c->bvh) { /* the unique points' codes instead of all points' */
            uint64_t *ucode;
            GEMST_DALLOC(&c->mem, ucode, nu, "Morton codes");
            GEMST_FN(k_compact_codes)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(n, rep, rank, c->code, ucode);
            GEMST_LAUNCHED();
            gemst_dfree(&c->mem, c->code);
            c->code = ucode;
        } else {
            GEMST_TRY(GEMST_FN(cell_table)(c, ukey, nu, c->cells, cell_start, err));
        }
        void *replaced[] = {key, oid, x, y, z};
        for (size_t i = 0; i < sizeof replaced / sizeof replaced[0]; i++)
            gemst_dfree(&c->mem, replaced[i]);
    }
    if (c->bvh) { /* no cell table */
        gemst_dfree(&c->mem, cell_start);
        cell_start = NULL;
    }
    void *done[] = {rep, rank, ukey};
    for (size_t i = 0; i < sizeof done / sizeof done[0]; i++)
        gemst_dfree(&c->mem, done[i]);
    g->n = nu;
    g->cell_start = cell_start;
    g->x = ux;
    g->y = uy;
    g->z = uz;
    g->oid = uoid;
    return GRIDEMST_OK;
}

/* Replaces *p, of `count` entries, by a buffer of `room` entries that
 * starts with them. */
template <typename T>
static int GEMST_FN(dgrow)(cuda_ctx *c, T **p, size_t count, size_t room, const char *what, gridemst_error *err)
{
    T *q;
    GEMST_DALLOC(&c->mem, q, room, what);
    if (count)
        GEMST_CU(cudaMemcpyAsync(q, *p, count * sizeof *q, cudaMemcpyDeviceToDevice, c->s));
    gemst_dfree(&c->mem, *p);
    *p = q;
    return GRIDEMST_OK;
}

/* The crowded main cells: the bitmap, their list, and their grids planned
 * (grid/subgrid.h); g->n_top = g->n_sub of them. */
static int GEMST_FN(plan_top_crowded)(cuda_ctx *c, gridemst_error *err)
{
    gemst_grid *g = &c->g;
    const uint32_t words = (uint32_t)gemst_crowd_words(c->cells);
    uint32_t *rank, n_top = 0;
    GEMST_DALLOC(&c->mem, c->crowd, words, "crowded cells");
    GEMST_DALLOC(&c->mem, rank, (size_t)words + 1, "crowded cells");
    GEMST_FN(k_crowd_bits)<<<gemst_blocks((uint64_t)words + 1), GEMST_THREADS, 0, c->s>>>(
        c->cells, words, g->crowded, g->cell_start, c->crowd, rank);
    GEMST_LAUNCHED();
    GEMST_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, rank, rank, words + 1, c->s));
    GEMST_CU(cudaMemcpyAsync(&n_top, rank + words, sizeof n_top, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    if (n_top == 0) {
        gemst_dfree(&c->mem, rank);
        gemst_dfree(&c->mem, c->crowd);
        c->crowd = NULL;
        return GRIDEMST_OK;
    }
    GEMST_DALLOC(&c->mem, c->sub_cell, n_top, "crowded cells");
    GEMST_FN(k_crowd_ranks)<<<gemst_blocks(words), GEMST_THREADS, 0, c->s>>>(words, rank, c->crowd, c->sub_cell);
    GEMST_LAUNCHED();
    gemst_dfree(&c->mem, rank);
    GEMST_DALLOC(&c->mem, c->sub, n_top, "crowded cells' grids");
    GEMST_FN(k_subgrid_plan)<<<n_top, GEMST_THREADS, 0, c->s>>>(*g, g->cell_start, c->sub_cell, c->sub, NULL);
    GEMST_LAUNCHED();
    g->n_top = g->n_sub = n_top;
    g->sub_cell = c->sub_cell;
    g->crowd = c->crowd;
    g->sub = c->sub;
    return GRIDEMST_OK;
}

/* Grids k0 .. n_sub - 1 (planned, their cells listed): their tables after
 * the *total entries of sub_start so far, and their points sorted by their
 * cells (stably: a radix sort of (grid, sub-cell) keys over their points). */
static int GEMST_FN(sort_level)(cuda_ctx *c, uint32_t k0, uint64_t *total, gridemst_error *err)
{
    gemst_grid *g = &c->g;
    const uint32_t grids = g->n_sub - k0;
    uint64_t *size, added = 0;
    uint32_t *base, m = 0;
    GEMST_DALLOC(&c->mem, size, (size_t)grids + 1, "crowded cells' grids");
    GEMST_DALLOC(&c->mem, base, (size_t)grids + 1, "crowded cells' grids");
    /* the scans' last entries: their totals */
    GEMST_CU(cudaMemsetAsync(size + grids, 0, sizeof *size, c->s));
    GEMST_CU(cudaMemsetAsync(base + grids, 0, sizeof *base, c->s));
    GEMST_FN(k_subgrid_sizes)<<<gemst_blocks(grids), GEMST_THREADS, 0, c->s>>>(*g, k0, grids, size, base);
    GEMST_LAUNCHED();
    /* the largest table, for the sort keys' width */
    uint64_t *largest, largest_host = 0;
    GEMST_DALLOC(&c->mem, largest, 1, "crowded cells' grids");
    GEMST_CUB(c, cub::DeviceReduce::Max(temp, temp_bytes, size, largest, grids, c->s));
    GEMST_CU(cudaMemcpyAsync(&largest_host, largest, sizeof largest_host, cudaMemcpyDeviceToHost, c->s));
    GEMST_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, size, size, grids + 1, c->s));
    GEMST_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, base, base, grids + 1, c->s));
    GEMST_FN(k_subgrid_tables)<<<gemst_blocks(grids), GEMST_THREADS, 0, c->s>>>(k0, grids, *total, size, c->sub);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(&added, size + grids, sizeof added, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaMemcpyAsync(&m, base + grids, sizeof m, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    gemst_dfree(&c->mem, largest);
    gemst_dfree(&c->mem, size);
    if (*total + added > UINT32_MAX)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "crowded cells' grids of %llu cells exceed 32-bit indices",
                          (unsigned long long)(*total + added));
    GEMST_TRY(GEMST_FN(dgrow)(c, &c->sub_start, *total, *total + added, "crowded cells' grids", err));
    g->sub_start = c->sub_start;
    *total += added;

    uint64_t *key, *key2;
    uint32_t *place, *from;
    GEMST_DALLOC(&c->mem, key, m, "crowded points");
    GEMST_DALLOC(&c->mem, key2, m, "crowded points");
    GEMST_DALLOC(&c->mem, place, m, "crowded points");
    GEMST_DALLOC(&c->mem, from, m, "crowded points");
    /* keys of sub_bits bits of sub-cell (a table's last entry is no cell) under the grid's rank in the level,
       and only their bits sorted: fewer radix passes than with the sub-cell in the low 32 bits */
    int sub_bits = 1;
    while (sub_bits < 32 && (largest_host - 2) >> sub_bits)
        sub_bits++;
    int bits = sub_bits + 1;
    while (bits < 64 && (uint64_t)(grids - 1) >> (bits - sub_bits))
        bits++;
    GEMST_FN(k_sub_keys)<<<grids, GEMST_THREADS, 0, c->s>>>(*g, k0, base, sub_bits, key, place);
    GEMST_LAUNCHED();
    gemst_dfree(&c->mem, base);
    GEMST_CUB(c, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, key, key2, place, from, m, 0, bits, c->s));
    gemst_dfree(&c->mem, key);
    gemst_real *tmp;
    GEMST_DALLOC(&c->mem, tmp, m, "crowded points");
    gemst_real *axes[3] = {(gemst_real *)g->x, (gemst_real *)g->y, (gemst_real *)g->z};
    for (int d = 0; d < g->dim; d++) {
        GEMST_FN(k_gather)<gemst_real><<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, from, axes[d], tmp);
        GEMST_LAUNCHED();
        GEMST_FN(k_scatter)<gemst_real><<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, place, tmp, axes[d]);
        GEMST_LAUNCHED();
    }
    gemst_dfree(&c->mem, tmp);
    uint32_t *tmp_id;
    GEMST_DALLOC(&c->mem, tmp_id, m, "crowded points");
    GEMST_FN(k_gather)<uint32_t><<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, from, g->oid, tmp_id);
    GEMST_LAUNCHED();
    GEMST_FN(k_scatter)<uint32_t><<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, place, tmp_id, (uint32_t *)g->oid);
    GEMST_LAUNCHED();
    GEMST_FN(k_sub_table)<<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, sub_bits, k0, key2, place, c->sub,
                                                                      c->sub_start);
    GEMST_LAUNCHED();
    void *done[] = {tmp_id, key2, place, from};
    for (size_t i = 0; i < sizeof done / sizeof done[0]; i++)
        gemst_dfree(&c->mem, done[i]);
    return GRIDEMST_OK;
}

/* The cells of grids k0 .. n_sub - 1 (their tables: sub_start's positions
 * first .. end - 1) crowded enough to nest (grid.h) whose own grid divides
 * them: listed after the grids so far, with their grids planned. */
static int GEMST_FN(plan_nested)(cuda_ctx *c, uint32_t k0, uint64_t first, uint64_t end, gridemst_error *err)
{
    gemst_grid *g = &c->g;
    const uint32_t span = (uint32_t)(end - first);
    uint8_t *flag;
    uint32_t *cell;
    int n_cell = 0, n_new = 0;
    GEMST_DALLOC(&c->mem, flag, span, "nested grids");
    GEMST_DALLOC(&c->mem, cell, span, "nested grids");
    GEMST_FN(k_nest_flags)<<<g->n_sub - k0, GEMST_THREADS, 0, c->s>>>(k0, c->sub, c->sub_start, first, flag);
    GEMST_LAUNCHED();
    GEMST_CUB(c, cub::DeviceSelect::Flagged(temp, temp_bytes, thrust::counting_iterator<uint32_t>((uint32_t)first),
                                            flag, cell, CNT(c, crowded), span, c->s));
    GEMST_CU(cudaMemcpyAsync(&n_cell, CNT(c, crowded), sizeof n_cell, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    gemst_dfree(&c->mem, flag);
    if (n_cell > 0) {
        gemst_subgrid *plan;
        uint8_t *divides;
        GEMST_DALLOC(&c->mem, plan, n_cell, "nested grids");
        GEMST_DALLOC(&c->mem, divides, n_cell, "nested grids");
        GEMST_FN(k_subgrid_plan)<<<n_cell, GEMST_THREADS, 0, c->s>>>(*g, c->sub_start, cell, plan, divides);
        GEMST_LAUNCHED();
        const size_t room = (size_t)g->n_sub + (size_t)n_cell;
        GEMST_TRY(GEMST_FN(dgrow)(c, &c->sub_cell, g->n_sub, room, "nested grids", err));
        GEMST_TRY(GEMST_FN(dgrow)(c, &c->sub, g->n_sub, room, "nested grids", err));
        GEMST_CUB(c, cub::DeviceSelect::Flagged(temp, temp_bytes, plan, divides, c->sub + g->n_sub, CNT(c, crowded),
                                                n_cell, c->s));
        GEMST_CUB(c, cub::DeviceSelect::Flagged(temp, temp_bytes, cell, divides, c->sub_cell + g->n_sub,
                                                CNT(c, crowded), n_cell, c->s));
        GEMST_CU(cudaMemcpyAsync(&n_new, CNT(c, crowded), sizeof n_new, cudaMemcpyDeviceToHost, c->s));
        GEMST_CU(cudaStreamSynchronize(c->s));
        gemst_dfree(&c->mem, plan);
        gemst_dfree(&c->mem, divides);
        g->n_sub += (uint32_t)n_new;
        g->sub_cell = c->sub_cell;
        g->sub = c->sub;
    }
    gemst_dfree(&c->mem, cell);
    return GRIDEMST_OK;
}

/* The bitmap of the nested grids' sub-cells over sub_start's `total`
 * positions (grid.h). */
static int GEMST_FN(nest_bitmap)(cuda_ctx *c, uint64_t total, gridemst_error *err)
{
    gemst_grid *g = &c->g;
    const uint32_t nested = g->n_sub - g->n_top, words = (uint32_t)gemst_crowd_words(total);
    if (nested == 0)
        return GRIDEMST_OK;
    uint32_t *rank;
    GEMST_DALLOC(&c->mem, c->nest, words, "nested grids");
    GEMST_DALLOC(&c->mem, rank, (size_t)words + 1, "nested grids");
    GEMST_CU(cudaMemsetAsync(c->nest, 0, sizeof *c->nest * words, c->s));
    GEMST_FN(k_nest_bits)<<<gemst_blocks(nested), GEMST_THREADS, 0, c->s>>>(nested, c->sub_cell + g->n_top, c->nest);
    GEMST_LAUNCHED();
    GEMST_FN(k_word_counts)<<<gemst_blocks((uint64_t)words + 1), GEMST_THREADS, 0, c->s>>>(words, c->nest, rank);
    GEMST_LAUNCHED();
    GEMST_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, rank, rank, words + 1, c->s));
    GEMST_FN(k_crowd_ranks)<<<gemst_blocks(words), GEMST_THREADS, 0, c->s>>>(words, rank, c->nest, NULL);
    GEMST_LAUNCHED();
    gemst_dfree(&c->mem, rank);
    g->nest = c->nest;
    return GRIDEMST_OK;
}

/* The crowded cells' grids (grid/subgrid.h) and the nested ones inside
 * them, level by level. */
static int GEMST_FN(build_subgrids)(cuda_ctx *c, gridemst_stats *stats, gridemst_error *err)
{
    gemst_grid *g = &c->g;
    uint64_t total = 0;
    GEMST_TRY(GEMST_FN(plan_top_crowded)(c, err));
    uint32_t k0 = 0; /* the level's first grid */
    for (int level = 1; k0 < g->n_sub; level++) {
        const uint32_t k1 = g->n_sub;
        const uint64_t first = total;
        GEMST_TRY(GEMST_FN(sort_level)(c, k0, &total, err));
        if (level < GEMST_NEST_DEPTH)
            GEMST_TRY(GEMST_FN(plan_nested)(c, k0, first, total, err));
        k0 = k1;
    }
    GEMST_TRY(GEMST_FN(nest_bitmap)(c, total, err));
    stats->crowded_cells = g->n_top;
    stats->nested_cells = g->n_sub - g->n_top;
    return GRIDEMST_OK;
}

/* The working frame, the one of the points' bounding box (lo, hi) or a
 * whole set's (pb->frame, as cpu_grid.inc takes it), and the box the grid
 * covers: the frame's, or the points' own within the whole set's frame. */
static int GEMST_FN(frame_and_box)(cuda_ctx *c, const double lo[3], const double hi[3], gridemst_error *err)
{
    const gemst_problem *pb = c->pb;
    if (pb->frame)
        c->frame = *pb->frame;
    else
        GEMST_TRY(gemst_frame_make(pb->dim, lo, hi, GEMST_REAL_IS_DOUBLE, &c->frame, err));
    c->box = c->frame;
    for (int d = 0; d < 3; d++) {
        c->box_lo[d] = c->box_hi[d] = 0.0;
        if (d >= pb->dim)
            continue;
        c->box_lo[d] = pb->frame ? gemst_frame_working(&c->frame, lo[d], d) : c->frame.lo[d];
        c->box_hi[d] = pb->frame ? gemst_frame_working(&c->frame, hi[d], d) : c->frame.hi[d];
        if (pb->frame)
            c->box.extent[d] = c->box_hi[d] - c->box_lo[d];
    }
    return GRIDEMST_OK;
}

/* The unique points in cell order with their cell table, or for the BVH
 * in Morton order with their codes (and no cells). */
template <typename T>
static int GEMST_FN(build_grid)(cuda_ctx *c, const T *coords, gridemst_stats *stats, gridemst_error *err)
{
    const gemst_problem *pb = c->pb;
    double lo[3], hi[3];
    GEMST_TRY(GEMST_FN(bbox)<T>(c, coords, lo, hi, err));
    GEMST_TRY(GEMST_FN(frame_and_box)(c, lo, hi, err));
    uint32_t *key, *oid, *cell_start, keys;
    if (c->bvh) {
        memset(&c->g, 0, sizeof c->g);
        c->g.dim = pb->dim;
        c->cells = 0;
        stats->cells = 0;
        GEMST_TRY(GEMST_FN(check_device_memory)(c, GEMST_FN(bvh_bytes_needed)(pb), err));
        GEMST_TRY(GEMST_FN(sort_by_code)<T>(c, coords, &key, &keys, &oid, err));
        GEMST_DALLOC(&c->mem, cell_start, (size_t)keys + 1, "the run table");
        GEMST_TRY(GEMST_FN(cell_table)(c, key, c->n, keys, cell_start, err));
    } else {
        double occupancy = pb->opt.tuning.cell_occupancy > 0.0 ? pb->opt.tuning.cell_occupancy : GEMST_CUDA_OCCUPANCY;
        int64_t crowded = pb->opt.tuning.crowded_cell;
        int choose = pb->opt.tuning.cell_occupancy == 0.0 && pb->opt.tuning.crowded_cell == 0 &&
                     pb->opt.tuning.prune == GRIDEMST_PRUNE_STATIC && c->n >= GEMST_COARSE_MIN_POINTS;
        for (;;) {
            GEMST_TRY(GEMST_FN(fit_grid)(c, occupancy, crowded, stats, err));
            GEMST_TRY(GEMST_FN(sort_by_cell)<T>(c, coords, &key, &oid, err));
            GEMST_DALLOC(&c->mem, cell_start, (size_t)c->cells + 1, "the cell table");
            GEMST_TRY(GEMST_FN(cell_table)(c, key, c->n, c->cells, cell_start, err));
            if (!choose)
                break;
            /* The default's fill decides, once, whether coarse cells pay, or a lower crowding threshold
               (measured with static pruning only: without, coarse cells were up to 5 times slower, and the
               lower threshold up to 1.9 times). */
            choose = 0;
            gemst_grid_fill fill;
            GEMST_TRY(GEMST_FN(grid_fill)(c, cell_start, &fill, err));
            if (!gemst_grid_coarse(pb->dim, &fill, &occupancy, &crowded)) {
                /* the crowded cells get their grids after duplicate removal (build_subgrids) */
                if (gemst_grid_clustered(&fill)) {
                    stats->crowded_cell = c->g.crowded = GEMST_CLUSTERED_CROWDED;
                    c->clustered = 1; /* for the late BVH's rule and the static search */
                }
                break;
            }
            gemst_dfree(&c->mem, cell_start);
            gemst_dfree(&c->mem, key);
            gemst_dfree(&c->mem, oid);
        }
        keys = c->cells;
    }
    GEMST_TRY(GEMST_FN(unique_points)<T>(c, coords, key, keys, cell_start, oid, stats, err));
    return c->bvh ? GRIDEMST_OK : GEMST_FN(build_subgrids)(c, stats, err);
}

/* ---------------------------------------------------------------- BVH */

/* The tree over the unique points, in Morton order in c->g (bvh/bvh_build.h),
 * in leaves of leaf_size points, from the leaves' codes; the parent links
 * are freed once the boxes are fitted. */
static int GEMST_FN(build_tree)(cuda_ctx *c, const uint64_t *leaf_code, uint32_t leaf_size, gridemst_error *err)
{
    gemst_bvh *b = &c->tree;
    b->dim = c->pb->dim;
    b->points = c->nu;
    b->leaf_size = leaf_size;
    const uint32_t n = b->n = (uint32_t)(((uint64_t)c->nu + leaf_size - 1) / leaf_size);
    GEMST_DALLOC(&c->mem, b->node, n - 1, "BVH nodes");
    GEMST_DALLOC(&c->mem, b->parent, (size_t)2 * n - 1, "BVH parent links");
    /* zero labels: the fit's visit counters */
    GEMST_CU(cudaMemsetAsync(b->node, 0, sizeof *b->node * (n - 1), c->s));
    GEMST_FN(k_bvh_build_node)<<<gemst_blocks(n - 1), GEMST_THREADS, 0, c->s>>>(leaf_code, *b);
    GEMST_LAUNCHED();
    GEMST_LAUNCH_DIM(c, k_bvh_fit, gemst_blocks(n), *b, c->g);
    GEMST_LAUNCHED();
    gemst_dfree(&c->mem, b->parent);
    b->parent = NULL;
    return GRIDEMST_OK;
}

/* nns BVH's tree: a leaf per point, from their codes, which it then frees. */
static int GEMST_FN(build_bvh)(cuda_ctx *c, gridemst_error *err)
{
    if (c->nu > 1)
        GEMST_TRY(GEMST_FN(build_tree)(c, c->code, 1, err));
    gemst_dfree(&c->mem, c->code);
    c->code = NULL;
    return GRIDEMST_OK;
}

/* FindMin1 on the BVH for every point, as cpu_bvh.inc and cpu_solve.inc
 * drive it: the roots' bounds reset, the breaks and Morton-neighbour
 * bounds, their scan, the node labels, then the searches (the points that
 * search listed in c->extra first). */
static int GEMST_FN(bvh_findmin1)(cuda_ctx *c, gridemst_error *err)
{
    const uint32_t nu = c->nu;
    GEMST_FN(k_bvh_reset_bounds)<<<gemst_blocks(c->n_roots), GEMST_THREADS, 0, c->s>>>(c->roots, CNT(c, roots), c->ub);
    GEMST_LAUNCHED();
    GEMST_FN(k_bvh_pair_bounds)<<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(c->g, c->comp, c->ub, c->brk);
    GEMST_LAUNCHED();
    /* The scratch was sized before the loop (bvh_scan_temp): no allocation here. */
    GEMST_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, c->brk, c->brk, nu, c->s));
    GEMST_FN(k_bvh_labels)<<<gemst_blocks(c->tree.n - 1), GEMST_THREADS, 0, c->s>>>(c->tree, c->comp, c->brk);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemsetAsync(CNT(c, searching), 0, sizeof c->host->searching, c->s));
    GEMST_FN(k_bvh_triage)<<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(c->tree, c->g, c->comp, c->ub, c->best_d2,
                                                                        c->best_to, c->extra, CNT(c, searching));
    GEMST_LAUNCHED();
    GEMST_LAUNCH_DIM(c, k_bvh_findmin1, gemst_blocks(nu), c->tree, c->g, c->comp, c->ub, c->best_d2, c->best_to,
                     c->extra, CNT(c, searching));
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
}

/* Sizes the CUB scratch for bvh_findmin1's scan once, before the loop. */
static int GEMST_FN(bvh_scan_temp)(cuda_ctx *c, gridemst_error *err)
{
    size_t bytes = 0;
    GEMST_CU(cub::DeviceScan::ExclusiveSum(NULL, bytes, c->brk, c->brk, c->nu, c->s));
    return GEMST_FN(ensure_temp)(c, bytes, err);
}

/* ---------------------------------------------------------------- Boruvka */

static int GEMST_FN(alloc_state)(cuda_ctx *c, gridemst_error *err)
{
    const uint32_t nu = c->nu, n = c->n;
    gemst_dmem *m = &c->mem;
    GEMST_DALLOC(m, c->comp, nu, "component labels");
    GEMST_DALLOC(m, c->link, nu, "component links");
    GEMST_DALLOC(m, c->best_to, nu, "nearest foreign points");
    GEMST_DALLOC(m, c->best_d2, nu, "nearest foreign distances");
    if (c->bvh) {
        GEMST_DALLOC(m, c->brk, nu, "BVH labels");
        GEMST_DALLOC(m, c->ub, nu, "component bounds");
        GEMST_TRY(GEMST_FN(bvh_scan_temp)(c, err));
    } else {
        GEMST_DALLOC(m, c->rb2, nu, "search bounds");
        size_t bytes = 0; /* count_breaks's scan, sized before the loop */
        GEMST_CU(cub::DeviceScan::InclusiveSum(NULL, bytes, c->link, c->link, nu, c->s));
        GEMST_TRY(GEMST_FN(ensure_temp)(c, bytes, err));
    }
    GEMST_DALLOC(m, c->win_in, nu, "component winners");
    GEMST_DALLOC(m, c->win_out, nu, "component winners");
    GEMST_DALLOC(m, c->w1, nu, "component minima");
    GEMST_DALLOC(m, c->w2, nu, "component minima");
    GEMST_DALLOC(m, c->active, nu, "the active list");
    GEMST_DALLOC(m, c->roots, nu, "the root list");
    GEMST_DALLOC(m, c->extra, nu, "the fallback list");
    GEMST_DALLOC(m, c->keep, nu, "list flags");
    GEMST_DALLOC(m, c->edge_lo, n - 1, "tree edges");
    GEMST_DALLOC(m, c->edge_hi, n - 1, "tree edges");
    GEMST_DALLOC(m, c->edge_d2, n - 1, "tree edges");
    if (c->pb->opt.tuning.findmin2 == GRIDEMST_FINDMIN2_LIST) {
        GEMST_DALLOC(m, c->head, nu, "component lists");
        GEMST_DALLOC(m, c->next, nu, "component lists");
    }
    if (c->pb->opt.tuning.prune == GRIDEMST_PRUNE_DYNAMIC)
        GEMST_DALLOC(m, c->open, nu, "open slab masks");
    if (c->pb->opt.tuning.prune == GRIDEMST_PRUNE_STATIC) {
        GEMST_DALLOC(m, c->cand, (size_t)nu * GEMST_CAND_SLOTS, "static candidates");
        GEMST_DALLOC(m, c->ncand, nu, "static candidate counts");
        GEMST_DALLOC(m, c->uncertain, nu, "the uncertain list");
    }
    if (c->pb->opt.min_samples >= 2) {
        GEMST_DALLOC(m, c->core2, nu, "core distances");
        if (c->n_dup) {
            GEMST_DALLOC(m, c->dup_rep, c->n_dup, "the duplicates' representatives");
            GEMST_DALLOC(m, c->dup_d2, c->n_dup, "duplicate edges");
        }
    }
    return GRIDEMST_OK;
}

/* Releases everything but the tree and the duplicates' edges, before the
 * final sort needs its buffers (this keeps the peak down). */
static void GEMST_FN(free_state)(cuda_ctx *c)
{
    void *state[] = {c->comp, c->link, c->best_to, c->win_in, c->win_out, c->head, c->next, c->cand, c->ncand,
                     c->active, c->roots, c->uncertain, c->extra, c->keep, c->best_d2, c->rb2, c->w1, c->w2,
                     c->open, (void *)c->g.x, (void *)c->g.y, (void *)c->g.z, (void *)c->g.oid,
                     (void *)c->g.cell_start, c->brk, c->ub, c->tree.node, c->code, c->sub_cell, c->crowd,
                     c->nest, c->sub, c->sub_start, c->core2, c->dup_rep};
    for (size_t i = 0; i < sizeof state / sizeof state[0]; i++)
        gemst_dfree(&c->mem, state[i]);
    memset(&c->g, 0, sizeof c->g);
    memset(&c->tree, 0, sizeof c->tree);
    c->brk = NULL;
    c->ub = NULL;
    c->code = NULL;
    c->sub_cell = c->sub_start = NULL;
    c->crowd = c->nest = NULL;
    c->sub = NULL;
    c->core2 = NULL;
    c->dup_rep = NULL;
}

/* The instance of the grid searches for the grid (cuda_kernels.cuh's
 * GEMST_CROWDED_PATH). */
static int GEMST_FN(crowded_instance)(const cuda_ctx *c)
{
    return c->g.n_sub == 0 ? 0 : c->g.nest ? 2 : 1;
}

/* Launches a wide search kernel (k_static_prepare, k_fallback) in its
 * instance for the grid's dimension and crowded cells (cuda_kernels.cuh). */
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

/* Below this many points, on clustered inputs (where most blocks are too
 * dense or hold crowded cells), or where the cells are planned too full
 * for blocks (gemst_block_pass_pays), static pruning's search skips the
 * block pass: H200, 1e5-2e5 points of TSPLIB, static search 0.06-0.09 ms
 * slower with it (its list's compaction); blobs 2D 1e7 8.13 ms against
 * 7.97 without, varden 3D 1e6 14.1 against 13.6. */
#define GEMST_BLOCK_MIN_POINTS 500000

/* Static pruning's one spatial search (cuda_kernels.cuh): the block pass,
 * then the walk for the points it left (hard), in grid order; or the walk
 * for every point.  H200, 1e7 points, static search ms without / with the
 * block pass: uniform 3D 5.95 / 5.10, uniform 2D 4.40 / 3.98, normal 3D
 * 11.2 / 9.8, normal 2D 6.04 / 4.98; 1e8 points: uniform 3D 59.0 / 49.8,
 * uniform 2D 43.4 / 39.0. */
static int GEMST_FN(static_search)(cuda_ctx *c, int *block_pass, gridemst_error *err)
{
    const uint32_t nu = c->nu;
    const uint32_t *list = c->active;
    const int *n_list = CNT(c, active);
    *block_pass = nu >= GEMST_BLOCK_MIN_POINTS && !c->clustered &&
                  gemst_block_pass_pays(c->g.dim, c->occupancy, c->g.crowded);
    if (*block_pass) {
        GEMST_LAUNCH_DIM(c, k_static_block, gemst_blocks(nu), c->g, c->cand, c->ncand, c->rb2, c->keep);
        GEMST_LAUNCHED();
        /* the uncertain list's buffer holds the hard points until k_uncertain_flags */
        GEMST_CU(cudaMemcpyAsync(c->uncertain, c->active, sizeof *c->uncertain * nu, cudaMemcpyDeviceToDevice, c->s));
        GEMST_TRY(GEMST_FN(select)(c, c->uncertain, CNT(c, hard), nu, err));
        list = c->uncertain;
        n_list = CNT(c, hard);
    }
    /* the fallback's list is free until the first iteration: it takes the lone points */
    GEMST_LAUNCH_WIDE(c, k_static_prepare, gemst_blocks(nu), c->g, list, n_list, c->cand, c->ncand, c->rb2, c->extra,
                      CNT(c, lone));
    GEMST_LAUNCHED();
    GEMST_LAUNCH_DIM(c, k_static_lone, GEMST_LONE_BLOCKS, c->g, c->extra, CNT(c, lone), c->cand, c->ncand, c->rb2);
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
}

/* Every point its own component and active; static pruning's search and
 * its list of points whose candidates may miss a tree edge. */
static int GEMST_FN(boruvka_init)(cuda_ctx *c, gridemst_stats *stats, gridemst_error *err)
{
    const uint32_t nu = c->nu;
    GEMST_FN(k_init)<<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(nu, c->comp, c->link, c->active, c->roots,
                                                                  c->best_to, c->rb2, c->open,
                                                                  gemst_slab_full_mask(c->g.dim));
    GEMST_LAUNCHED();
    /* the lower bound on each point's nearest foreign distance (bvh_query.h): its core distance, else none yet */
    if (c->bvh && c->core2)
        GEMST_CU(cudaMemcpyAsync(c->best_d2, c->core2, sizeof *c->best_d2 * nu, cudaMemcpyDeviceToDevice, c->s));
    else if (c->bvh)
        GEMST_CU(cudaMemsetAsync(c->best_d2, 0, sizeof *c->best_d2 * nu, c->s));
    GEMST_CU(cudaMemsetAsync(c->cnt, 0, sizeof *c->cnt, c->s));
    c->n_active = c->n_roots = nu;
    GEMST_TRY(GEMST_FN(set_counter)(c, CNT(c, active), &c->host->active, (int)nu, err));
    GEMST_TRY(GEMST_FN(set_counter)(c, CNT(c, roots), &c->host->roots, (int)nu, err));
    if (c->pb->opt.tuning.prune != GRIDEMST_PRUNE_STATIC)
        return GRIDEMST_OK;
    int block_pass;
    GEMST_TRY(GEMST_FN(static_search)(c, &block_pass, err));
    GEMST_FN(k_uncertain_flags)<<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(nu, c->rb2, c->keep);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(c->uncertain, c->active, sizeof *c->uncertain * nu, cudaMemcpyDeviceToDevice, c->s));
    GEMST_TRY(GEMST_FN(select)(c, c->uncertain, CNT(c, uncertain), nu, err));
    GEMST_TRY(GEMST_FN(read_counters)(c, err));
    c->n_uncertain = (uint32_t)c->host->uncertain;
    stats->block_points = block_pass ? (int64_t)nu - c->host->hard : 0;
    stats->lone_points = c->host->lone;
    return GRIDEMST_OK;
}

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

/* k_findmin1 in its instance for the strategy and the grid (CROWDED). */
template <int PRUNE>
static void GEMST_FN(launch_findmin1)(const cuda_ctx *c, const gemst_findmin1_state &st)
{
    const unsigned b = gemst_blocks(c->n_active);
    const int crowded = GEMST_FN(crowded_instance)(c);
    if (crowded == 2)
        GEMST_FN(k_findmin1)<PRUNE, 2><<<b, GEMST_THREADS, 0, c->s>>>(c->g, st, c->active, CNT(c, active));
    else if (crowded == 1)
        GEMST_FN(k_findmin1)<PRUNE, 1><<<b, GEMST_THREADS, 0, c->s>>>(c->g, st, c->active, CNT(c, active));
    else
        GEMST_FN(k_findmin1)<PRUNE, 0><<<b, GEMST_THREADS, 0, c->s>>>(c->g, st, c->active, CNT(c, active));
}

static int GEMST_FN(findmin1)(cuda_ctx *c, gridemst_error *err)
{
    if (c->bvh)
        return GEMST_FN(bvh_findmin1)(c, err);
    const gemst_findmin1_state st = GEMST_FN(findmin1_state)(c);
    if (st.prune == GRIDEMST_PRUNE_STATIC)
        GEMST_FN(launch_findmin1)<GRIDEMST_PRUNE_STATIC>(c, st);
    else if (st.prune == GRIDEMST_PRUNE_DYNAMIC)
        GEMST_FN(launch_findmin1)<GRIDEMST_PRUNE_DYNAMIC>(c, st);
    else
        GEMST_FN(launch_findmin1)<GRIDEMST_PRUNE_NONE>(c, st);
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
}

/* FindMin2 over the listed points (bound: launch size), as in
 * cpu_solve.inc: all_roots for the iteration's first pass, otherwise the
 * refinement over the points the fallback improved. */
static int GEMST_FN(findmin2)(cuda_ctx *c, const uint32_t *pts, const int *m, uint32_t bound, int all_roots,
                             gridemst_error *err)
{
    const unsigned b = gemst_blocks(bound), br = gemst_blocks(c->n_roots);
    const uint32_t *oid = c->g.oid;
    if (all_roots &&
        gemst_own_edges_suffice(c->n_roots, c->nu, c->bvh || c->pb->opt.tuning.prune == GRIDEMST_PRUNE_STATIC)) {
        GEMST_FN(k_list_min_roots)<<<br, GEMST_THREADS, 0, c->s>>>(c->roots, CNT(c, roots), NULL, NULL, oid,
                                                                  c->best_d2, c->best_to, c->w1, c->w2, c->win_in,
                                                                  c->win_out);
        GEMST_LAUNCHED();
        return GRIDEMST_OK;
    }
    if (all_roots)
        GEMST_FN(k_reset_roots)<<<br, GEMST_THREADS, 0, c->s>>>(c->roots, CNT(c, roots), c->w1, c->w2, c->win_in,
                                                               c->head);
    else
        GEMST_FN(k_reset_roots_of)<<<b, GEMST_THREADS, 0, c->s>>>(pts, m, c->comp, c->w1, c->w2, c->win_in, c->head);
    GEMST_LAUNCHED();
    if (c->pb->opt.tuning.findmin2 == GRIDEMST_FINDMIN2_LIST) {
        GEMST_FN(k_list_push)<<<b, GEMST_THREADS, 0, c->s>>>(pts, m, c->comp, c->best_to, all_roots, c->head,
                                                            c->next);
        GEMST_LAUNCHED();
        if (all_roots)
            GEMST_FN(k_list_min_roots)<<<br, GEMST_THREADS, 0, c->s>>>(c->roots, CNT(c, roots), c->head, c->next, oid,
                                                                      c->best_d2, c->best_to, c->w1, c->w2, c->win_in,
                                                                      c->win_out);
        else
            GEMST_FN(k_list_min_heads)<<<b, GEMST_THREADS, 0, c->s>>>(pts, m, c->comp, c->head, c->next, oid,
                                                                     c->best_d2, c->best_to, c->w1, c->w2, c->win_in,
                                                                     c->win_out);
        GEMST_LAUNCHED();
        return GRIDEMST_OK;
    }
    /* The first pass also lets each edge compete for its far component.
     * The list flags (keep) are free here: both callers have used them. */
    for (int pass = 1; pass <= 3; pass++) {
        GEMST_FN(k_atomic_pass)<<<b, GEMST_THREADS, 0, c->s>>>(pass, all_roots, pts, m, c->comp, oid, c->best_d2,
                                                              c->best_to, c->w1, c->w2, c->win_in, c->win_out,
                                                              c->keep);
        GEMST_LAUNCHED();
    }
    return GRIDEMST_OK;
}

/* breaks[i] = the component changes between consecutive points up to i,
 * kept in link while FindMin1 and the fallback run: connect needs link
 * only at the roots, which restore_links resets. */
static int GEMST_FN(count_breaks)(cuda_ctx *c, gridemst_error *err)
{
    GEMST_FN(k_break_flags)<<<gemst_blocks(c->nu), GEMST_THREADS, 0, c->s>>>(c->nu, c->comp, c->link);
    GEMST_LAUNCHED();
    /* The scratch was sized before the loop (alloc_state). */
    GEMST_CUB(c, cub::DeviceScan::InclusiveSum(temp, temp_bytes, c->link, c->link, c->nu, c->s));
    c->breaks = c->link;
    return GRIDEMST_OK;
}

static int GEMST_FN(restore_links)(cuda_ctx *c, gridemst_error *err)
{
    if (!c->breaks)
        return GRIDEMST_OK;
    GEMST_FN(k_restore_links)<<<gemst_blocks(c->n_roots), GEMST_THREADS, 0, c->s>>>(c->roots, CNT(c, roots), c->link);
    GEMST_LAUNCHED();
    c->breaks = NULL;
    return GRIDEMST_OK;
}

/* The fallback: the points whose search left a region unexamined that could
 * hold their component's shortest edge are listed (in c->extra) and search
 * again with that edge as cutoff (when they are many, skipping their own
 * components' ranges, and once for each cell whose points all lie in one
 * component: nns/cell_fallback.h); the list then holds the points whose
 * edge improved, which FindMin2 refines. */
static int GEMST_FN(fallback)(cuda_ctx *c, int iteration, int64_t *searches, gridemst_error *err)
{
    if (c->bvh) /* the BVH search is exact: no fallback, and the extra list stays empty */
        return GRIDEMST_OK;
    const int *count;
    uint32_t bound;
    const uint32_t *list = GEMST_FN(uncertain_list)(c, &count, &bound);
    gemst_findmin1_state st = GEMST_FN(findmin1_state)(c);
    GEMST_FN(k_fallback_flags)<<<gemst_blocks(bound), GEMST_THREADS, 0, c->s>>>(st, list, count, c->w1, c->w2, c->keep);
    GEMST_LAUNCHED();
    GEMST_CUB(c, cub::DeviceSelect::Flagged(temp, temp_bytes, list, c->keep, c->extra, CNT(c, extra), bound, c->s));
    GEMST_TRY(GEMST_FN(read_counters)(c, err));
    const uint32_t m = (uint32_t)c->host->extra;
    *searches += m;
    if (m == 0)
        return GRIDEMST_OK;
    if (!c->breaks && gemst_breaks_pay(iteration, m, c->nu)) {
        GEMST_TRY(GEMST_FN(count_breaks)(c, err));
        st.breaks = c->breaks;
    }
    GEMST_FN(k_fallback_tasks)<<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(c->g, st, c->extra, CNT(c, extra), c->w1,
                                                                           c->w2, c->keep);
    GEMST_LAUNCHED();
    GEMST_LAUNCH_WIDE(c, k_fallback, gemst_blocks(m), c->g, st, c->extra, CNT(c, extra), c->w1, c->win_in,
                      c->win_out, c->keep);
    GEMST_LAUNCHED();
    GEMST_TRY(GEMST_FN(select)(c, c->extra, CNT(c, extra), m, err));
    /* The refinement; its kernels see a zero count when nothing improved. */
    return GEMST_FN(findmin2)(c, c->extra, CNT(c, extra), m, 0, err);
}

/* Connect and union: each root hooks along its component's minimum edge. */
static int GEMST_FN(connect)(cuda_ctx *c, gridemst_error *err)
{
    GEMST_CU(cudaMemsetAsync(CNT(c, longest), 0, sizeof c->host->longest, c->s));
    GEMST_FN(k_connect)<<<gemst_blocks(c->n_roots), GEMST_THREADS, 0, c->s>>>(
        c->roots, CNT(c, roots), c->win_in, c->win_out, c->w1, c->comp, c->g.oid, c->link, CNT(c, edges), c->nu - 1,
        c->edge_lo, c->edge_hi, c->edge_d2, CNT(c, longest));
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
}

/* Flatten, relabel, and the next iteration's lists. */
static int GEMST_FN(flatten)(cuda_ctx *c, gridemst_error *err)
{
    const unsigned br = gemst_blocks(c->n_roots);
    uint32_t bound;
    const int *count;
    GEMST_FN(uncertain_list)(c, &count, &bound);
    GEMST_FN(k_flatten_roots)<<<br, GEMST_THREADS, 0, c->s>>>(c->roots, CNT(c, roots), c->link);
    GEMST_LAUNCHED();
    GEMST_FN(k_relabel)<<<gemst_blocks(c->nu), GEMST_THREADS, 0, c->s>>>(c->nu, c->link, c->comp);
    GEMST_LAUNCHED();
    GEMST_FN(k_forget_extra)<<<gemst_blocks(bound), GEMST_THREADS, 0, c->s>>>(c->extra, CNT(c, extra), c->best_to);
    GEMST_LAUNCHED();

    GEMST_FN(k_root_flags)<<<br, GEMST_THREADS, 0, c->s>>>(c->roots, CNT(c, roots), c->link, c->keep);
    GEMST_LAUNCHED();
    GEMST_TRY(GEMST_FN(select)(c, c->roots, CNT(c, roots), c->n_roots, err));
    GEMST_FN(k_active_flags)<<<gemst_blocks(c->n_active), GEMST_THREADS, 0, c->s>>>(
        c->active, CNT(c, active), (int)c->prune, c->ncand, c->open, c->best_to, c->keep);
    GEMST_LAUNCHED();
    GEMST_TRY(GEMST_FN(select)(c, c->active, CNT(c, active), c->n_active, err));
    return GRIDEMST_OK;
}

/* Accumulates the time between two recorded events into *ms. */
static int GEMST_FN(add_time)(cudaEvent_t a, cudaEvent_t b, double *ms, gridemst_error *err)
{
    float t = 0.0f;
    GEMST_CU(cudaEventElapsedTime(&t, a, b));
    *ms += t;
    return GRIDEMST_OK;
}

/* Device time between consecutive events ev[0] .. ev[5] into the iteration's
 * record and the phase totals. */
static int GEMST_FN(iteration_times)(cudaEvent_t ev[6], gridemst_iteration_times *it, gridemst_stats *stats,
                                     gridemst_error *err)
{
    double search = 0.0; /* the fallback searches and their FindMin2 refinement */
    GEMST_TRY(GEMST_FN(add_time)(ev[0], ev[1], &it->findmin1, err));
    GEMST_TRY(GEMST_FN(add_time)(ev[1], ev[2], &it->findmin2, err));
    GEMST_TRY(GEMST_FN(add_time)(ev[2], ev[3], &search, err));
    GEMST_TRY(GEMST_FN(add_time)(ev[3], ev[4], &it->connect, err));
    GEMST_TRY(GEMST_FN(add_time)(ev[4], ev[5], &it->flatten, err));
    it->findmin1 += search;
    stats->time_ms.findmin1 += it->findmin1;
    stats->time_ms.findmin2 += it->findmin2;
    stats->time_ms.merge += it->connect + it->flatten;
    return GRIDEMST_OK;
}

/* The points' arrays (their bounds and core distances among them) and
 * labels moved into the order `order` (point k gets point order[k]; inv is
 * its inverse), each through a new array; the duplicates' representatives
 * renamed. */
static int GEMST_FN(late_bvh_relayout)(cuda_ctx *c, const uint32_t *order, const uint32_t *inv, gridemst_error *err)
{
    const uint32_t nu = c->nu;
    const gemst_real **reals[5] = {(const gemst_real **)&c->best_d2, (const gemst_real **)&c->core2, &c->g.x,
                                   &c->g.y, &c->g.z};
    for (int d = 0; d < 5; d++) {
        if (!*reals[d])
            continue;
        gemst_real *moved;
        GEMST_DALLOC(&c->mem, moved, nu, "moved points");
        GEMST_FN(k_gather)<gemst_real><<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(nu, order, *reals[d], moved);
        GEMST_LAUNCHED();
        gemst_dfree(&c->mem, (void *)*reals[d]);
        *reals[d] = moved;
    }
    uint32_t *oid;
    GEMST_DALLOC(&c->mem, oid, nu, "moved points");
    GEMST_FN(k_gather)<uint32_t><<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(nu, order, c->g.oid, oid);
    GEMST_LAUNCHED();
    gemst_dfree(&c->mem, (void *)c->g.oid);
    c->g.oid = oid;
    c->g.core2 = c->core2;
    if (c->dup_rep) { /* in place: each entry is read, then written, by one thread */
        GEMST_FN(k_gather)<uint32_t><<<gemst_blocks(c->n_dup), GEMST_THREADS, 0, c->s>>>(c->n_dup, c->dup_rep, inv,
                                                                                        c->dup_rep);
        GEMST_LAUNCHED();
    }
    uint32_t **labels[2] = {&c->comp, &c->link};
    for (int l = 0; l < 2; l++) {
        uint32_t *moved;
        GEMST_DALLOC(&c->mem, moved, nu, "moved labels");
        GEMST_FN(k_late_relabel)<<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(nu, order, inv, *labels[l], moved);
        GEMST_LAUNCHED();
        gemst_dfree(&c->mem, *labels[l]);
        *labels[l] = moved;
    }
    GEMST_FN(k_late_renumber)<<<gemst_blocks(c->n_roots), GEMST_THREADS, 0, c->s>>>(c->roots, CNT(c, roots), inv);
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
}

/* From this iteration on, FindMin1 searches a BVH over the points
 * (nns/late_bvh.h), as cpu_solve.inc's late_bvh: each point's lower bound
 * from the static search (or its core distance), then its candidates and
 * bounds and the grid's tables make room for the tree, the points move
 * into Morton order, and every point is listed active (the BVH search
 * answers for each).  Its allocations stay within what it frees
 * (nns/late_bvh.h), or for the mutual-reachability tree within
 * core_bytes_needed, so the solve needs no more than bytes_needed. */
static int GEMST_FN(late_bvh)(cuda_ctx *c, gridemst_error *err)
{
    const uint32_t nu = c->nu, leaf = gemst_late_bvh_leaf(c->core2 != NULL), leaves = gemst_late_bvh_leaves(nu, leaf);
    if (c->core2) {
        GEMST_CU(cudaMemcpyAsync(c->best_d2, c->core2, sizeof *c->best_d2 * nu, cudaMemcpyDeviceToDevice, c->s));
    } else {
        GEMST_FN(k_late_bounds)<<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(c->g, GEMST_FN(findmin1_state)(c));
        GEMST_LAUNCHED();
    }
    void *static_state[] = {c->cand, c->ncand, c->uncertain, c->rb2, (void *)c->g.cell_start, c->sub_cell,
                            c->sub_start, c->crowd, c->nest, c->sub};
    for (size_t i = 0; i < sizeof static_state / sizeof static_state[0]; i++)
        gemst_dfree(&c->mem, static_state[i]);
    c->cand = c->uncertain = c->sub_cell = c->sub_start = NULL;
    c->ncand = NULL;
    c->rb2 = NULL;
    c->crowd = c->nest = NULL;
    c->sub = NULL;
    /* the grid is not searched again */
    c->g.cell_start = c->g.sub_cell = c->g.sub_start = NULL;
    c->g.crowd = c->g.nest = NULL;
    c->g.sub = NULL;
    c->g.n_sub = c->g.n_top = 0;
    uint64_t *code, *code2, *leaf_code;
    uint32_t *order, *order2;
    GEMST_DALLOC(&c->mem, code, nu, "BVH codes");
    GEMST_DALLOC(&c->mem, code2, nu, "BVH codes");
    GEMST_DALLOC(&c->mem, order, nu, "BVH order");
    GEMST_DALLOC(&c->mem, order2, nu, "BVH order");
    GEMST_FN(k_late_codes)<<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(c->g, code, order);
    GEMST_LAUNCHED();
    cub::DoubleBuffer<uint64_t> keys(code, code2);
    cub::DoubleBuffer<uint32_t> vals(order, order2);
    GEMST_CUB(c, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, vals, nu, 0, GEMST_MORTON_BITS, c->s));
    gemst_dfree(&c->mem, keys.Alternate());
    GEMST_DALLOC(&c->mem, leaf_code, leaves, "BVH codes");
    GEMST_FN(k_late_leaf_codes)<<<gemst_blocks(leaves), GEMST_THREADS, 0, c->s>>>(leaves, leaf, keys.Current(),
                                                                                  leaf_code);
    GEMST_LAUNCHED();
    gemst_dfree(&c->mem, keys.Current());
    uint32_t *inv = vals.Alternate();
    GEMST_FN(k_late_inverse)<<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(nu, vals.Current(), inv);
    GEMST_LAUNCHED();
    GEMST_TRY(GEMST_FN(late_bvh_relayout)(c, vals.Current(), inv, err));
    gemst_dfree(&c->mem, vals.Current());
    gemst_dfree(&c->mem, inv);
    GEMST_TRY(GEMST_FN(build_tree)(c, leaf_code, leaf, err));
    gemst_dfree(&c->mem, leaf_code);
    GEMST_DALLOC(&c->mem, c->brk, nu, "BVH labels");
    GEMST_DALLOC(&c->mem, c->ub, nu, "component bounds");
    GEMST_TRY(GEMST_FN(bvh_scan_temp)(c, err));
    GEMST_FN(k_late_reset)<<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(nu, c->active, c->best_to);
    GEMST_LAUNCHED();
    c->n_active = nu;
    GEMST_TRY(GEMST_FN(set_counter)(c, CNT(c, active), &c->host->active, (int)nu, err));
    /* the last grid iteration's fallback list is done with */
    GEMST_TRY(GEMST_FN(set_counter)(c, CNT(c, extra), &c->host->extra, 0, err));
    c->prune = GRIDEMST_PRUNE_NONE;
    c->bvh = 1;
    return GRIDEMST_OK;
}

static int GEMST_FN(boruvka)(cuda_ctx *c, cudaEvent_t ev[6], gridemst_stats *stats, gridemst_error *err)
{
    GEMST_CU(cudaEventRecord(ev[0], c->s));
    GEMST_TRY(GEMST_FN(boruvka_init)(c, stats, err));
    GEMST_CU(cudaEventRecord(ev[1], c->s));
    GEMST_CU(cudaEventSynchronize(ev[1]));
    double init = 0.0;
    GEMST_TRY(GEMST_FN(add_time)(ev[0], ev[1], &init, err));
    stats->time_ms.prepare += init;
    stats->time_ms.findmin1 += init;
    while (c->host->edges < c->nu - 1 && stats->iterations < GRIDEMST_MAX_ITERATIONS) {
        gridemst_iteration_times *it = &stats->iteration_ms[stats->iterations++];
        it->components = c->n_roots;
        it->fallback_searches = 0;
        const int iteration = stats->iterations - 1;
        GEMST_CU(cudaEventRecord(ev[0], c->s));
        if ((c->prune == GRIDEMST_PRUNE_STATIC && iteration > 0 &&
             gemst_late_bvh_due(c->pb->opt.tuning.late_bvh, iteration, c->nu, (uint64_t)it[-1].fallback_searches,
                                (uint64_t)stats->fallback_searches,
                                gemst_late_bvh_reach(it[-1].longest_edge, stats->cell_side, (uint64_t)stats->cells,
                                                      c->nu, c->g.dim),
                                c->clustered && c->g.dim == 3)) ||
            (!c->bvh && gemst_late_bvh_mutual(c->pb->opt.tuning.late_bvh, c->core2 != NULL, iteration, c->nu))) {
            GEMST_TRY(GEMST_FN(late_bvh)(c, err));
            stats->late_bvh_iteration = iteration;
        }
        if (c->prune == GRIDEMST_PRUNE_NONE && !c->bvh && gemst_breaks_pay(iteration, c->n_active, c->nu))
            GEMST_TRY(GEMST_FN(count_breaks)(c, err));
        GEMST_TRY(GEMST_FN(findmin1)(c, err));
        GEMST_CU(cudaEventRecord(ev[1], c->s));
        GEMST_TRY(GEMST_FN(findmin2)(c, c->active, CNT(c, active), c->n_active, 1, err));
        GEMST_CU(cudaEventRecord(ev[2], c->s));
        GEMST_TRY(GEMST_FN(fallback)(c, iteration, &it->fallback_searches, err));
        stats->fallback_searches += it->fallback_searches;
        GEMST_TRY(GEMST_FN(restore_links)(c, err));
        if (iteration == 0 && c->dup_rep)
            GEMST_TRY(GEMST_FN(duplicate_anchors)(c, err));
        GEMST_CU(cudaEventRecord(ev[3], c->s));
        GEMST_TRY(GEMST_FN(connect)(c, err));
        GEMST_CU(cudaEventRecord(ev[4], c->s));
        GEMST_TRY(GEMST_FN(flatten)(c, err));
        GEMST_CU(cudaEventRecord(ev[5], c->s));
        uint32_t before = c->host->edges;
        GEMST_TRY(GEMST_FN(read_counters)(c, err));
        GEMST_TRY(GEMST_FN(iteration_times)(ev, it, stats, err));
        uint32_t roots = c->n_roots, added = c->host->edges - before;
        it->longest_edge = sqrt((double)gemst_edge_word1_value(c->host->longest)) / c->frame.scale;
        c->n_active = (uint32_t)c->host->active;
        c->n_roots = (uint32_t)c->host->roots;
        GEMST_TRY(gemst_progress(&c->pb->opt, "iteration", stats->iterations, c->n_roots, err));
        if (c->host->edges > c->nu - 1 || !gemst_merge_consistent(roots, c->n_roots, added))
            return gemst_fail(err, GRIDEMST_ERR_INTERNAL,
                              "inconsistent component minima: %u edges joined %u components into %u", added, roots,
                              c->n_roots);
        if (c->host->edges == before)
            return gemst_fail(err, GRIDEMST_ERR_INTERNAL,
                              "Boruvka iteration %d added no edge with %u components left", stats->iterations,
                              c->n_roots);
    }
    if (c->host->edges < c->nu - 1)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "%u components left after %d Boruvka iterations", c->n_roots,
                          stats->iterations);
    return GRIDEMST_OK;
}

/* ---------------------------------------------------------------- edges */

/* Fails where the working precision cannot hold a tree edge's squared
 * distance (grid_plan.h, GEMST_D2_TINY): the edges between unique points
 * found so far, before the duplicates'. */
static int GEMST_FN(check_tiny_edges)(cuda_ctx *c, gridemst_error *err)
{
    const uint32_t m = c->host->edges < c->nu - 1 ? c->host->edges : c->nu - 1; /* those stored */
    unsigned long long *first;
    GEMST_TRY(GEMST_FN(no_pair)(c, &first, err));
    if (m > 0) {
        GEMST_FN(k_tiny_edges)<<<gemst_blocks(m), GEMST_THREADS, 0, c->s>>>(m, c->edge_lo, c->edge_hi, c->edge_d2,
                                                                          first);
        GEMST_LAUNCHED();
    }
    return GEMST_FN(too_close)(c, first, err);
}

#include "cuda/cuda_tree_out.cuh"

/* ---------------------------------------------------------------- entry */

static int GEMST_FN(run)(cuda_ctx *c, cudaEvent_t ev[6], gemst_tree *tree, gridemst_stats *stats,
                        gridemst_error *err)
{
    const gemst_problem *pb = c->pb;
    c->n = (uint32_t)pb->n;
    c->bvh = pb->opt.nns == GRIDEMST_NNS_BVH;
    c->prune = pb->opt.tuning.prune;
    stats->late_bvh_iteration = -1;
    if (pb->opt.result == GRIDEMST_RESULT_HOST && !pb->raw_tree)
        gemst_host_tree_start(&c->host_tree, pb->n - 1, pb->opt.threads, pb->ctx);
    GEMST_DALLOC(&c->mem, c->cnt, 1, "counters");
    GEMST_CU(cudaMemsetAsync(c->cnt, 0, sizeof *c->cnt, c->s));
    size_t in_bytes = (size_t)pb->n * pb->dim * (pb->dtype == GRIDEMST_FLOAT32 ? 4 : 8);
    const void *coords = pb->coords;
    void *uploaded = NULL;
    GEMST_CU(cudaEventRecord(ev[0], c->s));
    if (!pb->on_device) {
        GEMST_TRY(gemst_dalloc(&c->mem, &uploaded, in_bytes, "the input points", err));
        GEMST_CU(cudaMemcpyAsync(uploaded, pb->coords, in_bytes, cudaMemcpyHostToDevice, c->s));
        coords = uploaded;
    }
    GEMST_CU(cudaEventRecord(ev[1], c->s));
    if (pb->dtype == GRIDEMST_FLOAT32)
        GEMST_TRY(GEMST_FN(build_grid)<float>(c, (const float *)coords, stats, err));
    else
        GEMST_TRY(GEMST_FN(build_grid)<double>(c, (const double *)coords, stats, err));
    gemst_dfree(&c->mem, uploaded);
    if (c->bvh)
        GEMST_TRY(GEMST_FN(build_bvh)(c, err));
    /* The sorts' scratch (a copy of their keys and values) is not needed
     * again at that size: the Boruvka loop's own is far smaller. */
    gemst_dfree(&c->mem, c->temp);
    c->temp = NULL;
    c->temp_bytes = 0;
    GEMST_CU(cudaEventRecord(ev[2], c->s));
    GEMST_CU(cudaEventSynchronize(ev[2]));
    GEMST_TRY(GEMST_FN(add_time)(ev[0], ev[1], &stats->time_ms.upload, err));
    GEMST_TRY(GEMST_FN(add_time)(ev[1], ev[2], &stats->time_ms.grid, err));
    GEMST_TRY(gemst_progress(&pb->opt, "grid", 0, c->nu, err));
    GEMST_TRY(GEMST_FN(alloc_state)(c, err));
    if (c->core2) { /* a search before the loop, as static pruning's: preparation, and FindMin1's */
        GEMST_CU(cudaEventRecord(ev[0], c->s));
        GEMST_TRY(GEMST_FN(core_distances)(c, err));
        GEMST_CU(cudaEventRecord(ev[1], c->s));
        GEMST_CU(cudaEventSynchronize(ev[1]));
        GEMST_TRY(GEMST_FN(add_time)(ev[0], ev[1], &stats->time_ms.prepare, err));
        stats->time_ms.findmin1 = stats->time_ms.prepare;
    }
    if (c->nu > 1) {
        int rc = GEMST_FN(boruvka)(c, ev, stats, err);
        /* Points too close together for the precision are the reason to
         * give, also where they led Boruvka into inconsistent minima. */
        if (rc == GRIDEMST_OK || rc == GRIDEMST_ERR_INTERNAL) {
            int tiny = GEMST_FN(check_tiny_edges)(c, err);
            rc = tiny != GRIDEMST_OK ? tiny : rc;
        }
        if (rc != GRIDEMST_OK)
            return rc;
    }
    GEMST_TRY(gemst_progress(&pb->opt, "edges", stats->iterations, 1, err));
    GEMST_FN(free_state)(c);
    GEMST_CU(cudaEventRecord(ev[0], c->s));
    GEMST_TRY(GEMST_FN(emit_tree)(c, ev[1], tree, err));
    GEMST_CU(cudaEventRecord(ev[2], c->s));
    GEMST_CU(cudaEventSynchronize(ev[2]));
    GEMST_TRY(GEMST_FN(add_time)(ev[0], ev[1], &stats->time_ms.edges, err));
    return GEMST_FN(add_time)(ev[1], ev[2], &stats->time_ms.download, err);
}

/* Frees what a failed solve made of the result. */
static void GEMST_FN(drop_tree)(cuda_ctx *c, gemst_tree *tree)
{
    void *device[] = {tree->device_edges.u, tree->device_edges.v, tree->device_edges.w};
    for (int i = 0; i < 3; i++)
        if (device[i])
            gemst_dmem_release(&c->mem, device[i]);
    memset(&tree->device_edges, 0, sizeof tree->device_edges);
    if (tree->host_registered)
        gemst_host_tree_free_pinned(tree->edges, tree->host_capacity);
    else
        free(tree->edges);
    tree->edges = NULL;
    tree->host_registered = 0;
    gemst_tree_free(tree);
}

/* The solve on its context (pb->ctx): its stream, events, pool and
 * staging; the device's work is done when it returns. */
extern "C" int GEMST_FN(gemst_cuda_solve)(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats,
                                         gridemst_error *err)
{
    gridemst_context *ctx = pb->ctx;
    int previous = 0;
    GEMST_CU(cudaGetDevice(&previous));
    snprintf(stats->device_name, sizeof stats->device_name, "%s", ctx->device_name);
    /* from here on every return goes through the cudaSetDevice(previous) below */
    GEMST_CU(cudaSetDevice(ctx->device));
    cuda_ctx c;
    memset(&c, 0, sizeof c);
    c.pb = pb;
    c.s = (cudaStream_t)ctx->stream;
    c.host = (GEMST_FN(counters) *)ctx->staging;
    memset(c.host, 0, sizeof *c.host); /* no copy is in flight: the last solve waited for its stream */
    gemst_dmem_init(&c.mem, (cudaMemPool_t)ctx->pool, c.s);
    int rc = GEMST_FN(run)(&c, (cudaEvent_t *)ctx->events, tree, stats, err);
    cudaStreamSynchronize(c.s);
    stats->peak_device_bytes = (int64_t)gemst_dmem_peak(&c.mem);
    stats->device_bytes_reserved = (int64_t)gemst_dmem_reserved(&c.mem);
    gemst_dfree_all(&c.mem);
    gemst_host_tree_discard(&c.host_tree); /* the tree's array when the solve failed before taking it */
    if (rc != GRIDEMST_OK)
        GEMST_FN(drop_tree)(&c, tree);
    cudaSetDevice(previous);
    return rc;
}
