/*
 * FindMin1 on the grid (precision-generic, included by cuda_solve.cuh), as
 * cpu_solve.inc and cpu_knn.inc run it on the CPU, with the per-point
 * searches of nns/: static pruning's search before the first iteration
 * (the block pass, then the ring walk) and the uncertain list it leaves;
 * each iteration's search in its instance for the strategy and the grid;
 * the component breaks the walks skip by; and the fallback for the points whose search may have missed
 * their component's shortest edge, with FindMin2's refinement after it.
 * The BVH's FindMin1 is cuda_bvh.cuh's.  The kernels first, then their host
 * steps.
 */
#include "nns/block.h"
#include "nns/cell_fallback.h"

/* Static pruning's search, first pass (nns/block.h): each point's K
 * nearest from the block of its cell in its grid, the main one or its
 * crowded cell's; hard[i] = 1 for the points this cannot settle, which
 * k_static_prepare searches in full. */
template <int DIM>
static __global__ void __launch_bounds__(GEMST_THREADS, 4)
    GEMST_FN(k_static_block)(gemst_grid g, uint32_t *cand, uint8_t *ncand, gemst_real *rb2, uint8_t *hard)
{
    GEMST_INDEX(i, g.n);
    g.dim = DIM;
    gemst_query qq;
    gemst_real kd2[GEMST_KNN];
    uint32_t kid[GEMST_KNN];
    const int K = gemst_knn_k(DIM);
    GEMST_FN(gemst_query_make)(&g, i, &qq);
    const int count = GEMST_FN(gemst_block_search)(&g, &qq, K, GEMST_BLOCK_MAX_POINTS, kd2, kid);
    hard[i] = count < 0;
    if (count >= 0)
        ncand[i] = (uint8_t)GEMST_FN(gemst_static_candidates)(&g, &qq, K, kd2, kid, count,
                                                             cand + (size_t)i * GEMST_CAND_SLOTS, &rb2[i]);
}

/* Static pruning's search in full, for the points of a list. */
template <int DIM, int CROWDED>
static __global__ void __launch_bounds__(GEMST_THREADS, 4)
    GEMST_FN(k_static_prepare)(gemst_grid g, const uint32_t *list, const int *n_list, uint32_t *cand,
                               uint8_t *ncand, gemst_real *rb2)
{
    GEMST_LIST_INDEX(a, n_list);
    const uint32_t i = list[a];
    GEMST_GRID_INSTANCE(g, DIM, CROWDED);
    gemst_query qq;
    gemst_real kd2[GEMST_KNN];
    uint32_t kid[GEMST_KNN];
    GEMST_FN(gemst_query_make)(&g, i, &qq);
    const int K = gemst_knn_k(DIM);
    int count = GEMST_FN(gemst_knn)(&g, &qq, K, kd2, kid);
    ncand[i] = (uint8_t)GEMST_FN(gemst_static_candidates)(&g, &qq, K, kd2, kid, count,
                                                         cand + (size_t)i * GEMST_CAND_SLOTS, &rb2[i]);
}

/* One instance per strategy (PRUNE), so that each compiles to the
 * registers its own search needs. */
template <int PRUNE, int CROWDED>
static __global__ void GEMST_FN(k_findmin1)(gemst_grid g, gemst_findmin1_state st, const uint32_t *active,
                                          const int *n_active)
{
    GEMST_LIST_INDEX(a, n_active);
    GEMST_CROWDED_PATH(g, CROWDED);
    st.prune = PRUNE;
    GEMST_FN(gemst_findmin1_point)(&g, &st, active[a]);
}

/* Component breaks before their scan (nns/walk.h), into link. */
static __global__ void GEMST_FN(k_break_flags)(uint32_t n, const uint32_t *comp, uint32_t *link)
{
    GEMST_INDEX(i, n);
    link[i] = gemst_break_at(comp, i);
}

static __global__ void GEMST_FN(k_restore_links)(const uint32_t *roots, const int *n_roots, uint32_t *link)
{
    GEMST_LIST_INDEX(k, n_roots);
    link[roots[k]] = roots[k];
}

/* The fallback: which listed points need it ... */
static __global__ void GEMST_FN(k_fallback_flags)(gemst_findmin1_state st, const uint32_t *pts, const int *m,
                                                const gemst_word1 *w1, const uint64_t *w2, uint8_t *keep)
{
    GEMST_LIST_INDEX(a, m);
    keep[a] = (uint8_t)GEMST_FN(gemst_fallback_needed)(&st, w1, w2, pts[a]);
}

/* ... each listed point's task (nns/cell_fallback.h) into task[a] ... */
static __global__ void GEMST_FN(k_fallback_tasks)(gemst_grid g, gemst_findmin1_state st, const uint32_t *pts,
                                                const int *m, const gemst_word1 *w1, const uint64_t *w2,
                                                uint8_t *task)
{
    GEMST_LIST_INDEX(a, m);
    task[a] = (uint8_t)GEMST_FN(gemst_fallback_task)(&g, &st, w1, w2, pts, a);
}

/* ... and the searches: pts[a] becomes the point whose edge improved, with
 * keep[a] set (keep is task, read first). */
template <int DIM, int CROWDED>
static __global__ void __launch_bounds__(GEMST_THREADS, GEMST_WIDE_SEARCH_BLOCKS(CROWDED))
    GEMST_FN(k_fallback)(gemst_grid g, gemst_findmin1_state st, uint32_t *pts, const int *m, gemst_word1 *w1,
                         const uint32_t *win_in, const uint32_t *win_out, uint8_t *keep)
{
    GEMST_LIST_INDEX(a, m);
    GEMST_GRID_INSTANCE(g, DIM, CROWDED);
    uint32_t improved = GEMST_FN(gemst_fallback_run)(&g, &st, w1, win_in, win_out, pts, a, keep[a]);
    keep[a] = improved != GEMST_NONE;
    if (improved != GEMST_NONE)
        pts[a] = improved;
}

static __global__ void GEMST_FN(k_uncertain_flags)(uint32_t n, const gemst_real *rb2, uint8_t *keep)
{
    GEMST_INDEX(i, n);
    keep[i] = rb2[i] < GEMST_REAL_INF;
}

/* Below this many points, or where the cells are planned too full for
 * blocks (gemst_block_pass_pays), static pruning's search skips the block
 * pass: H200, 1e5-2e5 points of TSPLIB, static search 0.06-0.09 ms slower
 * with it (its list's compaction). */
#define GEMST_BLOCK_MIN_POINTS 500000

/* Static pruning's one spatial search (the kernels above): the block pass,
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
    *block_pass = nu >= GEMST_BLOCK_MIN_POINTS && gemst_block_pass_pays(c->g.dim, c->occupancy, c->g.crowded);
    if (*block_pass) {
        GEMST_LAUNCH_DIM(c, k_static_block, gemst_blocks(nu), c->g, c->cand, c->ncand, c->rb2, c->keep);
        GEMST_LAUNCHED();
        /* the uncertain list's buffer holds the hard points until k_uncertain_flags */
        GEMST_CU(cudaMemcpyAsync(c->uncertain, c->active, sizeof *c->uncertain * nu, cudaMemcpyDeviceToDevice, c->s));
        GEMST_TRY(GEMST_FN(select)(c, c->uncertain, CNT(c, hard), nu, err));
        list = c->uncertain;
        n_list = CNT(c, hard);
    }
    GEMST_LAUNCH_WIDE(c, k_static_prepare, gemst_blocks(nu), c->g, list, n_list, c->cand, c->ncand, c->rb2);
    GEMST_LAUNCHED();
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
