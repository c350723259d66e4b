/*
 * The grid build on the device (precision-generic, included by
 * cuda_solve.cuh), as cpu_grid.inc does it on the CPU: the bounding box
 * and working frame, the device memory the solve will need, the cells
 * planned (one target occupancy, GEMST_CUDA_OCCUPANCY or the caller's), the
 * points sorted by cell and their cell table, exact duplicates removed
 * (joined by zero-length edges), then the crowded cells' grids
 * (cuda_subgrid.cuh).
 * With the BVH (nns bvh) the same steps sort the points by Morton code
 * instead, with no cells; the tree is built in cuda_bvh.cuh.  The kernels
 * are in cuda_grid_kernels.cuh.
 */
#include "bvh/bvh_knn.h"
#include "cuda/cuda_grid_kernels.cuh"

/* Default target points per cell.  The GPU's searches are fastest near 3
 * (H200, uniform 1e6-1e8, 2D and 3D: 2-8% faster than at the CPU's 2, and
 * 1-4 fewer bytes per point); the CPU point-weighted refinement is not used
 * here: finer cells slowed normal and clustered sets by 50%. */
#define GEMST_CUDA_OCCUPANCY 3.0

template <typename T>
static int GEMST_FN(bbox)(cuda_ctx *c, const T *coords, double lo[3], double hi[3], gridemst_error *err)
{
    return gemst_cuda_bbox<T>(&c->mem, c->s, coords, c->pb->n, c->pb->dim, lo, hi, err);
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
                       + 2 * 4;                         /* edges: their ends (lengths after the loop) */
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
    const size_t node = GEMST_BVH_NODE_BYTES; /* n - 1 internal nodes */
    size_t input = pb->on_device ? 0 : (size_t)pb->dim * (pb->dtype == GRIDEMST_FLOAT32 ? 4 : 8);
    size_t sort = 2 * 8 + 2 * 4 + 8 + 4;
    size_t dedupe = 8 + 4 + 2 * P + 3 * 4 + 4 + 8 + 4 + 8 /* codes, ids, coordinates twice, runs, table,
                                                           links, ranks, unique codes and ids, duplicate edges */
                    + 4 + 4 + 16 + 4 + 12;                /* the crowded path's lists, keys and sort */
    size_t build = input + (sort > dedupe ? sort : dedupe);
    size_t tree = P + 4 + 8 + node + 2 * 4 + 8;          /* points, codes, nodes, parent links, duplicate edges */
    size_t boruvka = P + 4 + node + 1                     /* points, nodes, their mixed bits (a byte: rounded up) */
                     + 6 * 4 + 1 + R + 8 + 2 * 4         /* labels ... lists, keep flags, best_d2, w2, list links */
                     + 4 + 8                              /* label breaks, bounds (bvh_share_buffers) */
                     + (pb->opt.min_samples < 2 ? 4 * GEMST_BVH_KNN_ROW : 0) /* nearest points' rows */
                     + 2 * 4 + 8;                         /* tree edges' ends, duplicate edges */
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
    if (pb->opt.nns == GRIDEMST_NNS_AUTO) {
        GEMST_TRY(GEMST_FN(choose_index)<T>(c, coords, stats, err));
        if (c->bvh)
            stats->prune = c->prune = GRIDEMST_PRUNE_NONE;
        stats->nns = c->bvh ? GRIDEMST_NNS_BVH : GRIDEMST_NNS_GRID;
    }
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
        const double occupancy =
            pb->opt.tuning.cell_occupancy > 0.0 ? pb->opt.tuning.cell_occupancy : GEMST_CUDA_OCCUPANCY;
        GEMST_TRY(GEMST_FN(fit_grid)(c, occupancy, pb->opt.tuning.crowded_cell, stats, err));
        GEMST_TRY(GEMST_FN(sort_by_cell)<T>(c, coords, &key, &oid, err));
        GEMST_DALLOC(&c->mem, cell_start, (size_t)c->cells + 1, "the cell table");
        GEMST_TRY(GEMST_FN(cell_table)(c, key, c->n, c->cells, cell_start, err));
        /* the crowded cells get their grids after duplicate removal (build_subgrids) */
        keys = c->cells;
    }
    GEMST_TRY(GEMST_FN(unique_points)<T>(c, coords, key, keys, cell_start, oid, stats, err));
    return c->bvh ? GRIDEMST_OK : GEMST_FN(build_subgrids)(c, stats, err);
}
