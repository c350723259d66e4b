/*
 * Step 4 of a partitioned solve: the local tree's edges that belong to the
 * whole set's tree for certain.
 *
 * Kruskal over the part's tree, in the edge order, grows the components of
 * its edges so far (in parallel batches: safe_edges.h).  Every edge from a
 * point q of the part to another part is at least as long as q's gap:
 * the distance from q to the other parts' regions (region.h), rounded
 * down as the solver's arithmetic may round (working.h).  When the tree
 * edge e joins components S1 and S2 and e is shorter than the smallest
 * gap in S2 (or in S1), e is the shortest edge leaving S2 in the whole
 * set: the part's edges leaving S2 are no shorter (Kruskal's order), the
 * edges to other parts longer.  By the cut
 * property e is then in the whole set's tree: a safe edge.  The others are
 * uncertain and go to step 5.  The safe edges join the part's points into
 * safe components, step 5's vertices.
 *
 * The gaps come cell by cell: runs of the part's points in Morton order at
 * one level, whose boxes also carry the halo's reach in step 5
 * (requests.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "atomics.h"
#include "parts/positions.h"
#include "parts/region_dist.h"
#include "parts/safe_edges.h"
#include "cpu/radix_sort.h"

/* Gaps are measured for cells of about this many points (at the whole
 * set's mean density) first: a cell farther from the other parts' regions
 * than GAP_NEAR_SIDES of its sides gives its points its own distance (a
 * lower bound that loses little so far away), and only the points of the
 * cells nearer are measured one by one. */
#define GAP_CELL_POINTS 16
#define GAP_NEAR_SIDES 2

/* The points' working coordinates and Morton keys; order: the points by
 * key (key: 2 n entries, the second half scratch, as tmp). */
static int working_points(const gemst_parts_ctx *c, gemst_part *part, uint64_t *key, uint32_t *order, uint32_t *tmp)
{
    const int64_t n = part->n;
#pragma omp parallel for num_threads(gemst_parts_threads(c, n)) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        key[i] = gemst_parts_point(c, part->coords, i, part->w + 3 * i);
        order[i] = (uint32_t)i;
    }
    return gemst_radix_sort(key, order, (size_t)n, 64, key + n, tmp, gemst_parts_threads(c, n));
}

/* Where a new cell starts among the sorted keys. */
typedef struct {
    const uint64_t *key;
    int dim, level;
} cell_runs;

static int starts_cell(const void *arg, int64_t k)
{
    const cell_runs *r = arg;
    return k == 0 || gemst_region_cell(r->dim, r->key[k], r->level) != gemst_region_cell(r->dim, r->key[k - 1], r->level);
}

/* The gaps of the points of cell r, order[b .. e) (keys key[b .. e)), and
 * the cell's box. */
static void cell_gaps(const gemst_parts_ctx *c, int p, gemst_part *part, const uint64_t *key, const uint32_t *order,
                      int64_t r, int64_t b, int64_t e, int level)
{
    gemst_box box, *tight = &part->cell_box[r];
    gemst_region_cell_box(&c->space, key[b], level, &box);
    *tight = gemst_point_box(part->w + 3 * (size_t)order[b]);
    for (int64_t k = b; k < e; k++) {
        const double *w = part->w + 3 * (size_t)order[k];
        part->cell_of[order[k]] = (uint32_t)r;
        for (int d = 0; d < 3; d++) {
            tight->lo[d] = w[d] < tight->lo[d] ? w[d] : tight->lo[d];
            tight->hi[d] = w[d] > tight->hi[d] ? w[d] : tight->hi[d];
        }
    }
    const double side = box.hi[0] - box.lo[0], far = GAP_NEAR_SIDES * side * GAP_NEAR_SIDES * side;
    const double whole = gemst_region_outside_dist2(&c->space, &box, c->range[p]);
    for (int64_t k = b; k < e; k++) {
        const gemst_box at = gemst_point_box(part->w + 3 * (size_t)order[k]);
        part->gap[order[k]] = whole >= far ? whole : gemst_region_outside_dist2(&c->space, &at, c->range[p]);
    }
}

/* The points' working coordinates and gaps, and the points by gap; key
 * (2 n entries) and tmp (n) are scratch. */
static int gaps(const gemst_parts_ctx *c, int p, gemst_part *part, uint64_t *key, uint32_t *tmp, gridemst_error *err)
{
    const int64_t n = part->n;
    const int dim = c->pb->dim, level = gemst_region_level(dim, c->pb->n, GAP_CELL_POINTS),
              threads = gemst_parts_threads(c, n);
    part->w = malloc(sizeof *part->w * 3 * (size_t)n);
    part->gap = malloc(sizeof *part->gap * (size_t)n);
    part->by_gap = malloc(sizeof *part->by_gap * (size_t)n);
    part->by_key = malloc(sizeof *part->by_key * (size_t)n);
    part->cell_of = malloc(sizeof *part->cell_of * (size_t)n);
    part->cell_start = malloc(sizeof *part->cell_start * (size_t)(n + 1));
    if (!part->w || !part->gap || !part->by_gap || !part->by_key || !part->cell_of || !part->cell_start ||
        working_points(c, part, key, part->by_key, tmp) != 0)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the gaps of %lld points",
                          (long long)n);
    const cell_runs runs_of = {key, dim, level};
    int64_t runs = 0;
    int rc = gemst_parts_positions(n, starts_cell, &runs_of, threads, part->cell_start, &runs, err);
    if (rc != GRIDEMST_OK)
        return rc;
    part->n_cells = runs;
    part->cell_level = level;
    const size_t cells = (size_t)(runs > 0 ? runs : 1);
    int ok = (part->cell_box = malloc(sizeof *part->cell_box * cells)) &&
             (part->cell_key = malloc(sizeof *part->cell_key * cells)) &&
             (part->cell_rho = calloc(cells, sizeof *part->cell_rho)) &&
             (part->cell_sent = calloc(cells, sizeof *part->cell_sent)) &&
             (part->sent = calloc((size_t)n, sizeof *part->sent));
    if (ok) {
        part->cell_start[runs] = (uint32_t)n;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
        for (int64_t r = 0; r < runs; r++) {
            part->cell_key[r] = gemst_region_cell(dim, key[part->cell_start[r]], level);
            cell_gaps(c, p, part, key, part->by_key, r, part->cell_start[r], part->cell_start[r + 1], level);
        }
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t i = 0; i < n; i++) {
            memcpy(&key[i], &part->gap[i], sizeof key[i]); /* non-negative doubles order as their bits */
            part->by_gap[i] = (uint32_t)i;
        }
        ok = gemst_radix_sort(key, part->by_gap, (size_t)n, 64, key + n, tmp, threads) == 0;
    }
    if (!ok)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the gaps of %lld points",
                          (long long)n);
    return GRIDEMST_OK;
}

/* An uncertain edge. */
static int uncertain(const void *safe, int64_t k)
{
    return !((const uint8_t *)safe)[k];
}

/* The uncertain edges' positions, and each safe component's smallest gap. */
static int list_uncertain_and_gaps(const gemst_parts_ctx *c, gemst_part *part, gridemst_error *err)
{
    const int64_t n = part->n, m = part->n_tree;
    int rc = gemst_parts_positions(m, uncertain, part->safe, gemst_parts_threads(c, m), part->uncertain,
                                   &part->n_uncertain, err);
    if (rc != GRIDEMST_OK)
        return rc;
    uint64_t *least = malloc(sizeof *least * (part->n_comp > 0 ? part->n_comp : 1));
    part->comp_gap = malloc(sizeof *part->comp_gap * (part->n_comp > 0 ? part->n_comp : 1));
    if (!least || !part->comp_gap) {
        free(least);
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory contracting a part of %lld points",
                          (long long)n);
    }
    const double none = INFINITY;
    for (uint32_t k = 0; k < part->n_comp; k++)
        memcpy(&least[k], &none, sizeof least[k]);
#pragma omp parallel for num_threads(gemst_parts_threads(c, n)) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        uint64_t bits; /* non-negative doubles order as their bits */
        memcpy(&bits, &part->gap[i], sizeof bits);
        gemst_atomic_min_u64(&least[part->comp[i]], bits);
    }
    memcpy(part->comp_gap, least, sizeof *least * part->n_comp);
    free(least);
    return GRIDEMST_OK;
}

int gemst_part_contract(const gemst_parts_ctx *c, int p, gemst_part *part, gridemst_error *err)
{
    const int64_t n = part->n, m = part->n_tree;
    if (n == 0)
        return GRIDEMST_OK;
    double t0 = gemst_now_ms();
    /* scratch: the keys of the sorts and their second halves, then each point's gap rounded down */
    uint64_t *key = malloc(sizeof *key * 2 * (size_t)n);
    uint32_t *tmp = malloc(sizeof *tmp * (size_t)n);
    int rc = key && tmp ? gaps(c, p, part, key, tmp, err)
                        : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for the gaps of %lld points",
                                     (long long)n);
    free(tmp);
    part->gaps_ms = gemst_now_ms() - t0;
    t0 = gemst_now_ms();
    double *low = (double *)key;
    part->safe = malloc((size_t)(m > 0 ? m : 1));
    part->uncertain = malloc(sizeof *part->uncertain * (size_t)(m > 0 ? m : 1));
    part->comp = malloc(sizeof *part->comp * (size_t)n);
    if (rc == GRIDEMST_OK && (!part->safe || !part->uncertain || !part->comp))
        rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory contracting a part of %lld points",
                        (long long)n);
    const int threads = gemst_parts_threads(c, n);
    if (rc == GRIDEMST_OK) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t i = 0; i < n; i++)
            low[i] = gemst_parts_lower(part->gap[i]);
        rc = gemst_safe_edges(part->tree, m, low, n, threads, part->safe, err);
    }
    free(key);
    part->safe_ms = gemst_now_ms() - t0;
    t0 = gemst_now_ms();
    if (rc == GRIDEMST_OK)
        rc = gemst_safe_components(part->tree, m, part->safe, n, threads, part->comp, &part->n_comp, err);
    if (rc == GRIDEMST_OK)
        rc = list_uncertain_and_gaps(c, part, err);
    part->components_ms = gemst_now_ms() - t0;
    return rc;
}

int gemst_parts_number_components(gemst_parts_ctx *c, gemst_part *parts, int64_t *components, gridemst_error *err)
{
    const int P = c->parts;
    const void *send[GEMST_MAX_PARTS] = {0};
    int64_t count[GEMST_MAX_PARTS] = {0};
    for (int p = 0; p < P; p++) {
        send[p] = &parts[p].n_comp;
        count[p] = 1;
    }
    uint32_t *n_comp;
    int64_t got;
    int rc = gemst_xchg_allgather(&c->xchg, send, count, sizeof *n_comp, (void **)&n_comp, &got, err);
    if (rc != GRIDEMST_OK)
        return rc;
    int64_t offset = 0;
    for (int p = 0; p < P; p++) {
#pragma omp parallel for num_threads(gemst_parts_threads(c, parts[p].n)) schedule(static)
        for (int64_t i = 0; i < parts[p].n; i++)
            parts[p].comp[i] += (uint32_t)offset;
        parts[p].comp_base = (uint32_t)offset;
        offset += n_comp[p];
    }
    free(n_comp);
    *components = offset;
    return GRIDEMST_OK;
}
