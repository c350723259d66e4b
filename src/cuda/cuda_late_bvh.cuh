/*
 * The late BVH (nns/late_bvh.h; precision-generic, included by
 * cuda_solve.cuh): from an iteration on, FindMin1 on the grid gives way to
 * a search of a BVH over the same points, as cpu_solve.inc's late_bvh does
 * it.  The kernels first (each point's lower bound, the Morton codes and
 * their sort's order, the points and labels moved into it), then the host
 * steps; the tree's build and search are cuda_bvh.cuh's.
 */
#include "nns/late_bvh.h"

/* The late BVH (nns/late_bvh.h): each grid point's lower bound from the
 * static search ... */
static __global__ void GEMST_FN(k_late_bounds)(gemst_grid g, gemst_findmin1_state st)
{
    GEMST_INDEX(q, g.n);
    st.best_d2[q] = GEMST_FN(gemst_late_bvh_bound)(&g, &st, q);
}

/* ... the grid points' Morton codes and their places, for the sort ... */
static __global__ void GEMST_FN(k_late_codes)(gemst_grid g, uint64_t *code, uint32_t *order)
{
    GEMST_INDEX(k, g.n);
    code[k] = GEMST_FN(gemst_late_bvh_code)(&g, k);
    order[k] = k;
}

/* ... the order's inverse, for the move into it: inv[order[k]] = k ... */
static __global__ void GEMST_FN(k_late_inverse)(uint32_t n, const uint32_t *order, uint32_t *inv)
{
    GEMST_INDEX(k, n);
    inv[order[k]] = k;
}

/* ... the labels (points) moved and renamed ... */
static __global__ void GEMST_FN(k_late_relabel)(uint32_t n, const uint32_t *order, const uint32_t *inv,
                                              const uint32_t *label, uint32_t *moved)
{
    GEMST_INDEX(k, n);
    moved[k] = gemst_late_bvh_relabel(order, inv, label, k);
}

/* ... the root list renamed in place ... */
static __global__ void GEMST_FN(k_late_renumber)(uint32_t *list, const int *m, const uint32_t *inv)
{
    GEMST_LIST_INDEX(a, m);
    list[a] = inv[list[a]];
}

/* ... and after the build, every point listed active, with no edge. */
static __global__ void GEMST_FN(k_late_reset)(uint32_t n, uint32_t *active, uint32_t *best_to)
{
    GEMST_INDEX(i, n);
    active[i] = i;
    best_to[i] = GEMST_NONE;
}

/* The points' arrays (their bounds and core distances among them) and
 * labels moved into the order `order` (point k gets point order[k]; inv is
 * its inverse), each through a new array; the duplicates' representatives
 * and the ends of the tree's edges renamed. */
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
    /* the tree's edges so far name their ends by place (in place, as above) */
    const uint32_t stored = c->host->edges < nu - 1 ? c->host->edges : nu - 1;
    uint32_t *ends[2] = {c->edge_a, c->edge_b};
    for (int e = 0; e < 2 && stored > 0; e++) {
        GEMST_FN(k_gather)<uint32_t><<<gemst_blocks(stored), GEMST_THREADS, 0, c->s>>>(stored, ends[e], inv, ends[e]);
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
    const uint32_t nu = c->nu, leaf = gemst_bvh_leaf_size(nu, gemst_late_bvh_leaf(c->core2 != NULL)),
                   leaves = gemst_bvh_leaves(nu, leaf);
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
    GEMST_FN(k_bvh_leaf_codes)<<<gemst_blocks(leaves), GEMST_THREADS, 0, c->s>>>(leaves, leaf, keys.Current(),
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
    GEMST_FN(bvh_share_buffers)(c); /* the last grid iteration's fallback list is done with */
    GEMST_TRY(GEMST_FN(bvh_scan_temp)(c, err));
    GEMST_FN(k_late_reset)<<<gemst_blocks(nu), GEMST_THREADS, 0, c->s>>>(nu, c->active, c->best_to);
    GEMST_LAUNCHED();
    c->n_active = nu;
    GEMST_TRY(GEMST_FN(set_counter)(c, CNT(c, active), &c->host->active, (int)nu, err));
    GEMST_TRY(GEMST_FN(set_counter)(c, CNT(c, extra), &c->host->extra, 0, err));
    c->prune = GRIDEMST_PRUNE_NONE;
    c->bvh = 1;
    return GRIDEMST_OK;
}
