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
#include "cuda/cuda_state.cuh"
#include "cuda/cuda_core.cuh"
#include "cuda/cuda_subgrid.cuh"
#include "cuda/cuda_grid_build.cuh"
#include "cuda/cuda_bvh.cuh"
#include "cuda/cuda_late_bvh.cuh"

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
    if (pb->opt.result == GRIDEMST_RESULT_HOST)
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
