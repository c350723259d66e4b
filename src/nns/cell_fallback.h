/*
 * The fallback for a whole cell (precision-generic, see real.h).
 *
 * Once clusters have merged into few large components, a component's
 * shortest outgoing edge is long, and every one of its points whose search
 * bound falls short of it must search again (findmin1.h): on clustered
 * inputs nearly every point, each through a wide, mostly empty or own
 * region.  When all points of a cell lie in one component, one search from
 * the cell's box serves them all: it visits the rings around the cell
 * (ring.h with a box query), passes over its own component's ranges, and
 * for each point of another component within the bound finds the cell's
 * nearest point to it.  The shortest such edge is every point's of the
 * cell at once: nothing of another component lies nearer to any of them.
 */
#ifndef GEMST_CELL_FALLBACK_H
#define GEMST_CELL_FALLBACK_H

#include "nns/findmin1.h"

/* How the fallback treats a listed point (the list is in grid order). */
enum {
    GEMST_TASK_NONE = 0,  /* an earlier listed point of its cell searches for the whole cell */
    GEMST_TASK_POINT = 1, /* it searches for itself */
    GEMST_TASK_CELL = 2   /* it searches for its whole cell */
};

/* The main-grid cell of grid point q: its coordinates, index and points. */
static inline GEMST_HD uint32_t GEMST_FN(gemst_point_cell)(const gemst_grid *g, uint32_t q, int32_t c[3], uint32_t *b,
                                                         uint32_t *e)
{
    gemst_query qq;
    GEMST_FN(gemst_query_make)(g, q, &qq);
    for (int d = 0; d < 3; d++)
        c[d] = qq.c[d];
    uint32_t cell = gemst_cell_index(g->nc, c[0], c[1], c[2]);
    *b = g->cell_start[cell];
    *e = g->cell_start[cell + 1];
    return cell;
}

/*
 * The task of list[a], a point that needs the fallback.  Only with the
 * component breaks (st->breaks), and when its component's cutoff reaches
 * beyond a cell's side (nearer, the cell's points are better served by
 * searches of their own, in parallel): a point of a cell of two or more
 * points, all in its component, gives the cell's search to the first listed
 * point of the cell.
 */
static inline GEMST_HD int GEMST_FN(gemst_fallback_task)(const gemst_grid *g, const gemst_findmin1_state *st,
                                                       const gemst_word1 *w1, const uint64_t *w2,
                                                       const uint32_t *list, uint32_t a)
{
    const uint32_t q = list[a];
    if (!st->breaks || !(GEMST_FN(gemst_root_edge)(w1, w2, st->comp[q]).d2 > GEMST_MUL(g->L, g->L)))
        return GEMST_TASK_POINT;
    int32_t c[3];
    uint32_t b, e;
    GEMST_FN(gemst_point_cell)(g, q, c, &b, &e);
    if (e - b < 2 || !gemst_own_range(st->breaks, st->comp, st->comp[q], b, e))
        return GEMST_TASK_POINT;
    return a == 0 || list[a - 1] < b ? GEMST_TASK_CELL : GEMST_TASK_NONE;
}

/* Scans points [b, e) for the nearest to the query w within cut; returns
 * whether one beat *best. */
static inline GEMST_HD int GEMST_FN(gemst_scan_to)(const gemst_grid *g, const gemst_query *w, uint32_t b, uint32_t e,
                                                 gemst_real cut, gemst_edge_key *best, uint32_t *win)
{
    int found = 0;
    for (uint32_t p = b; p < e; p++) {
        gemst_real d2 = GEMST_FN(gemst_dist2_q)(g, w, p);
        if (d2 > cut)
            continue;
        gemst_edge_key cand = gemst_edge_make(d2, g->oid[p], w->oid);
        if (gemst_edge_less(cand, *best)) {
            *best = cand;
            *win = p;
            cut = d2;
            found = 1;
        }
    }
    return found;
}

/* The point of cell `cell` (points [b, e)) nearest to grid point w, when
 * within cut and their edge beats *best: updates *best and *win and returns
 * 1.  A crowded cell is searched through its own grid, ring by ring around
 * w's nearest cell. */
static inline GEMST_HD int GEMST_FN(gemst_nearest_in_cell)(const gemst_grid *g, uint32_t cell, uint32_t b, uint32_t e,
                                                         uint32_t w, gemst_real cut, gemst_edge_key *best,
                                                         uint32_t *win)
{
    gemst_query qw;
    GEMST_FN(gemst_query_point)(g, w, &qw);
    if (g->n_sub == 0 || e - b <= GEMST_CROWDED)
        return GEMST_FN(gemst_scan_to)(g, &qw, b, e, cut, best, win);
    int found = 0;
    gemst_cells sc;
    int32_t c[3];
    GEMST_FN(gemst_sub_cells)(g, gemst_crowded_index(g->crowd, cell), &sc);
    GEMST_FN(gemst_cell_coords)(&sc, qw.q, c);
    for (int r = 0;; r++) {
        gemst_ring it;
        uint32_t sb, se;
        GEMST_FN(gemst_ring_begin)(&sc, c, r, &it);
        while (GEMST_FN(gemst_ring_next)(&sc, qw.q, qw.q, &it, cut, &sb, &se))
            if (GEMST_FN(gemst_scan_to)(g, &qw, sb, se, cut, best, win)) {
                cut = best->d2;
                found = 1;
            }
        gemst_real lb2 = GEMST_FN(gemst_ring_outer_lb2)(&sc, qw.q, qw.q, c, r);
        if (lb2 == GEMST_REAL_INF || lb2 > cut)
            return found;
    }
}

/* The cell search's work on range [rb, re) of the rings around the cell c
 * (box [lo, hi], points [b, e)): each point of another component than
 * comp_q that may lie within the bound, against the cell's points. */
static inline GEMST_HD void GEMST_FN(gemst_cell_scan)(const gemst_grid *g, const gemst_findmin1_state *st,
                                                    const gemst_cells *top, const int32_t c[3], uint32_t cell,
                                                    uint32_t b, uint32_t e, uint32_t comp_q, uint32_t rb, uint32_t re,
                                                    gemst_real cut, gemst_edge_key *best, uint32_t *win, uint32_t *to)
{
    if (gemst_own_range(st->breaks, st->comp, comp_q, rb, re))
        return;
    for (uint32_t w = rb; w < re; w++) {
        if (st->comp[w] == comp_q) {
            w = gemst_own_run_end(st->breaks, w, re) - 1;
            continue;
        }
        gemst_query qw;
        gemst_real gap2 = 0;
        GEMST_FN(gemst_query_point)(g, w, &qw);
        for (int d = 0; d < g->dim; d++) {
            gemst_real gap = GEMST_FN(gemst_axis_gap)(top, d, qw.q[d], qw.q[d], c[d]);
            gap2 = GEMST_ADD(gap2, GEMST_MUL(gap, gap));
        }
        if (GEMST_MUL(gap2, GEMST_LB_SHRINK) <= cut &&
            GEMST_FN(gemst_nearest_in_cell)(g, cell, b, e, w, cut, best, win)) {
            *to = w;
            cut = best->d2;
        }
    }
}

/*
 * The fallback for the cell of list point q, whose points [b, e) all lie in
 * q's component: the shortest edge (edge order) from a point of the cell to
 * another component's point, when it beats the component's first-pass edge
 * (gemst_first_edge).  It goes to the cell's point that has it (best_d2/best_to),
 * which is returned (GEMST_NONE when nothing beats the cutoff).  The search
 * visits rings around the cell, then row shells (ring.h), with the cell's
 * box as query.
 *
 * The searches of one component share their bound: each edge found lowers
 * the component's word w1 at once (an atomic minimum; FindMin2's refinement
 * then recomputes the component's minimum from the points that improved),
 * and each search reads it again at every ring or shell, so that it stops
 * at the component's shortest edge found anywhere rather than at its own
 * nearest other component.  The length only prunes: an edge is taken when
 * it beats the first-pass edge, so that one of equal length to the shared
 * bound but of smaller endpoint ids still reaches the refinement.  With static pruning every point of the cell
 * raises its bound to the final cut: nothing of another component lies
 * nearer (as gemst_fallback_point does for one point).
 */
static inline GEMST_HD uint32_t GEMST_FN(gemst_cell_fallback)(const gemst_grid *g, const gemst_findmin1_state *st,
                                                            gemst_word1 *w1, const uint32_t *win_in,
                                                            const uint32_t *win_out, uint32_t q)
{
    int32_t c[3];
    uint32_t b, e, rb, re;
    const uint32_t cell = GEMST_FN(gemst_point_cell)(g, q, c, &b, &e);
    const uint32_t comp_q = st->comp[q];
    gemst_edge_key best = GEMST_FN(gemst_first_edge)(g, win_in, win_out, comp_q);
    gemst_cells top;
    gemst_real lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    GEMST_FN(gemst_top_cells)(g, &top);
    for (int d = 0; d < g->dim; d++) {
        lo[d] = GEMST_FN(gemst_cell_lo)(&top, d, c[d]);
        hi[d] = GEMST_FN(gemst_cell_lo)(&top, d, c[d] + 1);
    }
    uint32_t win = GEMST_NONE, to = GEMST_NONE;
    gemst_real lb2 = 0, cut = GEMST_FN(gemst_share_bound)(&w1[comp_q], &best, 0);
    int r = 0;
    for (;; r++) {
        gemst_ring it;
        GEMST_FN(gemst_ring_begin)(&top, c, r, &it);
        while (GEMST_FN(gemst_ring_next)(&top, lo, hi, &it, cut, &rb, &re)) {
            GEMST_FN(gemst_cell_scan)(g, st, &top, c, cell, b, e, comp_q, rb, re, cut, &best, &win, &to);
            cut = best.d2 < cut ? best.d2 : cut;
        }
        cut = GEMST_FN(gemst_share_bound)(&w1[comp_q], &best, win != GEMST_NONE);
        lb2 = GEMST_FN(gemst_ring_outer_lb2)(&top, lo, hi, c, r);
        if (lb2 > cut || (r >= GEMST_FAR_RINGS && cut < GEMST_REAL_INF))
            break;
    }
    for (int s = 0; lb2 <= cut; s++) {
        gemst_shell it;
        GEMST_FN(gemst_shell_begin)(&top, c, s, r, &it);
        while (GEMST_FN(gemst_shell_next)(&top, lo, hi, &it, cut, &rb, &re)) {
            GEMST_FN(gemst_cell_scan)(g, st, &top, c, cell, b, e, comp_q, rb, re, cut, &best, &win, &to);
            cut = best.d2 < cut ? best.d2 : cut;
        }
        cut = GEMST_FN(gemst_share_bound)(&w1[comp_q], &best, win != GEMST_NONE);
        if (s >= r)
            lb2 = GEMST_FN(gemst_shell_outer_lb2)(&top, lo, hi, c, s);
    }
    if (st->prune == GRIDEMST_PRUNE_STATIC)
        for (uint32_t p = b; p < e; p++)
            if (cut > st->rb2[p])
                st->rb2[p] = cut;
    if (win == GEMST_NONE)
        return GEMST_NONE;
    st->best_d2[win] = best.d2;
    st->best_to[win] = to;
    return win;
}

/* The fallback of list[a] for its task: the point whose edge improved, or
 * GEMST_NONE. */
static inline GEMST_HD uint32_t GEMST_FN(gemst_fallback_run)(const gemst_grid *g, const gemst_findmin1_state *st,
                                                           gemst_word1 *w1, const uint32_t *win_in,
                                                           const uint32_t *win_out, const uint32_t *list, uint32_t a,
                                                           int task)
{
    if (task == GEMST_TASK_CELL)
        return GEMST_FN(gemst_cell_fallback)(g, st, w1, win_in, win_out, list[a]);
    if (task == GEMST_TASK_POINT && GEMST_FN(gemst_fallback_point)(g, st, w1, win_in, win_out, list[a]))
        return list[a];
    return GEMST_NONE;
}

#endif
