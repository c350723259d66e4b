/*
 * Friends-of-friends: the grid and the per-point search, written once for
 * the CPU loops and (later) the CUDA kernels (precision-generic; see
 * real.h).
 *
 * Two points are friends when their squared distance, computed in the
 * working precision, is at most t (gemst_fof_threshold2: the linking
 * length, squared, in working units).  The grid's top cells are no
 * narrower than the linking length (fof_plan.h), so a point's friends lie
 * in its own cell and the 3^dim cells around it.  A top cell holding many
 * points (a cluster) is split into m^dim sub-cells, also no narrower than
 * the linking length, so that a search there scans the few sub-cells near
 * the query rather than the whole cell.  Every cell or sub-cell that is
 * not split is a leaf: the points are sorted by leaf, and leaf_start gives
 * each leaf's range.
 *
 * With a periodic box, coordinates lie in [0, box) and distances are
 * minimum-image distances; the top cells tile the box exactly and wrap.
 *
 * Cell faces are compared with an absolute slack of a few units in the
 * last place of the coordinates, so that rounding never prunes a cell
 * that holds a friend.
 */
#ifndef GEMST_FOF_GRID_H
#define GEMST_FOF_GRID_H

#include "graph/edge_order.h"
#include "grid/grid_plan.h"

/* Leaves of more points than this hold them sorted by x (then caller
 * id), and a search sweeps them from the query's x outwards until the gap
 * along x alone exceeds its bound: in a cluster much denser than the
 * linking length it reads the points near the query, not the whole leaf. */
#define GEMST_FOF_SWEEP 8

#define gemst_fof_grid GEMST_FN(gemst_fof_grid)
typedef struct {
    int dim;
    int periodic;
    gemst_real box[3];          /* periodic: the box's side per axis (working units) */
    gemst_real L[3], inv_L[3];  /* top cell side per axis, and its inverse */
    int32_t nc[3];              /* top cells per axis (nc[2] = 1 in 2D) */
    gemst_real slack;           /* margin on cell gaps for rounding */
    gemst_real t;               /* friends: squared distance <= t */
    int sweep;                  /* leaves of more than GEMST_FOF_SWEEP points are sorted by x (not along
                                   a periodic x axis of one or two cells, where a leaf's points lie in
                                   either image of the box) */
    uint32_t n;                 /* points in the grid */
    const uint8_t *split;       /* per top cell: sub-cells per axis (1: the cell is a leaf) */
    const uint32_t *leaf_of;    /* per top cell: its first leaf; cells + 1 entries */
    const uint32_t *leaf_start; /* per leaf: its first point; leaves + 1 entries */
    const gemst_real *x, *y, *z; /* z is NULL in 2D */
    const uint32_t *oid;        /* caller's id of each point */
} gemst_fof_grid;

/* Nearest points a search keeps at most: the first search keeps each
 * point's GEMST_FOF_K nearest friends, of which later iterations take the
 * first in another component without searching again (in a cluster much
 * denser than the linking length, that is most of them). */
#define GEMST_FOF_K 4

/* The k nearest points (edge order) a search has found, and the edge a
 * point must beat to join them: the k-th when there are k, else the
 * search's bound with no endpoints (beaten by any point within it). */
#define gemst_fof_near GEMST_FN(gemst_fof_near)
typedef struct {
    int k, n;
    gemst_edge_key bound;
    gemst_edge_key e[GEMST_FOF_K];
    uint32_t to[GEMST_FOF_K];
} gemst_fof_near;

static inline GEMST_HD void GEMST_FN(gemst_fof_near_init)(gemst_fof_near *nr, int k, gemst_real cut)
{
    nr->k = k;
    nr->n = 0;
    nr->bound = gemst_edge_make(cut, UINT32_MAX, UINT32_MAX);
}

/* Adds grid point p by its edge e, which beats nr->bound. */
static inline GEMST_HD void GEMST_FN(gemst_fof_near_add)(gemst_fof_near *nr, gemst_edge_key e, uint32_t p)
{
    int i = nr->n < nr->k ? nr->n++ : nr->k - 1;
    for (; i > 0 && gemst_edge_less(e, nr->e[i - 1]); i--) {
        nr->e[i] = nr->e[i - 1];
        nr->to[i] = nr->to[i - 1];
    }
    nr->e[i] = e;
    nr->to[i] = p;
    if (nr->n == nr->k)
        nr->bound = nr->e[nr->k - 1];
}

/* The displacement from a to b along one axis: b - a, or with a periodic
 * box its minimum image, |b - a| or box - |b - a|, whichever is shorter. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_fof_axis)(gemst_real a, gemst_real b, gemst_real box, int periodic)
{
    gemst_real d = GEMST_SUB(b, a);
    if (!periodic)
        return d;
    d = d < (gemst_real)0 ? -d : d;
    const gemst_real w = GEMST_SUB(box, d);
    return w < d ? w : d;
}

/* Squared distance from q to grid point p; without a box the same
 * formula, rounding for rounding, as the EMST solver's (nns/ring.h). */
static inline GEMST_HD gemst_real GEMST_FN(gemst_fof_dist2)(const gemst_fof_grid *g, const gemst_real q[3], uint32_t p)
{
    const gemst_real dx = GEMST_FN(gemst_fof_axis)(q[0], g->x[p], g->box[0], g->periodic);
    const gemst_real dy = GEMST_FN(gemst_fof_axis)(q[1], g->y[p], g->box[1], g->periodic);
    gemst_real s = GEMST_ADD(GEMST_MUL(dx, dx), GEMST_MUL(dy, dy));
    if (g->dim == 3) {
        const gemst_real dz = GEMST_FN(gemst_fof_axis)(q[2], g->z[p], g->box[2], g->periodic);
        s = GEMST_ADD(s, GEMST_MUL(dz, dz));
    }
    return s;
}

/* v - box * floor(v / box), each operation rounded alone on either
 * backend (no fused multiply-add on the device). */
#ifdef __CUDA_ARCH__
#define GEMST_FOF_WRAP(v, box) __dsub_rn((v), __dmul_rn((box), floor((v) / (box))))
#else
#define GEMST_FOF_WRAP(v, box) ((v) - (box) * floor((v) / (box)))
#endif

/* Caller coordinate v along axis d in working units: translated and
 * scaled as the EMST solver does (frame f), or with a periodic box
 * (box: its sides in caller units; box_w: along d in working units)
 * wrapped into [0, box) first, and once more should rounding reach the
 * box's side. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_fof_working)(const gemst_frame *f, const double *box,
                                                            gemst_real box_w, double v, int d)
{
    if (!box)
        return (gemst_real)gemst_frame_working(f, v, d);
    if (!(v >= 0.0 && v < box[d]))
        v = GEMST_FOF_WRAP(v, box[d]);
    const gemst_real w = (gemst_real)(v * f->scale);
    return w >= box_w ? GEMST_SUB(w, box_w) : w;
}

/* Index in [0, count) of the slot of side 1/inv holding v (v relative to
 * the first slot's low face), clamped. */
static inline GEMST_HD int32_t GEMST_FN(gemst_fof_slot)(gemst_real v, gemst_real inv, int32_t count)
{
    const gemst_real s = GEMST_MUL(v, inv);
    return !(s > (gemst_real)0) ? 0 : s >= (gemst_real)count ? count - 1 : (int32_t)s;
}

static inline GEMST_HD uint32_t gemst_fof_cell_index(const int32_t nc[3], const int32_t c[3])
{
    return (uint32_t)c[0] + (uint32_t)nc[0] * ((uint32_t)c[1] + (uint32_t)nc[1] * (uint32_t)c[2]);
}

/* The top cell of point q, per axis. */
static inline GEMST_HD void GEMST_FN(gemst_fof_top_cell)(const gemst_fof_grid *g, const gemst_real q[3], int32_t c[3])
{
    for (int d = 0; d < 3; d++)
        c[d] = d < g->dim ? GEMST_FN(gemst_fof_slot)(q[d], g->inv_L[d], g->nc[d]) : 0;
}

/* Sub-cell along axis d of a coordinate v_rel relative to its top cell's
 * low face, in a cell split m ways. */
static inline GEMST_HD int32_t GEMST_FN(gemst_fof_sub_slot)(const gemst_fof_grid *g, int d, gemst_real v_rel, int32_t m)
{
    return GEMST_FN(gemst_fof_slot)(v_rel, GEMST_MUL((gemst_real)m, g->inv_L[d]), m);
}

/* The leaf of point q (in top cell c) within its cell: 0 for a cell that
 * is not split. */
static inline GEMST_HD uint32_t GEMST_FN(gemst_fof_leaf_in_cell)(const gemst_fof_grid *g, const gemst_real q[3],
                                                               const int32_t c[3], int32_t m)
{
    if (m <= 1)
        return 0;
    int32_t s[3] = {0, 0, 0}, mm[3] = {m, m, g->dim == 3 ? m : 1};
    for (int d = 0; d < g->dim; d++)
        s[d] = GEMST_FN(gemst_fof_sub_slot)(g, d, GEMST_SUB(q[d], GEMST_MUL((gemst_real)c[d], g->L[d])), m);
    return gemst_fof_cell_index(mm, s);
}

/* gap minus the slack, never below 0: a lower bound on the distance along
 * an axis to points whose cell face is gap away. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_fof_gap)(const gemst_fof_grid *g, gemst_real gap)
{
    gap = GEMST_SUB(gap, g->slack);
    return gap > (gemst_real)0 ? gap : (gemst_real)0;
}

/* Point p, if in another component than comp_q and nearer than
 * nr->bound. */
static inline GEMST_HD void GEMST_FN(gemst_fof_try)(const gemst_fof_grid *g, const gemst_real q[3], uint32_t q_oid,
                                                  uint32_t comp_q, const uint32_t *comp, uint32_t p,
                                                  gemst_fof_near *nr)
{
    if (comp[p] == comp_q)
        return;
    const gemst_real d2 = GEMST_FN(gemst_fof_dist2)(g, q, p);
    if (d2 > nr->bound.d2)
        return;
    const gemst_edge_key cand = gemst_edge_make(d2, q_oid, g->oid[p]);
    if (gemst_edge_less(cand, nr->bound))
        GEMST_FN(gemst_fof_near_add)(nr, cand, p);
}

/*
 * Leaf [b, e): its points of another component than comp_q that beat
 * nr->bound, into nr; qx is the query's x in the leaf's image of a
 * periodic box.  A leaf whose points are all in comp_q (leaf_comp) is
 * passed over unread.
 */
static inline GEMST_HD void GEMST_FN(gemst_fof_scan_leaf)(const gemst_fof_grid *g, const gemst_real q[3], gemst_real qx,
                                                        uint32_t q_oid, uint32_t comp_q, const uint32_t *comp,
                                                        uint32_t leaf_comp, uint32_t b, uint32_t e,
                                                        gemst_fof_near *nr)
{
    if (leaf_comp == comp_q)
        return;
    if (!g->sweep || e - b <= GEMST_FOF_SWEEP) {
        for (uint32_t p = b; p < e; p++)
            GEMST_FN(gemst_fof_try)(g, q, q_oid, comp_q, comp, p, nr);
        return;
    }
    uint32_t lo = b, hi = e; /* the first point at or past qx */
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (g->x[mid] < qx)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint32_t p = lo; p < e; p++) {
        const gemst_real gap = GEMST_FN(gemst_fof_gap)(g, GEMST_SUB(g->x[p], qx));
        if (GEMST_MUL(gap, gap) > nr->bound.d2)
            break;
        GEMST_FN(gemst_fof_try)(g, q, q_oid, comp_q, comp, p, nr);
    }
    for (uint32_t p = lo; p-- > b;) {
        const gemst_real gap = GEMST_FN(gemst_fof_gap)(g, GEMST_SUB(qx, g->x[p]));
        if (GEMST_MUL(gap, gap) > nr->bound.d2)
            break;
        GEMST_FN(gemst_fof_try)(g, q, q_oid, comp_q, comp, p, nr);
    }
}

/* The squared gap (less the slack) from rel, a query's coordinate
 * relative to a split cell's low face, to the cell's sub-cell t of the
 * given side along that axis: a lower bound on the distance to its points
 * along the axis. */
static inline GEMST_HD gemst_real GEMST_FN(gemst_fof_sub_gap2)(const gemst_fof_grid *g, gemst_real rel, int32_t t,
                                                             gemst_real side)
{
    const gemst_real flo = GEMST_MUL((gemst_real)t, side), fhi = GEMST_MUL((gemst_real)(t + 1), side);
    const gemst_real gap = GEMST_FN(gemst_fof_gap)(
        g, rel < flo ? GEMST_SUB(flo, rel) : rel > fhi ? GEMST_SUB(rel, fhi) : (gemst_real)0);
    return GEMST_MUL(gap, gap);
}

/* The leaves of split top cell `top` (whose low corner is lo, and where
 * the query's x is qx) within nr's bound of the query, scanned: per axis
 * the query's sub-cell and those beside it within the bound. */
static inline GEMST_HD void GEMST_FN(gemst_fof_scan_split)(const gemst_fof_grid *g, const gemst_real q[3], gemst_real qx,
                                                         uint32_t q_oid, uint32_t comp_q, const uint32_t *comp,
                                                         const uint32_t *leaf_comp, uint32_t top,
                                                         const gemst_real lo[3], gemst_fof_near *nr)
{
    const int32_t m = g->split[top];
    const int32_t mm[3] = {m, m, g->dim == 3 ? m : 1};
    const gemst_real inv_m = (gemst_real)(1.0 / (double)m);
    int32_t sub[3][3] = {{0}};
    gemst_real gap2[3][3] = {{0}};
    int count[3] = {1, 1, 1};
    for (int d = 0; d < g->dim; d++) {
        const gemst_real rel = GEMST_SUB(q[d], lo[d]), side = GEMST_MUL(g->L[d], inv_m);
        const int32_t k = GEMST_FN(gemst_fof_sub_slot)(g, d, rel, m);
        int n = 0;
        for (int32_t t = k > 0 ? k - 1 : 0; t <= k + 1 && t < m; t++) {
            const gemst_real gap_2 = GEMST_FN(gemst_fof_sub_gap2)(g, rel, t, side);
            if (gap_2 > nr->bound.d2)
                continue;
            sub[d][n] = t;
            gap2[d][n++] = gap_2;
        }
        count[d] = n;
    }
    int k[3];
    for (k[2] = 0; k[2] < count[2]; k[2]++)
        for (k[1] = 0; k[1] < count[1]; k[1]++)
            for (k[0] = 0; k[0] < count[0]; k[0]++) {
                int32_t s[3] = {0, 0, 0};
                gemst_real lb2 = 0;
                for (int d = 0; d < g->dim; d++) {
                    s[d] = sub[d][k[d]];
                    lb2 = GEMST_ADD(lb2, gap2[d][k[d]]);
                }
                if (lb2 > nr->bound.d2)
                    continue;
                const uint32_t leaf = g->leaf_of[top] + gemst_fof_cell_index(mm, s);
                GEMST_FN(gemst_fof_scan_leaf)(g, q, qx, q_oid, comp_q, comp, leaf_comp[leaf], g->leaf_start[leaf],
                                              g->leaf_start[leaf + 1], nr);
            }
}

/* Along axis d, the top cells within cut of q (whose top cell there is
 * c): their index, the shift of the query's image of the box for them,
 * and their squared gap; returns how many (1 to 3, q's own first). */
static inline GEMST_HD int GEMST_FN(gemst_fof_axis_cells)(const gemst_fof_grid *g, const gemst_real q[3], int32_t c,
                                                        int d, gemst_real cut, int32_t cell[3], gemst_real shift[3],
                                                        gemst_real gap2[3])
{
    const int32_t nc = g->nc[d];
    cell[0] = c;
    shift[0] = gap2[0] = 0;
    if (g->periodic && nc < 3) {
        /* a periodic axis of one or two cells: every cell is a
         * neighbour, and gaps are not measured (cells are then never
         * split, nor leaves swept) */
        cell[1] = 1 - c;
        shift[1] = gap2[1] = 0;
        return nc;
    }
    int m = 1;
    const gemst_real below = GEMST_FN(gemst_fof_gap)(g, GEMST_SUB(q[d], GEMST_MUL((gemst_real)c, g->L[d])));
    const gemst_real above = GEMST_FN(gemst_fof_gap)(g, GEMST_SUB(GEMST_MUL((gemst_real)(c + 1), g->L[d]), q[d]));
    if (GEMST_MUL(below, below) <= cut && (c > 0 || g->periodic)) {
        cell[m] = c > 0 ? c - 1 : nc - 1;
        shift[m] = c > 0 ? (gemst_real)0 : g->box[d];
        gap2[m++] = GEMST_MUL(below, below);
    }
    if (GEMST_MUL(above, above) <= cut && (c < nc - 1 || g->periodic)) {
        cell[m] = c < nc - 1 ? c + 1 : 0;
        shift[m] = c < nc - 1 ? (gemst_real)0 : -g->box[d];
        gap2[m++] = GEMST_MUL(above, above);
    }
    return m;
}

/*
 * The search of friends-of-friends: the nr->k nearest points (edge order)
 * of other components than comp[i] within the bound nr was set up with
 * (the squared linking length, or less when that is all the caller
 * needs), into nr.
 */
static inline GEMST_HD void GEMST_FN(gemst_fof_search)(const gemst_fof_grid *g, const uint32_t *comp,
                                                     const uint32_t *leaf_comp, uint32_t i, gemst_fof_near *nr)
{
    gemst_real q[3] = {g->x[i], g->y[i], g->dim == 3 ? g->z[i] : (gemst_real)0};
    const uint32_t comp_q = comp[i], q_oid = g->oid[i];
    const gemst_real cut = nr->bound.d2;
    int32_t c[3];
    GEMST_FN(gemst_fof_top_cell)(g, q, c);
    /* per axis, the neighbour cells within cut: their index, the shift
     * of the query's image of the box for them, and their squared gap */
    int32_t cell[3][3];
    gemst_real shift[3][3], gap2[3][3];
    int count[3] = {1, 1, 1};
    for (int d = 0; d < g->dim; d++)
        count[d] = GEMST_FN(gemst_fof_axis_cells)(g, q, c[d], d, cut, cell[d], shift[d], gap2[d]);
    int k[3];
    for (k[2] = 0; k[2] < count[2]; k[2]++)
        for (k[1] = 0; k[1] < count[1]; k[1]++)
            for (k[0] = 0; k[0] < count[0]; k[0]++) {
                int32_t cn[3] = {0, 0, 0};
                gemst_real lb2 = 0;
                for (int d = 0; d < g->dim; d++) {
                    cn[d] = cell[d][k[d]];
                    lb2 = GEMST_ADD(lb2, gap2[d][k[d]]);
                }
                if (lb2 > nr->bound.d2)
                    continue;
                const uint32_t top = gemst_fof_cell_index(g->nc, cn), leaf = g->leaf_of[top];
                const gemst_real qx = GEMST_ADD(q[0], shift[0][k[0]]);
                if (g->leaf_of[top + 1] - leaf > 1) { /* split (leaf_of is read anyway, split is not) */
                    gemst_real lo[3] = {0, 0, 0};
                    for (int d = 0; d < g->dim; d++)
                        lo[d] = GEMST_SUB(GEMST_MUL((gemst_real)cn[d], g->L[d]), shift[d][k[d]]);
                    GEMST_FN(gemst_fof_scan_split)(g, q, qx, q_oid, comp_q, comp, leaf_comp, top, lo, nr);
                } else {
                    GEMST_FN(gemst_fof_scan_leaf)(g, q, qx, q_oid, comp_q, comp, leaf_comp[leaf], g->leaf_start[leaf],
                                                  g->leaf_start[leaf + 1], nr);
                }
            }
}

/* The component shared by every point of leaf [b, e), or GEMST_NONE. */
static inline GEMST_HD uint32_t gemst_fof_leaf_component(const uint32_t *comp, uint32_t b, uint32_t e)
{
    if (b == e)
        return GEMST_NONE;
    for (uint32_t p = b + 1; p < e; p++)
        if (comp[p] != comp[b])
            return GEMST_NONE;
    return comp[b];
}

#endif
