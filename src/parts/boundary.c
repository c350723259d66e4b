/*
 * Step 5 of a partitioned solve: Boruvka over the safe components (step 4)
 * of every part, until one is left.  The graph it works on holds the
 * uncertain edges of the local trees and every edge between points of
 * different parts; the whole set's tree is the safe edges and this graph's
 * tree (docs/partitioned.md).  Each iteration:
 *
 *   a. candidates  each part offers its uncertain edges between different
 *                  components; gathered, each component's least one bounds
 *                  the searches
 *   b. searches    each part searches its halo for the least edge from
 *                  each point to another component, where the point's gap
 *                  does not exceed the component's bound, points of small
 *                  gap first (they lower the bound for the others); a
 *                  point whose last search still answers takes that answer
 *                  instead (kept_answer.h).  A point whose bound lies
 *                  beyond its cell's reach makes the cell ask for more
 *                  (requests.h): the other parts send
 *                  their points within the new reach, and the searches
 *                  that were short of points run again
 *   c. merge       the parts' edges that beat the bounds gathered, each
 *                  component's least one joins it to another (the edge
 *                  order makes them a forest), as in the single solve's
 *                  Boruvka
 *
 * The components' union-find and the list of live components are known to
 * every part alike (computed from the same gathered data); in one process
 * there is one copy.  Everything else is a part's own, and of its points
 * the steps read only its store (store.h): a prefix of them in gap order,
 * extended as the bounds and the requests reach farther.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomics.h"
#include "parts/border.h"
#include "parts/flagged.h"
#include "parts/grow_arrays.h"
#include "parts/halo.h"
#include "parts/kept_answer.h"
#include "parts/least.h"
#include "parts/requests.h"
#include "parts/store.h"

typedef gemst_cand cand;

/* One part's state in an iteration. */
typedef struct {
    cand *view;       /* per slot: its least candidate so far */
    uint64_t *bound;  /* per slot: the bits of view's length, lowered by the searches as they go */
    uint64_t *low;    /* per slot: the smallest gap of its points here, rounded down (gemst_order_bits) */
    uint8_t *open;    /* per slot: a point here may still beat view */
    cand *found;      /* per point of a sweep: what its search found; slot GEMST_NONE: nothing */
    /* per point of the store (in gap order), for the first n_seen (those that ever could search): */
    gemst_kept_answer *kept; /* what its last search proved */
    int64_t n_seen;
    int64_t room;     /* the points that found, kept, again, todo, flag and pick have room for */
    /* per cell, between a round's searches and its requests (gemst_order_bits; first: UINT32_MAX between): */
    uint64_t *need_lo, *need_hi; /* the least and greatest bound beyond its reach */
    uint32_t *first;             /* the first point of the round's list that asks for it */
    gemst_request *req;        /* the cells' requests of a round */
    uint32_t *req_cell;        /* the cell of each */
    uint32_t *again, *todo;    /* the points (store positions) to search again, and those of the round */
    int64_t n_again;
    uint8_t *flag;             /* per point of a round: a mark (after a sweep: WAITS or not) */
    uint32_t *claimed;         /* per cell, during a sweep: its point that searches short of reach (UINT32_MAX between) */
    uint32_t *pick;            /* the marked ones */
    gemst_least_scratch least;
    double seed;      /* a cell's first reach when no bound says how far to look */
} part_state;

typedef struct {
    gemst_parts_ctx *c;
    gemst_part *parts;
    part_state st[GEMST_MAX_PARTS];
    uint32_t n_comp;
    uint32_t *parent, *root, *slot, *live;
    uint32_t n_live;
    cand *best;       /* per slot */
    uint8_t *flag;    /* per safe component or slot: a mark */
    uint32_t *pick;   /* the marked ones */
    cand *offered;    /* local_candidates: two per uncertain edge of a part */
    gemst_least_scratch least;
    gemst_gid_edge *edges;
    int64_t n_edges;
    gridemst_partition_stats *ps;
    int64_t *kept_answers;     /* the solve's stats.partition_kept_answers */
} boruvka;

static const cand NO_CAND = {{INFINITY, UINT64_MAX, UINT64_MAX}, GEMST_NONE, GEMST_NONE};

/* Every safe component's root, by pointer jumping (any value a thread
 * reads is an ancestor), the forest flattened to them, and the roots
 * listed in order. */
static void flatten(boruvka *b)
{
    const uint32_t K = b->n_comp;
    const int threads = gemst_parts_threads(b->c, K);
    int jumped = 1;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (uint32_t k = 0; k < K; k++)
        b->root[k] = b->parent[k];
    while (jumped) {
        jumped = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(| : jumped)
        for (uint32_t k = 0; k < K; k++) {
            const uint32_t up = gemst_load_relaxed(&b->root[k]), top = gemst_load_relaxed(&b->root[up]);
            if (top != up) {
                gemst_store_relaxed(&b->root[k], top);
                jumped = 1;
            }
        }
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (uint32_t k = 0; k < K; k++) {
        b->parent[k] = b->root[k];
        b->flag[k] = b->root[k] == k;
    }
    b->n_live = (uint32_t)gemst_flagged(b->flag, K, b->live, threads);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (uint32_t r = 0; r < b->n_live; r++)
        b->slot[b->live[r]] = r;
}

/* A safe component's slot this iteration. */
static uint32_t slot_of(const boruvka *b, uint32_t comp)
{
    return b->slot[b->root[comp]];
}

/* Into best, the least of each slot's candidates (n of them) besides
 * best's own, on threads for n items. */
static int least_per_slot(const gemst_parts_ctx *c, cand *best, uint32_t n_slots, const cand *cands, int64_t n,
                          gemst_least_scratch *scratch, gridemst_error *err)
{
    if (gemst_least_per_slot(best, n_slots, cands, n, scratch, gemst_parts_threads(c, n + n_slots)) != 0)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the least of %lld candidate edges",
                          (long long)n);
    return GRIDEMST_OK;
}

/* The candidates of per-slot arrays that beat b->best, gathered from every
 * part, and each slot's least into b->best. */
static int gather_least(boruvka *b, cand *const *per_slot, gridemst_error *err)
{
    const double t0 = gemst_now_ms();
    const int P = b->c->parts;
    const int threads = gemst_parts_threads(b->c, b->n_live);
    cand *mine[GEMST_MAX_PARTS] = {0};
    int64_t count[GEMST_MAX_PARTS] = {0};
    int rc = GRIDEMST_OK;
    for (int p = 0; p < P && rc == GRIDEMST_OK; p++) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (uint32_t r = 0; r < b->n_live; r++)
            b->flag[r] = gemst_gid_edge_less(&per_slot[p][r].e, &b->best[r].e);
        count[p] = gemst_flagged(b->flag, b->n_live, b->pick, threads);
        if (!(mine[p] = malloc(sizeof *mine[p] * (size_t)(count[p] > 0 ? count[p] : 1)))) {
            rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld candidate edges",
                            (long long)count[p]);
            break;
        }
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t k = 0; k < count[p]; k++)
            mine[p][k] = per_slot[p][b->pick[k]];
    }
    cand *all = NULL;
    int64_t m = 0;
    if (rc == GRIDEMST_OK)
        rc = gemst_xchg_allgather(&b->c->xchg, (const void *const *)mine, count, sizeof *all, (void **)&all, &m, err);
    if (rc == GRIDEMST_OK)
        rc = least_per_slot(b->c, b->best, b->n_live, all, m, &b->least, err);
    free(all);
    for (int p = 0; p < P; p++)
        free(mine[p]);
    b->ps->merge_ms += gemst_now_ms() - t0;
    return rc;
}

/* a. Each part's uncertain edges between different components: each
 * edge offered to the slots at both its ends. */
static int local_candidates(boruvka *b, gridemst_error *err)
{
    cand *per_slot[GEMST_MAX_PARTS];
    const int threads = gemst_parts_threads(b->c, b->n_live);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (uint32_t r = 0; r < b->n_live; r++)
        b->best[r] = NO_CAND;
    for (int p = 0; p < b->c->parts; p++) {
        const gemst_part_store *st = b->parts[p].store;
        cand *v = per_slot[p] = b->st[p].view;
#pragma omp parallel for num_threads(threads) schedule(static)
        for (uint32_t r = 0; r < b->n_live; r++)
            v[r] = NO_CAND;
#pragma omp parallel for num_threads(gemst_parts_threads(b->c, st->n_edges)) schedule(static)
        for (int64_t k = 0; k < st->n_edges; k++) {
            const gemst_store_edge *e = &st->edge[k];
            const uint32_t ra = slot_of(b, e->comp_lo), rb = slot_of(b, e->comp_hi);
            b->offered[2 * k] = ra == rb ? NO_CAND : (cand){e->e, ra, e->comp_hi};
            b->offered[2 * k + 1] = ra == rb ? NO_CAND : (cand){e->e, rb, e->comp_lo};
        }
        const int rc = least_per_slot(b->c, v, b->n_live, b->offered, 2 * st->n_edges, &b->least, err);
        if (rc != GRIDEMST_OK)
            return rc;
    }
    return gather_least(b, per_slot, err);
}

/* The part's view of this iteration, from the gathered bounds. */
static void start_part(boruvka *b, int p)
{
    part_state *s = &b->st[p];
    const gemst_part *part = &b->parts[p];
    const int threads = gemst_parts_threads(b->c, b->n_live + part->n_comp);
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (uint32_t r = 0; r < b->n_live; r++) {
            s->view[r] = b->best[r];
            s->bound[r] = gemst_halo_bound_bits(b->best[r].e.d2);
            s->low[r] = gemst_order_bits(INFINITY);
        }
#pragma omp for schedule(static)
        for (uint32_t k = 0; k < part->n_comp; k++)
            gemst_atomic_min_u64(&s->low[slot_of(b, part->comp_base + k)],
                                 gemst_order_bits(gemst_parts_lower(part->comp_gap[k])));
#pragma omp for schedule(static)
        for (uint32_t r = 0; r < b->n_live; r++)
            s->open[r] = gemst_order_value(s->low[r]) <= s->view[r].e.d2;
    }
}

/* The store's points 0 .. *m - 1 are those whose gap is within the bound
 * of an open slot: only they may search.  The store is extended first to
 * every point whose gap, rounded down, may be within it. */
static int searchers(const boruvka *b, const gemst_parts_ctx *c, int p, int64_t *m, gridemst_error *err)
{
    const part_state *s = &b->st[p];
    gemst_part *part = &b->parts[p];
    double reach = -INFINITY;
#pragma omp parallel for num_threads(gemst_parts_threads(c, b->n_live)) schedule(static) reduction(max : reach)
    for (uint32_t r = 0; r < b->n_live; r++)
        if (s->open[r] && s->view[r].e.d2 > reach)
            reach = s->view[r].e.d2;
    const int rc = gemst_store_reach(part, reach < 0.0 ? reach : gemst_reach_for(reach), c->threads, err);
    const gemst_part_store *st = part->store;
    int64_t lo = 0, hi = st->n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (gemst_parts_lower(st->gap[mid]) <= reach)
            lo = mid + 1;
        else
            hi = mid;
    }
    *m = hi;
    return rc;
}

/* The marks of a sweep's points (s->flag). */
enum { SEARCHES = 0, WAITS = 1, CLAIMS = 2 };

/* What a sweep does with a point for its component's bound: passes it
 * over (its slot is closed, or its gap is beyond the bound), offers its
 * kept answer, spares it (what it proved is beyond the bound), or
 * searches from it. */
typedef enum { PASSES, OFFERS_KEPT, SPARED, MUST_SEARCH } point_turn;

static point_turn turn_of(const boruvka *b, const part_state *s, const gemst_part_store *st, uint32_t a,
                          uint32_t q_root, uint32_t r, double bound)
{
    if (!s->open[r] || gemst_parts_lower(st->gap[a]) > bound)
        return PASSES;
    const gemst_kept_answer *last = &s->kept[a];
    if (gemst_kept_holds(last, b->root, q_root))
        return OFFERS_KEPT;
    return gemst_kept_lower(last) > bound ? SPARED : MUST_SEARCH;
}

/*
 * Before a sweep of the list's m points (as sweep takes them): the points
 * whose search would stop short of their cell's reach, on the bounds at
 * the sweep's start, marked WAITS, and the first of them in each cell in
 * s->claimed (an atomic minimum).  Decided before the sweep, the points
 * that search, and so the bounds and the requests after it, do not hang
 * on the threads' timing.
 */
static void mark_waiting(boruvka *b, const gemst_parts_ctx *c, int p, const uint32_t *list, int64_t m)
{
    part_state *s = &b->st[p];
    const gemst_part *part = &b->parts[p];
    const gemst_part_store *st = part->store;
#pragma omp parallel for num_threads(gemst_parts_threads(c, m)) schedule(static)
    for (int64_t k = 0; k < m; k++) {
        const uint32_t a = list ? list[k] : (uint32_t)k, q_root = b->root[st->comp[a]], r = b->slot[q_root];
        const double bound = gemst_halo_bound_d2(s->bound[r]);
        const uint32_t cell = st->cell[a];
        s->flag[k] = SEARCHES;
        if (turn_of(b, s, st, a, q_root, r, bound) != MUST_SEARCH ||
            bound < gemst_reach_covers(part->cell_rho[cell]))
            continue;
        s->flag[k] = WAITS;
        gemst_atomic_min_u32(&s->claimed[cell], (uint32_t)k);
    }
}

/* b. One sweep of a part's searches: from the store's points list[k] of
 * open slots, for k < m (list NULL: from its points 0 .. m - 1), on c's
 * threads.  A point whose last search still answers (kept_answer.h)
 * offers that answer, or nothing when it cannot beat the bound, without a
 * search.  A search whose bound lies beyond its cell's reach can prove
 * only what lies within the reach, and the point searches again once the
 * halo has grown: of such points, one a cell searches now, to lower the
 * bound that the cell's request reads, and the others wait for the next
 * round (mark_waiting; s->flag[k] is WAITS after the sweep).  The number
 * of searches into *searched, and into *kept those spared. */
static int sweep(boruvka *b, const gemst_parts_ctx *c, int p, const uint32_t *list, int64_t m, int64_t *searched,
                 int64_t *kept, gridemst_error *err)
{
    part_state *s = &b->st[p];
    const gemst_part *part = &b->parts[p];
    const gemst_part_store *st = part->store;
    int64_t searches = 0, spared = 0;
    gemst_halo_label(part->halo, b->root, gemst_parts_threads(c, part->halo->n));
    mark_waiting(b, c, p, list, m);
#pragma omp parallel for num_threads(gemst_parts_threads(c, m)) schedule(dynamic, 64) reduction(+ : searches, spared)
    for (int64_t k = 0; k < m; k++) {
        const uint32_t a = list ? list[k] : (uint32_t)k, q_root = b->root[st->comp[a]], r = b->slot[q_root];
        s->found[k].slot = GEMST_NONE;
        if (s->flag[k] == WAITS) {
            if (s->claimed[st->cell[a]] != (uint32_t)k)
                continue;
            s->flag[k] = CLAIMS;
        }
        const double bound = gemst_halo_bound_d2(gemst_load_relaxed_u64(&s->bound[r]));
        const point_turn turn = turn_of(b, s, st, a, q_root, r, bound);
        gemst_kept_answer *last = &s->kept[a];
        if (turn == OFFERS_KEPT) {
            s->found[k] = (cand){last->e, r, last->to};
            gemst_atomic_min_u64(&s->bound[r], gemst_halo_bound_bits(last->e.d2));
        }
        spared += turn == OFFERS_KEPT || turn == SPARED;
        if (turn != MUST_SEARCH)
            continue;
        searches++;
        gemst_gid_edge e;
        uint32_t to;
        double searched;
        const int found = gemst_halo_nearest(part->halo, &c->metric, st->w + 3 * (size_t)a, st->id[a],
                                             q_root, &s->bound[r], &e, &to, &searched);
        const double covers = gemst_reach_covers(part->cell_rho[st->cell[a]]);
        *last = gemst_kept_from_search(found, &e, to, searched, covers);
        if (found)
            s->found[k] = (cand){e, r, to};
    }
#pragma omp parallel for num_threads(gemst_parts_threads(c, m)) schedule(static)
    for (int64_t k = 0; k < m; k++)
        if (s->flag[k] != SEARCHES) {
            gemst_store_relaxed(&s->claimed[st->cell[list ? list[k] : (uint32_t)k]], UINT32_MAX);
            s->flag[k] = s->flag[k] == WAITS;
        }
    *searched = searches;
    *kept = spared;
    const int rc = least_per_slot(c, s->view, b->n_live, s->found, m, &s->least, err);
#pragma omp parallel for num_threads(gemst_parts_threads(c, b->n_live)) schedule(static)
    for (uint32_t r = 0; r < b->n_live; r++)
        s->bound[r] = gemst_halo_bound_bits(s->view[r].e.d2);
    return rc;
}

/*
 * After a sweep over the points of the list (as sweep takes it): those
 * that could still beat their component's bound, into s->again
 * (positions in the store): the points whose bound lies beyond their
 * cell's reach, and the points whose search waited.  Their slots stay
 * open, the others close, and the cells of the first ask to reach that
 * far: 4 times their reach so far at least (few rounds), at most what
 * their farthest bound needs; past the key space's diagonal, everything.
 * The requests come in the order of each cell's first point in the list.
 * Returns their number, in s->req.
 */
static int64_t requests(boruvka *b, const gemst_parts_ctx *c, int p, const uint32_t *list, int64_t m)
{
    part_state *s = &b->st[p];
    const gemst_part *part = &b->parts[p];
    const gemst_part_store *st = part->store;
    int threads = gemst_parts_threads(c, m);
    memset(s->open, 0, b->n_live);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t k = 0; k < m; k++) {
        const uint32_t a = list ? list[k] : (uint32_t)k, r = slot_of(b, st->comp[a]);
        const double bound = s->view[r].e.d2;
        const uint32_t cell = st->cell[a];
        const int within = gemst_parts_lower(st->gap[a]) <= bound, waited = s->flag[k] == WAITS;
        /* a kept answer that settled the point lies within its cell's cover too */
        const int short_of_reach = within && bound >= gemst_reach_covers(part->cell_rho[cell]);
        s->flag[k] = short_of_reach || (within && waited);
        if (!s->flag[k])
            continue;
        gemst_store_relaxed_u8(&s->open[r], 1);
        if (!short_of_reach)
            continue;
        gemst_atomic_min_u32(&s->first[cell], (uint32_t)k);
        gemst_atomic_min_u64(&s->need_lo[cell], gemst_order_bits(bound));
        gemst_atomic_max_u64(&s->need_hi[cell], gemst_order_bits(bound));
    }
    s->n_again = gemst_flagged(s->flag, m, s->again, threads);
    threads = gemst_parts_threads(c, s->n_again);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t j = 0; j < s->n_again; j++) { /* positions in the list, then in the store */
        const uint32_t k = s->again[j], a = list ? list[k] : k;
        s->flag[j] = s->first[st->cell[a]] == k;
        s->again[j] = a;
    }
    const int64_t n_req = gemst_flagged(s->flag, s->n_again, s->pick, threads);
    const gemst_region_space *sp = &b->c->space;
    const double diagonal2 = sp->dim * sp->span * sp->span; /* the key space's squared diagonal */
#pragma omp parallel for num_threads(gemst_parts_threads(c, n_req)) schedule(static)
    for (int64_t j = 0; j < n_req; j++) {
        const uint32_t k = s->req_cell[j] = st->cell[s->again[s->pick[j]]];
        const double rho = part->cell_rho[k], lo = gemst_order_value(s->need_lo[k]),
                     hi = gemst_order_value(s->need_hi[k]);
        double next = rho > 0.0 ? 4.0 * rho : s->seed;
        if (!isinf(lo) && next < gemst_reach_for(lo))
            next = gemst_reach_for(lo);
        if (!isinf(hi) && next > gemst_reach_for(hi))
            next = gemst_reach_for(hi);
        if (!(next > rho))
            next = rho > 0.0 ? 4.0 * rho : s->seed;
        s->req[j] = (gemst_request){part->cell_box[k], next > diagonal2 ? INFINITY : next};
        s->need_lo[k] = gemst_order_bits(INFINITY); /* untouched again */
        s->need_hi[k] = gemst_order_bits(-INFINITY);
        s->first[k] = UINT32_MAX;
    }
    return n_req;
}

/* A round of halo growth: the requests of every part, and the answers. */
typedef struct {
    boruvka *b;
    const gemst_request *all;  /* every part's requests, part after part */
    const int64_t *n_req;
    int64_t *count;            /* P x P: the points part s sends part p */
    char *send[GEMST_MAX_PARTS];
    void *recv[GEMST_MAX_PARTS];
    int64_t got[GEMST_MAX_PARTS];
} halo_round;

/* Part s answers the other parts' requests. */
static int answer_part(const gemst_parts_ctx *c, int s, void *round, gridemst_error *err)
{
    halo_round *h = round;
    const int P = c->parts;
    int64_t n = 0, cap = 0, from = 0;
    int rc = GRIDEMST_OK;
    for (int p = 0; p < P && rc == GRIDEMST_OK; p++) {
        const int64_t before = n;
        if (p != s)
            rc = gemst_part_answer(c, &h->b->parts[s], p, h->all + from, h->n_req[p], &h->send[s], &n, &cap, err);
        h->count[(size_t)s * P + p] = n - before;
        from += h->n_req[p];
    }
    return rc;
}

/* Part p adds what it received to its halo. */
static int receive_part(const gemst_parts_ctx *c, int p, void *round, gridemst_error *err)
{
    halo_round *h = round;
    gemst_part *part = &h->b->parts[p];
    for (int64_t k = 0; k < h->n_req[p]; k++)
        part->cell_rho[h->b->st[p].req_cell[k]] = h->b->st[p].req[k].rho;
    if (h->n_req[p] == 0)
        return GRIDEMST_OK;
    return gemst_halo_add(part->halo, &c->metric, h->recv[p], h->got[p],
                          gemst_parts_threads(c, part->halo->n + h->got[p]), err);
}

/* The parts' requests gathered, answered, and the answers added to the
 * halos (each part's answers, and each part's additions, at once). */
static int grow_halos(boruvka *b, const int64_t *n_req, gridemst_error *err)
{
    const double t0 = gemst_now_ms();
    const int P = b->c->parts;
    const void *mine[GEMST_MAX_PARTS] = {0};
    for (int p = 0; p < P; p++)
        mine[p] = b->st[p].req;
    gemst_request *all = NULL;
    int64_t total = 0;
    halo_round h = {b, NULL, n_req, calloc((size_t)P * P, sizeof *h.count), {0}, {0}, {0}};
    int rc = gemst_xchg_allgather(&b->c->xchg, mine, n_req, sizeof *all, (void **)&all, &total, err);
    h.all = all;
    if (rc == GRIDEMST_OK && !h.count)
        rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    if (rc == GRIDEMST_OK)
        rc = gemst_parts_each(b->c, answer_part, &h, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_xchg_alltoall(&b->c->xchg, (const void *const *)h.send, h.count,
                                 gemst_halo_record_bytes(&b->c->metric), h.recv, h.got, err);
    if (rc == GRIDEMST_OK)
        rc = gemst_parts_each(b->c, receive_part, &h, err);
    for (int p = 0; p < P; p++) {
        b->ps->halo_points += h.got[p];
        free(h.send[p]);
        free(h.recv[p]);
    }
    free(h.count);
    free(all);
    b->ps->halo_rounds++;
    b->ps->halo_ms += gemst_now_ms() - t0;
    return rc;
}

/* A round of searches. */
typedef struct {
    boruvka *b;
    int round;
    int64_t n_req[GEMST_MAX_PARTS];    /* each part's requests */
    int64_t searches[GEMST_MAX_PARTS]; /* each part's searches */
    int64_t kept[GEMST_MAX_PARTS];     /* each part's searches spared by kept answers */
} search_round;

/* Room in s's per-point arrays for the first m points of the store. */
static int make_room(part_state *s, int64_t m, gridemst_error *err)
{
    void **const arrays[] = {(void **)&s->found, (void **)&s->kept, (void **)&s->again,
                             (void **)&s->todo,  (void **)&s->flag, (void **)&s->pick};
    const size_t bytes[] = {sizeof *s->found, sizeof *s->kept, sizeof *s->again,
                            sizeof *s->todo,  sizeof *s->flag, sizeof *s->pick};
    if (gemst_grow_arrays(arrays, bytes, sizeof bytes / sizeof bytes[0], &s->room, m) != 0)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the searches of %lld points",
                          (long long)m);
    return GRIDEMST_OK;
}

/* Part p's searches of a round, and its requests: the first round from
 * every point that may beat its bound, then from those short of halo. */
static int search_part(const gemst_parts_ctx *c, int p, void *round, gridemst_error *err)
{
    search_round *r = round;
    part_state *s = &r->b->st[p];
    int64_t m = s->n_again;
    if (r->round == 0) {
        int rc = searchers(r->b, c, p, &m, err);
        if (rc == GRIDEMST_OK)
            rc = make_room(s, m, err);
        if (rc != GRIDEMST_OK)
            return rc;
    }
    uint32_t *list = r->round == 0 ? NULL : s->todo;
    if (list)
        memcpy(list, s->again, sizeof *list * (size_t)m);
    if (!list && m > s->n_seen) { /* points that may search for the first time */
#pragma omp parallel for num_threads(gemst_parts_threads(c, m - s->n_seen)) schedule(static)
        for (int64_t a = s->n_seen; a < m; a++)
            s->kept[a] = gemst_kept_none();
        s->n_seen = m;
    }
    const int rc = sweep(r->b, c, p, list, m, &r->searches[p], &r->kept[p], err);
    r->n_req[p] = rc == GRIDEMST_OK ? requests(r->b, c, p, list, m) : 0;
    return rc;
}

/* b. The searches, every part's at once, in rounds until no cell asks for
 * a farther reach and no search waits. */
static int search(boruvka *b, gridemst_error *err)
{
    const int P = b->c->parts;
    for (int p = 0; p < P; p++)
        start_part(b, p);
    for (int round = 0;; round++) {
        const double t0 = gemst_now_ms();
        search_round r = {b, round, {0}, {0}, {0}};
        int rc = gemst_parts_each(b->c, search_part, &r, err);
        int64_t asked = 0, again = 0;
        for (int p = 0; p < P; p++) {
            asked += r.n_req[p];
            again += b->st[p].n_again;
            b->ps->searches += r.searches[p];
            *b->kept_answers += r.kept[p];
        }
        b->ps->search_ms += gemst_now_ms() - t0;
        if (rc != GRIDEMST_OK || again == 0)
            return rc;
        if (asked > 0)
            rc = grow_halos(b, r.n_req, err);
        if (rc != GRIDEMST_OK)
            return rc;
    }
}

/* c. Each live component hooked along its least edge; a pair that chose
 * the same edge adds it once, under the smaller root.  The roots and
 * slots are the iteration's (flatten), so the hooks do not move them. */
static int merge(boruvka *b, uint32_t *added_out, gridemst_error *err)
{
    const double t0 = gemst_now_ms();
    const int threads = gemst_parts_threads(b->c, b->n_live);
    int lonely = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(| : lonely)
    for (uint32_t r = 0; r < b->n_live; r++) {
        const cand *c = &b->best[r];
        b->flag[r] = 0;
        if (c->slot == GEMST_NONE) {
            lonely = 1;
            continue;
        }
        const uint32_t me = b->live[r], other = b->root[c->to];
        const cand *back = &b->best[b->slot[other]];
        const int mutual = back->e.lo == c->e.lo && back->e.hi == c->e.hi;
        b->flag[r] = !mutual || me < other;
        if (!mutual || me > other)
            b->parent[me] = other;
    }
    if (lonely)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "a component of the partitioned solve has no outgoing edge");
    const uint32_t added = (uint32_t)gemst_flagged(b->flag, b->n_live, b->pick, threads);
#pragma omp parallel for num_threads(gemst_parts_threads(b->c, added)) schedule(static)
    for (uint32_t k = 0; k < added; k++)
        b->edges[b->n_edges + k] = b->best[b->pick[k]].e;
    b->n_edges += added;
    b->ps->merge_ms += gemst_now_ms() - t0;
    *added_out = added;
    if (added == 0)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "a boundary Boruvka iteration of %u components added no edge",
                          b->n_live);
    return GRIDEMST_OK;
}

/* Room in b->offered for two candidates an edge of every part's store. */
static int fit_offered(boruvka *b, gridemst_error *err)
{
    int64_t most_edges = 1;
    for (int p = 0; p < b->c->parts; p++)
        most_edges = b->parts[p].store->n_edges > most_edges ? b->parts[p].store->n_edges : most_edges;
    free(b->offered);
    b->offered = malloc(sizeof *b->offered * 2 * (size_t)most_edges);
    return b->offered ? GRIDEMST_OK
                      : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld candidate edges",
                                   (long long)most_edges);
}

static int alloc_state(boruvka *b, gridemst_error *err)
{
    const size_t K = b->n_comp > 0 ? b->n_comp : 1;
    b->parent = malloc(sizeof *b->parent * K);
    b->root = malloc(sizeof *b->root * K);
    b->slot = malloc(sizeof *b->slot * K);
    b->live = malloc(sizeof *b->live * K);
    b->best = malloc(sizeof *b->best * K);
    b->flag = malloc(K);
    b->pick = malloc(sizeof *b->pick * K);
    b->edges = malloc(sizeof *b->edges * K);
    int ok = b->parent && b->root && b->slot && b->live && b->best && b->flag && b->pick && b->edges;
    for (int p = 0; ok && p < b->c->parts; p++) {
        part_state *s = &b->st[p];
        const gemst_part *part = &b->parts[p];
        s->view = malloc(sizeof *s->view * K);
        s->bound = malloc(sizeof *s->bound * K);
        s->low = malloc(sizeof *s->low * K);
        s->open = malloc(K);
        const size_t cells = (size_t)(part->n_cells > 0 ? part->n_cells : 1);
        s->need_lo = malloc(sizeof *s->need_lo * cells);
        s->need_hi = malloc(sizeof *s->need_hi * cells);
        s->first = malloc(sizeof *s->first * cells);
        s->req = malloc(sizeof *s->req * cells);
        s->req_cell = malloc(sizeof *s->req_cell * cells);
        s->claimed = malloc(sizeof *s->claimed * cells);
        ok = s->view && s->bound && s->low && s->open && s->need_lo && s->need_hi && s->first && s->req &&
             s->req_cell && s->claimed;
#pragma omp parallel for num_threads(ok ? gemst_parts_threads(b->c, part->n_cells) : 1) schedule(static)
        for (int64_t k = 0; k < (ok ? part->n_cells : 0); k++) {
            s->need_lo[k] = gemst_order_bits(INFINITY);
            s->need_hi[k] = gemst_order_bits(-INFINITY);
            s->first[k] = s->claimed[k] = UINT32_MAX;
        }
        /* 4 times a middling tree edge of the part, or the squared spacing of the whole set spread evenly */
        s->seed = part->store->typical_d2 > 0.0
                      ? 4.0 * part->store->typical_d2
                      : pow((double)b->c->pb->n, -2.0 / b->c->metric.dim) * b->c->space.span * b->c->space.span;
    }
    for (uint32_t k = 0; ok && k < b->n_comp; k++)
        b->parent[k] = k;
    return ok ? GRIDEMST_OK
              : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for Boruvka over %u components",
                           b->n_comp);
}

static void free_state(boruvka *b)
{
    void *arrays[] = {b->parent, b->root, b->slot, b->live, b->best, b->flag, b->pick, b->offered};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        free(arrays[k]);
    gemst_least_scratch_free(&b->least);
    for (int p = 0; p < b->c->parts; p++) {
        free(b->st[p].view);
        free(b->st[p].bound);
        free(b->st[p].low);
        free(b->st[p].open);
        free(b->st[p].found);
        free(b->st[p].kept);
        free(b->st[p].need_lo);
        free(b->st[p].need_hi);
        free(b->st[p].first);
        free(b->st[p].flag);
        free(b->st[p].pick);
        gemst_least_scratch_free(&b->st[p].least);
        free(b->st[p].req);
        free(b->st[p].req_cell);
        free(b->st[p].claimed);
        free(b->st[p].again);
        free(b->st[p].todo);
    }
}

int gemst_parts_boundary(gemst_parts_ctx *c, gemst_part *parts, int64_t n_components, gemst_gid_edge **edges,
                         gridemst_stats *st, gridemst_error *err)
{
    boruvka b;
    memset(&b, 0, sizeof b);
    b.c = c;
    b.parts = parts;
    b.n_comp = (uint32_t)n_components;
    b.ps = &st->partitions;
    b.kept_answers = &st->partition_kept_answers;
    int rc = GRIDEMST_OK;
    for (int p = 0; p < c->parts && rc == GRIDEMST_OK; p++)
        rc = gemst_store_create(&parts[p], err);
    if (rc == GRIDEMST_OK)
        rc = alloc_state(&b, err);
    for (int p = 0; p < c->parts && rc == GRIDEMST_OK; p++)
        if (!(parts[p].halo = calloc(1, sizeof *parts[p].halo)))
            rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    if (rc == GRIDEMST_OK)
        rc = gemst_parts_border(c, parts, b.n_comp, b.parent, b.edges, &b.n_edges, st, err);
    if (rc == GRIDEMST_OK)
        rc = fit_offered(&b, err);
    for (int it = 0; rc == GRIDEMST_OK; it++) {
        flatten(&b);
        if (b.n_live <= 1)
            break;
        if (it == GRIDEMST_MAX_ITERATIONS) {
            rc = gemst_fail(err, GRIDEMST_ERR_INTERNAL, "%u components left after %d boundary Boruvka iterations",
                            b.n_live, it);
            break;
        }
        rc = local_candidates(&b, err);
        if (rc == GRIDEMST_OK)
            rc = search(&b, err);
        cand *per_slot[GEMST_MAX_PARTS];
        for (int p = 0; p < c->parts; p++)
            per_slot[p] = b.st[p].view;
        if (rc == GRIDEMST_OK)
            rc = gather_least(&b, per_slot, err);
        uint32_t added = 0;
        if (rc == GRIDEMST_OK)
            rc = merge(&b, &added, err);
        b.ps->iterations = it + 1;
        if (rc == GRIDEMST_OK)
            rc = gemst_progress(&c->pb->opt, "boundary", it + 1, (int64_t)b.n_live - added, err);
    }
    free_state(&b);
    for (int p = 0; p < c->parts; p++) { /* the boundary's reads of the parts' points end here */
        gemst_store_free(parts[p].store);
        parts[p].store = NULL;
        gemst_part_free_on_device(&parts[p]);
    }
    if (rc != GRIDEMST_OK) {
        free(b.edges);
        return rc;
    }
    *edges = b.edges;
    return b.n_edges == (int64_t)n_components - 1 || n_components == 0
               ? GRIDEMST_OK
               : gemst_fail(err, GRIDEMST_ERR_INTERNAL, "the boundary Boruvka found %lld edges for %lld components",
                            (long long)b.n_edges, (long long)n_components);
}
