/*
 * The point ranges of one ring (or row shell) of the main grid, as every
 * grid search visits them: ring.h's rows, except that
 *
 *  - a crowded cell (grid.h) is searched through its own grid: ring by ring
 *    around the query's nearest cell there, until the rest of the crowded
 *    cell lies beyond the bound, so that a search scans the few points near
 *    the query instead of the whole cell;
 *  - with an own-component filter (searches for another component's
 *    points), ranges whose points all lie in the query's component are
 *    passed over without reading them: with breaks[i] the number of
 *    component changes between consecutive points up to point i (in grid
 *    order), [b, e) lies in one component when breaks[b] == breaks[e - 1].
 *
 * A range of the main grid holding more than g->crowded points may
 * contain a crowded cell; such a row is split into its cells.
 */
#ifndef GEMST_WALK_H
#define GEMST_WALK_H

#include "nns/ring.h"

/* The filter of searches that skip the query's own component. */
#define gemst_own GEMST_FN(gemst_own)
typedef struct {
    const uint32_t *breaks; /* NULL: no skipping */
    const uint32_t *comp;
    uint32_t comp_q;
} gemst_own;

static inline GEMST_HD int gemst_own_range(const uint32_t *breaks, const uint32_t *comp, uint32_t comp_q,
                                           uint32_t b, uint32_t e)
{
    return breaks && breaks[b] == breaks[e - 1] && comp[b] == comp_q;
}

/* The first point after p, up to e, that may lie in another component than
 * p's (every point before it is in p's): one step where components change
 * often, galloping then bisecting over a long run of one component. */
static inline GEMST_HD uint32_t gemst_own_run_end(const uint32_t *breaks, uint32_t p, uint32_t e)
{
    if (!breaks || p + 1 >= e || breaks[p + 1] != breaks[p])
        return p + 1;
    const uint32_t k = breaks[p];
    uint32_t lo = p + 1, step = 2; /* breaks[lo] == k */
    while (lo + step < e && breaks[lo + step] == k) {
        lo += step;
        step *= 2;
    }
    uint32_t hi = lo + step < e ? lo + step : e; /* breaks[hi] > k, or hi == e */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (breaks[mid] == k)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

#define gemst_walk GEMST_FN(gemst_walk)
typedef struct {
    int shells;            /* walking a row shell, not a ring */
    union {
        gemst_ring ring;   /* the main grid's ring ... */
        gemst_shell shell; /* ... or row shell */
    };
    int32_t x, xb, y, z;   /* cells x..xb of row (y, z) still to visit one by one */
    int32_t sub;           /* the crowded cell being searched (its index), or -1 */
    int s;                 /* its ring */
    gemst_ring sring;      /* around the query's nearest cell in it */
} gemst_walk;

static inline GEMST_HD void GEMST_FN(gemst_walk_begin)(const gemst_grid *g, const gemst_query *qq, int r,
                                                     gemst_walk *w)
{
    gemst_cells top;
    GEMST_FN(gemst_top_cells)(g, &top);
    GEMST_FN(gemst_ring_begin)(&top, qq->c, r, &w->ring);
    w->shells = 0;
    w->x = 0;
    w->xb = -1;
    w->sub = -1;
    w->s = 0;
    w->sring = w->ring; /* unused until a crowded cell is entered */
}

/* The same over row shell s, once rings 0..r0 are done (ring.h). */
static inline GEMST_HD void GEMST_FN(gemst_walk_shell_begin)(const gemst_grid *g, const gemst_query *qq, int s, int r0,
                                                           gemst_walk *w)
{
    gemst_cells top;
    GEMST_FN(gemst_top_cells)(g, &top);
    GEMST_FN(gemst_walk_begin)(g, qq, 0, w);
    GEMST_FN(gemst_shell_begin)(&top, qq->c, s, r0, &w->shell);
    w->shells = 1;
}

/* Starts the search of crowded cell `cell` (index k among them). */
static inline GEMST_HD void GEMST_FN(gemst_walk_enter)(const gemst_grid *g, const gemst_query *qq, uint32_t k,
                                                     gemst_walk *w)
{
    gemst_cells sc;
    int32_t c[3];
    GEMST_FN(gemst_sub_cells)(g, k, &sc);
    GEMST_FN(gemst_cell_coords)(&sc, qq->q, c);
    w->sub = (int32_t)k;
    w->s = 0;
    GEMST_FN(gemst_ring_begin)(&sc, c, 0, &w->sring);
}

/*
 * The next range of ring r (gemst_walk_begin) whose points may lie within
 * squared distance bound2 of the query, in [*begin, *end).  Returns 0 when
 * the ring is done.  bound2 may shrink between calls.
 */
static inline GEMST_HD int GEMST_FN(gemst_walk_next)(const gemst_grid *g, const gemst_query *qq, gemst_walk *w,
                                                   const gemst_own *own, gemst_real bound2, uint32_t *begin,
                                                   uint32_t *end)
{
    for (;;) {
        if (w->sub >= 0) {
            gemst_cells sc;
            GEMST_FN(gemst_sub_cells)(g, (uint32_t)w->sub, &sc);
            if (GEMST_FN(gemst_ring_next)(&sc, qq->q, qq->q, &w->sring, bound2, begin, end)) {
                if (!gemst_own_range(own->breaks, own->comp, own->comp_q, *begin, *end))
                    return 1;
                continue;
            }
            gemst_real lb2 = GEMST_FN(gemst_ring_outer_lb2)(&sc, qq->q, qq->q, w->sring.c, w->s);
            if (lb2 == GEMST_REAL_INF || lb2 > bound2) {
                w->sub = -1;
            } else {
                int32_t c[3] = {w->sring.c[0], w->sring.c[1], w->sring.c[2]};
                GEMST_FN(gemst_ring_begin)(&sc, c, ++w->s, &w->sring);
            }
            continue;
        }
        if (w->x <= w->xb) {
            uint32_t cell = gemst_cell_index(g->nc, w->x++, w->y, w->z);
            uint32_t b = g->cell_start[cell], e = g->cell_start[cell + 1];
            if (b == e || gemst_own_range(own->breaks, own->comp, own->comp_q, b, e))
                continue;
            if (e - b > g->crowded) {
                GEMST_FN(gemst_walk_enter)(g, qq, gemst_crowded_index(g->crowd, cell), w);
                continue;
            }
            *begin = b;
            *end = e;
            return 1;
        }
        gemst_cells top;
        GEMST_FN(gemst_top_cells)(g, &top);
        if (w->shells ? !GEMST_FN(gemst_shell_next)(&top, qq->q, qq->q, &w->shell, bound2, begin, end)
                      : !GEMST_FN(gemst_ring_next)(&top, qq->q, qq->q, &w->ring, bound2, begin, end))
            return 0;
        if (gemst_own_range(own->breaks, own->comp, own->comp_q, *begin, *end))
            continue;
        if (g->n_sub > 0 && *end - *begin > g->crowded) {
            const gemst_span *span = w->shells ? &w->shell.last : &w->ring.last;
            w->x = span->xa;
            w->xb = span->xb;
            w->y = span->y;
            w->z = span->z;
            continue;
        }
        return 1;
    }
}

#endif
