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

/* The first of the cells from .. to - 1 whose prefix key is not below
 * key. */
static int64_t cells_from(const gemst_part *s, int64_t from, int64_t to, uint64_t key)
{
    while (from < to) {
        const int64_t mid = from + (to - from) / 2;
        if (s->cell_key[mid] < key)
            from = mid + 1;
        else
            to = mid;
    }
    return from;
}

/*
 * One request's cells under the dyadic cube of `level` at integer
 * coordinates c, the part's cells first .. last - 1 (those whose keys lie
 * in the cube's range): none when the cube is out of reach, else the
 * cell's points, or the cube's children in key order (a Morton key's
 * next dim bits pick the child, axis 0 lowest).  A cell's points lie in
 * its cube, and the computed distance of a box within another is no
 * less than the other's, so the cells a cube's test drops are those the
 * cell's own test would.
 */
static int answer_cube(answer *a, const gemst_region_space *sp, int level, const uint32_t c[3], int64_t first,
                       int64_t last)
{
    const gemst_part *s = a->s;
    const int dim = sp->dim;
    const double side = ldexp(sp->span, -level);
    gemst_box cube = {{0, 0, 0}, {0, 0, 0}};
    for (int d = 0; d < dim; d++) {
        cube.lo[d] = sp->base + side * c[d];
        cube.hi[d] = cube.lo[d] + side;
    }
    if (first >= last || !(gemst_box_dist2(&cube, a->box) < a->limit))
        return 0;
    if (level == s->cell_level)
        return answer_cell(a, first);
    const int below = dim * (s->cell_level - level - 1); /* a child's free bits in a cell's key */
    const uint32_t children = 1u << dim;
    const uint64_t cube_key = gemst_region_cell_at(dim, level, c);
    for (uint32_t j = 0; j < children; j++) {
        uint32_t child[3] = {0, 0, 0};
        for (int d = 0; d < dim; d++)
            child[d] = 2 * c[d] + (j >> d & 1);
        /* the child's cells end where the next child's keys start (the last child's, with the cube's) */
        const uint64_t next = (cube_key << dim | (j + 1)) << below;
        const int64_t to = j + 1 < children ? cells_from(s, first, last, next) : last;
        if (answer_cube(a, sp, level + 1, child, first, to) != 0)
            return -1;
        first = to;
    }
    return 0;
}

/* One request: every cell of the part when its reach is infinite, else
 * the cells of the cubes within reach, from the whole key space's down. */
static int answer_request(answer *a, const gemst_region_space *sp)
{
    gemst_part *s = a->s;
    if (isfinite(a->limit)) {
        const uint32_t root[3] = {0, 0, 0};
        return answer_cube(a, sp, 0, root, 0, s->n_cells);
    }
    for (int64_t k = 0; k < s->n_cells; k++)
        if (answer_cell(a, k) != 0)
            return -1;
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
    const int rc = gemst_store_reach(s, need, c->threads, err);
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
