/*
 * The Borůvka graph steps (precision-generic, included by cuda_solve.cuh),
 * after FindMin1, as in the paper's Algorithms 3 to 6 and graph/boruvka.h:
 * FindMin2, each component's shortest outgoing edge (the linked lists, or
 * the atomic minima); connect and union along those edges, storing the
 * tree's edges; flatten and relabel, and the next iteration's root and
 * active lists.  The kernels first, then their host steps.
 */
#include "graph/boruvka.h"

/* FindMin2: see findmin2 below. */
static __global__ void GEMST_FN(k_reset_roots)(const uint32_t *roots, const int *n_roots, gemst_word1 *w1, uint64_t *w2,
                                             uint32_t *win_in, uint32_t *head)
{
    GEMST_LIST_INDEX(k, n_roots);
    GEMST_FN(gemst_root_reset)(w1, w2, win_in, roots[k]);
    if (head)
        head[roots[k]] = GEMST_NONE;
}

/* The refinement's reset: the roots of the listed points (several threads
 * may write the same root's reset values). */
static __global__ void GEMST_FN(k_reset_roots_of)(const uint32_t *pts, const int *m, const uint32_t *comp, gemst_word1 *w1,
                                                uint64_t *w2, uint32_t *win_in, uint32_t *head)
{
    GEMST_LIST_INDEX(a, m);
    uint32_t r = comp[pts[a]];
    GEMST_FN(gemst_root_reset)(w1, w2, win_in, r);
    if (head)
        head[r] = GEMST_NONE;
}

static __global__ void GEMST_FN(k_list_push)(const uint32_t *pts, const int *m, const uint32_t *comp,
                                           const uint32_t *best_to, int all_roots, uint32_t *head, uint32_t *next)
{
    GEMST_LIST_INDEX(a, m);
    uint32_t q = pts[a];
    if (best_to[q] != GEMST_NONE && (!all_roots || comp[q] != q))
        gemst_list_push(head, next, comp[q], q);
}

static __global__ void GEMST_FN(k_list_min_roots)(const uint32_t *roots, const int *n_roots, const uint32_t *head,
                                                const uint32_t *next, const uint32_t *oid, const gemst_real *best_d2,
                                                const uint32_t *best_to, gemst_word1 *w1, uint64_t *w2, uint32_t *win_in,
                                                uint32_t *win_out)
{
    GEMST_LIST_INDEX(k, n_roots);
    GEMST_FN(gemst_list_min)(roots[k], head, next, oid, best_d2, best_to, w1, w2, win_in, win_out);
}

static __global__ void GEMST_FN(k_list_min_heads)(const uint32_t *pts, const int *m, const uint32_t *comp,
                                                const uint32_t *head, const uint32_t *next, const uint32_t *oid,
                                                const gemst_real *best_d2, const uint32_t *best_to, gemst_word1 *w1,
                                                uint64_t *w2, uint32_t *win_in, uint32_t *win_out)
{
    GEMST_LIST_INDEX(a, m);
    uint32_t r = comp[pts[a]];
    if (head[r] == pts[a])
        GEMST_FN(gemst_list_min)(r, head, next, oid, best_d2, best_to, w1, w2, win_in, win_out);
}

/* One pass of the atomic FindMin2 (graph/boruvka.h) over the listed points,
 * from pass `first` on; passes 1 and 2 flag in shortest[a] the points the
 * next pass must look at (the others then cost it one byte read instead of
 * their edge and components). */
static __global__ void GEMST_FN(k_atomic_pass)(int pass, int first, int both, const uint32_t *pts, const int *m,
                                             const uint32_t *comp, const uint32_t *oid, const gemst_real *best_d2,
                                             const uint32_t *best_to, gemst_word1 *w1, uint64_t *w2, uint32_t *win_in,
                                             uint32_t *win_out, uint8_t *shortest)
{
    GEMST_LIST_LOOP(a, m)
    {
        if (pass > first && !shortest[a])
            continue;
        uint32_t q = pts[a];
        if (best_to[q] == GEMST_NONE) {
            if (pass == first)
                shortest[a] = 0;
            continue;
        }
        if (pass == 1)
            shortest[a] = (uint8_t)GEMST_FN(gemst_atomic_pass1)(q, comp, best_d2, best_to, both, w1);
        else if (pass == 2)
            shortest[a] = (uint8_t)GEMST_FN(gemst_atomic_pass2)(q, comp, oid, best_d2, best_to, both, w1, w2);
        else
            GEMST_FN(gemst_atomic_pass3)(q, comp, oid, best_d2, best_to, both, w1, w2, win_in, win_out);
    }
}

/* Each root hooks along its component's minimum edge and stores its ends'
 * places in the point arrays (their winners: the root's point and the far
 * one); the longest of the edges stored into *longest, zeroed before.  An
 * edge past edge_cap is counted but not stored: only inconsistent minima
 * could produce it, and the host reports the count. */
static __global__ void GEMST_FN(k_connect)(const uint32_t *roots, const int *n_roots, const uint32_t *win_in,
                                         const uint32_t *win_out, const gemst_word1 *w1, const uint32_t *comp,
                                         const uint32_t *oid, uint32_t *link, uint32_t *edge_count, uint32_t edge_cap,
                                         uint32_t *edge_a, uint32_t *edge_b, gemst_word1 *longest)
{
    typedef cub::BlockReduce<gemst_word1, GEMST_THREADS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    gemst_word1 w = 0;
    gemst_edge_key e;
    if (k < (uint32_t)*n_roots && GEMST_FN(gemst_hook)(roots[k], win_in, win_out, w1, comp, oid, link, &e)) {
        const uint32_t at = atomicAdd(edge_count, 1u);
        if (at < edge_cap) {
            edge_a[at] = win_in[roots[k]];
            edge_b[at] = win_out[roots[k]];
            w = gemst_edge_word1(e.d2);
        }
    }
    /* The longest edge, as a word1 (graph/edge_order.h: it orders lengths as unsigned integers), with one atomic
       per block: one per edge, on one word, made each iteration's merge 0.06 ms slower at 1e7 points (H100). */
    w = Reduce(tmp).Reduce(w, cuda::maximum<>());
    if (threadIdx.x == 0 && w > 0) {
        if (sizeof w == 8)
            atomicMax((unsigned long long *)longest, (unsigned long long)w);
        else
            atomicMax((unsigned int *)longest, (unsigned int)w);
    }
}

static __global__ void GEMST_FN(k_flatten_roots)(const uint32_t *roots, const int *n_roots, uint32_t *link)
{
    GEMST_LIST_INDEX(k, n_roots);
    gemst_flatten_root(link, roots[k]);
}

static __global__ void GEMST_FN(k_relabel)(uint32_t n, const uint32_t *link, uint32_t *comp)
{
    GEMST_INDEX(i, n);
    uint32_t r = link[comp[i]];
    if (r != comp[i])
        comp[i] = r;
}

/* Flags for the next iteration's lists; the points dropped from the active
 * list and those the fallback improved forget their edge. */
static __global__ void GEMST_FN(k_root_flags)(const uint32_t *roots, const int *n_roots, const uint32_t *link,
                                            uint8_t *keep)
{
    GEMST_LIST_INDEX(k, n_roots);
    keep[k] = link[roots[k]] == roots[k];
}

static __global__ void GEMST_FN(k_active_flags)(const uint32_t *active, const int *n_active, int prune,
                                              const uint8_t *ncand, const uint64_t *open, uint32_t *best_to,
                                              uint8_t *keep)
{
    GEMST_LIST_INDEX(a, n_active);
    uint32_t q = active[a];
    int alive = prune == GRIDEMST_PRUNE_STATIC ? ncand[q] > 0 : prune == GRIDEMST_PRUNE_DYNAMIC ? open[q] != 0 : 1;
    keep[a] = (uint8_t)alive;
    if (!alive)
        best_to[q] = GEMST_NONE;
}

static __global__ void GEMST_FN(k_forget_extra)(const uint32_t *extra, const int *n_extra, uint32_t *best_to)
{
    GEMST_LIST_INDEX(a, n_extra);
    best_to[extra[a]] = GEMST_NONE;
}

/* FindMin2 over the listed points (bound: launch size), as in
 * cpu_solve.inc: all_roots for the iteration's first pass, otherwise the
 * refinement over the points the fallback improved.  On the BVH, w1 is
 * the bounds' array, where FindMin1 left each component's shortest length
 * (bvh/bvh_query.h: every edge found lowers both ends' bounds, and each
 * component's shortest is found), so the atomic passes start at the
 * second; the list then holds only the points triage offered. */
static int GEMST_FN(findmin2)(cuda_ctx *c, const uint32_t *pts, const int *m, uint32_t bound, int all_roots,
                             gridemst_error *err)
{
    const unsigned b = gemst_blocks(bound), br = gemst_blocks(c->n_roots);
    const uint32_t *oid = c->g.oid;
    if (all_roots &&
        gemst_own_edges_suffice(c->n_roots, c->nu, c->bvh || c->prune == GRIDEMST_PRUNE_STATIC)) {
        GEMST_FN(k_list_min_roots)<<<br, GEMST_THREADS, 0, c->s>>>(c->roots, CNT(c, roots), NULL, NULL, oid,
                                                                  c->best_d2, c->best_to, c->w1, c->w2, c->win_in,
                                                                  c->win_out);
        GEMST_LAUNCHED();
        return GRIDEMST_OK;
    }
    const int lengths_known = all_roots && c->w1 == c->ub;
    if (all_roots)
        GEMST_FN(k_reset_roots)<<<br, GEMST_THREADS, 0, c->s>>>(c->roots, CNT(c, roots), lengths_known ? NULL : c->w1,
                                                               c->w2, c->win_in, c->head);
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
    /* With all_roots each pass also lets each edge compete for its far
     * component.  The list flags (keep) are free here: both callers have
     * used them. */
    const int first = lengths_known ? 2 : 1;
    for (int pass = first; pass <= 3; pass++) {
        GEMST_FN(k_atomic_pass)<<<GEMST_FN(list_blocks)(c, bound), GEMST_THREADS, 0, c->s>>>(
            pass, first, all_roots, pts, m, c->comp, oid, c->best_d2, c->best_to, c->w1, c->w2, c->win_in,
            c->win_out, c->keep);
        GEMST_LAUNCHED();
    }
    return GRIDEMST_OK;
}

/* Connect and union: each root hooks along its component's minimum edge. */
static int GEMST_FN(connect)(cuda_ctx *c, gridemst_error *err)
{
    GEMST_CU(cudaMemsetAsync(CNT(c, longest), 0, sizeof c->host->longest, c->s));
    GEMST_FN(k_connect)<<<gemst_blocks(c->n_roots), GEMST_THREADS, 0, c->s>>>(
        c->roots, CNT(c, roots), c->win_in, c->win_out, c->w1, c->comp, c->g.oid, c->link, CNT(c, edges), c->nu - 1,
        c->edge_a, c->edge_b, CNT(c, longest));
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
    /* The BVH's loop renames the points' components in its next pair bounds' pass (cuda_bvh.cuh), and its search
       has no fallback. */
    if (!c->bvh) {
        GEMST_FN(k_relabel)<<<gemst_blocks(c->nu), GEMST_THREADS, 0, c->s>>>(c->nu, c->link, c->comp);
        GEMST_LAUNCHED();
        GEMST_FN(k_forget_extra)<<<gemst_blocks(bound), GEMST_THREADS, 0, c->s>>>(c->extra, CNT(c, extra),
                                                                                  c->best_to);
        GEMST_LAUNCHED();
    }

    GEMST_FN(k_root_flags)<<<br, GEMST_THREADS, 0, c->s>>>(c->roots, CNT(c, roots), c->link, c->keep);
    GEMST_LAUNCHED();
    GEMST_TRY(GEMST_FN(select)(c, c->roots, CNT(c, roots), c->n_roots, err));
    if (c->prune == GRIDEMST_PRUNE_NONE) /* every active point stays (the BVH's triage lists its own) */
        return GRIDEMST_OK;
    GEMST_FN(k_active_flags)<<<gemst_blocks(c->n_active), GEMST_THREADS, 0, c->s>>>(
        c->active, CNT(c, active), (int)c->prune, c->ncand, c->open, c->best_to, c->keep);
    GEMST_LAUNCHED();
    GEMST_TRY(GEMST_FN(select)(c, c->active, CNT(c, active), c->n_active, err));
    return GRIDEMST_OK;
}
