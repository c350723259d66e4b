/*
 * The point ranges of one ring (or row shell) of the main grid, as every
 * grid search visits them: ring.h's rows, except that
 *
 *  - a crowded cell (grid.h) is searched through its own grid: ring by ring
 *    around the query's nearest cell there, until the rest of the crowded
 *    cell lies beyond the bound, so that a search scans the few points near
 *    the query instead of the whole cell; a nested sub-cell's grid is
 *    searched the same way from its crowded cell's walk, which waits;
 *  - with an own-component filter (searches for another component's
 *    points), ranges whose points all lie in the query's component are
 *    passed over without reading them: with breaks[i] the number of
 *    component changes between consecutive points up to point i (in grid
 *    order), [b, e) lies in one component when breaks[b] == breaks[e - 1].
 *
 * A range of the main grid holding more than g->crowded points may
 * contain a crowded cell, and one of a crowded cell's grid holding more
 * than GEMST_NEST_CROWDED a nested sub-cell; such a row is split into its
 * cells.
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

/* Rings a search without ring cap takes at least before it turns to row
 * shells (ring.h): near the query, rings find a bound sooner.  It turns only
 * once its bound is finite: an unbounded shell is a whole row.  The far
 * searches (the fallback: gemst_walk.far) do the same in the grids of
 * crowded cells, whose fine cells a ring visits one by one (blobs 3D 1e7,
 * counted on the CPU: 111 of the 150 million row visits of the fallback's
 * sixth iteration were in such grids, 38 million with shells; on an H100
 * that iteration took 7.3 ms instead of 19.7). */
#define GEMST_FAR_RINGS 1

/* Cells of a crowded cell's grid beyond which a far search's bound must
 * reach for it to turn to row shells there: nearer, the few rings left
 * cost less than whole rows.  H100, blobs 3D 1e7 points, device ms with
 * shells from 0 / 4 / 8 cells: 66.6 / 67.0 / 69.7 (82.9 without shells in
 * these grids); varden 3D 1e7 63.3 / 63.2 / 63.2. */
#define GEMST_SHELL_REACH 4

static inline GEMST_HD gemst_real GEMST_FN(gemst_shell_reach2)(const gemst_cells *cg)
{
    const gemst_real reach = GEMST_MUL((gemst_real)GEMST_SHELL_REACH, cg->L);
    return GEMST_MUL(reach, reach);
}

/* The walk through one crowded cell's (or nested sub-cell's) grid. */
#define gemst_walk_level GEMST_FN(gemst_walk_level)
typedef struct {
    int32_t sub;           /* the grid (its index in g->sub) */
    int s;                 /* its ring, or row shell */
    int shells;            /* walking a row shell, not a ring */
    union {
        gemst_ring ring;   /* around the query's nearest cell in it ... */
        gemst_shell shell; /* ... or row shell */
    };
    int32_t x;             /* cells x..xb of the last range (its span) still to visit one by one;
                              INT32_MAX: none */
} gemst_walk_level;

/* The walks of the grids around the innermost one, waiting.  Apart from
 * gemst_walk: indexed at run time, this array lives in memory (the GPU's
 * local memory), and the walk itself, touched for every range, in
 * registers (inside it, the array made the whole walk a memory object:
 * normal 3D's static search was 30-48% slower on an H100). */
#define gemst_walk_stack GEMST_FN(gemst_walk_stack)
typedef struct {
    gemst_walk_level level[GEMST_NEST_DEPTH - 1];
} gemst_walk_stack;

#define gemst_walk GEMST_FN(gemst_walk)
typedef struct {
    int shells;            /* walking a row shell, not a ring */
    union {
        gemst_ring ring;   /* the main grid's ring ... */
        gemst_shell shell; /* ... or row shell */
    };
    int32_t x, xb, y, z;   /* cells x..xb of row (y, z) still to visit one by one */
    int far;               /* a far search: crowded cells' grids too turn to row shells */
    int depth;             /* grids entered: 0 on the main grid */
    gemst_walk_level in;   /* the innermost one's walk, while depth > 0 (those around it wait in a
                              gemst_walk_stack) */
} gemst_walk;

/* Starts the walk of ring r; `far`: gemst_walk.far. */
static inline GEMST_HD void GEMST_FN(gemst_walk_begin)(const gemst_grid *g, const gemst_query *qq, int r, int far,
                                                     gemst_walk *w)
{
    gemst_cells top;
    GEMST_FN(gemst_top_cells)(g, &top);
    GEMST_FN(gemst_ring_begin)(&top, qq->c, r, &w->ring);
    w->shells = 0;
    w->x = 0;
    w->xb = -1;
    w->far = far;
    w->depth = 0;
}

/* The same over row shell s, once rings 0..r0 are done (ring.h). */
static inline GEMST_HD void GEMST_FN(gemst_walk_shell_begin)(const gemst_grid *g, const gemst_query *qq, int s, int r0,
                                                           int far, gemst_walk *w)
{
    gemst_cells top;
    GEMST_FN(gemst_top_cells)(g, &top);
    GEMST_FN(gemst_walk_begin)(g, qq, 0, far, w);
    GEMST_FN(gemst_shell_begin)(&top, qq->c, s, r0, &w->shell);
    w->shells = 1;
}

/* Starts the search of grid k (a crowded cell's or a nested sub-cell's),
 * the walk around it waiting in out. */
static inline GEMST_HD void GEMST_FN(gemst_walk_enter)(const gemst_grid *g, const gemst_query *qq, uint32_t k,
                                                     gemst_walk *w, gemst_walk_stack *out)
{
    gemst_cells sc;
    int32_t c[3];
    if (g->nest && w->depth > 0) /* (without nested grids the compiler drops the stack) */
        out->level[w->depth - 1] = w->in;
    w->depth++;
    GEMST_FN(gemst_sub_cells)(g, k, &sc);
    GEMST_FN(gemst_cell_coords)(&sc, qq->q, c);
    w->in.sub = (int32_t)k;
    w->in.s = 0;
    w->in.shells = 0;
    w->in.x = INT32_MAX;
    GEMST_FN(gemst_ring_begin)(&sc, c, 0, &w->in.ring);
}

/* Leaves the innermost grid for the walk around it. */
static inline GEMST_HD void GEMST_FN(gemst_walk_leave)(const gemst_grid *g, gemst_walk *w,
                                                     const gemst_walk_stack *out)
{
    if (--w->depth > 0 && g->nest)
        w->in = out->level[w->depth - 1];
}

/* The next range of the innermost grid's walk (gemst_walk_next) into
 * [*begin, *end); 0 when there is none yet: the walk entered a nested grid,
 * or left this one, done. */
static inline GEMST_HD int GEMST_FN(gemst_walk_sub_next)(const gemst_grid *g, const gemst_query *qq, gemst_walk *w,
                                                       gemst_walk_stack *out, const gemst_own *own,
                                                       gemst_real bound2, uint32_t *begin, uint32_t *end)
{
    gemst_walk_level *in = &w->in;
    gemst_cells sc;
    GEMST_FN(gemst_sub_cells)(g, (uint32_t)in->sub, &sc);
    for (;;) {
        const int shells = w->far && in->shells; /* (without far searches the compiler drops the shells) */
        /* (a copy: a pointer chosen at run time into the walk made the GPU
           keep the walk in local memory; ptxas, the fallback's nested
           instance in 3D: 640 -> 456 bytes of stack, spill stores 868 -> 532) */
        const gemst_span span = shells ? in->shell.last : in->ring.last;
        if (g->nest && in->x != INT32_MAX) {
            if (in->x > span.xb) {
                in->x = INT32_MAX; /* the row is done */
                continue;
            }
            const uint32_t t = gemst_cell_index(sc.nc, in->x++, span.y, span.z);
            const uint32_t b = sc.start[t], e = sc.start[t + 1];
            if (b == e || gemst_own_range(own->breaks, own->comp, own->comp_q, b, e))
                continue;
            const int32_t k = e - b > GEMST_NEST_CROWDED
                                  ? GEMST_FN(gemst_nested_index)(g, (uint32_t)(sc.start - g->sub_start) + t)
                                  : -1;
            if (k >= 0) {
                GEMST_FN(gemst_walk_enter)(g, qq, (uint32_t)k, w, out);
                return 0;
            }
            *begin = b;
            *end = e;
            return 1;
        }
        if (shells ? GEMST_FN(gemst_shell_next)(&sc, qq->q, qq->q, &in->shell, bound2, begin, end)
                   : GEMST_FN(gemst_ring_next)(&sc, qq->q, qq->q, &in->ring, bound2, begin, end)) {
            if (gemst_own_range(own->breaks, own->comp, own->comp_q, *begin, *end))
                continue;
            if (g->nest && *end - *begin > GEMST_NEST_CROWDED) {
                in->x = (shells ? in->shell.last : in->ring.last).xa; /* its cells one by one: one may be nested */
                continue;
            }
            return 1;
        }
        if (shells) { /* shell s done */
            const int32_t c[3] = {in->shell.c[0], in->shell.c[1], in->shell.c[2]};
            const int r0 = in->shell.r0;
            if (in->s >= r0) {
                gemst_real lb2 = GEMST_FN(gemst_sub_shell_outer_lb2)(&sc, qq->q, qq->q, c, in->s);
                if (lb2 == GEMST_REAL_INF || lb2 > bound2)
                    break;
            }
            GEMST_FN(gemst_shell_begin)(&sc, c, ++in->s, r0, &in->shell);
            continue;
        }
        const int32_t c[3] = {in->ring.c[0], in->ring.c[1], in->ring.c[2]};
        gemst_real lb2 = GEMST_FN(gemst_sub_ring_outer_lb2)(&sc, qq->q, qq->q, c, in->s);
        if (lb2 == GEMST_REAL_INF || lb2 > bound2)
            break;
        if (w->far && in->s >= GEMST_FAR_RINGS && bound2 > GEMST_FN(gemst_shell_reach2)(&sc) &&
            bound2 < GEMST_REAL_INF) { /* rows beyond the rings, when the bound reaches far */
            GEMST_FN(gemst_shell_begin)(&sc, c, 0, in->s, &in->shell);
            in->shells = 1;
            in->s = 0;
            continue;
        }
        GEMST_FN(gemst_ring_begin)(&sc, c, ++in->s, &in->ring);
    }
    GEMST_FN(gemst_walk_leave)(g, w, out);
    return 0;
}

/*
 * The next range of ring r (gemst_walk_begin) whose points may lie within
 * squared distance bound2 of the query, in [*begin, *end), with `out` for
 * the walks of the grids it enters.  Returns 0 when the ring is done.
 * bound2 may shrink between calls.
 */
static inline GEMST_HD int GEMST_FN(gemst_walk_next)(const gemst_grid *g, const gemst_query *qq, gemst_walk *w,
                                                   gemst_walk_stack *out, const gemst_own *own, gemst_real bound2,
                                                   uint32_t *begin, uint32_t *end)
{
    for (;;) {
        if (w->depth > 0) {
            if (GEMST_FN(gemst_walk_sub_next)(g, qq, w, out, own, bound2, begin, end))
                return 1;
            continue;
        }
        if (w->x <= w->xb) {
            uint32_t cell = gemst_cell_index(g->nc, w->x++, w->y, w->z);
            uint32_t b = g->cell_start[cell], e = g->cell_start[cell + 1];
            if (b == e || gemst_own_range(own->breaks, own->comp, own->comp_q, b, e))
                continue;
            if (e - b > g->crowded) {
                GEMST_FN(gemst_walk_enter)(g, qq, gemst_crowded_index(g->crowd, cell), w, out);
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
            const gemst_span span = w->shells ? w->shell.last : w->ring.last; /* a copy, as above */
            w->x = span.xa;
            w->xb = span.xb;
            w->y = span.y;
            w->z = span.z;
            continue;
        }
        return 1;
    }
}

#endif
