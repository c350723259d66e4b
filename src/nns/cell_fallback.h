/*
 * The fallback for a group of points of one cell (precision-generic, see
 * real.h).
 *
 * Once clusters have merged into few large components, a component's
 * shortest outgoing edge is long, and every one of its points whose search
 * bound falls short of it must search again (findmin1.h): on clustered
 * inputs nearly every point, each through a wide, mostly empty or own
 * region.  When all points of a cell lie in one component, one search from
 * the box of a chunk of them (up to GEMST_CHUNK consecutive points of the
 * cell) serves the whole chunk: it visits the rings around the cell
 * (ring.h with a box query), passes over its own component's ranges, and
 * for each point of another component within the bound finds the chunk's
 * nearest point to it.  The shortest such edge is every chunk point's at
 * once: nothing of another component lies nearer to any of them.  Chunks,
 * rather than whole cells, keep a crowded cell's search parallel: one search
 * for a cell of 4000 points took 61 ms on a CPU core, seconds on one GPU
 * thread.
 */
#ifndef GEMST_CELL_FALLBACK_H
#define GEMST_CELL_FALLBACK_H

#include "nns/findmin1.h"

#define GEMST_CHUNK 32

/* How the fallback treats a listed point (the list is in grid order). */
enum {
    GEMST_TASK_NONE = 0,  /* an earlier listed point of its chunk searches for the chunk */
    GEMST_TASK_POINT = 1, /* it searches for itself */
    GEMST_TASK_CHUNK = 2  /* it searches for its chunk */
};

/* The chunk [*cb, *ce) of grid point q, whose main-grid cell (coordinates
 * c) holds the points [b, e). */
static inline GEMST_HD void GEMST_FN(gemst_point_chunk)(const gemst_grid *g, uint32_t q, int32_t c[3], uint32_t *b,
                                                      uint32_t *e, uint32_t *cb, uint32_t *ce)
{
    gemst_query qq;
    GEMST_FN(gemst_query_make)(g, q, &qq);
    for (int d = 0; d < 3; d++)
        c[d] = qq.c[d];
    uint32_t cell = gemst_cell_index(g->nc, c[0], c[1], c[2]);
    *b = g->cell_start[cell];
    *e = g->cell_start[cell + 1];
    *cb = *b + (q - *b) / GEMST_CHUNK * GEMST_CHUNK;
    *ce = *e - *cb > GEMST_CHUNK ? *cb + GEMST_CHUNK : *e;
}

/*
 * The task of list[a], a point that needs the fallback.  Only with the
 * component breaks (st->breaks), and when its component's cutoff reaches
 * beyond a cell's side (nearer, the points are better served by searches of
 * their own): a point of a cell of two or more points, all in its
 * component, gives its chunk's search to the first listed point of the
 * chunk.
 */
static inline GEMST_HD int GEMST_FN(gemst_fallback_task)(const gemst_grid *g, const gemst_findmin1_state *st,
                                                       const gemst_word1 *w1, const uint64_t *w2,
                                                       const uint32_t *list, uint32_t a)
{
    const uint32_t q = list[a];
    if (!st->breaks || !(GEMST_FN(gemst_root_edge)(w1, w2, st->comp[q]).d2 > GEMST_MUL(g->L, g->L)))
        return GEMST_TASK_POINT;
    int32_t c[3];
    uint32_t b, e, cb, ce;
    GEMST_FN(gemst_point_chunk)(g, q, c, &b, &e, &cb, &ce);
    if (e - b < 2 || !gemst_own_range(st->breaks, st->comp, st->comp[q], b, e))
        return GEMST_TASK_POINT;
    return a == 0 || list[a - 1] < cb ? GEMST_TASK_CHUNK : GEMST_TASK_NONE;
}

/* The chunk's points [cb, ce) against grid point w within cut: the nearest
 * (edge order), when it beats *best, goes to *best and *win; returns
 * whether one did. */
static inline GEMST_HD int GEMST_FN(gemst_chunk_to)(const gemst_grid *g, uint32_t cb, uint32_t ce, uint32_t w,
                                                  gemst_real cut, gemst_edge_key *best, uint32_t *win)
{
    gemst_query qw;
    int found = 0;
    GEMST_FN(gemst_query_point)(g, w, &qw);
    for (uint32_t p = cb; p < ce; p++) {
        gemst_real d2 = GEMST_FN(gemst_edge_d2_q)(g, &qw, p);
        if (d2 > cut)
            continue;
        gemst_edge_key cand = gemst_edge_make(d2, g->oid[p], qw.oid);
        if (gemst_edge_less(cand, *best)) {
            *best = cand;
            *win = p;
            cut = d2;
            found = 1;
        }
    }
    return found;
}

/* The chunk search's work on range [rb, re) of the rings around the cell
 * (chunk box [lo, hi], points [cb, ce)): each point of another component
 * than comp_q that may lie within the bound, against the chunk's points. */
static inline GEMST_HD void GEMST_FN(gemst_chunk_scan)(const gemst_grid *g, const gemst_findmin1_state *st,
                                                     const gemst_real lo[3], const gemst_real hi[3], uint32_t cb,
                                                     uint32_t ce, uint32_t comp_q, uint32_t rb, uint32_t re,
                                                     gemst_real cut, gemst_edge_key *best, uint32_t *win,
                                                     uint32_t *to)
{
    if (gemst_own_range(st->breaks, st->comp, comp_q, rb, re))
        return;
    for (uint32_t w = rb; w < re; w++) {
        if (st->comp[w] == comp_q) {
            w = gemst_own_run_end(st->breaks, w, re) - 1;
            continue;
        }
        /* the squared distance from w to the chunk's box, below every point's */
        const gemst_real v[3] = {g->x[w], g->y[w], g->dim == 3 ? g->z[w] : (gemst_real)0};
        gemst_real gap2 = 0;
        for (int d = 0; d < g->dim; d++) {
            gemst_real gap = v[d] < lo[d] ? GEMST_SUB(lo[d], v[d]) : v[d] > hi[d] ? GEMST_SUB(v[d], hi[d]) : 0;
            gap2 = GEMST_ADD(gap2, GEMST_MUL(gap, gap));
        }
        if (GEMST_MUL(gap2, GEMST_LB_SHRINK) <= cut && GEMST_FN(gemst_chunk_to)(g, cb, ce, w, cut, best, win)) {
            *to = w;
            cut = best->d2;
        }
    }
}

/*
 * The fallback for the chunk of list point q, whose cell's points all lie
 * in q's component: the shortest edge (edge order) from a point of the
 * chunk to another component's point, when it beats the component's
 * first-pass edge (gemst_first_edge).  It goes to the chunk's point that has
 * it (best_d2/best_to), which is returned (GEMST_NONE when nothing beats the
 * cutoff).  The search visits rings around the cell, then row shells
 * (ring.h), with the chunk's box as query.
 *
 * The searches of one component share their bound: each edge found lowers
 * the component's word w1 at once (an atomic minimum; FindMin2's refinement
 * then recomputes the component's minimum from the points that improved),
 * and each search reads it again at every ring or shell, so that it stops
 * at the component's shortest edge found anywhere rather than at its own
 * nearest other component.  The length only prunes: an edge is taken when
 * it beats the first-pass edge, so that one of equal length to the shared
 * bound but of smaller endpoint ids still reaches the refinement.  With
 * static pruning every point of the chunk raises its bound to the final
 * cut: nothing of another component lies nearer (as gemst_fallback_point
 * does for one point).
 */
static inline GEMST_HD uint32_t GEMST_FN(gemst_chunk_fallback)(const gemst_grid *g, const gemst_findmin1_state *st,
                                                             gemst_word1 *w1, const uint32_t *win_in,
                                                             const uint32_t *win_out, uint32_t q)
{
    int32_t c[3];
    uint32_t b, e, cb, ce, rb, re;
    GEMST_FN(gemst_point_chunk)(g, q, c, &b, &e, &cb, &ce);
    const uint32_t comp_q = st->comp[q];
    gemst_edge_key best = GEMST_FN(gemst_first_edge)(g, win_in, win_out, comp_q);
    gemst_cells top;
    gemst_real lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    const gemst_real *axes[3] = {g->x, g->y, g->z};
    GEMST_FN(gemst_top_cells)(g, &top);
    for (int d = 0; d < g->dim; d++) {
        lo[d] = hi[d] = axes[d][cb];
        for (uint32_t p = cb + 1; p < ce; p++) {
            lo[d] = axes[d][p] < lo[d] ? axes[d][p] : lo[d];
            hi[d] = axes[d][p] > hi[d] ? axes[d][p] : hi[d];
        }
    }
    uint32_t win = GEMST_NONE, to = GEMST_NONE;
    gemst_real lb2 = 0, cut = GEMST_FN(gemst_share_bound)(&w1[comp_q], &best, 0);
    int r = 0;
    for (;; r++) {
        gemst_ring it;
        GEMST_FN(gemst_ring_begin)(&top, c, r, &it);
        while (GEMST_FN(gemst_ring_next)(&top, lo, hi, &it, cut, &rb, &re)) {
            GEMST_FN(gemst_chunk_scan)(g, st, lo, hi, cb, ce, comp_q, rb, re, cut, &best, &win, &to);
            cut = best.d2 < cut ? best.d2 : cut;
        }
        cut = GEMST_FN(gemst_share_bound)(&w1[comp_q], &best, win != GEMST_NONE);
        lb2 = GEMST_FN(gemst_ring_outer_lb2)(&top, lo, hi, c, r);
        if (lb2 == GEMST_REAL_INF || lb2 > cut || (r >= GEMST_FAR_RINGS && cut < GEMST_REAL_INF))
            break;
    }
    for (int s = 0; lb2 != GEMST_REAL_INF && lb2 <= cut; s++) {
        gemst_shell it;
        GEMST_FN(gemst_shell_begin)(&top, c, s, r, &it);
        while (GEMST_FN(gemst_shell_next)(&top, lo, hi, &it, cut, &rb, &re)) {
            GEMST_FN(gemst_chunk_scan)(g, st, lo, hi, cb, ce, comp_q, rb, re, cut, &best, &win, &to);
            cut = best.d2 < cut ? best.d2 : cut;
        }
        cut = GEMST_FN(gemst_share_bound)(&w1[comp_q], &best, win != GEMST_NONE);
        if (s >= r)
            lb2 = GEMST_FN(gemst_shell_outer_lb2)(&top, lo, hi, c, s);
    }
    if (st->prune == GRIDEMST_PRUNE_STATIC)
        for (uint32_t p = cb; p < ce; p++)
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
    if (task == GEMST_TASK_CHUNK)
        return GEMST_FN(gemst_chunk_fallback)(g, st, w1, win_in, win_out, list[a]);
    if (task == GEMST_TASK_POINT && GEMST_FN(gemst_fallback_point)(g, st, w1, win_in, win_out, list[a]))
        return list[a];
    return GEMST_NONE;
}

#endif
