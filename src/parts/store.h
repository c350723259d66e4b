/*
 * A part's boundary store: what the boundary steps (step 5: boundary.c,
 * requests.c, halo.h) read of the part's points, for a prefix of them in
 * gap order.
 *
 * A search runs from a point only when its gap is within its component's
 * bound, and an answer to a halo request sends only points whose gap is
 * within the request's gap limit (gemst_request_gap_limit).  Either reads
 * the points of gap up to some squared length, a prefix of the points by
 * gap (by_gap), and the store holds every point of gap up to `limit`:
 * position a is the point by_gap[a].  When a search's bound or a request's
 * reach passes the limit, the store is extended: the limit grows to at
 * least GEMST_STORE_GROWTH times itself, so that a solve extends it a few
 * times.  GRIDEMST_PARTS_STORE=exact in the environment grows it only to
 * what is asked, from nothing, so that it is extended at every step that
 * asks for more (a test of the extensions).
 *
 * The fill (gemst_store_fill) is the one step that reads the part's own
 * arrays: the points' next ones in gap order, appended.  The uncertain
 * edges, with their ends' ids and components, are copied in once.  For a
 * part whose arrays stayed on its device (part->on_device), both gather
 * there and copy only what they take to host memory (device_store.h), bit
 * for bit what the host's arrays give.
 */
#ifndef GEMST_PARTS_STORE_H
#define GEMST_PARTS_STORE_H

#include "parts/parts.h"

/* The least factor by which an extension raises the limit. */
#define GEMST_STORE_GROWTH 2.0

/* An uncertain edge of the part's tree, as the boundary reads it. */
typedef struct gemst_store_edge {
    gemst_gid_edge e;
    uint32_t comp_lo, comp_hi; /* the safe components of e.lo and e.hi */
} gemst_store_edge;

struct gemst_part_store {
    double limit;     /* every point of gap up to it is held; -INFINITY: none yet */
    int exact;        /* extensions go only as far as asked (GRIDEMST_PARTS_STORE=exact) */
    int64_t n, cap;   /* the points held, the first n by gap */
    uint32_t *at;     /* per point: its number in the part */
    gemst_gid *id;    /* its id in the whole set */
    uint32_t *comp;   /* its safe component */
    uint32_t *cell;   /* its cell (the part's cells, gaps.c) */
    double *gap;      /* its gap */
    double *w;        /* its working coordinates, 3 per point */
    uint64_t *sent;   /* the parts that have it in their halos */
    /* the points by cell, for the answers: cell k's from by_cell[cell_start[k]] to by_cell[cell_start[k + 1]] */
    uint32_t *by_cell;
    uint32_t *cell_start; /* n_cells + 1 */
    int64_t n_cells;
    gemst_store_edge *edge; /* the uncertain edges */
    int64_t n_edges;
    double typical_d2;      /* a middling local tree edge's squared length (0: none) */
    int64_t extensions;     /* the fills that added points */
};

/* The part's store, empty, with its uncertain edges (after step 4). */
int gemst_store_create(gemst_part *part, gridemst_error *err);

/* Appends to the store the part's next points in gap order, those of gap
 * up to limit (INFINITY: all), and makes limit the store's; on up to
 * `threads` threads. */
int gemst_store_fill(gemst_part *part, double limit, int threads, gridemst_error *err);

/* Extends the store, when need passes its limit, so that it holds every
 * point of gap up to need (the growth rule above). */
int gemst_store_reach(gemst_part *part, double need, int threads, gridemst_error *err);

/* How many of the part's points have a gap up to limit, whether the store
 * holds them or not. */
int gemst_store_count(const gemst_part *part, double limit, int64_t *count, gridemst_error *err);

void gemst_store_free(gemst_part_store *s);

#endif
