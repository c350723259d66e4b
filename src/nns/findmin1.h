/*
 * FindMin1 per point, for every strategy: what one CPU loop iteration or
 * one CUDA thread does (precision-generic, see real.h).
 */
#ifndef GEMST_FINDMIN1_H
#define GEMST_FINDMIN1_H

#include "nns/search.h"
#include "graph/boruvka.h"

/* The per-point arrays FindMin1 reads and writes, indexed by grid point. */
#define gemst_findmin1_state GEMST_FN(gemst_findmin1_state)
typedef struct {
    int prune;              /* gridemst_prune */
    const uint32_t *comp;   /* component roots */
    const uint32_t *breaks; /* component changes along grid order (nns/walk.h), or NULL */
    uint32_t *cand;         /* static: GEMST_CAND_SLOTS candidates per point */
    uint8_t *ncand;         /* static: candidates left */
    uint64_t *open;         /* dynamic: open slabs */
    gemst_real *rb2;        /* lower bound of what the point's search left unexamined */
    gemst_real *best_d2;    /* the point's edge out of its component */
    uint32_t *best_to;      /* its other end, or GEMST_NONE */
} gemst_findmin1_state;

/* Point q's shortest edge to another component, as far as its strategy's
 * first search finds it (see nns/search.h). */
static inline GEMST_HD void GEMST_FN(gemst_findmin1_point)(const gemst_grid *g, const gemst_findmin1_state *st,
                                                         uint32_t q)
{
    gemst_query qq;
    gemst_edge_key best = gemst_edge_none();
    uint32_t to = GEMST_NONE;
    if (st->prune == GRIDEMST_PRUNE_STATIC) {
        GEMST_FN(gemst_query_point)(g, q, &qq); /* a scan of candidates needs no cell */
        st->ncand[q] = (uint8_t)GEMST_FN(gemst_static_scan)(g, &qq, st->comp, st->comp[q],
                                                             st->cand + (size_t)q * GEMST_CAND_SLOTS, st->ncand[q],
                                                             &best, &to);
    } else {
        GEMST_FN(gemst_query_make)(g, q, &qq);
        if (st->prune == GRIDEMST_PRUNE_DYNAMIC)
            st->rb2[q] = GEMST_FN(gemst_dynamic_search)(g, &qq, st->comp, st->comp[q], &st->open[q],
                                                         GEMST_RING_CAP, &best, &to);
        else
            st->rb2[q] = GEMST_FN(gemst_nearest_foreign)(g, &qq, st->comp, st->breaks, st->comp[q],
                                                          gemst_slab_full_mask(g->dim), GEMST_RING_CAP, NULL, &best,
                                                          &to);
        /* no edge of q is shorter than its core distance (nns/edge_length.h) */
        if (st->rb2[q] < qq.core2)
            st->rb2[q] = qq.core2;
    }
    st->best_d2[q] = best.d2;
    st->best_to[q] = to;
}

/* Whether point q needs the fallback: its search bound does not exceed its
 * component's best edge (w1/w2), so a shorter edge may lie beyond what its
 * search examined. */
static inline GEMST_HD int GEMST_FN(gemst_fallback_needed)(const gemst_findmin1_state *st, const gemst_word1 *w1,
                                                         const uint64_t *w2, uint32_t q)
{
    gemst_real d2 = GEMST_FN(gemst_root_edge)(w1, w2, st->comp[q]).d2;
    return st->rb2[q] != GEMST_REAL_INF && st->rb2[q] <= d2;
}

/* Root r's shortest edge as FindMin2's first pass chose it, rebuilt from
 * its endpoints: the fallback's cutoff.  (Not from w1/w2: the fallback's
 * cell searches lower w1 as they go, see nns/cell_fallback.h, which would
 * pair a new length with the old endpoints.) */
static inline GEMST_HD gemst_edge_key GEMST_FN(gemst_first_edge)(const gemst_grid *g, const uint32_t *win_in,
                                                               const uint32_t *win_out, uint32_t r)
{
    const uint32_t a = win_in[r], b = win_out[r];
    if (a == GEMST_NONE)
        return gemst_edge_none();
    return gemst_edge_make(GEMST_FN(gemst_edge_d2)(g, a, b), g->oid[a], g->oid[b]);
}

/* The fallback for a point q that needs it: a search without cap and with
 * its component's first-pass edge as cutoff, over the point's open slabs
 * (all of them but for dynamic pruning).  It shares the bound of its
 * component's searches through w1 (see nns/cell_fallback.h).  Returns 1 when
 * it found a shorter edge (written to best_d2/best_to), 0 otherwise.
 *
 * For static pruning the search also raises the point's bound for good:
 * every point nearer than the bound it searched to is in q's component, and
 * stays there, so q has no outgoing edge missing from its candidates below
 * that length in any later iteration either.  (A search that also
 * completes the point's candidates from its slabs' nearest points was
 * tried: it halved the searches on clustered sets but made each costlier,
 * 1.3-3x slower overall on the GPU.) */
static inline GEMST_HD int GEMST_FN(gemst_fallback_point)(const gemst_grid *g, const gemst_findmin1_state *st,
                                                        gemst_word1 *w1, const uint32_t *win_in,
                                                        const uint32_t *win_out, uint32_t q)
{
    uint32_t r = st->comp[q];
    gemst_edge_key best = GEMST_FN(gemst_first_edge)(g, win_in, win_out, r);
    gemst_query qq;
    uint32_t to = GEMST_NONE;
    uint64_t open = st->prune == GRIDEMST_PRUNE_DYNAMIC ? st->open[q] : gemst_slab_full_mask(g->dim);
    GEMST_FN(gemst_query_make)(g, q, &qq);
    GEMST_FN(gemst_nearest_foreign)(g, &qq, st->comp, st->breaks, r, open, INT32_MAX, &w1[r], &best, &to);
    /* at most the bound the search used: lowered since only by others */
    gemst_real cut = GEMST_FN(gemst_share_bound)(&w1[r], &best, 0);
    if (st->prune == GRIDEMST_PRUNE_STATIC && cut > st->rb2[q])
        st->rb2[q] = cut;
    if (to == GEMST_NONE)
        return 0;
    st->best_d2[q] = best.d2;
    st->best_to[q] = to;
    return 1;
}

/* Whether an iteration's searches are worth a pass over the points that
 * counts component breaks, so that they skip their own component's ranges
 * (nns/walk.h): not while every point is its own component, and for the
 * fallback only when it searches from many points. */
static inline GEMST_HD int gemst_breaks_pay(int iteration, uint64_t searches, uint32_t nu)
{
    return iteration > 0 && searches > nu / 32;
}

/* breaks[i] before its prefix sum: whether point i starts a new run of
 * components in grid order. */
static inline GEMST_HD uint32_t gemst_break_at(const uint32_t *comp, uint32_t i)
{
    return i > 0 && comp[i] != comp[i - 1];
}

#endif
