/* Answering halo requests, through the cells of the answering part. */
#include "parts/requests.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "atomics.h"
#include "parts/halo.h"
#include "parts/region_dist.h"
#include "parts/store.h"

/* Box distances are computed in double, within a relative 2^-50 of the
 * exact ones: a point is sent for a reach rho when its computed distance
 * is below rho (1 + SEND_MARGIN), so that every point nearer than rho is
 * sent. */
#define SEND_MARGIN 0x1p-40

/* The pieces along each axis into which a request's box cut by the asking
 * part's range is split to bound its points' distance to that part's
 * region (gemst_request_gap_limit). */
#define LIMIT_PIECES 4

/* A request's work, in points looked at (a few cells of about 16), for
 * the threads it may use. */
#define ANSWER_WORK 64

double gemst_reach_covers(double rho)
{
    return isinf(rho) ? INFINITY : gemst_parts_lower(rho);
}

double gemst_reach_for(double d2)
{
    return (d2 + 0x1p-140) / (1.0 - 0x1p-20) * (1.0 + 0x1p-30);
}

double gemst_request_gap_limit(const gemst_region_space *sp, int level, gemst_key_range asking,
                               const gemst_request *req)
{
    const double reach = req->rho * (1.0 + SEND_MARGIN);
    if (isinf(reach))
        return INFINITY;
    const gemst_region_cell_ref cell = {level, 0.0, {0, 0, 0},
                                        gemst_region_cell(sp->dim, gemst_region_key(sp, req->box.lo), level), 0.0};
    if (gemst_region_cell_side(sp->dim, &cell, asking) > 0)
        return gemst_reach_for(reach);
    /* every point of the box lies within `most` of the asking region: bounded over the box's pieces, each
     * no farther from the region than its distance to it and its diagonal */
    const int dim = sp->dim;
    int pieces = 1;
    for (int d = 0; d < dim; d++)
        pieces *= LIMIT_PIECES;
    double most = 0.0;
    for (int j = 0; j < pieces; j++) {
        gemst_box piece = {{0, 0, 0}, {0, 0, 0}};
        double diagonal2 = 0.0;
        for (int d = 0, at = j; d < dim; d++, at /= LIMIT_PIECES) {
            const int i = at % LIMIT_PIECES;
            const double lo = req->box.lo[d], width = req->box.hi[d] - lo;
            /* neighbours share their computed face, the last ends at the box's: the pieces cover it */
            piece.lo[d] = lo + width * i / LIMIT_PIECES;
            piece.hi[d] = i + 1 == LIMIT_PIECES ? req->box.hi[d] : lo + width * (i + 1) / LIMIT_PIECES;
            diagonal2 += (piece.hi[d] - piece.lo[d]) * (piece.hi[d] - piece.lo[d]);
        }
        const double from = sqrt(gemst_region_dist2(sp, &piece, asking, INFINITY)) + sqrt(diagonal2);
        most = from > most ? from : most;
    }
    const double far = sqrt(reach) + most;
    return gemst_reach_for(far * far * (1.0 + SEND_MARGIN));
}

typedef struct {
    const gemst_parts_metric *m;
    gemst_part *s;
    uint64_t bit;             /* the asking part's */
    const gemst_box *box;
    double limit;
    char **out;
    int64_t *count, *cap;
} answer;

/* Sends the store's point j unless another request (of this round, on
 * any thread, or of an earlier one) has sent it already. */
static int emit(answer *a, uint32_t j)
{
    if (gemst_atomic_or_u64(&a->s->store->sent[j], a->bit) & a->bit)
        return 0;
    const size_t rb = gemst_halo_record_bytes(a->m);
    if (*a->count == *a->cap) {
        const int64_t want = *a->cap > 0 ? 2 * *a->cap : 1024;
        char *grown = realloc(*a->out, rb * (size_t)want);
        if (!grown)
            return -1;
        *a->out = grown;
        *a->cap = want;
    }
    gemst_halo_record(a->m, a->s->store, j, *a->out + rb * (size_t)(*a->count)++);
    return 0;
}

/* The store's points of cell k within reach and not yet sent (the cell's
 * other points are beyond it); the cell remembers when all of them have
 * gone. */
static int answer_cell(answer *a, int64_t k)
{
    gemst_part *s = a->s;
    const gemst_part_store *st = s->store;
    if ((gemst_load_relaxed_u64(&s->cell_sent[k]) & a->bit) ||
        !(gemst_box_dist2(&s->cell_box[k], a->box) < a->limit))
        return 0;
    int all = 1;
    for (uint32_t i = st->cell_start[k]; i < st->cell_start[k + 1]; i++) {
        const uint32_t j = st->by_cell[i];
        if (gemst_load_relaxed_u64(&st->sent[j]) & a->bit)
            continue;
        const gemst_box at = gemst_point_box(st->w + 3 * (size_t)j);
        if (!(gemst_box_dist2(&at, a->box) < a->limit))
            all = 0;
        else if (emit(a, j) != 0)
            return -1;
    }
    if (all)
        gemst_atomic_or_u64(&s->cell_sent[k], a->bit);
    return 0;
}

/* The first of the cells from .. to - 1 whose prefix key is not below key
 * (past: above key). */
static int64_t cells_from(const gemst_part *s, int64_t from, int64_t to, uint64_t key, int past)
{
    while (from < to) {
        const int64_t mid = from + (to - from) / 2;
        if (s->cell_key[mid] < key || (past && s->cell_key[mid] == key))
            from = mid + 1;
        else
            to = mid;
    }
    return from;
}

/*
 * One request: the cells of the answering part's level that the box
 * widened by the reach touches (one more on each side, for rounding).  A
 * Morton key grows with each coordinate, so their keys lie between those of
 * the box's lowest and highest corners: when the part has no more cells in
 * that key range than the box holds, every one of them is tested (the
 * cell's distance test rejects those outside), else the box's cells are
 * looked up one by one in that range; all its cells when the reach is
 * infinite.
 */
static int answer_request(answer *a, const gemst_region_space *sp)
{
    gemst_part *s = a->s;
    const int dim = sp->dim, level = s->cell_level;
    const double per_unit = ldexp(1.0, level) / sp->span, r = sqrt(a->limit);
    const int64_t top = ((int64_t)1 << level) - 1;
    uint32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    int64_t span = 1;
    for (int d = 0; d < dim && isfinite(r); d++) {
        const double from = floor((a->box->lo[d] - r - sp->base) * per_unit) - 1,
                     to = floor((a->box->hi[d] + r - sp->base) * per_unit) + 1;
        lo[d] = from < 0 ? 0 : from > (double)top ? (uint32_t)top : (uint32_t)from;
        hi[d] = to < 0 ? 0 : to > (double)top ? (uint32_t)top : (uint32_t)to;
        span *= (int64_t)hi[d] - lo[d] + 1;
    }
    int64_t first = 0, last = s->n_cells;
    if (isfinite(r)) {
        first = cells_from(s, 0, s->n_cells, gemst_region_cell_at(dim, level, lo), 0);
        last = cells_from(s, first, s->n_cells, gemst_region_cell_at(dim, level, hi), 1);
    }
    if (!isfinite(r) || last - first <= span) {
        for (int64_t k = first; k < last; k++)
            if (answer_cell(a, k) != 0)
                return -1;
        return 0;
    }
    uint32_t c[3] = {0, 0, 0};
    for (int64_t z = lo[2]; z <= hi[2]; z++)
        for (int64_t y = lo[1]; y <= hi[1]; y++)
            for (int64_t x = lo[0]; x <= hi[0]; x++) {
                c[0] = (uint32_t)x;
                c[1] = (uint32_t)y;
                c[2] = (uint32_t)z;
                const uint64_t key = gemst_region_cell_at(dim, level, c);
                const int64_t k = cells_from(s, first, last, key, 0);
                if (k < last && s->cell_key[k] == key && answer_cell(a, k) != 0)
                    return -1;
            }
    return 0;
}

/* One thread's answers. */
typedef struct {
    char *out;
    int64_t count, cap;
} thread_answers;

int gemst_part_answer(const gemst_parts_ctx *c, gemst_part *s, int p, const gemst_request *req, int64_t m,
                      char **out, int64_t *count, int64_t *cap, gridemst_error *err)
{
    /* the store first holds every point within reach of a request */
    double need = -INFINITY;
    for (int64_t k = 0; k < m; k++) {
        const double limit = gemst_request_gap_limit(&c->space, s->cell_level, c->range[p], &req[k]);
        need = limit > need ? limit : need;
    }
    const int rc = gemst_store_reach(s, need, err);
    if (rc != GRIDEMST_OK)
        return rc;
    /* the requests shared among the threads, each thread's answers in its own buffer, then appended in order */
    const int threads = gemst_parts_threads(c, m * ANSWER_WORK);
    thread_answers *mine = calloc((size_t)threads, sizeof *mine);
    if (!mine)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    uint32_t failed = 0;
#pragma omp parallel num_threads(threads)
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        answer a = {&c->metric, s, (uint64_t)1 << p, NULL, 0.0, &mine[t].out, &mine[t].count, &mine[t].cap};
#pragma omp for schedule(dynamic, 4)
        for (int64_t k = 0; k < m; k++) {
            if (s->n == 0 || gemst_load_relaxed(&failed))
                continue;
            a.box = &req[k].box;
            a.limit = req[k].rho * (1.0 + SEND_MARGIN);
            if (answer_request(&a, &c->space) != 0)
                gemst_store_relaxed(&failed, 1);
        }
    }
    const size_t rb = gemst_halo_record_bytes(&c->metric);
    int64_t total = *count;
    for (int t = 0; t < threads; t++)
        total += mine[t].count;
    if (!failed && total > *cap) {
        char *grown = realloc(*out, rb * (size_t)total);
        if (grown) {
            *out = grown;
            *cap = total;
        } else {
            failed = 1;
        }
    }
    for (int t = 0; t < threads; t++) {
        if (!failed && mine[t].count > 0)
            memcpy(*out + rb * (size_t)*count, mine[t].out, rb * (size_t)mine[t].count);
        *count += failed ? 0 : mine[t].count;
        free(mine[t].out);
    }
    free(mine);
    if (failed)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld halo points", (long long)total);
    return GRIDEMST_OK;
}
