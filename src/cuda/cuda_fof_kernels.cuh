/*
 * The CUDA backend's friends-of-friends kernels, precision-generic
 * (included by cuda_fof.cuh, whose comment gives the steps), over the
 * lock-free union-find of graph/union_find.h: each point's top cell and
 * leaf with the crowded top cells' split, the pairs of friends joined,
 * and the groups' labels.
 * The bounding box and the leaf table are the grid build's kernels
 * (cuda_grid_kernels.cuh).
 */
#ifndef GEMST_CUDA_FOF_KERNELS_CUH
#define GEMST_CUDA_FOF_KERNELS_CUH

#include "cuda/cuda_grid_kernels.cuh"
#include "fof/fof_grid.h"
#include "fof/fof_plan.h"
#include "graph/union_find.h"

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
    if (b >= e || (tight && gemst_uf_find(dv.parent, b) == qr->root))
        return;
    for (uint32_t p = b; p < e; p++)
        if (GEMST_FN(gemst_fof_dist2)(&dv.g, qr->q, p) <= dv.g.t) {
            if (gemst_uf_find(dv.parent, p) != qr->root) {
                gemst_uf_unite(dv.parent, qr->i, p);
                qr->root = gemst_uf_find(dv.parent, qr->i);
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
    fof_query qr = {i, dv.leaf[i], gemst_uf_find(dv.parent, i),
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

#endif
