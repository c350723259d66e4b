/*
 * The Borůvka loop on the device (precision-generic, included by
 * cuda_solve.cuh), as cpu_solve.inc runs it: the state's arrays
 * allocated and freed, every point its own component (with static
 * pruning's search before the first iteration), then each iteration's
 * steps in order, timed by events: the late BVH when due, FindMin1
 * (cuda_search.cuh, cuda_bvh.cuh), FindMin2 and the fallback, connect and
 * flatten (cuda_boruvka_steps.cuh), and the check of the counters the host
 * reads at its end.
 */

static __global__ void GEMST_FN(k_init)(uint32_t n, uint32_t *comp, uint32_t *link, uint32_t *active, uint32_t *roots,
                                      uint32_t *best_to, gemst_real *rb2, uint64_t *open, uint64_t all_slabs)
{
    GEMST_INDEX(i, n);
    comp[i] = link[i] = active[i] = roots[i] = i;
    best_to[i] = GEMST_NONE;
    if (rb2)
        rb2[i] = GEMST_REAL_INF;
    if (open)
        open[i] = all_slabs;
}

static int GEMST_FN(alloc_state)(cuda_ctx *c, gridemst_error *err)
{
    const uint32_t nu = c->nu, n = c->n;
    gemst_dmem *m = &c->mem;
    GEMST_DALLOC(m, c->comp, nu, "component labels");
    GEMST_DALLOC(m, c->link, nu, "component links");
    GEMST_DALLOC(m, c->best_to, nu, "nearest foreign points");
    if (c->bvh) {
        GEMST_DALLOC(m, c->brk, nu, "BVH labels");
        GEMST_DALLOC(m, c->ub, nu, "component bounds");
        if (c->pb->opt.min_samples < 2 && nu > GEMST_BVH_KNN)
            GEMST_DALLOC(m, c->knn, (size_t)nu * GEMST_BVH_KNN_ROW, "nearest points");
        c->knn_found = 0;
        c->labels_wait = 0;
        GEMST_TRY(GEMST_FN(bvh_scan_temp)(c, err));
        GEMST_FN(bvh_share_buffers)(c);
    } else {
        GEMST_DALLOC(m, c->rb2, nu, "search bounds");
        size_t bytes = 0; /* count_breaks's scan, sized before the loop */
        GEMST_CU(cub::DeviceScan::InclusiveSum(NULL, bytes, c->link, c->link, nu, c->s));
        GEMST_TRY(GEMST_FN(ensure_temp)(c, bytes, err));
    }
    GEMST_DALLOC(m, c->win_in, nu, "component winners");
    if (!c->bvh) { /* else in the BVH's shared buffers (bvh_share_buffers) */
        GEMST_DALLOC(m, c->win_out, nu, "component winners");
        GEMST_DALLOC(m, c->w1, nu, "component minima");
        GEMST_DALLOC(m, c->extra, nu, "the fallback list");
    }
    GEMST_DALLOC(m, c->w2, nu, "component minima");
    GEMST_DALLOC(m, c->active, nu, "the active list");
    GEMST_DALLOC(m, c->roots, nu, "the root list");
    GEMST_DALLOC(m, c->keep, nu, "list flags");
    GEMST_DALLOC(m, c->edge_a, n - 1, "tree edges");
    GEMST_DALLOC(m, c->edge_b, n - 1, "tree edges");
    /* after the edges: it holds their lengths after the loop (finish_edges) and lives as long as they do, so
       that the buffers freed before the final sort lie together, where its keys fit */
    GEMST_DALLOC(m, c->best_d2, nu, "nearest foreign distances");
    if (c->pb->opt.tuning.findmin2 == GRIDEMST_FINDMIN2_LIST) {
        GEMST_DALLOC(m, c->head, nu, "component lists");
        GEMST_DALLOC(m, c->next, nu, "component lists");
    }
    if (c->prune == GRIDEMST_PRUNE_DYNAMIC)
        GEMST_DALLOC(m, c->open, nu, "open slab masks");
    if (c->prune == GRIDEMST_PRUNE_STATIC) {
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

/* Releases everything but the tree (finish_edges made its lengths in
 * best_d2's buffer, which is the tree's now) and the duplicates' edges,
 * before the final sort needs its buffers (this keeps the peak down). */
static void GEMST_FN(free_state)(cuda_ctx *c)
{
    if (c->bvh) { /* bvh_share_buffers: freed with ub and brk */
        c->w1 = NULL;
        c->extra = c->win_out = NULL;
    }
    void *state[] = {c->comp, c->link, c->best_to, c->win_in, c->win_out, c->head, c->next, c->cand, c->ncand,
                     c->active, c->roots, c->uncertain, c->extra, c->keep, c->best_d2, c->rb2, c->w1, c->w2,
                     c->open, (void *)c->g.x, (void *)c->g.y, (void *)c->g.z, (void *)c->g.oid,
                     (void *)c->g.cell_start, c->brk, c->ub, c->knn, c->tree.node, c->tree.end, c->mixed, c->code, c->sub_cell,
                     c->crowd, c->nest, c->sub, c->sub_start, c->core2, c->dup_rep};
    for (size_t i = 0; i < sizeof state / sizeof state[0]; i++)
        gemst_dfree(&c->mem, state[i]);
    memset(&c->g, 0, sizeof c->g);
    memset(&c->tree, 0, sizeof c->tree);
    c->brk = NULL;
    c->ub = NULL;
    c->knn = NULL;
    c->mixed = NULL;
    c->code = NULL;
    c->sub_cell = c->sub_start = NULL;
    c->crowd = c->nest = NULL;
    c->sub = NULL;
    c->core2 = NULL;
    c->dup_rep = NULL;
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
    if (c->prune != GRIDEMST_PRUNE_STATIC)
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
        /* the grid's static search gives way to the late BVH only when asked (nns/late_bvh.h) */
        if ((c->prune == GRIDEMST_PRUNE_STATIC &&
             gemst_late_bvh_forced(c->pb->opt.tuning.late_bvh, iteration, c->nu)) ||
            (!c->bvh && gemst_late_bvh_mutual(c->pb->opt.tuning.late_bvh, c->core2 != NULL, iteration, c->nu))) {
            GEMST_TRY(GEMST_FN(late_bvh)(c, err));
            stats->late_bvh_iteration = iteration;
        }
        if (c->prune == GRIDEMST_PRUNE_NONE && !c->bvh && gemst_breaks_pay(iteration, c->n_active, c->nu))
            GEMST_TRY(GEMST_FN(count_breaks)(c, err));
        GEMST_TRY(GEMST_FN(findmin1)(c, err));
        GEMST_CU(cudaEventRecord(ev[1], c->s));
        /* the BVH's triage lists the points it offers anew each iteration, up to every point */
        GEMST_TRY(GEMST_FN(findmin2)(c, c->active, CNT(c, active), c->bvh ? c->nu : c->n_active, 1, err));
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
