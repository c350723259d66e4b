/*
 * The CUDA backend's friends-of-friends, precision-generic: included by
 * cuda_fof_f32.cu and cuda_fof_f64.cu after GEMST_REAL_IS_DOUBLE is set.
 *
 * The groups are the components of the pairs of friends: squared working
 * distance <= t, in the CPU backend's working frame and arithmetic
 * (fof/fof_grid.h, fof/fof_plan.h), so that both backends see the same
 * pairs.  The CPU runs Boruvka over them for the minimum spanning forest;
 * here a union-find joins them, and no forest is made:
 *   1. each point's working coordinates and top cell (fof_plan.h: cells no
 *      narrower than the linking length), and the points per top cell;
 *   2. crowded top cells split into sub-cells: of about the planned
 *      occupancy, or where that is finer or they would number only a few
 *      per point, "tight" ones, whose diagonal is shorter than the linking
 *      length by a margin for rounding, so that all their points are
 *      friends of each other;
 *   3. the points sorted by leaf (CUB radix sort) and the leaf table;
 *   4. union-find: every point's parent is the first point of its leaf when
 *      the leaf is tight (already one tree), else itself; then each point
 *      tests the points of the leaves within reach, its own leaf and those
 *      after it (each pair once), and joins its friends' trees, lock-free,
 *      hooking the larger root under the smaller: a tree's root ends up its
 *      smallest point whatever the order of the unions.  In a tight leaf a
 *      point stops at its first friend, and skips the leaf when it is in
 *      the same tree already;
 *   5. labels numbered in the order of each group's smallest caller id, as
 *      gemst_label_components numbers the CPU backend's (groups of fewer
 *      than min_size points -1): the same labels on both backends.
 */
#include "backend.h"
#include "context.h"
#include "cuda/cuda_kernels.cuh"
#include "cuda/cuda_grid_kernels.cuh"
#include "fof/fof_grid.h"
#include "fof/fof_plan.h"

/* Everything the kernels read about the grid and the union-find. */
#define fof_dev GEMST_FN(fof_dev)
typedef struct {
    gemst_fof_grid g;    /* device arrays; x, y, z and oid in leaf order */
    gemst_frame f;
    int periodic;
    double box[3];       /* periodic: the box in caller units */
    gemst_real reach;    /* at least the linking length plus rounding: a point's friends lie in the
                            sub-cells within reach of it */
    const uint8_t *tight; /* per top cell: split into tight sub-cells */
    const uint32_t *leaf; /* per point (leaf order): its leaf */
    uint32_t *parent;    /* per point (leaf order): its union-find parent, never above it */
} fof_dev;

/* How crowded top cells split (host-computed, device-applied). */
#define fof_split_rule GEMST_FN(fof_split_rule)
typedef struct {
    int can_split;       /* no periodic axis of one or two cells (fof_grid.h measures no gaps there) */
    int m_tight;         /* the fewest sub-cells per axis that are tight, 0 when none up to the maximum */
    double tight_leaves; /* m_tight^dim */
    double occupancy;    /* points per sub-cell planned for */
    int dim;
} fof_split_rule;

#define fof_gpu GEMST_FN(fof_gpu)
typedef struct {
    const gemst_fof_problem *fp;
    int64_t min_size;
    cudaStream_t s;
    gemst_dmem mem;
    gemst_fof_plan plan;
    fof_split_rule rule;
    fof_dev dv;
    uint32_t n, leaves;
} fof_gpu;

/* CUB's two-call pattern with scratch from the pool, given back at once. */
#define GEMST_FOF_CUB(c, call_with_temp)                                                                          \
    do {                                                                                                          \
        void *temp = NULL;                                                                                        \
        size_t temp_bytes = 0;                                                                                    \
        GEMST_CU(call_with_temp);                                                                                 \
        GEMST_TRY(gemst_dalloc(&(c)->mem, &temp, temp_bytes, "friends-of-friends scratch", err));                \
        GEMST_CU(call_with_temp);                                                                                 \
        gemst_dfree(&(c)->mem, temp);                                                                             \
    } while (0)

/* ---------------------------------------------------------------- union-find */

/* The root of x's tree, halving the path on the way: each visited point
 * then points at its grandparent, still an ancestor, so racing writers
 * only ever shorten a path. */
static __device__ __forceinline__ uint32_t GEMST_FN(fof_find)(uint32_t *parent, uint32_t x)
{
    volatile uint32_t *p = parent;
    for (;;) {
        const uint32_t up = p[x];
        if (up == x)
            return x;
        const uint32_t up2 = p[up];
        if (up2 == up)
            return up;
        p[x] = up2;
        x = up2;
    }
}

/* Joins the trees of a and b: the larger root is hooked under the smaller
 * by compare-and-swap, retried from its new parent when another thread
 * hooked it first. */
static __device__ void GEMST_FN(fof_union)(uint32_t *parent, uint32_t a, uint32_t b)
{
    for (;;) {
        a = GEMST_FN(fof_find)(parent, a);
        b = GEMST_FN(fof_find)(parent, b);
        if (a == b)
            return;
        if (a < b) {
            const uint32_t t = a;
            a = b;
            b = t;
        }
        const uint32_t was = atomicCAS(&parent[a], a, b);
        if (was == a)
            return;
        a = was;
    }
}

/* ---------------------------------------------------------------- grid */

/* Point i's working coordinates (0 past dim). */
template <typename T>
static __device__ __forceinline__ void GEMST_FN(fof_point)(const fof_dev &dv, const T *coords, uint32_t i,
                                                           gemst_real p[3])
{
    const int dim = dv.g.dim;
    GEMST_UNROLL
    for (int d = 0; d < 3; d++)
        p[d] = d < dim ? GEMST_FN(gemst_fof_working)(&dv.f, dv.periodic ? dv.box : NULL, dv.g.box[d],
                                                     (double)coords[(size_t)i * dim + d], d)
                       : (gemst_real)0;
}

/* Each caller point's top cell, and the points per top cell. */
template <typename T>
static __global__ void GEMST_FN(k_fof_top)(fof_dev dv, const T *coords, uint32_t n, uint32_t *top, uint32_t *count)
{
    GEMST_INDEX(i, n);
    gemst_real p[3];
    int32_t c[3];
    GEMST_FN(fof_point)<T>(dv, coords, i, p);
    GEMST_FN(gemst_fof_top_cell)(&dv.g, p, c);
    const uint32_t k = gemst_fof_cell_index(dv.g.nc, c);
    top[i] = k;
    atomicAdd(&count[k], 1u);
}

/* A crowded cell splits into tight sub-cells also where they number at
 * most this many per point (the leaf table then stays within a few entries
 * per point): points on a surface or a line fill few of the sub-cells that
 * their count would ask for in a volume, and those sub-cells, untight,
 * would hold many points each. */
#define GEMST_FOF_TIGHT_PER_POINT 2

/* Sub-cells per axis of a top cell of `count` points, and whether they are
 * tight: about the planned occupancy each, but no finer than tight. */
static __device__ int GEMST_FN(fof_split_of)(const fof_split_rule &r, uint32_t count, uint8_t *tight)
{
    *tight = 0;
    if (!r.can_split || count <= GEMST_FOF_CROWDED)
        return 1;
    int m = (int)ceil(pow((double)count / r.occupancy, 1.0 / r.dim));
    m = m > GEMST_FOF_MAX_SPLIT ? GEMST_FOF_MAX_SPLIT : m;
    if (r.m_tight > 0 && (m >= r.m_tight || r.tight_leaves <= (double)GEMST_FOF_TIGHT_PER_POINT * count)) {
        *tight = 1;
        return r.m_tight;
    }
    return m >= 2 ? m : 1;
}

/* Per top cell: its split and tightness, and its leaves in count[k] (the
 * scan then turns them into leaf_of); the leaves beyond one per cell are
 * summed into *extra (to check they fit 32-bit leaf numbers). */
static __global__ void GEMST_FN(k_fof_split)(fof_split_rule r, uint32_t cells, uint32_t *count, uint8_t *split,
                                             uint8_t *tight, unsigned long long *extra)
{
    GEMST_INDEX(k, cells);
    const int m = GEMST_FN(fof_split_of)(r, count[k], &tight[k]);
    const uint32_t leaves = r.dim == 3 ? (uint32_t)(m * m * m) : (uint32_t)(m * m);
    split[k] = (uint8_t)m;
    count[k] = leaves;
    if (leaves > 1)
        atomicAdd(extra, (unsigned long long)(leaves - 1));
}

/* Each caller point's leaf (the sort key) and its id (the sort value). */
template <typename T>
static __global__ void GEMST_FN(k_fof_leaf_keys)(fof_dev dv, const T *coords, uint32_t n, uint32_t *key,
                                                 uint32_t *val)
{
    GEMST_INDEX(i, n);
    const uint32_t top = key[i];
    uint32_t leaf = dv.g.leaf_of[top];
    const int m = dv.g.split[top];
    if (m > 1) {
        gemst_real p[3];
        int32_t c[3];
        GEMST_FN(fof_point)<T>(dv, coords, i, p);
        GEMST_FN(gemst_fof_top_cell)(&dv.g, p, c);
        leaf += GEMST_FN(gemst_fof_leaf_in_cell)(&dv.g, p, c, m);
    }
    key[i] = leaf;
    val[i] = i;
}

/* Working coordinates in leaf order, and each point's first parent. */
template <typename T>
static __global__ void GEMST_FN(k_fof_gather)(fof_dev dv, const T *coords, uint32_t n, gemst_real *x, gemst_real *y,
                                              gemst_real *z)
{
    GEMST_INDEX(i, n);
    gemst_real p[3];
    int32_t c[3];
    GEMST_FN(fof_point)<T>(dv, coords, dv.g.oid[i], p);
    x[i] = p[0];
    y[i] = p[1];
    if (z)
        z[i] = p[2];
    GEMST_FN(gemst_fof_top_cell)(&dv.g, p, c);
    dv.parent[i] = dv.tight[gemst_fof_cell_index(dv.g.nc, c)] ? dv.g.leaf_start[dv.leaf[i]] : i;
}

/* ---------------------------------------------------------------- pairs */

/* The point a thread links: its index, coordinates and leaf, and a root
 * its tree had.  Roots never come back once hooked, so a point whose root
 * is that one is in its tree (the union is skipped); any other is joined
 * by the union, which finds the roots anew. */
#define fof_query GEMST_FN(fof_query)
typedef struct {
    uint32_t i, leaf, root;
    gemst_real q[3];
} fof_query;

/* The query against the points of a leaf: those after it in its own leaf,
 * every one of a later leaf, none of an earlier one (that leaf's points
 * test the query). */
static __device__ void GEMST_FN(fof_scan_leaf)(const fof_dev &dv, fof_query *qr, uint32_t leaf, int tight)
{
    if (leaf < qr->leaf)
        return;
    uint32_t b = dv.g.leaf_start[leaf];
    const uint32_t e = dv.g.leaf_start[leaf + 1];
    if (leaf == qr->leaf) {
        if (tight)
            return; /* one tree from the start */
        b = qr->i + 1;
    }
    if (b >= e || (tight && GEMST_FN(fof_find)(dv.parent, b) == qr->root))
        return;
    for (uint32_t p = b; p < e; p++)
        if (GEMST_FN(gemst_fof_dist2)(&dv.g, qr->q, p) <= dv.g.t) {
            if (GEMST_FN(fof_find)(dv.parent, p) != qr->root) {
                GEMST_FN(fof_union)(dv.parent, qr->i, p);
                qr->root = GEMST_FN(fof_find)(dv.parent, qr->i);
            }
            if (tight)
                return; /* one friend there joins its whole tree */
        }
}

/* The leaves of split top cell `top` (low corner lo in the query's image
 * of the box) within reach of q: per axis the sub-cells from reach below
 * q to reach above it, less those whose gaps to q (fof_grid.h) add up to
 * more than the linking length. */
static __device__ void GEMST_FN(fof_scan_split)(const fof_dev &dv, fof_query *qr, uint32_t top, const gemst_real lo[3])
{
    const gemst_fof_grid *g = &dv.g;
    const int32_t m = g->split[top];
    const int32_t mm[3] = {m, m, g->dim == 3 ? m : 1};
    const gemst_real inv_m = (gemst_real)(1.0 / (double)m);
    int32_t from[3] = {0, 0, 0}, to[3] = {0, 0, 0};
    gemst_real rel[3] = {0, 0, 0}, side[3] = {0, 0, 0};
    for (int d = 0; d < g->dim; d++) {
        rel[d] = GEMST_SUB(qr->q[d], lo[d]);
        side[d] = GEMST_MUL(g->L[d], inv_m);
        from[d] = GEMST_FN(gemst_fof_sub_slot)(g, d, GEMST_SUB(rel[d], dv.reach), m);
        to[d] = GEMST_FN(gemst_fof_sub_slot)(g, d, GEMST_ADD(rel[d], dv.reach), m);
    }
    const int tight = dv.tight[top];
    int32_t s[3];
    for (s[2] = from[2]; s[2] <= to[2]; s[2]++) {
        const gemst_real gz = g->dim == 3 ? GEMST_FN(gemst_fof_sub_gap2)(g, rel[2], s[2], side[2]) : (gemst_real)0;
        for (s[1] = from[1]; s[1] <= to[1] && gz <= g->t; s[1]++) {
            const gemst_real gy = GEMST_ADD(gz, GEMST_FN(gemst_fof_sub_gap2)(g, rel[1], s[1], side[1]));
            for (s[0] = from[0]; s[0] <= to[0] && gy <= g->t; s[0]++)
                if (GEMST_ADD(gy, GEMST_FN(gemst_fof_sub_gap2)(g, rel[0], s[0], side[0])) <= g->t)
                    GEMST_FN(fof_scan_leaf)(dv, qr, g->leaf_of[top] + gemst_fof_cell_index(mm, s), tight);
        }
    }
}

/* Each point joins the trees of its friends in the leaves within reach:
 * the top cells around its own (fof_grid.h's choice, by their gaps), and
 * in a split one the sub-cells within reach. */
static __global__ void GEMST_FN(k_fof_link)(fof_dev dv, uint32_t n)
{
    GEMST_INDEX(i, n);
    const gemst_fof_grid *g = &dv.g;
    fof_query qr = {i, dv.leaf[i], GEMST_FN(fof_find)(dv.parent, i),
                    {g->x[i], g->y[i], g->dim == 3 ? g->z[i] : (gemst_real)0}};
    const gemst_real *q = qr.q;
    int32_t c[3], cell[3][3] = {{0}};
    gemst_real shift[3][3] = {{0}}, gap2[3][3] = {{0}};
    int count[3] = {1, 1, 1};
    GEMST_FN(gemst_fof_top_cell)(g, q, c);
    for (int d = 0; d < g->dim; d++)
        count[d] = GEMST_FN(gemst_fof_axis_cells)(g, q, c[d], d, g->t, cell[d], shift[d], gap2[d]);
    const int around = count[0] * count[1] * count[2];
    for (int j = 0; j < around; j++) {
        const int k[3] = {j % count[0], (j / count[0]) % count[1], j / (count[0] * count[1])};
        int32_t cn[3] = {0, 0, 0};
        gemst_real lb2 = 0, lo[3] = {0, 0, 0};
        for (int d = 0; d < g->dim; d++) {
            cn[d] = cell[d][k[d]];
            lb2 = GEMST_ADD(lb2, gap2[d][k[d]]);
            lo[d] = GEMST_SUB(GEMST_MUL((gemst_real)cn[d], g->L[d]), shift[d][k[d]]);
        }
        if (lb2 > g->t)
            continue;
        const uint32_t top = gemst_fof_cell_index(g->nc, cn);
        if (g->leaf_of[top + 1] - g->leaf_of[top] > 1)
            GEMST_FN(fof_scan_split)(dv, &qr, top, lo);
        else
            GEMST_FN(fof_scan_leaf)(dv, &qr, g->leaf_of[top], 0);
    }
}

/* Every point's parent made its root, once no union runs any more.  The
 * walk up only reads (a halving write could land after a thread made
 * that parent its root, and undo it); each thread writes its own entry,
 * which others read as before or as its root, both ancestors. */
static __global__ void GEMST_FN(k_fof_flatten)(uint32_t *parent, uint32_t n)
{
    GEMST_INDEX(i, n);
    volatile uint32_t *p = parent;
    uint32_t r = i;
    while (p[r] != r)
        r = p[r];
    p[i] = r;
}

/* ---------------------------------------------------------------- labels */

/* Per root: its tree's smallest caller id and its size. */
static __global__ void GEMST_FN(k_fof_groups)(const uint32_t *root, const uint32_t *oid, uint32_t n, uint32_t *first,
                                              uint32_t *size)
{
    GEMST_INDEX(i, n);
    atomicMin(&first[root[i]], oid[i]);
    atomicAdd(&size[root[i]], 1u);
}

/* numbered[id] = 1 where caller id `id` is the smallest of a group that
 * gets a number (min_size points or more). */
static __global__ void GEMST_FN(k_fof_numbered)(const uint32_t *root, const uint32_t *first, const uint32_t *size,
                                                uint32_t n, int64_t min_size, uint32_t *numbered)
{
    GEMST_INDEX(i, n);
    if (root[i] == i && (int64_t)size[i] >= min_size)
        numbered[first[i]] = 1;
}

/* Each caller point's label: its group's number (the numbered groups of
 * smaller first ids before it), or -1. */
static __global__ void GEMST_FN(k_fof_labels)(const uint32_t *root, const uint32_t *oid, const uint32_t *first,
                                              const uint32_t *size, const uint32_t *number, uint32_t n,
                                              int64_t min_size, int64_t *labels)
{
    GEMST_INDEX(i, n);
    const uint32_t r = root[i];
    labels[oid[i]] = (int64_t)size[r] >= min_size ? (int64_t)number[first[r]] : -1;
}

/* ---------------------------------------------------------------- host */

/* The fewest sub-cells per axis that make a top cell's sub-cells tight:
 * per axis a sub-cell's side, widened by a relative 2^-20 and 16 units in
 * the last place of 1 (working coordinates lie below 1) for the rounding
 * of the points' sub-cells, squared and summed, stays below t less
 * 2^-10 of it, so that no rounding of a squared distance reaches t.  0 when
 * none up to GEMST_FOF_MAX_SPLIT is. */
static int GEMST_FN(fof_tight_split)(const gemst_fof_plan *plan)
{
    const double ulp = GEMST_REAL_IS_DOUBLE ? 0x1p-52 : 0x1p-23, limit = plan->t * (1.0 - 0x1p-10);
    for (int m = 2; m <= GEMST_FOF_MAX_SPLIT; m++) {
        double diag2 = 0.0;
        for (int d = 0; d < plan->dim; d++) {
            const double side = plan->L[d] / m * (1.0 + 0x1p-20) + 32.0 * ulp;
            diag2 += side * side;
        }
        if (diag2 <= limit)
            return m;
    }
    return 0;
}

/* Frame, linking length and plan, as the CPU backend makes them
 * (cpu_fof.inc), and the split rule. */
template <typename T>
static int GEMST_FN(fof_plan)(fof_gpu *c, const T *coords, gridemst_error *err)
{
    const gemst_fof_problem *fp = c->fp;
    const gemst_problem *pb = &fp->pb;
    fof_dev *dv = &c->dv;
    gemst_fof_grid *g = &dv->g;
    double lo[3], hi[3];
    GEMST_TRY(GEMST_FN(gemst_cuda_bbox)<T>(&c->mem, c->s, coords, pb->n, pb->dim, lo, hi, err));
    GEMST_TRY(fp->box ? gemst_fof_box_frame(pb->dim, fp->box, &dv->f, err)
                      : gemst_frame_make(pb->dim, lo, hi, 0, &dv->f, err));
    double box_w[3] = {0, 0, 0};
    g->dim = pb->dim;
    g->periodic = dv->periodic = fp->box != NULL;
    for (int d = 0; g->periodic && d < pb->dim; d++) {
        dv->box[d] = fp->box[d];
        g->box[d] = (gemst_real)(fp->box[d] * dv->f.scale);
        box_w[d] = (double)g->box[d];
    }
    const double t = gemst_fof_threshold2(fp->linking_length, dv->f.scale, GEMST_REAL_IS_DOUBLE);
    gemst_fof_plan_make(&dv->f, pb->n, t, g->periodic ? box_w : NULL, GEMST_REAL_IS_DOUBLE, pb->opt.tuning.cell_occupancy,
                        &c->plan);
    for (int d = 0; d < 3; d++) {
        g->nc[d] = c->plan.nc[d];
        g->L[d] = (gemst_real)c->plan.L[d];
        g->inv_L[d] = (gemst_real)(1.0 / (double)g->L[d]);
    }
    g->t = (gemst_real)t;
    g->slack = (gemst_real)(16.0 * (GEMST_REAL_IS_DOUBLE ? 0x1p-52 : 0x1p-23));
    dv->reach = (gemst_real)(c->plan.min_side * (1.0 + 0x1p-10));
    if (c->plan.cells >= (uint64_t)UINT32_MAX)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "grid of %llu cells exceeds 32-bit cell indices",
                          (unsigned long long)c->plan.cells);
    c->rule.can_split = 1;
    for (int d = 0; d < pb->dim; d++)
        c->rule.can_split &= !(g->periodic && g->nc[d] <= 2);
    c->rule.m_tight = GEMST_FN(fof_tight_split)(&c->plan);
    c->rule.tight_leaves = pow((double)c->rule.m_tight, pb->dim);
    c->rule.occupancy = c->plan.occupancy;
    c->rule.dim = pb->dim;
    return GRIDEMST_OK;
}

/* The top cells, their splits and leaf numbers (leaf_of), and each caller
 * point's leaf in key. */
template <typename T>
static int GEMST_FN(fof_leaves)(fof_gpu *c, const T *coords, uint32_t *key, uint32_t *val, gridemst_error *err)
{
    fof_dev *dv = &c->dv;
    const uint32_t n = c->n, cells = (uint32_t)c->plan.cells;
    uint32_t *leaf_of;
    uint8_t *split, *tight;
    unsigned long long *extra, extra_h = 0;
    GEMST_DALLOC(&c->mem, leaf_of, (size_t)cells + 1, "the cell table");
    GEMST_DALLOC(&c->mem, split, cells, "the cell table");
    GEMST_DALLOC(&c->mem, tight, cells, "the cell table");
    GEMST_DALLOC(&c->mem, extra, 1, "the cell table");
    GEMST_CU(cudaMemsetAsync(leaf_of, 0, sizeof *leaf_of * ((size_t)cells + 1), c->s));
    GEMST_CU(cudaMemsetAsync(extra, 0, sizeof *extra, c->s));
    GEMST_FN(k_fof_top)<T><<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(*dv, coords, n, key, leaf_of);
    GEMST_LAUNCHED();
    GEMST_FN(k_fof_split)<<<gemst_blocks(cells), GEMST_THREADS, 0, c->s>>>(c->rule, cells, leaf_of, split, tight,
                                                                           extra);
    GEMST_LAUNCHED();
    GEMST_CU(cudaMemcpyAsync(&extra_h, extra, sizeof extra_h, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    if ((uint64_t)cells + extra_h >= UINT32_MAX)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "grid of more than 2^32 leaf cells");
    c->leaves = (uint32_t)(cells + extra_h);
    GEMST_FOF_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, leaf_of, leaf_of, cells + 1, c->s));
    dv->g.leaf_of = leaf_of;
    dv->g.split = split;
    dv->tight = tight;
    GEMST_FN(k_fof_leaf_keys)<T><<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(*dv, coords, n, key, val);
    GEMST_LAUNCHED();
    return GRIDEMST_OK;
}

/*
 * The grid in leaf order: the caller's points sorted by leaf, their
 * working coordinates, the leaf table (leaf_start[k]: the first point of
 * a leaf >= k), and the union-find's first parents.
 */
template <typename T>
static int GEMST_FN(fof_build)(fof_gpu *c, const T *coords, gridemst_error *err)
{
    fof_dev *dv = &c->dv;
    const uint32_t n = c->n;
    uint32_t *key, *val, *leaf, *oid, *leaf_start;
    GEMST_TRY(GEMST_FN(fof_plan)<T>(c, coords, err));
    GEMST_DALLOC(&c->mem, key, n, "the sort by cell");
    GEMST_DALLOC(&c->mem, val, n, "the sort by cell");
    GEMST_TRY(GEMST_FN(fof_leaves)<T>(c, coords, key, val, err));
    GEMST_DALLOC(&c->mem, leaf, n, "the sort by cell");
    GEMST_DALLOC(&c->mem, oid, n, "the sort by cell");
    int end_bit = 1;
    while (end_bit < 32 && (c->leaves - 1) >> end_bit)
        end_bit++;
    GEMST_FOF_CUB(c, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, key, leaf, val, oid, n, 0, end_bit, c->s));
    gemst_dfree(&c->mem, key);
    gemst_dfree(&c->mem, val);
    GEMST_DALLOC(&c->mem, leaf_start, (size_t)c->leaves + 1, "the leaf table");
    GEMST_CU(cudaMemsetAsync(leaf_start, 0, sizeof *leaf_start * ((size_t)c->leaves + 1), c->s));
    GEMST_FN(k_cell_ends)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(leaf, n, leaf_start);
    GEMST_LAUNCHED();
    GEMST_FOF_CUB(c, cub::DeviceScan::InclusiveScan(temp, temp_bytes, leaf_start + 1, leaf_start + 1,
                                                    cuda::maximum<uint32_t>{}, c->leaves, c->s));
    gemst_real *axis[3] = {NULL, NULL, NULL};
    for (int d = 0; d < dv->g.dim; d++)
        GEMST_DALLOC(&c->mem, axis[d], n, "working coordinates");
    GEMST_DALLOC(&c->mem, dv->parent, n, "the union-find");
    dv->g.n = n;
    dv->g.leaf_start = leaf_start;
    dv->g.oid = oid;
    dv->leaf = leaf;
    GEMST_FN(k_fof_gather)<T><<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(*dv, coords, n, axis[0], axis[1],
                                                                           axis[2]);
    GEMST_LAUNCHED();
    dv->g.x = axis[0];
    dv->g.y = axis[1];
    dv->g.z = axis[2];
    return GRIDEMST_OK;
}

/* Labels from the roots (parent after k_fof_flatten), into `labels` on the
 * device (NULL: the count alone); the number of groups into *n_groups. */
static int GEMST_FN(fof_label)(fof_gpu *c, int64_t *labels, int64_t *n_groups, gridemst_error *err)
{
    const uint32_t n = c->n;
    const int64_t min_size = c->min_size;
    uint32_t *first, *size, *number;
    GEMST_DALLOC(&c->mem, first, n, "group labels");
    GEMST_DALLOC(&c->mem, size, n, "group labels");
    GEMST_DALLOC(&c->mem, number, (size_t)n + 1, "group labels");
    GEMST_CU(cudaMemsetAsync(first, 0xff, sizeof *first * n, c->s));
    GEMST_CU(cudaMemsetAsync(size, 0, sizeof *size * n, c->s));
    GEMST_CU(cudaMemsetAsync(number, 0, sizeof *number * ((size_t)n + 1), c->s));
    GEMST_FN(k_fof_groups)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(c->dv.parent, c->dv.g.oid, n, first, size);
    GEMST_LAUNCHED();
    GEMST_FN(k_fof_numbered)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(c->dv.parent, first, size, n, min_size,
                                                                          number);
    GEMST_LAUNCHED();
    GEMST_FOF_CUB(c, cub::DeviceScan::ExclusiveSum(temp, temp_bytes, number, number, n + 1, c->s));
    if (labels) {
        GEMST_FN(k_fof_labels)<<<gemst_blocks(n), GEMST_THREADS, 0, c->s>>>(c->dv.parent, c->dv.g.oid, first, size,
                                                                            number, n, min_size, labels);
        GEMST_LAUNCHED();
    }
    uint32_t groups = 0;
    GEMST_CU(cudaMemcpyAsync(&groups, number + n, sizeof groups, cudaMemcpyDeviceToHost, c->s));
    GEMST_CU(cudaStreamSynchronize(c->s));
    if (n_groups)
        *n_groups = groups;
    return GRIDEMST_OK;
}

/* Fails unless labels is device or managed memory of `device`. */
static int GEMST_FN(fof_check_labels)(const int64_t *labels, int device, gridemst_error *err)
{
    cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, labels);
    if (e != cudaSuccess)
        (void)cudaGetLastError();
    if (e != cudaSuccess || (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged) ||
        (a.type == cudaMemoryTypeDevice && a.device != device))
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                          "labels must be memory of CUDA device %d with a device result", device);
    return GRIDEMST_OK;
}

static int GEMST_FN(fof_run)(fof_gpu *c, int64_t *labels, int64_t *n_groups, gridemst_error *err)
{
    const gemst_problem *pb = &c->fp->pb;
    const int on_device_labels = pb->opt.result == GRIDEMST_RESULT_DEVICE;
    c->n = (uint32_t)pb->n;
    if (labels && on_device_labels)
        GEMST_TRY(GEMST_FN(fof_check_labels)(labels, pb->opt.device, err));
    const size_t in_bytes = (size_t)pb->n * pb->dim * (pb->dtype == GRIDEMST_FLOAT32 ? 4 : 8);
    const void *coords = pb->coords;
    void *uploaded = NULL;
    if (!pb->on_device) {
        GEMST_TRY(gemst_dalloc(&c->mem, &uploaded, in_bytes, "the input points", err));
        GEMST_CU(cudaMemcpyAsync(uploaded, pb->coords, in_bytes, cudaMemcpyHostToDevice, c->s));
        coords = uploaded;
    }
    if (pb->dtype == GRIDEMST_FLOAT32)
        GEMST_TRY(GEMST_FN(fof_build)<float>(c, (const float *)coords, err));
    else
        GEMST_TRY(GEMST_FN(fof_build)<double>(c, (const double *)coords, err));
    gemst_dfree(&c->mem, uploaded);
    if (pb->opt.progress)
        pb->opt.progress(pb->opt.progress_ctx, "grid", 0, c->n);
    GEMST_FN(k_fof_link)<<<gemst_blocks(c->n), GEMST_THREADS, 0, c->s>>>(c->dv, c->n);
    GEMST_LAUNCHED();
    GEMST_FN(k_fof_flatten)<<<gemst_blocks(c->n), GEMST_THREADS, 0, c->s>>>(c->dv.parent, c->n);
    GEMST_LAUNCHED();
    int64_t *d_labels = on_device_labels ? labels : NULL;
    if (labels && !on_device_labels)
        GEMST_DALLOC(&c->mem, d_labels, c->n, "the labels");
    GEMST_TRY(GEMST_FN(fof_label)(c, d_labels, n_groups, err));
    if (labels && !on_device_labels) {
        GEMST_CU(cudaMemcpyAsync(labels, d_labels, sizeof *labels * c->n, cudaMemcpyDeviceToHost, c->s));
        GEMST_CU(cudaStreamSynchronize(c->s));
    }
    return GRIDEMST_OK;
}

/* Friends-of-friends on the problem's context (fp->pb.ctx): labels into
 * host memory, or device memory with a device result; the device's work
 * is done when it returns. */
extern "C" int GEMST_FN(gemst_cuda_fof)(const gemst_fof_problem *fp, int64_t min_size, int64_t *labels,
                                       int64_t *n_groups, gridemst_error *err)
{
    gridemst_context *ctx = fp->pb.ctx;
    int previous = 0;
    GEMST_CU(cudaGetDevice(&previous));
    /* from here on every return goes through the cudaSetDevice(previous) below */
    GEMST_CU(cudaSetDevice(ctx->device));
    fof_gpu c;
    memset(&c, 0, sizeof c);
    c.fp = fp;
    c.min_size = min_size;
    c.s = (cudaStream_t)ctx->stream;
    gemst_dmem_init(&c.mem, (cudaMemPool_t)ctx->pool, c.s);
    int rc = GEMST_FN(fof_run)(&c, labels, n_groups, err);
    cudaStreamSynchronize(c.s);
    gemst_dfree_all(&c.mem);
    cudaSetDevice(previous);
    return rc;
}
